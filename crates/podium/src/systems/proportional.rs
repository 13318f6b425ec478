//! `proportional`: expected score = share of the total rating (Gautam Narula, *Building a
//! Multiplayer Elo Rating System*, 2012, approach 2).
//!
//! `E_x = R_x / Σ R`; the winner scores `S = 1` (tied winners split it), everyone else 0;
//! `R' = R + K (S − E)`. Ratings must stay positive: a non-positive rating is an error.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::proportional::ProportionalConfig};
//! let game = Match::ranked("g", &["a", "b", "c", "d"]).unwrap();
//! let d: Vec<f64> = ProportionalConfig::default().rate(&podium::Prior::new(&game, &[Rating::new(1000.0); 4])).unwrap().changes
//!     .iter().map(|c| c.delta()).collect();
//! assert_eq!(d, [12.0, -4.0, -4.0, -4.0]);
//! ```

use super::{elo_changes, entry_ratings, winner_scores};
use crate::error::RateError;
use crate::model::Match;
use crate::params::Configure;
use crate::rating::{PlayerChange, Rating};
use crate::system::{Description, Posterior, Prior, RatingSystem};

/// Parameters of the proportional system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProportionalConfig {
    /// Step size. Default 16.
    pub k: f64,
    /// Rating of a new player (must be positive). Default 1000.
    pub initial: f64,
}

impl Default for ProportionalConfig {
    fn default() -> Self {
        ProportionalConfig {
            k: 16.0,
            initial: 1000.0,
        }
    }
}

crate::configure!(ProportionalConfig, "proportional" {
    k: f64 where crate::params::positive, "in (0, 1e9]" => "step size K",
    initial: f64 where crate::params::positive, "in (0, 1e9]" => "rating of a new player",
});

impl RatingSystem for ProportionalConfig {
    fn describe(&self) -> Description {
        Description {
            name: "proportional",
            params: Configure::params(self),
            capabilities: crate::system::Capabilities::default(),
        }
    }
    fn name(&self) -> &'static str {
        "proportional"
    }
    fn initial_rating(&self) -> Rating {
        Rating::new(self.initial)
    }
    fn check_rating(&self, rating: &Rating) -> Result<(), RateError> {
        if crate::params::positive(rating.value) {
            Ok(())
        } else {
            Err(crate::system::out_of_range(
                "proportional",
                "rating",
                rating.value,
                "0 < rating ≤ 1e9: expected scores are shares of the total rating",
            ))
        }
    }
    fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError> {
        crate::system::no_factors("proportional", prior)?;
        *out = Posterior::players(self.changes(prior.game, prior.ratings)?);
        Ok(())
    }
    fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&crate::State>) -> f64 {
        if a.value + b.value > 0.0 {
            a.value / (a.value + b.value)
        } else {
            0.5
        }
    }
}

impl ProportionalConfig {
    /// Each player's change: the winner's share against the entry's share of the total.
    fn changes(&self, game: &Match, before: &[Rating]) -> Result<Vec<PlayerChange>, RateError> {
        let r = entry_ratings(game, before)?;
        for ((_, m), b) in game.players().zip(before) {
            if b.value <= 0.0 {
                return Err(RateError::NonPositiveRating {
                    system: "proportional",
                    player: m.player.clone(),
                    rating: b.value,
                });
            }
        }
        let total: f64 = r.iter().sum();
        let e: Vec<f64> = r.iter().map(|x| x / total).collect();
        Ok(elo_changes(game, before, &e, &winner_scores(game), |_| {
            self.k
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, deltas};

    #[test]
    fn reference_vector() {
        let d = deltas(
            &ProportionalConfig::default(),
            &[(1000.0, 1), (1000.0, 2), (1000.0, 3), (1000.0, 4)],
        );
        for (got, want) in d.iter().zip([12.0, -4.0, -4.0, -4.0]) {
            close(*got, want, 0.01);
        }
    }

    #[test]
    fn tied_winners_split_the_win() {
        let d = deltas(
            &ProportionalConfig::default(),
            &[(1000.0, 1), (1000.0, 1), (1000.0, 3), (1000.0, 4)],
        );
        close(d[0], 4.0, 1e-9);
        close(d[1], 4.0, 1e-9);
        close(d[2], -4.0, 1e-9);
    }

    #[test]
    fn rejects_non_positive_ratings() {
        let m = Match::ranked("g", &["a", "b"]).unwrap();
        let err = ProportionalConfig::default()
            .rate(&crate::system::Prior::new(
                &m,
                &[Rating::new(10.0), Rating::new(0.0)],
            ))
            .map(|p| p.changes)
            .unwrap_err();
        assert!(matches!(err, RateError::NonPositiveRating { ref player, .. } if player == "b"));
    }
}
