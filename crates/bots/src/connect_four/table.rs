//! The solver's transposition table: a bound on the score of each position
//! searched, in a fixed amount of memory.

use super::position::{MAX_SCORE, MIN_SCORE};

/// The largest prime at most `n` (`n >= 2`).
const fn prime_at_most(mut n: u64) -> u64 {
    loop {
        let mut d = 2;
        let mut prime = true;
        while d * d <= n {
            if n.is_multiple_of(d) {
                prime = false;
                break;
            }
            d += 1;
        }
        if prime {
            return n;
        }
        n -= 1;
    }
}

/// Buckets of the solver's transposition table: a prime just below 2^22,
/// for about 48 MiB (see [`table_bytes`]).
///
/// A position goes to the bucket `key % buckets` and is stored there with
/// the low 32 bits of its key. Keys are below 2^49 and `buckets * 2^32` is
/// above, so by the Chinese remainder theorem the bucket and the stored bits
/// together identify the key: a hit is never a different position.
pub const BUCKETS: usize = prime_at_most(1 << 22) as usize;

/// Buckets of a large table for offline tools (the opening book's builder):
/// a prime just below 2^26, about 768 MiB.
pub const LARGE_BUCKETS: usize = prime_at_most(1 << 26) as usize;

/// Buckets of a table for the opening book's builder, which keeps its table
/// from one long search to the next: a prime just below 2^28, about 3 GiB.
pub const HUGE_BUCKETS: usize = prime_at_most(1 << 28) as usize;

/// Bytes held by a table of `buckets` buckets: two entries of 6 bytes each.
#[must_use]
pub const fn table_bytes(buckets: usize) -> usize {
    buckets * 2 * 6
}

/// What the table keeps of a position: a bound on its score, the move that
/// proved a lower bound (if any) and the size of the search behind it.
///
/// Packed in 16 bits: the bound in bits 0..7 (0 empty; `1..=37` an upper
/// bound `v + MIN_SCORE - 1`; above that a lower bound
/// `v + 2 * MIN_SCORE - MAX_SCORE - 2`), the column of the move plus one
/// in bits 7..10 (0 none), and the base-2 logarithm of the nodes searched
/// in bits 10..16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry(u16);

impl Entry {
    pub(super) const EMPTY: Entry = Entry(0);

    #[inline]
    pub(super) fn new(bound: u8, best: Option<usize>, nodes: u64) -> Entry {
        let best = best.map_or(0, |c| c as u16 + 1);
        let work = nodes.max(1).ilog2() as u16;
        Entry(u16::from(bound) | best << 7 | work << 10)
    }

    #[inline]
    pub(super) const fn bound(self) -> u8 {
        (self.0 & 0x7f) as u8
    }

    #[inline]
    pub(super) const fn best(self) -> Option<usize> {
        match (self.0 >> 7) & 0b111 {
            0 => None,
            c => Some(c as usize - 1),
        }
    }

    #[inline]
    pub(super) const fn work(self) -> u16 {
        self.0 >> 10
    }
}

/// A transposition table of a fixed size.
///
/// Each bucket has two entries: the first keeps the position whose search
/// was the largest, the second the latest of the others, so long searches
/// survive the flood of small ones.
///
/// `B` is the number of buckets, a prime above 2^17 (so that partial keys
/// identify positions), fixed at compile time so that the modulo is a
/// multiplication.
pub(super) struct Table<const B: usize = BUCKETS> {
    buckets: Box<[Bucket]>,
}

/// Two slots: their stored keys and entries side by side, so that a probe
/// reads one cache line (mostly) instead of one in a key array and one in
/// an entry array.
#[derive(Clone, Copy)]
struct Bucket {
    keys: [u32; 2],
    entries: [Entry; 2],
}

impl Bucket {
    const EMPTY: Bucket = Bucket {
        keys: [0; 2],
        entries: [Entry::EMPTY; 2],
    };
}

impl<const B: usize> Default for Table<B> {
    fn default() -> Table<B> {
        Table::new()
    }
}

impl<const B: usize> Table<B> {
    pub(super) fn new() -> Table<B> {
        const { assert!(B > 1 << 17) };
        Table {
            buckets: vec![Bucket::EMPTY; B].into_boxed_slice(),
        }
    }

    pub(super) fn clear(&mut self) {
        self.buckets.fill(Bucket::EMPTY);
    }

    /// The bucket of `key`, and the stored part of `key`.
    #[inline]
    fn locate(key: u64) -> (usize, u32) {
        // Both fit: the bucket is below B, and the truncation keeps the low
        // 32 bits on purpose.
        ((key % B as u64) as usize, key as u32)
    }

    #[inline]
    pub(super) fn get(&self, key: u64) -> Entry {
        let (i, stored) = Self::locate(key);
        let bucket = &self.buckets[i];
        if bucket.keys[0] == stored {
            bucket.entries[0]
        } else if bucket.keys[1] == stored {
            bucket.entries[1]
        } else {
            Entry::EMPTY
        }
    }

    #[inline]
    pub(super) fn put(&mut self, key: u64, entry: Entry) {
        let (i, stored) = Self::locate(key);
        let b = &mut self.buckets[i];
        if b.keys[0] == stored || entry.work() >= b.entries[0].work() {
            if b.keys[0] != stored {
                // The first entry moves down rather than out.
                b.keys[1] = b.keys[0];
                b.entries[1] = b.entries[0];
            } else if b.keys[1] == stored {
                b.entries[1] = Entry::EMPTY;
            }
            b.keys[0] = stored;
            b.entries[0] = entry;
        } else {
            b.keys[1] = stored;
            b.entries[1] = entry;
        }
    }
}

/// The table value of an upper bound. Scores of searched positions lie in
/// `MIN_SCORE..=MAX_SCORE`, so raising a bound into that range keeps it
/// true.
#[inline]
pub(super) const fn upper_bound(score: i32) -> u8 {
    let score = if score < MIN_SCORE { MIN_SCORE } else { score };
    (score - MIN_SCORE + 1) as u8
}

/// The table value of a lower bound (lowered into `..=MAX_SCORE`, see
/// [`upper_bound`]).
#[inline]
pub(super) const fn lower_bound(score: i32) -> u8 {
    let score = if score > MAX_SCORE { MAX_SCORE } else { score };
    (score + MAX_SCORE - 2 * MIN_SCORE + 2) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buckets_are_a_prime_number_large_enough_for_partial_keys() {
        assert_eq!(BUCKETS, 4_194_301);
        for b in [BUCKETS, LARGE_BUCKETS, HUGE_BUCKETS] {
            assert_eq!(prime_at_most(b as u64), b as u64);
            assert!((b as u128) << 32 > 1 << 49);
        }
        assert!(table_bytes(BUCKETS) <= crate::MAX_SEARCH_MEMORY);
    }

    #[test]
    fn entries_pack_bound_move_and_work() {
        let e = Entry::new(lower_bound(5), Some(6), 1 << 40);
        assert_eq!(
            (e.bound(), e.best(), e.work()),
            (lower_bound(5), Some(6), 40)
        );
        let e = Entry::new(upper_bound(-30), None, 0);
        assert_eq!((e.bound(), e.best(), e.work()), (1, None, 0));
        assert_eq!(lower_bound(MAX_SCORE + 3), lower_bound(MAX_SCORE));
        assert!(lower_bound(MAX_SCORE) < 128);
    }

    #[test]
    fn the_table_keeps_the_largest_search_of_a_bucket() {
        let mut table = Table::<BUCKETS>::new();
        let (a, b, c) = (7, 7 + BUCKETS as u64, 7 + 2 * BUCKETS as u64);
        table.put(a, Entry::new(3, None, 1 << 20));
        table.put(b, Entry::new(4, None, 1));
        table.put(c, Entry::new(5, None, 1));
        assert_eq!(table.get(a).bound(), 3);
        assert_eq!(table.get(b), Entry::EMPTY);
        assert_eq!(table.get(c).bound(), 5);
        table.put(b, Entry::new(6, None, 1 << 30));
        assert_eq!((table.get(a).bound(), table.get(b).bound()), (3, 6));
        assert_eq!(table.get(c), Entry::EMPTY);
    }
}
