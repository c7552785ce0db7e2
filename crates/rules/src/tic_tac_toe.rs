//! Tic-tac-toe: three in a row on a 3x3 board (docs/rules.md, "Tic-tac-toe").
//!
//! Each player's stones are a 9-bit mask, bit `3 * row + col` (see
//! [`lines3`](super::lines3)). The game stops at the first line, so after a
//! move any line of the mover runs through that move: one lookup in the
//! 512-entry line table tells whether it won, and the winner is stored.

use super::lines3::{FULL, has_line, line_cells};
use super::{Coord, DecodeError, Game, Player, Refusal, Threat};

/// Length of a snapshot: X's mask then O's mask, two bytes each.
const SNAPSHOT_LEN: usize = 4;

/// A cell of the 3x3 board, numbered 0..8 row-major (0 top-left, 4 centre).
///
/// Only cells on the board can be built, so a `Cell` is always in range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(u8);

impl Cell {
    /// The cell at `(row, col)`.
    ///
    /// # Errors
    /// [`Refusal::OutOfBounds`] unless both numbers are 0, 1 or 2.
    pub fn new(row: i64, col: i64) -> Result<Cell, Refusal> {
        match (row, col) {
            (0..=2, 0..=2) => Ok(Cell(u8::try_from(row * 3 + col).unwrap_or(0))),
            _ => Err(Refusal::OutOfBounds),
        }
    }

    /// The cell with row-major index `index` (`row * 3 + col`), if it is
    /// below 9.
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Cell> {
        if index < 9 { Some(Cell(index)) } else { None }
    }

    /// The row-major index, 0..8.
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The row, 0 at the top.
    #[must_use]
    pub const fn row(self) -> u8 {
        self.0 / 3
    }

    /// The column, 0 at the left.
    #[must_use]
    pub const fn col(self) -> u8 {
        self.0 % 3
    }

    /// The cell's bit in a 9-bit board mask.
    const fn bit(self) -> u16 {
        1 << self.0
    }
}

impl From<Cell> for Coord {
    fn from(c: Cell) -> Coord {
        Coord::new(c.row(), c.col())
    }
}

/// A tic-tac-toe position.
///
/// Invariants: the two masks hold only bits 0..8 and never overlap; X has as
/// many stones as O or one more; `winner` is the player with a line (at most
/// one player has one, and nobody played after it was made).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TicTacToe {
    /// Stones of X and of O, indexed by [`Player::index`].
    stones: [u16; 2],
    winner: Option<Player>,
}

impl TicTacToe {
    /// The empty board, X to move.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The stone on `cell`, if any.
    #[must_use]
    pub fn stone(&self, cell: Cell) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|p| self.stones[p.index()] & cell.bit() != 0)
    }

    /// The empty cells as a 9-bit mask.
    const fn empty(&self) -> u16 {
        !(self.stones[0] | self.stones[1]) & FULL
    }

    /// The empty cells where a stone of `player` would make a line, as a mask.
    fn winning_cells(&self, player: Player) -> u16 {
        let own = self.stones[player.index()];
        cells(self.empty())
            .filter(|c| has_line(own | c.bit()))
            .fold(0, |acc, c| acc | c.bit())
    }
}

/// The cells of `mask`, in row-major order.
fn cells(mask: u16) -> impl Iterator<Item = Cell> {
    (0..9u8).filter(move |i| mask >> i & 1 == 1).map(Cell)
}

impl Game for TicTacToe {
    type Move = Cell;

    fn to_move(&self) -> Player {
        Player::at_ply(self.ply())
    }

    fn ply(&self) -> u32 {
        self.stones[0].count_ones() + self.stones[1].count_ones()
    }

    fn winner(&self) -> Option<Player> {
        self.winner
    }

    fn is_over(&self) -> bool {
        self.winner.is_some() || self.empty() == 0
    }

    fn winning_line(&self) -> Vec<Coord> {
        match self.winner {
            Some(p) => cells(line_cells(self.stones[p.index()]))
                .map(Coord::from)
                .collect(),
            None => Vec::new(),
        }
    }

    fn check(&self, m: Cell) -> Result<(), Refusal> {
        if self.is_over() {
            return Err(Refusal::GameOver);
        }
        if self.empty() & m.bit() == 0 {
            return Err(Refusal::Occupied);
        }
        Ok(())
    }

    fn play_unchecked(&mut self, m: Cell) {
        let player = self.to_move();
        let own = &mut self.stones[player.index()];
        *own |= m.bit();
        if has_line(*own) {
            self.winner = Some(player);
        }
    }

    fn legal_moves_into(&self, out: &mut Vec<Cell>) {
        out.clear();
        if !self.is_over() {
            out.extend(cells(self.empty()));
        }
    }

    fn threats(&self) -> Vec<Threat<Cell>> {
        if self.is_over() {
            return Vec::new();
        }
        // Every empty cell is a legal move for either player, so both groups
        // are the empty cells that complete a line.
        let me = self.to_move();
        [me, me.other()]
            .into_iter()
            .flat_map(|player| {
                cells(self.winning_cells(player)).map(move |mv| Threat { player, mv })
            })
            .collect()
    }

    /// Layout: X's mask then O's mask, each as a little-endian `u16`. The ply
    /// and the winner are derived.
    fn encode(&self) -> Vec<u8> {
        let [x, o] = self.stones;
        let mut out = Vec::with_capacity(SNAPSHOT_LEN);
        out.extend_from_slice(&x.to_le_bytes());
        out.extend_from_slice(&o.to_le_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let &[x0, x1, o0, o1] = bytes else {
            return Err(DecodeError("tic-tac-toe snapshot must be 4 bytes"));
        };
        let (x, o) = (u16::from_le_bytes([x0, x1]), u16::from_le_bytes([o0, o1]));
        if (x | o) & !FULL != 0 {
            return Err(DecodeError("tic-tac-toe stone outside the board"));
        }
        if x & o != 0 {
            return Err(DecodeError("tic-tac-toe stones overlap"));
        }
        let (nx, no) = (x.count_ones(), o.count_ones());
        if nx != no && nx != no + 1 {
            return Err(DecodeError("tic-tac-toe stone counts do not alternate"));
        }
        // The game stops at the first line, so only the player who moved last
        // may have one. Two lines of one player always share a cell (two
        // parallel lines need six stones, X has at most five), so a single
        // last move can have made them all.
        let winner = match (has_line(x), has_line(o)) {
            (true, true) => return Err(DecodeError("tic-tac-toe: both players have a line")),
            (true, false) if nx == no + 1 => Some(Player::X),
            (false, true) if nx == no => Some(Player::O),
            (false, false) => None,
            _ => return Err(DecodeError("tic-tac-toe: play went on after a line")),
        };
        Ok(TicTacToe {
            stones: [x, o],
            winner,
        })
    }

    fn dims(&self) -> (u8, u8) {
        (3, 3)
    }

    fn cell_at(&self, row: u8, col: u8) -> Option<Player> {
        let cell = Cell::new(row.into(), col.into()).ok()?;
        self.stone(cell)
    }
}
