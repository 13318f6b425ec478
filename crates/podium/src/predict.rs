//! Predictions for a proposed match: each entry's chance to win, the chance of every
//! pairwise order, the expected finishing place, and the draw probability where the
//! system has a model of draws.
//!
//! Every [`RatingSystem`] predicts through [`RatingSystem::predict`]. Its default,
//! [`from_pairwise`], needs only the system's own two-entry expectation
//! ([`RatingSystem::win_probability`], applied to the entries' mean ratings):
//!
//! - **pairwise order** `P(i ahead of j)` is that expectation;
//! - **expected place** is `1 + Σ_j P(j ahead of i)` (linearity of expectation);
//! - **win probability** comes from strengths `s_i = exp((1/N) Σ_j logit P(i ahead of j))`
//!   normalised to sum to 1 (Plackett-Luce). For every Elo-family system (logistic
//!   expectation) and for `proportional` (`a / (a + b)`) the pairwise expectation is
//!   exactly a Bradley-Terry model, and these strengths are then exactly its own, so the
//!   win probabilities agree with the pairwise ones; for other models it is the
//!   Bradley-Terry fit through the geometric mean of the pairwise odds.
//!
//! The Weng-Lin systems and TrueSkill override the default with their own models (see their
//! modules).
//!
//! ```
//! use podium::{Match, Rating, RatingSystem};
//! let sme = podium::system("sme", &podium::Settings::new()).unwrap();
//! let game = Match::ranked("next", &["ann", "bo"]).unwrap(); // finishes are ignored
//! let p = sme.predict(&podium::Prior::new(&game, &[Rating::new(1600.0), Rating::new(1500.0)])).unwrap();
//! assert!((p.win[0] - 0.6401).abs() < 1e-4);
//! assert!((p.ahead[0][1] - 0.6401).abs() < 1e-4);
//! assert!((p.expected_place[1] - 1.6401).abs() < 1e-4);
//! assert_eq!(p.draw, None);
//! ```

use crate::error::RateError;
use crate::model::Match;
use crate::rating::Rating;
use crate::state::State;
use crate::system::{check_ratings, RatingSystem};

/// What a system expects of a proposed match. Entries are indexed as in the [`Match`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Prediction {
    /// Probability that each entry finishes first. Sums to 1 over the entries, except for
    /// systems with a draw model that can tie for first (TrueSkill), where `win` is the
    /// chance to finish clear first and the rest is `draw`.
    pub win: Vec<f64>,
    /// `ahead[i][j]`: probability that entry `i` finishes strictly ahead of entry `j`
    /// (the diagonal is 0). Without a draw model `ahead[i][j] + ahead[j][i] = 1`; with one,
    /// the rest is the chance that the two finish level.
    pub ahead: Vec<Vec<f64>>,
    /// Expected finishing place of each entry, 1 = first (`1 + Σ_j ahead[j][i]`).
    pub expected_place: Vec<f64>,
    /// Probability of a draw, for systems with a draw model: TrueSkill, the chance that no
    /// entry finishes clear first; Weng-Lin, openskill's `predict_draw` (the mean over the
    /// pairs of entries of their chance to finish level).
    pub draw: Option<f64>,
    /// Match quality (TrueSkill: the draw probability of the match relative to the
    /// fairest possible one), for systems that define it.
    pub quality: Option<f64>,
}

impl Prediction {
    /// A prediction from the pairwise matrix `ahead` alone: win probabilities by
    /// Plackett-Luce strengths (see the [module docs](self)), expected places by linearity.
    #[must_use]
    pub fn from_ahead(ahead: Vec<Vec<f64>>) -> Self {
        let n = ahead.len();
        let logit = |p: f64| {
            let p = p.clamp(1e-300, 1.0);
            let q = (1.0 - p).max(1e-300);
            p.ln() - q.ln()
        };
        let strengths: Vec<f64> = (0..n)
            .map(|i| {
                (0..n)
                    .filter(|&j| j != i)
                    .map(|j| logit(ahead[i][j]))
                    .sum::<f64>()
                    / n as f64
            })
            .collect();
        let win = softmax(&strengths);
        let expected_place = expected_places(&ahead);
        Prediction {
            win,
            ahead,
            expected_place,
            draw: None,
            quality: None,
        }
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.win.len()
    }

    /// Always false: a match has at least two entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.win.is_empty()
    }
}

/// `1 + Σ_j ahead[j][i]` for each entry `i`.
#[must_use]
pub fn expected_places(ahead: &[Vec<f64>]) -> Vec<f64> {
    let n = ahead.len();
    (0..n)
        .map(|i| 1.0 + (0..n).filter(|&j| j != i).map(|j| ahead[j][i]).sum::<f64>())
        .collect()
}

/// `exp(x_i) / Σ exp(x_j)`, computed without overflow.
#[must_use]
pub fn softmax(x: &[f64]) -> Vec<f64> {
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = x.iter().map(|v| (v - max).exp()).collect();
    let total: f64 = e.iter().sum();
    e.into_iter().map(|v| v / total).collect()
}

/// The rating of each entry as the Elo family rates a team: the mean of its members'
/// values (σ, if every member has one, is that of the mean: `√(Σσ²) / n`; games the
/// fewest of any member).
#[must_use]
pub fn entry_means(game: &Match, before: &[Rating]) -> Vec<Rating> {
    (0..game.len())
        .map(|e| {
            let members = &before[game.member_range(e)];
            let n = members.len() as f64;
            let value = members.iter().map(|r| r.value).sum::<f64>() / n;
            let sigma = members
                .iter()
                .map(|r| r.sigma.map(|s| s * s))
                .sum::<Option<f64>>()
                .map(|v| v.sqrt() / n);
            Rating {
                value,
                sigma,
                games: members.iter().map(|r| r.games).min().unwrap_or(0),
            }
        })
        .collect()
}

/// The default prediction of [`RatingSystem::predict`]: pairwise probabilities from
/// [`RatingSystem::win_probability`] (with what the system learned) on the entries'
/// mean ratings, then
/// [`Prediction::from_ahead`].
///
/// # Errors
/// As [`check_ratings`]: a rating count that does not fit the match, or a non-finite rating.
pub fn from_pairwise<S: RatingSystem + ?Sized>(
    system: &S,
    game: &Match,
    before: &[Rating],
    learned: Option<&State>,
) -> Result<Prediction, RateError> {
    from_probability(game, before, |a, b| system.win_probability(a, b, learned))
}

/// [`from_pairwise`] with the pair probability `win(a, b)` that an entry rated `a`
/// finishes ahead of one rated `b`.
///
/// # Errors
/// As [`check_ratings`]: a rating count that does not fit the match, or a non-finite rating.
pub fn from_probability(
    game: &Match,
    before: &[Rating],
    win: impl Fn(&Rating, &Rating) -> f64,
) -> Result<Prediction, RateError> {
    check_ratings(game, before)?;
    let entries = entry_means(game, before);
    let n = entries.len();
    let mut ahead = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in (i + 1)..n {
            let p = win(&entries[i], &entries[j]).clamp(0.0, 1.0);
            ahead[i][j] = p;
            ahead[j][i] = 1.0 - p;
        }
    }
    Ok(Prediction::from_ahead(ahead))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::close;

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn bradley_terry_strengths_are_recovered() {
        // Elo is Bradley-Terry with strength 10^(r/400): win = s_i / Σ s.
        let sys = crate::system("elo", &crate::Settings::new()).unwrap();
        let game = Match::ranked("g", &["a", "b", "c"]).unwrap();
        let r = [1700.0, 1500.0, 1400.0];
        let p = sys
            .predict(&crate::system::Prior::new(&game, &r.map(Rating::new)))
            .expect("three entries predict");
        let s: Vec<f64> = r.iter().map(|v| 10f64.powf(v / 400.0)).collect();
        let total: f64 = s.iter().sum();
        for i in 0..3 {
            close(p.win[i], s[i] / total, 1e-12);
        }
        close(p.win.iter().sum::<f64>(), 1.0, 1e-12);
        close(p.expected_place.iter().sum::<f64>(), 6.0, 1e-12);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Every registered system predicts proper probabilities for any field.
        #[test]
        fn every_system_predicts_probabilities(
            values in proptest::collection::vec(-1e6..1e6f64, 2..12),
            small in proptest::collection::vec(1.0..3000.0f64, 2..12),
            use_small in proptest::bool::ANY,
        ) {
            let values = if use_small { small } else { values };
            let n = values.len();
            let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
            let game = Match::ranked("g", &names).unwrap();
            for spec in crate::systems() {
                let sys = (spec.build)(&crate::Settings::new()).unwrap();
                let init = sys.initial_rating();
                let before: Vec<Rating> = values
                    .iter()
                    .map(|v| Rating { value: v.abs().max(1.0), ..init })
                    .collect();
                let p = sys.predict(&crate::system::Prior::new(&game, &before)).unwrap();
                let total = p.win.iter().sum::<f64>() + p.draw.filter(|_| spec.name == "trueskill").unwrap_or(0.0);
                proptest::prop_assert!((total - 1.0).abs() < 1e-6, "{}: {}", spec.name, total);
                for i in 0..n {
                    proptest::prop_assert!((0.0..=1.0).contains(&p.win[i]), "{}", spec.name);
                    proptest::prop_assert!(p.expected_place[i] >= 1.0 - 1e-9);
                    proptest::prop_assert!(p.expected_place[i] <= n as f64 + 1e-9);
                    for j in 0..n {
                        if i != j {
                            let s = p.ahead[i][j] + p.ahead[j][i];
                            proptest::prop_assert!((0.0..=1.0 + 1e-9).contains(&s), "{}", spec.name);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn extreme_gaps_stay_finite() {
        let sys = crate::system("sme", &crate::Settings::new()).unwrap();
        let game = Match::ranked("g", &["a", "b", "c"]).unwrap();
        let r = [1e9, -1e9, 0.0].map(Rating::new);
        let p = sys.predict(&crate::system::Prior::new(&game, &r)).unwrap();
        assert!(p.win.iter().all(|w| w.is_finite() && *w >= 0.0));
        close(p.win[0], 1.0, 1e-12);
        close(p.expected_place[1], 3.0, 1e-12);
    }
}
