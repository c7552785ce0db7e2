//! Connect Four: 7 columns, 6 rows, boards stand upright (docs/rules.md, "Connect
//! Four"). A disc falls to the lowest empty row of its column; four or more
//! of a kind in a row — horizontally, vertically or on either diagonal — win.
//!
//! # Bit layout
//!
//! Each player's discs are one `u64` bitboard with 7 bits per column, column
//! 0 in the lowest bits: the cell `height` rows above the bottom of column
//! `col` is bit `7 * col + height` (`height` 0 is the bottom row). The
//! seventh bit of every column is a sentinel row above the top, always 0, and
//! so are bits 49 to 63:
//!
//! ```text
//!  sentinel:  6 13 20 27 34 41 48
//!  top     :  5 12 19 26 33 40 47   (Coord row 0)
//!             4 11 18 25 32 39 46
//!             3 10 17 24 31 38 45
//!             2  9 16 23 30 37 44
//!             1  8 15 22 29 36 43
//!  bottom  :  0  7 14 21 28 35 42   (Coord row 5)
//!  column  :  0  1  2  3  4  5  6
//! ```
//!
//! A line steps by 1 bit (vertical), 7 (horizontal), 8 (rising diagonal, up
//! to the right) or 6 (falling diagonal, down to the right). The empty
//! sentinel row keeps runs from wrapping from one column into the next, so a
//! four is found with a few shifts and ands over the whole board. After a
//! move only the mover's bitboard is tested; since the position before had
//! no four, any four found goes through the new disc. The winner is stored in
//! the position.
//!
//! The occupied cells (the "mask", both bitboards or-ed) of each column are
//! contiguous from the bottom, so `mask + BOTTOM_MASK` has, in each column,
//! exactly the bit of the next free cell (the sentinel for a full column).
//!
//! The [`Coord`]s of the API count rows from the top: `row = ROWS - 1 - height`.

use std::collections::HashSet;

use super::{Coord, DecodeError, Game, Player, Refusal, Threat};

/// Rows of the board.
pub const ROWS: u8 = 6;
/// Columns of the board.
pub const COLUMNS: u8 = 7;

/// Bits per column in a bitboard: the rows plus the sentinel.
const STRIDE: u8 = ROWS + 1;

/// The line directions as bit steps: vertical, horizontal, rising and
/// falling diagonal.
const DIRECTIONS: [u32; 4] = [1, STRIDE as u32, STRIDE as u32 + 1, STRIDE as u32 - 1];

/// Bytes of a snapshot: X's then O's bitboard, each a little-endian `u64`.
const SNAPSHOT_LEN: usize = 16;

/// The bottom cell of every column.
pub const BOTTOM_MASK: u64 = bottom_mask();

/// Every cell of the board (no sentinel bits).
pub const BOARD_MASK: u64 = BOTTOM_MASK * ((1 << ROWS) - 1);

const fn bottom_mask() -> u64 {
    let mut mask = 0;
    let mut col = 0;
    while col < COLUMNS {
        mask |= 1 << (col * STRIDE);
        col += 1;
    }
    mask
}

/// The six cells of column `col`.
const fn column_mask(col: u8) -> u64 {
    ((1 << ROWS) - 1) << (col * STRIDE)
}

/// The bit of the cell `(row, col)` in API coordinates (row 0 at the top).
const fn cell_bit(row: u8, col: u8) -> u64 {
    1 << (col * STRIDE + (ROWS - 1 - row))
}

/// Whether `discs` (a set of cells in this module's bit layout) holds four
/// in a row somewhere. Also the `hard` bot's test at every node it
/// searches (and the solver's claimeven bound's), so inlined across modules.
#[must_use]
#[inline]
pub fn has_four(discs: u64) -> bool {
    DIRECTIONS.iter().any(|&d| {
        let pairs = discs & (discs >> d);
        pairs & (pairs >> (2 * d)) != 0
    })
}

/// Every cell of every four (or longer run) in `discs`.
fn four_cells(discs: u64) -> u64 {
    DIRECTIONS.iter().fold(0, |cells, &d| {
        let starts = discs & (discs >> d) & (discs >> (2 * d)) & (discs >> (3 * d));
        cells | starts | starts << d | starts << (2 * d) | starts << (3 * d)
    })
}

/// The empty cells (of `mask`'s board) that would complete four for `discs`.
fn completing_cells(discs: u64, mask: u64) -> u64 {
    let cells = DIRECTIONS.iter().fold(0, |cells, &d| {
        let (a1, a2, a3) = (discs << d, discs << (2 * d), discs << (3 * d));
        let (b1, b2, b3) = (discs >> d, discs >> (2 * d), discs >> (3 * d));
        cells | (a1 & a2 & a3) | (b1 & a1 & a2) | (b2 & b1 & a1) | (b3 & b2 & b1)
    });
    cells & BOARD_MASK & !mask
}

/// The top disc of every non-empty column of `mask`.
const fn top_discs(mask: u64) -> u64 {
    ((mask + BOTTOM_MASK) >> 1) & mask
}

/// A column of the board, `0..=6` from the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Column(u8);

impl Column {
    /// The seven columns, left to right.
    pub const ALL: [Column; COLUMNS as usize] = [
        Column(0),
        Column(1),
        Column(2),
        Column(3),
        Column(4),
        Column(5),
        Column(6),
    ];

    /// The column numbered `column` (0 at the left).
    ///
    /// # Errors
    /// [`Refusal::OutOfBounds`] unless `0 <= column < 7`.
    pub fn new(column: i64) -> Result<Column, Refusal> {
        match u8::try_from(column) {
            Ok(col) if col < COLUMNS => Ok(Column(col)),
            _ => Err(Refusal::OutOfBounds),
        }
    }

    /// The column number, `0..=6`.
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The six cells of this column in the bit layout of the module docs.
    const fn mask(self) -> u64 {
        column_mask(self.0)
    }
}

/// A Connect Four position.
///
/// Invariants: the two bitboards never overlap, hold only board bits (see the
/// module docs) and are filled from the bottom of each column; X has as many
/// discs as O or one more; `winner` is the player who has four in a row (at
/// most one does, and it is the player who moved last).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConnectFour {
    /// Bitboards indexed by [`Player::index`].
    discs: [u64; 2],
    winner: Option<Player>,
}

impl ConnectFour {
    /// The empty board, X to move.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `player`'s discs as a bitboard (layout in the module docs).
    #[must_use]
    pub const fn discs(&self, player: Player) -> u64 {
        self.discs[player.index()]
    }

    /// Every occupied cell as a bitboard (layout in the module docs).
    #[must_use]
    pub const fn mask(&self) -> u64 {
        self.discs[0] | self.discs[1]
    }

    /// `(the side to move's discs, every occupied cell)`: the usual
    /// solver pair, from which the opponent's discs are `mask ^ own`.
    #[must_use]
    pub const fn bitboards(&self) -> (u64, u64) {
        let mask = self.mask();
        (self.discs[Player::at_ply(mask.count_ones()).index()], mask)
    }

    /// The number of discs in `col`, `0..=6`.
    #[must_use]
    pub const fn height(&self, col: Column) -> u8 {
        // At most 6 bits are set, so the cast is lossless.
        (self.mask() & col.mask()).count_ones() as u8
    }

    /// Whether `col` has room for another disc (whether or not the game is
    /// over; [`Game::check`] says whether the move may be played).
    #[must_use]
    pub const fn can_play(&self, col: Column) -> bool {
        self.mask() & col.mask() & (BOTTOM_MASK << (ROWS - 1)) == 0
    }

    /// The next free cell of every column that is not full, as a bitboard.
    #[must_use]
    pub const fn playable(&self) -> u64 {
        (self.mask() + BOTTOM_MASK) & BOARD_MASK
    }

    /// The empty cells where a disc of `player` would complete four in a row,
    /// as a bitboard, whether or not a disc could be dropped there now (and
    /// whether or not the game is over). `winning_cells(p) & playable()`
    /// are the cells where `p` would win by moving now.
    #[must_use]
    pub fn winning_cells(&self, player: Player) -> u64 {
        completing_cells(self.discs(player), self.mask())
    }

    /// A number below 2^49 that tells positions apart (for transposition
    /// tables): per column, the side to move's discs below a marker bit at
    /// the column's height.
    #[must_use]
    pub const fn key(&self) -> u64 {
        let (own, mask) = self.bitboards();
        own + mask + BOTTOM_MASK
    }

    /// The columns that have a cell in `cells`, left to right.
    fn columns_in(cells: u64) -> impl Iterator<Item = Column> {
        Column::ALL
            .into_iter()
            .filter(move |c| cells & c.mask() != 0)
    }
}

/// Whether the discs can be taken back one by one, the last mover's first and
/// alternating, each from the top of its column, down to the empty board:
/// i.e. whether some order of play (X first) builds this board. Positions
/// found not to work are remembered in `dead` (by their mask, which
/// determines the discs left).
fn can_take_back(discs: [u64; 2], dead: &mut HashSet<u64>) -> bool {
    let mask = discs[0] | discs[1];
    if mask == 0 {
        return true;
    }
    if dead.contains(&mask) {
        return false;
    }
    let mover = Player::at_ply(mask.count_ones() - 1).index();
    let mut tops = top_discs(mask) & discs[mover];
    while tops != 0 {
        let top = tops & tops.wrapping_neg();
        tops ^= top;
        let mut before = discs;
        before[mover] ^= top;
        if can_take_back(before, dead) {
            return true;
        }
    }
    dead.insert(mask);
    false
}

impl Game for ConnectFour {
    type Move = Column;

    fn to_move(&self) -> Player {
        Player::at_ply(self.ply())
    }

    fn ply(&self) -> u32 {
        self.mask().count_ones()
    }

    fn winner(&self) -> Option<Player> {
        self.winner
    }

    fn is_over(&self) -> bool {
        self.winner.is_some() || self.mask() == BOARD_MASK
    }

    fn winning_line(&self) -> Vec<Coord> {
        let Some(winner) = self.winner else {
            return Vec::new();
        };
        // Every four on the board goes through the last disc (the position
        // before it had none), so these are the runs through the last move.
        let cells = four_cells(self.discs(winner));
        (0..ROWS)
            .flat_map(|row| (0..COLUMNS).map(move |col| Coord::new(row, col)))
            .filter(|c| cells & cell_bit(c.row, c.col) != 0)
            .collect()
    }

    fn check(&self, m: Column) -> Result<(), Refusal> {
        if self.is_over() {
            return Err(Refusal::GameOver);
        }
        if !self.can_play(m) {
            return Err(Refusal::ColumnFull);
        }
        Ok(())
    }

    fn play_unchecked(&mut self, m: Column) {
        let player = self.to_move();
        // The next free cell of the column; 0 (no change) if it is full.
        let cell = self.playable() & m.mask();
        let discs = &mut self.discs[player.index()];
        *discs |= cell;
        if has_four(*discs) {
            self.winner = Some(player);
        }
    }

    fn legal_moves_into(&self, out: &mut Vec<Column>) {
        out.clear();
        if self.is_over() {
            return;
        }
        out.extend(Self::columns_in(self.playable()));
    }

    fn threats(&self) -> Vec<Threat<Column>> {
        if self.is_over() {
            return Vec::new();
        }
        let playable = self.playable();
        let me = self.to_move();
        [me, me.other()]
            .into_iter()
            .flat_map(|player| {
                Self::columns_in(self.winning_cells(player) & playable)
                    .map(move |mv| Threat { player, mv })
            })
            .collect()
    }

    /// Layout: X's bitboard then O's, each as a little-endian `u64` (16
    /// bytes). Ply, turn and winner are derived.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(SNAPSHOT_LEN);
        for discs in self.discs {
            out.extend_from_slice(&discs.to_le_bytes());
        }
        out
    }

    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (Some(x), Some(o)) = (
            bytes.get(..8).and_then(|b| b.try_into().ok()),
            bytes.get(8..).and_then(|b| b.try_into().ok()),
        ) else {
            return Err(DecodeError("connect four snapshot must be 16 bytes"));
        };
        let discs = [u64::from_le_bytes(x), u64::from_le_bytes(o)];
        let [x, o] = discs;
        if (x | o) & !BOARD_MASK != 0 {
            return Err(DecodeError("connect four disc outside the board"));
        }
        if x & o != 0 {
            return Err(DecodeError("two discs in one cell"));
        }
        let mask = x | o;
        // Filled from the bottom: each column's bits are 2^height - 1.
        let floating = Column::ALL.iter().any(|c| {
            let bits = (mask & c.mask()) >> (c.index() * STRIDE);
            bits & (bits + 1) != 0
        });
        if floating {
            return Err(DecodeError("a disc floats above an empty cell"));
        }
        let (xs, os) = (x.count_ones(), o.count_ones());
        if xs != os && xs != os + 1 {
            return Err(DecodeError("disc counts do not match the turn"));
        }
        let winner = match (has_four(x), has_four(o)) {
            (true, true) => return Err(DecodeError("both players have four in a row")),
            (true, false) => Some(Player::X),
            (false, true) => Some(Player::O),
            (false, false) => None,
        };
        let mut dead = HashSet::new();
        match winner {
            None => {
                if !can_take_back(discs, &mut dead) {
                    return Err(DecodeError("no order of play gives this board"));
                }
            }
            Some(w) => {
                if w != Player::at_ply(xs + os - 1) {
                    return Err(DecodeError("the winner did not move last"));
                }
                // The winning disc is on top of its column, and without it
                // nobody has four.
                let mut lasts = top_discs(mask) & discs[w.index()];
                let mut found_last = false;
                let mut reachable = false;
                while lasts != 0 && !reachable {
                    let last = lasts & lasts.wrapping_neg();
                    lasts ^= last;
                    let mut before = discs;
                    before[w.index()] ^= last;
                    if !has_four(before[w.index()]) {
                        found_last = true;
                        reachable = can_take_back(before, &mut dead);
                    }
                }
                if !found_last {
                    return Err(DecodeError("four in a row before the last move"));
                }
                if !reachable {
                    return Err(DecodeError("no order of play gives this board"));
                }
            }
        }
        Ok(ConnectFour { discs, winner })
    }

    fn dims(&self) -> (u8, u8) {
        (ROWS, COLUMNS)
    }

    fn cell_at(&self, row: u8, col: u8) -> Option<Player> {
        if row >= ROWS || col >= COLUMNS {
            return None;
        }
        let bit = cell_bit(row, col);
        Player::BOTH.into_iter().find(|&p| self.discs(p) & bit != 0)
    }
}
