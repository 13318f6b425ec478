//! `elo`: the classic two-player Elo system.
//!
//! A win scores 1, a draw 0.5, a loss 0; the expected score is
//! `E_A(B) = 1 / (1 + 10^((R_B − R_A)/D))` and `R' = R + K (S − E)`.
//! Matches must have exactly two entries (players or teams).
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::elo::EloConfig};
//! let game = Match::ranked("g", &["ann", "bo"]).unwrap();
//! let changes = EloConfig::default().rate(&game, &[Rating::new(1500.0), Rating::new(1500.0)]).unwrap();
//! assert!((changes[0].after.value - 1516.0).abs() < 1e-9);
//! assert!((changes[1].after.value - 1484.0).abs() < 1e-9);
//! ```

use super::{elo_changes, entry_ratings, expectation};
use crate::error::RateError;
use crate::model::Match;
use crate::params::{Configure, Param};
use crate::rating::{PlayerChange, Rating};
use crate::system::RatingSystem;

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

impl RatingSystem for EloConfig {
    fn name(&self) -> &'static str {
        "elo"
    }
    fn params(&self) -> Vec<Param> {
        Configure::params(self)
    }
    fn initial_rating(&self) -> Rating {
        Rating::new(self.initial)
    }
    fn rate(&self, game: &Match, before: &[Rating]) -> Result<Vec<PlayerChange>, RateError> {
        if game.len() != 2 {
            return Err(RateError::WrongEntryCount {
                system: "elo",
                expected: 2,
                found: game.len(),
            });
        }
        let r = entry_ratings(game, before)?;
        let e = [
            expectation(r[0], r[1], self.scale),
            expectation(r[1], r[0], self.scale),
        ];
        let s = if game.tied(0, 1) {
            [0.5, 0.5]
        } else {
            [1.0, 0.0]
        };
        Ok(elo_changes(game, before, &e, &s, |_| self.k))
    }
    fn win_probability(&self, a: &Rating, b: &Rating) -> f64 {
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
    fn rejects_more_than_two_entries() {
        let m = Match::ranked("g", &["a", "b", "c"]).unwrap();
        let err = EloConfig::default()
            .rate(&m, &[Rating::new(1500.0); 3])
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
        let c = EloConfig::default().rate(&m, &before).unwrap();
        // Both teams average 1500: the winners gain 16, full-time losers lose 16.
        close(c[0].delta(), 16.0, 1e-9);
        close(c[1].delta(), 16.0, 1e-9);
        close(c[2].delta(), -16.0, 1e-9);
        close(c[3].delta(), -8.0, 1e-9);
    }
}
