//! Static strengths over a period from the sparse frag matrix (Michael Becker's article on
//! frag rankings, 2001).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::PlayerId;

/// A fast hasher for the small integer keys of the matrix (player ids are dense and not
/// chosen by an attacker, so SipHash's protection is not needed).
#[derive(Debug, Default, Clone, Copy)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Frags between pairs of players, stored sparse: only pairs that met have an entry.
/// Suicides (the diagonal `a_ii`) are counted apart; they do not enter the strengths.
#[derive(Debug, Clone, Default)]
pub struct FragMatrix {
    /// `(lo, hi)` → `[a_lo_hi, a_hi_lo]`.
    pairs: IdMap<(u32, u32), [u32; 2]>,
    suicides: IdMap<u32, u32>,
    players: u32,
}

impl FragMatrix {
    /// An empty matrix.
    #[must_use]
    pub fn new() -> Self {
        FragMatrix::default()
    }

    /// Counts one frag of `killer` against `victim` (`killer == victim`: a suicide).
    pub fn add(&mut self, killer: PlayerId, victim: PlayerId) {
        self.players = self.players.max(killer.0 + 1).max(victim.0 + 1);
        if killer == victim {
            *self.suicides.entry(killer.0).or_default() += 1;
            return;
        }
        let (lo, hi, slot) = if killer.0 < victim.0 {
            (killer.0, victim.0, 0)
        } else {
            (victim.0, killer.0, 1)
        };
        self.pairs.entry((lo, hi)).or_default()[slot] += 1;
    }

    /// `a_ij`: frags of `i` against `j` (suicides when `i == j`).
    #[must_use]
    pub fn get(&self, i: PlayerId, j: PlayerId) -> u32 {
        if i == j {
            return self.suicides.get(&i.0).copied().unwrap_or(0);
        }
        if i.0 < j.0 {
            self.pairs.get(&(i.0, j.0)).map_or(0, |c| c[0])
        } else {
            self.pairs.get(&(j.0, i.0)).map_or(0, |c| c[1])
        }
    }

    /// Number of pairs that met (stored entries).
    #[must_use]
    pub fn pairs_met(&self) -> usize {
        self.pairs.len()
    }

    /// One more than the largest player id seen.
    #[must_use]
    pub fn players(&self) -> u32 {
        self.players
    }
}

/// One player's static strength.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticStrength {
    /// The player.
    pub player: PlayerId,
    /// `g_i`: the mean of `d_ij = (a_ij − a_ji)/(a_ij + a_ji)` over the opponents met
    /// (within the core, if one was asked for); in `[−1, 1]`.
    pub strength: f64,
    /// Opponents the mean runs over.
    pub opponents: u32,
}

/// Static strengths from the frag matrix: for each player, the mean of
/// `d_ij = (a_ij − a_ji)/(a_ij + a_ji)` over the opponents `j` it met — the least-squares
/// solution of `g_i − g_j = d_ij` over the pairs that met (Becker's article). Players who met
/// nobody get no strength.
///
/// `core = Some(m)` (m ≥ 1) ranks only a *core*: repeatedly drop the player with the
/// fewest opponents it exchanged at least `m` frags with (ties: fewer frags exchanged in
/// all, then the larger id), until every remaining pair exchanged at least `m` frags.
/// `Some(0)` is the same as `None`.
///
/// Returns the ranked players, strongest first (ties by id).
///
/// ```
/// use podium::frags::{static_strengths, FragMatrix, PlayerId};
/// let (a, b, c) = (PlayerId(0), PlayerId(1), PlayerId(2));
/// let mut m = FragMatrix::new();
/// for _ in 0..3 { m.add(a, b); }
/// m.add(b, a);            // a–b 3:1 → d_ab = 0.5
/// m.add(b, c);            // b–c 1:0 → d_bc = 1
/// let g = static_strengths(&m, None);
/// assert_eq!(g[0].player, a);
/// assert_eq!(g[0].strength, 0.5);   // a met only b
/// assert_eq!(g[1].strength, 0.25);  // b: (−0.5 + 1)/2
/// assert_eq!(g[2].strength, -1.0);  // c: −1
/// ```
#[must_use]
pub fn static_strengths(matrix: &FragMatrix, core: Option<u32>) -> Vec<StaticStrength> {
    let n = matrix.players as usize;
    let m = core.unwrap_or(0);
    let qualifies = |c: &[u32; 2]| c[0] + c[1] >= m.max(1);
    let mut alive = vec![false; n];
    for &(i, j) in matrix.pairs.keys() {
        alive[i as usize] = true;
        alive[j as usize] = true;
    }
    if m > 0 {
        // Qualified opponents and frags exchanged, per player.
        let mut qual = vec![0u32; n];
        let mut total = vec![0u64; n];
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (&(i, j), c) in &matrix.pairs {
            let t = u64::from(c[0] + c[1]);
            total[i as usize] += t;
            total[j as usize] += t;
            if qualifies(c) {
                qual[i as usize] += 1;
                qual[j as usize] += 1;
                adj[i as usize].push(j);
                adj[j as usize].push(i);
            }
        }
        let mut count = alive.iter().filter(|&&a| a).count();
        loop {
            // Every remaining pair qualifies when each player qualifies with all others.
            let worst = (0..n).filter(|&p| alive[p]).min_by(|&a, &b| {
                qual[a]
                    .cmp(&qual[b])
                    .then(total[a].cmp(&total[b]))
                    .then(b.cmp(&a))
            });
            let Some(worst) = worst else { break };
            if qual[worst] as usize + 1 >= count {
                break;
            }
            alive[worst] = false;
            count -= 1;
            for &o in &adj[worst] {
                if alive[o as usize] {
                    qual[o as usize] -= 1;
                }
            }
        }
    }
    let mut sum = vec![0.0f64; n];
    let mut met = vec![0u32; n];
    for (&(i, j), c) in &matrix.pairs {
        let (i, j) = (i as usize, j as usize);
        if !(alive[i] && alive[j]) || (m > 0 && !qualifies(c)) {
            continue;
        }
        let d = (f64::from(c[0]) - f64::from(c[1])) / f64::from(c[0] + c[1]);
        sum[i] += d;
        sum[j] -= d;
        met[i] += 1;
        met[j] += 1;
    }
    let mut out: Vec<StaticStrength> = (0..n)
        .filter(|&p| alive[p] && met[p] > 0)
        .map(|p| StaticStrength {
            player: PlayerId(p as u32),
            strength: sum[p] / f64::from(met[p]),
            opponents: met[p],
        })
        .collect();
    out.sort_by(|a, b| {
        b.strength
            .total_cmp(&a.strength)
            .then(a.player.cmp(&b.player))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frags(m: &mut FragMatrix, i: u32, j: u32, n: u32) {
        for _ in 0..n {
            m.add(PlayerId(i), PlayerId(j));
        }
    }

    #[test]
    fn sparse_storage_and_suicides() {
        let mut m = FragMatrix::new();
        frags(&mut m, 0, 1, 3);
        frags(&mut m, 1, 0, 2);
        frags(&mut m, 2, 2, 4);
        assert_eq!(m.get(PlayerId(0), PlayerId(1)), 3);
        assert_eq!(m.get(PlayerId(1), PlayerId(0)), 2);
        assert_eq!(m.get(PlayerId(2), PlayerId(2)), 4);
        assert_eq!(m.get(PlayerId(0), PlayerId(2)), 0);
        assert_eq!(m.pairs_met(), 1);
        assert_eq!(m.players(), 3);
        // The suicider met nobody: no strength.
        let g = static_strengths(&m, None);
        assert_eq!(g.len(), 2);
        assert!((g[0].strength - 0.2).abs() < 1e-12); // (3−2)/5
        assert!((g[1].strength + 0.2).abs() < 1e-12);
    }

    #[test]
    fn strengths_by_hand_and_core() {
        // Four players. a–b 6:2 (d=0.5), a–c 3:3 (0), b–c 4:1 (0.6), c–d 1:0 (1).
        let mut m = FragMatrix::new();
        frags(&mut m, 0, 1, 6);
        frags(&mut m, 1, 0, 2);
        frags(&mut m, 0, 2, 3);
        frags(&mut m, 2, 0, 3);
        frags(&mut m, 1, 2, 4);
        frags(&mut m, 2, 1, 1);
        frags(&mut m, 2, 3, 1);
        let g = static_strengths(&m, None);
        let by = |p: u32| g.iter().find(|s| s.player == PlayerId(p)).unwrap().strength;
        assert!((by(0) - 0.25).abs() < 1e-12); // (0.5 + 0)/2
        assert!((by(1) - 0.05).abs() < 1e-12); // (−0.5 + 0.6)/2
        assert!((by(2) - (0.0 - 0.6 + 1.0) / 3.0).abs() < 1e-12);
        assert!((by(3) + 1.0).abs() < 1e-12);
        assert_eq!(g[0].player, PlayerId(0));
        // The 1:0 against d dominates nothing in the core of m = 2: d goes, and the
        // remaining a, b, c all exchanged ≥ 5 frags.
        let core = static_strengths(&m, Some(2));
        assert_eq!(core.len(), 3);
        let by = |p: u32| {
            core.iter()
                .find(|s| s.player == PlayerId(p))
                .unwrap()
                .strength
        };
        assert!((by(2) - (0.0 - 0.6) / 2.0).abs() < 1e-12);
        assert_eq!(
            core.iter().map(|s| s.opponents).collect::<Vec<_>>(),
            vec![2, 2, 2]
        );
        // m = 6: only a–b (8 frags) qualifies; c goes first (fewest qualified opponents,
        // tie with d broken by frags exchanged: d has 1), then the pair a–b remains.
        let core = static_strengths(&m, Some(6));
        assert_eq!(
            core.iter().map(|s| s.player.0).collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert!((core[0].strength - 0.5).abs() < 1e-12);
        // m = 100: nobody qualifies; the core shrinks to a single player with no games.
        assert!(static_strengths(&m, Some(100)).is_empty());
    }

    proptest::proptest! {
        /// d_ij = −d_ji, so the opponent-weighted strengths sum to 0; every strength is in
        /// [−1, 1]; in a core every pair exchanged at least m frags.
        #[test]
        fn antisymmetry_range_and_core(
            frags in proptest::collection::vec((0u32..8, 0u32..8), 0..120),
            m in 1u32..6,
        ) {
            let mut mat = FragMatrix::new();
            for &(k, v) in &frags {
                mat.add(PlayerId(k), PlayerId(v));
            }
            for core in [None, Some(m)] {
                let g = static_strengths(&mat, core);
                let total: f64 = g.iter().map(|s| s.strength * f64::from(s.opponents)).sum();
                proptest::prop_assert!(total.abs() < 1e-9);
                for s in &g {
                    proptest::prop_assert!((-1.0..=1.0).contains(&s.strength));
                }
                if core.is_some() {
                    for a in &g {
                        proptest::prop_assert_eq!(a.opponents as usize, g.len() - 1);
                        for b in &g {
                            if a.player != b.player {
                                let n = mat.get(a.player, b.player) + mat.get(b.player, a.player);
                                proptest::prop_assert!(n >= m);
                            }
                        }
                    }
                }
            }
        }
    }
}
