//! Player ids to dense numbers (0, 1, 2, … in order of first sight), for the workers of
//! the plain reader: a table that keeps short ids inline, so that a lookup reads one
//! cache line, and whose lines can be asked for ahead of the lookup.
//!
//! With tens of thousands of players the table is larger than the processor's cache, and
//! a lookup mostly waits for memory. A reader that knows which ids come next computes
//! their hashes a few rows early and calls [`PlayerKeys::prefetch`], so that the waits of
//! several rows overlap.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// Ids up to this many bytes are kept in the table itself; longer ones in a map beside it.
const INLINE: usize = 24;

/// One slot: an id of 1..=[`INLINE`] bytes, zero-padded, and its number. Aligned so that
/// a slot never straddles two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Slot {
    key: [u8; INLINE],
    /// The id's length; 0 marks an empty slot (ids are never empty here).
    len: u8,
    number: u32,
}

const EMPTY: Slot = Slot {
    key: [0; INLINE],
    len: 0,
    number: 0,
};

/// Player ids to numbers, by open addressing with linear probing, at most half full.
pub(crate) struct PlayerKeys {
    /// A power of two of them.
    slots: Vec<Slot>,
    /// Ids held in `slots`.
    inline: usize,
    /// Ids longer than [`INLINE`] bytes.
    long: HashMap<Box<[u8]>, u32, foldhash::fast::RandomState>,
    hasher: foldhash::fast::RandomState,
}

impl Default for PlayerKeys {
    fn default() -> Self {
        PlayerKeys::with_slots(1024)
    }
}

impl PlayerKeys {
    /// An empty table of `slots` slots (a power of two), grown as needed.
    pub(crate) fn with_slots(slots: usize) -> Self {
        debug_assert!(slots.is_power_of_two());
        PlayerKeys {
            slots: vec![EMPTY; slots],
            inline: 0,
            long: HashMap::default(),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The hash [`PlayerKeys::prefetch`] and [`PlayerKeys::number`] take for `id`.
    pub(crate) fn hash(&self, id: &[u8]) -> u64 {
        // The bytes alone: the slice's `Hash` would add its length first.
        let mut h = self.hasher.build_hasher();
        h.write(id);
        h.finish()
    }

    /// Starts loading the slot where a lookup of the id with this hash begins.
    pub(crate) fn prefetch(&self, hash: u64) {
        prefetch_index::prefetch_index(&self.slots, self.home(hash));
    }

    fn home(&self, hash: u64) -> usize {
        // The length is a power of two: the mask keeps the hash's low bits.
        hash as usize & (self.slots.len() - 1)
    }

    /// The number of the id `bytes` (whose hash is `hash`), and whether it is new: a new id gets
    /// the next number.
    pub(crate) fn number(&mut self, bytes: &[u8], hash: u64) -> (u32, bool) {
        if bytes.is_empty() || bytes.len() > INLINE {
            if let Some(&n) = self.long.get(bytes) {
                return (n, false);
            }
            let n = self.len();
            self.long.insert(bytes.into(), n);
            return (n, true);
        }
        let len = bytes.len() as u8;
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            let slot = &self.slots[i];
            if slot.len == 0 {
                break;
            }
            if slot.len == len && same_bytes(&slot.key[..bytes.len()], bytes) {
                return (slot.number, false);
            }
            i = (i + 1) & mask;
        }
        let mut key = [0; INLINE];
        key[..bytes.len()].copy_from_slice(bytes);
        let number = self.len();
        if 2 * (self.inline + 1) > self.slots.len() {
            self.grow();
            i = self.free_slot(hash);
        }
        self.slots[i] = Slot { key, len, number };
        self.inline += 1;
        (number, true)
    }

    /// Numbers given so far: the next id's number.
    fn len(&self) -> u32 {
        (self.inline + self.long.len()) as u32
    }

    /// The first empty slot from the home of `hash` on.
    fn free_slot(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        while self.slots[i].len != 0 {
            i = (i + 1) & mask;
        }
        i
    }

    /// Doubles the slots and puts every id back.
    fn grow(&mut self) {
        let doubled = vec![EMPTY; 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        for slot in old.into_iter().filter(|s| s.len != 0) {
            let hash = self.hash(&slot.key[..usize::from(slot.len)]);
            let i = self.free_slot(hash);
            self.slots[i] = slot;
        }
    }
}

/// Whether two byte strings are equal: for the short ids of match files, a few word
/// compares (the first and last bytes, overlapping) instead of a call to `memcmp`.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    #[inline(always)]
    fn word4(s: &[u8], at: usize) -> u32 {
        let mut w = [0; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_le_bytes(w)
    }
    #[inline(always)]
    fn word8(s: &[u8], at: usize) -> u64 {
        let mut w = [0; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    }
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn number(keys: &mut PlayerKeys, id: &str) -> (u32, bool) {
        let h = keys.hash(id.as_bytes());
        keys.prefetch(h);
        keys.number(id.as_bytes(), h)
    }

    #[test]
    fn numbers_in_order_of_first_sight() {
        let mut keys = PlayerKeys::with_slots(2);
        assert_eq!(number(&mut keys, "ann"), (0, true));
        assert_eq!(number(&mut keys, "bo"), (1, true));
        assert_eq!(number(&mut keys, "ann"), (0, false));
        let long = "a player id longer than twenty-four bytes";
        assert_eq!(number(&mut keys, long), (2, true));
        assert_eq!(number(&mut keys, "x".repeat(24).as_str()), (3, true));
        assert_eq!(number(&mut keys, "x".repeat(25).as_str()), (4, true));
        assert_eq!(number(&mut keys, long), (2, false));
        assert_eq!(number(&mut keys, "bo"), (1, false));
        // Ids that differ only by trailing zero bytes are different ids.
        assert_eq!(number(&mut keys, "bo\0"), (5, true));
        assert_eq!(keys.len(), 6);
    }

    proptest! {
        /// The same answer as `==`, for every length up to 40, equal or differing in
        /// any one byte.
        #[test]
        fn same_bytes_is_equality(a in prop::collection::vec(any::<u8>(), 0..40),
                                  at in any::<prop::sample::Index>(), by in 1u8..) {
            prop_assert!(same_bytes(&a, &a.clone()));
            if !a.is_empty() {
                let mut b = a.clone();
                let i = at.index(a.len());
                b[i] = b[i].wrapping_add(by);
                prop_assert!(!same_bytes(&a, &b));
                prop_assert!(!same_bytes(&a, &a[..a.len() - 1]));
            }
        }

        /// The same numbers as a map that gives each new id the next number, through
        /// the table's growth from two slots, for short, 24-byte and long ids.
        #[test]
        fn numbers_as_a_map_does(ids in prop::collection::vec(
            prop_oneof![
                "[a-c]{1,3}",
                "[a-c\u{0}]{22,26}",
                "p[0-9]{1,5}",
            ],
            0..400,
        )) {
            let mut keys = PlayerKeys::with_slots(2);
            let mut map: HashMap<String, u32> = HashMap::new();
            for id in &ids {
                let next = map.len() as u32;
                let want = match map.get(id) {
                    Some(&n) => (n, false),
                    None => {
                        map.insert(id.clone(), next);
                        (next, true)
                    }
                };
                prop_assert_eq!(number(&mut keys, id), want);
            }
            prop_assert_eq!(keys.len() as usize, map.len());
            prop_assert!(keys.slots.len() >= 2 * keys.inline);
        }
    }
}
