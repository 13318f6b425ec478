//! `elo-mmr` and `elo-mmx`: Elo-MMR, a Bayesian rating system built for contests of
//! thousands of players, which remembers each player's past performances.
//!
//! **What.** Each player has a skill belief: a Gaussian prior and the performances of
//! their past contests. A contest is a ranking with ties. Before it, every player's
//! uncertainty grows (skill drifts between contests). Each player's **performance** is then
//! the skill level at which their result against everyone in the contest is most likely
//! (the root of the derivative of the log-likelihood of the ranking, with each opponent a
//! logistic distribution around their rating widened by the performance noise β). The new
//! rating is the mode of the posterior that combines the prior with every past performance
//! (a robust average: a single surprising contest moves the rating less than under a
//! Gaussian update), and σ shrinks by that contest's information. `elo-mmr` is Elo-MMR(ρ)
//! with the logistic performance model; `elo-mmx` is its Gaussian variant (normal
//! performance model, no history kept: every contest collapses the belief into a Gaussian).
//!
//! **Where from.** A. Ebtekar and P. Liu, *Elo-MMR: A Rating System for Massive Multiplayer
//! Competitions*, The Web Conference (WWW) 2021, and its reference implementation
//! (`EbTech/Elo-MMR`, `multi-skill/src/systems/elo_mmr.rs` and `common/`), whose numbers
//! podium reproduces: the defaults are those of its `mmr` and `mmx` systems (as packaged
//! by `elo-mmr-py` 2.0.0, `Rater("mmr")`), and the tests below hold podium to numbers that
//! `elo-mmr-py` computes (`scripts/reference/elo_mmr_parity.py` compares whole histories).
//!
//! **One contest, step by step** (a player of weight `w`, see below):
//! 1. σ grows: `σ² += w · sig_limit² + drift_per_day · days idle`. With `elo-mmr` the
//!    added uncertainty also ages the history: older performances weigh less, at transfer
//!    speed ρ (`transfer_speed`, the reference's `add_noise_best`); `elo-mmx` collapses
//!    the belief into one Gaussian instead.
//! 2. The performance noise is `β = √((1 + 1/w) · sig_limit² + drift_per_day / w)`;
//!    every entry is a term `(μ, √(σ² + β²))`. Entries whose terms fall in one bucket of
//!    width `subsample_bucket` (μ and σ) are merged, as the reference does.
//! 3. Each entry's performance is the root, in `[−6000, 9000]`, of the sum over all terms
//!    of the derivative of the log-probability of the entry's result against them: a win,
//!    a loss or a tie (`split_ties`: a tie counts as half a win and half a loss; by
//!    default it is its own outcome, as in the reference).
//! 4. The performance joins the player's history as a logistic term with deviation β;
//!    the new μ is the robust average of the prior and the history, and
//!    `σ' = (σ⁻² + β⁻²)^(−½)`.
//!
//! **Speed.** The reference solves every player's performance against every term by
//! Newton's method: O(N²) evaluations per contest, times the iterations. podium finds the
//! same roots (to about 1e-10 rating points) with far fewer:
//! - it solves once per distinct place (tied entries share the root) and splits the sum
//!   over terms into a part every place shares, a constant per place (the wins minus the
//!   losses, from running sums over the places) and the tied entries' own terms;
//! - each search ends as soon as the root of the cubic Taylor model at the last point
//!   provably lies that close to the root (bounds on tanh's second and fourth derivatives
//!   make the proof), so places whose roots lie close together (large contests) share one
//!   evaluation of the shared part, and a good start needs a single evaluation;
//! - with subsampling, every entry's wins minus losses against its window come from one
//!   sweep over a Fenwick tree, and its search starts from the window's root to second
//!   order in the spread of its terms (from running sums of their moments).
//!
//! With `subsample_size` set, each entry is measured against the `subsample_size` terms
//! nearest its rating only (the reference's `mmr-fast` uses 100 and a bucket of 2),
//! and a player's history keeps that many performances (older ones fold into the prior).
//! Performances whose weight has decayed below 2⁻⁶⁰ of a new one's fold into the prior
//! too: they no longer change any sum in double precision.
//!
//! **Contests where everyone ties** say nothing about anyone and are left unrated, as
//! the reference leaves them: ratings, σ and histories stay as they were and the contest
//! does not count in `games` (the rating's count of rated contests, which drives
//! `noob_delay`); leaderboards still count it as a game played.
//!
//! **Teams and partial play** (the paper has neither; podium's rule): a team is one entry
//! whose skill is the mean of its members' skills, so its term is
//! `(mean μ, √(Σσ²/n² + mean β²))`; its performance is every member's performance, and
//! each member updates their own belief with it. A member's weight `w ∈ (0, 1]` (the
//! share of the contest played) scales the contest's weight: `weight_limit · w`, so a
//! half contest adds less uncertainty and counts as a noisier performance (a larger β).
//!
//! **Factors** (the paper has none; podium's rule, [`crate::factor`]): a car, a seat,
//! a faction is a Gaussian belief (`factor_sigma` before any result). An entry's term
//! adds its factors' means to μ and their variances to its σ²; each member then reads
//! the entry's performance less those means, widened by those variances. A factor is
//! updated by the Gaussian (Kalman) rule from the performance of every entry that
//! carries it, the rest of that entry's term as the noise, the entries pooled; it does
//! not drift.
//!
//! **Inactivity.** [`RatingSystem::age`]: after `d` idle days `σ' = √(σ² + drift_per_day ·
//! d)`; at the next contest step 1 adds the rest (`w · sig_limit²`), which makes the total
//! the reference's `compute_sig_drift`.
//!
//! **Predictions.** `P(a ahead of b) = L((μ_a − μ_b) / √(σ_a² + σ_b² + 2β²))` with `L`
//! the logistic distribution function of unit variance (`elo-mmr`) or `Φ` (`elo-mmx`), and
//! β that of a whole contest of an established player (`w = weight_limit`).
//!
//! **Ranges.** Ratings and performances lie in `[−6000, 9000]` (the reference's search
//! interval), σ in `[0.001, 15000]`: a rating or `--initial` value outside is refused with
//! [`RateError::RatingOutOfRange`], so the arithmetic never overflows. Updates stay inside
//! (μ is sought in the interval; σ is held to it, which only extreme settings reach, and
//! aging stops at 15000).
//!
//! **Parameters** (`--set name=value`), defaults as the reference's `mmr`: `mu` 1500,
//! `sigma` 350 (a newcomer's belief), `weight_limit` 0.2, `sig_limit` 80 (σ of a player
//! with a long history), `drift_per_day` 0 (σ² added per idle day), `split_ties` false,
//! `transfer_speed` 1 (ρ; `elo-mmr` only), `noob_delay` none (factors on the weight of a
//! player's 1st, 2nd, … contest, e.g. `0.6,0.8`), `subsample_size` 0 (all opponents, all
//! performances kept), `subsample_bucket` 1e-5 (merge width) and podium's
//! `factor_sigma` 50 (a factor's σ before any result).
//!
//! ```
//! use podium::{League, Match, RatingSystem};
//! use podium::systems::elo_mmr::{EloMmrConfig, EloMmrState};
//! let mut league = League::new(Box::new(EloMmrConfig::default()));
//! let report = league.apply(&Match::ranked("c1", &["ann", "bo", "cy"]).unwrap()).unwrap();
//! // elo-mmr-py 2.0.0, Rater("mmr"): ann 1704.8667, bo 1500, cy 1295.1333, σ 171.1954.
//! let ann = league.get("ann").unwrap().rating;
//! assert!((ann.value - 1704.8667194452419).abs() < 1e-6);
//! assert!((ann.sigma.unwrap() - 171.19544425359382).abs() < 1e-9);
//! let state = report.states[0].as_ref().unwrap().get::<EloMmrState>().unwrap();
//! // Beating both: a performance of 1743.9 (elo-mmr-py's event: perf_score 1744).
//! assert!((state.performance().unwrap() - 1743.9236).abs() < 1e-3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use smallvec::SmallVec;
use wide::{f64x2, f64x4};

use crate::error::RateError;
use crate::factor::Factored;
use crate::gaussian::{cdf, pdf_over_cdf};
use crate::model::Match;
use crate::params::{Configure, FloatList};
use crate::rating::{PlayerChange, Rating};
use crate::state::{Rated, State};
use crate::system::{check_ratings, RatingSystem};

/// A contest's working vectors: on the stack up to 16 entries (most contests), so that
/// rating one allocates little beyond the states it returns.
type Small<T> = SmallVec<[T; 16]>;

/// π/√3: the logistic distribution with scale `s/TANH_MULTIPLIER` has deviation `s`
/// (the reference's constant, to the last digit).
const TANH_MULTIPLIER: f64 = std::f64::consts::PI / 1.732_050_807_568_877_2;

/// The interval where ratings and performances are sought (the reference's bounds).
pub const RATING_RANGE: (f64, f64) = (-6000.0, 9000.0);

/// The σ a rating may have: positive and small enough for the arithmetic.
pub const SIGMA_RANGE: (f64, f64) = (0.001, 15_000.0);

/// A rating value's allowed range, in words.
const RATING_RULE: &str = "−6000 ≤ μ ≤ 9000";
/// A σ's allowed range, in words.
const SIGMA_RULE: &str = "0.001 ≤ σ ≤ 15000";

/// Which performance model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Variant {
    /// Logistic performances, a history of them kept (`elo-mmr`).
    Logistic,
    /// Gaussian performances, the belief kept as one Gaussian (`elo-mmx`).
    Gaussian,
}

/// The parameters of either variant, as the update reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloMmr {
    /// The performance model.
    pub variant: Variant,
    /// The registered name.
    pub name: &'static str,
    /// A newcomer's μ.
    pub mu: f64,
    /// A newcomer's σ.
    pub sigma: f64,
    /// The weight of a whole contest.
    pub weight_limit: f64,
    /// The σ of a player with a long history.
    pub sig_limit: f64,
    /// σ² added per idle day.
    pub drift_per_day: f64,
    /// Whether a tie counts as half a win and half a loss.
    pub split_ties: bool,
    /// ρ: how fast added uncertainty moves weight from old performances to the prior.
    pub transfer_speed: f64,
    /// Factors on the weight of a player's first contests.
    pub noob_delay: FloatList,
    /// Opponents (and kept performances) per player; 0 = all.
    pub subsample_size: u32,
    /// Width of the buckets in which terms are merged.
    pub subsample_bucket: f64,
    /// σ of a factor never seen.
    pub factor_sigma: f64,
}

macro_rules! elo_mmr_config {
    (
        $(#[$doc:meta])* $ty:ident, $name:literal, $variant:expr,
        { $( $extra:ident : $et:ty = $edef:expr, $edef_doc:literal, where $erule:expr, $erdoc:literal => $edoc:literal; )* },
        transfer: $transfer:expr
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $ty {
            /// μ of a new player. Default 1500.
            pub mu: f64,
            /// σ of a new player. Default 350.
            pub sigma: f64,
            /// Weight of a whole contest: the share of σ² that a contest adds
            /// (`w · sig_limit²`) and of information it brings. Default 0.2.
            pub weight_limit: f64,
            /// σ of a player with a long history: the limit σ approaches. Default 80.
            pub sig_limit: f64,
            /// σ² added per day without a contest (matches with times). Default 0.
            pub drift_per_day: f64,
            /// Whether a tie counts as half a win and half a loss (else as its own
            /// outcome). Default false.
            pub split_ties: bool,
            /// Factors on the weight of a player's 1st, 2nd, … contest. Default none.
            pub noob_delay: FloatList,
            /// Opponents a player is measured against, the nearest in rating (and, for
            /// `elo-mmr`, performances kept); 0 = all. Default 0.
            pub subsample_size: u32,
            /// Width in rating points of the buckets in which terms are merged (and
            /// opponents picked). Default 1e-5.
            pub subsample_bucket: f64,
            /// σ of a factor never seen ([`crate::factor`]): how large an advantage a
            /// car, a seat or a faction is believed to have before any result.
            /// Default 50.
            pub factor_sigma: f64,
            $( #[doc = $edoc] #[doc = ""] #[doc = $edef_doc] pub $extra: $et, )*
        }

        impl Default for $ty {
            fn default() -> Self {
                $ty {
                    mu: 1500.0,
                    sigma: 350.0,
                    weight_limit: 0.2,
                    sig_limit: 80.0,
                    drift_per_day: 0.0,
                    split_ties: false,
                    noob_delay: FloatList::default(),
                    subsample_size: 0,
                    subsample_bucket: 1e-5,
                    factor_sigma: 50.0,
                    $( $extra: $edef, )*
                }
            }
        }

        crate::configure!($ty, $name {
            mu: f64 where |v| (RATING_RANGE.0..=RATING_RANGE.1).contains(&v), "in [−6000, 9000]" => "μ of a new player",
            sigma: f64 where |v| (SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&v), "in [0.001, 15000]" => "σ of a new player",
            weight_limit: f64 where |v| (1e-6..=1000.0).contains(&v), "in [1e-6, 1000]" => "weight of a whole contest (σ² added: weight · sig_limit²)",
            sig_limit: f64 where |v| (SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&v), "in [0.001, 15000]" => "σ of a player with a long history",
            drift_per_day: f64 where |v| (0.0..=1e8).contains(&v), "in [0, 1e8]" => "σ² added per day without a contest (0 = no aging)",
            split_ties: bool => "count a tie as half a win and half a loss",
            noob_delay: FloatList where |l| l.as_slice().iter().all(|&v| (1e-6..=1000.0).contains(&v)), "each in [1e-6, 1000], at most 16 of them, or none" => "factors on the weight of a player's 1st, 2nd, … contest",
            subsample_size: u32 => "opponents per player, the nearest in rating (elo-mmr: also performances kept); 0 = all",
            subsample_bucket: f64 where |v| (1e-9..=1e6).contains(&v), "in [1e-9, 1e6]" => "width of the buckets in which terms are merged",
            factor_sigma: f64 where |v| (SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&v), "in [0.001, 15000]" => "σ of a factor never seen (car, seat, faction)",
            $( $extra: $et where $erule, $erdoc => $edoc, )*
        });

        impl $ty {
            /// The parameters as the update reads them.
            #[must_use]
            pub fn core(&self) -> EloMmr {
                #[allow(unused_variables)]
                let c = self;
                EloMmr {
                    variant: $variant,
                    name: $name,
                    mu: self.mu,
                    sigma: self.sigma,
                    weight_limit: self.weight_limit,
                    sig_limit: self.sig_limit,
                    drift_per_day: self.drift_per_day,
                    split_ties: self.split_ties,
                    transfer_speed: $transfer(c),
                    noob_delay: self.noob_delay,
                    subsample_size: self.subsample_size,
                    subsample_bucket: self.subsample_bucket,
                    factor_sigma: self.factor_sigma,
                }
            }
        }

        impl RatingSystem for $ty {
            fn describe(&self) -> crate::system::Description {
                crate::system::Description {
                    name: $name,
                    params: Configure::params(self),
                    capabilities: crate::system::Capabilities {
                        has_uncertainty: true,
                        keeps_state: true,
                        rates_factors: true,
                        expects_performances: true,
                        ..crate::system::Capabilities::default()
                    },
                }
            }
            fn name(&self) -> &'static str {
                $name
            }
            fn initial_rating(&self) -> Rating {
                Rating::with_sigma(self.mu, self.sigma)
            }
            fn rate_into(&self, prior: &crate::system::Prior<'_>, out: &mut crate::system::Posterior) -> Result<(), RateError> {
                // The core checks the factor ratings it is given; none given means the
                // players alone.
                let states = prior.all_states()?;
                *out = self.core().rate_with_states(prior.game, prior.ratings, &states, prior.factors)?.into();
                Ok(())
            }
            fn initial_factor(&self) -> Rating {
                Rating::with_sigma(0.0, self.factor_sigma)
            }
            fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&State>) -> f64 {
                self.core().win_probability(a, b)
            }
            fn age(&self, rating: Rating, _: Option<&State>, _: Option<&State>, days: f64) -> Rating {
                self.core().age(rating, days)
            }
            fn initial_state(&self, rating: &Rating) -> Result<Option<State>, RateError> {
                Ok(Some(State::spread(self.core().start(rating, "#1")?)))
            }
            fn describe_state(&self, state: &State) -> Vec<crate::system::Described> {
                state.get::<EloMmrState>().map(EloMmrState::describe).unwrap_or_default()
            }
        }
    };
}

elo_mmr_config!(
    /// `elo-mmr`: Elo-MMR(ρ) with logistic performances (see the [module docs](self)).
    EloMmrConfig, "elo-mmr", Variant::Logistic,
    {
        transfer_speed: f64 = 1.0, "Default 1.", where |v| (0.0..=1e6).contains(&v), "in [0, 1e6]" => "ρ: how fast added uncertainty moves weight from old performances to the prior";
    },
    transfer: |c: &EloMmrConfig| c.transfer_speed
);

elo_mmr_config!(
    /// `elo-mmx`: Elo-MMR with Gaussian performances (see the [module docs](self)).
    EloMmxConfig, "elo-mmx", Variant::Gaussian,
    {},
    transfer: |_c: &EloMmxConfig| f64::INFINITY
);

/// A Gaussian belief or performance: mean and deviation.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Gauss {
    /// The mean.
    pub mu: f64,
    /// The deviation.
    pub sig: f64,
}

impl Gauss {
    fn with_noise(self, noise_sq: f64) -> Gauss {
        Gauss {
            mu: self.mu,
            sig: (self.sig * self.sig + noise_sq).sqrt(),
        }
    }

    /// The precision `σ⁻²`.
    fn weight(self) -> f64 {
        (self.sig * self.sig).recip()
    }
}

/// One remembered performance: the logistic factor `w_out · tanh((x − μ) · w_arg)` of
/// the posterior's derivative (the reference's `TanhTerm`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Tanh {
    mu: f64,
    w_arg: f64,
    w_out: f64,
}

impl Tanh {
    fn new(g: Gauss) -> Tanh {
        let w = TANH_MULTIPLIER / g.sig;
        Tanh {
            mu: g.mu,
            w_arg: 0.5 * w,
            w_out: w,
        }
    }

    /// The precision this term stands for.
    fn weight(&self) -> f64 {
        self.w_arg * self.w_out * 2.0 / (TANH_MULTIPLIER * TANH_MULTIPLIER)
    }

    /// The precision `terms` stand for together: [`Tanh::weight`] summed, four terms at
    /// a time and divided once (a long history is summed every contest).
    fn total_weight(terms: &[Tanh]) -> f64 {
        let mut sum = f64x4::ZERO;
        let mut chunks = terms.chunks_exact(4);
        for c in &mut chunks {
            sum += lanes(c, |t| t.w_arg) * lanes(c, |t| t.w_out);
        }
        let rest: f64 = chunks.remainder().iter().map(|t| t.w_arg * t.w_out).sum();
        (sum.reduce_add() + rest) * 2.0 / (TANH_MULTIPLIER * TANH_MULTIPLIER)
    }
}

/// What Elo-MMR remembers of a player: the Gaussian prior, the performances since (newest
/// last), the current belief and the last contest's performance.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EloMmrState {
    prior: Gauss,
    terms: Vec<Tanh>,
    posterior: Gauss,
    performance: Option<f64>,
    /// The sums of `terms` where the search of the belief last evaluated them, if known
    /// (states saved without them are read as not known).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    known: Option<Known>,
}

/// A history's [`tanh_sums`] at one point: where the last search of a player's belief
/// evaluated them. The next contest's search starts there without a pass over the
/// history: aging multiplies every kept performance's weight by one factor, so it
/// multiplies the sums by it too, and the performances folded into the prior and the
/// new one are a few terms. A search costs one pass over the history instead of two.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Known {
    x: f64,
    sums: Derivs,
}

#[cfg(feature = "serde")]
impl crate::state::Restorable for EloMmrState {
    /// Beliefs and performances the update can start from: finite means, positive
    /// finite deviations and weights, finite sums.
    fn fits(&self, _: &Self) -> Result<(), String> {
        let gauss = |what: &str, g: &Gauss| {
            if !g.mu.is_finite() {
                return Err(format!("{what}.mu {}, expected a finite number", g.mu));
            }
            if !(g.sig.is_finite() && g.sig > 0.0) {
                return Err(format!(
                    "{what}.sig {}, expected a finite number > 0",
                    g.sig
                ));
            }
            Ok(())
        };
        gauss("prior", &self.prior)?;
        gauss("posterior", &self.posterior)?;
        for (i, t) in self.terms.iter().enumerate() {
            let positive = |v: f64| v.is_finite() && v > 0.0;
            if !(t.mu.is_finite() && positive(t.w_arg) && positive(t.w_out)) {
                return Err(format!(
                    "terms[{i}]: mu {}, w_arg {}, w_out {}, expected a finite mu and positive finite weights",
                    t.mu, t.w_arg, t.w_out
                ));
            }
        }
        if let Some(p) = self.performance.filter(|p| !p.is_finite()) {
            return Err(format!("performance {p}, expected a finite number"));
        }
        if let Some(k) = self.known {
            if !(k.x.is_finite() && k.sums.iter().all(|v| v.is_finite())) {
                return Err(format!(
                    "known: x {}, sums {:?}, expected finite numbers",
                    k.x, k.sums
                ));
            }
        }
        Ok(())
    }

    fn into_state(self) -> State {
        State::spread(self)
    }
}

impl crate::state::Spread for EloMmrState {
    fn prefetch_handle(&self) {
        // The vector's 24 bytes lie on the line of their first byte or of the next one.
        let handle = std::slice::from_ref(&self.terms);
        prefetch_index::prefetch_index(handle, 0);
        prefetch_index::prefetch_index(handle, 1);
    }

    /// The past performances, every cache line of them: reading a long history from
    /// memory, line by line as the update first sums it, was the largest wait of a large
    /// league's update.
    fn prefetch_spread(&self) {
        // 64-byte lines hold 2⅔ terms; a term every 2 touches each line.
        for i in (0..self.terms.len()).step_by(2) {
            prefetch_index::prefetch_index(&self.terms, i);
        }
        if let Some(last) = self.terms.len().checked_sub(1) {
            prefetch_index::prefetch_index(&self.terms, last);
        }
    }
}

impl EloMmrState {
    fn new(belief: Gauss) -> Self {
        EloMmrState {
            prior: belief,
            terms: Vec::new(),
            posterior: belief,
            performance: None,
            known: None,
        }
    }

    /// The current belief: μ (the rating) and σ.
    #[must_use]
    pub fn belief(&self) -> Gauss {
        self.posterior
    }

    /// The performance of the last rated contest, if any.
    #[must_use]
    pub fn performance(&self) -> Option<f64> {
        self.performance
    }

    /// How many past performances the belief holds beside its Gaussian prior.
    #[must_use]
    pub fn performances_kept(&self) -> usize {
        self.terms.len()
    }

    fn describe(&self) -> Vec<crate::system::Described> {
        self.performance
            .map(|p| {
                vec![crate::system::Described {
                    name: "performance",
                    value: p,
                    doc: "the performance the last match showed",
                }]
            })
            .unwrap_or_default()
    }
}

/// A player's state on its way through one contest: the stored state's belief, its
/// history read where it is stored and the factor every kept performance's weight is to
/// be multiplied by (the aging of [`Pending::add_noise_best`]), applied as the history
/// is copied into the new state: one pass over it, into a vector of the right size.
struct Pending<'s> {
    /// The belief; its `terms` stay empty until [`Pending::finish`].
    state: EloMmrState,
    history: &'s [Tanh],
    scale: f64,
}

impl<'s> Pending<'s> {
    fn new(stored: &'s EloMmrState) -> Pending<'s> {
        Pending {
            state: EloMmrState {
                terms: Vec::new(),
                ..*stored
            },
            history: &stored.terms,
            scale: 1.0,
        }
    }

    fn fresh(state: EloMmrState) -> Pending<'s> {
        debug_assert!(state.terms.is_empty());
        Pending {
            state,
            history: &[],
            scale: 1.0,
        }
    }

    /// A kept performance with its weight aged.
    fn aged(&self, t: &Tanh) -> Tanh {
        Tanh {
            w_out: t.w_out * self.scale,
            ..*t
        }
    }

    /// The reference's `add_noise_best`: σ grows by `noise_sq`; the prior takes over a
    /// share `1 − decay^ρ` of the history's weight, and every kept performance weighs
    /// `decay^(1+ρ)` of what it did (`decay = σ²_before / σ²_after`). Once per contest.
    fn add_noise_best(&mut self, noise_sq: f64, transfer_speed: f64) {
        let s = &mut self.state;
        let widened = s.posterior.with_noise(noise_sq);
        let ratio = s.posterior.sig / widened.sig;
        let decay = ratio * ratio;
        let transfer = decay.powf(transfer_speed);
        s.posterior = widened;
        let wt_norm_old = s.prior.weight();
        let wt_from_norm_old = transfer * wt_norm_old;
        let wt_from_transfers = (1.0 - transfer) * (wt_norm_old + Tanh::total_weight(self.history));
        let wt_total = wt_from_norm_old + wt_from_transfers;
        s.prior.mu =
            (wt_from_norm_old * s.prior.mu + wt_from_transfers * s.posterior.mu) / wt_total;
        s.prior.sig = (decay * wt_total).recip().sqrt();
        self.scale = transfer * decay;
    }

    /// The reference's `add_noise_and_collapse`: σ grows, and the belief becomes one
    /// Gaussian (no history).
    fn add_noise_and_collapse(&mut self, noise_sq: f64) {
        let s = &mut self.state;
        s.posterior = s.posterior.with_noise(noise_sq);
        s.prior = s.posterior;
        s.known = None;
        self.history = &[];
    }

    /// The state with its history copied (aged).
    fn finish(self) -> EloMmrState {
        let terms = self.history.iter().map(|t| self.aged(t)).collect();
        EloMmrState {
            terms,
            ..self.state
        }
    }

    /// The sums of the performances this contest keeps (those after the first `fold`,
    /// aged, and `term`) where the stored state's sums are known, if they are: those
    /// sums aged, less the folded performances', plus the new one's.
    fn known_with(&self, fold: usize, term: &Tanh) -> Option<Known> {
        self.state.known.map(|k| {
            let (kept, folded, new) = (
                k.sums,
                tanh_sums(k.x, &self.history[..fold]),
                tanh_sums(k.x, std::slice::from_ref(term)),
            );
            Known {
                x: k.x,
                sums: [0, 1, 2, 3].map(|i| self.scale * (kept[i] - folded[i]) + new[i]),
            }
        })
    }

    /// The reference's `update_rating_with_logistic`: the performance joins the history
    /// (the oldest folding into the prior beyond `max_history`, 0 = no limit); μ is the
    /// robust average of prior and history.
    ///
    /// Old performances whose weight has decayed below [`NEGLIGIBLE`] of the new one's
    /// fold into the prior the same way: they no longer change any sum in double
    /// precision, and without them a long history costs what its last hundred or so
    /// contests cost.
    fn update_logistic(self, performance: Gauss, max_history: usize) -> EloMmrState {
        let term = Tanh::new(performance);
        let aged = |t: &Tanh| self.aged(t);
        let mut fold = self
            .history
            .iter()
            .take_while(|t| aged(t).w_out < NEGLIGIBLE * term.w_out)
            .count();
        let history = self.history;
        if max_history > 0 && history.len() >= max_history {
            fold = fold.max(history.len() + 1 - max_history);
        }
        let mut state = EloMmrState {
            terms: Vec::new(),
            ..self.state
        };
        for old in &history[..fold] {
            let old = aged(old);
            let wn = state.prior.weight();
            let wl = old.weight();
            state.prior.mu = (wn * state.prior.mu + wl * old.mu) / (wn + wl);
            state.prior.sig = (wn + wl).recip().sqrt();
        }
        // The kept performances, aged, and the new one.
        let mut terms = Vec::with_capacity(history.len() - fold + 1);
        terms.extend(history[fold..].iter().map(aged));
        terms.push(term);
        let known = self.known_with(fold, &term);
        let wn = state.prior.weight();
        let (mu, known) =
            robust_average(&terms, -state.prior.mu * wn, wn, state.posterior.mu, known);
        let sig = (state.posterior.weight() + performance.weight())
            .recip()
            .sqrt();
        state.terms = terms;
        state.known = Some(known);
        state.posterior = Gauss { mu, sig };
        state.performance = Some(performance.mu);
        state
    }
}

impl EloMmrState {
    /// The reference's `update_rating_with_normal`: the performance multiplies the
    /// Gaussian prior.
    fn update_normal(&mut self, performance: Gauss) {
        let wn = self.prior.weight();
        let wp = performance.weight();
        self.prior.mu = (wn * self.prior.mu + wp * performance.mu) / (wn + wp);
        self.prior.sig = (wn + wp).recip().sqrt();
        self.posterior = if self.terms.is_empty() {
            self.prior
        } else {
            let (mu, known) = robust_average(
                &self.terms,
                -self.prior.mu * wn,
                wn,
                self.posterior.mu,
                None,
            );
            self.known = Some(known);
            let sig = (self.posterior.weight() + wp).recip().sqrt();
            Gauss { mu, sig }
        };
        self.performance = Some(performance.mu);
    }
}

/// The reference's `robust_average`: the root of the increasing function
/// `offset + slope · x + Σ w_out · tanh((x − μ) · w_arg)`, searched in [`RATING_RANGE`]
/// from where the sums of `terms` are `known` (when they are, finite and in range), else
/// from `guess`. Returns the root and the sums where the search last evaluated them.
fn robust_average(
    terms: &[Tanh],
    offset: f64,
    slope: f64,
    guess: f64,
    known: Option<Known>,
) -> (f64, Known) {
    // Solved as the root of the decreasing function −f.
    let f = |x: f64, [v, d1, d2, d3]: Derivs| [-(offset + slope * x + v), -(slope + d1), -d2, -d3];
    let known = known.filter(|k| {
        (RATING_RANGE.0..=RATING_RANGE.1).contains(&k.x) && k.sums.iter().all(|v| v.is_finite())
    });
    let mut last = known.unwrap_or_else(|| {
        let x = guess.clamp(RATING_RANGE.0, RATING_RANGE.1);
        Known {
            x,
            sums: tanh_sums(x, terms),
        }
    });
    let first = f(last.x, last.sums);
    let root = solve_decreasing(last.x, first, Shape::of(terms), |x| {
        last = Known {
            x,
            sums: tanh_sums(x, terms),
        };
        f(x, last.sums)
    });
    (root, last)
}

/// One field of four terms (`chunk[..4]`), a lane each.
#[inline(always)]
fn lanes(chunk: &[Tanh], field: fn(&Tanh) -> f64) -> f64x4 {
    f64x4::from([
        field(&chunk[0]),
        field(&chunk[1]),
        field(&chunk[2]),
        field(&chunk[3]),
    ])
}

/// A function's value and first three derivatives at a point.
type Derivs = [f64; 4];

/// The sum of two functions' [`Derivs`].
fn plus(a: Derivs, b: Derivs) -> Derivs {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
}

/// `Σ w_out · tanh(z)` over `terms`, with `z = (x − μ) · w_arg`, and its first three
/// derivatives in `x`, four terms at a time.
///
/// `tanh(z) = 1 − 2 / (e^(2z) + 1)` from one exponential (`wide`'s: a degree-13
/// polynomial after range reduction, within a unit or two in the last place), `z` held
/// to `[−20, 20]`, where tanh is ±1 in double precision anyway.
#[inline]
fn tanh_sums(x: f64, terms: &[Tanh]) -> Derivs {
    let x4 = f64x4::splat(x);
    let [mut v, mut d1, mut d2, mut d3] = [f64x4::ZERO; 4];
    let mut chunks = terms.chunks_exact(4);
    for chunk in &mut chunks {
        [v, d1, d2, d3] = add_tanh(
            [v, d1, d2, d3],
            x4,
            lanes(chunk, |t| t.mu),
            lanes(chunk, |t| t.w_arg),
            lanes(chunk, |t| t.w_out),
        );
    }
    let rest = chunks.remainder();
    if rest.len() > 2 {
        // The last terms, padded with terms of no weight.
        let pad =
            |f: fn(&Tanh) -> f64| f64x4::from([0, 1, 2, 3].map(|i| rest.get(i).map_or(0.0, f)));
        [v, d1, d2, d3] = add_tanh(
            [v, d1, d2, d3],
            x4,
            pad(|t| t.mu),
            pad(|t| t.w_arg),
            pad(|t| t.w_out),
        );
    } else if !rest.is_empty() {
        // The last one or two terms (the usual rest of a short sum) in half the lanes,
        // with the same bits as above: `wide`'s f64x2 does f64x4's arithmetic lane for
        // lane, and a term of no weight in the other two lanes would add +0 to the value
        // and the slope and take 0 from the others.
        let pad = |f: fn(&Tanh) -> f64| f64x2::from([0, 1].map(|i| rest.get(i).map_or(0.0, f)));
        let (mu, a, w) = (pad(|t| t.mu), pad(|t| t.w_arg), pad(|t| t.w_out));
        let (one, two, three) = (f64x2::splat(1.0), f64x2::splat(2.0), f64x2::splat(3.0));
        let z = ((f64x2::splat(x) - mu) * a)
            .max(f64x2::splat(-20.0))
            .min(f64x2::splat(20.0));
        let th = one - two / ((z + z).exp() + one);
        let s = one - th * th;
        let a1 = a * w;
        let a2 = a * a1;
        let add = |sum: f64x4, t: f64x2| {
            let ([s0, s1, s2, s3], [t0, t1]) = (sum.to_array(), t.to_array());
            f64x4::from([s0 + t0, s1 + t1, s2 + 0.0, s3 + 0.0])
        };
        let sub = |sum: f64x4, t: f64x2| {
            let ([s0, s1, s2, s3], [t0, t1]) = (sum.to_array(), t.to_array());
            f64x4::from([s0 - t0, s1 - t1, s2, s3])
        };
        v = add(v, th * w);
        d1 = add(d1, s * a1);
        d2 = sub(d2, two * th * s * a2);
        d3 = sub(d3, two * s * (one - three * th * th) * a * a2);
    }
    [
        v.reduce_add(),
        d1.reduce_add(),
        d2.reduce_add(),
        d3.reduce_add(),
    ]
}

/// [`tanh_sums`]' step: the sums `[v, d1, d2, d3]` with four more terms, in the loop
/// itself (the sums stay in registers).
#[inline(always)]
fn add_tanh(
    [mut v, mut d1, mut d2, mut d3]: [f64x4; 4],
    x4: f64x4,
    mu: f64x4,
    a: f64x4,
    w: f64x4,
) -> [f64x4; 4] {
    let (lo, hi) = (f64x4::splat(-20.0), f64x4::splat(20.0));
    let (one, two, three) = (f64x4::splat(1.0), f64x4::splat(2.0), f64x4::splat(3.0));
    let z = ((x4 - mu) * a).max(lo).min(hi);
    let th = one - two / ((z + z).exp() + one);
    let s = one - th * th;
    let a1 = a * w;
    let a2 = a * a1;
    v += th * w;
    d1 += s * a1;
    d2 -= two * th * s * a2;
    d3 -= two * s * (one - three * th * th) * a * a2;
    [v, d1, d2, d3]
}

/// What a search knows of its function everywhere: the narrowest curve of its terms
/// (`1/w_arg` of a logistic term, σ of a Gaussian one) and bounds on the size of its
/// second and fourth derivatives (infinite where none is known).
#[derive(Debug, Clone, Copy)]
struct Shape {
    width: f64,
    b2: f64,
    b4: f64,
}

/// The largest size of tanh's second derivative, `4/(3√3)`, rounded up.
const TANH_D2: f64 = 0.77;
/// The largest size of tanh's fourth derivative, 4.0859…, rounded up.
const TANH_D4: f64 = 4.09;

impl Shape {
    /// The shape of a sum of logistic terms `w_out · tanh((x − μ) · w_arg)`. Without
    /// terms (a line) any width ends a search at its root.
    fn of(terms: &[Tanh]) -> Shape {
        // Four terms at a time, in four running sums: a long history is summed for
        // every search, and one running sum waits on its last addition each term.
        // The narrowest curve is that of the largest `w_arg` (`1/a` rounded is
        // monotone, so one division gives the least of every term's).
        let (mut top, mut s2, mut s4) = (f64x4::ZERO, f64x4::ZERO, f64x4::ZERO);
        let mut chunks = terms.chunks_exact(4);
        for c in &mut chunks {
            let (a, w) = (lanes(c, |t| t.w_arg), lanes(c, |t| t.w_out).abs());
            let a2 = a * a;
            top = top.max(a);
            s2 += w * a2;
            s4 += w * a2 * a2;
        }
        let [t0, t1, t2, t3] = top.to_array();
        let (mut top, mut s2, mut s4) =
            (t0.max(t1).max(t2.max(t3)), s2.reduce_add(), s4.reduce_add());
        for t in chunks.remainder() {
            let a2 = t.w_arg * t.w_arg;
            top = top.max(t.w_arg);
            s2 += t.w_out.abs() * a2;
            s4 += t.w_out.abs() * a2 * a2;
        }
        Shape {
            width: (RATING_RANGE.1 - RATING_RANGE.0).min(top.recip()),
            // Rounded up a little: the bounds stay bounds whatever the order of the sums.
            b2: TANH_D2 * s2 * (1.0 + 1e-12),
            b4: TANH_D4 * s4 * (1.0 + 1e-12),
        }
    }

    /// The shape of the sum of two functions.
    fn and(self, other: Shape) -> Shape {
        Shape {
            width: self.width.min(other.width),
            b2: self.b2 + other.b2,
            b4: self.b4 + other.b4,
        }
    }

    /// A function whose narrowest curve is `width` and whose higher derivatives are not
    /// bounded: every step of a search is checked by an evaluation.
    fn unbounded(width: f64) -> Shape {
        Shape {
            width,
            b2: f64::INFINITY,
            b4: f64::INFINITY,
        }
    }
}

/// A remembered performance weighing less than this share of a new one is folded into
/// the prior (2⁻⁶⁰: below the rounding of any sum it is part of).
const NEGLIGIBLE: f64 = 1.0 / (1u64 << 60) as f64;

/// A search ends with a Halley step this small relative to the narrowest curve of the
/// function: the root is then within about `1e-12` of that width (the step's error is of
/// the order of its cube).
const STEP_TOLERANCE: f64 = 1e-4;
/// A search ends without another evaluation when the root of the cubic Taylor model
/// provably lies this close to the root, relative to the narrowest curve (about 1e-10
/// rating points at the default settings).
const ROOT_TOLERANCE: f64 = 1e-12;
/// A bracket this narrow ends a search that bisects.
const BRACKET_TOLERANCE: f64 = 1e-9;

/// A step `Δ` from a point where a decreasing function has the derivatives `at` that
/// provably lands within `ROOT_TOLERANCE · width` of its root, if the bound on the fourth
/// derivative allows: `Δ` is the root of the cubic Taylor model `P`; the function at
/// `x + Δ` is at most `|P(Δ)| + b4 Δ⁴/24` from 0, its slope at least
/// `|P'(Δ)| − b4 |Δ|³/6`, and with the bound on the second derivative that pins the root.
fn certified(at: Derivs, shape: Shape) -> Option<f64> {
    if !shape.b4.is_finite() {
        return None;
    }
    let [v, d1, d2, d3] = at;
    let model = |d: f64| v + d * (d1 + d * (d2 / 2.0 + d * d3 / 6.0));
    let slope = |d: f64| d1 + d * (d2 + d * d3 / 2.0);
    let denom = 2.0 * d1 * d1 - v * d2;
    let mut d = if denom > 0.0 {
        -2.0 * v * d1 / denom
    } else {
        -v / d1
    };
    let tolerance = ROOT_TOLERANCE * shape.width;
    if shape.b4 * d.powi(4) / 24.0 > tolerance * d1.abs() {
        // Too far for the model's error bound (about as it will be below): no proof.
        return None;
    }
    // Halley's step is the model's root to third order; one Newton step polishes it (the
    // residual left is part of the proof anyway).
    d -= model(d) / slope(d);
    let residual = model(d).abs() + shape.b4 * d.powi(4) / 24.0;
    let least_slope = slope(d).abs() - shape.b4 * d.abs().powi(3) / 6.0;
    let sure = least_slope > 0.0
        && residual <= tolerance * least_slope / 2.0
        && shape.b2 * tolerance <= least_slope / 2.0;
    (sure && d.is_finite()).then_some(d)
}

/// The root in [`RATING_RANGE`] of a decreasing function given as `f(x)`, its value and
/// first three derivatives, starting from `x0` where `first = f(x0)`.
///
/// Each evaluation first tries a [`certified`] step, which ends the search without
/// another evaluation; otherwise Halley's method (Newton's when the second derivative is
/// 0), inside a bracket that every evaluation narrows, bisecting when a step would leave
/// it. Until the root is bracketed on both sides, a step moves at most the narrowest
/// width, then twice as far each time: far from its terms the function is flat and
/// Halley's steps overshoot wildly. A root beyond the range gives the nearer bound, as the
/// reference's solver does. Never NaN: a step that is not a number bisects.
fn solve_decreasing(x0: f64, first: Derivs, shape: Shape, mut f: impl FnMut(f64) -> Derivs) -> f64 {
    let (mut lo, mut hi) = RATING_RANGE;
    // Whether a point below (above) the root has been evaluated.
    let (mut below, mut above) = (false, false);
    let tolerance = STEP_TOLERANCE * shape.width;
    let mut reach = shape.width.min(hi - lo);
    let (mut x, mut at) = (x0, first);
    for _ in 0..200 {
        let [v, d1, d2, _] = at;
        if v == 0.0 {
            return x;
        }
        if v > 0.0 {
            lo = x;
            below = true;
        } else {
            hi = x;
            above = true;
        }
        if let Some(d) = certified(at, shape) {
            return (x + d).clamp(lo, hi);
        }
        let denom = 2.0 * d1 * d1 - v * d2;
        let step = if denom > 0.0 {
            2.0 * v * d1 / denom
        } else {
            v / d1
        };
        let next = x - step;
        if step.abs() <= tolerance {
            // Converged (a last step may cross the bracket's edge by a rounding).
            return next.clamp(lo, hi);
        }
        let open = if v > 0.0 { !above } else { !below };
        x = if open && (step.is_nan() || step.abs() > reach) {
            // Not bracketed yet: a bounded move toward the root, farther each time.
            let moved = if v > 0.0 {
                (x + reach).min(hi)
            } else {
                (x - reach).max(lo)
            };
            reach *= 2.0;
            moved
        } else if next > lo && next < hi {
            next
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo <= BRACKET_TOLERANCE {
            // Bracketed as tightly as it can be (or beyond a bound of the range).
            return x.clamp(lo, hi);
        }
        at = f(x);
    }
    x
}

/// Weighted sums over logistic terms (weights `w_out`) of `1, μ, a, a², a μ, μ²` with
/// `a = w_arg` and `μ` measured from a fixed center: what [`window_start`] needs of a
/// window, kept as running sums so that any window's come from two lookups.
#[derive(Debug, Clone, Copy, Default)]
struct Moments {
    w: f64,
    mu: f64,
    a: f64,
    a2: f64,
    amu: f64,
    mu2: f64,
}

impl Moments {
    fn of(t: &Tanh, center: f64) -> Moments {
        let (w, a, mu) = (t.w_out, t.w_arg, t.mu - center);
        Moments {
            w,
            mu: w * mu,
            a: w * a,
            a2: w * a * a,
            amu: w * a * mu,
            mu2: w * mu * mu,
        }
    }

    fn plus(self, o: Moments) -> Moments {
        Moments {
            w: self.w + o.w,
            mu: self.mu + o.mu,
            a: self.a + o.a,
            a2: self.a2 + o.a2,
            amu: self.amu + o.amu,
            mu2: self.mu2 + o.mu2,
        }
    }

    fn minus(self, o: Moments) -> Moments {
        Moments {
            w: self.w - o.w,
            mu: self.mu - o.mu,
            a: self.a - o.a,
            a2: self.a2 - o.a2,
            amu: self.amu - o.amu,
            mu2: self.mu2 - o.mu2,
        }
    }
}

/// A start for the root of `constant − Σ w_out · tanh((x − μ) · w_arg)` over a window of
/// nearest opponents, whose terms lie close together beside their width; `m` holds the
/// window's [`Moments`] about `center`.
///
/// Around the terms' weighted means `μ̄` and `ā` (total weight `S`), each term's argument
/// is `ā u + ε` with `u = x − μ̄` and a small `ε = (a − ā) u − a (μ − μ̄)`; to second order
/// in `ε` the sum is `S · (tanh(ā u) + sech²(ā u) E[ε] + ½ tanh''(ā u) E[ε²])`, whose
/// moments are the terms' weighted (co)variances. That equation in one unknown is solved
/// by a few fixed-point steps from its first-order root `atanh(constant / S) / ā`: a start
/// usually within a fraction of a point of the root, which one evaluation then certifies.
fn window_start(m: Moments, center: f64, constant: f64) -> Option<f64> {
    if m.w.is_nan() || m.w <= 0.0 {
        return None;
    }
    let (mu, a) = (m.mu / m.w, m.a / m.w);
    let var_a = (m.a2 / m.w - a * a).max(0.0);
    let cov = m.amu / m.w - a * mu;
    let var_mu = (m.mu2 / m.w - mu * mu).max(0.0);
    let share = constant / m.w;
    let root = |target: f64| target.clamp(-1.0 + 1e-12, 1.0 - 1e-12).atanh() / a;
    let mut u = root(share);
    for _ in 0..2 {
        let th = (a * u).tanh();
        let sech2 = 1.0 - th * th;
        let mean = -cov;
        let square = u * u * var_a - 2.0 * u * a * cov + a * a * var_mu;
        // tanh'' = −2 tanh sech².
        u = root(share - sech2 * mean + th * sech2 * square);
    }
    let x = center + mu + u;
    x.is_finite().then_some(x)
}

/// Running sums of weights by position, any of which can grow: a Fenwick tree.
struct Fenwick(Vec<f64>);

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick(vec![0.0; n + 1])
    }

    fn add(&mut self, i: usize, v: f64) {
        let mut i = i + 1;
        while i < self.0.len() {
            self.0[i] += v;
            i += i & i.wrapping_neg();
        }
    }

    /// The sum of positions `0..i`.
    fn prefix(&self, mut i: usize) -> f64 {
        let mut s = 0.0;
        while i > 0 {
            s += self.0[i];
            i &= i - 1;
        }
        s
    }

    /// The sum of positions `range`.
    fn sum(&self, range: std::ops::Range<usize>) -> f64 {
        self.prefix(range.end) - self.prefix(range.start)
    }
}

/// The bucket of `a` in buckets of `width` (the reference's `bucket`, without its
/// 32-bit overflow).
fn bucket(a: f64, width: f64) -> i64 {
    (a / width).round() as i64
}

/// A merged term of a contest: entries whose terms share a bucket, by position in the
/// sorted order (`start..end`).
#[derive(Debug, Clone, Copy)]
struct Merged {
    mu: f64,
    sig: f64,
    start: usize,
    end: usize,
}

/// The terms of one contest, merged, with each entry's place (0-based, in the sorted
/// order) and merged term.
struct Field {
    merged: Small<Merged>,
    /// The places of the sorted entries; `merged[j].start..end` is term `j`'s, ascending.
    places: Small<usize>,
    /// Each entry's merged term.
    term_of: Small<usize>,
    /// Each merged term's bucket of μ (ascending).
    buckets: Small<i64>,
    /// Each entry's position in the sorted order.
    position: Small<usize>,
}

impl Field {
    /// Sorts the entries' terms by bucketed μ, bucketed σ and place, and merges runs in
    /// one bucket into their mean (the reference's order and merge).
    fn new(terms: &[Gauss], places: &[usize], width: f64) -> Field {
        let keys: Small<(i64, i64, usize)> = terms
            .iter()
            .zip(places)
            .map(|(t, &p)| (bucket(t.mu, width), bucket(t.sig, width), p))
            .collect();
        let mut order: Small<usize> = (0..terms.len()).collect();
        order.sort_by_key(|&e| keys[e]);
        let mut merged: Small<Merged> = Small::new();
        let mut term_of: Small<usize> = smallvec::smallvec![0; terms.len()];
        for (k, &e) in order.iter().enumerate() {
            let t = terms[e];
            if let Some(last) = merged.last_mut() {
                if bucket(last.mu, width) == bucket(t.mu, width)
                    && bucket(last.sig, width) == bucket(t.sig, width)
                {
                    let len = (last.end - last.start) as f64;
                    last.mu = (len * last.mu + t.mu) / (len + 1.0);
                    last.sig = (len * last.sig + t.sig) / (len + 1.0);
                    last.end = k + 1;
                    term_of[e] = merged.len() - 1;
                    continue;
                }
            }
            term_of[e] = merged.len();
            merged.push(Merged {
                mu: t.mu,
                sig: t.sig,
                start: k,
                end: k + 1,
            });
        }
        let places = order.iter().map(|&e| places[e]).collect();
        let buckets = merged.iter().map(|t| bucket(t.mu, width)).collect();
        let mut position: Small<usize> = smallvec::smallvec![0; order.len()];
        for (k, &e) in order.iter().enumerate() {
            position[e] = k;
        }
        Field {
            merged,
            buckets,
            places,
            term_of,
            position,
        }
    }

    /// Term `j`'s places below, equal to and above `place`.
    #[inline]
    fn counts(&self, j: usize, place: usize) -> (f64, f64, f64) {
        let m = &self.merged[j];
        let p = &self.places[m.start..m.end];
        if let [q] = p {
            // The usual term: one entry.
            return match q.cmp(&place) {
                std::cmp::Ordering::Less => (1.0, 0.0, 0.0),
                std::cmp::Ordering::Equal => (0.0, 1.0, 0.0),
                std::cmp::Ordering::Greater => (0.0, 0.0, 1.0),
            };
        }
        let less = p.partition_point(|&q| q < place);
        let upto = p.partition_point(|&q| q <= place);
        (less as f64, (upto - less) as f64, (p.len() - upto) as f64)
    }

    /// The reference's `subsample`: the `size` merged terms around μ (by bucket).
    fn window(&self, mu: f64, size: usize, width: f64) -> std::ops::Range<usize> {
        let len = self.merged.len();
        let own = bucket(mu, width);
        let mut beg = self.buckets.partition_point(|&b| b < own);
        let mut end = beg + 1;
        let expand = size.saturating_sub(end - beg).div_ceil(2);
        beg = beg.saturating_sub(expand);
        end = len.min(end + expand);
        let expand = size.saturating_sub(end - beg);
        beg = beg.saturating_sub(expand);
        end = len.min(end + expand);
        beg..end
    }
}

impl Field {
    /// The sorted positions of the entries whose terms are those of `window`.
    fn span(&self, window: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        if window.is_empty() {
            0..0
        } else {
            self.merged[window.start].start..self.merged[window.end - 1].end
        }
    }

    /// For each entry `e`, the wins minus the losses against the terms of `windows[e]`,
    /// each weighing its `w_out[term]`: `Σ w (behind) − Σ w (ahead)`. All at once, by
    /// sweeping the places best first over a [`Fenwick`] tree of the entries placed so
    /// far: O(N log N) instead of O(N × window).
    fn window_constants(
        &self,
        w_out: &[f64],
        windows: &[std::ops::Range<usize>],
        places: &[usize],
    ) -> Vec<f64> {
        let n = places.len();
        let weight = |e: usize| w_out[self.term_of[e]];
        let spans: Vec<std::ops::Range<usize>> = windows.iter().map(|w| self.span(w)).collect();
        let mut by_position = vec![0.0; n];
        for e in 0..n {
            by_position[self.position[e]] = weight(e);
        }
        let mut total = vec![0.0; n + 1];
        for k in 0..n {
            total[k + 1] = total[k] + by_position[k];
        }
        let mut placed = Fenwick::new(n);
        let mut ahead = vec![0.0; n];
        let mut out = vec![0.0; n];
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && places[end] == places[start] {
                end += 1;
            }
            // Entries are in game order, best first: those placed so far are ahead.
            for e in start..end {
                ahead[e] = placed.sum(spans[e].clone());
            }
            for e in start..end {
                placed.add(self.position[e], weight(e));
            }
            for e in start..end {
                let span = spans[e].clone();
                let all = total[span.end] - total[span.start];
                let behind = all - placed.sum(span);
                out[e] = behind - ahead[e];
            }
            start = end;
        }
        out
    }
}

/// The merged terms of a contest as the logistic model reads them, worked out once per
/// contest: each one's logistic part times its count (`shared`) and its own `w_out`.
struct Logistic {
    shared: Small<Tanh>,
    w_out: Small<f64>,
    /// The narrowest curve of all the terms, and the running sums of their
    /// contributions to the bounds of a [`Shape`] (one more than the terms, from 0);
    /// these and the moments are worked out only for windowed searches.
    width: f64,
    b2: Vec<f64>,
    b4: Vec<f64>,
    /// Running sums of the terms' [`Moments`] about `center` (one more than the terms).
    moments: Vec<Moments>,
    center: f64,
}

impl Logistic {
    /// The [`Shape`] of the terms of `window`: their bounds from the running sums, and
    /// (more cautious than needed, and free) the narrowest curve of all the terms.
    fn shape(&self, window: std::ops::Range<usize>) -> Shape {
        Shape {
            width: self.width,
            b2: self.b2[window.end] - self.b2[window.start],
            b4: self.b4[window.end] - self.b4[window.start],
        }
    }

    /// The terms of `field` with their bounds and moments.
    #[cfg(test)]
    fn new(field: &Field) -> Logistic {
        Logistic::of(field, true)
    }

    /// The terms of `field`; the bounds and moments only when `windowed` (the entries
    /// measured against windows of them), the only searches that read them.
    fn of(field: &Field, windowed: bool) -> Logistic {
        let w_out: Small<f64> = field
            .merged
            .iter()
            .map(|t| TANH_MULTIPLIER / t.sig)
            .collect();
        let shared = field
            .merged
            .iter()
            .zip(&w_out)
            .map(|(t, &w)| Tanh {
                mu: t.mu,
                w_arg: 0.5 * w,
                w_out: w * (t.end - t.start) as f64,
            })
            .collect::<Small<Tanh>>();
        let mut width = RATING_RANGE.1 - RATING_RANGE.0;
        if !windowed {
            return Logistic {
                shared,
                w_out,
                width,
                b2: Vec::new(),
                b4: Vec::new(),
                moments: Vec::new(),
                center: 0.0,
            };
        }
        let mut b2 = Vec::with_capacity(shared.len() + 1);
        let mut b4 = Vec::with_capacity(shared.len() + 1);
        let (mut s2, mut s4) = (0.0, 0.0);
        b2.push(0.0);
        b4.push(0.0);
        for t in &shared {
            let one = Shape::of(std::slice::from_ref(t));
            width = width.min(one.width);
            // Rounded up a little, so that differences of the running sums still bound.
            s2 += one.b2 * (1.0 + 1e-12);
            s4 += one.b4 * (1.0 + 1e-12);
            b2.push(s2);
            b4.push(s4);
        }
        let center = shared.first().map_or(0.0, |t| t.mu);
        let mut moments = Vec::with_capacity(shared.len() + 1);
        let mut sum = Moments::default();
        moments.push(sum);
        for t in &shared {
            sum = sum.plus(Moments::of(t, center));
            moments.push(sum);
        }
        Logistic {
            shared,
            w_out,
            width,
            b2,
            b4,
            moments,
            center,
        }
    }
}

/// The Gaussian model's term for one outcome against a term `(μ, σ)`: the derivative of
/// the log-probability and its first two derivatives (the reference's `Term for
/// Rating`, in forms that stay finite far in the tails). A win's and a loss's ratio `v`
/// both follow `v' = −(z/σ) v − v²`.
fn gaussian(
    x: f64,
    mu: f64,
    sig: f64,
    outcome: std::cmp::Ordering,
    split: bool,
) -> (f64, f64, f64) {
    use std::cmp::Ordering;
    let z = (x - mu) / sig;
    // pdf/cdf ratios: `beat` for a win over the term, `lost` for a loss to it.
    let beat = || pdf_over_cdf(z) / sig;
    let lost = || -pdf_over_cdf(-z) / sig;
    let derivatives = |v: f64| {
        let d1 = -z / sig * v - v * v;
        let d2 = -v / (sig * sig) - z / sig * d1 - 2.0 * v * d1;
        (v, d1, d2)
    };
    match outcome {
        Ordering::Greater => derivatives(beat()),
        Ordering::Less => derivatives(lost()),
        Ordering::Equal if split => {
            let (a, b) = (derivatives(beat()), derivatives(lost()));
            (0.5 * (a.0 + b.0), 0.5 * (a.1 + b.1), 0.5 * (a.2 + b.2))
        }
        Ordering::Equal => (-z / sig, -1.0 / (sig * sig), 0.0),
    }
}

impl EloMmr {
    fn out_of_range(&self, player: &str, what: &'static str, value: f64) -> RateError {
        RateError::RatingOutOfRange {
            system: self.name,
            player: player.to_string(),
            what,
            value,
            allowed: if what == "sigma" {
                SIGMA_RULE
            } else {
                RATING_RULE
            }
            .to_string(),
        }
    }

    /// Checks a rating against [`RATING_RANGE`] and [`SIGMA_RANGE`].
    fn check(&self, r: &Rating, player: &str) -> Result<(), RateError> {
        if !(RATING_RANGE.0..=RATING_RANGE.1).contains(&r.value) {
            return Err(self.out_of_range(player, "rating", r.value));
        }
        match r.sigma {
            Some(s) if !(SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&s) => {
                Err(self.out_of_range(player, "sigma", s))
            }
            _ => Ok(()),
        }
    }

    /// A player's state starting at `rating` (σ missing: a newcomer's).
    fn start(&self, rating: &Rating, player: &str) -> Result<EloMmrState, RateError> {
        self.check(rating, player)?;
        Ok(EloMmrState::new(Gauss {
            mu: rating.value,
            sig: rating.sigma.unwrap_or(self.sigma),
        }))
    }

    /// The weight of a contest played with weight `share` by a player with `games`
    /// contests rated before.
    fn weight(&self, share: f64, games: u32) -> f64 {
        let delay = self
            .noob_delay
            .as_slice()
            .get(games as usize)
            .copied()
            .unwrap_or(1.0);
        share * self.weight_limit * delay
    }

    /// β² of a contest of weight `w` (the reference's `compute_sig_perf`, squared).
    fn perf_var(&self, w: f64) -> f64 {
        (1.0 + 1.0 / w) * self.sig_limit * self.sig_limit + self.drift_per_day / w
    }

    /// `P(a ahead of b)` (see the [module docs](self)).
    #[must_use]
    pub fn win_probability(&self, a: &Rating, b: &Rating) -> f64 {
        let sa = a.sigma.unwrap_or(self.sigma);
        let sb = b.sigma.unwrap_or(self.sigma);
        let beta2 = self.perf_var(self.weight_limit);
        let z = (a.value - b.value) / (sa * sa + sb * sb + 2.0 * beta2).sqrt();
        match self.variant {
            Variant::Logistic => 0.5 + 0.5 * (0.5 * TANH_MULTIPLIER * z).tanh(),
            Variant::Gaussian => cdf(z),
        }
    }

    /// σ after `days` idle days (see the [module docs](self)).
    #[must_use]
    pub fn age(&self, rating: Rating, days: f64) -> Rating {
        match rating.sigma {
            Some(s) if days > 0.0 && self.drift_per_day > 0.0 => Rating {
                sigma: Some(
                    (s * s + self.drift_per_day * days)
                        .sqrt()
                        .min(SIGMA_RANGE.1.max(s)),
                ),
                ..rating
            },
            _ => rating,
        }
    }

    /// Rates one contest (see the [module docs](self)). `factors` holds the ratings of
    /// [`Match::factors`], one each, or none to rate the players alone, as if the
    /// entries carried no factors.
    ///
    /// # Errors
    /// [`RateError::RatingCountMismatch`] when `before` or `states` do not fit the match,
    /// [`RateError::FactorCountMismatch`] when `factors` (if any) do not,
    /// [`RateError::NonFiniteRating`] or [`RateError::RatingOutOfRange`] for a rating
    /// outside the system's range.
    pub fn rate_with_states(
        &self,
        game: &Match,
        before: &[Rating],
        states: &[Option<&State>],
        factors: &[Rating],
    ) -> Result<Factored, RateError> {
        check_ratings(game, before)?;
        crate::system::check_states(before, states)?;
        if !factors.is_empty() {
            crate::factor::check_factors(game, factors)?;
        }
        let members: Small<_> = game.players().map(|(_, m)| m).collect();
        let mut prepared = Small::with_capacity(before.len());
        for ((m, r), st) in members.iter().zip(before).zip(states) {
            self.check(r, &m.player)?;
            let state = match st.and_then(|s| s.get::<EloMmrState>()) {
                Some(s) => Pending::new(s),
                None => Pending::fresh(self.start(r, &m.player)?),
            };
            prepared.push(state);
        }
        if game.winners() == game.len() {
            // Everyone tied: nothing to learn, nothing changes (the reference skips it).
            let changes = before
                .iter()
                .zip(&prepared)
                .zip(&members)
                .map(|((b, s), m)| PlayerChange {
                    before: *b,
                    after: *b,
                    expected: s.state.posterior.mu,
                    actual: s.state.posterior.mu,
                    k: None,
                    weight: m.weight,
                })
                .collect();
            return Ok(Factored {
                rated: Rated {
                    changes,
                    states: Vec::new(),
                    learned: None,
                },
                factors: factors
                    .iter()
                    .map(|f| PlayerChange::unchanged(*f, 1.0))
                    .collect(),
            });
        }
        // Step 1: uncertainty grows; each player's term.
        let mut beta2 = Small::with_capacity(before.len());
        let mut expected = Small::with_capacity(before.len());
        for (((state, r), m), st) in prepared.iter_mut().zip(before).zip(&members).zip(states) {
            let w = self.weight(m.weight, r.games);
            // The idle drift is what the rating's σ gained since the state was stored.
            let sig = state.state.posterior.sig;
            let idle = match (st, r.sigma) {
                (Some(_), Some(s)) => (s * s - sig * sig).max(0.0),
                _ => 0.0,
            };
            let noise = w * self.sig_limit * self.sig_limit + idle;
            match self.variant {
                Variant::Logistic => state.add_noise_best(noise, self.transfer_speed),
                Variant::Gaussian => state.add_noise_and_collapse(noise),
            }
            beta2.push(self.perf_var(w));
            expected.push(state.state.posterior.mu);
        }
        // Step 2: each entry's term (a team: its members' mean skill, plus its factors).
        let off = crate::factor::entry_offsets(game, factors);
        let terms: Small<Gauss> = (0..game.len())
            .map(|e| {
                let r = game.member_range(e);
                let n = r.len() as f64;
                let mu = prepared[r.clone()]
                    .iter()
                    .map(|s| s.state.posterior.mu)
                    .sum::<f64>()
                    / n;
                let skill = prepared[r.clone()]
                    .iter()
                    .map(|s| s.state.posterior.sig * s.state.posterior.sig)
                    .sum::<f64>()
                    / (n * n);
                let noise = beta2[r].iter().sum::<f64>() / n;
                let (fm, fv) = off[e];
                Gauss {
                    mu: mu + fm,
                    sig: (skill + fv + noise).sqrt(),
                }
            })
            .collect();
        // Step 3: performances.
        let perf = self.performances(&terms, game.places());
        // Step 4: every member's belief.
        let max_history = self.subsample_size as usize;
        let mut out = Rated {
            changes: Vec::with_capacity(before.len()),
            states: Vec::with_capacity(before.len()),
            learned: None,
        };
        for (e, &p) in perf.iter().enumerate() {
            for k in game.member_range(e) {
                let pending =
                    std::mem::replace(&mut prepared[k], Pending::fresh(EloMmrState::new(terms[e])));
                // The player's part of the entry's performance: less its factors, whose
                // uncertainty widens the performance's.
                let (fm, fv) = off[e];
                let performance = Gauss {
                    mu: p - fm,
                    sig: (beta2[k] + fv).sqrt(),
                };
                let mut state = match self.variant {
                    Variant::Logistic => pending.update_logistic(performance, max_history),
                    Variant::Gaussian => {
                        let mut state = pending.finish();
                        state.update_normal(performance);
                        state
                    }
                };
                // The belief stays in range: μ is a root sought there, or a weighted mean
                // of values there (up to rounding); σ leaves it only with extreme settings.
                state.posterior.mu = state.posterior.mu.clamp(RATING_RANGE.0, RATING_RANGE.1);
                state.posterior.sig = state.posterior.sig.clamp(SIGMA_RANGE.0, SIGMA_RANGE.1);
                let b = before[k];
                out.changes.push(PlayerChange {
                    before: b,
                    after: Rating {
                        value: state.posterior.mu,
                        sigma: Some(state.posterior.sig),
                        games: b.games.saturating_add(1),
                    },
                    expected: expected[k] + fm,
                    actual: p,
                    k: None,
                    weight: members[k].weight,
                });
                out.states.push(Some(State::spread(state)));
            }
        }
        // Each factor: a Gaussian update of its own belief from the performance of every
        // entry that carries it, less the rest of that entry's term (its players and its
        // other factors, whose variance is the observation's noise), the entries pooled.
        let factor_changes = game
            .factors()
            .iter()
            .zip(factors)
            .map(|(m, f)| {
                let v = f.sigma.map_or(0.0, |s| s * s);
                let (mut precision, mut info) = (v.recip(), 0.0);
                let (mut expected, mut actual) = (0.0, 0.0);
                for &e in &m.entries {
                    let rest = (terms[e].sig * terms[e].sig - v).max(1e-6);
                    precision += rest.recip();
                    info += (perf[e] - terms[e].mu) / rest;
                    expected += terms[e].mu;
                    actual += perf[e];
                }
                let count = m.entries.len() as f64;
                PlayerChange {
                    before: *f,
                    after: Rating {
                        value: f.value + info / precision,
                        sigma: Some(precision.recip().sqrt().clamp(SIGMA_RANGE.0, SIGMA_RANGE.1)),
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
        Ok(Factored {
            rated: out,
            factors: factor_changes,
        })
    }

    /// Each entry's performance, given every entry's term and place (best first).
    fn performances(&self, terms: &[Gauss], places: &[usize]) -> Small<f64> {
        let width = self.subsample_bucket;
        let field = Field::new(terms, places, width);
        let size = self.subsample_size as usize;
        let windowed = size > 0 && size < field.merged.len();
        match self.variant {
            Variant::Logistic => {
                let logistic = Logistic::of(&field, windowed);
                if windowed {
                    let windows: Vec<std::ops::Range<usize>> = terms
                        .iter()
                        .map(|t| field.window(t.mu, size, width))
                        .collect();
                    let constants = field.window_constants(&logistic.w_out, &windows, places);
                    (0..terms.len())
                        .map(|e| {
                            let level = self.level(&field, &logistic, &windows[e], places, e);
                            let window = windows[e].clone();
                            self.logistic_in(&logistic, window, constants[e], &level, terms[e].mu)
                        })
                        .collect()
                } else {
                    self.logistic_by_place(&field, &logistic, places)
                }
            }
            Variant::Gaussian => (0..terms.len())
                .map(|e| {
                    let window = if windowed {
                        field.window(terms[e].mu, size, width)
                    } else {
                        0..field.merged.len()
                    };
                    self.gaussian_in(&field, window, places[e], terms[e].mu)
                })
                .collect(),
        }
    }

    /// The second logistic parts of the entries level with entry `e` whose terms are in
    /// `window` (a tie counts twice unless ties are split): usually the entry's own.
    fn level(
        &self,
        field: &Field,
        logistic: &Logistic,
        window: &std::ops::Range<usize>,
        places: &[usize],
        e: usize,
    ) -> Vec<Tanh> {
        if self.split_ties {
            return Vec::new();
        }
        let group = crate::model::tie_range(places, e);
        group
            .map(|k| field.term_of[k])
            .filter(|j| window.contains(j))
            .map(|j| Tanh {
                w_out: logistic.w_out[j],
                ..logistic.shared[j]
            })
            .collect()
    }

    /// The logistic performance against the merged terms of `window`: their logistic
    /// parts, the wins minus the losses (`constant`), and the `level` entries' second
    /// parts.
    fn logistic_in(
        &self,
        logistic: &Logistic,
        window: std::ops::Range<usize>,
        constant: f64,
        level: &[Tanh],
        guess: f64,
    ) -> f64 {
        let terms = &logistic.shared[window.clone()];
        let f = |x: f64| {
            let [v, d1, d2, d3] = plus(tanh_sums(x, terms), tanh_sums(x, level));
            [constant - v, -d1, -d2, -d3]
        };
        let center = logistic.center;
        let moments = level.iter().fold(
            logistic.moments[window.end].minus(logistic.moments[window.start]),
            |m, t| m.plus(Moments::of(t, center)),
        );
        let x0 = window_start(moments, center, constant).unwrap_or(guess);
        let x0 = x0.clamp(RATING_RANGE.0, RATING_RANGE.1);
        let shape = logistic.shape(window).and(Shape::of(level));
        solve_decreasing(x0, f(x0), shape, f)
    }

    /// The Gaussian performance at `place` against the merged terms of `window`, the
    /// reference's way: every term evaluated with its counts of places below, level and
    /// above.
    fn gaussian_in(
        &self,
        field: &Field,
        window: std::ops::Range<usize>,
        place: usize,
        guess: f64,
    ) -> f64 {
        use std::cmp::Ordering;
        let split = self.split_ties;
        let x0 = guess.clamp(RATING_RANGE.0, RATING_RANGE.1);
        let counted: Vec<(Merged, (f64, f64, f64))> = window
            .map(|j| (field.merged[j], field.counts(j, place)))
            .collect();
        let f = |x: f64| -> Derivs {
            let (mut v, mut d1, mut d2) = (0.0, 0.0, 0.0);
            for (t, (less, eq, greater)) in &counted {
                // Terms ranked ahead are losses; behind, wins.
                for (count, outcome) in [
                    (*less, Ordering::Less),
                    (*eq, Ordering::Equal),
                    (*greater, Ordering::Greater),
                ] {
                    if count > 0.0 {
                        let (a, b, c) = gaussian(x, t.mu, t.sig, outcome, split);
                        v += count * a;
                        d1 += count * b;
                        d2 += count * c;
                    }
                }
            }
            // No third derivative: Halley's steps, each checked by an evaluation.
            [v, d1, d2, 0.0]
        };
        let width = counted
            .iter()
            .map(|(t, _)| t.sig)
            .fold(f64::INFINITY, f64::min);
        solve_decreasing(x0, f(x0), Shape::unbounded(width), f)
    }

    /// Every entry's logistic performance against all terms, solved once per place.
    ///
    /// For the entries at place `r`, the sum over terms is `G(x) + C_r + T_r(x)`: `G`
    /// the logistic parts of all terms (the same for every place), `C_r` the wins minus
    /// the losses (`Σ w_out` of the entries behind minus of those ahead), `T_r` the tied
    /// entries' second logistic part (a tie counts twice unless ties are split). Places
    /// are solved best first, each started from where the last evaluation of `G` was:
    /// where places lie close together (large contests), the [`certified`] step from
    /// there usually needs no new evaluation of `G` at all.
    fn logistic_by_place(
        &self,
        field: &Field,
        logistic: &Logistic,
        places: &[usize],
    ) -> Small<f64> {
        let split = self.split_ties;
        let shared = &logistic.shared;
        let shared_shape = Shape::of(shared);
        let g = |x: f64| -> Derivs {
            let [v, d1, d2, d3] = tanh_sums(x, shared);
            [-v, -d1, -d2, -d3]
        };
        // Each entry's w_out (that of its merged term); their total and running sum.
        let w_out: Small<f64> = field.term_of.iter().map(|&j| logistic.w_out[j]).collect();
        let total: f64 = w_out.iter().sum();
        let mut ahead = 0.0;
        let mut perf: Small<f64> = smallvec::smallvec![0.0; places.len()];
        // Where G was last evaluated, and its values there.
        let mut last: Option<(f64, Derivs)> = None;
        let mut tied: Small<Tanh> = Small::new();
        let mut start = 0;
        while start < places.len() {
            let mut end = start + 1;
            while end < places.len() && places[end] == places[start] {
                end += 1;
            }
            let level: f64 = w_out[start..end].iter().sum();
            let c = (total - ahead - level) - ahead;
            // The tied entries' second logistic parts, one per entry.
            tied.clear();
            if !split {
                tied.extend((start..end).map(|e| {
                    let j = field.term_of[e];
                    Tanh {
                        w_out: logistic.w_out[j],
                        ..logistic.shared[j]
                    }
                }));
            }
            let tied = &tied[..];
            let tie = |x: f64| -> Derivs {
                let [v, d1, d2, d3] = tanh_sums(x, tied);
                [c - v, -d1, -d2, -d3]
            };
            let shape = shared_shape.and(Shape::of(tied));
            let (x0, first) = match last {
                Some((x, shared)) => (x, plus(shared, tie(x))),
                None => {
                    let x = field.merged[field.term_of[start]]
                        .mu
                        .clamp(RATING_RANGE.0, RATING_RANGE.1);
                    let shared = g(x);
                    last = Some((x, shared));
                    (x, plus(shared, tie(x)))
                }
            };
            let root = {
                let mut eval = |x: f64| -> Derivs {
                    let shared = g(x);
                    last = Some((x, shared));
                    plus(shared, tie(x))
                };
                solve_decreasing(x0, first, shape, &mut eval)
            };
            perf[start..end].fill(root);
            ahead += level;
            start = end;
        }
        perf
    }
}

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
