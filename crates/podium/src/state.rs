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
use std::sync::Arc;

use crate::rating::PlayerChange;

/// A value a system keeps for one player. Any `'static` type that is `Send + Sync +
/// Debug` can be one.
trait Value: Any + Send + Sync + fmt::Debug {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any + Send + Sync + fmt::Debug> Value for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One player's state in one system: an immutable value of the system's own type, shared
/// by reference count (cloning is cheap).
#[derive(Clone)]
pub struct State(Arc<dyn Value>);

impl State {
    /// Wraps a system's value.
    pub fn new<T: Any + Send + Sync + fmt::Debug>(value: T) -> Self {
        State(Arc::new(value))
    }

    /// The value, if it is of type `T`.
    #[must_use]
    pub fn get<T: Any>(&self) -> Option<&T> {
        (*self.0).as_any().downcast_ref::<T>()
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
