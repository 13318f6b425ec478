//! `kalman-mmr`: Elo-MMR's performances, tracked by a bank of Kalman filters whose
//! dynamics the system chooses from the history itself.
//!
//! **What.** Three stages per match.
//!
//! 1. **Performances.** Every entry's performance in the match is the root of Elo-MMR's
//!    logistic mean-field equation: every entry's performance is logistic around its
//!    mean skill with standard deviation `√(σ² + β²)`, a tie counts as a win plus a loss,
//!    and the entry counts as tied with itself. One root per tie group; for matches of
//!    more than 64 entries the common sum over all entries is tabulated on a grid (cubic
//!    Hermite interpolation), so a match costs `O(N·G)`. When every entry has a score
//!    (three or more entries), the performances are respaced along the scores by the
//!    least-squares line of performances on scores, which keeps their mean and spread
//!    but reads the margins; a share `1 − margins` of the rank-based spacing is kept, so
//!    that a finish ahead reads as ahead however close the scores.
//! 2. **Skills.** Each player's skill is followed by a bank of Kalman filters (Kalman
//!    1960) on that stream of performances. The filters differ only in their dynamics —
//!    a variance `τ²` added per match and `γ²` per idle day (per elapsed match for
//!    histories without times), while the mean returns towards the newcomer prior by
//!    the factor `exp(−ρ·idle)`, `ρ = reversion·γ²/(2σ²)` (the Ornstein–Uhlenbeck rate
//!    of a skill whose spread about the field is the newcomer σ) — and in robustness:
//!    a *symmetric* filter is the plain Kalman update; an *asymmetric* one clips a
//!    standardized innovation below `−clip` (a bad result has bounded influence) and,
//!    when it exceeds `jump_above`, first widens the prior by `jump²` (a big
//!    improvement is believed). The performance of
//!    an entry of N is observed with noise `β²·(1 + field_noise/(N − 1))/w` (w: the
//!    player's weight; no field term when the performance was respaced along scores),
//!    times the match's own noise level `(noise_prior + Σz²)/(noise_prior + n)` (the
//!    squared residuals of the `n` players with three or more matches, each clipped at
//!    3; the factor is kept within [0.5, 3]). A team's performance observes the
//!    weighted mean of its members' skills.
//! 3. **Selection and calibration, learned from every match.** Before each match the
//!    filters are scored by the one-step-ahead log-likelihood of the pairwise orders of
//!    (a deterministic sample of at most `sample`) established players, each filter
//!    with its own slope κ fitted by stochastic Newton steps. The rating reported is
//!    the filter in use, which starts with the first symmetric, static filter and moves
//!    to the best-scoring filter only when its cumulative advantage exceeds `switch_z`
//!    standard errors of the difference and `ln(switch_odds·(k − 1))` nats (k filters:
//!    odds of `switch_odds` against the filter in use for each of the k − 1
//!    alternatives, Kass & Raftery's "very strong" evidence at 150). A filter that
//!    trails the filter in use by `bench_z` standard errors and `bench_z²` nats is
//!    benched: still updated, it is scored on every 16th match only, each score
//!    counting 16 times, so that its total stays an unbiased estimate (with the
//!    variance that sampling adds) and it can still come back and be switched to; a
//!    calibration candidate trailing the one in use as far is benched alike. A newcomer's
//!    prior mean is the running mean of debut performances, each older debut weighted
//!    by `prior_forgetting` per newer one. The probability that `a` finishes ahead of `b` is
//!    `L(κ (μ_a − μ_b)/√(σ_a² + σ_b² + c·2β²))` (L the logistic with unit variance),
//!    with `c` chosen from {2, 1, ½, …, 1/64, 0} by cumulative log-likelihood and its κ
//!    fitted online.
//!
//! The bank of each player is its [`State`]; the selection, the calibration, the
//! newcomer prior and the match clock are the system's *learned* value
//! ([`RatingSystem::initial_learned`]), which a [`League`](crate::League) keeps beside
//! the players. A player's reported rating is the mean and σ of the filter in use at
//! the time it is read ([`RatingSystem::age`] with the learned value).
//!
//! **Where from.** The performance equation and its tie and self terms: D. Ebtekar and
//! P. Liu, *Elo-MMR: A Rating System for Massive Multiplayer Competitions*, WWW 2021. The
//! filters: R. E. Kalman, *A New Approach to Linear Filtering and Prediction Problems*,
//! 1960. Choosing among models by their one-step-ahead predictive likelihood:
//! A. P. Dawid, *Present Position and Potential Developments: Some Personal Views —
//! Statistical Theory, the Prequential Approach*, JRSS A 1984. Calibrating a probability
//! by a logistic slope: J. Platt, *Probabilistic Outputs for Support Vector Machines*,
//! 1999. Odds as the strength of evidence: R. E. Kass and A. E. Raftery, *Bayes
//! Factors*, JASA 1995. A drift that returns to a mean: G. E. Uhlenbeck and
//! L. S. Ornstein, *On the Theory of the Brownian Motion*, Phys. Rev. 1930.
//!
//! **Parameters** (`--set name=value`): `rating` 1500 and `sigma` 350 (a newcomer's
//! prior before any debut is seen), `beta` 195.96 (performance noise β, Elo-MMR's
//! value), `field_noise` 4, `taus` 0,12,25,50, `gammas` 0,4,8, `reversion` 1,
//! `symmetric` and `robust` (which filters the bank holds; both), `clip` 1,
//! `jump_above` 1, `jump` 70, `switch_z` 2, `switch_odds` 150, `sample` 48, `bench_z`
//! 10, `robust_field` 16, `margins` 0.99, `noise_prior` 5 (0: no per-match noise
//! level), `prior_forgetting` 0.999,
//! `calibrate` true, `calibration_weight` 100, and for [factors](crate::factor)
//! `factor_sigma` 50 and `factor_tau` 0. One set of defaults for every history.
//!
//! ```
//! use podium::{League, Match};
//! let mut league = League::new(podium::system("kalman-mmr", &podium::Settings::new()).unwrap());
//! league.apply(&Match::ranked("g1", &["ann", "bo", "cy"]).unwrap()).unwrap();
//! league.apply(&Match::ranked("g2", &["ann", "cy", "bo"]).unwrap()).unwrap();
//! let board = league.standings();
//! assert_eq!(board[0].player, "ann");
//! assert!(league.learned().is_some());
//! ```

use std::f64::consts::PI;
use std::sync::Arc;

use smallvec::SmallVec;
use wide::{f32x4, f64x4, CmpGe, CmpLt};

use crate::error::RateError;
use crate::model::{Finish, Match};
use crate::params::{Configure, FloatList};
use crate::rating::{PlayerChange, Rating};
use crate::state::State;
use crate::system::{check_bayesian, check_ratings, Described, RatingSystem};

/// π/√3: the logistic distribution with this scale factor has unit variance.
const TANH_MULT: f64 = PI / 1.732_050_807_568_877_2;

/// A benched filter (or calibration candidate) is scored on every this-many-th match.
const BENCH_EVERY: u64 = 16;

/// Matches with more entries than this solve their performances on a grid.
const GRID_FROM: usize = 64;

/// The multiples `c` of `2β²` among which the calibration chooses.
const CAL_U: [f64; 9] = [2.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.031_25, 0.015_625, 0.0];

/// Parameters of `kalman-mmr`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KalmanMmrConfig {
    /// Prior mean of a newcomer before any debut has been seen. Default 1500.
    pub rating: f64,
    /// Prior σ of a newcomer. Default 350.
    pub sigma: f64,
    /// Performance noise β. Default 195.96 (Elo-MMR's).
    pub beta: f64,
    /// Extra observation noise of a ranked field of N: `β²·field_noise/(N − 1)`. Default 4.
    pub field_noise: f64,
    /// The bank's drifts per match: τ, whose square each filter adds to its variance
    /// before a match. Default 0,12,25,50.
    pub taus: FloatList,
    /// The bank's drifts per idle day (per elapsed match when matches have no times): γ,
    /// whose square times the idle time each filter adds. Default 0,4,8.
    pub gammas: FloatList,
    /// How fast an idle player's mean returns towards the newcomer prior, as a multiple
    /// of `γ²/(2σ²)` per idle day (per elapsed match without times): 1 is the
    /// Ornstein–Uhlenbeck rate of a skill whose spread about the field is the newcomer
    /// σ, so a filter without idle drift (γ = 0) does not revert; 0: no reversion.
    /// The variance grows by `γ²` per idle day either way. Default 1.
    pub reversion: f64,
    /// Whether the bank holds the symmetric filters. Default true.
    pub symmetric: bool,
    /// Whether the bank holds the asymmetric, robust filters. Default true.
    pub robust: bool,
    /// Robust filters: the standardized innovation is clipped below `−clip`. Default 1.
    pub clip: f64,
    /// Robust filters: an innovation above this widens the prior by `jump²`. Default 1.
    pub jump_above: f64,
    /// Robust filters: the jump's standard deviation. Default 70.
    pub jump: f64,
    /// Standard errors by which a filter must lead to be switched to. Default 2.
    pub switch_z: f64,
    /// Odds, against the filter in use and for each alternative, by which a filter's
    /// pairwise likelihood must lead to be switched to: a lead of at least
    /// `ln(switch_odds·(k − 1))` nats among k filters. Default 150.
    pub switch_odds: f64,
    /// Established players of a match scored for the selection, at most. Default 48.
    pub sample: u32,
    /// Standard errors of their score difference, and the square of that in nats, by
    /// which a filter must trail the filter in use to be benched: it is still updated,
    /// but scored on every 16th match only, each such score counting 16 times, so that
    /// its total stays comparable and it can come back and be switched to. A calibration
    /// candidate trailing the one in use as far is benched alike (0: none). Default 10.
    pub bench_z: f64,
    /// Entries from which a field's performances are read through the asymmetric twin
    /// of the filter in use (the robust filter of the same τ and γ) when the filter in
    /// use is symmetric: in a large field a performance is read against many opponents,
    /// whose robust beliefs neither fall on one bad result nor lag a real improvement.
    /// The filter in use still gives the ratings. Default 16.
    pub robust_field: u32,
    /// Share of the performances' spacing read from the score margins when a match has
    /// scores: each performance is `margins` times its place on the least-squares line of
    /// performances on scores plus `1 − margins` times its rank-based value (0: ranks
    /// only). Below 1, a finish ahead always reads as ahead, however close the scores.
    /// Default 0.99.
    pub margins: f64,
    /// Prior weight of the per-match noise level (0: none). Default 5.
    pub noise_prior: f64,
    /// Weight kept by older debuts per newer one in the newcomer prior: the prior is the
    /// mean of about the last `1/(1 − prior_forgetting)` debuts. Default 0.999.
    pub prior_forgetting: f64,
    /// Calibrate the pair probability online. Default true.
    pub calibrate: bool,
    /// Prior curvature of the online slope fits (their step damping). Default 100.
    pub calibration_weight: f64,
    /// A factor's prior σ ([`crate::factor`]): how large an advantage a car, a seat or a
    /// faction is believed to have before any result. Default 50.
    pub factor_sigma: f64,
    /// σ added to a factor's belief per match it plays (a car changes over a season).
    /// Default 0.
    pub factor_tau: f64,
}

impl Default for KalmanMmrConfig {
    fn default() -> Self {
        KalmanMmrConfig {
            rating: 1500.0,
            sigma: 350.0,
            beta: 195.96,
            field_noise: 4.0,
            taus: FloatList::from_slice(&[0.0, 12.0, 25.0, 50.0]).expect("four values"),
            gammas: FloatList::from_slice(&[0.0, 4.0, 8.0]).expect("three values"),
            reversion: 1.0,
            symmetric: true,
            robust: true,
            clip: 1.0,
            jump_above: 1.0,
            jump: 70.0,
            switch_z: 2.0,
            switch_odds: 150.0,
            sample: 48,
            bench_z: 10.0,
            robust_field: 16,
            margins: 0.99,
            noise_prior: 5.0,
            prior_forgetting: 0.999,
            calibrate: true,
            calibration_weight: 100.0,
            factor_sigma: 50.0,
            factor_tau: 0.0,
        }
    }
}

fn spread(l: FloatList) -> bool {
    (1..=8).contains(&l.as_slice().len())
        && l.as_slice().iter().all(|&v| (0.0..=10_000.0).contains(&v))
}

crate::configure!(KalmanMmrConfig, "kalman-mmr" {
    rating: f64 where |v| (-6000.0..=9000.0).contains(&v), "in [−6000, 9000]" => "prior mean of a newcomer before any debut is seen",
    sigma: f64 where |v| (0.001..=15_000.0).contains(&v), "in [0.001, 15000]" => "prior σ of a newcomer",
    beta: f64 where |v| (0.001..=15_000.0).contains(&v), "in [0.001, 15000]" => "performance noise β",
    field_noise: f64 where |v| (0.0..=1000.0).contains(&v), "in [0, 1000]" => "extra observation noise of a ranked field of N: β²·field_noise/(N − 1)",
    taus: FloatList where spread, "one to eight values, each in [0, 10000]" => "σ added per match (τ) of the bank's filters",
    gammas: FloatList where spread, "one to eight values, each in [0, 10000]" => "σ added per idle day, or per elapsed match without times (γ), of the bank's filters",
    reversion: f64 where |v| (0.0..=1000.0).contains(&v), "in [0, 1000]" => "how fast an idle player's mean returns to the newcomer prior, in units of γ²/(2σ²) per idle day or elapsed match",
    symmetric: bool => "the bank holds the symmetric (plain Kalman) filters",
    robust: bool => "the bank holds the asymmetric filters (bad results clipped, big improvements believed)",
    clip: f64 where |v| (0.0..=100.0).contains(&v), "in [0, 100]" => "asymmetric filters: standardized innovations clipped below −clip",
    jump_above: f64 where |v| (0.0..=100.0).contains(&v), "in [0, 100]" => "asymmetric filters: innovations above this widen the prior by jump²",
    jump: f64 where |v| (0.0..=15_000.0).contains(&v), "in [0, 15000]" => "asymmetric filters: σ of the jump (0 = none)",
    switch_z: f64 where |v| (0.0..=100.0).contains(&v), "in [0, 100]" => "standard errors by which a filter must lead to be switched to",
    switch_odds: f64 where |v| (1.0..=1e9).contains(&v), "in [1, 1e9]" => "odds against the filter in use (per alternative) by which a filter must lead to be switched to",
    sample: u32 where |v| (2..=100_000).contains(&v), "in [2, 100000]" => "established players of a match scored for the selection, at most",
    bench_z: f64 where |v| v == 0.0 || (1.0..=1e6).contains(&v), "0, or in [1, 1e6]" => "standard errors (and their square in nats) by which a filter trailing the filter in use is benched: still updated, scored on every 16th match only (0 = none)",
    robust_field: u32 where |v| v >= 2, "at least 2" => "entries from which a field's performances are read through the robust twin of a symmetric filter in use",
    margins: f64 where |v| (0.0..=1.0).contains(&v), "in [0, 1]" => "share of the performances' spacing read from the score margins (0 = ranks only)",
    noise_prior: f64 where |v| (0.0..=1e6).contains(&v), "in [0, 1e6]" => "prior weight of the per-match noise level (0 = none)",
    prior_forgetting: f64 where |v| (0.5..=1.0).contains(&v), "in [0.5, 1]" => "weight kept by older debuts per newer one in the newcomer prior",
    calibrate: bool => "calibrate the pair probability online",
    calibration_weight: f64 where |v| (1e-3..=1e9).contains(&v), "in [0.001, 1e9]" => "prior curvature of the online slope fits",
    factor_sigma: f64 where |v| (0.001..=15_000.0).contains(&v), "in [0.001, 15000]" => "prior σ of a factor (car, seat, faction)",
    factor_tau: f64 where |v| (0.0..=10_000.0).contains(&v), "in [0, 10000]" => "σ added to a factor per match it plays",
} validate |c| {
    let rule = if !c.symmetric && !c.robust {
        "symmetric or robust must be true: the bank needs filters"
    } else {
        return Ok(());
    };
    Err(crate::ConfigError::Inconsistent {
        system: "kalman-mmr",
        rule: rule.to_string(),
    })
});

/// One filter of the bank: its dynamics and robustness.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Filter {
    tau: f64,
    gamma: f64,
    robust: bool,
}

/// The established players of a match scored for the selection: (place, index).
type Warm = SmallVec<[(usize, usize); 16]>;

/// Every filter's (mean, variance) of one player, in bank order.
pub type Bank = SmallVec<[(f64, f64); 24]>;

/// What `kalman-mmr` keeps of a player: every filter's belief.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KalmanMmrState {
    /// Matches rated.
    pub games: u32,
    /// When the player last played: days since the epoch, or the match clock for
    /// matches without times (see `dated`); `None` for a player carried over from
    /// elsewhere, who has not played here yet.
    pub last: Option<f64>,
    /// Whether `last` is a time (the last match had one) rather than the match clock.
    pub dated: bool,
    /// Each filter's (mean, variance), in bank order: kept within the state for a bank
    /// of up to 24 filters (the default's size), so that reading a player before a
    /// match waits for memory once, not twice.
    pub bank: Bank,
}

/// What `kalman-mmr` learns from every match: the filter in use and the evidence for
/// it, the calibration of the pair probability, the newcomer prior and the match clock.
///
/// Its vectors are shared between the values of successive matches until one is
/// written: a match that scores no filter but the one in use copies none of them.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KalmanMmrLearned {
    /// Matches rated.
    pub clock: f64,
    /// The filter in use (index in the bank).
    pub best: usize,
    /// Times the filter in use changed.
    pub switches: u32,
    /// Each filter's cumulative pair log-likelihood.
    score: Arc<Vec<f64>>,
    /// Cumulative squared differences of the filters' per-match scores (K × K).
    dsq: Arc<Vec<f64>>,
    /// Each filter's fitted slope and its accumulated curvature.
    slope: Arc<Vec<(f64, f64)>>,
    /// Each calibration candidate's slope, curvature and log-likelihood.
    cal: [(f64, f64, f64); 9],
    /// The calibration candidate in use.
    cal_best: usize,
    /// Cumulative squared differences of the candidates' per-match log-likelihoods
    /// (9 × 9; empty in a league saved before candidates could be benched).
    #[cfg_attr(feature = "serde", serde(default))]
    cal_dsq: Arc<Vec<f64>>,
    /// Discounted count and sum of debut performances.
    debuts: (f64, f64),
    /// The sampler's xorshift state.
    rng: u64,
}

#[cfg(feature = "serde")]
impl crate::state::Restorable for KalmanMmrState {
    fn fits(&self, fresh: &Self) -> Result<(), String> {
        let (k, n) = (fresh.bank.len(), self.bank.len());
        if n != k {
            return Err(format!("{n} filters, where the system has {k}"));
        }
        if let Some((i, (mu, var))) = self.bank.iter().enumerate().find(|(_, &(mu, var))| {
            let limit = crate::league::saved::SAVED_LIMIT;
            !(mu.is_finite() && mu.abs() <= limit && var > 0.0 && var <= limit * limit)
        }) {
            let r = crate::error::readable;
            return Err(format!(
                "bank[{i}]: mean {}, variance {}, expected a mean within ±1e100 and a variance above 0 and at most 1e200",
                r(*mu),
                r(*var)
            ));
        }
        match self.last {
            Some(t) if !t.is_finite() => Err(format!("last {t}, expected a finite time")),
            _ => Ok(()),
        }
    }
}

#[cfg(feature = "serde")]
impl crate::state::Restorable for KalmanMmrLearned {
    fn fits(&self, fresh: &Self) -> Result<(), String> {
        let k = fresh.score.len();
        let sizes = [
            ("score", self.score.len(), k),
            ("dsq", self.dsq.len(), k * k),
        ];
        let sizes = sizes.into_iter().chain([("slope", self.slope.len(), k)]);
        if let Some((what, n, want)) = sizes.into_iter().find(|(_, n, want)| n != want) {
            return Err(format!(
                "`{what}` holds {n} values, where the system has {want}"
            ));
        }
        let n = self.cal_dsq.len();
        if n != 0 && n != 81 {
            return Err(format!(
                "`cal_dsq` holds {n} values, where the system has 81 (or none)"
            ));
        }
        let finite = [
            ("clock", self.clock),
            ("debuts.0", self.debuts.0),
            ("debuts.1", self.debuts.1),
        ]
        .into_iter()
        .chain(self.score.iter().map(|&x| ("score", x)))
        .chain(self.dsq.iter().map(|&x| ("dsq", x)))
        .chain(self.cal_dsq.iter().map(|&x| ("cal_dsq", x)))
        .chain(
            self.slope
                .iter()
                .flat_map(|&(a, b)| [("slope", a), ("slope", b)]),
        )
        .chain(
            self.cal
                .iter()
                .flat_map(|&(a, b, c)| [("cal", a), ("cal", b), ("cal", c)]),
        );
        for (what, x) in finite {
            if !x.is_finite() {
                return Err(format!("`{what}` holds {x}, expected finite numbers"));
            }
        }
        if self.clock < 0.0 || self.debuts.0 < 0.0 {
            return Err(format!(
                "clock {} and debut count {}, expected numbers ≥ 0",
                self.clock, self.debuts.0
            ));
        }
        match (self.best < k, self.cal_best < self.cal.len(), self.rng != 0) {
            (false, _, _) => Err(format!("filter {} in use, of {k}", self.best)),
            (_, false, _) => Err(format!(
                "calibration {} in use, of {}",
                self.cal_best,
                self.cal.len()
            )),
            (_, _, false) => Err("a sampler state of 0, which xorshift never leaves".into()),
            _ => Ok(()),
        }
    }
}

impl KalmanMmrLearned {
    /// The newcomer prior mean, if any debut was seen.
    #[must_use]
    pub fn prior_mean(&self) -> Option<f64> {
        (self.debuts.0 > 0.0).then(|| self.debuts.1 / self.debuts.0)
    }

    /// The calibrated slope κ and multiple c of `2β²` in use.
    #[must_use]
    pub fn calibration(&self) -> (f64, f64) {
        (self.cal[self.cal_best].0, CAL_U[self.cal_best])
    }

    /// Whether filter `c` trails the filter in use by `z` standard errors of their
    /// score difference and `z²` nats (never the filter in use; none for `z` 0).
    fn benched(&self, c: usize, z: f64) -> bool {
        let (k, lead) = (self.score.len(), self.score[self.best] - self.score[c]);
        z > 0.0 && lead > z * z && lead > z * self.dsq[self.best * k + c].sqrt()
    }

    /// Whether calibration candidate `u` trails the one in use as [`Self::benched`].
    fn cal_benched(&self, u: usize, z: f64) -> bool {
        let (n, best) = (CAL_U.len(), self.cal_best);
        let lead = self.cal[best].2 - self.cal[u].2;
        let sd = || {
            self.cal_dsq
                .get(best * n + u)
                .map_or(f64::INFINITY, |d| d.sqrt())
        };
        z > 0.0 && lead > z * z && lead > z * sd()
    }

    fn next_rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }
}

#[inline]
/// `tanh` of four arguments, from one exponential: `(1 − e)/(1 + e)` with `e = e^(−2|x|)`.
fn tanh_x4(x: f64x4) -> f64x4 {
    let e = (f64x4::splat(-2.0) * x.abs())
        .max(f64x4::splat(-700.0))
        .exp();
    let t = (f64x4::ONE - e) / (f64x4::ONE + e);
    t.copysign(x)
}

/// The CDF of the logistic distribution with unit variance.
fn logistic(z: f64) -> f64 {
    0.5 + 0.5 * (0.5 * TANH_MULT * z).tanh()
}

impl KalmanMmrConfig {
    /// How many filters of each kind (symmetric, robust) the bank holds: one per τ and γ.
    fn per_kind(&self) -> usize {
        self.taus.as_slice().len() * self.gammas.as_slice().len()
    }

    /// How many filters the bank holds.
    fn bank_size(&self) -> usize {
        (usize::from(self.symmetric) + usize::from(self.robust)) * self.per_kind()
    }

    /// Filter `i` of the bank (in the order of [`KalmanMmrConfig::filters`]).
    fn filter(&self, i: usize) -> Filter {
        let (taus, gammas) = (self.taus.as_slice(), self.gammas.as_slice());
        let per = self.per_kind();
        Filter {
            tau: taus[(i % per) / gammas.len()],
            gamma: gammas[i % gammas.len()],
            robust: !self.symmetric || i >= per,
        }
    }

    /// The filter through which a field of `entries` reads its performances: the
    /// filter in use `best`, or in a field of at least `robust_field` entries its robust
    /// twin, when `best` is symmetric and the bank holds both kinds.
    fn reference(&self, best: usize, entries: usize) -> usize {
        let per = self.per_kind();
        let twin = self.symmetric && self.robust && best < per;
        if twin && entries >= self.robust_field as usize {
            best + per
        } else {
            best
        }
    }

    /// The bank: the symmetric filters first (if any), each kind by τ then γ.
    fn filters(&self) -> SmallVec<[Filter; 32]> {
        let mut out = SmallVec::new();
        for robust in [false, true] {
            if (robust && !self.robust) || (!robust && !self.symmetric) {
                continue;
            }
            for &tau in self.taus.as_slice() {
                for &gamma in self.gammas.as_slice() {
                    out.push(Filter { tau, gamma, robust });
                }
            }
        }
        out
    }

    fn fresh_learned(&self) -> KalmanMmrLearned {
        let k = self.bank_size();
        let h0 = self.calibration_weight;
        KalmanMmrLearned {
            clock: 0.0,
            best: 0,
            switches: 0,
            score: Arc::new(vec![0.0; k]),
            dsq: Arc::new(vec![0.0; k * k]),
            slope: Arc::new(vec![(1.0, h0); k]),
            cal: [(1.0, h0, 0.0); 9],
            cal_best: 1,
            cal_dsq: Arc::default(),
            debuts: (0.0, 0.0),
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn newcomer_mean(&self, learned: &KalmanMmrLearned) -> f64 {
        learned.prior_mean().unwrap_or(self.rating)
    }

    /// A filter's belief `(mean, variance)` after `idle` days (or elapsed matches) without
    /// a match: the variance grows by `γ²` per unit and the mean returns towards
    /// `field`, the newcomer prior, by `exp(−reversion·γ²/(2σ²)·idle)`.
    fn idle(&self, (mu, var): (f64, f64), gamma: f64, idle: f64, field: f64) -> (f64, f64) {
        let drift = gamma * gamma * idle;
        if drift == 0.0 || self.reversion == 0.0 {
            return (mu, var + drift);
        }
        let kept = (-self.reversion * drift / (2.0 * self.sigma * self.sigma)).exp();
        (field + (mu - field) * kept, var + drift)
    }

    /// Every filter's prior of one player, `idle` days (or matches) after the beliefs in
    /// `bank`: [`KalmanMmrConfig::idle`] and the filter's τ² added, written to `pri`
    /// (one per filter). The reversion factor depends on γ alone, so it is computed
    /// once per γ.
    fn write_priors(
        &self,
        pri: &mut [(f64, f64)],
        bank: &[(f64, f64)],
        filters: &[Filter],
        idle: f64,
        field: f64,
    ) {
        let gammas = self.gammas.as_slice();
        // Per γ: the variance added and, when the mean reverts, the share it keeps.
        let mut per_gamma = [(0.0, None); 8];
        for (slot, &gamma) in per_gamma.iter_mut().zip(gammas) {
            let drift = gamma * gamma * idle;
            let kept = (drift != 0.0 && self.reversion != 0.0)
                .then(|| (-self.reversion * drift / (2.0 * self.sigma * self.sigma)).exp());
            *slot = (drift, kept);
        }
        // Filter i has the (i mod g)-th γ: the bank is taken g filters at a time.
        let g = gammas.len();
        let per_gamma = &per_gamma[..g];
        let rows = pri.chunks_exact_mut(g).zip(bank.chunks_exact(g));
        for ((out, bank), filters) in rows.zip(filters.chunks_exact(g)) {
            let cells = out.iter_mut().zip(bank).zip(filters).zip(per_gamma);
            for (((out, &(mu, var)), f), &(drift, kept)) in cells {
                let mu = kept.map_or(mu, |kept| field + (mu - field) * kept);
                *out = (mu, var + drift + f.tau * f.tau);
            }
        }
    }

    /// Time since a player's last match: days for dated matches, else matches elapsed.
    fn elapsed(state: &KalmanMmrState, time: Option<f64>, clock: f64) -> f64 {
        match (time, state.dated, state.last) {
            (Some(t), true, Some(last)) => (t - last).max(0.0),
            (None, false, Some(last)) => (clock - last).max(0.0),
            // A history that mixes matches with and without times: no idle time across.
            _ => 0.0,
        }
    }

    /// The pair probability `a` ahead of `b` from means and variances.
    fn pair(&self, learned: Option<&KalmanMmrLearned>, a: (f64, f64), b: (f64, f64)) -> f64 {
        let (kappa, u) = learned.map_or((1.0, 1.0), KalmanMmrLearned::calibration);
        let s = (a.1 + b.1 + u * 2.0 * self.beta * self.beta).sqrt();
        logistic(kappa * (a.0 - b.0) / s)
    }

    /// Scores every filter on the established players of the match, and fits the slopes.
    /// `warm` holds (place, prior index) of each established player in match order;
    /// `pri` each player's prior under every filter.
    fn score_filters(&self, learned: &mut KalmanMmrLearned, warm: &mut Warm, pri: &[(f64, f64)]) {
        if warm.len() < 2 {
            return;
        }
        let sample = self.sample as usize;
        if warm.len() > sample {
            let mut keyed: Vec<(u64, usize)> =
                (0..warm.len()).map(|i| (learned.next_rand(), i)).collect();
            keyed.sort_unstable();
            let mut idx: Vec<usize> = keyed[..sample].iter().map(|x| x.1).collect();
            idx.sort_unstable();
            *warm = idx.into_iter().map(|i| warm[i]).collect();
        }
        let k = learned.score.len();
        let best = learned.best;
        // The filters scored on this match, in bank order (lane i holds filter act[i]):
        // those not benched, and on every BENCH_EVERY-th match all of them.
        // Which filters and candidates are benched, tested once per match.
        let z = self.bench_z;
        let every = (learned.clock as u64) % BENCH_EVERY == 0;
        let benched: SmallVec<[bool; 32]> = (0..k).map(|c| learned.benched(c, z)).collect();
        let cal_benched: [bool; 9] = std::array::from_fn(|u| learned.cal_benched(u, z));
        let act: SmallVec<[usize; 32]> = (0..k).filter(|&c| every || !benched[c]).collect();
        let ka = act.len();
        // Every pair is scored in single precision, four lanes to a vector: the k filters
        // (each with its own priors and slope), then the nine calibration candidates
        // (all on the filter in use, each with its own noise multiple and slope). The
        // selection and the calibration only compare sums of these scores over many
        // matches, which single precision resolves; it takes half the vectors and much
        // cheaper square roots and divisions than double precision. Means are taken
        // relative to the first sampled player's, so that their differences keep their
        // digits. The players' rows are stored as arrays and loaded per use; they, the
        // sums and the slopes live on the stack for a match of up to ten sampled
        // players (a heap allocation per match each cost as much as their arithmetic).
        // A lone filter (the one in use) has nothing to be compared with: only the
        // candidates are scored.
        let fa = if ka >= 2 { ka } else { 0 };
        let fl = fa.div_ceil(4);
        let cact: SmallVec<[usize; 9]> = if self.calibrate {
            (0..CAL_U.len())
                .filter(|&u| every || !cal_benched[u])
                .collect()
        } else {
            SmallVec::new()
        };
        let cl = cact.len().div_ceil(4);
        let lanes = fl + cl;
        if lanes == 0 {
            return;
        }
        let n = warm.len();
        let centre = pri[warm[0].1 * k + best].0;
        // Vector `l` of the values `f(0..len)`, padded with `pad`.
        fn quad(f: impl Fn(usize) -> f64, pad: f64, l: usize, len: usize) -> [f32; 4] {
            let mut x = [pad as f32; 4];
            for (i, x) in x.iter_mut().enumerate().take(len.saturating_sub(4 * l)) {
                *x = f(4 * l + i) as f32;
            }
            x
        }
        // Per sampled player and filter vector: the means, then the variances (the last
        // vector padded with mean 0 and variance 1, whose sums are never read).
        let mut rows: SmallVec<[[[f32; 4]; 2]; 64]> = SmallVec::with_capacity(n * fl);
        let mut in_use: SmallVec<[(f64, f64); 16]> = SmallVec::with_capacity(n);
        for &(_, j) in warm.iter() {
            let row = &pri[j * k..(j + 1) * k];
            for l in 0..fl {
                rows.push([
                    quad(|i| row[act[i]].0 - centre, 0.0, l, fa),
                    quad(|i| row[act[i]].1, 1.0, l, fa),
                ]);
            }
            in_use.push(row[best]);
        }
        // Every lane's slope, and the calibration candidates' noise multiples.
        let slopes: SmallVec<[f32x4; 16]> = (0..lanes)
            .map(|l| {
                f32x4::from(if l < fl {
                    quad(|i| learned.slope[act[i]].0, 1.0, l, fa)
                } else {
                    quad(|i| learned.cal[cact[i]].0, 1.0, l - fl, cact.len())
                })
            })
            .collect();
        let cal_u: [f32x4; 3] =
            std::array::from_fn(|l| f32x4::from(quad(|i| CAL_U[cact[i]], 1.0, l, cact.len())));
        // Per lane: the sums of the log-likelihood, its gradient and its curvature in
        // the slope. The log-likelihood ln q = −ln(1 + e^(−y)) is summed as the product
        // of the (1 + e^(−y)), whose logarithm is taken every second pair: 1 + e^(−y) is
        // kept below 1e15 (q above 1e-15), so no product of two overflows.
        let zero = f32x4::ZERO;
        let one = f32x4::ONE;
        let mut acc: SmallVec<[[f32x4; 4]; 16]> = SmallVec::new();
        acc.resize(lanes, [zero, zero, zero, one]);
        let mut pending = false;
        let b2x2 = 2.0 * self.beta * self.beta;
        let noise = f32x4::splat(b2x2 as f32);
        let t = f32x4::splat(TANH_MULT as f32);
        let lo = f32x4::splat(1e-15);
        let p_hi = f32x4::splat(1e15);
        let bound = f32x4::splat(80.0);
        // One lane vector's terms of a pair: the standardized difference `d` over the
        // spread `s² = v + u·2β²`, its slope and its sums.
        let score = |acc: &mut [f32x4; 4], dm: f32x4, s2: f32x4, kappa: f32x4| {
            let slope = t * (dm / s2.sqrt());
            let p = one + (-(kappa * slope)).fast_max(-bound).fast_min(bound).exp();
            let q = (one / p).fast_max(lo);
            let [_, g, h, prod] = acc;
            *g += (one - q) * slope;
            *h += q * (one - q) * slope * slope;
            *prod *= p.fast_min(p_hi);
        };
        let fold_all = |acc: &mut [[f32x4; 4]]| {
            for [sum, _, _, prod] in acc {
                *sum -= prod.ln();
                *prod = one;
            }
        };
        for a in 0..n {
            let row_a = &rows[a * fl..(a + 1) * fl];
            let (ma, va) = in_use[a];
            for b in a + 1..n {
                if warm[a].0 == warm[b].0 {
                    continue;
                }
                // a finished ahead of b
                let row_b = &rows[b * fl..(b + 1) * fl];
                for (((ra, rb), s), acc) in row_a.iter().zip(row_b).zip(&slopes).zip(&mut acc) {
                    let dm = f32x4::from(ra[0]) - f32x4::from(rb[0]);
                    let s2 = f32x4::from(ra[1]) + f32x4::from(rb[1]) + noise;
                    score(acc, dm, s2, *s);
                }
                let (mb, vb) = in_use[b];
                let (dm, vs) = (
                    f32x4::splat((ma - mb) as f32),
                    f32x4::splat((va + vb) as f32),
                );
                for l in 0..cl {
                    score(&mut acc[fl + l], dm, vs + cal_u[l] * noise, slopes[fl + l]);
                }
                if pending {
                    fold_all(&mut acc);
                }
                pending = !pending;
            }
        }
        fold_all(&mut acc);
        // The lanes' sums in order, per kind: the log-likelihood, its gradient, its
        // curvature; the filters' first, then the calibration candidates'.
        let mut sums: [SmallVec<[f64; 64]>; 3] = Default::default();
        for x in &acc {
            for (sum, v) in sums.iter_mut().zip(&x[..3]) {
                sum.extend(v.to_array().map(f64::from));
            }
        }
        let (sm, gc, hc) = (&sums[0][..fa], &sums[1][..fa], &sums[2][..fa]);
        let cand = 4 * fl..4 * fl + cact.len();
        let (cl, cg, ch) = (
            &sums[0][cand.clone()],
            &sums[1][cand.clone()],
            &sums[2][cand],
        );
        // Each filter's score of this match: its own when scored and not benched; a
        // benched filter's lead over the filter in use counted BENCH_EVERY times when
        // scored, and none when not; the score totals stay comparable, and their
        // squared differences estimate the variance of the differences.
        let weight = |benched: bool| if benched { BENCH_EVERY as f64 } else { 1.0 };
        if fa > 0 {
            let on_bench: SmallVec<[bool; 32]> = act.iter().map(|&c| benched[c]).collect();
            let mine = act.iter().position(|&c| c == best).map(|i| sm[i]);
            let mine = mine.unwrap_or_else(|| unreachable!("the filter in use is scored"));
            let mut inc: SmallVec<[f64; 32]> = SmallVec::from_elem(mine, k);
            for (i, &c) in act.iter().enumerate() {
                inc[c] = if on_bench[i] {
                    mine + weight(true) * (sm[i] - mine)
                } else {
                    sm[i]
                };
            }
            let score = Arc::make_mut(&mut learned.score);
            let dsq = Arc::make_mut(&mut learned.dsq);
            for c in 0..k {
                score[c] += inc[c];
                // Row c of the squared differences, by slices so that it runs as vectors.
                for (dsq, &d) in dsq[c * k..(c + 1) * k].iter_mut().zip(&inc) {
                    let x = inc[c] - d;
                    *dsq += x * x;
                }
            }
            let slope = Arc::make_mut(&mut learned.slope);
            for (i, &c) in act.iter().enumerate() {
                if hc[i] > 0.0 {
                    let (w, s) = (weight(on_bench[i]), &mut slope[c]);
                    s.1 += w * hc[i];
                    s.0 = (s.0 + w * gc[i] / s.1).clamp(0.2, 5.0);
                }
            }
        }
        if cact.is_empty() {
            return;
        }
        // The candidates likewise.
        let n = CAL_U.len();
        let on_bench: SmallVec<[bool; 9]> = cact.iter().map(|&u| cal_benched[u]).collect();
        let mine = cact
            .iter()
            .position(|&u| u == learned.cal_best)
            .map(|i| cl[i]);
        let mine = mine.unwrap_or_else(|| unreachable!("the candidate in use is scored"));
        let mut inc = [mine; 9];
        for (i, &u) in cact.iter().enumerate() {
            inc[u] = if on_bench[i] {
                mine + weight(true) * (cl[i] - mine)
            } else {
                cl[i]
            };
            let (w, c) = (weight(on_bench[i]), &mut learned.cal[u]);
            if ch[i] > 0.0 {
                c.1 += w * ch[i];
                c.0 = (c.0 + w * cg[i] / c.1).clamp(0.05, 20.0);
            }
        }
        if learned.cal_dsq.is_empty() {
            learned.cal_dsq = Arc::new(vec![0.0; n * n]);
        }
        // A lone candidate scored leaves every difference as it was.
        let cal_dsq = (cact.len() > 1).then(|| Arc::make_mut(&mut learned.cal_dsq));
        for (c, &x) in learned.cal.iter_mut().zip(&inc) {
            c.2 += x;
        }
        if let Some(cal_dsq) = cal_dsq {
            for u in 0..n {
                for (d, &v) in cal_dsq[u * n..(u + 1) * n].iter_mut().zip(&inc) {
                    let x = inc[u] - v;
                    *d += x * x;
                }
            }
        }
        learned.cal_best = (0..n)
            .max_by(|&a, &b| learned.cal[a].2.total_cmp(&learned.cal[b].2))
            .unwrap_or(1);
    }

    fn learned_of<'a>(&self, learned: Option<&'a State>) -> Option<&'a KalmanMmrLearned> {
        learned
            .and_then(|l| l.get::<KalmanMmrLearned>())
            .filter(|l| l.score.len() == self.bank_size())
    }
}

/// Each tie group's performance: the root of Elo-MMR's equation
/// `Σ_{j worse} w_j − Σ_{j better} w_j − Σ_j w_j tanh((x − μ_j) a_j) − Σ_{j tied} w_j tanh(..)`
/// with `w_j = (π/√3)/s_j`, `a_j = w_j/2` (the tie group includes the entry itself).
/// `terms` are (μ, s, group) in finishing order.
///
/// Each root starts from the root of the same equation in a field of equal entries,
/// `μ̄ + atanh(c/(W + W_g))/ā` (`c` the group's constant, `W` the total weight, `W_g`
/// the group's; `μ̄` and `ā` the entries' means weighted as in the slope), which is exact
/// for a field of newcomers and within a fraction of `s` otherwise; it is bracketed by
/// the same root with every entry at the lowest (the highest) μ and the smallest `a`, or
/// that μ itself.
fn performances(terms: &[(f64, f64, usize)], groups: usize) -> SmallVec<[f64; 16]> {
    let n = terms.len();
    // The entries four to a vector (the last padded with weight 0, which adds nothing):
    // μ, a and w.
    // Filled by `resize`, which writes in place: `smallvec![x; n]` builds the whole
    // inline buffer and copies it.
    let mut chunks: SmallVec<[[[f64; 4]; 3]; 4]> = SmallVec::new();
    chunks.resize(n.div_ceil(4), [[0.0; 4]; 3]);
    let mut per: SmallVec<[TieGroup; 16]> = SmallVec::new();
    per.resize(groups, TieGroup::default());
    let (mut mu_min, mut mu_max) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut s_min, mut s_max) = (f64::INFINITY, 0.0f64);
    let (mut wa_all, mut wam_all) = (0.0, 0.0);
    for (i, &(mu, s, g)) in terms.iter().enumerate() {
        let (w, a) = (TANH_MULT / s, 0.5 * TANH_MULT / s);
        let chunk = &mut chunks[i / 4];
        (chunk[0][i % 4], chunk[1][i % 4], chunk[2][i % 4]) = (mu, a, w);
        let p = &mut per[g];
        if p.w == 0.0 {
            p.start = i;
        }
        p.w += w;
        p.wa += w * a;
        p.wam += w * a * mu;
        p.end = i + 1;
        (wa_all, wam_all) = (wa_all + w * a, wam_all + w * a * mu);
        (mu_min, mu_max) = (mu_min.min(mu), mu_max.max(mu));
        (s_min, s_max) = (s_min.min(s), s_max.max(s));
    }
    let total: f64 = per.iter().map(|p| p.w).sum();
    let exact = |x: f64| -> (f64, f64) {
        let (mut v, mut d) = (f64x4::ZERO, f64x4::ZERO);
        let xv = f64x4::splat(x);
        for &[mu, ac, wc] in &chunks {
            let (mu, ac, wc) = (f64x4::from(mu), f64x4::from(ac), f64x4::from(wc));
            let th = tanh_x4((xv - mu) * ac);
            v += wc * th;
            d += wc * ac * (f64x4::ONE - th * th);
        }
        (v.reduce_add(), d.reduce_add())
    };
    let use_grid = n > GRID_FROM;
    let (lo, h, tab) = if use_grid {
        let lo = mu_min - 12.0 * s_max;
        let hi = mu_max + 12.0 * s_max;
        let h = 0.25 * s_min;
        let k = ((hi - lo) / h).ceil() as usize + 1;
        (lo, h, (0..k).map(|j| exact(lo + j as f64 * h)).collect())
    } else {
        (0.0, 1.0, Vec::new())
    };
    let common = |x: f64| -> (f64, f64) {
        if use_grid {
            let u = (x - lo) / h;
            if u >= 0.0 && u < (tab.len() - 1) as f64 {
                let j = u as usize;
                let t = u - j as f64;
                let ((y0, d0), (y1, d1)) = (tab[j], tab[j + 1]);
                let (m0, m1) = (d0 * h, d1 * h);
                let (t2, t3) = (t * t, t * t * t);
                let v = (2.0 * t3 - 3.0 * t2 + 1.0) * y0
                    + (t3 - 2.0 * t2 + t) * m0
                    + (-2.0 * t3 + 3.0 * t2) * y1
                    + (t3 - t2) * m1;
                let dv = ((6.0 * t2 - 6.0 * t) * y0
                    + (3.0 * t2 - 4.0 * t + 1.0) * m0
                    + (-6.0 * t2 + 6.0 * t) * y1
                    + (3.0 * t2 - 2.0 * t) * m1)
                    / h;
                return (v, dv);
            }
        }
        exact(x)
    };
    // Every root lies within 12 s_max of the means, where every tanh has saturated: on
    // the grid, its span; else Elo-MMR's interval [−6000, 9000], widened if needed.
    let wide = if use_grid {
        (lo, lo + h * (tab.len() - 1) as f64)
    } else {
        (
            (mu_min - 12.0 * s_max).min(-6000.0),
            (mu_max + 12.0 * s_max).max(9000.0),
        )
    };
    // A step shorter than this leaves an error below rounding: of order a²·δ³ after a
    // step δ of Halley's, a·δ² after one of Newton's (the grid gives no curvature).
    let tol = if use_grid { 1e-9 } else { 1e-6 } * s_min;
    let a_min = 0.5 * TANH_MULT / s_max;
    // Each group's constant (the weight of the groups below it less that of those
    // above), its starting guess and bracket.
    let mut better = 0.0;
    let mut roots: SmallVec<[Root; 16]> = per
        .iter()
        .map(|p| {
            let c = (total - better - p.w) - better;
            better += p.w;
            // |c| < W + W_g: the shift is finite.
            let shift = (c / (total + p.w)).atanh();
            let (wa, wam) = (wa_all + p.wa, wam_all + p.wam);
            let guess = wam / wa + shift * (total + p.w) / wa;
            let (lo, hi) = if use_grid {
                wide
            } else {
                let (lo, hi) = (mu_min + shift / a_min, mu_max + shift / a_min);
                let bracket = (lo.min(mu_min) - tol, hi.max(mu_max) + tol);
                if bracket.0.is_finite() && bracket.1.is_finite() {
                    bracket
                } else {
                    wide
                }
            };
            let x = if guess.is_finite() {
                guess.clamp(lo, hi)
            } else {
                0.5 * (lo + hi)
            };
            Root { lo, hi, x, c }
        })
        .collect();
    if use_grid {
        solve_all(&mut roots, tol, |g, x| {
            let (tv, td) = common(x);
            let (mut ev, mut ed) = (0.0, 0.0);
            for i in per[g].start..per[g].end {
                let [mu, ac, wc] = chunks[i / 4];
                let (mu, a, w) = (mu[i % 4], ac[i % 4], wc[i % 4]);
                let th = ((x - mu) * a).tanh();
                ev += w * th;
                ed += w * a * (1.0 - th * th);
            }
            (tv + ev, td + ed, None)
        });
    } else {
        // Each group's own terms read off the same vectors as the common sum: the
        // lanes of its members count twice.
        solve_all(&mut roots, tol, |g, x| {
            let (first, end) = (per[g].start as f64, per[g].end as f64);
            let (first, end) = (f64x4::splat(first), f64x4::splat(end));
            let (mut v, mut d, mut d2) = (f64x4::ZERO, f64x4::ZERO, f64x4::ZERO);
            let xv = f64x4::splat(x);
            let mut lane = f64x4::from([0.0, 1.0, 2.0, 3.0]);
            for &[mu, ac, wc] in &chunks {
                let (mu, ac, wc) = (f64x4::from(mu), f64x4::from(ac), f64x4::from(wc));
                let own = lane.cmp_ge(first) & lane.cmp_lt(end);
                let wc = wc + own.blend(wc, f64x4::ZERO);
                let th = tanh_x4((xv - mu) * ac);
                let slope = wc * ac * (f64x4::ONE - th * th);
                v += wc * th;
                d += slope;
                d2 += slope * ac * th;
                lane += f64x4::splat(4.0);
            }
            (v.reduce_add(), d.reduce_add(), Some(-2.0 * d2.reduce_add()))
        });
    }
    roots.iter().map(|r| r.x).collect()
}

/// A tie group as its performance is solved: its members' `Σw`, `Σw·a` and `Σw·a·μ`,
/// and where they start and end in finishing order.
#[derive(Debug, Clone, Copy, Default)]
struct TieGroup {
    w: f64,
    wa: f64,
    wam: f64,
    start: usize,
    end: usize,
}

/// One root of [`solve_all`]: its bracket, its current guess and its function's
/// constant.
#[derive(Debug, Clone, Copy)]
struct Root {
    lo: f64,
    hi: f64,
    x: f64,
    c: f64,
}

/// Roots of `c_i − T_i(x)` for increasing functions `T_i` given as `t(i, x)` = (value,
/// derivative, second derivative if known), each from its guess within its bracket:
/// Halley's iteration (E. Halley, *A new, exact, and easy method of finding the roots
/// of any equations generally*, Phil. Trans. 1694), Newton's without a second
/// derivative or where Halley's correction would more than double the step, and a
/// bisection of the bracket, which every value narrows, when a step would leave it. A
/// root is done when its value is 0, its step no longer moves it, or it took a step
/// shorter than `tol` inside its bracket. The iterations of the roots are independent
/// and run side by side, one step of each in turn, so that their evaluations overlap in
/// the processor.
fn solve_all(roots: &mut [Root], tol: f64, t: impl Fn(usize, f64) -> (f64, f64, Option<f64>)) {
    let mut running: SmallVec<[usize; 16]> = (0..roots.len()).collect();
    while !running.is_empty() {
        running.retain(|i| {
            let r = &mut roots[*i];
            let (tv, td, td2) = t(*i, r.x);
            let f = r.c - tv;
            if f == 0.0 {
                return false;
            }
            if f > 0.0 {
                r.lo = r.x;
            } else {
                r.hi = r.x;
            }
            // f' = −T', f'' = −T''.
            let newton = -f / td;
            let step = match td2 {
                Some(td2) => {
                    let den = 1.0 + 0.5 * f * td2 / (td * td);
                    if den > 0.5 {
                        newton / den
                    } else {
                        newton
                    }
                }
                None => newton,
            };
            let next = r.x - step;
            if next == r.x {
                // The step no longer moves it: converged.
                return false;
            }
            // Strictly inside: a step onto the other bound would not narrow the
            // bracket, and two such steps can swap the bounds for ever.
            let inside = next > r.lo && next < r.hi;
            let next = if inside { next } else { 0.5 * (r.lo + r.hi) };
            let done = next == r.x || (inside && step.abs() < tol);
            r.x = next;
            !done
        });
    }
}

/// Seconds per day: match times are seconds, the filters' idle time is in days.
const DAY: f64 = 86_400.0;

/// One player of a match as the update sees them.
struct Player<'a> {
    state: Option<&'a KalmanMmrState>,
    weight: f64,
    entry: usize,
}

impl RatingSystem for KalmanMmrConfig {
    fn describe(&self) -> crate::system::Description {
        crate::system::Description {
            name: "kalman-mmr",
            params: Configure::params(self),
            capabilities: crate::system::Capabilities {
                uses_scores: self.margins > 0.0,
                has_uncertainty: true,
                keeps_state: true,
                rates_factors: true,
                expects_performances: true,
            },
        }
    }

    fn name(&self) -> &'static str {
        "kalman-mmr"
    }

    fn initial_rating(&self) -> Rating {
        Rating::with_sigma(self.rating, self.sigma)
    }

    fn rate_into(
        &self,
        prior: &crate::system::Prior<'_>,
        out: &mut crate::system::Posterior,
    ) -> Result<(), RateError> {
        if !prior.factors.is_empty() {
            crate::factor::check_factors(prior.game, prior.factors)?;
        }
        let states = prior.all_states()?;
        self.rate_all(
            prior.game,
            prior.ratings,
            &states,
            prior.learned,
            prior.factors,
            out,
        )
    }

    fn win_probability(&self, a: &Rating, b: &Rating, learned: Option<&State>) -> f64 {
        let var = |r: &Rating| r.sigma.map_or(self.sigma * self.sigma, |s| s * s);
        self.pair(
            self.learned_of(learned),
            (a.value, var(a)),
            (b.value, var(b)),
        )
    }

    fn pair_log_loss(&self, better: &[Rating], worse: &Rating, learned: Option<&State>) -> f64 {
        // The calibration read once per row; −ln L(x) = ln(1 + e^(−t·x)) (t the
        // logistic's unit-variance scale), computed stably, for each pair.
        let (kappa, u) = self
            .learned_of(learned)
            .map_or((1.0, 1.0), KalmanMmrLearned::calibration);
        let var = |r: &Rating| r.sigma.map_or(self.sigma * self.sigma, |s| s * s);
        let base = var(worse) + u * 2.0 * self.beta * self.beta;
        let scale = TANH_MULT * kappa;
        let y = |b: &Rating| -scale * (b.value - worse.value) / (var(b) + base).sqrt();
        crate::system::logistic_losses(
            better.len(),
            |i| {
                let c = &better[i..i + 4];
                let mu = f64x4::from([c[0].value, c[1].value, c[2].value, c[3].value]);
                let v = f64x4::from([var(&c[0]), var(&c[1]), var(&c[2]), var(&c[3])]);
                -(f64x4::splat(scale) * (mu - f64x4::splat(worse.value))
                    / (v + f64x4::splat(base)).sqrt())
            },
            |i| y(&better[i]),
        )
    }

    fn initial_factor(&self) -> Rating {
        Rating::with_sigma(0.0, self.factor_sigma)
    }

    fn check_rating(&self, rating: &Rating) -> Result<(), RateError> {
        check_bayesian("kalman-mmr", rating)
    }

    fn initial_state(&self, rating: &Rating) -> Result<Option<State>, RateError> {
        self.check_rating(rating)?;
        let s = rating.sigma.unwrap_or(self.sigma);
        Ok(Some(State::new(KalmanMmrState {
            games: rating.games,
            last: None,
            dated: false,
            bank: smallvec::smallvec![(rating.value, s * s); self.bank_size()],
        })))
    }

    fn initial_learned(&self) -> Option<State> {
        Some(State::new(self.fresh_learned()))
    }

    fn describe_learned(&self, learned: &State) -> Vec<Described> {
        let Some(l) = self.learned_of(Some(learned)) else {
            return Vec::new();
        };
        let f = self.filter(l.best);
        let (kappa, c) = l.calibration();
        let v = |name, value, doc| Described { name, value, doc };
        vec![
            v("tau", f.tau, "σ the filter in use adds per match (one of taus)"),
            v(
                "gamma",
                f.gamma,
                "σ the filter in use adds per idle day, or per elapsed match without times (one of gammas)",
            ),
            v(
                "robust",
                if f.robust { 1.0 } else { 0.0 },
                "1 if the filter in use is robust (a bad result clipped, a big improvement believed), 0 if plain",
            ),
            v("switches", f64::from(l.switches), "times the filter in use changed"),
            v(
                "filters",
                (0..l.score.len())
                    .filter(|&c| !l.benched(c, self.bench_z))
                    .count() as f64,
                "filters of the bank scored on every match (the others, far behind, on every 16th)",
            ),
            v("kappa", kappa, "slope by which win chances are calibrated"),
            v(
                "c",
                c,
                "multiple of 2β² added to a pair's variance in its win chance",
            ),
            v(
                "prior_mean",
                self.newcomer_mean(l),
                "a newcomer's rating before their first match, from the debuts so far",
            ),
        ]
    }

    fn age(
        &self,
        rating: Rating,
        state: Option<&State>,
        learned: Option<&State>,
        days: f64,
    ) -> Rating {
        let l = self.learned_of(learned);
        let Some(s) = state.and_then(|s| s.get::<KalmanMmrState>()) else {
            // A player with no history here: the newcomer prior learned so far.
            return match l {
                Some(l) => Rating {
                    value: self.newcomer_mean(l),
                    sigma: Some(self.sigma),
                    games: rating.games,
                },
                None => rating,
            };
        };
        // A player is read just before each match they play, whose rating then reads every
        // filter of the bank: start loading the bank's other cache lines now, beside the
        // one of the filter in use, rather than wait for each in turn later.
        let lines = (0..s.bank.len())
            .step_by(4)
            .chain(s.bank.len().checked_sub(1));
        for i in lines {
            prefetch_index::prefetch_index(&s.bank, i);
        }
        let best = l.map_or(0, |l| l.best);
        let Some(&(mu, var)) = s.bank.get(best) else {
            return rating;
        };
        let idle = if s.dated {
            if days.is_finite() {
                days.max(0.0)
            } else {
                0.0
            }
        } else {
            l.map_or(0.0, |l| Self::elapsed(s, None, l.clock))
        };
        let field = l.map_or(self.rating, |l| self.newcomer_mean(l));
        let (mu, var) = self.idle((mu, var), self.filter(best).gamma, idle, field);
        Rating {
            value: mu,
            sigma: Some(var.sqrt()),
            games: rating.games,
        }
    }
}

impl KalmanMmrConfig {
    /// [`RatingSystem::rate`]: the three stages, with each entry's factors
    /// added to its mean skill (and their variances to its variance), into `out` (its
    /// vectors reused). The working vectors of a match of up to 16 players and 256
    /// (player, filter) pairs live on the stack.
    #[allow(clippy::too_many_lines)]
    fn rate_all(
        &self,
        game: &Match,
        before: &[Rating],
        states: &[Option<&State>],
        learned: Option<&State>,
        factors: &[Rating],
        out: &mut crate::system::Posterior,
    ) -> Result<(), RateError> {
        out.clear();
        check_ratings(game, before)?;
        crate::system::check_states(before, states)?;
        for r in before {
            self.check_rating(r)?;
        }
        let filters = self.filters();
        let k = filters.len();
        let mut l = self
            .learned_of(learned)
            .cloned()
            .unwrap_or_else(|| self.fresh_learned());
        l.clock += 1.0;
        let time = game.time().map(|t| t as f64 / DAY);
        let mut players: SmallVec<[Player; 16]> = SmallVec::with_capacity(before.len());
        for (e, entry) in game.entries().iter().enumerate() {
            for (m, st) in entry.members.iter().zip(&states[game.member_range(e)]) {
                let state = st
                    .and_then(|s| s.get::<KalmanMmrState>())
                    .filter(|s| s.bank.len() == k);
                players.push(Player {
                    state,
                    weight: m.weight,
                    entry: e,
                });
            }
        }
        if game.winners() == game.len() {
            // Everyone tied: nothing to learn of anyone; only the clock moves.
            out.changes.extend(
                before
                    .iter()
                    .zip(&players)
                    .map(|(b, p)| PlayerChange::unchanged(*b, p.weight)),
            );
            out.learned = Some(State::new(l));
            out.factors
                .extend(factors.iter().map(|f| PlayerChange::unchanged(*f, 1.0)));
            return Ok(());
        }
        // Each factor's prior (its drift per match added) and each entry's factors summed.
        let fpri: Vec<(f64, f64)> = factors
            .iter()
            .map(|f| {
                let s = f.sigma.unwrap_or(self.factor_sigma);
                (f.value, s * s + self.factor_tau * self.factor_tau)
            })
            .collect();
        let mut off: SmallVec<[(f64, f64); 16]> = SmallVec::new();
        off.resize(game.len(), (0.0, 0.0));
        for (m, &(mu, v)) in game.factors().iter().zip(&fpri) {
            for &e in &m.entries {
                off[e].0 += mu;
                off[e].1 += v;
            }
        }
        // Every player's prior under every filter (read through a slice from here on:
        // a SmallVec's every access asks where its elements are).
        let mut pri_buf: SmallVec<[(f64, f64); 256]> = SmallVec::new();
        pri_buf.resize(players.len() * k, (0.0, 0.0));
        let mut warm = Warm::new();
        let field = self.newcomer_mean(&l);
        for ((j, (p, r)), row) in players
            .iter()
            .zip(before)
            .enumerate()
            .zip(pri_buf.chunks_exact_mut(k))
        {
            match p.state {
                Some(s) => {
                    let idle = Self::elapsed(s, time, l.clock);
                    self.write_priors(row, &s.bank, &filters, idle, field);
                    warm.push((game.place(p.entry), j));
                }
                None => {
                    let s = r.sigma.unwrap_or(self.sigma);
                    row.fill((r.value, s * s));
                }
            }
        }
        let pri: &[(f64, f64)] = &pri_buf;
        if factors.is_empty() {
            self.score_filters(&mut l, &mut warm, pri);
        } else {
            // The selection scores strengths: each player's prior with its entry's factors.
            let mut shifted = pri_buf.clone();
            for (j, p) in players.iter().enumerate() {
                let (fm, fv) = off[p.entry];
                for x in &mut shifted[j * k..(j + 1) * k] {
                    x.0 += fm;
                    x.1 += fv;
                }
            }
            self.score_filters(&mut l, &mut warm, &shifted);
        }
        let reference = self.reference(l.best, game.len());
        let b2 = self.beta * self.beta;
        // Each entry's term under the reference filter: its members' weighted mean skill.
        let n_entries = game.len();
        let mut terms: SmallVec<[(f64, f64, usize); 16]> = SmallVec::with_capacity(n_entries);
        let mut group = 0;
        for (e, &(fm, fv)) in off.iter().enumerate() {
            let range = game.member_range(e);
            let wsum: f64 = players[range.clone()].iter().map(|p| p.weight).sum();
            let (mut tm, mut tv, mut tw2) = (0.0, 0.0, 0.0);
            for j in range {
                let (mu, v) = pri[j * k + reference];
                let a = players[j].weight / wsum;
                tm += a * mu;
                tv += a * a * v;
                tw2 += a * a;
            }
            if e > 0 && game.tie_group(e).start == e {
                group += 1;
            }
            terms.push((tm + fm, (tv + fv + b2 * tw2).sqrt(), group));
        }
        let by_group = performances(&terms, group + 1);
        let mut perfs: SmallVec<[f64; 16]> = terms.iter().map(|t| by_group[t.2]).collect();
        let scores: Option<SmallVec<[f64; 16]>> = game
            .entries()
            .iter()
            .map(|e| match e.finish {
                Finish::Score(v) => Some(v),
                Finish::Rank(_) => None,
            })
            .collect();
        let mut respaced = false;
        if let Some(mut sc) = scores.filter(|_| self.margins > 0.0 && n_entries >= 3) {
            // The line is fitted to the scores over the power of two nearest below their
            // largest size: exact, so the same line as on the scores themselves, but
            // with no square or sum out of the floating-point range however large or
            // small the scores are.
            let largest = sc.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
            // The unit's exponent is kept to the normal numbers' (2^−1022 and up), so
            // that the unit is never 0, even for scores among the subnormal numbers.
            let unit = 2f64.powi((largest.log2().floor() as i32).max(f64::MIN_EXP - 2));
            if largest > 0.0 && unit.is_finite() {
                for s in &mut sc {
                    *s /= unit;
                }
            }
            let nn = n_entries as f64;
            let ms = sc.iter().sum::<f64>() / nn;
            let mx = perfs.iter().sum::<f64>() / nn;
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (s, x) in sc.iter().zip(&perfs) {
                sxy += (s - ms) * (x - mx);
                sxx += (s - ms) * (s - ms);
            }
            if sxx > 0.0 && sxy > 0.0 {
                let slope = sxy / sxx;
                let w = self.margins;
                for (x, s) in perfs.iter_mut().zip(&sc) {
                    *x = w * (mx + slope * (s - ms)) + (1.0 - w) * *x;
                }
                respaced = true;
            }
        }
        let field = if respaced {
            0.0
        } else {
            self.field_noise / (n_entries as f64 - 1.0).max(1.0)
        };
        let mut noise = b2 * (1.0 + field);
        if self.noise_prior > 0.0 {
            // The match's own noise level, from the residuals of established players.
            let (mut sz, mut cz) = (0.0, 0.0);
            for (j, p) in players.iter().enumerate() {
                if p.state.is_some_and(|s| s.games >= 3) {
                    let (mu, v) = pri[j * k + reference];
                    let (fm, fv) = off[p.entry];
                    let z = (perfs[p.entry] - fm - mu) / (v + fv + noise).sqrt();
                    sz += z.clamp(-3.0, 3.0).powi(2);
                    cz += 1.0;
                }
            }
            noise *= ((self.noise_prior + sz) / (self.noise_prior + cz)).clamp(0.5, 3.0);
        }
        // Each entry's (mean, variance of the weighted mean skill, Σa², Σw) per filter.
        let mut team_buf: SmallVec<[(f64, f64, f64, f64); 256]> = SmallVec::new();
        team_buf.resize(n_entries * k, (0.0, 0.0, 0.0, 0.0));
        for (j, p) in players.iter().enumerate() {
            let range = game.member_range(p.entry);
            let wsum: f64 = players[range].iter().map(|p| p.weight).sum();
            let a = p.weight / wsum;
            let row = &pri[j * k..(j + 1) * k];
            for (t, &(mu, v)) in team_buf[p.entry * k..(p.entry + 1) * k].iter_mut().zip(row) {
                t.0 += a * mu;
                t.1 += a * a * v;
                t.2 += a * a;
                t.3 = wsum;
            }
        }
        if !factors.is_empty() {
            for (e, &(fm, fv)) in off.iter().enumerate() {
                for t in &mut team_buf[e * k..(e + 1) * k] {
                    t.0 += fm;
                    t.1 += fv;
                }
            }
        }
        let team: &[(f64, f64, f64, f64)] = &team_buf;
        // The filter in use moves only when another leads it significantly (the
        // scores include this match's; no filter's update below depends on it).
        let g = l.best;
        let f = (0..k)
            .max_by(|&a, &b| l.score[a].total_cmp(&l.score[b]))
            .unwrap_or(g);
        let lead = l.score[f] - l.score[g];
        if f != g
            && lead > self.switch_z * l.dsq[f * k + g].sqrt()
            && lead > (self.switch_odds * (k - 1) as f64).ln()
        {
            l.best = f;
            l.switches += 1;
        }
        let best = l.best;
        let last = Some(time.unwrap_or(l.clock));
        // Each player's update under every filter, reported under the filter in use.
        out.changes.reserve(players.len());
        out.states.reserve(players.len());
        for ((j, p), b) in players.iter().enumerate().zip(before) {
            let x = perfs[p.entry];
            let newcomer = p.state.is_none();
            if newcomer {
                l.debuts.0 = l.debuts.0 * self.prior_forgetting + 1.0;
                l.debuts.1 = l.debuts.1 * self.prior_forgetting + x - off[p.entry].0;
            }
            let size = game.member_range(p.entry).len();
            let entry_team = &team[p.entry * k..(p.entry + 1) * k];
            // The entry's weights are the same under every filter.
            let (_, _, tw2, wsum) = entry_team[0];
            let a = p.weight / wsum;
            // The entry's performance observes the weighted mean skill.
            let r = if size == 1 {
                noise / p.weight
            } else {
                noise * tw2
            };
            // The next state, written where a state the league no longer holds lies
            // (still in the cache: it was read for the last match) or else into a new
            // one; every field is written.
            let games = p.state.map_or(0, |s| s.games).saturating_add(1);
            let mut in_use = (0.0, 0.0);
            let fill = |next: &mut KalmanMmrState| {
                next.games = games;
                next.last = last;
                next.dated = time.is_some();
                let bank = &mut next.bank;
                bank.clear();
                for ((f, &(mu, v0)), &(tm, tv, _, _)) in
                    filters.iter().zip(&pri[j * k..(j + 1) * k]).zip(entry_team)
                {
                    if !f.robust {
                        // The plain update: the mean moves by the gain times the innovation.
                        let sden = tv + r;
                        let gain = a * v0 / sden;
                        bank.push((mu + gain * (x - tm), (v0 - gain * gain * sden).max(1e-6)));
                        continue;
                    }
                    let mut v = v0;
                    let mut sden = tv + r;
                    let mut z = (x - tm) / sden.sqrt();
                    if f.robust && !newcomer && z > self.jump_above && self.jump > 0.0 {
                        let j2 = self.jump * self.jump;
                        v += j2;
                        sden += a * a * j2;
                        z = (x - tm) / sden.sqrt();
                    }
                    let zc = if f.robust { z.max(-self.clip) } else { z };
                    let gain = a * v / sden;
                    bank.push((
                        mu + gain * zc * sden.sqrt(),
                        (v - gain * gain * sden).max(1e-6),
                    ));
                }
                in_use = bank[best];
            };
            let next = State::recycled(
                &mut out.spare,
                || KalmanMmrState {
                    games: 0,
                    last: None,
                    dated: false,
                    bank: Bank::new(),
                },
                fill,
            );
            let (mu, var) = in_use;
            out.changes.push(PlayerChange {
                before: *b,
                after: Rating {
                    value: mu,
                    sigma: Some(var.sqrt()),
                    games: b.games.saturating_add(1),
                },
                expected: team[p.entry * k + best].0,
                actual: perfs[p.entry],
                k: None,
                weight: p.weight,
            });
            out.states.push(Some(next));
        }
        // Each factor: the Kalman update of its own belief from every entry that carries
        // it (the entry's performance observes its players' mean skill plus its factors),
        // the entries' evidence pooled.
        let robust_in_use = filters[best].robust;
        let factor_changes = game
            .factors()
            .iter()
            .zip(factors)
            .zip(&fpri)
            .map(|((m, f), &(mu, v))| {
                // Every entry that carries the factor observes it with the noise of the
                // rest of its strength (its players, its other factors, the
                // performance): the batch Kalman update of one quantity from several
                // observations, precisions added.
                let (mut precision, mut info, mut expected, mut actual) = (1.0 / v, 0.0, 0.0, 0.0);
                for &e in &m.entries {
                    let (tm, tv, tw2, wsum) = team[e * k + best];
                    let r = if game.member_range(e).len() == 1 {
                        noise / wsum
                    } else {
                        noise * tw2
                    };
                    let sden = tv + r;
                    // The innovation as the filter in use reads it: clipped below
                    // −clip when that filter is robust, so that players and factors
                    // share one reading of a bad result.
                    let z = (perfs[e] - tm) / sden.sqrt();
                    let z = if robust_in_use { z.max(-self.clip) } else { z };
                    let rest = (sden - v).max(1e-6);
                    precision += 1.0 / rest;
                    info += z * sden.sqrt() / rest;
                    expected += tm;
                    actual += perfs[e];
                }
                let (shift, var) = (info / precision, 1.0 / precision);
                let count = m.entries.len() as f64;
                PlayerChange {
                    before: *f,
                    after: Rating {
                        value: mu + shift,
                        sigma: Some(var.sqrt()),
                        games: f.games.saturating_add(1),
                    },
                    // The entries' mean expected and actual performances.
                    expected: expected / count,
                    actual: actual / count,
                    k: None,
                    weight: 1.0,
                }
            })
            .collect();
        out.factors = factor_changes;
        out.learned = Some(State::new(l));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::League;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    fn learned(league: &League) -> &KalmanMmrLearned {
        league.learned().unwrap().get::<KalmanMmrLearned>().unwrap()
    }

    #[test]
    fn the_fast_log_loss_is_the_probabilities_log_loss() {
        // After a few matches (a learned calibration), the row of losses equals
        // −ln of the system's own probabilities, clamped, summed.
        let sys = KalmanMmrConfig::default();
        let mut league = League::new(Box::new(sys));
        for (i, order) in [["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]]
            .iter()
            .enumerate()
        {
            league
                .apply(&Match::ranked(format!("g{i}"), order).unwrap())
                .unwrap();
        }
        let learned = league.learned();
        let better: Vec<Rating> = (0..3)
            .map(|i| league.current(i))
            .chain([Rating::with_sigma(9_000.0, 1.0), Rating::new(-9_000.0)])
            .collect();
        let worse = Rating::with_sigma(1_480.0, 80.0);
        let slow: f64 = better
            .iter()
            .map(|b| {
                -sys.win_probability(b, &worse, learned)
                    .clamp(
                        crate::system::MIN_PROBABILITY,
                        1.0 - crate::system::MIN_PROBABILITY,
                    )
                    .ln()
            })
            .sum();
        close(sys.pair_log_loss(&better, &worse, learned), slow, 1e-12);
    }

    #[test]
    fn two_newcomers_by_hand() {
        // Two newcomers at 1500 ± 350. The winner's performance solves
        // w − 3w·tanh(a(x − 1500)) = 0 (the loser counts once, the winner itself as a
        // tie, a win plus a loss): x = 1500 + atanh(1/3)/a with a = (π/√3)/(2s),
        // s = √(350² + β²). The filter then sees it with noise 5β² (a field of two:
        // 1 + 4/1), gain 350²/(350² + 5β²).
        let sys = KalmanMmrConfig::default();
        let game = Match::ranked("g", &["a", "b"]).unwrap();
        let r = sys.initial_rating();
        let rated = sys
            .rate(&crate::system::Prior::new(&game, &[r, r]).with_states(&[None, None]))
            .unwrap();
        let [a, b] = [rated.changes[0], rated.changes[1]];
        close(a.actual, 1_653.290_299_159_938_3, 1e-6);
        close(b.actual, 1_346.709_700_840_061_7, 1e-6);
        close(a.after.value, 1_559.707_362_917_815, 1e-6);
        close(b.after.value, 1_440.292_637_082_185, 1e-6);
        close(a.after.sigma.unwrap(), 273.469_591_667_335_8, 1e-6);
        assert_eq!(a.after.games, 1);
        // Every filter of the bank saw the same debut.
        let st = rated.states[0]
            .as_ref()
            .unwrap()
            .get::<KalmanMmrState>()
            .unwrap();
        assert_eq!(st.bank.len(), 24);
        assert!(st
            .bank
            .iter()
            .all(|&(m, _)| (m - a.after.value).abs() < 1e-9));
        // The newcomer prior is now the mean of the two debuts (1500, the discount
        // applies to the older one).
        let l = rated.learned.unwrap();
        let l = l.get::<KalmanMmrLearned>().unwrap();
        close(
            l.prior_mean().unwrap(),
            (0.999 * 1_653.290_299_159_938_3 + 1_346.709_700_840_061_7) / 1.999,
            1e-6,
        );
        assert_eq!(l.clock, 1.0);
        assert_eq!(l.best, 0);
    }

    /// The defaults with another share of the margins.
    fn with_margins(margins: f64) -> KalmanMmrConfig {
        KalmanMmrConfig {
            margins,
            ..KalmanMmrConfig::default()
        }
    }

    /// The line on the scores is the same whatever their unit: scores scaled by a power
    /// of two rate bit for bit alike, up to sizes whose squares leave the range of
    /// floating-point numbers, and down to those whose squares vanish.
    #[test]
    fn scores_of_any_size_respace_alike() {
        let sys = KalmanMmrConfig::default();
        let rate = |unit: f64| -> Vec<f64> {
            let game = Match::builder("g")
                .player("a", Finish::Score(3.0 * unit))
                .player("b", Finish::Score(unit))
                .player("c", Finish::Score(0.0))
                .player("d", Finish::Score(-2.5 * unit))
                .build()
                .unwrap();
            let r = sys.initial_rating();
            sys.rate(&crate::system::Prior::new(&game, &[r, r, r, r]))
                .unwrap()
                .changes
                .iter()
                .map(|c| c.after.value)
                .collect()
        };
        let one = rate(1.0);
        assert!(
            one[0] > one[1] && one[1] > one[2] && one[2] > one[3],
            "{one:?}"
        );
        for unit in [
            2f64.powi(600),
            2f64.powi(1000),
            2f64.powi(-600),
            2f64.powi(-1000),
        ] {
            assert_eq!(rate(unit), one, "scores times {unit:e}");
        }
        // Subnormal scores: finite ratings, no division by 0.
        let tiny = rate(2f64.powi(-1060));
        assert!(tiny.iter().all(|r| r.is_finite()), "{tiny:?}");
    }

    #[test]
    fn scores_respace_the_performances() {
        // Three newcomers with scores 10, 9, 0, read by the margins alone: the
        // performances lie on a line in the scores, so the changes do too (one gain for
        // all newcomers).
        let sys = with_margins(1.0);
        let game = Match::builder("g")
            .player("a", Finish::Score(10.0))
            .player("b", Finish::Score(9.0))
            .player("c", Finish::Score(0.0))
            .build()
            .unwrap();
        let r = sys.initial_rating();
        let c = sys
            .rate(&crate::system::Prior::new(&game, &[r, r, r]))
            .unwrap()
            .changes;
        let ab = c[0].after.value - c[1].after.value;
        let bc = c[1].after.value - c[2].after.value;
        close(bc / ab, 9.0, 1e-9);
        // Without margins, the rank-based performances are symmetric about the middle.
        let c = with_margins(0.0)
            .rate(&crate::system::Prior::new(&game, &[r, r, r]))
            .unwrap()
            .changes;
        let (up, down) = (c[0].after.value - 1500.0, 1500.0 - c[2].after.value);
        close(up, down, 1e-6);
        // A share of the margins mixes the line and the ranks, under one gain (the field
        // term is dropped whenever the scores are read): the default's 0.99 is 0.98 of
        // the line plus 0.02 of the half-and-half mix.
        let change = |margins: f64| -> Vec<f64> {
            let c = with_margins(margins)
                .rate(&crate::system::Prior::new(&game, &[r, r, r]))
                .unwrap()
                .changes;
            c.iter().map(|c| c.after.value - 1500.0).collect()
        };
        let (line, half, default) = (change(1.0), change(0.5), change(0.99));
        for i in 0..3 {
            close(default[i], 0.98 * line[i] + 0.02 * half[i], 1e-6);
        }
        assert!(
            default[1] < line[1],
            "the ranks pull b down to the middle place"
        );
    }

    #[test]
    fn a_finish_ahead_by_a_hair_stays_ahead() {
        // b starts 2 points above a and loses to a by a hundredth of a point: the
        // margins say the two played alike, the ranks that a was ahead, and the default
        // keeps enough of the ranks for a to end above b.
        let game = Match::builder("g")
            .player("a", Finish::Score(100.01))
            .player("b", Finish::Score(100.0))
            .player("c", Finish::Score(0.0))
            .build()
            .unwrap();
        let r = KalmanMmrConfig::default().initial_rating();
        let lifted = Rating {
            value: r.value + 2.0,
            ..r
        };
        let after = |margins: f64| {
            let c = with_margins(margins)
                .rate(&crate::system::Prior::new(&game, &[r, lifted, r]))
                .unwrap()
                .changes;
            c[0].after.value - c[1].after.value
        };
        assert!(after(1.0) < 0.0, "the margins alone keep b ahead");
        assert!(after(0.99) > 0.0, "the default puts a ahead");
    }

    #[test]
    fn a_large_field_reads_its_performances_through_the_robust_twin() {
        // Sixteen established players whose symmetric filters hold them in one order and
        // whose robust filters in the reverse order, twice as spread. The filter in use
        // is a fresh league's, the static symmetric one, so its twin is the first robust
        // filter (the same τ = 0 and γ = 0: no drift over the idle match).
        let names: Vec<String> = (0..16).map(|i| format!("p{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let game = Match::ranked("g", &names).unwrap();
        let state = |i: usize| {
            let bank = (0..24)
                .map(|c| {
                    let mu = if c < 12 {
                        1500.0 + 20.0 * i as f64
                    } else {
                        2000.0 - 40.0 * i as f64
                    };
                    (mu, 100.0 * 100.0)
                })
                .collect();
            State::new(KalmanMmrState {
                games: 5,
                last: Some(0.0),
                dated: false,
                bank,
            })
        };
        let states: Vec<State> = (0..16).map(state).collect();
        let states: Vec<Option<&State>> = states.iter().map(Some).collect();
        let before: Vec<Rating> = (0..16)
            .map(|i| Rating {
                value: 1500.0 + 20.0 * i as f64,
                sigma: Some(100.0),
                games: 5,
            })
            .collect();
        // The performances of the field, read through the symmetric or the robust means.
        let read = |robust: bool| {
            let s = (100.0_f64 * 100.0 + 195.96 * 195.96).sqrt();
            let terms: Vec<(f64, f64, usize)> = (0..16)
                .map(|i| {
                    let i_f = i as f64;
                    (
                        if robust {
                            2000.0 - 40.0 * i_f
                        } else {
                            1500.0 + 20.0 * i_f
                        },
                        s,
                        i,
                    )
                })
                .collect();
            performances(&terms, 16)
        };
        let (twin, own) = (read(true), read(false));
        assert!((twin[0] - own[0]).abs() > 50.0, "the two readings differ");
        for (robust_field, expected) in [(16, &twin), (17, &own)] {
            let sys = KalmanMmrConfig {
                robust_field,
                ..KalmanMmrConfig::default()
            };
            let prior = crate::system::Prior::new(&game, &before).with_states(&states);
            let rated = sys.rate(&prior).unwrap();
            assert_eq!(
                rated
                    .learned
                    .unwrap()
                    .get::<KalmanMmrLearned>()
                    .unwrap()
                    .best,
                0
            );
            for (change, x) in rated.changes.iter().zip(expected.iter()) {
                close(change.actual, *x, 1e-9);
            }
        }
    }

    #[test]
    fn a_benched_filter_is_scored_on_every_16th_match_counted_16_times() {
        // Filter 7 and candidate 4 trail the ones in use by 1,000 nats at a standard
        // error of 10: benched at bench_z 10 (the default), not at 0.
        let k = 24;
        let sys = KalmanMmrConfig::default();
        assert_eq!(sys.bench_z, 10.0);
        let mut base = sys.fresh_learned();
        Arc::make_mut(&mut base.score)[7] = -1000.0;
        Arc::make_mut(&mut base.dsq)[7] = 100.0; // row of filter 0, the one in use
        base.cal[4].2 = -1000.0;
        base.cal_dsq = Arc::new(
            (0..81)
                .map(|i| if i == 9 + 4 { 100.0 } else { 0.0 })
                .collect(),
        );
        assert!(base.benched(7, 10.0) && !base.benched(6, 10.0) && !base.benched(7, 0.0));
        assert!(base.cal_benched(4, 10.0) && !base.cal_benched(3, 10.0));
        let pri: Vec<(f64, f64)> = (0..6 * k)
            .map(|i| {
                let x = i as f64;
                (
                    1400.0 + 37.0 * (x * 0.7).sin(),
                    900.0 + 300.0 * (x * 1.3).cos(),
                )
            })
            .collect();
        let warm: Warm = [0, 1, 1, 3, 4, 5].iter().copied().zip(0..6).collect();
        let score = |sys: &KalmanMmrConfig, clock: f64| {
            let mut l = base.clone();
            l.clock = clock;
            sys.score_filters(&mut l, &mut warm.clone(), &pri);
            l
        };
        let plain = KalmanMmrConfig {
            bench_z: 0.0,
            ..sys
        };
        for clock in [5.0, 32.0] {
            let (benching, keeping) = (score(&sys, clock), score(&plain, clock));
            // What is not benched is scored as without benching, to the bit.
            for c in (0..k).filter(|&c| c != 7) {
                assert_eq!(benching.score[c], keeping.score[c], "filter {c}");
                assert_eq!(benching.slope[c], keeping.slope[c], "filter {c}");
            }
            for u in (0..9).filter(|&u| u != 4) {
                assert_eq!(benching.cal[u], keeping.cal[u], "candidate {u}");
            }
            // The benched filter's lead over the one in use: unchanged on match 5; on
            // match 32 (every 16th) its change without benching, counted 16 times.
            let lead = |l: &KalmanMmrLearned| l.score[7] - l.score[0];
            let cal_lead = |l: &KalmanMmrLearned| l.cal[4].2 - l.cal[1].2;
            let (step, cal_step) = (
                lead(&keeping) - lead(&base),
                cal_lead(&keeping) - cal_lead(&base),
            );
            let m = if clock == 32.0 { 16.0 } else { 0.0 };
            close(lead(&benching) - lead(&base), m * step, 1e-9);
            close(cal_lead(&benching) - cal_lead(&base), m * cal_step, 1e-9);
            close(benching.dsq[7] - base.dsq[7], (m * step).powi(2), 1e-6);
            assert_ne!(step, 0.0);
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn a_learned_value_saved_before_candidates_were_benched_reads() {
        use crate::state::Restorable;
        let sys = KalmanMmrConfig::default();
        let fresh = sys.fresh_learned();
        let mut json = serde_json::to_value(&fresh).unwrap();
        let fields = json.as_object_mut().unwrap();
        assert!(fields.remove("cal_dsq").is_some());
        let old: KalmanMmrLearned = serde_json::from_value(json).unwrap();
        assert_eq!(old, fresh);
        assert_eq!(old.fits(&fresh), Ok(()));
        // Squared differences of another number of candidates are refused.
        let mut short = fresh.clone();
        short.cal_dsq = Arc::new(vec![0.0; 80]);
        assert_eq!(
            short.fits(&fresh).unwrap_err(),
            "`cal_dsq` holds 80 values, where the system has 81 (or none)"
        );
    }

    #[test]
    fn everyone_tied_moves_only_the_clock() {
        let sys = KalmanMmrConfig::default();
        let game = Match::with_places("g", &[("a", 1), ("b", 1)]).unwrap();
        let r = sys.initial_rating();
        let rated = sys
            .rate(&crate::system::Prior::new(&game, &[r, r]).with_states(&[None, None]))
            .unwrap();
        assert!(rated.changes.iter().all(|c| c.after == r));
        assert!(rated.states.is_empty());
        let l = rated.learned.unwrap();
        assert_eq!(l.get::<KalmanMmrLearned>().unwrap().clock, 1.0);
    }

    #[test]
    fn the_league_reads_ratings_with_what_it_learned() {
        let mut league = League::new(Box::new(KalmanMmrConfig::default()));
        for (i, order) in [["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"]]
            .iter()
            .enumerate()
        {
            league
                .apply(&Match::ranked(format!("g{i}"), order).unwrap())
                .unwrap();
        }
        let l = learned(&league);
        assert_eq!(l.clock, 3.0);
        // An unknown player starts at the learned newcomer prior.
        let fresh = league.rating_of("zed");
        close(fresh.value, l.prior_mean().unwrap(), 1e-12);
        close(fresh.sigma.unwrap(), 350.0, 0.0);
        // Without times, the filter in use widens σ by γ² per elapsed match: c played
        // every match, so none elapsed; the static filter has γ = 0 anyway.
        let i = league.index_of("a").unwrap();
        let st = league.state(i).unwrap().get::<KalmanMmrState>().unwrap();
        let now = league.current(i);
        close(now.value, st.bank[l.best].0, 0.0);
        // A copy carries the learned value, shared.
        let copy = league.clone();
        assert!(State::same(
            copy.learned().unwrap(),
            league.learned().unwrap()
        ));
        // The calibrated probability is the logistic of the scaled gap.
        let (a, b) = (league.current(0), league.current(1));
        let (kappa, c) = l.calibration();
        let s = (a.sigma.unwrap().powi(2) + b.sigma.unwrap().powi(2) + c * 2.0 * 195.96f64.powi(2))
            .sqrt();
        close(
            league.win_probability(&a, &b),
            logistic(kappa * (a.value - b.value) / s),
            1e-12,
        );
    }

    #[test]
    fn the_filter_in_use_is_reported() {
        // A learned value whose selection moved to another filter changes the rating
        // read from the same state.
        let sys = KalmanMmrConfig::default();
        let state = State::new(KalmanMmrState {
            games: 4,
            last: Some(10.0),
            dated: false,
            bank: (0..24).map(|i| (1400.0 + f64::from(i), 100.0)).collect(),
        });
        let mut l = sys.fresh_learned();
        l.clock = 14.0;
        l.best = 5; // symmetric, τ 12, γ 8 (τ-major, γ-minor)
        let f = sys.filter(5);
        assert_eq!((f.tau, f.gamma, f.robust), (12.0, 8.0, false));
        let r = sys.age(
            Rating::with_sigma(0.0, 1.0),
            Some(&state),
            Some(&State::new(l.clone())),
            0.0,
        );
        // Four matches elapsed since the player's last: the mean returns towards the
        // newcomer prior (1500, no debut seen) by exp(−8²·4/(2·350²)), σ² = 100 + 8²·4.
        close(
            r.value,
            1500.0 - 95.0 * (-64.0f64 * 4.0 / (2.0 * 350.0 * 350.0)).exp(),
            1e-9,
        );
        assert!((r.value - 1_405.099_213).abs() < 1e-6);
        close(r.sigma.unwrap(), (100.0f64 + 64.0 * 4.0).sqrt(), 1e-12);
        // Without reversion the mean stays; a filter without idle drift never reverts.
        let still = KalmanMmrConfig {
            reversion: 0.0,
            ..KalmanMmrConfig::default()
        };
        let read = |sys: &KalmanMmrConfig, best: usize| {
            let mut l = l.clone();
            l.best = best;
            let r = Rating::with_sigma(0.0, 1.0);
            sys.age(r, Some(&state), Some(&State::new(l)), 0.0).value
        };
        assert_eq!(read(&still, 5), 1405.0);
        assert_eq!(sys.filter(3).gamma, 0.0);
        assert_eq!(read(&sys, 3), 1403.0);
        assert_eq!(sys.filters()[17], sys.filter(17));
        assert!(sys.filter(17).robust);
        // What is shown of the learned value: the filter in use, its switches, the
        // calibration and the newcomer prior (1500 before any debut).
        l.switches = 2;
        let shown: Vec<(&str, f64)> = sys
            .describe_learned(&State::new(l.clone()))
            .iter()
            .map(|v| (v.name, v.value))
            .collect();
        let (kappa, c) = l.calibration();
        assert_eq!(
            shown,
            [
                ("tau", 12.0),
                ("gamma", 8.0),
                ("robust", 0.0),
                ("switches", 2.0),
                ("filters", 24.0),
                ("kappa", kappa),
                ("c", c),
                ("prior_mean", 1500.0)
            ]
        );
        l.best = 17;
        let robust = sys.describe_learned(&State::new(l));
        assert_eq!((robust[2].name, robust[2].value), ("robust", 1.0));
    }

    #[test]
    fn a_root_whose_step_no_longer_moves_it_is_done_without_bisecting() {
        // x⁵ = 7: Halley's steps reach the root to the last bit in a handful.
        let calls = std::cell::Cell::new(0);
        let t = |_: usize, x: f64| {
            calls.set(calls.get() + 1);
            (x.powi(5), 5.0 * x.powi(4), Some(20.0 * x.powi(3)))
        };
        let fresh = |x: f64| Root {
            lo: 0.0,
            hi: 10.0,
            x,
            c: 7.0,
        };
        let mut roots = [fresh(1.0)];
        solve_all(&mut roots, 1e-9, t);
        let root = roots[0].x;
        assert!((root - 7f64.powf(0.2)).abs() <= 2.0 * f64::EPSILON * root);
        assert!(calls.get() <= 6, "{} evaluations", calls.get());
        // A guess already there (as the start for a field of equal entries is): its
        // value is not exactly 0, but its step rounds to nothing. That is the end,
        // after one evaluation; a bisection of the bracket from there (which the guess
        // now bounds) would throw it back to the middle and take a dozen more.
        assert_ne!(root.powi(5), 7.0);
        calls.set(0);
        roots[0] = fresh(root);
        solve_all(&mut roots, 1e-9, t);
        assert_eq!((roots[0].x, calls.get()), (root, 1));
    }

    /// Each group's root of Elo-MMR's equation, by bisection of the equation summed
    /// term by term: the reference for [`performances`].
    fn performances_by_bisection(terms: &[(f64, f64, usize)], groups: usize) -> Vec<f64> {
        let w = |s: f64| TANH_MULT / s;
        let gw: Vec<f64> = (0..groups)
            .map(|g| terms.iter().filter(|t| t.2 == g).map(|t| w(t.1)).sum())
            .collect();
        let total: f64 = gw.iter().sum();
        (0..groups)
            .map(|g| {
                let better: f64 = gw[..g].iter().sum();
                let c = total - 2.0 * better - gw[g];
                let f = |x: f64| {
                    terms.iter().fold(c, |f, &(mu, s, h)| {
                        let times = if h == g { 2.0 } else { 1.0 };
                        f - times * w(s) * ((x - mu) * 0.5 * w(s)).tanh()
                    })
                };
                let (mut lo, mut hi) = (-1e6, 1e6);
                for _ in 0..80 {
                    let mid = 0.5 * (lo + hi);
                    if f(mid) > 0.0 {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                0.5 * (lo + hi)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn every_performance_is_the_root_of_its_equation(
            entries in proptest::collection::vec(
                (-3000.0f64..6000.0, 30.0f64..3000.0, proptest::bool::weighted(0.3)),
                2..90,
            ),
            spread in 0.0f64..1.0,
        ) {
            // Entries in finishing order, each tied with the one before it or not; the
            // means drawn around 1500 by `spread` of their range.
            let mut group = 0;
            let terms: Vec<(f64, f64, usize)> = entries
                .iter()
                .enumerate()
                .map(|(i, &(mu, s, tied))| {
                    if i > 0 && !tied {
                        group += 1;
                    }
                    (1500.0 + spread * (mu - 1500.0), s, group)
                })
                .collect();
            let s_max = terms.iter().map(|t| t.1).fold(0.0, f64::max);
            // Matches above `GRID_FROM` entries read the common sum off an interpolated
            // grid, of relative error about 1e-5.
            let tol = if terms.len() > GRID_FROM { 1e-4 } else { 1e-9 } * s_max;
            let got = performances(&terms, group + 1);
            let want = performances_by_bisection(&terms, group + 1);
            proptest::prop_assert_eq!(got.len(), want.len());
            for (g, (x, y)) in got.iter().zip(&want).enumerate() {
                proptest::prop_assert!((x - y).abs() <= tol, "group {}: {} vs {}", g, x, y);
            }
        }
    }
}
