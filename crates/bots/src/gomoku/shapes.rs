//! Line shapes: what a stone on an empty cell would make along one line,
//! read from a table indexed by the cell's neighbours on that line.
//!
//! A cell's "key" in a direction holds the five cells on each side of it
//! (two bits each: empty, X, O, or off the board), see [`Key`]. For each
//! key and colour the table gives the [`Shape`] that a stone of that colour
//! on the cell would make in that line: a five, an open four (two cells
//! that would each complete a five), a four (one such cell), an open or
//! closed three (one more stone makes an open four, or a four), and so on
//! down to ones. Only fives through the cell count, so a shape is what the
//! move adds. Under freestyle five or more in a row win and the table
//! reads four cells each side; under standard only exactly five do, and it
//! reads five (a sixth stone just past a five makes it an overline).
//!
//! The table is built once per rule, from the most stones down: the shape
//! of a key follows from the shapes of the keys with one more stone of the
//! colour (an open three is a line where one more stone makes an open
//! four), so each key costs a few lookups.

use std::sync::LazyLock;

use tabula_rules::gomoku::GomokuRule;

/// What a stone of one colour on a cell would make, all lines together,
/// weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum Class {
    None = 0,
    /// An open three in one line.
    Three,
    /// Two open threes.
    DoubleThree,
    /// A four.
    Four,
    /// A four and an open three.
    FourThree,
    /// An open four or two fours: a five next move whatever is done.
    OpenFour,
    /// Five.
    Five,
}

/// A line's shape for one colour at one cell, weakest first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub(super) enum Shape {
    /// Nothing: no five can be made through the cell in this line.
    #[default]
    None = 0,
    B1,
    F1,
    B2,
    F2,
    /// A closed three: one more stone makes a four.
    B3,
    /// An open three: one more stone makes an open four.
    F3,
    /// A four: one cell completes a five.
    B4,
    /// An open four: two cells complete a five.
    F4,
    /// Five in a row (exactly five under standard).
    F5,
}

/// Shapes by their number.
pub(super) const SHAPES: [Shape; 10] = [
    Shape::None,
    Shape::B1,
    Shape::F1,
    Shape::B2,
    Shape::F2,
    Shape::B3,
    Shape::F3,
    Shape::B4,
    Shape::F4,
    Shape::F5,
];

/// Cells each side of a cell that a key holds.
pub(super) const HALF: usize = 5;

/// A cell's neighbours along one line, two bits each ([`EMPTY`], X = 1,
/// O = 2, [`WALL`]): the neighbour at offset `k` (−5..=−1, 1..=5) at bit
/// `2 * slot(k)`.
pub(super) type Key = u32;

pub(super) const EMPTY: u32 = 0;
pub(super) const WALL: u32 = 3;

/// The slot of the neighbour at offset `k` (not 0) in a [`Key`].
pub(super) const fn slot(k: isize) -> u32 {
    if k < 0 {
        (k + HALF as isize) as u32
    } else {
        (k + HALF as isize - 1) as u32
    }
}

/// The shapes of one rule, for both colours.
pub(super) struct Table {
    /// Half-line length read: 4 (freestyle) or 5 (standard).
    half: usize,
    /// Both colours' shapes in one byte (X's in the low nibble, O's in the
    /// high one), indexed by the key reduced to `half`.
    pairs: Vec<u8>,
}

static FREESTYLE: LazyLock<Table> = LazyLock::new(|| Table::build(GomokuRule::Freestyle));
static STANDARD: LazyLock<Table> = LazyLock::new(|| Table::build(GomokuRule::Standard));

/// The table of `rule` (built on first use).
pub(super) fn table(rule: GomokuRule) -> &'static Table {
    match rule {
        GomokuRule::Freestyle => &FREESTYLE,
        GomokuRule::Standard => &STANDARD,
    }
}

impl Table {
    /// The shape that a stone of `colour` (0 = X, 1 = O) on the cell makes.
    #[inline]
    pub(super) fn shape(&self, key: Key, colour: usize) -> Shape {
        let (x, o) = self.pair_at(self.index(key));
        if colour == 0 { x } else { o }
    }

    /// How many keys the table tells apart ([`Table::index`] is below).
    pub(super) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The shapes of both colours (X's, O's) at an index of the table.
    pub(super) fn pair_at(&self, index: usize) -> (Shape, Shape) {
        let both = self.pairs[index];
        (
            SHAPES[usize::from(both & 15)],
            SHAPES[usize::from(both >> 4)],
        )
    }

    /// The cells each side that decide a shape: 4 (freestyle) or 5
    /// (standard). A key's cells further out change no shape.
    pub(super) fn half(&self) -> usize {
        self.half
    }

    #[inline]
    pub(super) fn index(&self, key: Key) -> usize {
        (if self.half == 4 {
            (key >> 2) & 0xffff
        } else {
            key
        }) as usize
    }

    fn build(rule: GomokuRule) -> Table {
        let half = match rule {
            GomokuRule::Freestyle => 4,
            GomokuRule::Standard => 5,
        };
        let exact = matches!(rule, GomokuRule::Standard);
        let cells = 2 * half;
        let keys = 1usize << (2 * cells);
        // From X's view; O's table is X's with the colours swapped.
        let mut x = vec![0u8; keys];
        // Keys by their count of X stones, most first.
        let counts: Vec<u32> = (0..keys as u32).map(|k| count(k, cells, 1)).collect();
        let mut line = [0u8; 11];
        for stones in (0..=cells as u32).rev() {
            for k in (0..keys as u32).filter(|&k| counts[k as usize] == stones) {
                decode(k, cells, &mut line);
                x[k as usize] = shape_of(&mut line, half, exact, |k2| x[k2 as usize]) as u8;
            }
        }
        let o: Vec<u8> = (0..keys as u32)
            .map(|k| x[swap(k, cells) as usize])
            .collect();
        let pairs = x.iter().zip(&o).map(|(&x, &o)| x | o << 4).collect();
        Table { half, pairs }
    }
}

/// Stones of colour `c` (1 or 2) in key `k` of `cells` cells.
fn count(k: u32, cells: usize, c: u32) -> u32 {
    (0..cells).map(|i| u32::from(k >> (2 * i) & 3 == c)).sum()
}

/// The key with X and O swapped.
fn swap(k: u32, cells: usize) -> u32 {
    (0..cells).fold(0, |acc, i| {
        let v = match k >> (2 * i) & 3 {
            1 => 2,
            2 => 1,
            v => v,
        };
        acc | v << (2 * i)
    })
}

/// Writes key `k` as a line of `2 * half + 1` cells with X on the middle.
fn decode(k: u32, cells: usize, line: &mut [u8; 11]) {
    let half = cells / 2;
    for i in 0..cells {
        let v = (k >> (2 * i) & 3) as u8;
        let at = if i < half { i } else { i + 1 };
        line[at] = v;
    }
    line[half] = 1;
}

/// The key of a line (inverse of [`decode`], the middle left out).
fn encode(line: &[u8; 11], cells: usize) -> u32 {
    let half = cells / 2;
    (0..cells).fold(0, |acc, i| {
        let at = if i < half { i } else { i + 1 };
        acc | u32::from(line[at]) << (2 * i)
    })
}

/// Whether X has five through the middle of `line` (exactly five when
/// `exact`).
fn five(line: &[u8; 11], half: usize, exact: bool) -> bool {
    let mut left = 0;
    while left < half && line[half - 1 - left] == 1 {
        left += 1;
    }
    let mut right = 0;
    while right < half && line[half + 1 + right] == 1 {
        right += 1;
    }
    let run = left + right + 1;
    if exact { run == 5 } else { run >= 5 }
}

/// The shape X makes with the middle of `line` (X on it), given the shapes
/// of keys with one more X stone (`known`).
fn shape_of(line: &mut [u8; 11], half: usize, exact: bool, known: impl Fn(u32) -> u8) -> Shape {
    if five(line, half, exact) {
        return Shape::F5;
    }
    let cells = 2 * half;
    let mut fives = 0;
    let mut best = Shape::None;
    for i in (0..=cells).filter(|&i| i != half) {
        if line[i] != 0 {
            continue;
        }
        line[i] = 1;
        if five(line, half, exact) {
            fives += 1;
        } else {
            let next = SHAPES[usize::from(known(encode(line, cells)))];
            best = best.max(match next {
                Shape::F4 => Shape::F3,
                Shape::B4 => Shape::B3,
                Shape::F3 => Shape::F2,
                Shape::B3 => Shape::B2,
                Shape::F2 => Shape::F1,
                Shape::B2 => Shape::B1,
                _ => Shape::None,
            });
        }
        line[i] = 0;
    }
    match fives {
        0 => best,
        1 => Shape::B4,
        _ => Shape::F4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape for X at the middle of a line written with `x`, `o`, `.`
    /// and `#` (off the board), the middle marked `*`.
    fn read(rule: GomokuRule, text: &str) -> Shape {
        let cells: Vec<char> = text.chars().collect();
        let mid = cells.iter().position(|&c| c == '*').unwrap();
        let mut key = 0;
        for k in -(HALF as isize)..=(HALF as isize) {
            if k == 0 {
                continue;
            }
            let at = mid as isize + k;
            let v = if at < 0 || at >= cells.len() as isize {
                WALL
            } else {
                match cells[at as usize] {
                    'x' => 1,
                    'o' => 2,
                    '#' => WALL,
                    _ => EMPTY,
                }
            };
            key |= v << (2 * slot(k));
        }
        table(rule).shape(key, 0)
    }

    #[test]
    fn shapes_of_known_lines() {
        let f = GomokuRule::Freestyle;
        assert_eq!(read(f, ".....xx*xx....."), Shape::F5);
        assert_eq!(read(f, "....xxx*xx....."), Shape::F5);
        assert_eq!(read(f, "......x*xx....."), Shape::F4);
        assert_eq!(read(f, ".....ox*xx....."), Shape::B4);
        assert_eq!(read(f, "......x*x.x...."), Shape::B4);
        assert_eq!(read(f, "......x*x......"), Shape::F3);
        assert_eq!(read(f, ".....ox*x......"), Shape::B3);
        assert_eq!(read(f, "......x*.x....."), Shape::F3);
        assert_eq!(read(f, "......#*xx....."), Shape::B3);
        assert_eq!(read(f, ".......*x......"), Shape::F2);
        assert_eq!(read(f, "......o*x...o.."), Shape::B2);
        assert_eq!(read(f, "......o*x..o..."), Shape::None);
        assert_eq!(read(f, "......o*...o..."), Shape::None);
        assert_eq!(read(f, "....o..*..o...."), Shape::B1);
        assert_eq!(read(f, "......o*..x.o.."), Shape::B2);
        assert_eq!(read(f, "......o*..xo..."), Shape::None);
    }

    #[test]
    fn standard_refuses_overlines() {
        let s = GomokuRule::Standard;
        assert_eq!(read(s, ".....xx*xx....."), Shape::F5);
        assert_eq!(read(s, "....xxx*xx....."), Shape::None);
        // Only one cell gives exactly five: the other makes six.
        assert_eq!(read(s, ".....x.*xxx...."), Shape::B4);
        assert_eq!(read(s, "....x.x*xx....."), Shape::B4);
        assert_eq!(read(GomokuRule::Freestyle, "....x.x*xx....."), Shape::F4);
        // A four whose only five would be six under standard is nothing.
        assert!(read(s, "....xx.*xx.xx..") < Shape::B4);
        assert_eq!(read(GomokuRule::Freestyle, "....xx.*xx.xx.."), Shape::F4);
    }
}
