//! `sme`: Simple Multiplayer Elo (Tom Kerrigan, "Multiplayer Elo").
//!
//! Sort the entries by finish. Each entry plays a virtual two-player Elo game against the
//! entry directly above it (a loss, or a draw if tied) and directly below it (a win, or a
//! draw if tied); its change is the sum of those (at most two) games' changes.
//!
//! **Ties.** Within a tied group no order is better than another, yet the order decides
//! who meets whom. `sme` therefore takes the *expected* change over all orders of every
//! tied group (each order equally likely): two members of a group of `g` are neighbours
//! with probability `2/g` (a draw), and an entry meets each member of the group above or
//! below it with probability `1/(g · g')`. Without ties this is exactly Kerrigan's rule;
//! with ties it keeps every virtual game zero-sum (point neutral), and tied players with
//! equal ratings move equally whatever order the input lists them in.
//!
//! ```
//! use podium::{Match, Rating, RatingSystem, systems::sme::SmeConfig};
//! let game = Match::ranked("g", &["A", "B", "C"]).unwrap();
//! let before = [1000.0, 1200.0, 1500.0].map(Rating::new);
//! let after: Vec<f64> = SmeConfig::default().rate(&podium::Prior::new(&game, &before)).unwrap().changes
//!     .iter().map(|c| c.after.value).collect();
//! assert!((after[0] - 1024.31).abs() < 0.01);
//! assert!((after[1] - 1202.86).abs() < 0.01);
//! assert!((after[2] - 1472.83).abs() < 0.01);
//! ```

use super::{powers, EloScores, Expectations, INLINE};
use crate::model::tie_range;
use crate::rating::Rating;

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
    k: f64 where crate::params::positive, "in (0, 1e9]" => "step size K of each virtual game",
    scale: f64 where crate::params::positive, "in (0, 1e9]" => "rating difference D of the logistic curve",
    initial: f64 where crate::params::in_range, "in [-1e9, 1e9]" => "rating of a new player",
});

impl EloScores for SmeConfig {
    /// The one implementation of sme's arithmetic, for matches and ranked free-for-alls
    /// alike. A match of up to [`INLINE`] entries whose ratings lie close enough keeps its
    /// powers `q = 10^((r − r̄)/D)` on the stack and reads each expectation from them
    /// directly; any other match goes through [`Expectations`], which falls back to the
    /// direct formula where the powers would overflow.
    #[inline(always)]
    fn scores(&self, r: &[f64], places: &[usize], e: &mut [f64], s: &mut [f64]) {
        let n = r.len();
        let untied = places.iter().enumerate().all(|(i, &p)| p == i + 1);
        let mut q = [0.0; INLINE];
        if n <= INLINE && powers(r, self.scale, &mut q[..n]) {
            let q = &q[..n];
            let get = |i: usize, j: usize| q[i] / (q[i] + q[j]);
            if untied {
                neighbours(get, e, s);
            } else {
                tie_groups(get, places, e, s);
            }
            return;
        }
        let table = Expectations::new(r, self.scale);
        let get = |i, j| table.get(i, j);
        if untied {
            neighbours(get, e, s);
        } else {
            tie_groups(get, places, e, s);
        }
    }

    fn k(&self, _: &Rating, _: usize) -> f64 {
        self.k
    }
}

/// The scores of a match without ties (places 1, 2, …, n), the usual one: each entry
/// meets its neighbours with probability 1. These are [`tie_groups`]' sums with its
/// factors of one multiplied out: the same, bit for bit, with no division.
#[inline(always)]
fn neighbours(table: impl Fn(usize, usize) -> f64, e: &mut [f64], s: &mut [f64]) {
    for i in 1..e.len() {
        let eij = table(i - 1, i);
        e[i - 1] += eij;
        s[i - 1] += 1.0;
        e[i] += 1.0 - eij;
    }
}

/// The scores of any match: the tie groups, best first, walked pairwise without
/// collecting them.
#[inline(always)]
fn tie_groups(table: impl Fn(usize, usize) -> f64, places: &[usize], e: &mut [f64], s: &mut [f64]) {
    let n = places.len();
    // Adds a virtual game between i and j played with probability p, i scoring si.
    let mut play = |i: usize, j: usize, p: f64, si: f64| {
        let eij = table(i, j);
        e[i] += p * eij;
        s[i] += p * si;
        e[j] += p * (1.0 - eij);
        s[j] += p * (1.0 - si);
    };
    let mut group = Some(tie_range(places, 0));
    while let Some(g) = group {
        let below = (g.end < n).then(|| tie_range(places, g.end));
        let size = g.len() as f64;
        // Draws between members of a tied group who end up neighbours.
        for i in g.clone() {
            for j in i + 1..g.end {
                play(i, j, 2.0 / size, 0.5);
            }
        }
        // Wins over the group below: its first entry meets our last one.
        if let Some(below) = &below {
            let p = 1.0 / (size * below.len() as f64);
            for i in g.clone() {
                for j in below.clone() {
                    play(i, j, p, 1.0);
                }
            }
        }
        group = below;
    }
}

elo_system!(SmeConfig, "sme", logistic(|s| s.scale), {});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::testing::{close, deltas};

    use proptest::prop_oneof;
    proptest::proptest! {
        /// Without ties, the shortcut gives the general walk's sums bit for bit, for
        /// ratings close and far apart (where expectations fall back to the direct formula).
        #[test]
        fn untied_matches_score_as_the_general_walk(
            r in proptest::collection::vec(prop_oneof![-1e4f64..1e4, -1e5f64..1e5], 2..12),
        ) {
            let n = r.len();
            let places: Vec<usize> = (1..=n).collect();
            let table = Expectations::new(&r, 400.0);
            let (mut e1, mut s1) = (vec![0.0; n], vec![0.0; n]);
            let (mut e2, mut s2) = (vec![0.0; n], vec![0.0; n]);
            neighbours(|i, j| table.get(i, j), &mut e1, &mut s1);
            tie_groups(|i, j| table.get(i, j), &places, &mut e2, &mut s2);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&e1), bits(&e2));
            proptest::prop_assert_eq!(bits(&s1), bits(&s2));
        }
    }

    proptest::proptest! {
        /// A match rated by its powers on the stack gives the changes that the table of
        /// expectations gives, bit for bit, with and without ties; ratings far apart go
        /// the table's way, which falls back to the direct formula.
        #[test]
        fn powers_on_the_stack_score_as_the_table(
            field in proptest::collection::vec(
                (prop_oneof![-1e4f64..1e4, -1e5f64..1e5], proptest::bool::ANY),
                2..20,
            ),
        ) {
            let r: Vec<f64> = field.iter().map(|&(r, _)| r).collect();
            let mut places = Vec::with_capacity(field.len());
            for (i, &(_, tie)) in field.iter().enumerate() {
                places.push(if tie && i > 0 { places[i - 1] } else { i + 1 });
            }
            let n = r.len();
            let (mut e1, mut s1) = (vec![0.0; n], vec![0.0; n]);
            SmeConfig::default().scores(&r, &places, &mut e1, &mut s1);
            let table = Expectations::new(&r, 400.0);
            let (mut e2, mut s2) = (vec![0.0; n], vec![0.0; n]);
            tie_groups(|i, j| table.get(i, j), &places, &mut e2, &mut s2);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&e1), bits(&e2));
            proptest::prop_assert_eq!(bits(&s1), bits(&s2));
        }
    }

    #[test]
    fn reference_vector() {
        let d = deltas(
            &SmeConfig::default(),
            &[(1000.0, 1), (1200.0, 2), (1500.0, 3)],
        );
        close(d[0], 24.31, 0.01);
        close(d[1], 2.86, 0.01);
        close(d[2], -27.17, 0.01);
    }

    #[test]
    fn ties_average_over_the_orders_of_the_tied_group() {
        // a and b tie for first: they draw each other, and each is the one just above c
        // half of the time.
        let d = deltas(
            &SmeConfig::default(),
            &[(1500.0, 1), (1500.0, 1), (1500.0, 3)],
        );
        close(d[0], 8.0, 1e-12);
        close(d[1], 8.0, 1e-12);
        close(d[2], -16.0, 1e-12);
        // A tie in the middle: b and c each meet a (above) and d (below) half of the time.
        let d = deltas(
            &SmeConfig::default(),
            &[(1500.0, 1), (1500.0, 2), (1500.0, 2), (1500.0, 4)],
        );
        close(d[0], 16.0, 1e-12);
        close(d[1], 0.0, 1e-12);
        close(d[2], 0.0, 1e-12);
        close(d[3], -16.0, 1e-12);
    }

    #[test]
    fn without_ties_only_neighbours_meet() {
        // A beats C but, not being C's neighbour, gains nothing from it (Oliver Brown's remark on Kerrigan's rule).
        let c = crate::systems::testing::ffa(
            &SmeConfig::default(),
            &[(1000.0, 1), (1200.0, 2), (1500.0, 3)],
        );
        close(c[0].actual, 1.0, 1e-12);
        close(c[1].actual, 1.0, 1e-12);
        close(c[2].actual, 0.0, 1e-12);
    }
}
