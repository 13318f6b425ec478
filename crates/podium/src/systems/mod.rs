//! The rating systems, one module each, and the shared arithmetic of the Elo family.
//!
//! Every Elo-family system updates a player by `Δ = w · K · (S − E)` where `S` and `E` are the
//! actual and expected scores of the player's *entry* and `w` the player's weight
//! (partial play). A team is rated as one entry whose rating is the **mean of its
//! members' ratings**; every member then receives the team's change, scaled by their own
//! weight and computed with their own `K` (which can depend on their games played).

/// The [`crate::RatingSystem`] impl of an Elo-family system (one that implements
/// [`EloScores`] and has an `initial` rating): its registered name, its parameters, new
/// players at `initial`, and rating through [`rate_elo_prior`]. The
/// braces hold the system's own methods (at least `win_probability`), or
/// `logistic(|s| scale)` gives them: the win probability [`expectation`] with the scale
/// read from the config `s`, and its backtest log loss [`elo_pair_log_loss`]. `name`
/// is overridden with the constant, which errors read without building the parameters.
macro_rules! elo_system {
    ($ty:ty, $name:literal, logistic(|$s:ident| $scale:expr), { $($own:tt)* }) => {
        elo_system!($ty, $name, {
            fn win_probability(
                &self,
                a: &$crate::rating::Rating,
                b: &$crate::rating::Rating,
                _: Option<&$crate::state::State>,
            ) -> f64 {
                let $s = self;
                $crate::systems::expectation(a.value, b.value, $scale)
            }
            fn pair_log_loss(
                &self,
                better: &[$crate::rating::Rating],
                worse: &$crate::rating::Rating,
                _: Option<&$crate::state::State>,
            ) -> f64 {
                let $s = self;
                $crate::systems::elo_pair_log_loss(better, worse, $scale)
            }
            $($own)*
        });
    };
    ($ty:ty, $name:literal, { $($own:tt)* }) => {
        impl $crate::system::RatingSystem for $ty {
            fn describe(&self) -> $crate::system::Description {
                $crate::system::Description {
                    name: $name,
                    params: $crate::params::Configure::params(self),
                    capabilities: $crate::system::Capabilities {
                        rates_factors: true,
                        ..$crate::system::Capabilities::default()
                    },
                }
            }
            fn name(&self) -> &'static str {
                $name
            }
            fn initial_rating(&self) -> $crate::rating::Rating {
                $crate::rating::Rating::new(self.initial)
            }
            fn rate_into(
                &self,
                prior: &$crate::system::Prior<'_>,
                out: &mut $crate::system::Posterior,
            ) -> Result<(), $crate::error::RateError> {
                $crate::systems::rate_elo_prior(self, prior, out)
            }
            $($own)*
        }
    };
}

pub mod elo;
pub mod elo_mmr;
pub mod glicko;
pub mod glicko2;
pub mod kalman_mmr;
pub mod mes;
pub mod pairwise;
pub mod proportional;
pub mod shares;
pub mod sme;
pub mod trueskill;
pub mod ttt;
pub mod weng_lin;
pub mod whitewhale;

use crate::error::RateError;
use crate::model::Match;
use crate::rating::{PlayerChange, Rating};
use crate::system::check_ratings;

/// Two-player Elo expectation `E_A(B) = 1 / (1 + 10^((b − a)/scale))`: the score a
/// player rated `a` expects against one rated `b`.
///
/// ```
/// let e = podium::systems::expectation(1600.0, 1500.0, 400.0);
/// assert!((e - 0.640).abs() < 1e-3);
/// ```
#[must_use]
pub fn expectation(a: f64, b: f64, scale: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((b - a) / scale))
}

/// [`RatingSystem::pair_log_loss`](crate::RatingSystem::pair_log_loss) under the Elo
/// expectation with `scale` ([`expectation`]), four pairs at a time:
/// `−ln E(b, worse) = ln(1 + e^y)`, `y = (worse − b)·ln 10 / scale`.
pub(crate) fn elo_pair_log_loss(better: &[Rating], worse: &Rating, scale: f64) -> f64 {
    use wide::f64x4;
    let t = std::f64::consts::LN_10 / scale;
    crate::system::logistic_losses(
        better.len(),
        |i| {
            let c = &better[i..i + 4];
            let b = f64x4::from([c[0].value, c[1].value, c[2].value, c[3].value]);
            (f64x4::splat(worse.value) - b) * f64x4::splat(t)
        },
        |i| (worse.value - better[i].value) * t,
    )
}

/// A rating after `days` days without a match, for systems with σ: σ² grows by
/// `daily_tau²` a day, but never past the larger of the current σ and a new player's
/// σ `initial_sigma`. Ratings without σ, and non-positive or NaN `days`, are unchanged.
pub(crate) fn age_sigma(rating: Rating, days: f64, daily_tau: f64, initial_sigma: f64) -> Rating {
    let Some(s) = rating.sigma else {
        return rating;
    };
    if days.is_nan() || days <= 0.0 || daily_tau <= 0.0 {
        return rating;
    }
    let grown = (s * s + days * daily_tau * daily_tau).sqrt();
    Rating {
        sigma: Some(grown.min(s.max(initial_sigma))),
        ..rating
    }
}

/// Pairwise Elo expectations of many entries at the cost of one power per entry.
///
/// `E_i(j) = 1 / (1 + 10^((r_j − r_i)/D)) = q_i / (q_i + q_j)` with `q = 10^((r − r̄)/D)`.
/// When the ratings are so far apart that some `q` would overflow or vanish, every
/// expectation falls back to the direct formula.
pub(crate) struct Expectations<'a> {
    ratings: &'a [f64],
    /// The `q` of up to [`INLINE`] entries, kept on the stack.
    inline: [f64; INLINE],
    /// The `q` of larger matches.
    heap: Vec<f64>,
    scale: f64,
    direct: bool,
}

/// Entries whose `q` [`Expectations`] keeps without allocating.
pub(crate) const INLINE: usize = 16;

/// Sets `q[i] = 10^((r_i − r̄)/D)` for the ratings `r` (as many as `q` holds), the powers
/// of [`Expectations`]; says whether every one lies in the range where `q_i / (q_i + q_j)`
/// is exact enough (else the direct formula is used).
#[inline]
pub(crate) fn powers(r: &[f64], scale: f64, q: &mut [f64]) -> bool {
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    // 10^x as e^(x·ln 10): one exponential, cheaper than a general power.
    for (x, r) in q.iter_mut().zip(r) {
        *x = ((r - mean) / scale * std::f64::consts::LN_10).exp();
    }
    !q.iter().any(|&x| !(1e-150..=1e150).contains(&x))
}

impl<'a> Expectations<'a> {
    pub(crate) fn new(ratings: &'a [f64], scale: f64) -> Self {
        let mut inline = [0.0; INLINE];
        let mut heap = Vec::new();
        let q = if ratings.len() <= INLINE {
            &mut inline[..ratings.len()]
        } else {
            heap.resize(ratings.len(), 0.0);
            &mut heap[..]
        };
        let direct = !powers(ratings, scale, q);
        Expectations {
            ratings,
            inline,
            heap,
            scale,
            direct,
        }
    }

    /// The score entry `i` expects against entry `j`.
    #[inline]
    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        if self.direct {
            expectation(self.ratings[i], self.ratings[j], self.scale)
        } else {
            let q = if self.heap.is_empty() {
                &self.inline[..]
            } else {
                &self.heap[..]
            };
            q[i] / (q[i] + q[j])
        }
    }
}

/// Checks the ratings and returns each entry's rating: the mean of its members'.
pub(crate) fn entry_ratings(game: &Match, before: &[Rating]) -> Result<Vec<f64>, RateError> {
    check_ratings(game, before)?;
    Ok((0..game.len())
        .map(|e| {
            let r = game.member_range(e);
            let n = r.len() as f64;
            before[r].iter().map(|x| x.value).sum::<f64>() / n
        })
        .collect())
}

/// Checks ratings given without a match (players named by position, `#1`, `#2`, …).
pub(crate) fn check_finite(before: &[Rating]) -> Result<(), RateError> {
    match before
        .iter()
        .position(|r| !r.value.is_finite() || r.sigma.is_some_and(|s| !s.is_finite() || s < 0.0))
    {
        Some(i) => Err(RateError::NonFiniteRating {
            player: format!("#{}", i + 1),
            rating: before[i].value,
        }),
        None => Ok(()),
    }
}

/// What sets one system of the Elo family apart from the others: each entry's expected
/// and actual scores, and each player's step size K. [`rate_elo`] and [`rate_ranked_elo`]
/// do the rest, for matches and for ranked free-for-alls alike.
pub(crate) trait EloScores {
    /// Sets every entry's expected (`e`) and actual (`s`) score, given the entries'
    /// ratings `r` and places, best first; `e` and `s` start at 0.
    fn scores(&self, r: &[f64], places: &[usize], e: &mut [f64], s: &mut [f64]);

    /// The step size K of a player rated `r` in a match of `entries` entries.
    fn k(&self, r: &Rating, entries: usize) -> f64;
}

/// [`crate::RatingSystem::rate`] for the Elo family: with factors
/// [`rate_elo_factored`]; a ranking of single players who played the whole match by
/// [`rate_ranked_elo`], its scores on the stack (the same numbers as the general way);
/// any other match by [`rate_elo`].
pub(crate) fn rate_elo_prior(
    sys: &impl EloScores,
    prior: &crate::system::Prior<'_>,
    out: &mut crate::system::Posterior,
) -> Result<(), RateError> {
    let game = prior.game;
    if !prior.factors.is_empty() {
        *out = rate_elo_factored(sys, game, prior.ratings, prior.factors)?.into();
        return Ok(());
    }
    match prior.solo_places() {
        Some(places) => {
            // Checked here, so that errors name the players rather than positions.
            check_ratings(game, prior.ratings)?;
            // Into the caller's vectors, which keep their memory from match to match.
            out.clear();
            rate_ranked_elo(sys, places, prior.ratings, &mut out.changes)
        }
        None => {
            *out = crate::system::Posterior::players(rate_elo(sys, game, prior.ratings)?);
            Ok(())
        }
    }
}

/// [`crate::RatingSystem::rate`] for the Elo family: a team's rating is its members'
/// mean, and each member gets `Δ = w · K · (S − E)` of the team's scores.
pub(crate) fn rate_elo(
    sys: &impl EloScores,
    game: &Match,
    before: &[Rating],
) -> Result<Vec<PlayerChange>, RateError> {
    let r = entry_ratings(game, before)?;
    let n = r.len();
    // Expected and actual scores per entry, in one allocation.
    let mut scores = vec![0.0; 2 * n];
    let (e, s) = scores.split_at_mut(n);
    sys.scores(&r, game.places(), e, s);
    Ok(elo_changes(game, before, e, s, |x| sys.k(x, n)))
}

/// [`crate::RatingSystem::rate`] with factors for the Elo family: an entry's rating is its
/// members' mean plus its factors' ratings; each member gets `Δ = w · K · (S − E)` of
/// the entry's scores, and each factor `K · (S − E)` (its own K) with the mean scores
/// of the entries that carry it: a factor moves like one player a match, however many
/// entries carry it. (Summed, a make of car on half of a 40-car field would move by
/// twenty players' changes a race, and its noise would cost more than it tells.)
pub(crate) fn rate_elo_factored(
    sys: &impl EloScores,
    game: &Match,
    before: &[Rating],
    factors: &[Rating],
) -> Result<crate::factor::Factored, RateError> {
    let mut r = entry_ratings(game, before)?;
    crate::factor::check_factors(game, factors)?;
    for (e, (off, _)) in crate::factor::entry_offsets(game, factors)
        .into_iter()
        .enumerate()
    {
        r[e] += off;
    }
    let n = r.len();
    let mut scores = vec![0.0; 2 * n];
    let (e, s) = scores.split_at_mut(n);
    sys.scores(&r, game.places(), e, s);
    let changes = elo_changes(game, before, e, s, |x| sys.k(x, n));
    let factor_changes = game
        .factors()
        .iter()
        .zip(factors)
        .map(|(m, f)| {
            let count = m.entries.len() as f64;
            let ee = m.entries.iter().map(|&i| e[i]).sum::<f64>() / count;
            let ss = m.entries.iter().map(|&i| s[i]).sum::<f64>() / count;
            PlayerChange::elo(*f, ee, ss, sys.k(f, n), 1.0)
        })
        .collect();
    Ok(crate::factor::Factored {
        rated: crate::state::Rated {
            changes,
            states: Vec::new(),
            learned: None,
        },
        factors: factor_changes,
    })
}

/// [`crate::RatingSystem::rate`] of a ranking of single players for the Elo family: checks the places and
/// ratings, and appends `Δ = K · (S − E)` per player, the scores kept on the stack for
/// the usual match.
pub(crate) fn rate_ranked_elo(
    sys: &impl EloScores,
    places: &[usize],
    before: &[Rating],
    out: &mut Vec<PlayerChange>,
) -> Result<(), RateError> {
    let n = before.len();
    crate::model::check_places(n, places)?;
    check_finite(before)?;
    if n <= INLINE {
        let (mut r, mut e, mut s) = ([0.0; INLINE], [0.0; INLINE], [0.0; INLINE]);
        for (r, b) in r.iter_mut().zip(before) {
            *r = b.value;
        }
        sys.scores(&r[..n], places, &mut e[..n], &mut s[..n]);
        push_changes(sys, before, &e[..n], &s[..n], out);
    } else {
        let r: Vec<f64> = before.iter().map(|b| b.value).collect();
        let (mut e, mut s) = (vec![0.0; n], vec![0.0; n]);
        sys.scores(&r, places, &mut e, &mut s);
        push_changes(sys, before, &e, &s, out);
    }
    Ok(())
}

/// Appends each player's `Δ = K · (S − E)` from the entries' expected (`e`) and actual
/// (`s`) scores, one entry per player.
fn push_changes(
    sys: &impl EloScores,
    before: &[Rating],
    e: &[f64],
    s: &[f64],
    out: &mut Vec<PlayerChange>,
) {
    let n = before.len();
    out.extend(
        before
            .iter()
            .zip(e.iter().zip(s))
            .map(|(b, (&e, &s))| PlayerChange::elo(*b, e, s, sys.k(b, n), 1.0)),
    );
}

/// Per-member Elo changes `Δ = w · K(member) · (S − E)` from per-entry scores.
pub(crate) fn elo_changes(
    game: &Match,
    before: &[Rating],
    expected: &[f64],
    actual: &[f64],
    k: impl Fn(&Rating) -> f64,
) -> Vec<PlayerChange> {
    game.players()
        .zip(before)
        .map(|((e, m), r)| PlayerChange::elo(*r, expected[e], actual[e], k(r), m.weight))
        .collect()
}

/// Actual scores when only winning counts: 1 for the winner, tied winners split 1.
pub(crate) fn winner_scores(game: &Match) -> Vec<f64> {
    let mut s = vec![0.0; game.len()];
    fill_winner_scores(game.places(), &mut s);
    s
}

/// [`winner_scores`] from the entries' places, best first, into `s`.
pub(crate) fn fill_winner_scores(places: &[usize], s: &mut [f64]) {
    let w = places.iter().take_while(|&&p| p == 1).count();
    for (i, s) in s.iter_mut().enumerate() {
        *s = if i < w { 1.0 / w as f64 } else { 0.0 };
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use crate::model::Match;
    use crate::rating::{PlayerChange, Rating};
    use crate::system::RatingSystem;

    /// Asserts `|a − b| ≤ tol` with a message naming both.
    #[track_caller]
    pub fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} is not within {tol} of {b}");
    }

    /// Rates a free-for-all given as `(rating, place)` pairs, players `p0, p1, …`.
    pub fn ffa(sys: &dyn RatingSystem, field: &[(f64, u32)]) -> Vec<PlayerChange> {
        ffa_games(
            sys,
            &field.iter().map(|&(r, p)| (r, p, 0)).collect::<Vec<_>>(),
        )
    }

    /// As [`ffa`] with games played: `(rating, place, games)`.
    pub fn ffa_games(sys: &dyn RatingSystem, field: &[(f64, u32, u32)]) -> Vec<PlayerChange> {
        let places: Vec<(String, u32)> = field
            .iter()
            .enumerate()
            .map(|(i, &(_, p, _))| (format!("p{i}"), p))
            .collect();
        let m = Match::with_places("t", &places).unwrap();
        // Match sorts entries best first (stable); map ratings into that order.
        let before: Vec<Rating> = m
            .players()
            .map(|(_, mem)| {
                let i: usize = mem.player[1..].parse().unwrap();
                Rating::new(field[i].0).games(field[i].2)
            })
            .collect();
        let changes = sys
            .rate(&crate::system::Prior::new(&m, &before))
            .unwrap()
            .changes;
        // Return changes in the caller's order.
        let mut out = vec![None; field.len()];
        for ((_, mem), c) in m.players().zip(changes) {
            let i: usize = mem.player[1..].parse().unwrap();
            out[i] = Some(c);
        }
        out.into_iter().map(Option::unwrap).collect()
    }

    #[test]
    fn fast_expectations_equal_the_formula() {
        use super::{expectation, Expectations};
        for ratings in [vec![1000.0, 1200.0, 1500.0, 980.0], vec![0.0, 1e6, -1e6]] {
            let t = Expectations::new(&ratings, 400.0);
            for i in 0..ratings.len() {
                for j in 0..ratings.len() {
                    let want = expectation(ratings[i], ratings[j], 400.0);
                    close(t.get(i, j), want, 1e-12);
                }
            }
        }
    }

    #[test]
    fn fast_pair_log_losses_equal_the_probabilities() {
        // Nine better players (two rows of four and one left over), one far below and
        // one far above (clamped): each Elo-family row equals −ln of the system's own
        // probabilities, clamped, summed.
        let better: Vec<Rating> = [
            1500.0, 1620.0, 1390.0, 2400.0, 900.0, 1500.0, 1e6, -1e6, 1455.5,
        ]
        .iter()
        .map(|&v| Rating::new(v))
        .collect();
        let worse = Rating::new(1480.0);
        for name in ["elo", "pairwise", "sme", "shares", "mes", "whitewhale"] {
            let sys = crate::system(name, &crate::Settings::new()).unwrap();
            let slow: f64 = better
                .iter()
                .map(|b| {
                    -sys.win_probability(b, &worse, None)
                        .clamp(
                            crate::system::MIN_PROBABILITY,
                            1.0 - crate::system::MIN_PROBABILITY,
                        )
                        .ln()
                })
                .sum();
            let fast = sys.pair_log_loss(&better, &worse, None);
            assert!(
                (fast - slow).abs() <= 1e-12 * slow,
                "{name}: {fast} vs {slow}"
            );
        }
    }

    /// The rating changes of [`ffa`].
    pub fn deltas(sys: &dyn RatingSystem, field: &[(f64, u32)]) -> Vec<f64> {
        ffa(sys, field).iter().map(PlayerChange::delta).collect()
    }
}
