//! The main search's move ordering, learned: each empty cell's quad of
//! shapes (its four shapes together, best first: [`patterns::quad`]) has a
//! score as the mover's move (what it makes) and as the opponent's cell
//! (what taking it stops). A candidate's score is its mover's quad's first
//! plus its opponent's quad's second, in thousandths of a logit: the
//! logits of a softmax over the candidates, fitted by
//! `crates/tools/examples/gomoku-tune.rs` to the moves a stronger engine played.
//!
//! Embedded from `policy.bin` (little-endian: a u16 count, [`SORTED`],
//! then for each quad whose digits do not increase, in increasing order,
//! two i16: as the mover's, as the opponent's).
//!
//! Held out, the engine's move is among the best 10 by this ordering, and
//! first, more often than by the hand-set one before it; docs/benchmarks.md
//! has what it did in games.
//!
//! [`patterns::quad`]: super::patterns::quad

use super::patterns::QUADS;

static BYTES: &[u8] = include_bytes!("policy.bin");

/// The quads whose digits (shapes, 0..=9) do not increase: the multisets
/// of four shapes, C(13, 4).
pub(super) const SORTED: usize = 715;

/// Per quad (0..[`QUADS`]), its scores as the mover's and as the
/// opponent's; zeros for a quad that is not sorted (none is looked up).
/// Read once, into the combos of `lines.rs`.
pub(super) fn table() -> Box<[[i16; 2]]> {
    parse(BYTES).unwrap_or_else(|| vec![[0; 2]; QUADS].into_boxed_slice())
}

/// Whether the quad `q`'s digits, read from the left, do not increase.
#[must_use]
pub fn is_sorted(q: usize) -> bool {
    let d = [q / 1000 % 10, q / 100 % 10, q / 10 % 10, q % 10];
    d.windows(2).all(|w| w[0] >= w[1])
}

/// The scores of `bytes` (see the module docs); `None` when they are not
/// a whole table.
fn parse(bytes: &[u8]) -> Option<Box<[[i16; 2]]>> {
    let (count, mut rest) = bytes.split_first_chunk::<2>()?;
    if usize::from(u16::from_le_bytes(*count)) != SORTED || rest.len() != SORTED * 4 {
        return None;
    }
    let mut table = vec![[0; 2]; QUADS].into_boxed_slice();
    for (_, scores) in table.iter_mut().enumerate().filter(|(q, _)| is_sorted(*q)) {
        let (entry, tail) = rest.split_first_chunk::<4>()?;
        *scores = [
            i16::from_le_bytes([entry[0], entry[1]]),
            i16::from_le_bytes([entry[2], entry[3]]),
        ];
        rest = tail;
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_ordering_is_read_whole() {
        assert_eq!((0..QUADS).filter(|&q| is_sorted(q)).count(), SORTED);
        let table = parse(BYTES).expect("policy.bin is a whole table");
        // A byte more or less is refused.
        assert!(parse(&BYTES[..BYTES.len() - 1]).is_none());
        let mut longer = BYTES.to_vec();
        longer.push(0);
        assert!(parse(&longer).is_none());
        // An open three (shape 6) and nothing else is worth more to make
        // than nothing at all (quad 0), and a cell where the opponent makes
        // a four-three (7, 6) more to take than one where it makes a two.
        assert!(table[6000][0] > table[0][0] + 500, "{:?}", table[6000]);
        assert!(table[7600][1] > table[4000][1] + 500, "{:?}", table[7600]);
    }
}
