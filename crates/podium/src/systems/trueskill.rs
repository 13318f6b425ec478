//! `trueskill`: TrueSkill, by message passing on its factor graph.
//!
//! **What.** Each player's skill is a belief `N(μ, σ²)`; in a match each player performs
//! at skill plus noise `N(0, β²)`, a team performs the (partial-play weighted) sum of its
//! members' performances, and the finishing order says which team performances exceeded
//! which, with a draw when two adjacent teams' performances are within a draw margin ε.
//! Expectation propagation on that factor graph (Gaussian messages, truncated Gaussians
//! at the comparisons, iterated until the messages move less than `min_delta`) gives every
//! player's new belief. Any number of teams of any sizes, ties, and partial play. Two
//! entries make a tree with one comparison, where one pass of the messages is exact: they
//! are rated by its closed form (the same beliefs up to rounding, within 1e-9).
//!
//! **Where from.** R. Herbrich, T. Minka and T. Graepel, *TrueSkill™: A Bayesian Skill
//! Rating System*, NIPS 2006; the schedule, the draw margin, the partial-play weights and
//! the match quality follow the `trueskill` Python package 0.4.5 (Heungsub Lee), whose
//! numbers this module reproduces (tests below hold them to 1e-4 against vectors generated
//! by `scripts/reference/trueskill_vectors.py`).
//!
//! **Parameters** (`--set name=value`): `mu` 25, `sigma` 25/3, `beta` 25/6 (performance
//! noise), `tau` 25/300 (dynamics: σ grows to `√(σ² + τ²)` before each match),
//! `draw_probability` 0 (gives the draw margin `ε = Φ⁻¹((p + 1)/2) · √n · β` for `n`
//! players in the two teams compared; the reference's default is 0.10, see below),
//! `min_delta` 0.0001 (convergence threshold, as the reference), and podium's `daily_tau`
//! 25/300 (σ growth per day without a match:
//! `σ' = min(√(σ² + d · daily_tau²), max(σ, sigma))` after `d` idle days).
//! [`TrueSkillConfig::reference`] gives the reference's defaults.
//!
//! **Large fields and the draw margin.** The factor graph reads "i finished ahead of j"
//! as `perf_i − perf_j > ε` for every pair of adjacent places, so a finishing order of `N`
//! entries without ties asserts that the first out-performed the last by `(N − 1) ε`.
//! With the reference's draw probability 0.10 (`ε ≈ 0.74` for two players), a contest of
//! 5,000 demands a spread of performances about 50 times wider than the prior allows, and
//! message passing meets it by pushing the leaders' means hundreds of points up: over
//! the Codeforces history warm-pair accuracy falls from 70.9 % after 150 contests to
//! 54.1 % after all 613. With a margin of 0 (the default) an order asserts only the order,
//! a tie that the two performances were equal, and the same history scores 72.2 %; on
//! Catan and Formula 1 the zero margin gives as good an accuracy and a lower log loss (see
//! `docs/accuracy.md`). A draw probability above 0 still works on fields of any size,
//! but costs accuracy as the fields grow.
//!
//! **Partial play.** A member's weight `w ∈ (0, 1]` is their coefficient in the team's
//! performance sum (the reference's `weights`): a member who played half the match counts
//! half and learns less from it.
//!
//! **Predictions.** Team performance `N(Σ wμ, Σ w²(σ² + β²))`; `P(i ahead of j)` is the
//! chance that `i` out-performs `j` by more than the draw margin of the pair, the rest of
//! the pair's probability is their draw; win probabilities are the chance to out-perform
//! every other entry by its draw margin (by numerical integration, up to 64 entries;
//! beyond, the Plackett-Luce fit of the pairwise probabilities), and `draw` is the chance
//! that no entry finishes clear first (for two entries: their draw probability). `quality`
//! is the reference's match quality.
//! [`RatingSystem::win_probability`] is `Φ((μ_a − μ_b)/√(2β² + σ_a² + σ_b²))`.
//!
//! **`expected` and `actual`** in the rating breakdown compare an entry with the entries
//! the factor graph compares it with (its neighbours in the finishing order): the expected
//! score `P(ahead) + ½ P(draw)` and the score achieved (1 ahead, ½ level, 0 behind).
//!
//! ```
//! use podium::{Match, Rating, RatingSystem};
//! use podium::systems::trueskill::TrueSkillConfig;
//! let ts = TrueSkillConfig::reference(); // the trueskill package's defaults
//! let game = Match::ranked("g", &["ann", "bo"]).unwrap();
//! let r = ts.initial_rating();
//! let after = ts.rate(&podium::Prior::new(&game, &[r, r])).unwrap().changes;
//! // trueskill 0.4.5: rate_1vs1(Rating(), Rating())
//! assert!((after[0].after.value - 29.39583201999916).abs() < 1e-4);
//! assert!((after[0].after.sigma.unwrap() - 7.171475587326195).abs() < 1e-4);
//! assert!((after[1].after.value - 20.60416798000084).abs() < 1e-4);
//! let q = ts.predict(&podium::Prior::new(&game, &[r, r])).unwrap().quality.unwrap();
//! assert!((q - 0.4472135954999579).abs() < 1e-9);
//! ```

use crate::error::RateError;
use crate::gaussian::{cdf, pdf, pdf_over_cdf, ppf};
use crate::model::Match;
use crate::params::Configure;
use crate::predict::{expected_places, Prediction};
use crate::rating::{PlayerChange, Rating};
use crate::system::{check_ratings, RatingSystem};

/// Parameters of TrueSkill. Defaults are the reference implementation's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrueSkillConfig {
    /// Initial mean μ of a new player. Default 25.
    pub mu: f64,
    /// Initial standard deviation σ of a new player. Default 25/3.
    pub sigma: f64,
    /// Performance noise β. Default 25/6.
    pub beta: f64,
    /// Dynamics τ: σ becomes `√(σ² + τ²)` before each match. Default 25/300.
    pub tau: f64,
    /// Probability that two evenly matched teams draw. Default 0 (ties are then read as
    /// equal performances); the reference's 0.10 is [`TrueSkillConfig::reference`].
    pub draw_probability: f64,
    /// Message passing stops when no message moves more than this. Default 0.0001.
    pub min_delta: f64,
    /// Growth of σ per day without a match (σ² grows by `daily_tau²` a day). Default 25/300.
    pub daily_tau: f64,
    /// A factor's prior σ ([`crate::factor`]): the advantage a car, a seat or a faction
    /// is believed to have before any result. Default 25/12, half the performance noise
    /// β: an advantage as large as a game's own noise is already a strong one.
    pub factor_sigma: f64,
    /// σ added in quadrature to a factor before each match it plays. Default 25/300, a
    /// player's τ.
    pub factor_tau: f64,
}

impl Default for TrueSkillConfig {
    fn default() -> Self {
        TrueSkillConfig {
            mu: 25.0,
            sigma: 25.0 / 3.0,
            beta: 25.0 / 6.0,
            tau: 25.0 / 300.0,
            draw_probability: 0.0,
            min_delta: 0.0001,
            daily_tau: 25.0 / 300.0,
            factor_sigma: 25.0 / 12.0,
            factor_tau: 25.0 / 300.0,
        }
    }
}

impl TrueSkillConfig {
    /// The defaults of the `trueskill` Python package 0.4.5: a draw probability of 0.10
    /// and no growth of σ with idle days, for results that match it number for number.
    #[must_use]
    pub fn reference() -> Self {
        TrueSkillConfig {
            draw_probability: 0.10,
            daily_tau: 0.0,
            ..TrueSkillConfig::default()
        }
    }
}

crate::configure!(TrueSkillConfig, "trueskill" {
    mu: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "initial mean skill μ of a new player",
    sigma: f64 where crate::params::sigma, "in [1e-9, 1e9]" => "initial uncertainty σ of a new player",
    beta: f64 where crate::params::sigma, "in [1e-9, 1e9]" => "performance noise β",
    tau: f64 where crate::params::non_negative, "in [0, 1e9]" => "σ added in quadrature before each match",
    draw_probability: f64 where |v| (0.0..1.0).contains(&v), "in [0, 1)" => "probability that two evenly matched teams draw (the trueskill package: 0.1; above 0, large fields lose accuracy)",
    min_delta: f64 where crate::params::positive, "in (0, 1e9]" => "convergence threshold of the message passing",
    daily_tau: f64 where crate::params::non_negative, "in [0, 1e9]" => "σ growth per day without a match (0 = no aging; helps histories with long breaks, costs a little where games are days apart)",
    factor_sigma: f64 where crate::params::sigma, "in [1e-9, 1e9]" => "prior σ of a factor (car, seat, faction)",
    factor_tau: f64 where crate::params::non_negative, "in [0, 1e9]" => "σ added in quadrature to a factor before each match it plays",
});

/// A Gaussian in natural parameters: precision `pi = 1/σ²` and `tau = μ/σ²`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct G {
    pi: f64,
    tau: f64,
}

impl G {
    fn new(mu: f64, sigma: f64) -> G {
        let pi = 1.0 / (sigma * sigma);
        G { pi, tau: pi * mu }
    }
    fn mu(self) -> f64 {
        if self.pi == 0.0 {
            0.0
        } else {
            self.tau / self.pi
        }
    }
    fn sigma(self) -> f64 {
        if self.pi == 0.0 {
            f64::INFINITY
        } else {
            (1.0 / self.pi).sqrt()
        }
    }
    fn mul(self, o: G) -> G {
        G {
            pi: self.pi + o.pi,
            tau: self.tau + o.tau,
        }
    }
    fn div(self, o: G) -> G {
        G {
            pi: self.pi - o.pi,
            tau: self.tau - o.tau,
        }
    }
    /// How far `other` is from `self` (the reference's `Variable.delta`).
    fn delta(self, other: G) -> f64 {
        let pi_delta = (self.pi - other.pi).abs();
        if pi_delta.is_infinite() {
            return 0.0;
        }
        (self.tau - other.tau).abs().max(pi_delta.sqrt())
    }
}

/// The factor graph of one match: variable values and one message per edge.
#[derive(Default)]
struct Graph {
    vars: Vec<G>,
    msgs: Vec<G>,
}

/// An edge: the variable it ends at and its message slot.
#[derive(Clone, Copy)]
struct Edge {
    var: usize,
    msg: usize,
}

impl Graph {
    fn edge(&mut self, var: usize) -> Edge {
        self.msgs.push(G::default());
        Edge {
            var,
            msg: self.msgs.len() - 1,
        }
    }
    /// Replaces the message on `e`, updating its variable.
    fn update_message(&mut self, e: Edge, new: G) -> f64 {
        let old = self.msgs[e.msg];
        self.msgs[e.msg] = new;
        let value = self.vars[e.var].div(old).mul(new);
        let d = self.vars[e.var].delta(value);
        self.vars[e.var] = value;
        d
    }
    /// Sets the variable of `e` to `value`, keeping the other messages.
    fn update_value(&mut self, e: Edge, value: G) -> f64 {
        let old = self.msgs[e.msg];
        self.msgs[e.msg] = value.mul(old).div(self.vars[e.var]);
        let d = self.vars[e.var].delta(value);
        self.vars[e.var] = value;
        d
    }
    /// The message from the variable of `e` to its factor.
    fn incoming(&self, e: Edge) -> G {
        self.vars[e.var].div(self.msgs[e.msg])
    }
    /// A sum factor sending to `target` the weighted sum of `terms`.
    fn sum_update(&mut self, target: Edge, terms: impl Iterator<Item = (Edge, f64)>) -> f64 {
        let mut pi_inv = 0.0f64;
        let mut mu = 0.0;
        for (e, c) in terms {
            let div = self.incoming(e);
            mu += c * div.mu();
            if pi_inv.is_infinite() {
                continue;
            }
            if div.pi == 0.0 {
                pi_inv = f64::INFINITY;
            } else {
                pi_inv += c * c / div.pi;
            }
        }
        let pi = 1.0 / pi_inv;
        self.update_message(target, G { pi, tau: pi * mu })
    }
}

/// A sum factor `sum = Σ coeffs · terms`, its terms and coefficients a range of the
/// lists every sum factor of the match shares ([`Terms`]).
struct Sum {
    sum: Edge,
    terms: std::ops::Range<usize>,
}

/// The terms of every sum factor of one match, each with its coefficient, in one list.
type Terms = Vec<(Edge, f64)>;

impl Sum {
    fn down(&self, g: &mut Graph, t: &Terms) -> f64 {
        g.sum_update(self.sum, t[self.terms.clone()].iter().copied())
    }
    fn up(&self, g: &mut Graph, t: &Terms, index: usize) -> f64 {
        let terms = &t[self.terms.clone()];
        let coeff = terms[index].1;
        let target = terms[index].0;
        let terms = terms.iter().enumerate().map(|(x, &(edge, c))| {
            let k = if coeff == 0.0 {
                0.0
            } else if x == index {
                1.0 / coeff
            } else {
                -c / coeff
            };
            let e = if x == index { self.sum } else { edge };
            (e, k)
        });
        g.sum_update(target, terms)
    }
    fn len(&self) -> usize {
        self.terms.len()
    }
}

/// `V` and `W` of a win: the mean and variance corrections of a Gaussian truncated to
/// `diff > margin`, from one tail ratio.
fn vw_win(diff: f64, margin: f64) -> (f64, f64) {
    let x = diff - margin;
    let v = pdf_over_cdf(x);
    (v, clamp_w(v * (v + x)))
}

/// `V` and `W` of a draw: truncation to `|diff| ≤ margin`.
fn vw_draw(diff: f64, margin: f64) -> (f64, f64) {
    let abs = diff.abs();
    let (a, b) = (margin - abs, -margin - abs);
    let denom = cdf(a) - cdf(b);
    let (pa, pb) = (pdf(a), pdf(b));
    let v = if denom > 0.0 { (pb - pa) / denom } else { a };
    let w = if denom <= 0.0 {
        clamp_w(1.0)
    } else {
        clamp_w(v * v + (a * pa - b * pb) / denom)
    };
    (if diff < 0.0 { -v } else { v }, w)
}

/// Keeps `W` in `[0, 1)`, where the reference raises a floating-point error: far beyond
/// any realistic rating gap, rounding can push it out.
fn clamp_w(w: f64) -> f64 {
    if w.is_nan() {
        return 0.0;
    }
    w.clamp(0.0, 1.0 - 1e-12)
}

impl TrueSkillConfig {
    fn sigma_of(&self, r: &Rating) -> f64 {
        r.sigma.unwrap_or(self.sigma)
    }

    /// Draw margin for `players` players in the two teams compared.
    #[must_use]
    pub fn draw_margin(&self, players: usize) -> f64 {
        self.margin_at(self.draw_quantile(), players)
    }

    /// The standard normal quantile the draw margin scales: `Φ⁻¹((p_draw + 1)/2)`
    /// (exactly 0 for the default draw probability 0, without evaluating `Φ⁻¹`).
    fn draw_quantile(&self) -> f64 {
        if self.draw_probability == 0.0 {
            return 0.0;
        }
        ppf((self.draw_probability + 1.0) / 2.0)
    }

    /// [`TrueSkillConfig::draw_margin`] from its quantile, computed once per match.
    fn margin_at(&self, quantile: f64, players: usize) -> f64 {
        quantile * (players as f64).sqrt() * self.beta
    }

    /// Each entry's performance mean and variance, `(Σ wμ, Σ w²(σ² + β²))`, and size.
    fn performances(&self, game: &Match, before: &[Rating]) -> Vec<(f64, f64, usize)> {
        let mut out = Vec::with_capacity(game.len());
        self.performances_into(game, before, &mut out);
        out
    }

    /// [`TrueSkillConfig::performances`] into `out` (cleared first).
    fn performances_into(&self, game: &Match, before: &[Rating], out: &mut Vec<(f64, f64, usize)>) {
        out.clear();
        out.extend(game.entries().iter().enumerate().map(|(e, entry)| {
            let r = game.member_range(e);
            let n = r.len();
            let (mut m, mut v) = (0.0, 0.0);
            for (p, member) in r.zip(&entry.members) {
                let w = member.weight.max(self.min_delta);
                let s = self.sigma_of(&before[p]);
                m += w * before[p].value;
                v += w * w * (s * s + self.beta * self.beta);
            }
            (m, v, n)
        }));
    }

    /// `(P(i ahead of j), P(j ahead of i))` for two performances.
    fn pair(&self, a: (f64, f64, usize), b: (f64, f64, usize)) -> (f64, f64) {
        self.pair_with(a, b, self.draw_margin(a.2 + b.2))
    }

    /// [`TrueSkillConfig::pair`] with the pair's draw margin `eps` given.
    /// `pair_with(b, a, eps)` is `pair_with(a, b, eps)` swapped, bit for bit: `b − a` is
    /// `−(a − b)` exactly.
    fn pair_with(&self, a: (f64, f64, usize), b: (f64, f64, usize), eps: f64) -> (f64, f64) {
        let c = (a.1 + b.1).sqrt();
        let d = a.0 - b.0;
        (cdf((d - eps) / c), cdf((-d - eps) / c))
    }
}

impl TrueSkillConfig {
    /// [`RatingSystem::rate`], where `copies[i]` marks member `i` as a factor's copy
    /// (no performance noise, no dynamics); empty for none.
    fn rate_members(
        &self,
        game: &Match,
        before: &[Rating],
        copies: &[bool],
    ) -> Result<Vec<PlayerChange>, RateError> {
        let mut out = Vec::with_capacity(before.len());
        self.rate_members_into(game, before, copies, &mut out)?;
        Ok(out)
    }

    /// [`TrueSkillConfig::rate_members`] into `out`, cleared first (its allocation
    /// reused). Two entries of players take the closed form ([`TrueSkillConfig::two`]).
    fn rate_members_into(
        &self,
        game: &Match,
        before: &[Rating],
        copies: &[bool],
        out: &mut Vec<PlayerChange>,
    ) -> Result<(), RateError> {
        out.clear();
        if game.len() == 2 && copies.is_empty() && self.two(game, before, out) {
            return Ok(());
        }
        check_ratings(game, before)?;
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => self.rate_in(game, before, copies, &mut scratch[0], out),
            // Only if a rating were asked for while one is under way on this thread.
            Err(_) => self.rate_in(game, before, copies, &mut Scratch::default(), out),
        });
        Ok(())
    }

    /// Two entries in closed form. With one comparison the factor graph is a tree with
    /// a single truncation, so one pass of its schedule is exact (the reference's second
    /// pass only confirms it): the difference of the team performances
    /// `d ~ N(m, c²)`, `m = Σ_A wμ − Σ_B wμ`, `c² = Σ w²(σ² + τ² + β²)`, truncated to a
    /// win (`d > ε`) or a draw (`|d| ≤ ε`) with corrections `V`, `W` at `(m/c, ε/c)`,
    /// moves each member of the first entry to
    /// `μ + w σ'² V / c`, `σ'² (1 − w² σ'² W / c²)` (σ' the σ grown by τ; the second
    /// entry's means move the other way): the messages' result up to rounding. The
    /// ratings are checked as they are summed. Returns false, with `out` untouched,
    /// for ratings that do not fit the match (the general way then names what is wrong).
    fn two(&self, game: &Match, before: &[Rating], out: &mut Vec<PlayerChange>) -> bool {
        if before.len() != game.player_count() {
            return false;
        }
        let (beta2, tau2) = (self.beta * self.beta, self.tau * self.tau);
        // Each side's performance mean and variance with τ (the update's) and without
        // (the expected score's, as `performances`), and its size.
        let mut sides = [(0.0, 0.0, 0.0, 0usize); 2];
        let mut fits = true;
        for (e, side) in sides.iter_mut().enumerate() {
            let range = game.member_range(e);
            side.3 = range.len();
            for (r, m) in before[range].iter().zip(&game.entries()[e].members) {
                let s = self.sigma_of(r);
                fits &= r.value.is_finite() & s.is_finite() & (s >= 0.0);
                let w = m.weight.max(self.min_delta);
                let grown = (s * s + tau2).sqrt().max(1e-9);
                side.0 += w * r.value;
                side.1 += w * w * (grown * grown + beta2);
                side.2 += w * w * (s * s + beta2);
            }
        }
        if !fits {
            return false;
        }
        let [a, b] = sides;
        let margin = self.margin_at(self.draw_quantile(), a.3 + b.3);
        let c = (a.1 + b.1).sqrt();
        let (x, m) = ((a.0 - b.0) / c, margin / c);
        let tie = game.tied(0, 1);
        let (v, w) = if tie { vw_draw(x, m) } else { vw_win(x, m) };
        // The expected score against the other entry, as the general way gives it.
        let (ahead, behind) = self.pair_with((a.0, a.2, a.3), (b.0, b.2, b.3), margin);
        let won = if tie { 0.5 } else { 1.0 };
        let sides = [
            (v / c, ahead + 0.5 * (1.0 - ahead - behind), won),
            (-v / c, behind + 0.5 * (1.0 - behind - ahead), 1.0 - won),
        ];
        let shrink = w / (c * c);
        out.reserve(before.len());
        for (e, &(step, expected, actual)) in sides.iter().enumerate() {
            let range = game.member_range(e);
            for (r, m) in before[range].iter().zip(&game.entries()[e].members) {
                let s = self.sigma_of(r);
                let wt = m.weight.max(self.min_delta);
                let grown = (s * s + tau2).sqrt().max(1e-9);
                let var = grown * grown;
                let mu = r.value + wt * var * step;
                let sigma = (var * (1.0 - wt * wt * var * shrink)).sqrt();
                // Guard the far tails: a belief never becomes NaN or loses its σ.
                let sigma = if sigma.is_finite() && sigma > 0.0 {
                    sigma
                } else {
                    f64::MIN_POSITIVE.sqrt()
                };
                out.push(PlayerChange {
                    before: *r,
                    after: Rating {
                        value: if mu.is_finite() { mu } else { r.value },
                        sigma: Some(sigma),
                        games: r.games.saturating_add(1),
                    },
                    expected,
                    actual,
                    k: None,
                    weight: m.weight,
                });
            }
        }
        true
    }

    /// [`TrueSkillConfig::rate_members`] for ratings checked, in the buffers of `sc`.
    fn rate_in(
        &self,
        game: &Match,
        before: &[Rating],
        copies: &[bool],
        sc: &mut Scratch,
        out: &mut Vec<PlayerChange>,
    ) {
        self.begin(game, before, copies, sc);
        self.chain([sc.lane()]);
        self.end(game, before, copies, sc, out);
    }

    /// The first part of an update: builds the factor graph of `game` in `sc` and passes
    /// its messages down from the ratings to the team performances, ready for the chain
    /// ([`TrueSkillConfig::chain`]).
    fn begin(&self, game: &Match, before: &[Rating], copies: &[bool], sc: &mut Scratch) {
        let Scratch {
            g,
            edges,
            sums,
            all_sums,
            links,
            ..
        } = sc;
        let n = before.len();
        let k = game.len();
        // Variables: ratings 0..n, performances n..2n, team performances 2n..2n+k.
        g.vars.clear();
        g.vars.resize(2 * n + k, G::default());
        g.msgs.clear();
        let (perf, team) = (n, 2 * n);
        // Each player's prior edge, and the two edges of their performance's likelihood.
        edges.clear();
        edges.extend((0..n).map(|i| [g.edge(i), g.edge(i), g.edge(perf + i)]));
        // Every team sum's terms in one list: each team's members, weighted.
        sums.clear();
        all_sums.clear();
        for (t, entry) in game.entries().iter().enumerate() {
            let sum = g.edge(team + t);
            let start = sums.len();
            for (p, m) in game.member_range(t).zip(&entry.members) {
                sums.push((g.edge(perf + p), m.weight.max(self.min_delta)));
            }
            all_sums.push(Sum {
                sum,
                terms: start..sums.len(),
            });
        }
        let quantile = self.draw_quantile();
        links.clear();
        links.extend((0..k - 1).map(|d| {
            let size = game.member_range(d).len() + game.member_range(d + 1).len();
            Link::new(self.margin_at(quantile, size), game.tied(d, d + 1))
        }));
        // Down the rating, performance and team layers.
        let tau2 = self.tau * self.tau;
        for (i, r) in before.iter().enumerate() {
            let s = self.sigma_of(r);
            let tau2 = if is_copy(copies, i) { 0.0 } else { tau2 };
            // A σ of exactly 0 (seeded so, with τ = 0) would be an infinite precision.
            let sd = (s * s + tau2).sqrt().max(1e-9);
            g.update_value(edges[i][0], G::new(r.value, sd));
        }
        for (i, &[_, m, v]) in edges.iter().enumerate() {
            self.likelihood(g, m, v, is_copy(copies, i));
        }
        for s in all_sums.iter() {
            s.down(g, sums);
        }
    }

    /// The last part of an update, after the chain: passes the messages up from the team
    /// performances to the ratings, and writes each player's change to `out`.
    fn end(
        &self,
        game: &Match,
        before: &[Rating],
        copies: &[bool],
        sc: &mut Scratch,
        out: &mut Vec<PlayerChange>,
    ) {
        let Scratch {
            g,
            edges,
            sums,
            all_sums,
            links,
            perfs,
            pairs,
            scores,
            ..
        } = sc;
        let k = game.len();
        for s in all_sums.iter() {
            for x in 0..s.len() {
                s.up(g, sums, x);
            }
        }
        for (i, &[_, m, v]) in edges.iter().enumerate() {
            self.likelihood(g, v, m, is_copy(copies, i));
        }
        // Expected and achieved scores against the neighbours in the finishing order,
        // each neighbouring pair's probabilities computed once for both.
        self.performances_into(game, before, perfs);
        pairs.clear();
        pairs.extend((0..k - 1).map(|d| self.pair_with(perfs[d], perfs[d + 1], links[d].margin)));
        // Each entry's (expected, actual) score.
        scores.clear();
        scores.resize(k, (0.0, 0.0));
        for e in 0..k {
            let (mut ex, mut ac, mut cnt) = (0.0, 0.0, 0.0);
            for o in [e.wrapping_sub(1), e + 1] {
                if o >= k {
                    continue;
                }
                let (ahead, behind) = if o > e {
                    pairs[e]
                } else {
                    let (a, b) = pairs[o];
                    (b, a)
                };
                ex += ahead + 0.5 * (1.0 - ahead - behind);
                ac += match game.place(e).cmp(&game.place(o)) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                cnt += 1.0;
            }
            scores[e] = (ex / cnt, ac / cnt);
        }
        out.extend(game.players().enumerate().map(|(i, (e, m))| {
            let v = g.vars[i];
            let b = before[i];
            let (mu, sigma) = (v.mu(), v.sigma());
            // Guard the far tails: a belief never becomes NaN or loses its σ.
            let sigma = if sigma.is_finite() && sigma > 0.0 {
                sigma
            } else {
                f64::MIN_POSITIVE.sqrt()
            };
            let mu = if mu.is_finite() { mu } else { b.value };
            PlayerChange {
                before: b,
                after: Rating {
                    value: mu,
                    sigma: Some(sigma),
                    games: b.games.saturating_add(1),
                },
                expected: scores[e].0,
                actual: scores[e].1,
                k: None,
                weight: m.weight,
            }
        }));
    }

    /// The message of a performance's likelihood from `from` to `to`: the performance
    /// is the skill plus noise `β²` (none for a factor's copy, which performs at its
    /// value).
    fn likelihood(&self, g: &mut Graph, from: Edge, to: Edge, copy: bool) {
        let noise = if copy { 0.0 } else { self.beta * self.beta };
        let msg = g.incoming(from);
        let a = 1.0 / (1.0 + noise * msg.pi);
        g.update_message(
            to,
            G {
                pi: a * msg.pi,
                tau: a * msg.tau,
            },
        );
    }
}

/// Whether member `i` is a factor's copy (`copies` empty: none is).
fn is_copy(copies: &[bool], i: usize) -> bool {
    copies.get(i).copied().unwrap_or(false)
}

impl TrueSkillConfig {
    /// The iterated part of every update (the reference's schedule): the chain of
    /// differences between neighbouring entries in the finishing order, each with its
    /// truncation (a win by more than the link's draw margin, or a draw within it),
    /// its messages passed until none moves more than `min_delta` (ten rounds at
    /// most), then to the first and last entries. Each lane is one match's chain:
    /// `teams` holds each entry's team performance, its team sum's message in, the
    /// chain's messages out. Lanes of different matches take their steps in turn, each
    /// in its own order to the same bits as alone, so that the processor works on
    /// several chains of dependent divisions and square roots at once.
    fn chain<const N: usize>(&self, lanes: [(&mut [G], &mut [Link]); N]) {
        // A sum factor's message from two incoming ones, `a + c·b` (`c` = ±1).
        let sum = |a: G, b: G, c: f64| -> G {
            let mut mu = 0.0 + a.mu();
            let mut pi_inv = if a.pi == 0.0 {
                f64::INFINITY
            } else {
                0.0 + 1.0 / a.pi
            };
            mu += c * b.mu();
            if !pi_inv.is_infinite() {
                if b.pi == 0.0 {
                    pi_inv = f64::INFINITY;
                } else {
                    pi_inv += c * c / b.pi;
                }
            }
            let pi = 1.0 / pi_inv;
            G { pi, tau: pi * mu }
        };
        // Difference `d` = team d − team d+1 from its two teams.
        let down = |t: &[G], l: &mut Link, d: usize| {
            let new = sum(t[d].div(l.left), t[d + 1].div(l.right), -1.0);
            l.diff = l.diff.div(l.sum).mul(new);
            l.sum = new;
        };
        // The truncation's message to its difference; returns how far the difference
        // moved.
        let trunc = |l: &mut Link| -> f64 {
            let div = l.diff.div(l.trunc);
            let sqrt_pi = div.pi.sqrt();
            let (x, m) = (div.tau / sqrt_pi, l.margin * sqrt_pi);
            let (v, w) = if l.tie { vw_draw(x, m) } else { vw_win(x, m) };
            let denom = 1.0 - w;
            let value = G {
                pi: div.pi / denom,
                tau: (div.tau + sqrt_pi * v) / denom,
            };
            l.trunc = value.mul(l.trunc).div(l.diff);
            let delta = l.diff.delta(value);
            l.diff = value;
            delta
        };
        // The difference's message to its right team (`right`) or its left one.
        let up = |t: &mut [G], l: &mut Link, d: usize, right: bool| {
            if right {
                let new = sum(t[d].div(l.left), l.diff.div(l.sum), -1.0);
                t[d + 1] = t[d + 1].div(l.right).mul(new);
                l.right = new;
            } else {
                let new = sum(l.diff.div(l.sum), t[d + 1].div(l.right), 1.0);
                t[d] = t[d].div(l.left).mul(new);
                l.left = new;
            }
        };
        // Each lane's chain in its own order; the lanes only take their steps in turn.
        let mut lanes = lanes;
        let lens = lanes.each_ref().map(|(_, links)| links.len());
        // The steps of a sweep forward: one (down and truncation) for a single link.
        let steps = lens.map(|len| (len - 1).max(1));
        let most = steps.into_iter().max().unwrap_or(0);
        let mut open = [true; N];
        for _ in 0..10 {
            let mut delta = [0.0f64; N];
            for x in 0..most {
                for (i, (teams, links)) in lanes.iter_mut().enumerate() {
                    if !open[i] || x >= steps[i] {
                        continue;
                    }
                    if lens[i] == 1 {
                        down(teams, &mut links[0], 0);
                        delta[i] = trunc(&mut links[0]);
                    } else {
                        down(teams, &mut links[x], x);
                        delta[i] = delta[i].max(trunc(&mut links[x]));
                        up(teams, &mut links[x], x, true);
                    }
                }
            }
            for back in 0..most {
                for (i, (teams, links)) in lanes.iter_mut().enumerate() {
                    if !open[i] || lens[i] == 1 || back >= steps[i] {
                        continue;
                    }
                    let x = lens[i] - 1 - back;
                    down(teams, &mut links[x], x);
                    delta[i] = delta[i].max(trunc(&mut links[x]));
                    up(teams, &mut links[x], x, false);
                }
            }
            for (open, delta) in open.iter_mut().zip(delta) {
                *open &= delta > self.min_delta || delta.is_nan();
            }
            if !open.contains(&true) {
                break;
            }
        }
        for (teams, links) in lanes.iter_mut() {
            let len = links.len();
            up(teams, &mut links[0], 0, false);
            up(teams, &mut links[len - 1], len - 1, true);
        }
    }
}

/// One difference of neighbouring entries: its value, the messages from its sum factor
/// and its truncation, the sum factor's messages to its left and right teams, and
/// whether the two tied.
#[derive(Clone, Copy, Default)]
struct Link {
    diff: G,
    sum: G,
    trunc: G,
    left: G,
    right: G,
    margin: f64,
    tie: bool,
}

impl Link {
    /// A difference before any message, with its draw margin and whether it tied.
    fn new(margin: f64, tie: bool) -> Link {
        Link {
            margin,
            tie,
            ..Link::default()
        }
    }
}

/// The buffers of one TrueSkill update, kept per thread to reuse their allocations from
/// match to match (a factor graph of a few dozen variables otherwise costs ten
/// allocations, as much as its arithmetic for two players).
#[derive(Default)]
struct Scratch {
    g: Graph,
    edges: Vec<[Edge; 3]>,
    sums: Terms,
    all_sums: Vec<Sum>,
    perfs: Vec<(f64, f64, usize)>,
    pairs: Vec<(f64, f64)>,
    scores: Vec<(f64, f64)>,
    links: Vec<Link>,
}

impl Scratch {
    /// The chain's lane of the match built in this scratch: its team performances, the
    /// last of the graph's variables, one more than the chain's links.
    fn lane(&mut self) -> (&mut [G], &mut [Link]) {
        let team = self.g.vars.len() - (self.links.len() + 1);
        (&mut self.g.vars[team..], &mut self.links)
    }
}

thread_local! {
    /// Two matches' buffers ([`RatingSystem::rate_two_into`]); one match uses the first.
    static SCRATCH: std::cell::RefCell<[Scratch; 2]> = std::cell::RefCell::new(Default::default());
}

impl RatingSystem for TrueSkillConfig {
    fn describe(&self) -> crate::system::Description {
        crate::system::Description {
            name: "trueskill",
            params: Configure::params(self),
            capabilities: crate::system::Capabilities {
                has_uncertainty: true,
                rates_factors: true,
                ..crate::system::Capabilities::default()
            },
        }
    }

    fn name(&self) -> &'static str {
        "trueskill"
    }

    fn initial_rating(&self) -> Rating {
        Rating::with_sigma(self.mu, self.sigma)
    }

    fn rate_into(
        &self,
        prior: &crate::system::Prior<'_>,
        out: &mut crate::system::Posterior,
    ) -> Result<(), RateError> {
        if prior.factors.is_empty() {
            out.clear();
            self.rate_members_into(prior.game, prior.ratings, &[], &mut out.changes)
        } else {
            *out = self
                .rate_factored(prior.game, prior.ratings, prior.factors)?
                .into();
            Ok(())
        }
    }

    fn rate_two_into(
        &self,
        priors: [&crate::system::Prior<'_>; 2],
        outs: [&mut crate::system::Posterior; 2],
    ) -> [Result<(), RateError>; 2] {
        let ([a, b], [out_a, out_b]) = (priors, outs);
        // Two free-for-alls or team matches of three entries or more whose ratings fit
        // them: their chains interleaved. Anything else, one after the other.
        let chained = |p: &crate::system::Prior<'_>| {
            p.factors.is_empty() && p.game.len() > 2 && check_ratings(p.game, p.ratings).is_ok()
        };
        if !(chained(a) && chained(b)) {
            return [self.rate_into(a, out_a), self.rate_into(b, out_b)];
        }
        SCRATCH.with(|scratch| {
            let Ok(mut scratch) = scratch.try_borrow_mut() else {
                return [self.rate_into(a, out_a), self.rate_into(b, out_b)];
            };
            let [sa, sb] = &mut *scratch;
            out_a.clear();
            out_b.clear();
            self.begin(a.game, a.ratings, &[], sa);
            self.begin(b.game, b.ratings, &[], sb);
            self.chain([sa.lane(), sb.lane()]);
            self.end(a.game, a.ratings, &[], sa, &mut out_a.changes);
            self.end(b.game, b.ratings, &[], sb, &mut out_b.changes);
            [Ok(()), Ok(())]
        })
    }

    fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&crate::State>) -> f64 {
        let (sa, sb) = (self.sigma_of(a), self.sigma_of(b));
        cdf((a.value - b.value) / (2.0 * self.beta * self.beta + sa * sa + sb * sb).sqrt())
    }

    fn initial_factor(&self) -> Rating {
        Rating::with_sigma(0.0, self.factor_sigma)
    }
    fn fold_factors(&self, game: &Match, before: &[Rating], factors: &[Rating]) -> Vec<Rating> {
        crate::factor::fold_sum(game, before, factors)
    }
    fn check_rating(&self, rating: &Rating) -> Result<(), RateError> {
        crate::system::check_bayesian("trueskill", rating)
    }

    fn age(
        &self,
        rating: Rating,
        _: Option<&crate::State>,
        _: Option<&crate::State>,
        days: f64,
    ) -> Rating {
        super::age_sigma(rating, days, self.daily_tau, self.sigma)
    }

    fn predict(&self, prior: &crate::system::Prior<'_>) -> Result<Prediction, RateError> {
        let (game, before) = (prior.game, prior.ratings);
        crate::limits::check_predict_entries("entries", game.len())?;
        check_ratings(game, before)?;
        let perfs = self.performances(game, before);
        let k = perfs.len();
        let mut ahead = vec![vec![0.0; k]; k];
        for i in 0..k {
            for j in (i + 1)..k {
                let (a, b) = self.pair(perfs[i], perfs[j]);
                ahead[i][j] = a;
                ahead[j][i] = b;
            }
        }
        let quality = self.quality(game, before);
        if k > 64 {
            let mut p = Prediction::from_ahead(ahead);
            p.quality = Some(quality);
            return Ok(p);
        }
        let win: Vec<f64> = (0..k).map(|i| self.clear_first(&perfs, i)).collect();
        let draw = (1.0 - win.iter().sum::<f64>()).max(0.0);
        let expected_place = expected_places(&ahead);
        let mut p = Prediction::from_ahead(ahead);
        p.win = win;
        p.expected_place = expected_place;
        p.draw = Some(draw);
        p.quality = Some(quality);
        Ok(p)
    }
}

impl TrueSkillConfig {
    /// Rates a match whose entries carry factors: each factor is one more member of the
    /// teams that carry it, with its own dynamics and no performance noise of its own.
    fn rate_factored(
        &self,
        game: &Match,
        before: &[Rating],
        factors: &[Rating],
    ) -> Result<crate::factor::Factored, RateError> {
        let grown: Vec<Rating> = factors
            .iter()
            .map(|f| {
                let s = f.sigma.unwrap_or(self.factor_sigma);
                Rating {
                    sigma: Some((s * s + self.factor_tau * self.factor_tau).sqrt()),
                    ..*f
                }
            })
            .collect();
        let big = crate::factor::Enlarged::new(game, before, &[], &grown)?;
        let changes = self.rate_members(&big.game, &big.ratings, &big.is_copy)?;
        let mut out = big.finish(
            crate::state::Rated {
                changes,
                states: Vec::new(),
                learned: None,
            },
            &grown,
        );
        for (c, f) in out.factors.iter_mut().zip(factors) {
            c.before = *f;
        }
        Ok(out)
    }

    /// `P(entry i out-performs every other entry by its pair's draw margin)`:
    /// `∫ φ(z) Π_j Φ((μ_i + s_i z − μ_j − ε_ij) / s_j) dz` by Simpson's rule on `|z| ≤ 9`.
    fn clear_first(&self, perfs: &[(f64, f64, usize)], i: usize) -> f64 {
        const STEPS: usize = 720;
        let (mi, vi, ni) = perfs[i];
        let si = vi.sqrt();
        let others: Vec<(f64, f64)> = perfs
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &(mj, vj, nj))| (mj + self.draw_margin(ni + nj), vj.sqrt()))
            .collect();
        let h = 18.0 / STEPS as f64;
        let mut total = 0.0;
        for s in 0..=STEPS {
            let z = -9.0 + h * s as f64;
            let x = mi + si * z;
            let mut f = pdf(z);
            for &(m, sd) in &others {
                f *= cdf((x - m) / sd);
                if f == 0.0 {
                    break;
                }
            }
            let wgt = if s == 0 || s == STEPS {
                1.0
            } else if s % 2 == 1 {
                4.0
            } else {
                2.0
            };
            total += wgt * f;
        }
        (total * h / 3.0).clamp(0.0, 1.0)
    }

    /// The reference's match quality: `exp(−½ bᵀM⁻¹b) · √(det(β²AᵀA) / det(M))` with
    /// `M = Aᵀ(β²I + Σ)A`, `A` the weighted team-difference matrix and `b = Aᵀμ`. `M` is
    /// tridiagonal, so this is linear in the number of entries.
    #[must_use]
    pub fn quality(&self, game: &Match, before: &[Rating]) -> f64 {
        let k = game.len();
        let weights: Vec<f64> = game.players().map(|(_, m)| m.weight).collect();
        let beta2 = self.beta * self.beta;
        // Per team: Σ w²(β² + σ²), Σ w²β², Σ wμ.
        let team: Vec<(f64, f64, f64)> = (0..k)
            .map(|t| {
                let mut acc = (0.0, 0.0, 0.0);
                for p in game.member_range(t) {
                    let w = weights[p];
                    let s = self.sigma_of(&before[p]);
                    acc.0 += w * w * (beta2 + s * s);
                    acc.1 += w * w * beta2;
                    acc.2 += w * before[p].value;
                }
                acc
            })
            .collect();
        let m = k - 1;
        let diag = |sel: fn(&(f64, f64, f64)) -> f64| -> (Vec<f64>, Vec<f64>) {
            let d: Vec<f64> = (0..m).map(|r| sel(&team[r]) + sel(&team[r + 1])).collect();
            let off: Vec<f64> = (1..m).map(|r| -sel(&team[r])).collect();
            (d, off)
        };
        let (md, moff) = diag(|t| t.0);
        let (nd, noff) = diag(|t| t.1);
        let b: Vec<f64> = (0..m).map(|r| team[r].2 - team[r + 1].2).collect();
        let (logdet_m, quad) = ldl(&md, &moff, Some(&b));
        let (logdet_n, _) = ldl(&nd, &noff, None);
        let q = (-0.5 * quad).exp() * (0.5 * (logdet_n - logdet_m)).exp();
        if q.is_finite() {
            q
        } else {
            0.0
        }
    }
}

/// LDLᵀ of a symmetric tridiagonal matrix (diagonal `d`, off-diagonal `off`): its log
/// determinant and, given `b`, `bᵀ M⁻¹ b`.
fn ldl(d: &[f64], off: &[f64], b: Option<&[f64]>) -> (f64, f64) {
    let m = d.len();
    let mut dd = vec![0.0; m];
    let mut l = vec![0.0; m];
    dd[0] = d[0];
    for i in 1..m {
        l[i] = off[i - 1] / dd[i - 1];
        dd[i] = d[i] - l[i] * off[i - 1];
    }
    let logdet = dd.iter().map(|x| x.ln()).sum();
    let quad = b.map_or(0.0, |b| {
        // Solve L z = b; then bᵀM⁻¹b = Σ z_i² / d_i.
        let mut z = vec![0.0; m];
        for i in 0..m {
            z[i] = b[i] - if i > 0 { l[i] * z[i - 1] } else { 0.0 };
        }
        z.iter().zip(&dd).map(|(z, d)| z * z / d).sum()
    });
    (logdet, quad)
}

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
