//! TrueSkill Through Time: every player's skill curve over a whole history, smoothed
//! forward and backward in time (Dangauthier, Herbrich, Minka & Graepel, "TrueSkill
//! Through Time: Revisiting the History of Chess", NIPS 2007; Landfried & Mocskos,
//! "TrueSkill Through Time: Reliable Initial Skill Estimates and Historical Comparability
//! with Julia, Python and R", J. Stat. Softw. 112(6), 2025).
//!
//! Each player's skill is a Gaussian random walk (σ² grows by `γ²` per unit of time);
//! each match compares the teams' performances (the sum of their members' skills plus
//! noise `β`), best first, by expectation propagation. Matches played at the same time
//! form one batch. A first forward pass is TrueSkill with those dynamics; then
//! [`History::converge`] passes messages backward and forward through the batches until
//! no posterior moves more than `epsilon`, so that every estimate uses the whole history,
//! later matches included.
//!
//! The arithmetic follows the authors' Python package `trueskillthroughtime` 1.1.0 step
//! for step (its approximation of `erfc`, its order of operations), so the curves agree
//! with it to 1e-6 and better (`scripts/reference/ttt_vectors.py`). One difference: the
//! package hands the messages of a game of more than two teams back by `t[o[e]]` (the
//! sorted position of team `e`'s rank), which is a different team when the results are
//! not listed in an order the sort undoes in one swap; here each team gets its own
//! message. Listed best first (as [`History::from_matches`] lists them), both agree.
//!
//! The whole history costs `O(I · Σ N)` for `I` passes over matches of `N` players (a
//! match of more than two teams adds up to 10 inner sweeps).
//!
//! ```
//! use podium::history::{Event, History, TttConfig};
//! // The package's README: a beats b, b beats c, c beats a, one game per time step.
//! let events = vec![
//!     Event::ranked(vec![vec![0], vec![1]]),
//!     Event::ranked(vec![vec![1], vec![2]]),
//!     Event::ranked(vec![vec![2], vec![0]]),
//! ];
//! let config = TttConfig { gamma: 0.0, ..TttConfig::default() };
//! let mut h = History::new(3, &events, None, &config).unwrap();
//! h.converge().unwrap();
//! let curves = h.curves();
//! // After convergence the three are equal in skill.
//! assert!(curves[0][0].1.abs() < 1e-6 && curves[1][0].1.abs() < 1e-6);
//! ```

use thiserror::Error;

use crate::model::Match;

/// Parameters of the smoother. The defaults are `trueskillthroughtime` 1.1.0's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TttConfig {
    /// Prior mean skill of a new player. Default 0.
    pub mu: f64,
    /// Prior standard deviation of a new player's skill. Default 6.
    pub sigma: f64,
    /// Performance noise β: the standard deviation of one performance around the skill;
    /// it sets the scale of every estimate. Default 1.
    pub beta: f64,
    /// Skill drift γ: σ² grows by `γ²` per unit of time between a player's matches (by
    /// `γ²` per match when the history has no times). Default 0.03.
    pub gamma: f64,
    /// Probability that two evenly matched teams draw; it sets the margin within which
    /// performances tie. Must be above 0 when a match has tied entries. Default 0.
    pub p_draw: f64,
    /// Convergence: the passes stop when no posterior mean or σ moves more. Default 1e-6.
    pub epsilon: f64,
    /// At most this many backward-forward passes, from 1 to [`MAX_ITERATIONS`]. Default 30.
    pub iterations: u32,
}

impl Default for TttConfig {
    fn default() -> Self {
        TttConfig {
            mu: 0.0,
            sigma: 6.0,
            beta: 1.0,
            gamma: 0.03,
            p_draw: 0.0,
            epsilon: 1e-6,
            iterations: 30,
        }
    }
}

/// Why a history cannot be smoothed.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum HistoryError {
    /// `times` was given with another length than the events.
    #[error("{times} times for {events} events: give one time per event")]
    TimesLength {
        /// Events given.
        events: usize,
        /// Times given.
        times: usize,
    },
    /// An event is malformed.
    #[error("event {event}: {what}")]
    Event {
        /// 0-based index of the event.
        event: usize,
        /// What is wrong.
        what: String,
    },
    /// A parameter is out of range.
    #[error("{name} = {value} is out of range: expected {expected}")]
    Param {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// Its range.
        expected: &'static str,
    },
    /// The smoothed skills left the floating-point range: a drift so large against the
    /// performance noise that what a match says of a skill is below rounding.
    #[error("the smoothed skills are not finite numbers (with sigma = {sigma}, beta = {beta}, gamma = {gamma}): the drift and the prior swamp the performance noise in floating point; expected gamma and sigma at most about a million times beta")]
    NotFinite {
        /// The prior σ.
        sigma: f64,
        /// The performance noise β.
        beta: f64,
        /// The drift γ.
        gamma: f64,
    },
    /// A match cannot be read as an event.
    #[error("match {id:?}: {what}")]
    Match {
        /// The match's id.
        id: String,
        /// What is wrong.
        what: String,
    },
}

/// One match: teams of players (indices `0..players`), each team's result (higher is
/// better, equal results tie) and each member's weight (share of the match played).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The teams, each a list of player indices.
    pub teams: Vec<Vec<usize>>,
    /// One result per team, higher is better; empty = the teams are listed best first.
    pub results: Vec<f64>,
    /// One weight per member of each team; empty = all 1.
    pub weights: Vec<Vec<f64>>,
}

impl Event {
    /// Teams listed best first, no ties, full weights.
    #[must_use]
    pub fn ranked(teams: Vec<Vec<usize>>) -> Self {
        Event {
            teams,
            results: Vec::new(),
            weights: Vec::new(),
        }
    }
}

/// A Gaussian by mean and standard deviation, with the package's arithmetic.
#[derive(Debug, Clone, Copy, PartialEq)]
struct N {
    mu: f64,
    sigma: f64,
}

const INF: f64 = f64::INFINITY;
/// The uniform message (`Ninf`).
const NINF: N = N {
    mu: 0.0,
    sigma: INF,
};
/// The point mass at 0 (`N00`).
const N00: N = N {
    mu: 0.0,
    sigma: 0.0,
};

fn mu_sigma(tau: f64, pi: f64) -> N {
    if pi > 0.0 {
        N {
            mu: tau / pi,
            sigma: (1.0 / pi).sqrt(),
        }
    } else {
        // The package raises below -1e-5; a negative precision from rounding reads as
        // no information either way.
        NINF
    }
}

impl N {
    fn new(mu: f64, sigma: f64) -> N {
        N { mu, sigma }
    }
    fn tau(self) -> f64 {
        if self.sigma > 0.0 {
            self.mu * self.sigma.powi(-2)
        } else {
            INF
        }
    }
    fn pi(self) -> f64 {
        if self.sigma > 0.0 {
            self.sigma.powi(-2)
        } else {
            INF
        }
    }
    fn add(self, m: N) -> N {
        N::new(
            self.mu + m.mu,
            (self.sigma.powi(2) + m.sigma.powi(2)).sqrt(),
        )
    }
    fn sub(self, m: N) -> N {
        N::new(
            self.mu - m.mu,
            (self.sigma.powi(2) + m.sigma.powi(2)).sqrt(),
        )
    }
    fn scale(self, w: f64) -> N {
        if w == INF {
            NINF
        } else {
            N::new(w * self.mu, w.abs() * self.sigma)
        }
    }
    fn mul(self, m: N) -> N {
        if self.sigma == 0.0 || m.sigma == 0.0 {
            let mu = if self.sigma == 0.0 {
                self.mu / ((self.sigma.powi(2) / m.sigma.powi(2)) + 1.0)
            } else {
                m.mu / ((m.sigma.powi(2) / self.sigma.powi(2)) + 1.0)
            };
            N::new(mu, 0.0)
        } else {
            mu_sigma(self.tau() + m.tau(), self.pi() + m.pi())
        }
    }
    fn div(self, m: N) -> N {
        mu_sigma(self.tau() - m.tau(), self.pi() - m.pi())
    }
    fn forget(self, gamma: f64, t: f64) -> N {
        N::new(self.mu, (self.sigma.powi(2) + t * gamma.powi(2)).sqrt())
    }
    fn delta(self, m: N) -> (f64, f64) {
        ((self.mu - m.mu).abs(), (self.sigma - m.sigma).abs())
    }
    fn exclude(self, m: N) -> N {
        N::new(
            self.mu - m.mu,
            (self.sigma.powi(2) - m.sigma.powi(2)).sqrt(),
        )
    }
}

/// Python's `max(a, b)`: `b` only when it is larger (a NaN never wins).
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

fn max_tuple(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (py_max(a.0, b.0), py_max(a.1, b.1))
}

fn above(t: (f64, f64), threshold: f64) -> bool {
    t.0 > threshold || t.1 > threshold
}

const SQRT2: f64 = std::f64::consts::SQRT_2;

/// The package's `erfc` (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + z / 2.0);
    let a = -0.82215223 + t * 0.17087277;
    let b = 1.48851587 + t * a;
    let c = -1.13520398 + t * b;
    let d = 0.27886807 + t * c;
    let e = -0.18628806 + t * d;
    let f = 0.09678418 + t * e;
    let g = 0.37409196 + t * f;
    let h = 1.00002368 + t * g;
    let r = t * (-z * z - 1.26551223 + t * h).exp();
    if x < 0.0 {
        2.0 - r
    } else {
        r
    }
}

/// The package's inverse of [`erfc`] (three Newton steps from a rational guess); its
/// literal −0.70711 is kept, not 1/√2, to give the package's values.
#[allow(clippy::approx_constant)]
fn erfcinv(y: f64) -> f64 {
    if y >= 2.0 {
        return -INF;
    }
    if y <= 0.0 {
        return INF;
    }
    let y0 = if y < 1.0 { y } else { 2.0 - y };
    let t = (-2.0 * (y0 / 2.0).ln()).sqrt();
    let mut x = -0.70711 * ((2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t);
    for _ in 0..3 {
        let err = erfc(x) - y0;
        x += err / (std::f64::consts::FRAC_2_SQRT_PI * (-(x.powi(2))).exp() - x * err);
    }
    if y < 1.0 {
        x
    } else {
        -x
    }
}

fn cdf(x: f64, mu: f64, sigma: f64) -> f64 {
    let z = -(x - mu) / (sigma * SQRT2);
    0.5 * erfc(z)
}

fn pdf(x: f64, mu: f64, sigma: f64) -> f64 {
    let normalizer = ((2.0 * std::f64::consts::PI).sqrt() * sigma).powi(-1);
    normalizer * (-((x - mu).powi(2)) / (2.0 * sigma.powi(2))).exp()
}

fn ppf(p: f64, mu: f64, sigma: f64) -> f64 {
    mu - sigma * SQRT2 * erfcinv(2.0 * p)
}

/// The half-width of the draw margin of a pair whose performance difference has
/// standard deviation `sd`.
fn draw_margin(p_draw: f64, sd: f64) -> f64 {
    ppf(0.5 - p_draw / 2.0, 0.0, sd).abs()
}

/// A probability mass below which [`trunc`] reads the tail's expansion instead of ratios
/// of densities and masses that are subnormal or nearly so.
const TINY: f64 = 1e-290;

fn trunc(mu: f64, sigma: f64, margin: f64, tie: bool) -> (f64, f64) {
    let (v, w) = if tie {
        let a = (-margin - mu) / sigma;
        let b = (margin - mu) / sigma;
        // The mass of [a, b]. Far in the upper tail `cdf(b) - cdf(a)` is the difference
        // of two numbers that round to 1 (0, and a NaN below, for a tie whose difference
        // lies many σ from the draw margin): there the upper tails are subtracted.
        let z = if a > 0.0 {
            cdf(-a, 0.0, 1.0) - cdf(-b, 0.0, 1.0)
        } else {
            cdf(b, 0.0, 1.0) - cdf(a, 0.0, 1.0)
        };
        let v = (pdf(a, 0.0, 1.0) - pdf(b, 0.0, 1.0)) / z;
        let u = (a * pdf(a, 0.0, 1.0) - b * pdf(b, 0.0, 1.0)) / z;
        // Below ~1e-290 the mass and the densities are subnormal or nearly so and their
        // ratios lose every digit: the tail's own expansion takes over there too.
        if z > TINY && v.is_finite() && u.is_finite() {
            (v, -(u - v.powi(2)))
        } else {
            tail_interval(a, b)
        }
    } else {
        let a = (margin - mu) / sigma;
        let mass = cdf(-a, 0.0, 1.0);
        let v = pdf(-a, 0.0, 1.0) / mass;
        if mass > TINY && v.is_finite() {
            (v, v * (v + (-a)))
        } else {
            // A loss of the favourite by more than ~38 σ: Φ(−a) underflows; the
            // Mills ratio's expansion gives v.
            let v = a + 1.0 / a;
            (v, v * (v - a))
        }
    };
    // Rounding can take w to 1 or above in the far tails: keep the σ positive.
    (mu + sigma * v, sigma * (1.0 - w).max(1e-12).sqrt())
}

/// `(v, w)` of a standard normal truncated to `[a, b]` that lies so far in a tail that its
/// mass underflows: there the density is an exponential of rate |a| (upper tail) or |b|
/// (lower tail) cut at the interval's width, whose mean and variance give `v` and
/// `w = 1 − variance`.
fn tail_interval(a: f64, b: f64) -> (f64, f64) {
    let (edge, rate, sign) = if a > 0.0 { (a, a, 1.0) } else { (b, -b, -1.0) };
    let d = b - a;
    let x = rate * d;
    let (mean, var) = if x > 700.0 {
        (1.0 / rate, 1.0 / rate.powi(2))
    } else {
        let e = x.exp();
        (
            1.0 / rate - d / (e - 1.0),
            1.0 / rate.powi(2) - d.powi(2) * e / (e - 1.0).powi(2),
        )
    };
    (edge + sign * mean, 1.0 - var)
}

fn approx(n: N, margin: f64, tie: bool) -> N {
    let (mu, sigma) = trunc(n.mu, n.sigma, margin, tie);
    N::new(mu, sigma)
}

/// A player as a game sees them: prior skill, noise and drift.
#[derive(Debug, Clone, Copy)]
struct Player {
    prior: N,
    beta: f64,
    gamma: f64,
}

impl Player {
    fn performance(&self) -> N {
        N::new(
            self.prior.mu,
            (self.prior.sigma.powi(2) + self.beta.powi(2)).sqrt(),
        )
    }
}

/// One game's messages: the likelihood of each member's skill, by expectation
/// propagation over the teams sorted by result (`Game` of the package).
fn game_likelihoods(
    teams: &[Vec<Player>],
    results: &[f64],
    weights: &[Vec<f64>],
    p_draw: f64,
) -> Vec<Vec<N>> {
    let k = teams.len();
    let weight = |e: usize, i: usize| weights.get(e).and_then(|w| w.get(i)).copied();
    let performance = |e: usize| {
        teams[e].iter().enumerate().fold(N00, |res, (i, p)| {
            res.add(p.performance().scale(weight(e, i).unwrap_or(1.0)))
        })
    };
    // Best first; equal results keep their order.
    let r: Vec<f64> = if results.is_empty() {
        (0..k).rev().map(|i| i as f64).collect()
    } else {
        results.to_vec()
    };
    let mut o: Vec<usize> = (0..k).collect();
    o.sort_by(|&a, &b| r[b].total_cmp(&r[a]));
    let tie: Vec<bool> = (0..k - 1).map(|e| r[o[e]] == r[o[e + 1]]).collect();
    let margin: Vec<f64> = (0..k - 1)
        .map(|e| {
            if p_draw == 0.0 {
                0.0
            } else {
                let betas = |t: usize| teams[t].iter().map(|a| a.beta.powi(2)).sum::<f64>();
                draw_margin(p_draw, (betas(o[e]) + betas(o[e + 1])).sqrt())
            }
        })
        .collect();
    let unit = weights.iter().flatten().all(|&w| w == 1.0);
    if k == 2 && unit {
        return analytic(teams, &o, &performance, margin[0], tie[0]);
    }
    // Team variables in sorted order: prior, likelihood from the loss and the win side.
    let prior: Vec<N> = o.iter().map(|&e| performance(e)).collect();
    let mut lose = vec![NINF; k];
    let mut win = vec![NINF; k];
    let posterior_win = |e: usize, lose: &[N]| prior[e].mul(lose[e]).mul(NINF);
    let posterior_lose = |e: usize, win: &[N]| prior[e].mul(win[e]).mul(NINF);
    let mut d_lik = vec![NINF; k - 1];
    let mut step = (INF, INF);
    let mut i = 0;
    while above(step, 1e-6) && i < 10 {
        step = (0.0, 0.0);
        for e in 0..k.saturating_sub(2) {
            let d_prior = posterior_win(e, &lose).sub(posterior_lose(e + 1, &win));
            d_lik[e] = approx(d_prior, margin[e], tie[e]).div(d_prior);
            let l = posterior_win(e, &lose).sub(d_lik[e]);
            step = max_tuple(step, lose[e + 1].delta(l));
            lose[e + 1] = l;
        }
        for e in (1..k - 1).rev() {
            let d_prior = posterior_win(e, &lose).sub(posterior_lose(e + 1, &win));
            d_lik[e] = approx(d_prior, margin[e], tie[e]).div(d_prior);
            let w = posterior_lose(e + 1, &win).add(d_lik[e]);
            step = max_tuple(step, win[e].delta(w));
            win[e] = w;
        }
        i += 1;
    }
    if k == 2 {
        let d_prior = posterior_win(0, &lose).sub(posterior_lose(1, &win));
        d_lik[0] = approx(d_prior, margin[0], tie[0]).div(d_prior);
    }
    win[0] = posterior_lose(1, &win).add(d_lik[0]);
    lose[k - 1] = posterior_win(k - 2, &lose).sub(d_lik[k - 2]);
    // Each team's message, back in the given order.
    let mut m_t = vec![NINF; k];
    for (s, &e) in o.iter().enumerate() {
        m_t[e] = win[s].mul(lose[s]).mul(NINF);
    }
    (0..k)
        .map(|e| {
            let perf = performance(e);
            teams[e]
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let w = weight(e, i).unwrap_or(1.0);
                    let inv = if w != 0.0 { 1.0 / w } else { INF };
                    m_t[e].sub(perf.exclude(p.prior.scale(w))).scale(inv)
                })
                .collect()
        })
        .collect()
}

/// Two teams, full weights: the closed form (`likelihood_analitico` of the package).
fn analytic(
    teams: &[Vec<Player>],
    o: &[usize],
    performance: &dyn Fn(usize) -> N,
    margin: f64,
    tie: bool,
) -> Vec<Vec<N>> {
    let d = performance(o[0]).sub(performance(o[1]));
    let (mu_trunc, sigma_trunc) = trunc(d.mu, d.sigma, margin, tie);
    let (delta_div, theta_div_pow2) = if d.sigma == sigma_trunc {
        (d.sigma.powi(2) * mu_trunc - sigma_trunc.powi(2) * d.mu, INF)
    } else {
        let den = d.sigma.powi(2) - sigma_trunc.powi(2);
        (
            (d.sigma.powi(2) * mu_trunc - sigma_trunc.powi(2) * d.mu) / den,
            (sigma_trunc.powi(2) * d.sigma.powi(2)) / den,
        )
    };
    let mut res: Vec<Vec<N>> = (0..2)
        .map(|i| {
            teams[o[i]]
                .iter()
                .map(|p| {
                    let mu = if d.sigma == sigma_trunc {
                        0.0
                    } else {
                        let sign = if i == 1 { -1.0 } else { 1.0 };
                        p.prior.mu + (delta_div - d.mu) * sign
                    };
                    let sigma = (theta_div_pow2 + d.sigma.powi(2) - p.prior.sigma.powi(2)).sqrt();
                    N::new(mu, sigma)
                })
                .collect()
        })
        .collect();
    if o[0] > o[1] {
        res.swap(0, 1);
    }
    res
}

/// The likelihood messages of one match, for forward rating: given each member's prior
/// `(μ, σ)`, the teams' results (higher is better) and weights, returns each member's
/// posterior `(μ, σ)` after the match (TrueSkill as the package computes one game).
pub(crate) fn game_posteriors(
    priors: &[Vec<(f64, f64)>],
    results: &[f64],
    weights: &[Vec<f64>],
    beta: f64,
    p_draw: f64,
) -> Vec<Vec<(f64, f64)>> {
    let teams: Vec<Vec<Player>> = priors
        .iter()
        .map(|t| {
            t.iter()
                .map(|&(mu, sigma)| Player {
                    prior: N::new(mu, sigma),
                    beta,
                    gamma: 0.0,
                })
                .collect()
        })
        .collect();
    let lik = game_likelihoods(&teams, results, weights, p_draw);
    teams
        .iter()
        .zip(lik)
        .map(|(t, l)| {
            t.iter()
                .zip(l)
                .map(|(p, l)| {
                    let post = l.mul(p.prior);
                    (post.mu, post.sigma)
                })
                .collect()
        })
        .collect()
}

#[derive(Debug, Clone)]
struct Skill {
    forward: N,
    backward: N,
    likelihood: N,
    elapsed: f64,
}

#[derive(Debug, Clone)]
struct Item {
    /// Index into the batch's skills.
    slot: usize,
    likelihood: N,
}

#[derive(Debug, Clone)]
struct BatchEvent {
    teams: Vec<Vec<Item>>,
    results: Vec<f64>,
    weights: Vec<Vec<f64>>,
}

#[derive(Debug, Clone)]
struct Batch {
    time: f64,
    /// The player of each skill.
    players: Vec<usize>,
    skills: Vec<Skill>,
    events: Vec<BatchEvent>,
}

#[derive(Debug, Clone)]
struct Agent {
    player: Player,
    /// The last message sent along the player's chain; `None` is the package's `Ninf`
    /// sentinel (no message yet: the prior is used).
    message: Option<N>,
    last_time: f64,
}

impl Agent {
    fn receive(&self, elapsed: f64) -> N {
        match self.message {
            Some(m) => m.forget(self.player.gamma, elapsed),
            None => self.player.prior,
        }
    }
}

fn elapsed(last: f64, now: f64) -> f64 {
    if last == -INF {
        0.0
    } else if last == INF {
        1.0
    } else {
        now - last
    }
}

impl Batch {
    fn posterior(&self, s: usize) -> N {
        let k = &self.skills[s];
        k.likelihood.mul(k.backward).mul(k.forward)
    }

    fn posteriors(&self) -> Vec<N> {
        (0..self.skills.len()).map(|s| self.posterior(s)).collect()
    }

    fn iteration(&mut self, agents: &[Agent], p_draw: f64) {
        for e in 0..self.events.len() {
            let ev = &self.events[e];
            let teams: Vec<Vec<Player>> = ev
                .teams
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|item| {
                            let r = agents[self.players[item.slot]].player;
                            Player {
                                prior: self.posterior(item.slot).div(item.likelihood),
                                ..r
                            }
                        })
                        .collect()
                })
                .collect();
            let lik = game_likelihoods(&teams, &ev.results, &ev.weights, p_draw);
            let ev = &mut self.events[e];
            for (team, l) in ev.teams.iter_mut().zip(lik) {
                for (item, l) in team.iter_mut().zip(l) {
                    let sk = &mut self.skills[item.slot];
                    sk.likelihood = sk.likelihood.div(item.likelihood).mul(l);
                    item.likelihood = l;
                }
            }
        }
    }

    fn convergence(&mut self, agents: &[Agent], p_draw: f64, epsilon: f64, iterations: u32) {
        let (mut step, mut i) = ((INF, INF), 0);
        while above(step, epsilon) && i < iterations {
            let old = self.posteriors();
            self.iteration(agents, p_draw);
            step = diff(&old, &self.posteriors());
            i += 1;
        }
    }

    fn forward_prior_out(&self, s: usize) -> N {
        let k = &self.skills[s];
        k.forward.mul(k.likelihood)
    }

    fn backward_prior_out(&self, s: usize, agents: &[Agent]) -> N {
        let k = &self.skills[s];
        k.likelihood
            .mul(k.backward)
            .forget(agents[self.players[s]].player.gamma, k.elapsed)
    }
}

fn diff(old: &[N], new: &[N]) -> (f64, f64) {
    old.iter()
        .zip(new)
        .fold((0.0, 0.0), |step, (a, b)| max_tuple(step, a.delta(*b)))
}

/// A whole history being smoothed.
#[derive(Debug, Clone)]
pub struct History {
    agents: Vec<Agent>,
    batches: Vec<Batch>,
    config: TttConfig,
}

/// The most passes of the smoother a history may be given.
pub const MAX_ITERATIONS: u32 = 1000;

fn check_config(c: &TttConfig) -> Result<(), HistoryError> {
    let bad = |name, value, expected| {
        Err(HistoryError::Param {
            name,
            value,
            expected,
        })
    };
    if !c.mu.is_finite() {
        return bad("mu", c.mu, "a finite number");
    }
    if !(c.sigma > 0.0 && c.sigma.is_finite()) {
        return bad("sigma", c.sigma, "a finite number above 0");
    }
    if !(c.beta >= 0.0 && c.beta.is_finite()) {
        return bad("beta", c.beta, "a finite number ≥ 0");
    }
    if !(c.gamma >= 0.0 && c.gamma.is_finite()) {
        return bad("gamma", c.gamma, "a finite number ≥ 0");
    }
    if !(0.0..1.0).contains(&c.p_draw) {
        return bad("p_draw", c.p_draw, "in [0, 1)");
    }
    if c.epsilon.is_nan() || c.epsilon <= 0.0 {
        return bad("epsilon", c.epsilon, "above 0");
    }
    // No pass would leave the filtered estimates as the smoothed ones; a cap of passes
    // beyond a thousand, with a small epsilon, would run for hours on a long history.
    if !(1..=MAX_ITERATIONS).contains(&c.iterations) {
        return bad(
            "iterations",
            f64::from(c.iterations),
            "a whole number from 1 to 1000",
        );
    }
    Ok(())
}

fn check_event(e: usize, ev: &Event, players: usize, p_draw: f64) -> Result<(), HistoryError> {
    let bad = |what: String| Err(HistoryError::Event { event: e, what });
    if ev.teams.len() < 2 {
        return bad(format!("{} teams, expected at least 2", ev.teams.len()));
    }
    if !ev.results.is_empty() && ev.results.len() != ev.teams.len() {
        return bad(format!(
            "{} results for {} teams",
            ev.results.len(),
            ev.teams.len()
        ));
    }
    if ev.results.iter().any(|r| r.is_nan()) {
        return bad("a result is not a number".into());
    }
    if !ev.weights.is_empty()
        && (ev.weights.len() != ev.teams.len()
            || ev
                .weights
                .iter()
                .zip(&ev.teams)
                .any(|(w, t)| w.len() != t.len()))
    {
        return bad("the weights do not have one value per member of each team".into());
    }
    if ev
        .weights
        .iter()
        .flatten()
        .any(|w| !(*w >= 0.0 && w.is_finite()))
    {
        return bad("a weight is not a finite number ≥ 0".into());
    }
    let mut seen = std::collections::HashSet::new();
    for t in &ev.teams {
        if t.is_empty() {
            return bad("an empty team".into());
        }
        for &p in t {
            if p >= players {
                return bad(format!("player {p} is not below the {players} players"));
            }
            if !seen.insert(p) {
                return bad(format!("player {p} appears twice"));
            }
        }
    }
    if p_draw == 0.0 && !ev.results.is_empty() {
        let mut r = ev.results.clone();
        r.sort_by(f64::total_cmp);
        if r.windows(2).any(|w| w[0] == w[1]) {
            return bad("tied teams need p_draw above 0".into());
        }
    }
    Ok(())
}

impl History {
    /// Builds the history and runs the first forward pass (TrueSkill with the random
    /// walk). `times` (one per event, any unit that `gamma` is per) puts events of equal
    /// time in one batch; without times each event is its own step of time 1.
    ///
    /// # Errors
    /// [`HistoryError`] for parameters out of range, times of the wrong length or an
    /// event that is malformed (fewer than two teams, results or weights of the wrong
    /// shape, an unknown or repeated player, ties with `p_draw` 0).
    pub fn new(
        players: usize,
        events: &[Event],
        times: Option<&[f64]>,
        config: &TttConfig,
    ) -> Result<Self, HistoryError> {
        check_config(config)?;
        if let Some(t) = times {
            if t.len() != events.len() {
                return Err(HistoryError::TimesLength {
                    events: events.len(),
                    times: t.len(),
                });
            }
            if let Some(i) = t.iter().position(|x| !x.is_finite()) {
                return Err(HistoryError::Event {
                    event: i,
                    what: format!("time {} is not a finite number", t[i]),
                });
            }
        }
        for (e, ev) in events.iter().enumerate() {
            check_event(e, ev, players, config.p_draw)?;
        }
        let player = Player {
            prior: N::new(config.mu, config.sigma),
            beta: config.beta,
            gamma: config.gamma,
        };
        let mut h = History {
            agents: vec![
                Agent {
                    player,
                    message: None,
                    last_time: -INF,
                };
                players
            ],
            batches: Vec::new(),
            config: *config,
        };
        let mut order: Vec<usize> = (0..events.len()).collect();
        if let Some(t) = times {
            order.sort_by(|&a, &b| t[a].total_cmp(&t[b]));
        }
        let mut i = 0;
        while i < order.len() {
            let mut j = i + 1;
            let t = match times {
                Some(ts) => {
                    while j < order.len() && ts[order[j]] == ts[order[i]] {
                        j += 1;
                    }
                    ts[order[i]]
                }
                None => (i + 1) as f64,
            };
            let batch = h.new_batch(order[i..j].iter().map(|&k| &events[k]), t);
            for (s, &a) in batch.players.iter().enumerate() {
                h.agents[a].last_time = if times.is_some() { t } else { INF };
                h.agents[a].message = Some(batch.forward_prior_out(s));
            }
            h.batches.push(batch);
            i = j;
        }
        Ok(h)
    }

    fn new_batch<'e>(&self, events: impl Iterator<Item = &'e Event>, time: f64) -> Batch {
        let mut b = Batch {
            time,
            players: Vec::new(),
            skills: Vec::new(),
            events: Vec::new(),
        };
        let mut slot_of = std::collections::HashMap::new();
        for ev in events {
            let teams = ev
                .teams
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|&a| {
                            let slot = *slot_of.entry(a).or_insert_with(|| {
                                let el = elapsed(self.agents[a].last_time, time);
                                b.players.push(a);
                                b.skills.push(Skill {
                                    forward: self.agents[a].receive(el),
                                    backward: NINF,
                                    likelihood: NINF,
                                    elapsed: el,
                                });
                                b.players.len() - 1
                            });
                            Item {
                                slot,
                                likelihood: NINF,
                            }
                        })
                        .collect()
                })
                .collect();
            b.events.push(BatchEvent {
                teams,
                results: ev.results.clone(),
                weights: ev.weights.clone(),
            });
        }
        b.iteration(&self.agents, self.config.p_draw);
        b
    }

    /// Reads matches as a history: entries are teams listed best first (ties share a
    /// result), members keep their weights, and players are numbered in order of first
    /// appearance (their ids are returned). Times are days (seconds / 86400) when every
    /// match has one; otherwise each match is one step of time.
    ///
    /// # Errors
    /// [`HistoryError::Match`] for a match with tied entries when `p_draw` is 0, and the
    /// errors of [`History::new`].
    pub fn from_matches(
        matches: &[Match],
        config: &TttConfig,
    ) -> Result<(Self, Vec<String>), HistoryError> {
        let mut ids: Vec<String> = Vec::new();
        let mut index = std::collections::HashMap::<&str, usize>::new();
        let mut events = Vec::with_capacity(matches.len());
        for m in matches {
            if config.p_draw == 0.0 && m.groups().count() < m.len() {
                return Err(HistoryError::Match {
                    id: m.id().to_string(),
                    what: "tied entries need p_draw above 0".into(),
                });
            }
            let teams = m
                .entries()
                .iter()
                .map(|e| {
                    e.members
                        .iter()
                        .map(|p| {
                            *index.entry(p.player.as_str()).or_insert_with(|| {
                                ids.push(p.player.clone());
                                ids.len() - 1
                            })
                        })
                        .collect()
                })
                .collect();
            let weights: Vec<Vec<f64>> = m
                .entries()
                .iter()
                .map(|e| e.members.iter().map(|p| p.weight).collect())
                .collect();
            let full = weights.iter().flatten().all(|&w| w == 1.0);
            events.push(Event {
                teams,
                results: (0..m.len()).map(|e| -(m.place(e) as f64)).collect(),
                weights: if full { Vec::new() } else { weights },
            });
        }
        let times: Option<Vec<f64>> = matches
            .iter()
            .map(|m| m.time().map(|t| t as f64 / 86_400.0))
            .collect();
        let h = History::new(ids.len(), &events, times.as_deref(), config)?;
        Ok((h, ids))
    }

    /// One backward and one forward pass over the batches; returns the largest move of
    /// any posterior `(mean, σ)`.
    pub fn iteration(&mut self) -> (f64, f64) {
        let p_draw = self.config.p_draw;
        let mut step = (0.0, 0.0);
        let n = self.batches.len();
        for a in &mut self.agents {
            a.message = None;
        }
        for j in (0..n.saturating_sub(1)).rev() {
            let next = &self.batches[j + 1];
            for (s, &a) in next.players.iter().enumerate() {
                self.agents[a].message = Some(next.backward_prior_out(s, &self.agents));
            }
            let b = &mut self.batches[j];
            let old = b.posteriors();
            for (s, &a) in b.players.iter().enumerate() {
                b.skills[s].backward = self.agents[a].message.unwrap_or(NINF);
            }
            b.iteration(&self.agents, p_draw);
            step = max_tuple(step, diff(&old, &b.posteriors()));
        }
        for a in &mut self.agents {
            a.message = None;
        }
        for j in 1..n {
            let prev = &self.batches[j - 1];
            for (s, &a) in prev.players.iter().enumerate() {
                self.agents[a].message = Some(prev.forward_prior_out(s));
            }
            let b = &mut self.batches[j];
            let old = b.posteriors();
            for (s, &a) in b.players.iter().enumerate() {
                b.skills[s].forward = self.agents[a].receive(b.skills[s].elapsed);
            }
            b.iteration(&self.agents, p_draw);
            step = max_tuple(step, diff(&old, &b.posteriors()));
        }
        if n == 1 {
            let b = &mut self.batches[0];
            let old = b.posteriors();
            b.convergence(&self.agents, p_draw, 1e-6, 20);
            step = max_tuple(step, diff(&old, &b.posteriors()));
        }
        step
    }

    /// Passes until no posterior moves more than `epsilon`, at most `iterations` times;
    /// returns the last step and the passes made.
    ///
    /// # Errors
    /// [`HistoryError::NotFinite`] when a posterior is not a finite number: a drift `gamma`
    /// (or prior `sigma`) so large against `beta` that the passes lose every digit.
    pub fn converge(&mut self) -> Result<((f64, f64), u32), HistoryError> {
        let (mut step, mut i) = ((INF, INF), 0);
        while above(step, self.config.epsilon) && i < self.config.iterations {
            step = self.iteration();
            i += 1;
        }
        let finite = self.batches.iter().all(|b| {
            (0..b.players.len()).all(|s| {
                let p = b.posterior(s);
                p.mu.is_finite() && p.sigma.is_finite()
            })
        });
        if !finite || step.0.is_nan() || step.1.is_nan() {
            let c = &self.config;
            return Err(HistoryError::NotFinite {
                sigma: c.sigma,
                beta: c.beta,
                gamma: c.gamma,
            });
        }
        Ok((step, i))
    }

    /// Each player's curve: `(time, mean, σ)` at every batch they played in, in time
    /// order (the times given, or 1, 2, … without times).
    #[must_use]
    pub fn curves(&self) -> Vec<Vec<(f64, f64, f64)>> {
        let mut out = vec![Vec::new(); self.agents.len()];
        for b in &self.batches {
            for (s, &a) in b.players.iter().enumerate() {
                let p = b.posterior(s);
                out[a].push((b.time, p.mu, p.sigma));
            }
        }
        out
    }
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;

    /// One history smoothed by `trueskillthroughtime` (see `reference.rs`).
    pub(super) struct Case {
        pub name: &'static str,
        pub players: usize,
        /// Each event: teams, results (empty: best first), weights (empty: all 1).
        #[allow(clippy::type_complexity)]
        pub events: &'static [(
            &'static [&'static [usize]],
            &'static [f64],
            &'static [&'static [f64]],
        )],
        /// Empty: no times.
        pub times: &'static [f64],
        pub mu: f64,
        pub sigma: f64,
        pub beta: f64,
        pub gamma: f64,
        pub p_draw: f64,
        /// `(player, time, mean, σ)` after convergence, each player's in time order.
        pub curves: &'static [(usize, f64, f64, f64)],
    }

    /// Passes are at least one (none would give the filtered estimates as smoothed ones)
    /// and at most [`MAX_ITERATIONS`].
    #[test]
    fn passes_from_1_to_the_limit_are_taken() {
        let events = [Event {
            teams: vec![vec![0], vec![1]],
            results: vec![],
            weights: vec![],
        }];
        let with = |iterations| {
            let config = TttConfig {
                iterations,
                ..TttConfig::default()
            };
            History::new(2, &events, None, &config).map(|_| ())
        };
        for iterations in [0, MAX_ITERATIONS + 1, u32::MAX] {
            assert_eq!(
                with(iterations).unwrap_err().to_string(),
                format!("iterations = {iterations} is out of range: expected a whole number from 1 to 1000")
            );
        }
        with(1).unwrap();
        with(MAX_ITERATIONS).unwrap();
    }

    #[test]
    fn smoothed_curves_equal_the_trueskillthroughtime_package() {
        assert_eq!(reference::TTT_VERSION, "1.1.0");
        let mut worst = 0.0f64;
        for c in reference::CASES {
            let events: Vec<Event> = c
                .events
                .iter()
                .map(|(teams, results, weights)| Event {
                    teams: teams.iter().map(|t| t.to_vec()).collect(),
                    results: results.to_vec(),
                    weights: weights.iter().map(|w| w.to_vec()).collect(),
                })
                .collect();
            let config = TttConfig {
                mu: c.mu,
                sigma: c.sigma,
                beta: c.beta,
                gamma: c.gamma,
                p_draw: c.p_draw,
                ..TttConfig::default()
            };
            let times = (!c.times.is_empty()).then_some(c.times);
            let mut h = History::new(c.players, &events, times, &config).unwrap();
            h.converge().unwrap();
            let curves = h.curves();
            let mut expected = c.curves.iter();
            for (p, curve) in curves.iter().enumerate() {
                for &(t, mu, sigma) in curve {
                    let &(ep, et, emu, esigma) = expected.next().unwrap();
                    assert_eq!((p, t), (ep, et), "{}", c.name);
                    let d = (mu - emu).abs().max((sigma - esigma).abs());
                    assert!(
                        d < 1e-6,
                        "{}: player {p} at {t}: ({mu}, {sigma}) vs ({emu}, {esigma})",
                        c.name
                    );
                    worst = worst.max(d);
                }
            }
            assert!(expected.next().is_none(), "{}", c.name);
        }
        assert!(worst < 1e-6, "{worst}");
    }

    #[test]
    fn a_large_tied_group_far_from_its_draw_margin_and_a_shared_drive_give_finite_values() {
        // Places as in a 1950s Grand Prix: a newcomer wins, then four entries tie for
        // 2nd, one of them a car shared by two drivers; the tied entries' skills lie so
        // far apart that their difference is many σ outside the draw margin, where
        // `cdf(b) - cdf(a)` rounds to 0.
        let priors = vec![
            vec![(0.0, 6.0)],
            vec![(6.0, 0.4)],
            vec![(-6.0, 0.4), (-5.0, 0.5)],
            vec![(5.0, 0.4)],
            vec![(-5.5, 0.4)],
            vec![(0.0, 6.0)],
            vec![(1.0, 0.6)],
            vec![(-1.0, 0.6)],
        ];
        let results = [-1.0, -2.0, -2.0, -2.0, -2.0, -6.0, -7.0, -7.0];
        for p_draw in [0.1, 0.01] {
            let post = game_posteriors(&priors, &results, &[], 1.0, p_draw);
            for (e, team) in post.iter().enumerate() {
                for &(mu, sigma) in team {
                    assert!(
                        mu.is_finite() && sigma.is_finite() && sigma > 0.0,
                        "entry {e}: ({mu}, {sigma}) with p_draw {p_draw}"
                    );
                }
            }
        }
        // The standard normal truncated to [8.5, 8.96]: the tail formula and the direct
        // one (exact here in the upper tails) agree.
        let (v, w) = tail_interval(8.5, 8.96);
        assert!((v - 8.6088).abs() < 2e-3, "{v}");
        assert!(w > 0.9 && w < 1.0, "{w}");
        // A far tail of each side, and a loss 50 σ against the odds: finite.
        for (mu, tie) in [(-60.0, true), (60.0, true), (60.0, false)] {
            let (m, s) = trunc(mu, 1.0, 0.2, tie);
            assert!(
                m.is_finite() && s.is_finite() && s > 0.0,
                "{mu} {tie}: {m} {s}"
            );
        }
    }

    #[test]
    fn erfc_and_its_inverse_agree() {
        for &x in &[-2.0, -0.5, 0.0, 0.3, 1.7] {
            assert!((erfcinv(erfc(x)) - x).abs() < 1e-6, "{x}");
        }
        // The package's ppf: the 2.5% quantile of N(0, 1).
        assert!((ppf(0.025, 0.0, 1.0) + 1.959_963_98).abs() < 1e-6);
    }

    #[test]
    fn a_win_between_newcomers_matches_the_package() {
        // trueskillthroughtime 1.1.0: Game([[a], [b]]).posteriors() with default players.
        let post = game_posteriors(&[vec![(0.0, 6.0)], vec![(0.0, 6.0)]], &[], &[], 1.0, 0.0);
        assert!(
            (post[0][0].0 - 3.339_078_962_432_996).abs() < 1e-9,
            "{post:?}"
        );
        assert!((post[0][0].1 - 4.985_032_766_455_742).abs() < 1e-9);
        assert!((post[1][0].0 + 3.339_078_962_432_996).abs() < 1e-9);
    }

    #[test]
    fn a_tie_without_a_draw_probability_is_an_error() {
        let ev = Event {
            teams: vec![vec![0], vec![1]],
            results: vec![1.0, 1.0],
            weights: Vec::new(),
        };
        let err = History::new(2, &[ev], None, &TttConfig::default()).unwrap_err();
        assert_eq!(err.to_string(), "event 0: tied teams need p_draw above 0");
    }

    #[test]
    fn a_drift_that_swamps_the_noise_is_an_error_not_nan() {
        // A drift of 1e9 per day leaves priors of σ ≈ 2.6e9 after a week against β = 1:
        // below rounding in the passes.
        // Four nights a week apart: two games, then one, then one.
        let games: [&[usize]; 4] = [&[0, 1, 2], &[3, 2, 4, 0], &[0, 4, 2], &[5, 2, 4, 6]];
        let events: Vec<Event> = games
            .iter()
            .map(|g| Event::ranked(g.iter().map(|&p| vec![p]).collect()))
            .collect();
        let times = [0.0, 0.0, 7.0, 14.0];
        let config = TttConfig {
            gamma: 1e9,
            ..TttConfig::default()
        };
        let mut h = History::new(7, &events, Some(&times), &config).unwrap();
        let err = h.converge().unwrap_err();
        assert_eq!(
            err,
            HistoryError::NotFinite {
                sigma: 6.0,
                beta: 1.0,
                gamma: 1e9
            }
        );
        assert_eq!(
            err.to_string(),
            "the smoothed skills are not finite numbers (with sigma = 6, beta = 1, gamma = 1000000000): the drift and the prior swamp the performance noise in floating point; expected gamma and sigma at most about a million times beta"
        );
        // A large but workable drift converges to finite curves.
        let config = TttConfig {
            gamma: 1e5,
            ..TttConfig::default()
        };
        let mut h = History::new(7, &events, Some(&times), &config).unwrap();
        h.converge().unwrap();
        assert!(h
            .curves()
            .iter()
            .flatten()
            .all(|&(_, m, s)| m.is_finite() && s.is_finite()));
    }
}
