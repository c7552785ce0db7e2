//! A learned evaluation over whole line patterns: a weight per pattern of
//! the four cells each side of an empty cell along one line (a 16-bit key,
//! the cells seen from the side to move: own, opponent's, empty, off the
//! board), summed over every empty cell and its four lines; plus a weight
//! per cell for the four shapes it makes across its lines together (for
//! the side to move and for the opponent); weights for the counts of the
//! threat classes each side can make, and one per combination of the
//! classes each side has (a threat mask: which side has the tempo). Its
//! unit is a thousandth of a logit of the side to move's chance.
//!
//! The weights are fitted by `crates/tools/examples/gomoku-patterns.rs` to the
//! evaluations of a stronger engine and embedded from `patterns.bin`
//! (little-endian: [`SCALARS`] i16 scalar weights, [`MASKS`] i16 threat
//! mask weights, then a u32 count and that many (u32 index, i16 weight)
//! records: indices below [`KEYS`] are canonical pattern keys, then
//! [`QUADS`] for the mover's shapes and [`QUADS`] for the opponent's).

use std::sync::LazyLock;

use super::shapes::Class;

/// The fitted weights (see the module docs).
static BYTES: &[u8] = include_bytes!("patterns.bin");

/// The pattern keys: 4 cells each side, two bits each.
pub(super) const KEYS: usize = 1 << 16;
/// A cell's four shapes, best first, as a number in base 10.
pub(super) const QUADS: usize = 10_000;
/// Classes whose cells are counted for the mover (it has no open four
/// when a position is evaluated) and for the opponent.
pub(super) const MINE_COUNTED: [Class; 4] = [
    Class::Three,
    Class::DoubleThree,
    Class::Four,
    Class::FourThree,
];
pub(super) const THEIRS_COUNTED: [Class; 5] = [
    Class::Three,
    Class::DoubleThree,
    Class::Four,
    Class::FourThree,
    Class::OpenFour,
];
/// Scalar weights: a bias, then per counted class of the mover its count,
/// the same for the opponent.
pub(super) const SCALARS: usize = 1 + MINE_COUNTED.len() + THEIRS_COUNTED.len();
/// Threat masks: a bit per counted class of the mover's (it has one) and
/// of the opponent's.
pub(super) const MASKS: usize = 1 << (MINE_COUNTED.len() + THEIRS_COUNTED.len());

/// The weights, expanded for lookups.
pub(super) struct Weights {
    pub scalars: [i32; SCALARS],
    pub masks: Vec<i32>,
    /// Per quad of a colour's shapes at a cell (masked to 14 bits), its
    /// weight with that colour to move and with the opponent to move.
    pub quad: Box<[[i16; 2]]>,
    /// Per raw pattern key (X = 1, O = 2), its weight for X to move and
    /// for O to move (that of the key with the colours swapped,
    /// [`swap_bits`]).
    pub key: Box<[[i16; 2]]>,
}

/// Slots of the quad table (a power of two above [`QUADS`]).
pub(super) const QUAD_SLOTS: usize = 1 << 14;

/// The key with X and O swapped (1 and 2 trade places, 0 and 3 stay).
#[inline]
#[must_use]
pub(super) fn swap_bits(k: usize) -> usize {
    ((k & 0x5555) << 1) | ((k >> 1) & 0x5555)
}

pub(super) static WEIGHTS: LazyLock<Weights> = LazyLock::new(|| Weights::parse(BYTES));

/// The key with X and O swapped ([`swap_bits`] on a key's 16 bits).
#[must_use]
pub(super) fn swap(k: u16) -> u16 {
    u16::try_from(swap_bits(usize::from(k))).unwrap_or(k)
}

/// The key read from the other end of the line.
#[must_use]
pub(super) fn reverse(k: u16) -> u16 {
    let mut out = 0;
    for i in 0..8 {
        out |= (k >> (2 * i) & 3) << (2 * (7 - i));
    }
    out
}

/// The key seen from `me` (own stones 1), the lesser of its two readings.
#[must_use]
pub(super) fn canonical(k: u16, me: usize) -> u16 {
    let k = if me == 0 { k } else { swap(k) };
    k.min(reverse(k))
}

/// Whether a key holds a stone (keys of empty lines weigh nothing).
#[must_use]
pub(super) fn has_stone(k: u16) -> bool {
    (0..8).any(|i| matches!(k >> (2 * i) & 3, 1 | 2))
}

/// The quad of a cell's four shapes (each 0..=9): sorted, best first, as
/// a number in base 10.
#[must_use]
pub(super) fn quad(mut shapes: [u8; 4]) -> usize {
    // A sorting network, best first.
    let mut cmp = |i: usize, j: usize| {
        if shapes[i] < shapes[j] {
            shapes.swap(i, j);
        }
    };
    cmp(0, 1);
    cmp(2, 3);
    cmp(0, 2);
    cmp(1, 3);
    cmp(1, 2);
    shapes
        .iter()
        .fold(0, |acc, &s| acc * 10 + usize::from(s.min(9)))
}

impl Weights {
    fn parse(bytes: &[u8]) -> Weights {
        let mut at = 0;
        let i16_at = |at: &mut usize| {
            let v = bytes
                .get(*at..*at + 2)
                .map_or(0, |b| i16::from_le_bytes([b[0], b[1]]));
            *at += 2;
            v
        };
        let u32_at = |at: &mut usize| {
            let v = bytes
                .get(*at..*at + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            *at += 4;
            v
        };
        let mut scalars = [0; SCALARS];
        for s in &mut scalars {
            *s = i32::from(i16_at(&mut at));
        }
        let masks = (0..MASKS).map(|_| i32::from(i16_at(&mut at))).collect();
        let n = u32_at(&mut at);
        let mut by_canonical = vec![0i16; KEYS];
        let mut quad = vec![[0i16; 2]; QUAD_SLOTS].into_boxed_slice();
        for _ in 0..n {
            let i = usize::try_from(u32_at(&mut at)).unwrap_or(usize::MAX);
            let w = i16_at(&mut at);
            if i < KEYS {
                by_canonical[i] = w;
            } else if i < KEYS + QUADS {
                quad[i - KEYS][0] = w;
            } else if i < KEYS + 2 * QUADS {
                quad[i - KEYS - QUADS][1] = w;
            }
        }
        let mut key = vec![[0i16; 2]; KEYS].into_boxed_slice();
        for k in 0..=u16::MAX {
            if has_stone(k) {
                key[usize::from(k)] = [
                    by_canonical[usize::from(canonical(k, 0))],
                    by_canonical[usize::from(canonical(k, 1))],
                ];
            }
        }
        Weights {
            scalars,
            masks,
            quad,
            key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_the_same_both_ways_and_by_colour() {
        // X at -1 and +2, O at -3, a wall at +4.
        let k: u16 = 1 << (2 * 3) | 1 << (2 * 5) | 2 << 2 | 3 << (2 * 7);
        assert_eq!(reverse(reverse(k)), k);
        assert_eq!(swap(swap(k)), k);
        assert_eq!(canonical(k, 0), canonical(reverse(k), 0));
        assert_eq!(canonical(k, 0), canonical(swap(k), 1));
        assert!(has_stone(k) && !has_stone(3 << 14));
        assert_eq!(quad([3, 6, 0, 4]), 6430);
        assert_eq!(quad([9, 9, 1, 2]), 9921);
        let w = &*WEIGHTS;
        // X (1) and O (2) trade places; empty (0) and off the board (3) stay.
        assert_eq!(swap(0b11_00_10_01), 0b11_00_01_10);
        let o = usize::from(canonical(swap(k), 0));
        assert_eq!(w.key[usize::from(swap(k))][0], w.key[usize::from(k)][1]);
        assert_eq!(w.key[o][0], w.key[swap_bits(usize::from(k))][0]);
    }
}
