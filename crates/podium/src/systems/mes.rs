//! `mes`: modified expected score, the "Game Rating Calculator" (Gautam Narula, "Building a Multiplayer Elo Rating System", 2012, approach 3).
//!
//! `E_p,x` is the two-player expectation of `x` against the **mean rating of its
//! opponents**, and `E_x = 2 · E_p,x / N`, so that N equal players each expect `1/N`. The
//! winner scores 1 (tied winners split it), everyone else 0; `R' = R + K (S − E)`.
//!
//! A player's first `provisional_games` rated games use `K × provisional_factor`; such
//! players are marked provisional on leaderboards. With `seed_median`, a new player starts
//! at the median rating of the established (non-provisional) players.
//!
//! The system is point neutral when all players are established and equally rated; in
//! general `Σ E` is only close to 1 (Narula calls it neutral "not counting rounding
//! errors"), so a few hundredths of a point can appear or vanish per match.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::mes::MesConfig};
//! let sys = MesConfig { provisional_factor: 1.0, ..Default::default() };
//! let game = Match::with_places("g", &[("a", 2), ("b", 3), ("c", 1), ("d", 4)]).unwrap();
//! // Entries are sorted best first: c, a, b, d.
//! let before = [950.0, 1100.0, 1000.0, 900.0].map(Rating::new);
//! let d: Vec<f64> = sys.rate(&podium::Prior::new(&game, &before)).unwrap().changes.iter().map(|c| c.delta()).collect();
//! assert!((d[0] - 12.572).abs() < 1e-3);
//! assert!((d[1] + 5.627).abs() < 1e-3);
//! ```

use super::{expectation, fill_winner_scores, EloScores};
use crate::rating::Rating;
use crate::system::RatingSystem;

/// Parameters of the modified-expected-score system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MesConfig {
    /// Step size for established players. Default 16.
    pub k: f64,
    /// Rating difference `D` of the logistic curve. Default 400.
    pub scale: f64,
    /// Rating of a new player. Default 1000.
    pub initial: f64,
    /// Number of first games that are provisional. Default 5.
    pub provisional_games: u32,
    /// K multiplier during the provisional games. Default 2.
    pub provisional_factor: f64,
    /// Start new players at the median rating of established players. Default false.
    pub seed_median: bool,
}

impl Default for MesConfig {
    fn default() -> Self {
        MesConfig {
            k: 16.0,
            scale: 400.0,
            initial: 1000.0,
            provisional_games: 5,
            provisional_factor: 2.0,
            seed_median: false,
        }
    }
}

crate::configure!(MesConfig, "mes" {
    k: f64 where crate::params::positive, "in (0, 1e9]" => "step size K for established players",
    scale: f64 where crate::params::positive, "in (0, 1e9]" => "rating difference D of the logistic curve",
    initial: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player (while no one is established, with seed_median)",
    provisional_games: u32 => "a player's first games that are provisional",
    provisional_factor: f64 where crate::params::positive, "in (0, 1e9]" => "K multiplier during the provisional games",
    seed_median: bool => "start new players at the median rating of established players (off: the source's rule, kept; on predicts better on every history in docs/defaults.md)",
});

impl EloScores for MesConfig {
    fn scores(&self, r: &[f64], places: &[usize], e: &mut [f64], s: &mut [f64]) {
        let n = r.len() as f64;
        let total: f64 = r.iter().sum();
        for (e, &x) in e.iter_mut().zip(r) {
            let opponents = (total - x) / (n - 1.0);
            *e = 2.0 * expectation(x, opponents, self.scale) / n;
        }
        fill_winner_scores(places, s);
    }

    fn k(&self, r: &Rating, _: usize) -> f64 {
        if self.is_provisional(r) {
            self.k * self.provisional_factor
        } else {
            self.k
        }
    }
}

elo_system!(MesConfig, "mes", logistic(|s| s.scale), {
    fn new_player_rating(&self, pool: &mut dyn Iterator<Item = &Rating>) -> Rating {
        if !self.seed_median {
            return self.initial_rating();
        }
        let mut established: Vec<f64> = pool
            .filter(|r| !self.is_provisional(r))
            .map(|r| r.value)
            .collect();
        if established.is_empty() {
            return self.initial_rating();
        }
        established.sort_by(f64::total_cmp);
        let n = established.len();
        let median = if n % 2 == 1 {
            established[n / 2]
        } else {
            (established[n / 2 - 1] + established[n / 2]) / 2.0
        };
        Rating::new(median)
    }
    fn is_provisional(&self, rating: &Rating) -> bool {
        rating.games < self.provisional_games
    }
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, ffa, ffa_games};
    use crate::PlayerChange;

    fn flat() -> MesConfig {
        MesConfig {
            provisional_factor: 1.0,
            ..Default::default()
        }
    }

    #[test]
    fn reference_vectors() {
        let c = ffa(
            &flat(),
            &[(1000.0, 1), (1000.0, 2), (1000.0, 3), (1000.0, 4)],
        );
        for (got, want) in c
            .iter()
            .map(PlayerChange::delta)
            .zip([12.0, -4.0, -4.0, -4.0])
        {
            close(got, want, 0.01);
        }
        let c = ffa(&flat(), &[(1100.0, 2), (1000.0, 3), (950.0, 1), (900.0, 4)]);
        for (got, want) in c
            .iter()
            .map(|c| c.expected)
            .zip([0.3517, 0.2620, 0.2143, 0.1691])
        {
            close(got, want, 1e-4);
        }
        for (got, want) in c
            .iter()
            .map(PlayerChange::delta)
            .zip([-5.627, -4.192, 12.572, -2.705])
        {
            close(got, want, 1e-3);
        }
    }

    #[test]
    fn provisional_players_move_twice_as_far() {
        let c = ffa_games(&MesConfig::default(), &[(1000.0, 1, 0), (1000.0, 2, 5)]);
        close(c[0].delta(), 2.0 * 16.0 * 0.5, 1e-9);
        close(c[1].delta(), -16.0 * 0.5, 1e-9);
        assert!(MesConfig::default().is_provisional(&Rating::new(1000.0).games(4)));
        assert!(!MesConfig::default().is_provisional(&Rating::new(1000.0).games(5)));
    }

    #[test]
    fn seed_median_uses_established_players_only() {
        let sys = MesConfig {
            seed_median: true,
            ..Default::default()
        };
        let pool = [
            Rating::new(900.0).games(10),
            Rating::new(1100.0).games(6),
            Rating::new(1500.0).games(1),
            Rating::new(1000.0).games(5),
        ];
        assert_eq!(sys.new_player_rating(&mut pool.iter()).value, 1000.0);
        assert_eq!(sys.new_player_rating(&mut pool[2..3].iter()).value, 1000.0);
        let sys = MesConfig {
            seed_median: true,
            initial: 1200.0,
            ..Default::default()
        };
        assert_eq!(sys.new_player_rating(&mut pool[..2].iter()).value, 1000.0);
        assert_eq!(sys.new_player_rating(&mut [].iter()).value, 1200.0);
    }

    #[test]
    fn not_exactly_point_neutral_with_unequal_ratings() {
        // Narula's formula: Σ E = 0.9971 here, so 16 · 0.0029 ≈ 0.048 points appear.
        let c = ffa(&flat(), &[(1100.0, 2), (1000.0, 3), (950.0, 1), (900.0, 4)]);
        let total: f64 = c.iter().map(PlayerChange::delta).sum();
        close(total, 0.048, 1e-3);
    }
}
