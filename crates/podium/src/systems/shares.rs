//! `shares`: normalized pairwise expectation with position shares (Oliver Brown, "Expanding the Elo rating system").
//!
//! `E_x = Σ_{j≠x} E_x(j) / C` with `C = N(N−1)/2`, so the expected scores sum to 1.
//! The entry at position `p` earns `S = (N − p)/C` shares (last earns 0, first `(N−1)/C`);
//! a tied group shares the mean of its members' shares. `R' = R + K (S − E)`. Both `E` and
//! `S` sum to 1, so the system is point neutral. With `winner_takes_all`, `S = 1` for the
//! winner (tied winners split it) and 0 for everyone else.
//!
//! (Brown divides by N; for N = 3 that equals C. Dividing by C for every N keeps the
//! expected and actual scores on the same total.)
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::shares::SharesConfig};
//! let game = Match::ranked("g", &["A", "B", "C"]).unwrap();
//! let before = [1000.0, 1200.0, 1500.0].map(Rating::new);
//! let d: Vec<f64> = SharesConfig::default().rate(&podium::Prior::new(&game, &before)).unwrap().changes
//!     .iter().map(|c| c.delta()).collect();
//! assert!((d[0] - 18.20).abs() < 0.01 && (d[1] - 0.95).abs() < 0.01 && (d[2] + 19.15).abs() < 0.01);
//! ```

use super::{EloScores, Expectations};

use crate::model::tie_range;
use crate::rating::Rating;

/// Parameters of the shares system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharesConfig {
    /// Step size. Default 32.
    pub k: f64,
    /// Rating difference `D` of the logistic curve. Default 400.
    pub scale: f64,
    /// Rating of a new player. Default 1500.
    pub initial: f64,
    /// Only the winner scores (1), instead of position shares. Default false.
    pub winner_takes_all: bool,
}

impl Default for SharesConfig {
    fn default() -> Self {
        SharesConfig {
            k: 32.0,
            scale: 400.0,
            initial: 1500.0,
            winner_takes_all: false,
        }
    }
}

crate::configure!(SharesConfig, "shares" {
    k: f64 where crate::params::positive, "in (0, 1e9]" => "step size K",
    scale: f64 where crate::params::positive, "in (0, 1e9]" => "rating difference D of the logistic curve",
    initial: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player",
    winner_takes_all: bool => "the winner scores 1 and everyone else 0, instead of position shares",
});

/// Actual scores by position shares `(N − p)/C`, tied groups sharing their mean.
impl EloScores for SharesConfig {
    fn scores(&self, r: &[f64], places: &[usize], e: &mut [f64], s: &mut [f64]) {
        let n = r.len();
        let c = (n * (n - 1)) as f64 / 2.0;
        let table = Expectations::new(r, self.scale);
        for i in 0..n {
            for j in i + 1..n {
                let eij = table.get(i, j);
                e[i] += eij;
                e[j] += 1.0 - eij;
            }
        }
        e.iter_mut().for_each(|x| *x /= c);
        let mut start = 0;
        while start < n {
            let g = tie_range(places, start);
            s[g.clone()].fill(if self.winner_takes_all {
                // Tied winners split the win.
                if start == 0 {
                    1.0 / g.len() as f64
                } else {
                    0.0
                }
            } else {
                // Positions g.start+1 ..= g.end earn N − p shares each.
                let total: usize = (g.start + 1..=g.end).map(|p| n - p).sum();
                total as f64 / g.len() as f64 / c
            });
            start = g.end;
        }
    }

    fn k(&self, _: &Rating, _: usize) -> f64 {
        self.k
    }
}

elo_system!(SharesConfig, "shares", logistic(|s| s.scale), {});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, deltas, ffa};
    use crate::{Match, PlayerChange};

    #[test]
    fn reference_vector() {
        let field = [(1000.0, 1), (1200.0, 2), (1500.0, 3)];
        let c = ffa(&SharesConfig::default(), &field);
        for (got, want) in c.iter().map(|c| c.expected).zip([0.0978, 0.3036, 0.5986]) {
            close(got, want, 1e-4);
        }
        for (got, want) in c.iter().map(PlayerChange::delta).zip([18.20, 0.95, -19.15]) {
            close(got, want, 0.01);
        }
        let wta = SharesConfig {
            winner_takes_all: true,
            ..Default::default()
        };
        for (got, want) in deltas(&wta, &field).into_iter().zip([28.87, -9.71, -19.15]) {
            close(got, want, 0.01);
        }
    }

    #[test]
    fn tie_shares() {
        let m = Match::with_places(
            "g",
            &[
                ("a", 1),
                ("b", 1),
                ("c", 3),
                ("d", 3),
                ("e", 3),
                ("f", 6),
                ("g", 7),
            ],
        )
        .unwrap();
        let r = [1500.0; 7];
        let (mut e, mut s) = ([0.0; 7], [0.0; 7]);
        SharesConfig::default().scores(&r, m.places(), &mut e, &mut s);
        for (got, want) in s
            .iter()
            .zip([0.262, 0.262, 0.143, 0.143, 0.143, 0.048, 0.0])
        {
            close(*got, want, 1e-3);
        }
        close(s.iter().sum(), 1.0, 1e-12);
    }
}
