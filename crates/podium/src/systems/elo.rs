//! `elo`: the classic two-player Elo system.
//!
//! A win scores 1, a draw 0.5, a loss 0; the expected score is
//! `E_A(B) = 1 / (1 + 10^((R_B − R_A)/D))` and `R' = R + K (S − E)`.
//! Matches must have exactly two entries (players or teams).
//!
//! **Factors** ([`crate::factor`]): white's first move, the home ground, a side of
//! the map. An entry's rating is its members' mean plus its factors' ratings, and a
//! factor moves by `K (S − E)` of the entry that carries it, as a player does.
//!
//! ```
//! use podium::{Match, Prior, Rating, RatingSystem, systems::elo::EloConfig};
//! let game = Match::ranked("g", &["ann", "bo"]).unwrap();
//! let before = [Rating::new(1500.0), Rating::new(1500.0)];
//! let changes = EloConfig::default().rate(&Prior::new(&game, &before)).unwrap().changes;
//! assert!((changes[0].after.value - 1516.0).abs() < 1e-9);
//! assert!((changes[1].after.value - 1484.0).abs() < 1e-9);
//! ```

use super::{expectation, EloScores};
use crate::error::RateError;
use crate::model::Match;
use crate::params::Configure;
use crate::rating::Rating;
use crate::system::{Capabilities, Description, Posterior, Prior, RatingSystem};

/// Parameters of two-player Elo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloConfig {
    /// Step size: the most a rating moves in one game. Default 32.
    pub k: f64,
    /// Rating difference `D` at which the stronger player expects ten times the weaker's score. Default 400.
    pub scale: f64,
    /// Rating of a new player. Default 1500.
    pub initial: f64,
}

impl Default for EloConfig {
    fn default() -> Self {
        EloConfig {
            k: 32.0,
            scale: 400.0,
            initial: 1500.0,
        }
    }
}

crate::configure!(EloConfig, "elo" {
    k: f64 where crate::params::positive, "in (0, 1e9]" => "step size K per game",
    scale: f64 where crate::params::positive, "in (0, 1e9]" => "rating difference D of the logistic curve",
    initial: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player",
});

impl EloConfig {
    /// Refuses a match of other than two entries.
    fn two(game: &Match) -> Result<(), RateError> {
        if game.len() == 2 {
            Ok(())
        } else {
            Err(RateError::WrongEntryCount {
                system: "elo",
                expected: 2,
                found: game.len(),
            })
        }
    }
}

impl EloScores for EloConfig {
    fn scores(&self, r: &[f64], places: &[usize], e: &mut [f64], s: &mut [f64]) {
        e[0] = expectation(r[0], r[1], self.scale);
        e[1] = 1.0 - e[0];
        s[0] = match places[0].cmp(&places[1]) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        };
        s[1] = 1.0 - s[0];
    }

    fn k(&self, _: &Rating, _: usize) -> f64 {
        self.k
    }
}

impl RatingSystem for EloConfig {
    fn describe(&self) -> Description {
        Description {
            name: "elo",
            params: Configure::params(self),
            capabilities: Capabilities {
                rates_factors: true,
                ..Capabilities::default()
            },
        }
    }
    fn name(&self) -> &'static str {
        "elo"
    }
    fn initial_rating(&self) -> Rating {
        Rating::new(self.initial)
    }
    fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError> {
        Self::two(prior.game)?;
        crate::systems::rate_elo_prior(self, prior, out)
    }
    fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&crate::state::State>) -> f64 {
        expectation(a.value, b.value, self.scale)
    }
    fn pair_log_loss(
        &self,
        better: &[Rating],
        worse: &Rating,
        _: Option<&crate::state::State>,
    ) -> f64 {
        crate::systems::elo_pair_log_loss(better, worse, self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, deltas};

    #[test]
    fn win_draw_loss() {
        let sys = EloConfig::default();
        let d = deltas(&sys, &[(1600.0, 1), (1500.0, 2)]);
        close(d[0], 32.0 * (1.0 - 0.640_065), 1e-4);
        close(d[1], -d[0], 1e-12);
        let d = deltas(&sys, &[(1600.0, 1), (1500.0, 1)]);
        close(d[0], 32.0 * (0.5 - 0.640_065), 1e-4);
    }

    #[test]
    fn a_factor_is_part_of_its_entry_and_moves_with_it() {
        // White's move is worth +50 so far; white wins against an equal player.
        let m = Match::builder("g")
            .player("ann", crate::Finish::Rank(1.0))
            .factor("first", "white")
            .player("bo", crate::Finish::Rank(2.0))
            .build()
            .unwrap();
        let before = [Rating::new(1500.0); 2];
        let factors = [Rating::new(50.0)];
        let out = EloConfig::default()
            .rate(&Prior::new(&m, &before).with_factors(&factors))
            .unwrap();
        let e = 1.0 / (1.0 + 10f64.powf(-50.0 / 400.0));
        close(e, 0.571_463, 1e-6);
        close(out.changes[0].delta(), 32.0 * (1.0 - e), 1e-9);
        close(out.changes[1].delta(), -32.0 * (1.0 - e), 1e-9);
        close(out.factors[0].delta(), 32.0 * (1.0 - e), 1e-9);
        // Three entries are refused with or without factors.
        let three = Match::ranked("g", &["a", "b", "c"]).unwrap();
        let err = EloConfig::default()
            .rate(&Prior::new(&three, &[Rating::new(1500.0); 3]))
            .unwrap_err();
        assert!(matches!(err, RateError::WrongEntryCount { found: 3, .. }));
    }

    #[test]
    fn rejects_more_than_two_entries() {
        let m = Match::ranked("g", &["a", "b", "c"]).unwrap();
        let err = EloConfig::default()
            .rate(&Prior::new(&m, &[Rating::new(1500.0); 3]))
            .unwrap_err();
        assert_eq!(
            err,
            RateError::WrongEntryCount {
                system: "elo",
                expected: 2,
                found: 3
            }
        );
    }

    #[test]
    fn teams_move_by_the_team_change_scaled_by_weight() {
        let m = Match::builder("g")
            .team("x", ["a", "b"], crate::Finish::Rank(1.0))
            .entry(crate::Entry {
                team: Some("y".into()),
                members: vec![
                    crate::Member {
                        player: "c".into(),
                        weight: 1.0,
                    },
                    crate::Member {
                        player: "d".into(),
                        weight: 0.5,
                    },
                ],
                finish: crate::Finish::Rank(2.0),
                factors: Vec::new(),
            })
            .build()
            .unwrap();
        let before = [1400.0, 1600.0, 1500.0, 1500.0].map(Rating::new);
        let c = EloConfig::default()
            .rate(&Prior::new(&m, &before))
            .unwrap()
            .changes;
        // Both teams average 1500: the winners gain 16, full-time losers lose 16.
        close(c[0].delta(), 16.0, 1e-9);
        close(c[1].delta(), 16.0, 1e-9);
        close(c[2].delta(), -16.0, 1e-9);
        close(c[3].delta(), -8.0, 1e-9);
    }
}
