//! The solver's view of a position: two bitboards in the rules' layout (7
//! bits per column, see `rules::connect_four`): the side to move's stones
//! and all stones. Playing a move swaps sides by xor-ing the two.

use std::fmt;

use tabula_rules::connect_four::{BOARD_MASK, BOTTOM_MASK, COLUMNS, ConnectFour, ROWS, has_four};

/// Columns of the board.
pub const WIDTH: usize = COLUMNS as usize;
/// Rows of the board.
pub const HEIGHT: usize = ROWS as usize;
/// Cells of the board.
pub(super) const CELLS: i32 = (WIDTH * HEIGHT) as i32;
/// Bits per column (six rows and a sentinel).
const STRIDE: usize = HEIGHT + 1;
/// The lowest score of a position the search is asked about: a loss to the
/// opponent's fourth stone (the side to move's three stones are on the board).
pub const MIN_SCORE: i32 = -(CELLS / 2) + 3;
/// The highest such score: a win with one's fourth stone.
pub const MAX_SCORE: i32 = (CELLS + 1) / 2 - 3;
/// Columns in the order they are tried: centre out.
pub(super) const CENTRE_FIRST: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// The six cells of column `col`.
pub(super) const fn column_mask(col: usize) -> u64 {
    ((1 << HEIGHT) - 1) << (col * STRIDE)
}

/// The top cell of column `col`.
const fn top_cell(col: usize) -> u64 {
    1 << (HEIGHT - 1 + col * STRIDE)
}

/// The empty cells (of the board `mask`) where a stone would complete four
/// for `stones`.
#[inline]
#[must_use]
pub const fn winning_cells(stones: u64, mask: u64) -> u64 {
    // Vertical: three stones right below.
    let mut cells = (stones << 1) & (stones << 2) & (stones << 3);
    // Horizontal and both diagonals: the cell completes `_XXX`, `X_XX`,
    // `XX_X` or `XXX_` along the step `d`.
    let steps = [STRIDE as u32, STRIDE as u32 + 1, STRIDE as u32 - 1];
    let mut i = 0;
    while i < steps.len() {
        let d = steps[i];
        let pair = (stones << d) & (stones << (2 * d));
        cells |= pair & (stones << (3 * d));
        cells |= pair & (stones >> d);
        let pair = (stones >> d) & (stones >> (2 * d));
        cells |= pair & (stones << d);
        cells |= pair & (stones >> (3 * d));
        i += 1;
    }
    cells & (BOARD_MASK ^ mask)
}

/// A position the solver can score: nobody has won yet.
///
/// Built from a sequence of moves ([`Position::from_moves`]), from a game of
/// the rules ([`Position::from_game`]) or by playing moves that do not win
/// ([`Position::play`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// The side to move's stones.
    current: u64,
    /// Every stone.
    mask: u64,
    /// Stones on the board.
    moves: u32,
}

/// Why a sequence of moves is not a position the solver takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovesError {
    /// The character at this index is not a column `1`..=`7`.
    NotAColumn(usize),
    /// The move at this index goes into a full column.
    ColumnFull(usize),
    /// The move at this index wins: the game is over.
    GameOver(usize),
}

impl fmt::Display for MovesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovesError::NotAColumn(i) => write!(f, "move {}: not a column 1..7", i + 1),
            MovesError::ColumnFull(i) => write!(f, "move {}: the column is full", i + 1),
            MovesError::GameOver(i) => write!(f, "move {}: it wins, the game is over", i + 1),
        }
    }
}

impl std::error::Error for MovesError {}

impl Position {
    /// The empty board.
    #[must_use]
    pub const fn new() -> Position {
        Position {
            current: 0,
            mask: 0,
            moves: 0,
        }
    }

    /// The position after `moves`, 1-based columns from the left (`"4453"`).
    ///
    /// # Errors
    /// [`MovesError`] for a character that is not a column, a move into a
    /// full column, or a move that wins (after which there is nothing to
    /// solve).
    pub fn from_moves(moves: &str) -> Result<Position, MovesError> {
        let mut p = Position::new();
        for (i, ch) in moves.bytes().enumerate() {
            let col = match ch {
                b'1'..=b'7' => usize::from(ch - b'1'),
                _ => return Err(MovesError::NotAColumn(i)),
            };
            if !p.can_play(col) {
                return Err(MovesError::ColumnFull(i));
            }
            if p.is_winning_move(col) {
                return Err(MovesError::GameOver(i));
            }
            p.play(col);
        }
        Ok(p)
    }

    /// The position of `game`, or `None` when the game is over.
    #[must_use]
    pub fn from_game(game: &ConnectFour) -> Option<Position> {
        use tabula_rules::Game;
        if game.is_over() {
            return None;
        }
        let (current, mask) = game.bitboards();
        Some(Position {
            current,
            mask,
            moves: mask.count_ones(),
        })
    }

    /// Stones on the board.
    #[must_use]
    pub const fn moves(&self) -> u32 {
        self.moves
    }

    /// Whether column `col` (0-based) has room.
    #[must_use]
    pub const fn can_play(&self, col: usize) -> bool {
        col < WIDTH && self.mask & top_cell(col) == 0
    }

    /// Whether a stone in column `col` (0-based, with room) wins at once.
    #[must_use]
    pub const fn is_winning_move(&self, col: usize) -> bool {
        self.winning() & self.possible() & column_mask(col) != 0
    }

    /// Drops a stone of the side to move in column `col` (0-based).
    ///
    /// The caller checks that the column has room ([`Position::can_play`])
    /// and that the move does not win ([`Position::is_winning_move`]): a
    /// position after a win is not one the solver can score.
    pub fn play(&mut self, col: usize) {
        self.play_cell((self.mask + (BOTTOM_MASK & column_mask(col))) & column_mask(col));
    }

    /// Drops a stone on `cell`, one of [`Position::possible`].
    #[inline]
    pub(super) fn play_cell(&mut self, cell: u64) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// A number below 2^49 that tells positions apart: per column, the side
    /// to move's stones below a marker bit at the column's height.
    #[must_use]
    pub const fn key(&self) -> u64 {
        self.current + self.mask + BOTTOM_MASK
    }

    /// The key of the opening book, shared by the position and its mirror
    /// image (which has the same score): the smaller of the two positions'
    /// base-3 codes. A code reads the columns in turn, each bottom up, one
    /// digit per stone (1 the side to move's, 2 the opponent's) and a 0
    /// after each column; the last 0 is dropped. With `n` stones it is
    /// below `3^(n + 6)`, so below 2^32 up to 14 stones.
    #[must_use]
    pub fn book_key(&self) -> u64 {
        let forward = (0..WIDTH).fold(0, |code, col| self.column_code(code, col));
        let backward = (0..WIDTH)
            .rev()
            .fold(0, |code, col| self.column_code(code, col));
        forward.min(backward) / 3
    }

    /// `code` followed by the digits of column `col` and a 0.
    fn column_code(&self, mut code: u64, col: usize) -> u64 {
        let mut cell = 1 << (col * STRIDE);
        while self.mask & cell != 0 {
            code = code * 3 + if self.current & cell != 0 { 1 } else { 2 };
            cell <<= 1;
        }
        code * 3
    }

    /// The next free cell of every column that is not full.
    #[inline]
    pub(super) const fn possible(&self) -> u64 {
        (self.mask + BOTTOM_MASK) & BOARD_MASK
    }

    /// The side to move's winning cells (playable now or not).
    #[inline]
    const fn winning(&self) -> u64 {
        winning_cells(self.current, self.mask)
    }

    /// The opponent's winning cells (playable now or not).
    #[inline]
    const fn opponent_winning(&self) -> u64 {
        winning_cells(self.current ^ self.mask, self.mask)
    }

    /// Whether the side to move can win with its next stone.
    #[must_use]
    pub const fn can_win_next(&self) -> bool {
        self.winning() & self.possible() != 0
    }

    /// The column (0-based) where the opponent would win with its next
    /// stone, the leftmost if there are several.
    #[must_use]
    pub fn threatened_column(&self) -> Option<usize> {
        let cells = self.opponent_winning() & self.possible();
        (cells != 0).then(|| cells.trailing_zeros() as usize / STRIDE)
    }

    /// The playable cells that do not lose at once: the single block when
    /// the opponent threatens to win (none when it threatens twice), and no
    /// cell right below an opponent's winning cell. Only for positions where
    /// the side to move cannot win at once.
    #[inline]
    pub(super) const fn non_losing_moves(&self) -> u64 {
        let mut possible = self.possible();
        let threats = self.opponent_winning();
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    /// An upper bound on the score when every column has an even number
    /// of empty cells: the opponent can answer each move in the same
    /// column and get every cell at an odd height, so the side to move
    /// cannot win (0) unless its stones and the empty cells at even heights
    /// hold a four, and loses (-1) if the opponent's and the odd ones do.
    /// `None` where the rule says nothing.
    #[inline]
    pub(super) fn claimeven_bound(&self) -> Option<i32> {
        const EVEN_H: u64 = 0b01_0101 * BOTTOM_MASK;
        let possible = self.possible();
        if possible & !EVEN_H != 0 {
            return None;
        }
        let empty = BOARD_MASK & !self.mask;
        let mine = self.current | (empty & EVEN_H);
        if has_four(mine) {
            return None;
        }
        let theirs = (self.current ^ self.mask) | (empty & !EVEN_H);
        Some(if has_four(theirs) { -1 } else { 0 })
    }

    /// How good a move to `cell` looks before searching it: the number of
    /// winning cells the side to move has after it.
    #[inline]
    pub(super) const fn move_score(&self, cell: u64) -> u32 {
        winning_cells(self.current | cell, self.mask).count_ones()
    }

    /// Whether every move lets the opponent win with its next stone (only
    /// for positions where the side to move cannot win at once): the score
    /// is then `-(42 - stones) / 2` without a search.
    #[must_use]
    pub const fn loses_next(&self) -> bool {
        self.non_losing_moves() == 0
    }

    /// The score when the side to move wins with its next stone.
    #[must_use]
    pub const fn win_next_score(&self) -> i32 {
        (CELLS + 1 - self.moves as i32) / 2
    }
}

/// The key of the mirror image of the position of `key` (columns reversed).
pub(super) const fn mirror(key: u64) -> u64 {
    let column = (1 << STRIDE) - 1;
    let mut out = 0;
    let mut col = 0;
    while col < WIDTH {
        out |= ((key >> (col * STRIDE)) & column) << ((WIDTH - 1 - col) * STRIDE);
        col += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_run_from_min_to_max() {
        assert_eq!((MIN_SCORE, MAX_SCORE), (-18, 18));
        assert_eq!(Position::new().win_next_score(), 21);
    }

    #[test]
    fn mirror_reverses_the_columns() {
        let a = Position::from_moves("1123").unwrap();
        let b = Position::from_moves("7765").unwrap();
        assert_eq!(mirror(a.key()), b.key());
        assert_eq!(mirror(mirror(a.key())), a.key());
        assert_eq!(a.book_key(), b.book_key());
        assert_ne!(a.key(), b.key());
        let c = Position::from_moves("1124").unwrap();
        assert_ne!(a.book_key(), c.book_key());
    }

    #[test]
    fn moves_parse_like_the_protocol() {
        assert_eq!(Position::from_moves("44").unwrap().moves(), 2);
        assert_eq!(Position::from_moves("48"), Err(MovesError::NotAColumn(1)));
        assert_eq!(
            Position::from_moves("4444444"),
            Err(MovesError::ColumnFull(6))
        );
        assert_eq!(
            Position::from_moves("1212121"),
            Err(MovesError::GameOver(6))
        );
    }
}
