//! What a system remembers of a player beside the public [`Rating`](crate::Rating): the
//! per-player memory that some systems need to rate the next match.
//!
//! [`Rating`](crate::Rating) is the summary every system gives (a value, maybe an
//! uncertainty σ, games played); leaderboards, predictions and the lab read only that.
//! Some systems need more: Elo-MMR keeps a list of each player's past performances,
//! Glicko-2 a volatility. Such a system says so ([`Capabilities::keeps_state`]), builds a
//! player's first [`State`] from a rating ([`RatingSystem::initial_state`]) and returns
//! every player's next state with the match's changes
//! ([`RatingSystem::rate`]). A [`League`](crate::League) keeps the states
//! beside the ratings, and only when the whole match succeeded; a system without state
//! costs nothing, as the league then keeps none.
//!
//! A system may also learn from every match something that belongs to no player: which
//! of its models fits the history, the calibration of its probabilities, where
//! newcomers start (`kalman-mmr`). That is one more [`State`], the league's *learned*
//! value: the system gives its value before any match
//! ([`RatingSystem::initial_learned`], `None` for a system that learns nothing and then
//! never pays for it), receives the current value with each match and returns the next
//! one in [`Posterior::learned`]. A league keeps it beside the players (copies and
//! checkpoints carry it, a failed match leaves it as it was) and reads ratings
//! ([`RatingSystem::age`]) and probabilities with it.
//!
//! A state is immutable once built and shared by reference count, so copying a league
//! (a checkpoint) or a match report copies pointers, not histories. A system's state type
//! is its own; it finds it again with [`State::get`].
//!
//! With the `serde` feature a league can be saved and restored exactly
//! ([`crate::league::saved`]). A state is then written as a `SavedState`: the state
//! types of podium's systems are listed there, each a variant tagged by its kind
//! (`"elo-mmr"`, `"glicko2"`, `"kalman-mmr"`, `"kalman-mmr-learned"`), found by type when
//! saving and, when restoring, built again and checked against the system's own fresh
//! value of that type, so that a system is never given a state of another system or
//! shape. The list is closed: a state stays any `'static` type for a system defined
//! elsewhere, whose league then cannot be saved (it says so). A new system with state
//! derives `Serialize` and `Deserialize` on its state type, implements `Restorable`
//! for it (one line, or a check of its shape), and adds one line to the list.
//!
//! ```
//! use podium::State;
//!
//! #[derive(Debug, PartialEq)]
//! struct Volatility(f64);
//!
//! let s = State::new(Volatility(0.06));
//! assert_eq!(s.get::<Volatility>(), Some(&Volatility(0.06)));
//! assert_eq!(s.get::<u32>(), None); // another system's state type
//! let copy = s.clone(); // shares the value
//! assert!(State::same(&s, &copy));
//! ```
//!
//! [`Capabilities::keeps_state`]: crate::Capabilities::keeps_state
//! [`Posterior::learned`]: crate::Posterior::learned
//! [`RatingSystem::initial_state`]: crate::RatingSystem::initial_state
//! [`RatingSystem::rate`]: crate::RatingSystem::rate
//! [`RatingSystem::initial_learned`]: crate::RatingSystem::initial_learned
//! [`RatingSystem::age`]: crate::RatingSystem::age

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::rating::PlayerChange;

/// A value a system keeps for one player, held with the way its data outside it is
/// loaded ahead ([`Load`]): any `'static` type that is `Send + Sync + Debug` can be one,
/// and a type that holds part of its data elsewhere can also say where ([`Spread`]).
trait Value: Send + Sync + fmt::Debug {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn type_name(&self) -> &'static str;
    fn prefetch(&self);
    fn prefetch_spread(&self);
}

/// A state type whose data lies partly outside the value itself (a vector's elements,
/// such as Elo-MMR's past performances): it can start loading that data into the
/// processor's cache, a hint that changes nothing.
pub(crate) trait Spread {
    /// Starts loading the part of the value that says where the data outside it lies
    /// (a vector's pointer and length), without reading anything: with
    /// [`State::prefetch`], which loads the value's first cache line.
    fn prefetch_handle(&self);

    /// Starts loading the data outside the value. It reads the value's handle, so it
    /// pays only once that is in the cache ([`State::prefetch`] some time before).
    fn prefetch_spread(&self);
}

/// How a held value's data outside it is loaded ahead: [`Inline`] or [`Spreads`].
trait Load<T>: Send + Sync + 'static {
    fn handle(value: &T);
    fn spread(value: &T);
}

/// All of the value is in the value: nothing more to load.
struct Inline;

impl<T> Load<T> for Inline {
    fn handle(_: &T) {}
    fn spread(_: &T) {}
}

/// The value says where its data lies ([`Spread`]).
struct Spreads;

impl<T: Spread> Load<T> for Spreads {
    fn handle(value: &T) {
        value.prefetch_handle();
    }
    fn spread(value: &T) {
        value.prefetch_spread();
    }
}

/// A value held with its way of loading ahead.
struct Held<T, L>(T, PhantomData<L>);

impl<T: Any + Send + Sync + fmt::Debug, L: Load<T>> Value for Held<T, L> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        &mut self.0
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    fn prefetch(&self) {
        prefetch_index::prefetch_index(std::slice::from_ref(&self.0), 0);
        L::handle(&self.0);
    }
    fn prefetch_spread(&self) {
        L::spread(&self.0);
    }
}

impl<T: fmt::Debug, L> fmt::Debug for Held<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// One player's state in one system: an immutable value of the system's own type, shared
/// by reference count (cloning is cheap).
#[derive(Clone)]
pub struct State(Arc<dyn Value>);

impl State {
    /// Wraps a system's value.
    pub fn new<T: Any + Send + Sync + fmt::Debug>(value: T) -> Self {
        State(Arc::new(Held::<T, Inline>(value, PhantomData)))
    }

    /// Wraps a system's value that holds data elsewhere, which [`State::prefetch_spread`]
    /// starts loading.
    pub(crate) fn spread<T: Any + Send + Sync + fmt::Debug + Spread>(value: T) -> Self {
        State(Arc::new(Held::<T, Spreads>(value, PhantomData)))
    }

    /// A state of value `fill` made of `fresh()`, written into the first of `spare` that
    /// nothing else shares and that holds a `T` (those before it are dropped), or into a
    /// new allocation when none does. A league hands a system the states it no longer
    /// holds ([`crate::Posterior::spare`]): they were read for the last match, so writing
    /// there does not wait on memory, and nothing is allocated or freed. `fill` sees
    /// the old value (or `fresh()`) and must write all of it.
    pub(crate) fn recycled<T: Any + Send + Sync + fmt::Debug>(
        spare: &mut Vec<State>,
        fresh: impl FnOnce() -> T,
        fill: impl FnOnce(&mut T),
    ) -> Self {
        while let Some(mut s) = spare.pop() {
            if let Some(v) = Arc::get_mut(&mut s.0).and_then(|v| v.as_any_mut().downcast_mut::<T>())
            {
                fill(v);
                return s;
            }
        }
        let mut v = fresh();
        fill(&mut v);
        State::new(v)
    }

    /// The value, if it is of type `T`.
    #[must_use]
    pub fn get<T: Any>(&self) -> Option<&T> {
        (*self.0).as_any().downcast_ref::<T>()
    }

    /// The name of the value's type, e.g. `podium::systems::glicko2::Glicko2State`.
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        (*self.0).type_name()
    }

    /// Starts loading the first cache line of the value, a hint for a state about to be
    /// read: it changes nothing.
    #[inline]
    pub(crate) fn prefetch(&self) {
        (*self.0).prefetch();
    }

    /// Starts loading the data the value holds elsewhere, for a value built by
    /// [`State::spread`]; nothing for others. A hint: it changes nothing.
    #[inline]
    pub(crate) fn prefetch_spread(&self) {
        (*self.0).prefetch_spread();
    }

    /// Whether two states share one value (the same allocation).
    #[must_use]
    pub fn same(a: &State, b: &State) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// What a system's update gives of the players ([`crate::Posterior`] holds it with the
/// factors' changes):
/// each player's change and next state, in [`Match::players`](crate::Match::players)
/// order.
#[derive(Debug, Clone, Default)]
pub struct Rated {
    /// One change per player.
    pub changes: Vec<PlayerChange>,
    /// One state per player, or none at all for a system that keeps no state (or when
    /// the match changed no state).
    pub states: Vec<Option<State>>,
    /// What the system learned from every match, after this one; `None` for a system
    /// that learns nothing ([`RatingSystem::initial_learned`]).
    ///
    /// [`RatingSystem::initial_learned`]: crate::RatingSystem::initial_learned
    pub learned: Option<State>,
}

/// A state type that a saved league ([`crate::league::saved`]) can hold: it derives
/// `serde`'s `Serialize` and `Deserialize` and checks a value read back against the
/// system's fresh value of the same type (a value edited or damaged in the file must be
/// refused, not rated with).
#[cfg(feature = "serde")]
pub(crate) trait Restorable {
    /// Whether `self`, read from saved data, fits the system whose fresh value (a
    /// newcomer's state, or what it learned before any match) is `fresh`: the same
    /// number of filters, an index within them. Says what does not fit.
    fn fits(&self, fresh: &Self) -> Result<(), String> {
        let _ = fresh;
        Ok(())
    }

    /// The value as a state, wrapped as the system wraps it.
    fn into_state(self) -> State
    where
        Self: Any + Send + Sync + fmt::Debug + Sized,
    {
        State::new(self)
    }
}

/// Lists the state types a saved league can hold: each variant of [`SavedState`] with
/// its type and the tag that names it in saved data.
#[cfg(feature = "serde")]
macro_rules! saved_states {
    ($($(#[$doc:meta])* $variant:ident($ty:ty) = $tag:literal,)*) => {
        /// A [`State`] as data: the value of one of the state types of the registered
        /// systems (boxed: they differ in size), tagged by its kind, to save with a
        /// league ([`crate::league::saved`]) and restore exactly.
        ///
        /// A state knows its value only as `dyn Any`; saving finds which of these types
        /// it holds ([`SavedState::of`]), and restoring builds the value again and checks
        /// it against the system's own fresh value of the same type, so that a system is
        /// only ever given a state of its own type and shape. A system with a new state
        /// type derives `Serialize` and `Deserialize` on it (behind the `serde` feature),
        /// implements `Restorable` (one line, or a check of its shape) and adds one
        /// line to the list in `state.rs`.
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[non_exhaustive]
        pub enum SavedState {
            $(
                $(#[$doc])*
                #[serde(rename = $tag)]
                $variant(Box<$ty>),
            )*
        }

        impl SavedState {
            /// The state as data, or `None` when its value is none of the types listed
            /// (the state of a system defined outside podium).
            #[must_use]
            pub fn of(state: &State) -> Option<SavedState> {
                $(
                    if let Some(v) = state.get::<$ty>() {
                        return Some(SavedState::$variant(Box::new(v.clone())));
                    }
                )*
                None
            }

            /// The tag that names the kind of state in saved data.
            #[must_use]
            pub fn tag(&self) -> &'static str {
                match self {
                    $(SavedState::$variant(_) => $tag,)*
                }
            }

            /// The state again, checked against `fresh`, the system's own value of the
            /// kind expected (a newcomer's state, or what it learned before any match).
            ///
            /// # Errors
            /// What is wrong, in words: a state of another type than `fresh`'s, or
            /// one whose shape does not fit it.
            pub(crate) fn restore(self, fresh: &State) -> Result<State, String> {
                match self {
                    $(
                        SavedState::$variant(v) => match fresh.get::<$ty>() {
                            Some(f) => {
                                Restorable::fits(&*v, f)?;
                                Ok(Restorable::into_state(*v))
                            }
                            None => Err(format!(
                                "a {} state, where the system keeps {}",
                                $tag,
                                SavedState::of(fresh)
                                    .map_or(fresh.type_name(), |s| s.tag())
                            )),
                        },
                    )*
                }
            }
        }
    };
}

#[cfg(feature = "serde")]
saved_states! {
    /// What `elo-mmr` and `elo-mmx` keep of a player.
    EloMmr(crate::systems::elo_mmr::EloMmrState) = "elo-mmr",
    /// What `glicko2` keeps of a player.
    Glicko2(crate::systems::glicko2::Glicko2State) = "glicko2",
    /// What `kalman-mmr` keeps of a player.
    KalmanMmr(crate::systems::kalman_mmr::KalmanMmrState) = "kalman-mmr",
    /// What `kalman-mmr` learns from every match.
    KalmanMmrLearned(crate::systems::kalman_mmr::KalmanMmrLearned) = "kalman-mmr-learned",
}

#[cfg(test)]
mod tests {
    use super::State;

    /// A spare that nothing else shares and that holds the type is written into (the same
    /// allocation); one shared, or of another type, is passed over and dropped.
    #[test]
    fn a_recycled_state_is_written_into_an_unshared_spare_of_its_type() {
        let unshared = State::new(1_u32);
        let shared = State::new(2_u32);
        let kept = shared.clone();
        let other = State::new("three");
        // Taken from the end: `other`, then `shared`, then `unshared`, once its other
        // holder is gone.
        let mut spare = vec![unshared.clone(), shared, other];
        drop(unshared);
        let s = State::recycled(&mut spare, || 0_u32, |v| *v += 10);
        // `other` (wrong type) and `shared` (held by `kept`) were dropped on the way.
        assert_eq!(s.get::<u32>(), Some(&11));
        assert!(spare.is_empty());
        assert_eq!(kept.get::<u32>(), Some(&2));
        // Nothing fits: a new value.
        let mut spare = vec![kept.clone()];
        let s = State::recycled(&mut spare, || 5_u32, |v| *v *= 2);
        assert_eq!(s.get::<u32>(), Some(&10));
        assert!(!State::same(&s, &kept));
        assert_eq!(kept.get::<u32>(), Some(&2));
    }
}
