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

/// A rating system: turns a match and its players' pre-match ratings into new ratings.
///
/// The trait is object safe, so programs can hold a `Box<dyn RatingSystem>` chosen by
/// name at run time ([`crate::system()`]). Systems are pure: the same inputs give the same
/// outputs, and a failed update changes nothing.
pub trait RatingSystem: Send + Sync + fmt::Debug {
    /// The registered name, e.g. `"sme"`.
    fn name(&self) -> &'static str;

    /// The parameters with their current values.
    fn params(&self) -> Vec<Param>;

    /// The rating of a player the system has never seen.
    fn initial_rating(&self) -> Rating;

    /// The starting rating of a new player given the ratings of the players already known.
    /// Most systems ignore the pool and return [`RatingSystem::initial_rating`]; `mes` can
    /// seed newcomers at the median of its established players.
    fn new_player_rating(&self, pool: &mut dyn Iterator<Item = &Rating>) -> Rating {
        let _ = pool;
        self.initial_rating()
    }

    /// Rates one match. `before` holds the pre-match rating of every player in
    /// [`Match::players`] order; the result has one change per player in the same order.
    ///
    /// # Errors
    /// [`RateError`] when the system cannot rate this match (e.g. `elo` with more than two
    /// entries) or the ratings given cannot be used (NaN, wrong count, non-positive for
    /// `proportional`).
    fn rate(&self, game: &Match, before: &[Rating]) -> Result<Vec<PlayerChange>, RateError>;

    /// Rates a free-for-all of single players who each played the whole match, given by
    /// their places best first (1-based; tied players share the best place they cover, as
    /// in 1, 1, 3), with `before` in the same order. Appends one change per player to
    /// `out`, equal to what [`RatingSystem::rate`] gives for the same match.
    ///
    /// This is the fast path of [`crate::League::apply_ranked`]: a system may override it
    /// to rate without building a [`Match`]. The default builds the match, whose players
    /// are then named by position (`#1`, `#2`, …) in errors.
    ///
    /// ```
    /// use podium::{Match, Rating, RatingSystem};
    /// let sys = podium::system("pairwise", &podium::Settings::new()).unwrap();
    /// let before = [1500.0, 1400.0, 1600.0].map(Rating::new);
    /// let mut fast = Vec::new();
    /// sys.rate_ranked(&[1, 1, 3], &before, &mut fast).unwrap();
    /// let game = Match::with_places("g", &[("a", 1), ("b", 1), ("c", 3)]).unwrap();
    /// assert_eq!(fast, sys.rate(&game, &before).unwrap());
    /// ```
    ///
    /// # Errors
    /// [`RateError::InvalidMatch`] when `places` do not rank `before.len()` players
    /// ([`crate::model::check_places`]), or any error of [`RatingSystem::rate`].
    fn rate_ranked(
        &self,
        places: &[usize],
        before: &[Rating],
        out: &mut Vec<PlayerChange>,
    ) -> Result<(), RateError> {
        crate::model::check_places(before.len(), places)?;
        let named: Vec<(String, u32)> = places
            .iter()
            .enumerate()
            .map(|(i, &p)| (format!("#{}", i + 1), u32::try_from(p).unwrap_or(u32::MAX)))
            .collect();
        let game = Match::with_places("ranked", &named)?;
        out.extend(self.rate(&game, before)?);
        Ok(())
    }

    /// The system's own probability that a player rated `a` finishes ahead of one rated `b`
    /// in a two-entry match.
    fn win_probability(&self, a: &Rating, b: &Rating) -> f64;

    /// [`RatingSystem::win_probability`] with what the system learned from every match
    /// so far (`kalman-mmr` calibrates its probabilities online); the same as
    /// `win_probability` for a system that learns nothing.
    fn win_probability_with(&self, a: &Rating, b: &Rating, learned: Option<&State>) -> f64 {
        let _ = learned;
        self.win_probability(a, b)
    }

    /// The log loss of pairs that one player lost: the sum over `better` of
    /// `−ln P(b finishes ahead of worse)` by [`RatingSystem::win_probability_with`],
    /// each probability kept within [`MIN_PROBABILITY`, 1 − `MIN_PROBABILITY`]. The
    /// backtest's log loss is a sum of these rows, `O(W²)` pairs per match of W warm
    /// players; a system may override it with a faster loop giving the same sum.
    fn pair_log_loss(&self, better: &[Rating], worse: &Rating, learned: Option<&State>) -> f64 {
        better
            .iter()
            .map(|b| {
                -self
                    .win_probability_with(b, worse, learned)
                    .clamp(MIN_PROBABILITY, 1.0 - MIN_PROBABILITY)
                    .ln()
            })
            .sum()
    }

    /// Whether the rating is still provisional, shown on leaderboards: by default, while
    /// it rests on fewer than [`PROVISIONAL_GAMES`] games. `mes` marks its own
    /// provisional period.
    fn is_provisional(&self, rating: &Rating) -> bool {
        rating.games < PROVISIONAL_GAMES
    }

    /// Whether the system reads more of a finish than the order of the entries: the
    /// margins between their scores (a Weng-Lin system with `margin` set). Readers that
    /// keep only places (the fast reader of plain files) must not be used for it.
    fn uses_scores(&self) -> bool {
        false
    }

    /// Whether the system keeps an uncertainty σ beside each rating.
    fn has_uncertainty(&self) -> bool {
        false
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

    /// Whether the system keeps a [`State`] per player beside the rating (Elo-MMR's past
    /// performances, Glicko-2's volatility). When it does not (the default), a
    /// [`crate::League`] keeps no state and the other state methods are not called.
    fn keeps_state(&self) -> bool {
        false
    }

    /// The state of a player who starts at `rating`: a newcomer at
    /// [`RatingSystem::initial_rating`], or a player carried over from elsewhere
    /// (`podium rate --initial`), whose σ may be missing for a system that keeps one.
    ///
    /// # Errors
    /// [`RateError::RatingOutOfRange`] when no state can be built from these values (a σ
    /// that is not positive, a rating outside the system's range).
    fn initial_state(&self, rating: &Rating) -> Result<Option<State>, RateError> {
        let _ = rating;
        Ok(None)
    }

    /// Rates one match as [`RatingSystem::rate`] does, with each player's state:
    /// `states[i]` belongs to the player of `before[i]`, `None` for a player whose state
    /// the system builds from `before[i]` ([`RatingSystem::initial_state`]). The result
    /// holds each player's change and next state, in the same order. Pure: the states
    /// given are not changed.
    ///
    /// `learned` is what the system learned from the matches before this one (`None`
    /// for a system that learns nothing, or to start from
    /// [`RatingSystem::initial_learned`]); the result's [`Rated::learned`] is its value
    /// after this match.
    ///
    /// The default, for systems without state, is [`RatingSystem::rate`] with no states.
    ///
    /// # Errors
    /// As [`RatingSystem::rate`], and [`RateError::RatingCountMismatch`] when `states`
    /// does not hold one state per player.
    fn rate_with_states(
        &self,
        game: &Match,
        before: &[Rating],
        states: &[Option<&State>],
        learned: Option<&State>,
    ) -> Result<Rated, RateError> {
        let _ = (states, learned);
        Ok(Rated {
            changes: self.rate(game, before)?,
            states: Vec::new(),
            learned: None,
        })
    }

    /// What the system learns from every match rather than of one player (`kalman-mmr`:
    /// which of its filters to report, the calibration of its probabilities, the
    /// newcomer prior), as it is before any match; `None` (the default) for a system that
    /// learns nothing, which then never pays for it. A [`crate::League`] keeps the value
    /// beside its players, passes it to [`RatingSystem::rate_with_states`], stores the
    /// value it returns when the whole match succeeded, and reads ratings
    /// ([`RatingSystem::age`]) and probabilities
    /// ([`RatingSystem::win_probability_with`], [`RatingSystem::predict_with`]) with it.
    fn initial_learned(&self) -> Option<State> {
        None
    }

    /// What the learned value holds that is worth showing (`kalman-mmr`: the dynamics of
    /// the filter in use, the calibration, the newcomer prior), each number with what it
    /// means; nothing by default.
    fn describe_learned(&self, learned: &State) -> Vec<Described> {
        let _ = learned;
        Vec::new()
    }

    /// Whether a change's `expected` and `actual` ([`PlayerChange`]) are performances on
    /// the rating scale (the Elo-MMR family: an entry's expected performance and the
    /// performance its result shows) rather than scores between 0 and 1. False by
    /// default.
    fn expects_performances(&self) -> bool {
        false
    }

    /// What a player's state holds that is worth showing beside the rating (Glicko-2's
    /// volatility), each number with what it means; nothing by default.
    fn describe_state(&self, state: &State) -> Vec<Described> {
        let _ = state;
        Vec::new()
    }

    /// What the system expects of a proposed match: each entry's win probability, the
    /// probability of every pairwise order, expected places and, where the system models
    /// draws, the draw probability. `before` holds each player's rating in
    /// [`Match::players`] order, as for [`RatingSystem::rate`]; the match's finishes are
    /// ignored.
    ///
    /// The default builds everything from [`RatingSystem::win_probability`] on the
    /// entries' mean ratings ([`crate::predict::from_pairwise`]); systems with a richer
    /// model override it.
    ///
    /// # Errors
    /// [`RateError`] when the ratings do not fit the match or are not finite.
    fn predict(&self, game: &Match, before: &[Rating]) -> Result<Prediction, RateError> {
        crate::predict::from_pairwise(self, game, before)
    }

    /// Whether the system rates the factors of entries ([`crate::factor`]): the car, the
    /// seat, the faction. A system that does not refuses a match whose entries carry
    /// factors that tell them apart ([`RateError::FactorsUnsupported`]).
    fn rates_factors(&self) -> bool {
        false
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

    /// Rates a match whose entries may carry factors, as
    /// [`RatingSystem::rate_with_states`] does, with `factors[i]` the rating of the
    /// factor [`Match::factors`]`()[i]` before the match. The result holds the players'
    /// changes and states and one change per factor.
    ///
    /// [`RatingSystem::rate`] and [`RatingSystem::rate_with_states`] rate the players
    /// as if the entries carried no factors; this is the method that reads them.
    ///
    /// The default rates a match without factors that tell entries apart with
    /// [`RatingSystem::rate_with_states`] and refuses any other.
    ///
    /// # Errors
    /// [`RateError::FactorsUnsupported`] for a system that does not rate factors, and the
    /// errors of [`RatingSystem::rate_with_states`].
    fn rate_factored(
        &self,
        game: &Match,
        before: &[Rating],
        states: &[Option<&State>],
        learned: Option<&State>,
        factors: &[Rating],
    ) -> Result<Factored, RateError> {
        if !game.factors().is_empty() {
            return Err(RateError::FactorsUnsupported {
                system: self.name(),
            });
        }
        crate::factor::check_factors(game, factors)?;
        Ok(Factored {
            rated: self.rate_with_states(game, before, states, learned)?,
            factors: Vec::new(),
        })
    }

    /// Each player's rating with the factors of their entry folded in (`factors` as for
    /// [`RatingSystem::rate_factored`]), so that predictions and pair probabilities read
    /// them as the players' ratings. The default adds the factors to every member, as
    /// for a system whose team rating is its members' mean
    /// ([`crate::factor::fold_mean`]).
    fn fold_factors(&self, game: &Match, before: &[Rating], factors: &[Rating]) -> Vec<Rating> {
        crate::factor::fold_mean(game, before, factors)
    }

    /// [`RatingSystem::predict`] with what the system learned from every match so far
    /// ([`RatingSystem::initial_learned`]); the same as `predict` for a system that
    /// learns nothing.
    ///
    /// # Errors
    /// As [`RatingSystem::predict`].
    fn predict_with(
        &self,
        game: &Match,
        before: &[Rating],
        learned: Option<&State>,
    ) -> Result<Prediction, RateError> {
        let _ = learned;
        self.predict(game, before)
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
/// [`RatingSystem::rate_with_states`].
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
    for ((_, m), r) in game.players().zip(before) {
        if !r.value.is_finite() || r.sigma.is_some_and(|s| !s.is_finite() || s < 0.0) {
            return Err(RateError::NonFiniteRating {
                player: m.player.clone(),
                rating: r.value,
            });
        }
    }
    Ok(())
}
