//! A small network added to the learned evaluation ([`patterns`]): each
//! empty cell's quad of shapes (its four shapes together, for each colour)
//! has a vector of [`D`] numbers, one for that colour to move and one for
//! its opponent to move; the vectors of the side to move's cells as the
//! mover and of the opponent's as the opponent are summed over the empty
//! cells (kept up to date with the shapes, in integers), and with the
//! threat classes' counts they go through one hidden layer of [`H`]
//! rectified units to a number of logits, added to the linear sum. The
//! linear sum cannot weigh one side's shapes against the other's or
//! against how many there are; this can. Fitted by
//! `crates/tools/examples/gomoku-net.rs` to the same games as the linear weights, with
//! those weights fixed, and embedded from `net.bin` (little-endian: u16
//! [`D`], u16 [`H`], u32 rows, each a u16 quad and 2 × [`D`] i16 in units
//! of 1/[`SCALE`]; then the hidden layer's [`H`] × [`INPUTS`] weights,
//! its [`H`] biases, the output's [`H`] weights and its bias, all f32).
//!
//! Held out, it predicts Rapfi's evaluations better than the linear sum
//! alone; a node costs more, so the work a millisecond was lowered to keep
//! a move's time, and at that time `hard` scores better against Rapfi
//! (docs/benchmarks.md, "Gomoku against a real engine").
//!
//! [`patterns`]: super::patterns

use std::sync::LazyLock;

use super::patterns::{MINE_COUNTED, QUAD_SLOTS, THEIRS_COUNTED};

static BYTES: &[u8] = include_bytes!("net.bin");

/// The length of a quad's vector.
pub(super) const D: usize = 4;
/// Hidden units.
pub(super) const H: usize = 16;
/// The hidden layer's inputs: the summed vector, 1, and the counts of the
/// threat classes (the mover's [`MINE_COUNTED`], the opponent's
/// [`THEIRS_COUNTED`]).
pub(super) const INPUTS: usize = D + 1 + MINE_COUNTED.len() + THEIRS_COUNTED.len();
/// The vectors' integer unit: 1/1024.
pub(super) const SCALE: f32 = 1024.0;
/// The counts' scale in the inputs.
pub(super) const COUNT_SCALE: f32 = 0.1;

/// A quad's vectors: with its colour to move, then with the other (read
/// as i16, kept as i32 for adding up).
pub(super) type Row = [i32; 2 * D];
/// Rows at most, to a power of two (a masked index needs no bounds check).
pub(super) const ROWS: usize = 1024;

/// The network's weights, expanded for lookups.
pub(super) struct Net {
    /// Per quad (masked to 14 bits), its row in `rows` (0: none, zeros).
    pub row_of: Box<[u16]>,
    pub rows: Box<[Row; ROWS]>,
    /// Per input, its weights into the hidden units.
    pub hidden: [[f32; H]; INPUTS],
    /// The hidden units' biases, the constant input's weights added.
    pub bias: [f32; H],
    pub out: [f32; H],
    pub out_bias: f32,
}

pub(super) static NET: LazyLock<Net> = LazyLock::new(|| Net::parse(BYTES).unwrap_or_default());

impl Default for Net {
    /// A network that adds nothing.
    fn default() -> Net {
        Net {
            row_of: vec![0; QUAD_SLOTS].into_boxed_slice(),
            rows: vec![[0; 2 * D]; ROWS]
                .into_boxed_slice()
                .try_into()
                .expect("ROWS rows"),
            hidden: [[0.0; H]; INPUTS],
            bias: [0.0; H],
            out: [0.0; H],
            out_bias: 0.0,
        }
    }
}

/// Reads little-endian numbers from the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }

    fn i16(&mut self) -> Option<i16> {
        self.take().map(i16::from_le_bytes)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }

    fn f32(&mut self) -> Option<f32> {
        self.take().map(f32::from_le_bytes)
    }
}

impl Net {
    /// The network of `bytes` (see the module docs); `None` when they are
    /// not one of this shape.
    pub(super) fn parse(bytes: &[u8]) -> Option<Net> {
        let mut r = Reader(bytes);
        if usize::from(r.u16()?) != D || usize::from(r.u16()?) != H {
            return None;
        }
        let mut net = Net::default();
        let n = usize::try_from(r.u32()?).ok()?;
        if n >= ROWS {
            return None;
        }
        for i in 1..=n {
            let quad = usize::from(r.u16()?);
            for x in &mut net.rows[i] {
                *x = i32::from(r.i16()?);
            }
            *net.row_of.get_mut(quad)? = u16::try_from(i).ok()?;
        }
        for j in 0..H {
            for input in &mut net.hidden {
                input[j] = r.f32()?;
            }
        }
        for (b, &w) in net.bias.iter_mut().zip(&net.hidden[D]) {
            *b = r.f32()? + w * COUNT_SCALE;
        }
        for w in &mut net.out {
            *w = r.f32()?;
        }
        net.out_bias = r.f32()?;
        r.0.is_empty().then_some(net)
    }

    /// The network's output, in thousandths of a logit, for the summed
    /// vector `sum` (units of 1/[`SCALE`]) and the threat classes' counts
    /// (the mover's, then the opponent's).
    pub(super) fn eval(&self, sum: &[i32; D], counts: &[i32]) -> i32 {
        let mut hidden = self.bias;
        let mut add = |weights: &[f32; H], x: f32| {
            for (h, &w) in hidden.iter_mut().zip(weights) {
                *h += w * x;
            }
        };
        for (weights, &s) in self.hidden.iter().zip(sum) {
            add(weights, s as f32 / SCALE);
        }
        // Most counts are 0.
        for (weights, &n) in self.hidden[D + 1..].iter().zip(counts) {
            if n != 0 {
                add(weights, n as f32 * COUNT_SCALE);
            }
        }
        let mut out = self.out_bias;
        for (&h, &w) in hidden.iter().zip(&self.out) {
            out += w * h.max(0.0);
        }
        (out * 1000.0).round().clamp(-30_000.0, 30_000.0) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_network_is_read_whole() {
        let net = Net::parse(BYTES).expect("net.bin is a network of this shape");
        let rows = net
            .rows
            .iter()
            .filter(|r| r.iter().any(|&x| x != 0))
            .count();
        assert!(rows > 100, "{rows} rows");
        assert!(net.out.iter().any(|&w| w != 0.0));
        // A byte more or less is refused.
        assert!(Net::parse(&BYTES[..BYTES.len() - 1]).is_none());
        let mut longer = BYTES.to_vec();
        longer.push(0);
        assert!(Net::parse(&longer).is_none());
        // Its output moves with the counts: the opponent's four-three
        // against none at all.
        let zero = [0; D];
        let quiet = net.eval(&zero, &[0; 9]);
        let threatened = net.eval(&zero, &[0, 0, 0, 0, 0, 0, 0, 1, 0]);
        assert_ne!(quiet, threatened);
    }
}
