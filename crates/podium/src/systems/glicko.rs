//! `glicko`: the Glicko rating system, each match a rating period of a free-for-all.
//!
//! **What.** Each player has a rating `r` and a rating deviation RD (σ: how uncertain `r`
//! is). A match of N entries is one rating period in which every entry played every other
//! one: a win (1) against each entry behind, a tie (½) with each entry level, a loss (0) to
//! each entry ahead. At the start of the period RD grows by `c` (in quadrature, up to the
//! newcomer's RD); then, with `q = ln 10 / 400`, `g(RD) = 1/√(1 + 3q²RD²/π²)` and
//! `E_j = 1/(1 + 10^(−g(RD_j)(r − r_j)/400))`,
//!
//! `1/d² = q² Σ_j g(RD_j)² E_j (1 − E_j)`,
//! `r' = r + q / (1/RD² + 1/d²) · Σ_j g(RD_j)(s_j − E_j)`,
//! `RD' = (1/RD² + 1/d²)^(−½)`.
//!
//! **The mode, not past it.** The update of `r` is one Newton step, from `r`, towards the
//! mode of the period's posterior (the normal prior `N(r, RD²)` times the likelihood of
//! the games): Glickman (1999) takes the log-likelihood's quadratic approximation at
//! the prior rating. Against many opponents all on one side (a leader of thousands who
//! then ties with them all) the curvature at `r` understates the curvature on the way
//! and the step passes the mode, far enough that two players' order flips (at 10,000
//! players, the 1436th of a first contest ended first after an all-tied second one).
//! The mode itself moves monotonically with the prior rating and with every result
//! (as Ebtekar and Liu show for their own update, *Elo-MMR*, WWW 2021), so
//! where the step passes it podium stops at the mode, found by Newton's method inside
//! the bracket the step has found. A step that stays on its side of the mode is
//! Glickman's, unchanged; RD' is Glickman's in every case.
//!
//! All opponents' values are those of the start of the period. The Elo-MMR reference
//! implementation decomposes a contest into the same games for its Glicko, then counts the
//! round as one game (its information fixed at an even game's, the outcomes averaged);
//! podium keeps Glickman's formulas over all the games, as his worked example needs. In
//! contests of thousands RD then shrinks fast, and `c` is what keeps ratings moving.
//!
//! **Where from.** M. E. Glickman, *Parameter estimation in large dynamic paired comparison
//! experiments*, Applied Statistics 48 (1999), and his summary *The Glicko system* (the
//! worked example below: a 1500/200 player who beats a 1400/30 player and loses to
//! 1550/100 and 1700/300 players ends at 1464 / 151.4).
//!
//! **Teams and partial play** (podium's rule): an opposing team is one opponent whose
//! rating is its members' mean and whose RD is that of the mean, `√(Σ RD²)/n`; each member
//! of a team is rated on their own against every other entry (teammates are not
//! opponents). A member's weight `w ∈ (0, 1]` scales the games they played: both sums above
//! are multiplied by `w`, as if they had played a share `w` of each game.
//!
//! **Factors** ([`crate::factor`]): the car, the seat, the faction. Each has a rating
//! and an RD (`factor_rd` before any result). An entry's factors add their ratings to
//! its members' and, as an opponent, their variances to its RD's; a factor's RD grows
//! by `c` per match it plays (up to `factor_rd`) and it is updated as a player who
//! plays every game of the entries that carry it, those games pooled.
//!
//! **Inactivity.** [`RatingSystem::age`]: after `d` idle days
//! `RD' = min(√(RD² + d · rd_per_day²), max(RD, rd))`, as the other systems with σ.
//!
//! **Ranges.** Any finite rating (far apart ratings only make expectations 0 or 1: a
//! period that tells nothing); RD in `[0.001, 15000]`, as σ for `elo-mmr`: an RD or
//! `--initial` value outside is refused with [`RateError::RatingOutOfRange`]. An RD never
//! shrinks below 0.001; a rating pushed past the largest numbers is refused with
//! [`RateError::Diverged`], the whole match unrated.
//!
//! **Parameters** (`--set name=value`): `rating` 1500 and `rd` 350 (a newcomer's, and the
//! largest RD a period's growth leads to), `c` 5 (RD growth per match in quadrature:
//! Glickman's one period), `rd_per_day` 0 (RD growth per idle day, 0 = no aging),
//! `factor_rd` 25 (a factor's RD before any result). `c` is
//! chosen by backtests (`scripts/check-defaults.sh`, figures in `docs/defaults.md`): the
//! Elo-MMR reference's 35 per contest predicts worse on every history checked, as a
//! period here holds all N − 1 games of the match.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem};
//! use podium::systems::glicko::GlickoConfig;
//! let glicko = GlickoConfig { c: 0.0, ..Default::default() };
//! // Glickman's example as one period: places 1700, 1550, the player, 1400.
//! let game = Match::ranked("g", &["d", "c", "me", "b"]).unwrap();
//! let before = [
//!     Rating::with_sigma(1700.0, 300.0),
//!     Rating::with_sigma(1550.0, 100.0),
//!     Rating::with_sigma(1500.0, 200.0),
//!     Rating::with_sigma(1400.0, 30.0),
//! ];
//! let me = glicko.rate(&podium::Prior::new(&game, &before)).unwrap().changes[2];
//! assert!((me.after.value - 1464.0).abs() < 0.5);
//! assert!((me.after.sigma.unwrap() - 151.4).abs() < 0.05);
//! ```

use std::f64::consts::{LN_10, PI};

use super::elo_mmr::SIGMA_RANGE;
use crate::error::RateError;
use crate::factor::Factored;
use crate::model::Match;
use crate::params::Configure;
use crate::rating::{PlayerChange, Rating};
use crate::state::Rated;
use crate::system::RatingSystem;

/// Parameters of Glicko.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlickoConfig {
    /// Rating of a new player. Default 1500.
    pub rating: f64,
    /// RD of a new player, and the largest RD growth leads to. Default 350.
    pub rd: f64,
    /// RD growth per match (one rating period), in quadrature. Default 5.
    pub c: f64,
    /// RD growth per day without a match (RD² grows by `rd_per_day²` a day). Default 0.
    pub rd_per_day: f64,
    /// RD of a factor never seen ([`crate::factor`]): how large an advantage a car, a
    /// seat or a faction is believed to have before any result. Default 25.
    pub factor_rd: f64,
}

impl Default for GlickoConfig {
    fn default() -> Self {
        GlickoConfig {
            rating: 1500.0,
            rd: 350.0,
            c: 5.0,
            rd_per_day: 0.0,
            factor_rd: 25.0,
        }
    }
}

crate::configure!(GlickoConfig, "glicko" {
    rating: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player",
    rd: f64 where |v| (SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&v), "in [0.001, 15000]" => "RD of a new player, and the largest RD growth leads to",
    c: f64 where |v| (0.0..=SIGMA_RANGE.1).contains(&v), "in [0, 15000]" => "RD growth per match (one rating period), in quadrature (the Elo-MMR reference's 35 predicts worse on every history in docs/defaults.md)",
    rd_per_day: f64 where |v| (0.0..=SIGMA_RANGE.1).contains(&v), "in [0, 15000]" => "RD growth per day without a match (0 = no aging)",
    factor_rd: f64 where |v| (SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&v), "in [0.001, 15000]" => "RD of a factor never seen (car, seat, faction)",
});

/// The allowed range of an RD, in words.
const RD_RULE: &str = "0.001 ≤ RD ≤ 15000";

/// Checks the ratings of a match: one per player ([`RateError::RatingCountMismatch`]),
/// each a finite number ([`RateError::NonFiniteRating`]) within the range of `check`
/// ([`RateError::RatingOutOfRange`], e.g. a σ that is not positive).
pub(crate) fn check_all(
    game: &Match,
    before: &[Rating],
    check: impl Fn(&Rating, &str) -> Result<(), RateError>,
) -> Result<(), RateError> {
    if before.len() != game.player_count() {
        return Err(RateError::RatingCountMismatch {
            expected: game.player_count(),
            found: before.len(),
        });
    }
    for ((_, m), r) in game.players().zip(before) {
        check(r, &m.player)?;
    }
    Ok(())
}

/// Checks a rating and its RD against the ranges of the Glicko systems: a rating within
/// ±1e9, as every system's ([`crate::system::check_value`]; a league saves ratings up to
/// ±1e100), an RD in [`SIGMA_RANGE`] (positive; small and large enough for its square).
pub(crate) fn check_range(system: &'static str, r: &Rating, player: &str) -> Result<(), RateError> {
    let bad = |what: &'static str, value: f64, allowed: &str| RateError::RatingOutOfRange {
        system,
        player: player.to_string(),
        what,
        value,
        allowed: allowed.to_string(),
    };
    if !r.value.is_finite() {
        return Err(RateError::NonFiniteRating {
            player: player.to_string(),
            rating: r.value,
        });
    }
    if !crate::params::in_range(r.value) {
        return Err(bad("rating", r.value, "−1e9 ≤ rating ≤ 1e9"));
    }
    match r.sigma {
        Some(s) if !(SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&s) => Err(bad("sigma", s, RD_RULE)),
        _ => Ok(()),
    }
}

/// Keeps a rating's σ (RD) within [`SIGMA_RANGE`] (it shrinks below its least only after
/// millions of matches with no growth) and refuses, as a diverged update, a rating that
/// is not a finite number (ratings near the largest numbers).
pub(crate) fn keep_in_range(
    system: &'static str,
    game: &Match,
    changes: &mut [PlayerChange],
) -> Result<(), RateError> {
    for ((_, m), c) in game.players().zip(changes.iter_mut()) {
        if !c.after.value.is_finite() {
            return Err(RateError::Diverged {
                system,
                player: m.player.clone(),
                rating: c.after.value,
                sigma: c.after.sigma,
            });
        }
        c.after.sigma = c.after.sigma.map(|s| s.clamp(SIGMA_RANGE.0, SIGMA_RANGE.1));
    }
    Ok(())
}

/// `g(φ) = 1/√(1 + 3φ²/π²)` on the Glicko-2 scale (`φ = q · RD`).
pub(crate) fn g(phi: f64) -> f64 {
    (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt().recip()
}

/// The expected score of a player at `mu` against an opponent at `mu_j` with `g_j`, on
/// the Glicko-2 scale.
pub(crate) fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
}

/// What one rating period tells about one player, on the Glicko-2 scale.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Period {
    /// `Σ g_j² E_j (1 − E_j)`, times the player's weight: the information `1/v`.
    pub info: f64,
    /// `Σ g_j (s_j − E_j)`, times the player's weight.
    pub surprise: f64,
    /// Mean expected score against the opponents.
    pub expected: f64,
    /// Mean score achieved.
    pub actual: f64,
}

impl Period {
    /// The periods of the entries that carry a factor (`own` from [`periods`]), summed:
    /// the factor plays every game they play. Its expected and actual scores are the
    /// entries' means.
    pub(crate) fn pooled(own: &[Period], entries: &[usize]) -> Period {
        let mut p = Period::default();
        for &e in entries {
            p.info += own[e].info;
            p.surprise += own[e].surprise;
            p.expected += own[e].expected;
            p.actual += own[e].actual;
        }
        let count = entries.len().max(1) as f64;
        p.expected /= count;
        p.actual /= count;
        p
    }
}

/// The entries of a match as opponents, on the Glicko-2 scale: each one's μ (its
/// factors added) and `g(φ)`. What [`periods`] sums over, kept so that a player's
/// update can be evaluated again at another rating ([`Field::settle`]).
pub(crate) struct Field<'a> {
    game: &'a Match,
    entries: Vec<(f64, f64)>,
}

impl Field<'_> {
    /// The [`Period`] of entry `e` (its players' games) at the strength `own`, the sums
    /// times `weight`.
    fn period(&self, e: usize, own: f64, weight: f64) -> Period {
        let game = self.game;
        let mut p = Period::default();
        for (j, &(mu_j, g_j)) in self.entries.iter().enumerate() {
            if j == e {
                continue;
            }
            let s = match game.place(e).cmp(&game.place(j)) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
            let x = expected(own, mu_j, g_j);
            p.info += g_j * g_j * x * (1.0 - x);
            p.surprise += g_j * (s - x);
            p.expected += x;
            p.actual += s;
        }
        let others = (self.entries.len() - 1) as f64;
        p.info *= weight;
        p.surprise *= weight;
        p.expected /= others;
        p.actual /= others;
        p
    }

    /// Glickman's new μ of a player of entry `e`, `stepped = μ + p.surprise / (1/φ² +
    /// p.info)` from the prior `μ`, `φ² = var` and the player's [`Period`] `p` at
    /// `μ + off` (`off`: the entry's factors), unless it passes the mode. The step is
    /// one Newton step, from `μ`, towards the mode of the posterior
    /// `−(x − μ)²/(2φ²) + w · Σ_j log P(s_j | x + off)`; against
    /// many opponents far on one side the step can pass the mode (the curvature at `μ`
    /// understates the curvature on the way), and then the mode itself is returned,
    /// found by Newton's method kept inside the bracket the step has found.
    pub(crate) fn settle(
        &self,
        e: usize,
        mu: f64,
        stepped: f64,
        off: f64,
        var: f64,
        weight: f64,
    ) -> f64 {
        let step = stepped - mu;
        // h(x): the slope of the log-posterior, decreasing in x; h(μ) has the sign of
        // the step.
        let h = |x: f64| {
            let q = self.period(e, x + off, weight);
            (q.surprise - (x - mu) / var, var.recip() + q.info)
        };
        let (mut slope, mut curvature) = h(stepped);
        // Not past the mode (or not a number: far apart ratings keep the step).
        if (slope * step).partial_cmp(&0.0) != Some(std::cmp::Ordering::Less) {
            return stepped;
        }
        // The mode lies strictly between μ and the step's end.
        let (mut lo, mut hi) = if step > 0.0 {
            (mu, stepped)
        } else {
            (stepped, mu)
        };
        let mut x = stepped;
        for _ in 0..200 {
            if slope > 0.0 {
                lo = x;
            } else {
                hi = x;
            }
            let newton = x + slope / curvature;
            let next = if newton > lo && newton < hi && newton.is_finite() {
                newton
            } else {
                lo + (hi - lo) / 2.0
            };
            if (next - x).abs() <= 1e-13 * x.abs().max(1.0) || hi - lo <= 1e-13 * x.abs().max(1.0) {
                return next;
            }
            x = next;
            (slope, curvature) = h(x);
            if slope == 0.0 {
                return x;
            }
        }
        x
    }
}

/// Every player's [`Period`] in a match where every entry plays every other: `mu[i]` and
/// `phi[i]` are the players' values on the Glicko-2 scale, in [`Match::players`] order.
/// An opposing team is one opponent at its members' mean μ with `φ = √(Σφ²)/n`.
///
/// `off[e]` is the sum of entry `e`'s factors' μ and of their φ² (no factors when `off`
/// is empty). They are added to the entry's strength as an opponent (μ and φ²) and to
/// each of its members' own μ. The second list is each entry's own period at its
/// strength (its members' mean μ plus its factors), weight 1: what a factor it carries
/// learns from the match (empty when `off` is). The [`Field`] settles each player's new μ.
pub(crate) fn periods<'a>(
    game: &'a Match,
    mu: &[f64],
    phi: &[f64],
    off: &[(f64, f64)],
) -> (Vec<Period>, Vec<Period>, Field<'a>) {
    let k = game.len();
    let shift = |e: usize| off.get(e).copied().unwrap_or((0.0, 0.0));
    // Each entry as an opponent: μ and g.
    let entries: Vec<(f64, f64)> = (0..k)
        .map(|e| {
            let r = game.member_range(e);
            let n = r.len() as f64;
            let m = mu[r.clone()].iter().sum::<f64>() / n;
            let p = phi[r].iter().map(|p| p * p).sum::<f64>().sqrt() / n;
            let (fm, fv) = shift(e);
            let p = if fv > 0.0 { (p * p + fv).sqrt() } else { p };
            (m + fm, g(p))
        })
        .collect();
    let field = Field { game, entries };
    let players = game
        .players()
        .enumerate()
        .map(|(i, (e, member))| field.period(e, mu[i] + shift(e).0, member.weight))
        .collect();
    let own = if off.is_empty() {
        Vec::new()
    } else {
        (0..k)
            .map(|e| {
                let r = game.member_range(e);
                let m = mu[r.clone()].iter().sum::<f64>() / r.len() as f64;
                field.period(e, m + shift(e).0, 1.0)
            })
            .collect()
    };
    (players, own, field)
}

/// Each entry's factors for [`periods`]: [`crate::factor::entry_offsets`] of the
/// factors on the Glicko-2 scale (each rating times `scale`, with its φ before the
/// period); none without factors, so that [`periods`] computes no entry periods.
pub(crate) fn offsets(
    game: &Match,
    factors: &[Rating],
    scale: f64,
    phi: &[f64],
) -> Vec<(f64, f64)> {
    if factors.is_empty() {
        return Vec::new();
    }
    let scaled: Vec<Rating> = factors
        .iter()
        .zip(phi)
        .map(|(f, &p)| Rating::with_sigma(scale * f.value, p))
        .collect();
    crate::factor::entry_offsets(game, &scaled)
}

/// `P(a ahead of b)` for Glicko ratings on the Glicko-2 scale: `E` against an opponent
/// whose φ is `√(φ_a² + φ_b²)` (Glickman's prediction of a game).
pub(crate) fn win_probability(mu_a: f64, phi_a: f64, mu_b: f64, phi_b: f64) -> f64 {
    expected(mu_a, mu_b, g((phi_a * phi_a + phi_b * phi_b).sqrt()))
}

/// `q = ln 10 / 400`: rating points to the Glicko-2 scale.
const Q: f64 = LN_10 / 400.0;

impl GlickoConfig {
    fn rd_of(&self, r: &Rating) -> f64 {
        r.sigma.unwrap_or(self.rd)
    }

    /// One rating period: every player's RD grows by `c` (up to a newcomer's), a
    /// factor's by `c` (up to `factor_rd`); then Glickman's update of each player, and
    /// of each factor from the periods of the entries that carry it, pooled. Without
    /// `factors` the players are rated as if the entries carried none.
    fn rate_all(
        &self,
        game: &Match,
        before: &[Rating],
        factors: &[Rating],
    ) -> Result<Factored, RateError> {
        check_all(game, before, |r, p| check_range("glicko", r, p))?;
        let grow = |s: f64, cap: f64| (s * s + self.c * self.c).sqrt().min(cap);
        // Step 1: RD grows by one period, up to a newcomer's RD.
        let phi: Vec<f64> = before
            .iter()
            .map(|r| Q * grow(self.rd_of(r), self.rd))
            .collect();
        let mu: Vec<f64> = before.iter().map(|r| Q * r.value).collect();
        let fphi: Vec<f64> = factors
            .iter()
            .map(|f| Q * grow(f.sigma.unwrap_or(self.factor_rd), self.factor_rd))
            .collect();
        let off = offsets(game, factors, Q, &fphi);
        let (periods, own, field) = periods(game, &mu, &phi, &off);
        // 1/RD'² = 1/RD² + 1/d²; on the Glicko-2 scale 1/φ'² = 1/φ² + info.
        let update = |b: &Rating, value: f64, phi: f64, p: &Period, weight: f64| {
            let precision = (phi * phi).recip() + p.info;
            PlayerChange {
                before: *b,
                after: Rating {
                    value,
                    sigma: Some(precision.recip().sqrt() / Q),
                    games: b.games.saturating_add(1),
                },
                expected: p.expected,
                actual: p.actual,
                k: None,
                weight,
            }
        };
        let mut changes: Vec<PlayerChange> = game
            .players()
            .zip(before)
            .zip(&periods)
            .zip(&phi)
            .map(|((((e, m), b), p), &phi)| {
                let shift = off.get(e).map_or(0.0, |o| o.0);
                let precision = (phi * phi).recip() + p.info;
                let stepped = Q * b.value + p.surprise / precision;
                let settled = field.settle(e, Q * b.value, stepped, shift, phi * phi, m.weight);
                update(b, settled / Q, phi, p, m.weight)
            })
            .collect();
        keep_in_range("glicko", game, &mut changes)?;
        let factor_changes = game
            .factors()
            .iter()
            .zip(factors)
            .zip(&fphi)
            .map(|((m, f), &phi)| {
                let p = Period::pooled(&own, &m.entries);
                let precision = (phi * phi).recip() + p.info;
                let value = (Q * f.value + p.surprise / precision) / Q;
                let mut c = update(f, value, phi, &p, 1.0);
                c.after.sigma = c.after.sigma.map(|s| s.clamp(SIGMA_RANGE.0, SIGMA_RANGE.1));
                c
            })
            .collect();
        Ok(Factored {
            rated: Rated {
                changes,
                states: Vec::new(),
                learned: None,
            },
            factors: factor_changes,
        })
    }
}

impl RatingSystem for GlickoConfig {
    fn describe(&self) -> crate::system::Description {
        crate::system::Description {
            name: "glicko",
            params: Configure::params(self),
            capabilities: crate::system::Capabilities {
                has_uncertainty: true,
                rates_factors: true,
                ..crate::system::Capabilities::default()
            },
        }
    }

    fn name(&self) -> &'static str {
        "glicko"
    }

    fn initial_rating(&self) -> Rating {
        Rating::with_sigma(self.rating, self.rd)
    }

    fn rate_into(
        &self,
        prior: &crate::system::Prior<'_>,
        out: &mut crate::system::Posterior,
    ) -> Result<(), RateError> {
        if !prior.factors.is_empty() {
            crate::factor::check_factors(prior.game, prior.factors)?;
        }
        *out = self
            .rate_all(prior.game, prior.ratings, prior.factors)?
            .into();
        Ok(())
    }

    fn initial_factor(&self) -> Rating {
        Rating::with_sigma(0.0, self.factor_rd)
    }

    fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&crate::State>) -> f64 {
        win_probability(
            Q * a.value,
            Q * self.rd_of(a),
            Q * b.value,
            Q * self.rd_of(b),
        )
    }

    fn age(
        &self,
        rating: Rating,
        _: Option<&crate::State>,
        _: Option<&crate::State>,
        days: f64,
    ) -> Rating {
        super::age_sigma(rating, days, self.rd_per_day, self.rd)
    }

    fn check_rating(&self, rating: &Rating) -> Result<(), RateError> {
        check_range("glicko", rating, "#1")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::systems::testing::close;

    /// Glickman's example (his Glicko and Glicko-2 papers share it) as one period of four:
    /// the player, third, beats a 1400/30 player and loses to 1550/100 and 1700/300 ones.
    pub(crate) fn example() -> (Match, [Rating; 4]) {
        let game = Match::ranked("g", &["d", "c", "me", "b"]).unwrap();
        let before = [
            Rating::with_sigma(1700.0, 300.0),
            Rating::with_sigma(1550.0, 100.0),
            Rating::with_sigma(1500.0, 200.0),
            Rating::with_sigma(1400.0, 30.0),
        ];
        (game, before)
    }

    #[test]
    fn glickmans_example() {
        let sys = GlickoConfig {
            c: 0.0,
            ..Default::default()
        };
        let (game, before) = example();
        let me = sys
            .rate(&crate::system::Prior::new(&game, &before))
            .unwrap()
            .changes[2];
        // By hand: g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432, 0.303; d = 231.67 from
        // these rounded values (231.70 exactly).
        let gs = [g(Q * 30.0), g(Q * 100.0), g(Q * 300.0)];
        close(gs[0], 0.9955, 1e-4);
        close(gs[2], 0.7242, 1e-4);
        let es = [
            expected(Q * 1500.0, Q * 1400.0, gs[0]),
            expected(Q * 1500.0, Q * 1550.0, gs[1]),
            expected(Q * 1500.0, Q * 1700.0, gs[2]),
        ];
        close(es[0], 0.639, 1e-3);
        let d2 = (Q
            * Q
            * (0..3)
                .map(|i| gs[i] * gs[i] * es[i] * (1.0 - es[i]))
                .sum::<f64>())
        .recip();
        close(d2.sqrt(), 231.67, 0.05);
        let precision = 1.0 / (200.0f64 * 200.0) + 1.0 / d2;
        let surprise = gs[0] * (1.0 - es[0]) - gs[1] * es[1] - gs[2] * es[2];
        close(me.after.value, 1500.0 + Q / precision * surprise, 1e-9);
        close(me.after.sigma.unwrap(), precision.recip().sqrt(), 1e-9);
        // Glickman's rounded figures.
        close(me.after.value, 1464.0, 0.5);
        close(me.after.sigma.unwrap(), 151.4, 0.05);
        close(me.actual, 1.0 / 3.0, 1e-12);
    }

    /// A two-player match won by `a`, who carries the factor `first=white`.
    pub(crate) fn with_a_factor() -> Match {
        Match::builder("g")
            .player("a", crate::Finish::Rank(1.0))
            .factor("first", "white")
            .player("b", crate::Finish::Rank(2.0))
            .build()
            .unwrap()
    }

    #[test]
    fn a_factor_adds_to_its_entry_and_learns_its_games() {
        let sys = GlickoConfig {
            c: 0.0,
            ..Default::default()
        };
        let before = [Rating::with_sigma(1500.0, 100.0); 2];
        let factor = Rating::with_sigma(50.0, 25.0);
        let out = sys
            .rate(&crate::system::Prior::new(&with_a_factor(), &before).with_factors(&[factor]))
            .unwrap();
        // a plays at 1550 against b (RD 100); b against a at 1550 with RD √(100² + 25²).
        let (g_b, g_a) = (
            g(Q * 100.0),
            g(Q * (100.0f64.powi(2) + 25.0f64.powi(2)).sqrt()),
        );
        let e_a = expected(Q * 1550.0, Q * 1500.0, g_b);
        let e_b = expected(Q * 1500.0, Q * 1550.0, g_a);
        let step = |rd: f64, gj: f64, e: f64, s: f64| {
            let precision = (Q * rd).powi(-2) + gj * gj * e * (1.0 - e);
            (gj * (s - e) / precision / Q, precision.recip().sqrt() / Q)
        };
        let (da, rda) = step(100.0, g_b, e_a, 1.0);
        let (db, rdb) = step(100.0, g_a, e_b, 0.0);
        let (df, rdf) = step(25.0, g_b, e_a, 1.0);
        close(out.changes[0].delta(), da, 1e-9);
        close(out.changes[0].after.sigma.unwrap(), rda, 1e-9);
        close(out.changes[1].delta(), db, 1e-9);
        close(out.changes[1].after.sigma.unwrap(), rdb, 1e-9);
        close(out.factors[0].delta(), df, 1e-9);
        close(out.factors[0].after.sigma.unwrap(), rdf, 1e-9);
        // By hand: E = 0.5682; a gains 22.06 (RD 96.50), the factor, far surer, 1.47
        // (RD 24.94).
        close(e_a, 0.5682, 1e-4);
        close(da, 22.06, 0.01);
        close(rda, 96.50, 0.01);
        close(df, 1.47, 0.01);
        close(rdf, 24.94, 0.01);
        // A factor's RD grows by c per match, up to factor_rd: with c = 35, RD 10 grows
        // to the 25 of a factor never seen.
        let factor_after = |c: f64, rd: f64| {
            GlickoConfig { c, ..sys }
                .rate(
                    &crate::system::Prior::new(&with_a_factor(), &before)
                        .with_factors(&[Rating::with_sigma(50.0, rd)]),
                )
                .unwrap()
                .factors[0]
                .after
        };
        assert_eq!(factor_after(35.0, 10.0), factor_after(35.0, 25.0));
        assert!(factor_after(0.0, 10.0).sigma < factor_after(0.0, 25.0).sigma);
    }

    #[test]
    fn rd_grows_by_c_each_match_up_to_the_newcomers() {
        let sys = GlickoConfig {
            c: 35.0,
            ..GlickoConfig::default()
        };
        let game = Match::ranked("g", &["a", "b"]).unwrap();
        let lone = Rating::with_sigma(1500.0, 349.0);
        let before = [lone, Rating::with_sigma(1500.0, 50.0)];
        let after = sys
            .rate(&crate::system::Prior::new(&game, &before))
            .unwrap()
            .changes;
        // a's RD before the period is capped at 350; b's is √(50² + 35²).
        let info = |rd: f64| {
            let gj = g(Q * rd);
            Q * Q * gj * gj * 0.25
        };
        let b_rd = (50.0f64.powi(2) + 35.0f64.powi(2)).sqrt();
        close(
            after[0].after.sigma.unwrap(),
            (1.0 / 350.0f64.powi(2) + info(b_rd)).recip().sqrt(),
            1e-9,
        );
        close(
            after[1].after.sigma.unwrap(),
            (1.0 / b_rd.powi(2) + info(350.0)).recip().sqrt(),
            1e-9,
        );
        // A player above the cap (from elsewhere) is brought down to it.
        let high = sys
            .rate(&crate::system::Prior::new(
                &game,
                &[Rating::with_sigma(1500.0, 500.0), lone],
            ))
            .unwrap()
            .changes;
        assert!(high[0].after.sigma.unwrap() < 350.0);
    }

    #[test]
    fn ties_are_half_and_teams_are_their_mean() {
        let sys = GlickoConfig {
            c: 0.0,
            ..Default::default()
        };
        let tied = Match::with_places("t", &[("a", 1), ("b", 1)]).unwrap();
        let r = sys.initial_rating();
        let c = sys
            .rate(&crate::system::Prior::new(&tied, &[r, r]))
            .unwrap()
            .changes;
        close(c[0].delta(), 0.0, 1e-12);
        close(c[0].actual, 0.5, 0.0);
        // A team of 1400 and 1600 players is one opponent at 1500 with RD √(2·RD²)/2.
        let team = Match::builder("g")
            .player("x", crate::Finish::Rank(1.0))
            .team("t", ["y", "z"], crate::Finish::Rank(2.0))
            .build()
            .unwrap();
        let rs = [
            Rating::with_sigma(1500.0, 100.0),
            Rating::with_sigma(1400.0, 100.0),
            Rating::with_sigma(1600.0, 100.0),
        ];
        let t = sys
            .rate(&crate::system::Prior::new(&team, &rs))
            .unwrap()
            .changes;
        let solo = sys
            .rate(&crate::system::Prior::new(
                &Match::ranked("s", &["x", "o"]).unwrap(),
                &[
                    rs[0],
                    Rating::with_sigma(1500.0, (2.0 * 100.0f64.powi(2)).sqrt() / 2.0),
                ],
            ))
            .unwrap()
            .changes;
        close(t[0].after.value, solo[0].after.value, 1e-9);
        // Each member against x, on their own rating: the weaker loses less.
        assert!(t[1].delta() > t[2].delta());
        // Half a match: half the information.
        let half = Match::builder("h")
            .weighted_player("x", crate::Finish::Rank(1.0), 0.5)
            .player("o", crate::Finish::Rank(2.0))
            .build()
            .unwrap();
        let h = sys
            .rate(&crate::system::Prior::new(&half, &[r, r]))
            .unwrap()
            .changes;
        let whole = sys
            .rate(&crate::system::Prior::new(
                &Match::ranked("w", &["x", "o"]).unwrap(),
                &[r, r],
            ))
            .unwrap()
            .changes;
        assert!(h[0].delta() < whole[0].delta() && h[0].delta() > 0.0);
        assert!(h[0].after.sigma.unwrap() > whole[0].after.sigma.unwrap());
    }

    #[test]
    fn out_of_range_ratings_and_parameters_are_refused() {
        let sys = GlickoConfig::default();
        let game = Match::ranked("g", &["a", "b"]).unwrap();
        for bad in [
            Rating::with_sigma(1500.0, 0.0),
            Rating::with_sigma(1500.0, -3.0),
            Rating::with_sigma(1500.0, 1e9),
        ] {
            let err = sys
                .rate(&crate::system::Prior::new(
                    &game,
                    &[sys.initial_rating(), bad],
                ))
                .map(|p| p.changes)
                .unwrap_err();
            assert!(
                matches!(&err, RateError::RatingOutOfRange { player, .. } if player == "b"),
                "{err}"
            );
        }
        for (k, v) in [
            ("rd", "0"),
            ("c", "-1"),
            ("rating", "inf"),
            ("rd_per_day", "-2"),
        ] {
            assert!(
                crate::system("glicko", &crate::Settings::new().with(k, v)).is_err(),
                "{k}={v}"
            );
        }
    }

    #[test]
    fn a_league_refuses_a_starting_rd_it_cannot_use() {
        let mut league = crate::League::new(Box::new(GlickoConfig::default()));
        league
            .set_initial("ann", Rating::with_sigma(1800.0, 60.0))
            .unwrap();
        let err = league
            .set_initial("bo", Rating::with_sigma(1500.0, 0.0))
            .unwrap_err();
        assert!(
            matches!(err, RateError::RatingOutOfRange { ref player, what: "sigma", .. } if player == "bo"),
            "{err}"
        );
        assert!(league.get("bo").is_none());
        assert_eq!(league.players().len(), 1);
    }

    #[test]
    fn extreme_gaps_stay_finite() {
        let sys = GlickoConfig::default();
        let game = Match::ranked("g", &["a", "b", "c"]).unwrap();
        let before = [
            Rating::with_sigma(-1e9, 0.001),
            Rating::with_sigma(1e9, 15_000.0),
            Rating::with_sigma(9000.0, 0.001),
        ];
        for c in sys
            .rate(&crate::system::Prior::new(&game, &before))
            .unwrap()
            .changes
        {
            assert!(c.after.value.is_finite() && c.after.sigma.unwrap().is_finite());
        }
        // Beyond ±1e9 a rating is refused, naming the player.
        let huge = [
            Rating::with_sigma(-1.7e308, 15_000.0),
            Rating::with_sigma(1.7e308, 1.0),
            Rating::with_sigma(0.0, 1.0),
        ];
        let err = sys
            .rate(&crate::system::Prior::new(&game, &huge))
            .unwrap_err();
        assert!(
            matches!(err, RateError::RatingOutOfRange { ref player, what: "rating", .. } if player == "a"),
            "{err}"
        );
    }

    #[test]
    fn an_update_that_is_not_a_number_is_refused() {
        let game = Match::ranked("g", &["a", "b"]).unwrap();
        let r = Rating::with_sigma(1500.0, 0.0001);
        let mut changes = vec![
            PlayerChange {
                before: r,
                after: r,
                expected: 0.5,
                actual: 1.0,
                k: None,
                weight: 1.0,
            },
            PlayerChange {
                before: r,
                after: Rating {
                    value: f64::INFINITY,
                    ..r
                },
                expected: 0.5,
                actual: 0.0,
                k: None,
                weight: 1.0,
            },
        ];
        let err = keep_in_range("glicko", &game, &mut changes).unwrap_err();
        assert!(
            matches!(err, RateError::Diverged { ref player, .. } if player == "b"),
            "{err}"
        );
        changes[1].after.value = 1400.0;
        keep_in_range("glicko", &game, &mut changes).unwrap();
        assert_eq!(changes[0].after.sigma, Some(0.001), "RD kept at its least");
    }

    #[test]
    fn aging_and_prediction() {
        let sys = GlickoConfig {
            rd_per_day: 10.0,
            ..Default::default()
        };
        let aged = sys.age(Rating::with_sigma(1500.0, 50.0), None, None, 4.0);
        close(aged.sigma.unwrap(), (2500.0f64 + 400.0).sqrt(), 1e-12);
        let a = Rating::with_sigma(1700.0, 0.001);
        let b = Rating::with_sigma(1500.0, 0.001);
        // Negligible RDs: the Elo expectation of a 200-point gap.
        close(
            sys.win_probability(&a, &b, None),
            1.0 / (1.0 + 10f64.powf(-0.5)),
            1e-9,
        );
    }
}
