//! `glicko2`: the Glicko-2 rating system, each match a rating period of a free-for-all.
//!
//! **What.** Glicko (see [`glicko`](super::glicko)) with a third number per player, the
//! **volatility** σ: how erratic the player's results are. A match of N entries is one
//! rating period in which every entry played every other one (win 1, tie ½, loss 0). On
//! Glickman's scale (`μ = (r − 1500)/173.7178`, `φ = RD/173.7178`), with
//! `g(φ) = 1/√(1 + 3φ²/π²)` and `E_j = 1/(1 + exp(−g(φ_j)(μ − μ_j)))`:
//!
//! 1. `v = [Σ_j g(φ_j)² E_j (1 − E_j)]⁻¹`, `Δ = v Σ_j g(φ_j)(s_j − E_j)`;
//! 2. the new volatility σ' solves `f(x) = 0` for `x = ln σ'²` with
//!    `f(x) = eˣ(Δ² − φ² − v − eˣ) / (2(φ² + v + eˣ)²) − (x − ln σ²)/τ²`, by the
//!    Illinois algorithm (regula falsi) of Glickman's step 5, to within `epsilon`;
//! 3. `φ* = √(φ² + σ'²)`, `φ' = 1/√(1/φ*² + 1/v)`, `μ' = μ + φ'² Σ_j g(φ_j)(s_j − E_j)`
//!    (stopped at the mode of the period's posterior where it would pass it, as
//!    [`glicko`](super::glicko)'s).
//!
//! **Bounds.** σ' is at most `max_volatility` (0.1, the bound of Lichess's Glicko-2,
//! `liglicko2`) and φ* at most a newcomer's φ (`rd`/173.7178): Glickman's Glicko caps the
//! pre-period RD at the unrated player's 350, and an RD beyond it says less than knowing
//! nothing. Without them a player who keeps beating far weaker opponents learns nothing
//! from each game while σ'² is added to φ² every period: after 20,000 such wins RD was
//! 885 and one loss took 3,200 points. And a free-for-all of N entries is N − 1 games in
//! one period, so a surprising contest makes `Δ²` dwarf `v` and σ' leap (to 0.4 and
//! more for the leader of 300 who then ties with all): the leaders forgot their history
//! and fell below the players they had beaten. Within 0.1 the ranking of such a field
//! keeps its order.
//!
//! Opponents' values are those of the start of the period. The volatility is the state
//! podium keeps beside the rating ([`crate::Capabilities::keeps_state`]).
//!
//! **Where from.** M. E. Glickman, *Example of the Glicko-2 system* (2012), whose worked
//! example is a test below: a 1500/200/0.06 player who beats a 1400/30 player and loses to
//! 1550/100 and 1700/300 players, τ = 0.5, ends at 1464.06 / 151.52 / 0.05999.
//!
//! **Teams and partial play**, **inactivity** and **ranges**: as [`glicko`](super::glicko)
//! (an opposing team is one opponent at its members' mean μ with `φ = √(Σφ²)/n`; a
//! member's weight scales both sums; RD grows by `rd_per_day` per idle day up to `rd`).
//! A period that tells nothing (every `E_j` exactly 0 or 1, ratings thousands apart)
//! keeps the volatility.
//!
//! **Parameters** (`--set name=value`), Glickman's values: `rating` 1500, `rd` 350,
//! `volatility` 0.06 (of a new player), `max_volatility` 0.1, `tau` 0.5 (τ, how fast volatility changes; he
//! suggests 0.3–1.2), `epsilon` 0.000001 (convergence of step 2), and `rd_per_day` 0;
//! podium's `factor_rd` 25 (a factor's RD before any result).
//!
//! **Factors** ([`crate::factor`]): as [`glicko`](super::glicko)'s, with step 3 for a
//! factor's update; a factor has no volatility: its RD does not grow from match to
//! match.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem};
//! use podium::systems::glicko2::Glicko2Config;
//! let sys = Glicko2Config::default();
//! let game = Match::ranked("g", &["d", "c", "me", "b"]).unwrap();
//! let before = [
//!     Rating::with_sigma(1700.0, 300.0),
//!     Rating::with_sigma(1550.0, 100.0),
//!     Rating::with_sigma(1500.0, 200.0),
//!     Rating::with_sigma(1400.0, 30.0),
//! ];
//! let me = sys.rate(&podium::Prior::new(&game, &before)).unwrap().changes[2];
//! assert!((me.after.value - 1464.06).abs() < 0.01); // 1464.0507: the note rounds μ'
//! assert!((me.after.sigma.unwrap() - 151.52).abs() < 0.005);
//! ```

use super::elo_mmr::SIGMA_RANGE;
use super::glicko::{
    check_all, check_range, keep_in_range, offsets, periods, win_probability, Period,
};
use crate::error::RateError;
use crate::factor::Factored;
use crate::model::Match;
use crate::params::Configure;
use crate::rating::{PlayerChange, Rating};
use crate::state::{Rated, State};
use crate::system::{Described, RatingSystem};

/// Glickman's factor between Glicko and Glicko-2 scales.
const SCALE: f64 = 173.7178;

/// Parameters of Glicko-2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glicko2Config {
    /// Rating of a new player. Default 1500.
    pub rating: f64,
    /// RD of a new player (and the largest RD aging leads to). Default 350.
    pub rd: f64,
    /// Volatility σ of a new player. Default 0.06.
    pub volatility: f64,
    /// The largest volatility a period may lead to. Default 0.1.
    pub max_volatility: f64,
    /// τ: how fast volatility changes. Default 0.5.
    pub tau: f64,
    /// Convergence tolerance of the volatility's root. Default 0.000001.
    pub epsilon: f64,
    /// RD growth per day without a match. Default 0.
    pub rd_per_day: f64,
    /// RD of a factor never seen ([`crate::factor`]): how large an advantage a car, a
    /// seat or a faction is believed to have before any result. A factor has no
    /// volatility: its RD does not grow from match to match. Default 25.
    pub factor_rd: f64,
}

impl Default for Glicko2Config {
    fn default() -> Self {
        Glicko2Config {
            rating: 1500.0,
            rd: 350.0,
            volatility: 0.06,
            max_volatility: 0.1,
            tau: 0.5,
            epsilon: 0.000_001,
            rd_per_day: 0.0,
            factor_rd: 25.0,
        }
    }
}

crate::configure!(Glicko2Config, "glicko2" {
    rating: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player",
    rd: f64 where |v| (0.001..=15_000.0).contains(&v), "in [0.001, 15000]" => "RD of a new player, and the largest RD aging leads to",
    volatility: f64 where |v| (1e-6..=10.0).contains(&v), "in [1e-6, 10]" => "volatility σ of a new player (Glickman's 0.06, kept; 0.03 predicts better or as well on every history in docs/defaults.md)",
    max_volatility: f64 where |v| (1e-6..=10.0).contains(&v), "in [1e-6, 10]" => "the largest volatility a period may lead to (Lichess's bound 0.1)",
    tau: f64 where |v| (0.01..=10.0).contains(&v), "in [0.01, 10]" => "τ: how fast volatility changes (Glickman: 0.3 to 1.2)",
    epsilon: f64 where |v| (1e-12..=0.01).contains(&v), "in [1e-12, 0.01]" => "convergence tolerance of the volatility",
    rd_per_day: f64 where |v| (0.0..=15_000.0).contains(&v), "in [0, 15000]" => "RD growth per day without a match (0 = no aging)",
    factor_rd: f64 where |v| (SIGMA_RANGE.0..=SIGMA_RANGE.1).contains(&v), "in [0.001, 15000]" => "RD of a factor never seen (car, seat, faction)",
});

/// What Glicko-2 keeps of a player beside the rating: the volatility.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Glicko2State {
    /// The volatility σ.
    pub volatility: f64,
}

#[cfg(feature = "serde")]
impl crate::state::Restorable for Glicko2State {
    /// A volatility the update can start from: positive (its logarithm is taken) and
    /// at most 10, the most `volatility` and `max_volatility` may be.
    fn fits(&self, _: &Self) -> Result<(), String> {
        let v = self.volatility;
        if v > 0.0 && v <= 10.0 {
            Ok(())
        } else {
            Err(format!("volatility {v}, expected a number in (0, 10]"))
        }
    }
}

impl Glicko2Config {
    fn rd_of(&self, r: &Rating) -> f64 {
        r.sigma.unwrap_or(self.rd)
    }

    /// One rating period: Glickman's steps for every player, the entries' factors added
    /// to their strengths; each factor is updated as a player of the entries that carry
    /// it (their periods pooled), without volatility. Without `factors` the players are
    /// rated as if the entries carried none.
    fn rate_all(
        &self,
        game: &Match,
        before: &[Rating],
        states: &[Option<&State>],
        factors: &[Rating],
    ) -> Result<Factored, RateError> {
        check_all(game, before, |r, p| check_range("glicko2", r, p))?;
        crate::system::check_states(before, states)?;
        let mu: Vec<f64> = before.iter().map(|r| (r.value - 1500.0) / SCALE).collect();
        let phi: Vec<f64> = before.iter().map(|r| self.rd_of(r) / SCALE).collect();
        let fphi: Vec<f64> = factors
            .iter()
            .map(|f| f.sigma.unwrap_or(self.factor_rd) / SCALE)
            .collect();
        let off = offsets(game, factors, SCALE.recip(), &fphi);
        let (periods, own, field) = periods(game, &mu, &phi, &off);
        // Step 3 from φ*² (the volatility's growth added): φ' and μ'.
        let update = |b: &Rating, mu: f64, phi_star2: f64, p: &Period, weight: f64, base: f64| {
            let phi_new2 = (phi_star2.recip() + p.info).recip();
            PlayerChange {
                before: *b,
                after: Rating {
                    value: SCALE * mu + base,
                    sigma: Some(SCALE * phi_new2.sqrt()),
                    games: b.games.saturating_add(1),
                },
                expected: p.expected,
                actual: p.actual,
                k: None,
                weight,
            }
        };
        let mut out = Rated {
            changes: Vec::with_capacity(before.len()),
            states: Vec::with_capacity(before.len()),
            learned: None,
        };
        // A newcomer's φ: the most φ* may reach.
        let phi_max = self.rd / SCALE;
        for (i, (e, m)) in game.players().enumerate() {
            let p = &periods[i];
            let sigma = states[i]
                .and_then(|s| s.get::<Glicko2State>())
                .map_or(self.volatility, |s| s.volatility);
            let sigma_new = self
                .volatility(phi[i], sigma, p)
                .min(self.max_volatility)
                .min(phi_max);
            let phi_star2 = (phi[i] * phi[i] + sigma_new * sigma_new).min(phi_max * phi_max);
            let shift = off.get(e).map_or(0.0, |o| o.0);
            let stepped = mu[i] + (phi_star2.recip() + p.info).recip() * p.surprise;
            let settled = field.settle(e, mu[i], stepped, shift, phi_star2, m.weight);
            out.changes
                .push(update(&before[i], settled, phi_star2, p, m.weight, 1500.0));
            out.states.push(Some(State::new(Glicko2State {
                volatility: sigma_new,
            })));
        }
        keep_in_range("glicko2", game, &mut out.changes)?;
        let factor_changes = game
            .factors()
            .iter()
            .zip(factors)
            .zip(&fphi)
            .map(|((m, f), &phi)| {
                let p = Period::pooled(&own, &m.entries);
                let mu = f.value / SCALE + ((phi * phi).recip() + p.info).recip() * p.surprise;
                let mut c = update(f, mu, phi * phi, &p, 1.0, 0.0);
                c.after.sigma = c.after.sigma.map(|s| s.clamp(SIGMA_RANGE.0, SIGMA_RANGE.1));
                c
            })
            .collect();
        Ok(Factored {
            rated: out,
            factors: factor_changes,
        })
    }

    /// Glickman's step 5: the new volatility, by the Illinois algorithm. A period without
    /// information (`info` 0) or with a `Δ` too large to square keeps it.
    #[must_use]
    fn volatility(&self, phi: f64, sigma: f64, p: &Period) -> f64 {
        let v = p.info.recip();
        let delta = v * p.surprise;
        let (d2, phi2, tau) = (delta * delta, phi * phi, self.tau);
        if !(v.is_finite() && d2.is_finite()) {
            return sigma;
        }
        let a = (sigma * sigma).ln();
        let f = |x: f64| {
            let ex = x.exp();
            let den = phi2 + v + ex;
            ex * (d2 - phi2 - v - ex) / (2.0 * den * den) - (x - a) / (tau * tau)
        };
        let mut big_a = a;
        let mut big_b = if d2 > phi2 + v {
            (d2 - phi2 - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * tau) < 0.0 && k < 1e6 {
                k += 1.0;
            }
            a - k * tau
        };
        let (mut f_a, mut f_b) = (f(big_a), f(big_b));
        for _ in 0..1000 {
            if (big_b - big_a).abs() <= self.epsilon {
                break;
            }
            let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(c);
            if !c.is_finite() || !f_c.is_finite() {
                break;
            }
            if f_c * f_b <= 0.0 {
                big_a = big_b;
                f_a = f_b;
            } else {
                f_a /= 2.0;
            }
            big_b = c;
            f_b = f_c;
        }
        let out = (big_a / 2.0).exp();
        if out.is_finite() && out > 0.0 {
            out
        } else {
            sigma
        }
    }
}

impl RatingSystem for Glicko2Config {
    fn describe(&self) -> crate::system::Description {
        crate::system::Description {
            name: "glicko2",
            params: Configure::params(self),
            capabilities: crate::system::Capabilities {
                has_uncertainty: true,
                keeps_state: true,
                rates_factors: true,
                ..crate::system::Capabilities::default()
            },
        }
    }

    fn name(&self) -> &'static str {
        "glicko2"
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
        let states = prior.all_states()?;
        *out = self
            .rate_all(prior.game, prior.ratings, &states, prior.factors)?
            .into();
        Ok(())
    }

    fn initial_factor(&self) -> Rating {
        Rating::with_sigma(0.0, self.factor_rd)
    }

    fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&State>) -> f64 {
        win_probability(
            a.value / SCALE,
            self.rd_of(a) / SCALE,
            b.value / SCALE,
            self.rd_of(b) / SCALE,
        )
    }

    fn age(&self, rating: Rating, _: Option<&State>, _: Option<&State>, days: f64) -> Rating {
        super::age_sigma(rating, days, self.rd_per_day, self.rd)
    }

    fn initial_state(&self, rating: &Rating) -> Result<Option<State>, RateError> {
        check_range("glicko2", rating, "#1")?;
        Ok(Some(State::new(Glicko2State {
            volatility: self.volatility,
        })))
    }

    fn describe_state(&self, state: &State) -> Vec<Described> {
        state
            .get::<Glicko2State>()
            .map(|s| {
                vec![Described {
                    name: "volatility",
                    value: s.volatility,
                    doc: "σ′: how erratic the player's results are, which widens RD",
                }]
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::glicko::tests::example;
    use crate::systems::testing::close;
    use crate::{League, Settings};

    #[test]
    fn glickmans_worked_example() {
        let sys = Glicko2Config::default();
        let (game, before) = example();
        let rated = sys
            .rate(&crate::system::Prior::new(&game, &before).with_states(&[None; 4]))
            .unwrap();
        let me = rated.changes[2];
        // Glickman (2012): μ' = −0.2069, φ' = 0.8722, σ' = 0.05999; r' = 1464.06,
        // RD' = 151.52 (from μ' rounded to four places; exactly 1464.0507).
        close(me.after.value, 1464.06, 0.01);
        close(me.after.value, 1464.0506705393013, 1e-9);
        close(me.after.sigma.unwrap(), 151.52, 0.005);
        close(me.after.sigma.unwrap(), 151.51652412385727, 1e-9);
        let vol = rated.states[2]
            .as_ref()
            .unwrap()
            .get::<Glicko2State>()
            .unwrap();
        close(vol.volatility, 0.05999, 0.00001);
        close(vol.volatility, 0.059995984286488495, 1e-12);
        assert_eq!(
            sys.describe_state(rated.states[2].as_ref().unwrap())[0].name,
            "volatility"
        );
        // The intermediate quantities of the example: v = 1.7785, Δ = −0.4834 (from
        // rounded g and E).
        let p = periods(
            &game,
            &before.map(|r| (r.value - 1500.0) / SCALE),
            &before.map(|r| r.sigma.unwrap() / SCALE),
            &[],
        )
        .0[2];
        close(p.info.recip(), 1.7785, 0.001);
        close(p.info.recip() * p.surprise, -0.4834, 0.001);
    }

    #[test]
    fn a_factor_adds_to_its_entry_and_has_no_volatility() {
        let sys = Glicko2Config::default();
        let before = [Rating::with_sigma(1500.0, 100.0); 2];
        let factor = Rating::with_sigma(50.0, 25.0);
        let game = crate::systems::glicko::tests::with_a_factor();
        let out = sys
            .rate(&crate::system::Prior::new(&game, &before).with_factors(&[factor]))
            .unwrap();
        // Each player as if rated 50 points up (a), or against an opponent 50 points up
        // whose RD holds the factor's (b).
        let plain = Match::ranked("g", &["a", "b"]).unwrap();
        let a = sys
            .rate(&crate::system::Prior::new(
                &plain,
                &[Rating::with_sigma(1550.0, 100.0), before[1]],
            ))
            .unwrap()
            .changes[0];
        let up = Rating::with_sigma(1550.0, (100.0f64.powi(2) + 25.0f64.powi(2)).sqrt());
        let b = sys
            .rate(&crate::system::Prior::new(&plain, &[up, before[1]]))
            .unwrap()
            .changes[1];
        close(out.changes[0].delta(), a.delta(), 1e-9);
        close(
            out.changes[0].after.sigma.unwrap(),
            a.after.sigma.unwrap(),
            1e-9,
        );
        close(out.changes[1].delta(), b.delta(), 1e-9);
        // The factor: step 3 without volatility, E = 0.5682 (by hand, as Glicko's).
        close(out.factors[0].delta(), 1.4741, 1e-4);
        close(out.factors[0].after.sigma.unwrap(), 24.9425, 1e-4);
        assert_eq!(out.states.len(), 2);
    }

    #[test]
    fn the_volatility_is_kept_from_match_to_match() {
        let mut league = League::new(Box::new(Glicko2Config::default()));
        for i in 0..6 {
            // A wildly inconsistent player: first, then last, then first…
            let order = if i % 2 == 0 {
                ["x", "a", "b"]
            } else {
                ["a", "b", "x"]
            };
            league
                .apply(&Match::ranked(format!("g{i}"), &order).unwrap())
                .unwrap();
        }
        let vol = |league: &League, name: &str| {
            let i = league.index_of(name).unwrap();
            league
                .state(i)
                .unwrap()
                .get::<Glicko2State>()
                .unwrap()
                .volatility
        };
        assert!(vol(&league, "x") > vol(&league, "a"));
        // The league starts --initial players at the default volatility.
        league
            .set_initial("new", Rating::with_sigma(1600.0, 80.0))
            .unwrap();
        close(vol(&league, "new"), 0.06, 0.0);
        let err = league
            .set_initial("bad", Rating::with_sigma(1600.0, 0.0))
            .unwrap_err();
        assert!(
            matches!(err, RateError::RatingOutOfRange { ref player, what: "sigma", .. } if player == "bad"),
            "{err}"
        );
    }

    #[test]
    fn a_period_without_information_keeps_the_volatility() {
        let sys = Glicko2Config::default();
        let game = Match::ranked("g", &["a", "b"]).unwrap();
        let before = [
            Rating::with_sigma(-1e9, 0.001),
            Rating::with_sigma(1e9, 0.001),
        ];
        let rated = sys
            .rate(&crate::system::Prior::new(&game, &before).with_states(&[None, None]))
            .unwrap();
        for (c, s) in rated.changes.iter().zip(&rated.states) {
            assert!(
                c.after.value.is_finite() && c.after.sigma.unwrap().is_finite(),
                "{c:?}"
            );
            let v = s
                .as_ref()
                .unwrap()
                .get::<Glicko2State>()
                .unwrap()
                .volatility;
            assert!(v.is_finite() && v > 0.0);
        }
    }

    #[test]
    fn parameters_are_checked() {
        for (k, v) in [
            ("tau", "0"),
            ("volatility", "0"),
            ("epsilon", "1"),
            ("rd", "-1"),
        ] {
            let err = crate::system("glicko2", &Settings::new().with(k, v)).unwrap_err();
            assert!(err.to_string().contains("in ["), "{err}");
        }
    }
}
