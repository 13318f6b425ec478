//! `whitewhale`: multiplayer Elo by the game's average rating (Jake Peck, "WhiteWhale - A multiplayer Elo rating system", 2014).
//!
//! With `σ` the mean rating of the N entries, `E_x = 1 / (1 + 10^((σ − R_x)/20))`.
//! `T_x` is the finishing rank, where a tied group takes the **worst** rank it covers
//! (four entries tied for 3rd of 10 all get `T = 6`), `S_x = (N − T_x)/(N − 1)`, and
//! `K_x = 50 / P_x` where `P_x` counts the player's rated games *including this one*, so
//! a newcomer moves fast and a veteran slowly.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::whitewhale::WhiteWhaleConfig};
//! let game = Match::with_places("g", &[("a", 1), ("b", 2), ("c", 2), ("d", 4)]).unwrap();
//! let before = [Rating::new(110.0).games(0), Rating::new(100.0).games(1),
//!               Rating::new(90.0).games(9), Rating::new(100.0).games(4)];
//! let c = WhiteWhaleConfig::default().rate(&podium::Prior::new(&game, &before)).unwrap().changes;
//! assert!((c[0].after.value - 122.013).abs() < 1e-3);
//! assert!((c[2].after.value - 90.465).abs() < 1e-3);
//! ```

use super::EloScores;
use crate::model::tie_range;
use crate::rating::Rating;

/// Parameters of WhiteWhale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhiteWhaleConfig {
    /// Numerator of `K = k / games played (including this one)`. Default 50.
    pub k: f64,
    /// Rating difference from the game's average at which the expectation is 10:1. Default 20.
    pub spread: f64,
    /// Rating of a new player ("a decent average"). Default 100.
    pub initial: f64,
}

impl Default for WhiteWhaleConfig {
    fn default() -> Self {
        WhiteWhaleConfig {
            k: 50.0,
            spread: 20.0,
            initial: 100.0,
        }
    }
}

crate::configure!(WhiteWhaleConfig, "whitewhale" {
    k: f64 where crate::params::positive, "in (0, 1e9]" => "K = k / rated games including this one",
    spread: f64 where crate::params::positive, "in (0, 1e9]" => "rating gap to the game's mean at which odds are 10:1",
    initial: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player",
});

impl EloScores for WhiteWhaleConfig {
    fn scores(&self, r: &[f64], places: &[usize], e: &mut [f64], s: &mut [f64]) {
        let n = r.len();
        let mean = r.iter().sum::<f64>() / n as f64;
        for (e, &x) in e.iter_mut().zip(r) {
            *e = 1.0 / (1.0 + 10f64.powf((mean - x) / self.spread));
        }
        for (i, s) in s.iter_mut().enumerate() {
            let worst = tie_range(places, i).end; // 1-based worst rank of the tie group
            *s = (n - worst) as f64 / (n - 1) as f64;
        }
    }

    fn k(&self, r: &Rating, _: usize) -> f64 {
        self.k / (f64::from(r.games) + 1.0)
    }
}

// Two entries: the mean is halfway, so E = 1 / (1 + 10^((b − a) / (2 · spread))).
elo_system!(
    WhiteWhaleConfig,
    "whitewhale",
    logistic(|s| 2.0 * s.spread),
    {}
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, ffa_games};

    #[test]
    fn reference_vector() {
        // P (games including this one) = [1, 2, 10, 5].
        let c = ffa_games(
            &WhiteWhaleConfig::default(),
            &[(110.0, 1, 0), (100.0, 2, 1), (90.0, 2, 9), (100.0, 4, 4)],
        );
        for (got, want) in c.iter().map(|c| c.expected).zip([0.7597, 0.5, 0.2403, 0.5]) {
            close(got, want, 1e-4);
        }
        for (got, want) in c
            .iter()
            .map(|c| c.actual)
            .zip([1.0, 1.0 / 3.0, 1.0 / 3.0, 0.0])
        {
            close(got, want, 1e-12);
        }
        for (got, want) in c
            .iter()
            .map(|c| c.after.value)
            .zip([122.013, 95.833, 90.465, 95.0])
        {
            close(got, want, 1e-3);
        }
        assert_eq!(c[0].after.games, 1);
    }

    #[test]
    fn four_tied_for_third_of_ten_take_rank_six() {
        let places = [1, 2, 3, 3, 3, 3, 7, 8, 9, 10];
        let field: Vec<(f64, u32, u32)> = places.iter().map(|&p| (100.0, p, 0)).collect();
        let c = ffa_games(&WhiteWhaleConfig::default(), &field);
        close(c[2].actual, 4.0 / 9.0, 1e-12);
    }
}
