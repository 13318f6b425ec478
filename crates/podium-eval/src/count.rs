//! Exact counting of the pairs of one match that a rating order predicts right, in
//! O(N log N).
//!
//! The items are the warm players of a match, each with their finishing place (lower is
//! better) and their pre-match rating. A *pair* is two items at different places; the
//! rating order predicts that the higher-rated one finishes ahead. The pair is
//! **concordant** when it does, **tied** when the two ratings are exactly equal (the
//! prediction is a coin toss, worth ½), **discordant** otherwise. Pairs at the same place
//! (the same entry, or tied entries) are not counted.
//!
//! [`count_pairs`] sorts the items by place and walks the place groups best first, asking
//! a Fenwick tree over the rank-compressed ratings how many of the better-placed items
//! rate above, equal to and below each item of the group, before inserting the group.

use std::cmp::Ordering;

/// How the pairs of one or more matches split.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// The better-placed player was rated strictly higher.
    pub concordant: u64,
    /// The two ratings were exactly equal.
    pub tied: u64,
    /// The better-placed player was rated strictly lower.
    pub discordant: u64,
}

impl PairCounts {
    /// Every counted pair.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.concordant + self.tied + self.discordant
    }

    /// The score of the predictions: 1 per concordant pair, ½ per tied pair.
    #[must_use]
    pub fn score(&self) -> f64 {
        self.concordant as f64 + 0.5 * self.tied as f64
    }

    /// Pair accuracy, `score / total`; `None` without pairs.
    #[must_use]
    pub fn accuracy(&self) -> Option<f64> {
        let n = self.total();
        (n > 0).then(|| self.score() / n as f64)
    }

    /// Adds another count.
    pub fn add(&mut self, other: PairCounts) {
        self.concordant += other.concordant;
        self.tied += other.tied;
        self.discordant += other.discordant;
    }
}

/// One player of a match for counting: finishing place (lower is better) and rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    /// The place of the player's entry; equal places are not compared.
    pub place: usize,
    /// The player's pre-match rating (finite).
    pub rating: f64,
}

/// A Fenwick (binary indexed) tree of counts.
struct Fenwick(Vec<u64>);

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick(vec![0; n + 1])
    }

    /// Adds one at 0-based position `i`.
    fn insert(&mut self, i: usize) {
        let mut i = i + 1;
        while i < self.0.len() {
            self.0[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    /// Count at 0-based positions `0..i`.
    fn prefix(&self, i: usize) -> u64 {
        let mut i = i;
        let mut s = 0;
        while i > 0 {
            s += self.0[i];
            i &= i - 1;
        }
        s
    }
}

/// Counts the pairs of `items` exactly in O(N log N). The slice is reordered (sorted by
/// place). Ratings compare as numbers (`-0.0 == 0.0`); they must not be NaN.
#[must_use]
pub fn count_pairs(items: &mut [Item]) -> PairCounts {
    let n = items.len();
    if n < 2 {
        return PairCounts::default();
    }
    // Rank-compress the ratings: equal ratings share one slot.
    let mut values: Vec<f64> = items.iter().map(|it| it.rating + 0.0).collect();
    values.sort_unstable_by(f64::total_cmp);
    values.dedup();
    let slot = |r: f64| -> usize {
        let r = r + 0.0;
        values.partition_point(|v| v.total_cmp(&r) == Ordering::Less)
    };
    items.sort_by_key(|it| it.place);
    let mut tree = Fenwick::new(values.len());
    let mut counts = PairCounts::default();
    let mut inserted = 0u64;
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && items[end].place == items[start].place {
            end += 1;
        }
        let slots: Vec<usize> = items[start..end].iter().map(|it| slot(it.rating)).collect();
        for &s in &slots {
            let below = tree.prefix(s);
            let below_or_equal = tree.prefix(s + 1);
            // Better-placed items rated below this one: the prediction was wrong.
            counts.discordant += below;
            counts.tied += below_or_equal - below;
            counts.concordant += inserted - below_or_equal;
        }
        for &s in &slots {
            tree.insert(s);
        }
        inserted += (end - start) as u64;
        start = end;
    }
    counts
}

/// The same count by comparing every pair, O(N²): the reference the fast count is tested
/// against.
#[must_use]
pub fn count_pairs_brute_force(items: &[Item]) -> PairCounts {
    let mut counts = PairCounts::default();
    for (i, a) in items.iter().enumerate() {
        for b in &items[i + 1..] {
            let (better, worse) = match a.place.cmp(&b.place) {
                Ordering::Less => (a, b),
                Ordering::Greater => (b, a),
                Ordering::Equal => continue,
            };
            if better.rating > worse.rating {
                counts.concordant += 1;
            } else if better.rating == worse.rating {
                counts.tied += 1;
            } else {
                counts.discordant += 1;
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn items(v: &[(usize, f64)]) -> Vec<Item> {
        v.iter()
            .map(|&(place, rating)| Item { place, rating })
            .collect()
    }

    #[test]
    fn small_example_by_hand() {
        // Places 1, 2, 2, 4 with ratings 10, 20, 5, 10.
        let mut v = items(&[(1, 10.0), (2, 20.0), (2, 5.0), (4, 10.0)]);
        // Pairs: (1,20) wrong, (1,5) right, (1,4th:10) tied, (20,10) right, (5,10) wrong.
        let c = count_pairs(&mut v);
        assert_eq!(
            c,
            PairCounts {
                concordant: 2,
                tied: 1,
                discordant: 2
            }
        );
        assert!((c.accuracy().unwrap() - 2.5 / 5.0).abs() < 1e-12);
    }

    #[test]
    fn no_pairs() {
        assert_eq!(count_pairs(&mut []), PairCounts::default());
        assert_eq!(count_pairs(&mut items(&[(1, 1.0), (1, 2.0)])).total(), 0);
        assert_eq!(PairCounts::default().accuracy(), None);
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        let c = count_pairs(&mut items(&[(1, -0.0), (2, 0.0)]));
        assert_eq!(c.tied, 1);
    }

    proptest! {
        /// The O(N log N) count equals the brute-force count on random matches with
        /// tied places and tied ratings.
        #[test]
        fn fast_count_equals_brute_force(
            v in proptest::collection::vec((1usize..12, -6i32..6), 0..200)
        ) {
            let mut it: Vec<Item> = v.iter()
                .map(|&(p, r)| Item { place: p, rating: f64::from(r) * 12.5 })
                .collect();
            let slow = count_pairs_brute_force(&it);
            let fast = count_pairs(&mut it);
            prop_assert_eq!(fast, slow);
        }

        #[test]
        fn fast_count_equals_brute_force_continuous(
            v in proptest::collection::vec((1usize..2000, -1e4f64..1e4), 0..300)
        ) {
            let mut it: Vec<Item> = v.iter()
                .map(|&(place, rating)| Item { place, rating })
                .collect();
            let slow = count_pairs_brute_force(&it);
            let fast = count_pairs(&mut it);
            prop_assert_eq!(fast, slow);
        }
    }
}
