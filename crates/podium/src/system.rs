//! The common interface of every rating system. The registry that builds one by name is
//! [`crate::registry`].

use std::fmt;

use crate::error::RateError;
use crate::factor::Factored;
use crate::model::Match;
use crate::params::Param;
use crate::predict::Prediction;
use crate::rating::{PlayerChange, Rating};
use crate::state::{Rated, State};

/// What a system is told of a match before rating it: the match and, for each of its
/// players in [`Match::players`] order, the rating (and state) they bring to it, with what
/// the system learned from every match before and the ratings of the match's factors.
///
/// ```
/// use podium::{Match, Prior, Rating};
/// let game = Match::ranked("g", &["ann", "bo"]).unwrap();
/// let ratings = [Rating::new(1500.0), Rating::new(1400.0)];
/// let prior = Prior::new(&game, &ratings);
/// assert!(prior.states.is_empty() && prior.learned.is_none() && prior.factors.is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Prior<'a> {
    /// The match.
    pub game: &'a Match,
    /// Each player's rating before the match, in [`Match::players`] order.
    pub ratings: &'a [Rating],
    /// Each player's state, in the same order, `None` for a player whose state the
    /// system builds from the rating ([`RatingSystem::initial_state`]); empty for a
    /// system that keeps no state ([`Capabilities::keeps_state`]), or to build every one.
    pub states: &'a [Option<&'a State>],
    /// What the system learned from the matches before this one
    /// ([`RatingSystem::initial_learned`]); `None` for a system that learns nothing, or
    /// to start from the initial value.
    pub learned: Option<&'a State>,
    /// The rating of each factor of [`Match::factors`] before the match, in that order.
    /// Empty rates the players as if the entries carried no factors (what a
    /// [`crate::League`] passes for a match whose factors do not tell its entries apart).
    pub factors: &'a [Rating],
}

impl<'a> Prior<'a> {
    /// A match and its players' ratings, without states, learned value or factors.
    #[must_use]
    pub fn new(game: &'a Match, ratings: &'a [Rating]) -> Self {
        Prior {
            game,
            ratings,
            states: &[],
            learned: None,
            factors: &[],
        }
    }

    /// The same with each player's state ([`Prior::states`]).
    #[must_use]
    pub fn with_states(self, states: &'a [Option<&'a State>]) -> Self {
        Prior { states, ..self }
    }

    /// The same with what the system learned so far ([`Prior::learned`]).
    #[must_use]
    pub fn with_learned(self, learned: Option<&'a State>) -> Self {
        Prior { learned, ..self }
    }

    /// The same with the factors' ratings ([`Prior::factors`]).
    #[must_use]
    pub fn with_factors(self, factors: &'a [Rating]) -> Self {
        Prior { factors, ..self }
    }

    /// Each player's state, one per rating: [`Prior::states`], or `None` for every player
    /// when none were given.
    ///
    /// # Errors
    /// [`RateError::RatingCountMismatch`] when states were given but not one per player.
    pub fn all_states(&self) -> Result<std::borrow::Cow<'a, [Option<&'a State>]>, RateError> {
        if self.states.is_empty() {
            Ok(std::borrow::Cow::Owned(vec![None; self.ratings.len()]))
        } else {
            check_states(self.ratings, self.states)?;
            Ok(std::borrow::Cow::Borrowed(self.states))
        }
    }

    /// The players' places best first when every entry is one player who played the
    /// whole match (tied players share the best place they cover: 1, 1, 3), the case
    /// systems may rate by a shortcut; `None` for teams or partial play.
    #[must_use]
    pub fn solo_places(&self) -> Option<&'a [usize]> {
        let game = self.game;
        (game.player_count() == game.len()
            && game.entries().iter().all(|e| e.members[0].weight == 1.0))
        .then(|| game.places())
    }
}

/// What a system makes of a match ([`RatingSystem::rate_into`]): each player's change and next
/// state in [`Match::players`] order, what it learned, and each factor's change.
#[derive(Debug, Clone, Default)]
pub struct Posterior {
    /// One change per player.
    pub changes: Vec<PlayerChange>,
    /// One state per player, or none at all for a system that keeps no state.
    pub states: Vec<Option<State>>,
    /// What the system learned from every match, after this one; `None` for a system
    /// that learns nothing ([`RatingSystem::initial_learned`]).
    pub learned: Option<State>,
    /// One change per factor of [`Match::factors`], in that order.
    pub factors: Vec<PlayerChange>,
    /// States the league no longer holds (the old states of the last match it stored),
    /// which a system may write its next states into rather than allocate: they are
    /// what it read last, so still in the processor's cache. Not cleared by
    /// [`Posterior::clear`]; a system may ignore it.
    pub spare: Vec<State>,
}

impl Posterior {
    /// The players' changes alone: no state, nothing learned, no factor.
    #[must_use]
    pub fn players(changes: Vec<PlayerChange>) -> Self {
        Posterior {
            changes,
            ..Posterior::default()
        }
    }
}

impl Posterior {
    /// Empties every field, keeping the vectors' allocations: what a system's
    /// [`RatingSystem::rate_into`] starts from before it pushes the match's changes.
    #[inline]
    pub fn clear(&mut self) {
        self.changes.clear();
        self.states.clear();
        self.learned = None;
        self.factors.clear();
    }
}

impl From<Rated> for Posterior {
    fn from(r: Rated) -> Self {
        Posterior {
            changes: r.changes,
            states: r.states,
            learned: r.learned,
            factors: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl From<Factored> for Posterior {
    fn from(f: Factored) -> Self {
        Posterior {
            factors: f.factors,
            ..Posterior::from(f.rated)
        }
    }
}

/// What a system reads and keeps besides the ratings, asked once by those who drive it
/// ([`RatingSystem::describe`]). Every flag is false by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Capabilities {
    /// Whether the system reads more of a finish than the order of the entries: the
    /// margins between their scores (`kalman-mmr` or Weng-Lin with `margins` set).
    pub uses_scores: bool,
    /// Whether the system keeps an uncertainty σ beside each rating (and ages it by the
    /// days a player does not play, [`RatingSystem::age`]).
    pub has_uncertainty: bool,
    /// Whether the system keeps a [`State`] per player beside the rating (Elo-MMR's past
    /// performances, Glicko-2's volatility). When it does not, a [`crate::League`] keeps
    /// no state and [`Prior::states`] is empty.
    pub keeps_state: bool,
    /// Whether the system rates the factors of entries ([`crate::factor`]): the car, the
    /// seat, the faction. A system that does not refuses a match whose factors tell its
    /// entries apart ([`RateError::FactorsUnsupported`]).
    pub rates_factors: bool,
    /// Whether a change's `expected` and `actual` ([`PlayerChange`]) are performances on
    /// the rating scale (the Elo-MMR family) rather than scores between 0 and 1.
    pub expects_performances: bool,
}

/// A system described ([`RatingSystem::describe`]): its registered name, its parameters
/// with their current values, and what it reads and keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// The registered name, e.g. `"sme"`.
    pub name: &'static str,
    /// The parameters with their current values.
    pub params: Vec<Param>,
    /// What the system reads and keeps besides the ratings.
    pub capabilities: Capabilities,
}

/// A rating system: turns a match and its players' pre-match ratings into new ratings.
///
/// One method rates a match ([`RatingSystem::rate_into`], from a [`Prior`] to a
/// [`Posterior`] the caller may reuse; [`RatingSystem::rate`] returns a new one, and
/// [`RatingSystem::rate_two_into`] rates two matches together to the same bits), one
/// predicts it ([`RatingSystem::predict`]) and one describes the system
/// ([`RatingSystem::describe`]); the others answer questions of their own (where a
/// player starts, how a rating ages, whether it is provisional). The trait is object
/// safe, so programs can hold a `Box<dyn RatingSystem>` chosen by name at run time
/// ([`crate::system()`]). Systems are pure: the same inputs give the same outputs, and a
/// failed update changes nothing. `docs/new-system.md` adds a system in one module and
/// one registry line.
pub trait RatingSystem: Send + Sync + fmt::Debug {
    /// The system's name, parameters and capabilities.
    fn describe(&self) -> Description;

    /// The registered name, e.g. `"sme"`: [`RatingSystem::describe`]'s, for errors.
    /// Not meant to be overridden.
    fn name(&self) -> &'static str {
        self.describe().name
    }

    /// What the system reads and keeps: [`RatingSystem::describe`]'s capabilities.
    /// Not meant to be overridden.
    fn capabilities(&self) -> Capabilities {
        self.describe().capabilities
    }

    /// Rates one match into `out`: from each player's rating, state, what the system
    /// learned so far and the factors' ratings ([`Prior`]) to each player's change and
    /// next state, what it learned after this match and each factor's change
    /// ([`Posterior`]). Every field of `out` is replaced; its vectors keep their
    /// allocations, so a driver rating match after match into one posterior (as a
    /// [`crate::League`] does) allocates nothing for it once they have grown.
    ///
    /// The posterior holds one change per player in [`Match::players`] order; states
    /// only for a system that keeps them, one per player; one change per factor of
    /// [`Match::factors`]. A shortcut a system takes for some matches (a ranking of
    /// single players, two teams) gives the same numbers as its general way, up to
    /// rounding in the last digits, and lives here.
    ///
    /// # Errors
    /// [`RateError`] when the system cannot rate this match (e.g. `elo` with more than
    /// two entries, [`RateError::FactorsUnsupported`] for factors it does not rate) or
    /// the ratings, states or factors given cannot be used (NaN, wrong count,
    /// non-positive for `proportional`). `out` then holds nothing meaningful (it may be
    /// partly filled): the caller discards it, and a [`crate::League`] applies nothing.
    fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError>;

    /// [`RatingSystem::rate_into`] into a new [`Posterior`]. Not meant to be overridden.
    ///
    /// # Errors
    /// As [`RatingSystem::rate_into`].
    fn rate(&self, prior: &Prior<'_>) -> Result<Posterior, RateError> {
        let mut out = Posterior::default();
        self.rate_into(prior, &mut out)?;
        Ok(out)
    }

    /// Rates two matches, each from its own prior, as [`RatingSystem::rate_into`] rates
    /// it: the same numbers to the last bit, and each match's own result. A driver with
    /// two matches ready at once (a [`crate::League`] rating a batch on every thread)
    /// hands them over together, so that a system whose update is a long chain of
    /// dependent arithmetic can interleave the two chains and keep the processor busy
    /// with both. The default rates one after the other. Not meant to be called with
    /// priors that depend on each other's posterior: the two are rated from the priors
    /// given.
    fn rate_two_into(
        &self,
        priors: [&Prior<'_>; 2],
        outs: [&mut Posterior; 2],
    ) -> [Result<(), RateError>; 2] {
        let ([a, b], [out_a, out_b]) = (priors, outs);
        [self.rate_into(a, out_a), self.rate_into(b, out_b)]
    }

    /// What the system expects of a proposed match: each entry's win probability, the
    /// probability of every pairwise order, expected places and, where the system models
    /// draws, the draw probability. Reads the prior's ratings (factors folded in already,
    /// [`RatingSystem::fold_factors`]) and learned value; the match's finishes and the
    /// prior's states and factors are ignored.
    ///
    /// The default builds everything from [`RatingSystem::win_probability`] on the
    /// entries' mean ratings ([`crate::predict::from_pairwise`]); systems with a richer
    /// model override it.
    ///
    /// # Errors
    /// [`RateError`] when the ratings do not fit the match or are not finite, and
    /// [`RateError::Limit`] for a match of more than
    /// [`crate::limits::MAX_PREDICT_ENTRIES`] entries (a system's own `predict` checks
    /// it too).
    fn predict(&self, prior: &Prior<'_>) -> Result<Prediction, RateError> {
        crate::limits::check_predict_entries("entries", prior.game.len())?;
        crate::predict::from_pairwise(self, prior.game, prior.ratings, prior.learned)
    }

    /// The system's own probability that a player rated `a` finishes ahead of one rated
    /// `b` in a two-entry match, with what it learned from every match so far
    /// (`kalman-mmr` calibrates its probabilities online; others ignore `learned`).
    fn win_probability(&self, a: &Rating, b: &Rating, learned: Option<&State>) -> f64;

    /// The rating of a player the system has never seen.
    fn initial_rating(&self) -> Rating;

    /// The starting rating of a new player given the ratings of the players already known.
    /// Most systems ignore the pool and return [`RatingSystem::initial_rating`]; `mes` can
    /// seed newcomers at the median of its established players.
    fn new_player_rating(&self, pool: &mut dyn Iterator<Item = &Rating>) -> Rating {
        let _ = pool;
        self.initial_rating()
    }

    /// The state of a player who starts at `rating`: a newcomer at
    /// [`RatingSystem::initial_rating`], or a player carried over from elsewhere
    /// (`podium rate --initial`), whose σ may be missing for a system that keeps one.
    /// `None` (the default) for a system that keeps no state.
    ///
    /// # Errors
    /// [`RateError::RatingOutOfRange`] when no state can be built from these values (a σ
    /// that is not positive, a rating outside the system's range).
    fn initial_state(&self, rating: &Rating) -> Result<Option<State>, RateError> {
        let _ = rating;
        Ok(None)
    }

    /// What the system learns from every match rather than of one player (`kalman-mmr`:
    /// which of its filters to report, the calibration of its probabilities, the
    /// newcomer prior), as it is before any match; `None` (the default) for a system that
    /// learns nothing, which then never pays for it. A [`crate::League`] keeps the value
    /// beside its players, passes it in every [`Prior`], stores the value of the
    /// [`Posterior`] when the whole match succeeded, and reads ratings
    /// ([`RatingSystem::age`]) and probabilities with it.
    fn initial_learned(&self) -> Option<State> {
        None
    }

    /// The rating of a factor never seen: no advantage (0), with the σ of a new player
    /// where the system keeps one.
    fn initial_factor(&self) -> Rating {
        Rating {
            value: 0.0,
            sigma: self.initial_rating().sigma,
            games: 0,
        }
    }

    /// The rating of a player after `days` days without playing (Bayesian systems widen
    /// σ); `state` is the player's state, for a system that keeps one, and `learned` what
    /// the system learned from every match so far ([`RatingSystem::initial_learned`]).
    ///
    /// For a system that learns, this is the rating the player has *now*: what it
    /// reports may change without the player playing (`kalman-mmr` reports the filter
    /// in use, which the league's matches select), and a player without state is given
    /// the newcomer rating learned so far. A [`crate::League`] of such a system reads
    /// every rating through it.
    fn age(
        &self,
        rating: Rating,
        state: Option<&State>,
        learned: Option<&State>,
        days: f64,
    ) -> Rating {
        let _ = (state, learned, days);
        rating
    }

    /// Checks a rating given from outside the system (a starting rating carried over from
    /// elsewhere) against the range where the system's arithmetic holds. The default
    /// accepts a value within ±1e9 ([`crate::params::MAX_MAGNITUDE`]) and, where given, a
    /// σ in [0, 1e9]; systems with σ or other needs narrow it.
    ///
    /// # Errors
    /// [`RateError::RatingOutOfRange`], with the player named `#1` (a
    /// [`crate::League`] names them).
    fn check_rating(&self, rating: &Rating) -> Result<(), RateError> {
        check_value(self.name(), rating)?;
        match rating.sigma {
            Some(s) if !crate::params::non_negative(s) => {
                Err(out_of_range(self.name(), "sigma", s, "0 ≤ σ ≤ 1e9"))
            }
            _ => Ok(()),
        }
    }

    /// Whether the rating is still provisional, shown on leaderboards: by default, while
    /// it rests on fewer than [`PROVISIONAL_GAMES`] games. `mes` marks its own
    /// provisional period.
    fn is_provisional(&self, rating: &Rating) -> bool {
        rating.games < PROVISIONAL_GAMES
    }

    /// The log loss of pairs that one player lost: the sum over `better` of
    /// `−ln P(b finishes ahead of worse)` by [`RatingSystem::win_probability`],
    /// each probability kept within [`MIN_PROBABILITY`, 1 − `MIN_PROBABILITY`]. The
    /// backtest's log loss is a sum of these rows, `O(W²)` pairs per match of W warm
    /// players; a system may override it with a faster loop giving the same sum.
    fn pair_log_loss(&self, better: &[Rating], worse: &Rating, learned: Option<&State>) -> f64 {
        better
            .iter()
            .map(|b| {
                -self
                    .win_probability(b, worse, learned)
                    .clamp(MIN_PROBABILITY, 1.0 - MIN_PROBABILITY)
                    .ln()
            })
            .sum()
    }

    /// Each player's rating with the factors of their entry folded in (`factors` as in
    /// [`Prior::factors`]), so that predictions and pair probabilities read them as the
    /// players' ratings. The default adds the factors to every member, as for a system
    /// whose team rating is its members' mean ([`crate::factor::fold_mean`]).
    fn fold_factors(&self, game: &Match, before: &[Rating], factors: &[Rating]) -> Vec<Rating> {
        crate::factor::fold_mean(game, before, factors)
    }

    /// What a player's state holds that is worth showing beside the rating (Glicko-2's
    /// volatility), each number with what it means; nothing by default.
    fn describe_state(&self, state: &State) -> Vec<Described> {
        let _ = state;
        Vec::new()
    }

    /// What the learned value holds that is worth showing (`kalman-mmr`: the dynamics of
    /// the filter in use, the calibration, the newcomer prior), each number with what it
    /// means; nothing by default.
    fn describe_learned(&self, learned: &State) -> Vec<Described> {
        let _ = learned;
        Vec::new()
    }
}

/// For a system that does not rate factors: refuses factor ratings given
/// ([`Prior::factors`]) for a match whose factors tell its entries apart; without them
/// the players are rated as if the entries carried none.
///
/// # Errors
/// [`RateError::FactorsUnsupported`], or [`RateError::FactorCountMismatch`] for factor
/// ratings given for a match without factors.
pub fn no_factors(system: &'static str, prior: &Prior<'_>) -> Result<(), RateError> {
    if prior.factors.is_empty() {
        Ok(())
    } else if prior.game.factors().is_empty() {
        crate::factor::check_factors(prior.game, prior.factors)
    } else {
        Err(RateError::FactorsUnsupported { system })
    }
}

/// The smallest probability a log loss reads ([`RatingSystem::pair_log_loss`]): a
/// probability of 0 would cost an infinite loss, so each pair costs at most
/// `−ln 1e-15 ≈ 34.5`.
pub const MIN_PROBABILITY: f64 = 1e-15;

/// Games a rating rests on before leaderboards stop marking it provisional (unless the
/// system has a provisional period of its own): five, the provisional period of
/// Narula's multiplayer Elo pool, where an average player of a four- or five-player game
/// has won about once by then.
pub const PROVISIONAL_GAMES: u32 = 5;

/// One number a system keeps beside the ratings, worth showing with what it means: of a
/// player ([`RatingSystem::describe_state`]: Glicko-2's volatility) or learned from every
/// match ([`RatingSystem::describe_learned`]: `kalman-mmr`'s filter in use).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Described {
    /// A short name (`volatility`, `tau`).
    pub name: &'static str,
    /// Its value now.
    pub value: f64,
    /// What it is, in a few words.
    pub doc: &'static str,
}

/// The sum over `n` pairs of `−ln L(−y)` = `ln(1 + e^y)` (L the logistic), each kept
/// within [`−ln(1 − MIN_PROBABILITY)`, `−ln MIN_PROBABILITY`] as
/// [`RatingSystem::pair_log_loss`] keeps each probability: the loss of a pair whose
/// winner the system gave the logit `−y`. `y4(i)` gives pairs `i..i + 4` four at a time
/// (`wide`'s exponential and logarithm, within a unit or two in the last place), `y(i)`
/// the last few one by one; a system's fast `pair_log_loss` is this with its logits.
pub(crate) fn logistic_losses(
    n: usize,
    y4: impl Fn(usize) -> wide::f64x4,
    y: impl Fn(usize) -> f64,
) -> f64 {
    use wide::f64x4;
    let (lo, hi) = (-(1.0 - MIN_PROBABILITY).ln(), -MIN_PROBABILITY.ln());
    let (lo4, hi4, one) = (f64x4::splat(lo), f64x4::splat(hi), f64x4::splat(1.0));
    let mut sum4 = f64x4::ZERO;
    let whole = n - n % 4;
    for i in (0..whole).step_by(4) {
        let y = y4(i);
        let l = y.max(f64x4::ZERO) + (one + (-y.abs()).exp()).ln();
        sum4 += l.max(lo4).min(hi4);
    }
    let rest: f64 = (whole..n)
        .map(|i| {
            let y = y(i);
            (y.max(0.0) + (-y.abs()).exp().ln_1p()).clamp(lo, hi)
        })
        .sum();
    sum4.reduce_add() + rest
}

/// Checks that a rating's value lies within ±1e9 ([`crate::params::MAX_MAGNITUDE`]), for
/// [`RatingSystem::check_rating`].
///
/// # Errors
/// [`RateError::RatingOutOfRange`] naming the player `#1`.
pub fn check_value(system: &'static str, rating: &Rating) -> Result<(), RateError> {
    if crate::params::in_range(rating.value) {
        Ok(())
    } else {
        Err(out_of_range(
            system,
            "rating",
            rating.value,
            "−1e9 ≤ rating ≤ 1e9",
        ))
    }
}

/// The error of a rating or σ outside `allowed`, for a player named `#1`.
#[must_use]
pub fn out_of_range(
    system: &'static str,
    what: &'static str,
    value: f64,
    allowed: &str,
) -> RateError {
    RateError::RatingOutOfRange {
        system,
        player: "#1".to_string(),
        what,
        value,
        allowed: allowed.to_string(),
    }
}

/// Checks a Bayesian system's rating: a value within ±1e9 and a σ in [1e-9, 1e9]
/// ([`crate::params::sigma`]), which it must have.
///
/// # Errors
/// [`RateError::RatingOutOfRange`] naming the player `#1`.
pub fn check_bayesian(system: &'static str, rating: &Rating) -> Result<(), RateError> {
    check_value(system, rating)?;
    match rating.sigma {
        Some(s) if crate::params::sigma(s) => Ok(()),
        s => Err(out_of_range(
            system,
            "sigma",
            s.unwrap_or(f64::NAN),
            "1e-9 ≤ σ ≤ 1e9",
        )),
    }
}

/// Checks that `states` holds one state (or `None`) per rating of `before`, for
/// [`RatingSystem::rate`] ([`Prior::all_states`]).
///
/// # Errors
/// [`RateError::RatingCountMismatch`].
pub fn check_states(before: &[Rating], states: &[Option<&State>]) -> Result<(), RateError> {
    if states.len() == before.len() {
        Ok(())
    } else {
        Err(RateError::RatingCountMismatch {
            expected: before.len(),
            found: states.len(),
        })
    }
}

/// Checks that `before` fits the match and holds finite ratings.
///
/// # Errors
/// [`RateError::RatingCountMismatch`] or [`RateError::NonFiniteRating`].
pub fn check_ratings(game: &Match, before: &[Rating]) -> Result<(), RateError> {
    if before.len() != game.player_count() {
        return Err(RateError::RatingCountMismatch {
            expected: game.player_count(),
            found: before.len(),
        });
    }
    // The ratings alone first; the player's id is looked up only for the error.
    let bad =
        |r: &Rating| !r.value.is_finite() || r.sigma.is_some_and(|s| !s.is_finite() || s < 0.0);
    match before.iter().position(bad) {
        None => Ok(()),
        Some(k) => Err(RateError::NonFiniteRating {
            player: game
                .players()
                .nth(k)
                .map(|(_, m)| m.player.clone())
                .unwrap_or_default(),
            rating: before[k].value,
        }),
    }
}
