//! `sme`: Simple Multiplayer Elo (Tom Kerrigan, seed 001).
//!
//! Sort the entries by finish. Each entry plays a virtual two-player Elo game against the
//! entry directly above it (a loss, or a draw if tied) and directly below it (a win, or a
//! draw if tied); its change is the sum of those (at most two) games' changes. Tied
//! entries keep the order they were given in, which decides who their neighbours are.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::sme::SmeConfig};
//! let game = Match::ranked("g", &["A", "B", "C"]).unwrap();
//! let before = [1000.0, 1200.0, 1500.0].map(Rating::new);
//! let after: Vec<f64> = SmeConfig::default().rate(&game, &before).unwrap()
//!     .iter().map(|c| c.after.value).collect();
//! assert!((after[0] - 1024.31).abs() < 0.01);
//! assert!((after[1] - 1202.86).abs() < 0.01);
//! assert!((after[2] - 1472.83).abs() < 0.01);
//! ```

use super::{elo_changes, entry_ratings, expectation};
use crate::error::RateError;
use crate::model::Match;
use crate::params::{Configure, Param};
use crate::rating::{PlayerChange, Rating};
use crate::system::RatingSystem;

/// Parameters of Simple Multiplayer Elo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmeConfig {
    /// Step size of each virtual game. Default 32.
    pub k: f64,
    /// Rating difference `D` of the logistic curve. Default 400.
    pub scale: f64,
    /// Rating of a new player. Default 1500.
    pub initial: f64,
}

impl Default for SmeConfig {
    fn default() -> Self {
        SmeConfig {
            k: 32.0,
            scale: 400.0,
            initial: 1500.0,
        }
    }
}

crate::configure!(SmeConfig, "sme" {
    k: f64 where |v| v > 0.0, "> 0" => "step size K of each virtual game",
    scale: f64 where |v| v > 0.0, "> 0" => "rating difference D of the logistic curve",
    initial: f64 => "rating of a new player",
});

impl RatingSystem for SmeConfig {
    fn name(&self) -> &'static str {
        "sme"
    }
    fn params(&self) -> Vec<Param> {
        Configure::params(self)
    }
    fn initial_rating(&self) -> Rating {
        Rating::new(self.initial)
    }
    fn rate(&self, game: &Match, before: &[Rating]) -> Result<Vec<PlayerChange>, RateError> {
        let r = entry_ratings(game, before)?;
        let n = r.len();
        let mut e = vec![0.0; n];
        let mut s = vec![0.0; n];
        for i in 0..n - 1 {
            // Virtual game between neighbours i (above) and i + 1 (below).
            let ei = expectation(r[i], r[i + 1], self.scale);
            let si = if game.tied(i, i + 1) { 0.5 } else { 1.0 };
            e[i] += ei;
            s[i] += si;
            e[i + 1] += 1.0 - ei;
            s[i + 1] += 1.0 - si;
        }
        Ok(elo_changes(game, before, &e, &s, |_| self.k))
    }
    fn win_probability(&self, a: &Rating, b: &Rating) -> f64 {
        expectation(a.value, b.value, self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, deltas};

    #[test]
    fn seed_vector() {
        let d = deltas(
            &SmeConfig::default(),
            &[(1000.0, 1), (1200.0, 2), (1500.0, 3)],
        );
        close(d[0], 24.31, 0.01);
        close(d[1], 2.86, 0.01);
        close(d[2], -27.17, 0.01);
    }

    #[test]
    fn ties_are_draws_with_neighbours() {
        let d = deltas(
            &SmeConfig::default(),
            &[(1500.0, 1), (1500.0, 1), (1500.0, 3)],
        );
        close(d[0], 0.0, 1e-12);
        close(d[1], 16.0, 1e-12);
        close(d[2], -16.0, 1e-12);
    }
}
