//! Backtests on real histories: replay the matches in order and, **before** each
//! update, score the system's prediction for every warm pair of the match.
//!
//! - A **warm pair** is two players of *different entries* who finished at *different
//!   places* and who have both played at least one earlier match. In team games the
//!   players are compared one by one, each by their own rating (a team of two against a
//!   team of three gives six pairs); teammates never form a pair, nor do players of tied
//!   entries.
//! - **Pair accuracy**: the system predicts that the higher-rated player finishes ahead;
//!   1 if right, ½ if the two ratings are exactly equal, 0 if wrong; the mean over all
//!   warm pairs of all scored matches. Counted exactly in O(N log N) per match
//!   ([`crate::count`]).
//! - **Log loss**: the mean over the same pairs of `−ln p`, where `p` is the system's own
//!   [`RatingSystem::win_probability`] (with what the system learned from the
//!   matches before, [`League::learned`]) that the player who finished ahead would do so
//!   (clamped to `[1e-15, 1 − 1e-15]` so that one certain but wrong prediction does not
//!   make the mean infinite). There is no exact O(N log N) way to sum an arbitrary
//!   system's probabilities over pairs, so this sum is exact and O(W²) for W warm players
//!   of a match, evaluated in parallel (rayon) for large matches, and in a fixed order so
//!   that the result does not depend on the number of threads. It can be switched off
//!   ([`BacktestOptions::log_loss`]) when only accuracy is wanted.
//! - **Standard error of the pair accuracy** ([`BacktestResult::accuracy_se`]): the pairs
//!   of one match share its players and its outcome, so they are not independent draws
//!   and the binomial `√(a(1 − a)/N)` over pairs would understate the uncertainty of a
//!   history of a few large matches. The accuracy is a ratio of per-match sums,
//!   `a = Σ sₘ / Σ nₘ` (`sₘ` the match's score, `nₘ` its warm pairs), and its standard
//!   error is the ratio (linearisation) estimator over matches as the units, as for a
//!   cluster sample (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 6):
//!   `SE² = M/(M − 1) · Σ (sₘ − a nₘ)² / (Σ nₘ)²` over the M scored matches with warm
//!   pairs. Only three running sums per system are kept ([`MatchSums`]).
//!
//! Ratings are those the [`League`] gives just before the match (aged by inactivity for
//! systems with uncertainty), so every system is judged by its own pre-match state.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use podium::{League, Match, RateError, Rating, RatingSystem, State};
use rayon::prelude::*;

use crate::count::{count_pairs, Item, PairCounts};

/// Smallest probability used in the log loss (and 1 minus it the largest).
pub const MIN_PROBABILITY: f64 = podium::system::MIN_PROBABILITY;

/// Matches with at least this many warm players sum their log loss in parallel.
const PARALLEL_LOG_LOSS: usize = 256;

/// One end of the scored part of a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A match number: the 1-based position of the match in rating order.
    Match(u64),
    /// A time, in seconds since the Unix epoch; needs matches with times.
    Time(i64),
}

/// The part of the history that is scored: `from` (included) up to `until` (excluded).
/// Every match is rated either way; matches outside the window are only not scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// The first scored match (number or time); `None` scores from the start.
    pub from: Option<Bound>,
    /// The first match *not* scored any more; `None` scores to the end.
    pub until: Option<Bound>,
}

impl Window {
    /// The whole history.
    #[must_use]
    pub fn all() -> Self {
        Window::default()
    }

    /// Whether match number `number` (1-based) played at `time` is scored.
    ///
    /// # Errors
    /// [`BacktestError::MissingTime`] when a bound is a time and the match has none.
    pub fn contains(&self, number: u64, game: &Match) -> Result<bool, BacktestError> {
        let at = |b: Bound| -> Result<std::cmp::Ordering, BacktestError> {
            match b {
                Bound::Match(n) => Ok(number.cmp(&n)),
                Bound::Time(t) => match game.time() {
                    Some(time) => Ok(time.cmp(&t)),
                    None => Err(BacktestError::MissingTime {
                        match_id: game.id().to_string(),
                        number,
                    }),
                },
            }
        };
        if let Some(from) = self.from {
            if at(from)?.is_lt() {
                return Ok(false);
            }
        }
        if let Some(until) = self.until {
            if !at(until)?.is_lt() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// How to run a backtest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BacktestOptions {
    /// Which matches are scored.
    pub window: Window,
    /// Whether to compute the log loss (O(W²) per match); accuracy is always computed.
    pub log_loss: bool,
}

impl Default for BacktestOptions {
    fn default() -> Self {
        BacktestOptions {
            window: Window::all(),
            log_loss: true,
        }
    }
}

/// Per-match sums behind the standard error of the pair accuracy, over the scored
/// matches with at least one warm pair: with `dₘ` twice the match's score (2 per
/// concordant pair, 1 per tied pair, so that it stays whole) and `nₘ` its warm pairs.
/// Kept as whole numbers, so that the order of the matches cannot change them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchSums {
    /// Scored matches with at least one warm pair.
    pub matches: u64,
    /// `Σ dₘ²`.
    pub score_squares: u128,
    /// `Σ dₘ nₘ`.
    pub score_pairs: u128,
    /// `Σ nₘ²`.
    pub pair_squares: u128,
}

impl MatchSums {
    /// Adds one match's warm pairs.
    pub fn add(&mut self, pairs: PairCounts) {
        let n = u128::from(pairs.total());
        if n == 0 {
            return;
        }
        let d = 2 * u128::from(pairs.concordant) + u128::from(pairs.tied);
        self.matches += 1;
        self.score_squares = self.score_squares.saturating_add(d.saturating_mul(d));
        self.score_pairs = self.score_pairs.saturating_add(d.saturating_mul(n));
        self.pair_squares = self.pair_squares.saturating_add(n.saturating_mul(n));
    }

    /// The standard error of the pair accuracy of `pairs` (the sum of the matches'
    /// counts) with matches as the units; `None` with fewer than two matches with warm
    /// pairs.
    #[must_use]
    pub fn accuracy_se(&self, pairs: &PairCounts) -> Option<f64> {
        let a = pairs.accuracy()?;
        if self.matches < 2 {
            return None;
        }
        let n = pairs.total() as f64;
        let m = self.matches as f64;
        // Σ (dₘ − 2a nₘ)², the squared residuals of the doubled scores.
        let residuals = self.score_squares as f64 - 4.0 * a * self.score_pairs as f64
            + 4.0 * a * a * self.pair_squares as f64;
        let var = m / (m - 1.0) * (residuals / 4.0).max(0.0) / (n * n);
        Some(var.sqrt())
    }
}

/// What a backtest of one system found.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestResult {
    /// The system's name.
    pub system: String,
    /// How the warm pairs of the scored matches split.
    pub pairs: PairCounts,
    /// Per-match sums for the standard error of the pair accuracy.
    pub per_match: MatchSums,
    /// Sum over the warm pairs of `−ln p`, when computed.
    pub log_loss_sum: Option<f64>,
    /// Matches rated (all of the history).
    pub matches_rated: u64,
    /// Matches scored (inside the window).
    pub matches_scored: u64,
    /// Wall-clock seconds the replay took.
    pub seconds: f64,
}

impl BacktestResult {
    /// Number of warm pairs scored.
    #[must_use]
    pub fn warm_pairs(&self) -> u64 {
        self.pairs.total()
    }

    /// Pair accuracy, a fraction 0..1; `None` when no warm pair was scored.
    #[must_use]
    pub fn accuracy(&self) -> Option<f64> {
        self.pairs.accuracy()
    }

    /// Standard error of the pair accuracy with the scored matches as the units (the
    /// pairs of one match are not independent; see the [module docs](self)); `None`
    /// with fewer than two matches with warm pairs.
    #[must_use]
    pub fn accuracy_se(&self) -> Option<f64> {
        self.per_match.accuracy_se(&self.pairs)
    }

    /// Mean log loss per warm pair; `None` when not computed or no warm pair was scored.
    #[must_use]
    pub fn log_loss(&self) -> Option<f64> {
        let n = self.pairs.total();
        self.log_loss_sum.filter(|_| n > 0).map(|s| s / n as f64)
    }
}

/// Why a backtest could not finish.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BacktestError {
    /// The system cannot rate one of the matches (e.g. `elo` and a three-player game).
    #[error("match {match_id:?} (number {number}): {source}")]
    Rate {
        /// The match's id.
        match_id: String,
        /// Its 1-based number in rating order.
        number: u64,
        /// The system's error.
        #[source]
        source: RateError,
    },
    /// The window is given by time but a match has no time.
    #[error(
        "match {match_id:?} (number {number}) has no time, so a window by date cannot place it"
    )]
    MissingTime {
        /// The match's id.
        match_id: String,
        /// Its 1-based number in rating order.
        number: u64,
    },
    /// The backtest was stopped by its caller ([`backtest_until`]).
    #[error("the backtest was stopped")]
    Stopped,
}

/// Replays `matches` in the order given with `system`, scoring the matches inside
/// `options.window`.
///
/// ```
/// use podium::Match;
/// use podium_eval::backtest::{backtest, BacktestOptions};
/// let games = [
///     Match::ranked("g1", &["ann", "bo", "cy"]).unwrap(),
///     Match::ranked("g2", &["ann", "cy", "bo"]).unwrap(),
/// ];
/// let r = backtest(podium::system("sme", &podium::Settings::new()).unwrap(), &games, &BacktestOptions::default()).unwrap();
/// // g2 has three warm pairs; after g1 the ratings order ann > bo > cy: ann–cy and ann–bo
/// // are right, cy–bo is wrong.
/// assert_eq!(r.warm_pairs(), 3);
/// assert!((r.accuracy().unwrap() - 2.0 / 3.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// [`BacktestError::Rate`] when the system cannot rate a match (nothing is reported for
/// the system then), [`BacktestError::MissingTime`] for a window by time on matches
/// without times.
pub fn backtest(
    system: Box<dyn RatingSystem>,
    matches: &[Match],
    options: &BacktestOptions,
) -> Result<BacktestResult, BacktestError> {
    backtest_until(system, matches, options, &AtomicBool::new(false))
}

/// [`backtest`], which stops before the next match once `stop` is set (a caller's
/// Ctrl-C: the work ends rather than running on unseen).
///
/// # Errors
/// As [`backtest`], and [`BacktestError::Stopped`] once `stop` is set.
pub fn backtest_until(
    system: Box<dyn RatingSystem>,
    matches: &[Match],
    options: &BacktestOptions,
    stop: &AtomicBool,
) -> Result<BacktestResult, BacktestError> {
    let start = Instant::now();
    let name = system.name().to_string();
    let mut league = League::new(system);
    let mut pairs = PairCounts::default();
    let mut per_match = MatchSums::default();
    let mut loss = 0.0;
    let mut scored = 0u64;
    let mut warm: Vec<(usize, Rating)> = Vec::new();
    let mut items: Vec<Item> = Vec::new();
    for (i, game) in matches.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Err(BacktestError::Stopped);
        }
        let number = i as u64 + 1;
        if options.window.contains(number, game)? {
            scored += 1;
            // Each entry's factors folded in: the strengths the system predicts with.
            let before = league.strengths_before(game);
            warm.clear();
            for ((entry, member), rating) in game.players().zip(&before) {
                if league
                    .get(&member.player)
                    .is_some_and(|p| p.stats.games > 0)
                {
                    warm.push((game.place(entry), *rating));
                }
            }
            warm.sort_by_key(|w| w.0);
            items.clear();
            items.extend(warm.iter().map(|&(place, r)| Item {
                place,
                rating: r.value,
            }));
            let counted = count_pairs(&mut items);
            pairs.add(counted);
            per_match.add(counted);
            if options.log_loss {
                loss += log_loss_sum(league.system(), league.learned(), &warm);
            }
        }
        league.apply(game).map_err(|source| BacktestError::Rate {
            match_id: game.id().to_string(),
            number,
            source,
        })?;
    }
    Ok(BacktestResult {
        system: name,
        pairs,
        per_match,
        log_loss_sum: options.log_loss.then_some(loss),
        matches_rated: matches.len() as u64,
        matches_scored: scored,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// `−ln p` of one pair: `better` finished ahead of `worse`.
#[cfg(test)]
fn pair_loss(
    system: &dyn RatingSystem,
    learned: Option<&State>,
    better: &Rating,
    worse: &Rating,
) -> f64 {
    let p = system.win_probability(better, worse, learned);
    -p.clamp(MIN_PROBABILITY, 1.0 - MIN_PROBABILITY).ln()
}

/// The match with every score replaced by its place: the same order and ties, no
/// margins, so a system that reads scores sees ranks only (`podium backtest --scores
/// both`). A match of ranks is returned as it is.
///
/// ```
/// use podium::{Finish, Match};
/// let m = Match::builder("m")
///     .player("a", Finish::Score(12.5))
///     .player("b", Finish::Score(3.0))
///     .player("c", Finish::Score(3.0))
///     .build()
///     .unwrap();
/// let r = podium_eval::backtest::ranks_only(&m);
/// let finishes: Vec<Finish> = r.entries().iter().map(|e| e.finish).collect();
/// assert_eq!(finishes, [Finish::Rank(1.0), Finish::Rank(2.0), Finish::Rank(2.0)]);
/// ```
#[must_use]
pub fn ranks_only(game: &Match) -> Match {
    if game
        .entries()
        .iter()
        .all(|e| matches!(e.finish, podium::Finish::Rank(_)))
    {
        return game.clone();
    }
    let mut b = Match::builder(game.id());
    if let Some(t) = game.time() {
        b = b.time(t);
    }
    for (i, e) in game.entries().iter().enumerate() {
        let mut e = e.clone();
        e.finish = podium::Finish::Rank(game.place(i) as f64);
        b = b.entry(e);
    }
    // The entries of a valid match, with finishes that keep its order: valid too.
    b.build().unwrap_or_else(|_| game.clone())
}

/// Sum of `−ln p` over the pairs at different places of `warm` (sorted by place).
/// Exact, O(W²); parallel over the worse-placed player for large matches, summed in a
/// fixed order.
#[must_use]
pub fn log_loss_sum(
    system: &dyn RatingSystem,
    learned: Option<&State>,
    warm: &[(usize, Rating)],
) -> f64 {
    // ahead[i]: how many players finished strictly ahead of warm[i].
    let mut ahead = Vec::with_capacity(warm.len());
    let mut group_start = 0;
    for i in 0..warm.len() {
        if warm[i].0 != warm[group_start].0 {
            group_start = i;
        }
        ahead.push(group_start);
    }
    let ratings: Vec<Rating> = warm.iter().map(|w| w.1).collect();
    let row =
        |i: usize| -> f64 { system.pair_log_loss(&ratings[..ahead[i]], &ratings[i], learned) };
    if warm.len() >= PARALLEL_LOG_LOSS {
        let rows: Vec<f64> = (0..warm.len())
            .into_par_iter()
            .with_min_len(32)
            .map(row)
            .collect();
        rows.iter().sum()
    } else {
        (0..warm.len()).map(row).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium::Finish;

    fn sme() -> Box<dyn RatingSystem> {
        podium::system("sme", &podium::Settings::new()).unwrap()
    }

    #[test]
    fn first_matches_have_no_warm_pairs() {
        let games = [
            Match::ranked("g1", &["a", "b"]).unwrap(),
            Match::ranked("g2", &["c", "d", "a"]).unwrap(),
        ];
        let r = backtest(sme(), &games, &BacktestOptions::default()).unwrap();
        assert_eq!(r.warm_pairs(), 0);
        assert_eq!(r.accuracy(), None);
        assert_eq!(r.log_loss(), None);
        assert_eq!(r.matches_scored, 2);
    }

    #[test]
    fn accuracy_and_log_loss_by_hand() {
        // After g1 (sme, K 32): a 1516, b 1484. In g2 b beats a: one warm pair, wrong.
        let games = [
            Match::ranked("g1", &["a", "b"]).unwrap(),
            Match::ranked("g2", &["b", "a", "c"]).unwrap(),
        ];
        let r = backtest(sme(), &games, &BacktestOptions::default()).unwrap();
        assert_eq!(r.warm_pairs(), 1);
        assert_eq!(r.pairs.discordant, 1);
        let p_b = 1.0 / (1.0 + 10f64.powf(32.0 / 400.0));
        assert!((r.log_loss().unwrap() - (-p_b.ln())).abs() < 1e-12);
    }

    #[test]
    fn equal_ratings_count_half_and_ties_are_not_pairs() {
        let games = [
            Match::ranked("g1", &["a", "b"]).unwrap(),
            Match::ranked("g2", &["c", "d"]).unwrap(),
            // a and c both 1516: their pair is worth ½; b and d (1484) tie for 3rd.
            Match::with_places("g3", &[("a", 1), ("c", 2), ("b", 3), ("d", 3)]).unwrap(),
        ];
        let r = backtest(sme(), &games, &BacktestOptions::default()).unwrap();
        assert_eq!(
            r.pairs,
            PairCounts {
                concordant: 4,
                tied: 1,
                discordant: 0
            }
        );
        assert!((r.accuracy().unwrap() - 4.5 / 5.0).abs() < 1e-12);
    }

    #[test]
    fn team_pairs_are_between_players_of_different_entries() {
        let first = Match::ranked("g1", &["a", "b", "c", "d"]).unwrap();
        let teams = Match::builder("g2")
            .team("red", ["a", "b"], Finish::Rank(1.0))
            .team("blue", ["c", "d"], Finish::Rank(2.0))
            .build()
            .unwrap();
        let r = backtest(sme(), &[first, teams], &BacktestOptions::default()).unwrap();
        // 2 × 2 cross pairs. After g1 under sme: a 1516, b 1500, c 1500, d 1484, so
        // a–c, a–d, b–d are right and b–c a coin toss.
        assert_eq!(r.warm_pairs(), 4);
        assert_eq!(r.pairs.concordant, 3);
        assert_eq!(r.pairs.tied, 1);
    }

    #[test]
    fn accuracy_se_is_the_ratio_estimator_over_matches() {
        let mut sums = MatchSums::default();
        let mut pairs = PairCounts::default();
        let per_match = [(3, 1, 0), (1, 0, 2), (2, 0, 0), (0, 0, 0)];
        for (concordant, tied, discordant) in per_match {
            let p = PairCounts {
                concordant,
                tied,
                discordant,
            };
            sums.add(p);
            pairs.add(p);
        }
        // A match without warm pairs is no unit.
        assert_eq!(sums.matches, 3);
        // Two passes by hand: scores 3.5, 1, 2 of 4, 3, 2 pairs; a = 6.5 / 9.
        let a = 6.5 / 9.0;
        let r2: f64 = [(3.5, 4.0), (1.0, 3.0), (2.0, 2.0)]
            .iter()
            .map(|(s, n)| (s - a * n) * (s - a * n))
            .sum();
        let want = (1.5 * r2 / 81.0).sqrt();
        let got = sums.accuracy_se(&pairs).unwrap();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert!((got - 0.194_517).abs() < 1e-6, "{got}");
        // One match is no spread.
        let mut one = MatchSums::default();
        one.add(PairCounts {
            concordant: 3,
            tied: 0,
            discordant: 1,
        });
        assert_eq!(one.accuracy_se(&pairs), None);
    }

    #[test]
    fn pairs_of_one_match_are_not_counted_as_independent() {
        // After g1 under sme: a > b > c. g2 confirms the order (3 right), g3 reverses it
        // (3 wrong): two matches, each all right or all wrong.
        let games = [
            Match::ranked("g1", &["a", "b", "c"]).unwrap(),
            Match::ranked("g2", &["a", "b", "c"]).unwrap(),
            Match::ranked("g3", &["c", "b", "a"]).unwrap(),
        ];
        let r = backtest(sme(), &games, &BacktestOptions::default()).unwrap();
        assert_eq!(
            r.pairs,
            PairCounts {
                concordant: 3,
                tied: 0,
                discordant: 3
            }
        );
        // Scores 3 and 0 of 3 pairs each, a = ½: SE² = 2 · (1.5² + 1.5²) / 6² = ¼. The
        // binomial over 6 pairs would claim √(¼ / 6) ≈ 0.204.
        assert!((r.accuracy_se().unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn window_scores_part_but_rates_all() {
        let games: Vec<Match> = (0..6)
            .map(|i| Match::ranked(format!("g{i}"), &["a", "b"]).unwrap())
            .collect();
        let opts = BacktestOptions {
            window: Window {
                from: Some(Bound::Match(3)),
                until: Some(Bound::Match(5)),
            },
            log_loss: false,
        };
        let r = backtest(sme(), &games, &opts).unwrap();
        assert_eq!(r.matches_rated, 6);
        assert_eq!(r.matches_scored, 2);
        assert_eq!(r.pairs.concordant, 2);
        assert_eq!(r.log_loss_sum, None);
    }

    #[test]
    fn a_backtest_stopped_by_its_caller_rates_no_further_match() {
        let games: Vec<Match> = (0..6)
            .map(|i| Match::ranked(format!("g{i}"), &["a", "b"]).unwrap())
            .collect();
        let stop = AtomicBool::new(true);
        let opts = BacktestOptions::default();
        assert_eq!(
            backtest_until(sme(), &games, &opts, &stop).unwrap_err(),
            BacktestError::Stopped
        );
        stop.store(false, Ordering::Relaxed);
        let r = backtest_until(sme(), &games, &opts, &stop).unwrap();
        assert_eq!(
            r,
            backtest(sme(), &games, &opts)
                .map(|b| BacktestResult {
                    seconds: r.seconds,
                    ..b
                })
                .unwrap()
        );
    }

    #[test]
    fn window_by_time_needs_times() {
        let games = [Match::ranked("g1", &["a", "b"]).unwrap()];
        let opts = BacktestOptions {
            window: Window {
                from: Some(Bound::Time(0)),
                until: None,
            },
            log_loss: false,
        };
        let e = backtest(sme(), &games, &opts).unwrap_err();
        assert!(matches!(e, BacktestError::MissingTime { number: 1, .. }));
    }

    #[test]
    fn elo_on_a_three_player_match_is_an_error() {
        let games = [Match::ranked("g1", &["a", "b", "c"]).unwrap()];
        let e = backtest(
            podium::system("elo", &podium::Settings::new()).unwrap(),
            &games,
            &BacktestOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, BacktestError::Rate { number: 1, .. }), "{e}");
    }

    #[test]
    fn parallel_log_loss_equals_sequential() {
        let sys = sme();
        let warm: Vec<(usize, Rating)> = (0..600)
            .map(|i| (i / 3 + 1, Rating::new(1500.0 + ((i * 37) % 101) as f64)))
            .collect();
        let fast = log_loss_sum(&*sys, None, &warm);
        let mut slow = 0.0;
        for (i, (pi, ri)) in warm.iter().enumerate() {
            for (pj, rj) in &warm[..i] {
                if pj < pi {
                    slow += pair_loss(&*sys, None, rj, ri);
                }
            }
        }
        assert!((fast - slow).abs() < 1e-9 * slow.abs(), "{fast} vs {slow}");
    }
}
