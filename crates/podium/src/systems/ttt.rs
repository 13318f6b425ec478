//! `ttt`: TrueSkill Through Time used forward, for ratings from past matches only
//! (Dangauthier, Herbrich, Minka & Graepel, NIPS 2007; Landfried & Mocskos, J. Stat.
//! Softw. 112(6), 2025).
//!
//! TrueSkill Through Time smooths a whole history ([`crate::history`]): every estimate
//! also learns from later matches. A rating for predictions may use only the past, so
//! this system is the smoother's first forward pass, which is exact filtering in its
//! model: before a match each player's σ² grows by `γ²` per day since their last match
//! ([`RatingSystem::age`]), then one expectation-propagation game (the teams'
//! performances compared best first, ties within the draw margin of `p_draw`, as the
//! `trueskillthroughtime` package computes one game) gives the posteriors. A match costs
//! `O(N)` for `N` players, times up to 10 inner sweeps when it has more than two
//! entries; nothing earlier is revisited. `podium history` gives the smoothed curves.
//!
//! ```
//! use podium::{Match, Prior, RatingSystem};
//! let ttt = podium::systems::ttt::TttSystem::default();
//! let game = Match::ranked("g", &["ann", "bo"]).unwrap();
//! let r = ttt.initial_rating();
//! let after = ttt.rate(&Prior::new(&game, &[r, r])).unwrap().changes;
//! // trueskillthroughtime 1.1.0, at this system's p_draw 0.1:
//! // Game([[Player()], [Player()]], p_draw=0.1).posteriors()
//! assert!((after[0].after.value - 3.394311817328315).abs() < 1e-9);
//! assert!((after[0].after.sigma.unwrap() - 4.977157889445189).abs() < 1e-9);
//! ```

use crate::error::RateError;
use crate::gaussian::cdf;
use crate::model::Match;
use crate::params::Configure;
use crate::rating::{PlayerChange, Rating};
use crate::system::{
    check_ratings, no_factors, Capabilities, Description, Posterior, Prior, RatingSystem,
};

/// Parameters of forward TrueSkill Through Time. Defaults are `trueskillthroughtime`
/// 1.1.0's, but for the draw probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TttSystem {
    /// Prior mean skill of a new player. Default 0.
    pub mu: f64,
    /// Prior σ of a new player. Default 6.
    pub sigma: f64,
    /// Performance noise β. Default 1.
    pub beta: f64,
    /// Skill drift γ: σ² grows by `γ²` per day between a player's matches. Default 0.03.
    pub gamma: f64,
    /// Probability that two evenly matched entries draw; ties need it above 0. Default
    /// 0.1 (the package's 0 cannot read ties).
    pub p_draw: f64,
}

impl Default for TttSystem {
    fn default() -> Self {
        TttSystem {
            mu: 0.0,
            sigma: 6.0,
            beta: 1.0,
            gamma: 0.03,
            p_draw: 0.1,
        }
    }
}

crate::configure!(TttSystem, "ttt" {
    mu: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "prior mean skill of a new player",
    sigma: f64 where crate::params::sigma, "in [1e-9, 1e9]" => "prior σ of a new player",
    beta: f64 where crate::params::sigma, "in [1e-9, 1e9]" => "performance noise β",
    gamma: f64 where crate::params::non_negative, "in [0, 1e9]" => "skill drift γ: σ² grows by γ² per day between matches",
    p_draw: f64 where |v| v > 0.0 && v < 1.0, "in (0, 1)" => "probability that two evenly matched entries draw",
});

impl TttSystem {
    /// Posteriors of a match's players (in `game.players()` order) from their priors.
    fn posteriors(&self, game: &Match, before: &[Rating]) -> Vec<(f64, f64)> {
        let mut i = 0;
        let mut priors = Vec::with_capacity(game.len());
        let mut weights = Vec::with_capacity(game.len());
        for e in game.entries() {
            let team: Vec<(f64, f64)> = e
                .members
                .iter()
                .map(|_| {
                    let r = before[i];
                    i += 1;
                    (r.value, r.sigma.unwrap_or(self.sigma))
                })
                .collect();
            priors.push(team);
            weights.push(e.members.iter().map(|m| m.weight).collect::<Vec<f64>>());
        }
        if weights.iter().flatten().all(|&w| w == 1.0) {
            weights.clear();
        }
        let results: Vec<f64> = (0..game.len()).map(|e| -(game.place(e) as f64)).collect();
        crate::history::game_posteriors(&priors, &results, &weights, self.beta, self.p_draw)
            .into_iter()
            .flatten()
            .collect()
    }

    /// The mean and variance of each entry's performance.
    fn performances(&self, game: &Match, before: &[Rating]) -> Vec<(f64, f64)> {
        game.entries()
            .iter()
            .enumerate()
            .map(|(e, entry)| {
                game.member_range(e)
                    .zip(&entry.members)
                    .fold((0.0, 0.0), |(m, v), (i, p)| {
                        let s = before[i].sigma.unwrap_or(self.sigma);
                        (
                            m + p.weight * before[i].value,
                            v + p.weight * p.weight * (s * s + self.beta * self.beta),
                        )
                    })
            })
            .collect()
    }
}

impl TttSystem {
    /// One match's changes, in [`Match::players`] order.
    fn rate_players(
        &self,
        game: &Match,
        before: &[Rating],
    ) -> Result<Vec<PlayerChange>, RateError> {
        check_ratings(game, before)?;
        let post = self.posteriors(game, before);
        let perfs = self.performances(game, before);
        let k = game.len();
        // Expected and achieved scores against the neighbours in the finishing order.
        let (mut expected, mut actual) = (vec![0.0; k], vec![0.0; k]);
        for e in 0..k {
            let (mut ex, mut ac, mut cnt) = (0.0, 0.0, 0.0);
            for o in [e.wrapping_sub(1), e + 1] {
                if o >= k {
                    continue;
                }
                let (m, v) = (perfs[e].0 - perfs[o].0, perfs[e].1 + perfs[o].1);
                ex += cdf(m / v.sqrt());
                ac += match game.place(e).cmp(&game.place(o)) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                cnt += 1.0;
            }
            expected[e] = ex / cnt;
            actual[e] = ac / cnt;
        }
        Ok(game
            .players()
            .zip(post)
            .enumerate()
            .map(|(i, ((e, m), (mu, sigma)))| {
                let b = before[i];
                PlayerChange {
                    before: b,
                    after: Rating {
                        value: mu,
                        sigma: Some(sigma),
                        games: b.games.saturating_add(1),
                    },
                    expected: expected[e],
                    actual: actual[e],
                    k: None,
                    weight: m.weight,
                }
            })
            .collect())
    }
}

impl RatingSystem for TttSystem {
    fn describe(&self) -> Description {
        Description {
            name: "ttt",
            params: Configure::params(self),
            capabilities: Capabilities {
                has_uncertainty: true,
                ..Capabilities::default()
            },
        }
    }

    fn name(&self) -> &'static str {
        "ttt"
    }

    fn initial_rating(&self) -> Rating {
        Rating::with_sigma(self.mu, self.sigma)
    }

    fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError> {
        no_factors("ttt", prior)?;
        *out = Posterior::players(self.rate_players(prior.game, prior.ratings)?);
        Ok(())
    }

    fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&crate::State>) -> f64 {
        let (sa, sb) = (a.sigma.unwrap_or(self.sigma), b.sigma.unwrap_or(self.sigma));
        cdf((a.value - b.value) / (2.0 * self.beta * self.beta + sa * sa + sb * sb).sqrt())
    }

    fn check_rating(&self, rating: &Rating) -> Result<(), RateError> {
        crate::system::check_bayesian("ttt", rating)
    }

    fn age(
        &self,
        rating: Rating,
        _: Option<&crate::State>,
        _: Option<&crate::State>,
        days: f64,
    ) -> Rating {
        match rating.sigma {
            Some(s) if days > 0.0 && self.gamma > 0.0 => Rating {
                sigma: Some((s * s + days * self.gamma * self.gamma).sqrt()),
                ..rating
            },
            _ => rating,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Finish;

    #[test]
    fn a_tie_moves_the_weaker_player_up() {
        let ttt = TttSystem::default();
        let game = Match::builder("g")
            .player("a", Finish::Rank(1.0))
            .player("b", Finish::Rank(1.0))
            .build()
            .unwrap();
        let strong = Rating::with_sigma(2.0, 1.0);
        let weak = Rating::with_sigma(0.0, 1.0);
        let c = ttt
            .rate(&Prior::new(&game, &[strong, weak]))
            .unwrap()
            .changes;
        assert!(c[0].after.value < 2.0 && c[1].after.value > 0.0);
        assert!(c[0].after.sigma.unwrap() < 1.0);
    }

    #[test]
    fn a_tie_between_players_forty_deviations_apart_gives_finite_ratings() {
        // The tie's mass and densities are subnormal there; their ratios gave NaN.
        let ttt = TttSystem::default();
        let game = Match::builder("g")
            .player("a", Finish::Rank(2.0))
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap();
        let s = ttt.sigma;
        let before = [
            Rating::with_sigma(717.76, s),
            Rating::with_sigma(1048.57, s),
        ];
        let c = ttt.rate(&Prior::new(&game, &before)).unwrap().changes;
        for x in &c {
            assert!(x.after.value.is_finite() && x.after.sigma.is_some_and(|s| s > 0.0));
        }
        // They are drawn towards each other, by the same amount.
        assert!(c[0].after.value > 717.76 && c[1].after.value < 1048.57);
        assert!((c[0].delta() + c[1].delta()).abs() < 1e-6);
    }

    #[test]
    fn idle_days_widen_sigma_by_gamma() {
        let ttt = TttSystem::default();
        let r = ttt.age(Rating::with_sigma(1.0, 0.5), None, None, 100.0);
        assert!((r.sigma.unwrap() - (0.25f64 + 100.0 * 0.03 * 0.03).sqrt()).abs() < 1e-12);
        assert_eq!(r.value, 1.0);
    }
}
