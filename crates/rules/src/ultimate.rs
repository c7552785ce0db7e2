//! Ultimate tic-tac-toe: nine tic-tac-toe boards in a 3x3 outer board
//! (docs/rules.md, "Ultimate tic-tac-toe").
//!
//! Each player's stones are nine 9-bit masks, one per inner board (bit `cell`
//! of entry `board`, both numbered row-major as in [`lines3`](super::lines3)).
//! The outer board is three 9-bit masks: boards won by X, won by O, and drawn
//! (full without a line). An inner board stops at its first line and the game
//! at its first outer line, so after a move any new line runs through it: one
//! lookup in the line table for the inner board, and one for the outer board
//! if the inner board was won. The outcome is stored in the position.

use super::lines3::{FULL, has_line, line_cells};
use super::{Coord, DecodeError, Game, Player, Refusal, Threat};

/// Length of a snapshot: 18 masks of two bytes, then the active board.
const SNAPSHOT_LEN: usize = 2 * 2 * 9 + 1;

/// The snapshot byte for "no active board".
const NO_BOARD: u8 = u8::MAX;

/// A move: an inner board and a cell of it, both 0..8 row-major.
///
/// Only in-range moves can be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    board: u8,
    cell: u8,
}

impl Move {
    /// The move in cell `cell` of inner board `board`.
    ///
    /// # Errors
    /// [`Refusal::OutOfBounds`] unless both numbers are between 0 and 8.
    pub fn new(board: i64, cell: i64) -> Result<Move, Refusal> {
        let nine = |n: i64| u8::try_from(n).ok().filter(|&n| n < 9);
        match (nine(board), nine(cell)) {
            (Some(board), Some(cell)) => Ok(Move { board, cell }),
            _ => Err(Refusal::OutOfBounds),
        }
    }

    /// The inner board, 0..8 row-major.
    #[must_use]
    pub const fn board(self) -> u8 {
        self.board
    }

    /// The cell of the inner board, 0..8 row-major.
    #[must_use]
    pub const fn cell(self) -> u8 {
        self.cell
    }
}

/// Where an inner board stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InnerStatus {
    /// Not finished: its empty cells may still be played.
    Open,
    /// A player made a line on it; the outer cell is theirs.
    Won(Player),
    /// Full without a line; it belongs to nobody.
    Drawn,
}

/// An ultimate tic-tac-toe position.
///
/// Invariants: stone masks hold only bits 0..8 and the players' masks of a
/// board never overlap; `won` and `drawn` are exactly the boards with a line
/// of that player, and the full boards without one; `ply` is the number of
/// stones; `winner` is the player with an outer line; `active` is the board
/// the side to move must play in, `None` when they may choose (first move, or
/// sent to a finished board) and whenever the game is over.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Ultimate {
    /// Stones per player ([`Player::index`]) and inner board.
    stones: [[u16; 9]; 2],
    /// Outer board: inner boards won, per player.
    won: [u16; 2],
    /// Outer board: inner boards drawn.
    drawn: u16,
    active: Option<u8>,
    ply: u8,
    winner: Option<Player>,
}

impl Ultimate {
    /// The empty position, X to move anywhere.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The inner board the side to move must play in; `None` when any
    /// unfinished board may be chosen, and when the game is over.
    #[must_use]
    pub fn active_board(&self) -> Option<u8> {
        self.active
    }

    /// Whether inner board `board` (0..8) is open, won or drawn. A number
    /// outside 0..8 names no board and reads as [`InnerStatus::Open`].
    #[must_use]
    pub fn board_status(&self, board: u8) -> InnerStatus {
        if board >= 9 {
            return InnerStatus::Open;
        }
        let bit = 1 << board;
        if let Some(p) = Player::BOTH
            .into_iter()
            .find(|p| self.won[p.index()] & bit != 0)
        {
            InnerStatus::Won(p)
        } else if self.drawn & bit != 0 {
            InnerStatus::Drawn
        } else {
            InnerStatus::Open
        }
    }

    /// The stone on `m`'s cell, if any.
    #[must_use]
    pub fn stone(&self, m: Move) -> Option<Player> {
        let bit = 1 << m.cell;
        Player::BOTH
            .into_iter()
            .find(|p| self.stones[p.index()][usize::from(m.board)] & bit != 0)
    }

    /// The finished inner boards (won or drawn) as a 9-bit mask.
    const fn finished(&self) -> u16 {
        self.won[0] | self.won[1] | self.drawn
    }

    /// The empty cells of inner board `board` as a 9-bit mask.
    const fn empty(&self, board: usize) -> u16 {
        !(self.stones[0][board] | self.stones[1][board]) & FULL
    }

    /// The boards the side to move may play in, as a 9-bit mask (0 when the
    /// game is over).
    fn playable_boards(&self) -> u16 {
        if self.is_over() {
            0
        } else {
            match self.active {
                Some(a) => 1 << a,
                None => !self.finished() & FULL,
            }
        }
    }

    /// `player`'s moves in the boards of `boards` that would win the game at
    /// once, appended to `out` in (board, cell) order.
    fn push_winning_moves(&self, player: Player, boards: u16, out: &mut Vec<Threat<Move>>) {
        let won = self.won[player.index()];
        let own = &self.stones[player.index()];
        for board in bits(boards & !self.finished()) {
            let b = usize::from(board);
            if !has_line(won | 1 << board) {
                continue;
            }
            for cell in bits(self.empty(b)) {
                if has_line(own[b] | 1 << cell) {
                    out.push(Threat {
                        player,
                        mv: Move { board, cell },
                    });
                }
            }
        }
    }
}

/// The set bits of a 9-bit mask, lowest first.
fn bits(mask: u16) -> impl Iterator<Item = u8> {
    (0..9u8).filter(move |i| mask >> i & 1 == 1)
}

impl Game for Ultimate {
    type Move = Move;

    fn to_move(&self) -> Player {
        Player::at_ply(self.ply())
    }

    fn ply(&self) -> u32 {
        self.ply.into()
    }

    fn winner(&self) -> Option<Player> {
        self.winner
    }

    fn is_over(&self) -> bool {
        self.winner.is_some() || self.finished() == FULL
    }

    /// The outer cells of every complete line of won boards, row-major.
    fn winning_line(&self) -> Vec<Coord> {
        match self.winner {
            Some(p) => bits(line_cells(self.won[p.index()]))
                .map(|b| Coord::new(b / 3, b % 3))
                .collect(),
            None => Vec::new(),
        }
    }

    /// Checks game over, then `wrong_board` (another board is active), then
    /// `board_finished`, then `occupied`.
    fn check(&self, m: Move) -> Result<(), Refusal> {
        if self.is_over() {
            return Err(Refusal::GameOver);
        }
        if self.active.is_some_and(|a| a != m.board) {
            return Err(Refusal::WrongBoard);
        }
        if self.finished() & 1 << m.board != 0 {
            return Err(Refusal::BoardFinished);
        }
        if self.empty(usize::from(m.board)) & 1 << m.cell == 0 {
            return Err(Refusal::Occupied);
        }
        Ok(())
    }

    fn play_unchecked(&mut self, m: Move) {
        let player = self.to_move();
        let (b, board_bit) = (usize::from(m.board), 1 << m.board);
        let own = &mut self.stones[player.index()][b];
        *own |= 1 << m.cell;
        if has_line(*own) {
            let won = &mut self.won[player.index()];
            *won |= board_bit;
            if has_line(*won) {
                self.winner = Some(player);
            }
        } else if self.empty(b) == 0 {
            self.drawn |= board_bit;
        }
        self.ply = self.ply.saturating_add(1);
        self.active = if self.is_over() || self.finished() & 1 << m.cell != 0 {
            None
        } else {
            Some(m.cell)
        };
    }

    /// Board by board, cell by cell (both row-major).
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        for board in bits(self.playable_boards()) {
            for cell in bits(self.empty(usize::from(board))) {
                out.push(Move { board, cell });
            }
        }
    }

    /// The side to move's legal game-winning moves, then the other player's
    /// game-winning moves in any unfinished board (ignoring the active board).
    fn threats(&self) -> Vec<Threat<Move>> {
        let mut out = Vec::new();
        if self.is_over() {
            return out;
        }
        let me = self.to_move();
        self.push_winning_moves(me, self.playable_boards(), &mut out);
        self.push_winning_moves(me.other(), FULL, &mut out);
        out
    }

    /// Layout: X's nine board masks, then O's, each a little-endian `u16`;
    /// then the active board (255 for none). The ply, the outer board and the
    /// winner are derived.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(SNAPSHOT_LEN);
        for mask in self.stones.iter().flatten() {
            out.extend_from_slice(&mask.to_le_bytes());
        }
        out.push(self.active.unwrap_or(NO_BOARD));
        out
    }

    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() != SNAPSHOT_LEN {
            return Err(DecodeError("ultimate snapshot must be 37 bytes"));
        }
        let mut stones = [[0u16; 9]; 2];
        for (mask, pair) in stones.iter_mut().flatten().zip(bytes.chunks_exact(2)) {
            *mask = u16::from_le_bytes([pair[0], pair[1]]);
        }
        let active = match bytes[SNAPSHOT_LEN - 1] {
            NO_BOARD => None,
            a if a < 9 => Some(a),
            _ => return Err(DecodeError("ultimate active board out of range")),
        };

        let mut won = [0u16; 2];
        let mut drawn = 0u16;
        for (b, (&x, &o)) in stones[0].iter().zip(&stones[1]).enumerate() {
            if (x | o) & !FULL != 0 {
                return Err(DecodeError("ultimate stone outside its board"));
            }
            if x & o != 0 {
                return Err(DecodeError("ultimate stones overlap"));
            }
            match (has_line(x), has_line(o)) {
                (true, true) => {
                    return Err(DecodeError(
                        "ultimate inner board with lines of both players",
                    ));
                }
                (true, false) => won[0] |= 1 << b,
                (false, true) => won[1] |= 1 << b,
                (false, false) if x | o == FULL => drawn |= 1 << b,
                (false, false) => {}
            }
            for (p, mask) in [(0, x), (1, o)] {
                if won[p] & 1 << b != 0 && !made_by_one_move(mask) {
                    return Err(DecodeError("ultimate inner board won twice over"));
                }
            }
        }

        let [nx, no] = stones.map(|masks| masks.iter().map(|m| m.count_ones()).sum::<u32>());
        if nx != no && nx != no + 1 {
            return Err(DecodeError("ultimate stone counts do not alternate"));
        }
        let ply = u8::try_from(nx + no).map_err(|_| DecodeError("ultimate too many stones"))?;
        let last_mover = Player::at_ply(u32::from(ply) + 1);

        let winner = match (has_line(won[0]), has_line(won[1])) {
            (true, true) => return Err(DecodeError("ultimate: both players have an outer line")),
            (true, false) => Some(Player::X),
            (false, true) => Some(Player::O),
            (false, false) => None,
        };
        if let Some(w) = winner {
            if w != last_mover {
                return Err(DecodeError("ultimate: play went on after the game was won"));
            }
            if !made_by_one_move(won[w.index()]) {
                return Err(DecodeError("ultimate: outer board won twice over"));
            }
        }

        let position = Ultimate {
            stones,
            won,
            drawn,
            active,
            ply,
            winner,
        };
        // The active board follows from the last move, which is not stored;
        // check what can be checked: the last mover has a stone on a cell
        // that sends to the active board, or (with no active board) on a
        // cell that sends to a finished board.
        let last_cells = stones[last_mover.index()]
            .iter()
            .fold(0, |acc, &mask| acc | mask);
        let consistent = if position.is_over() {
            active.is_none()
        } else {
            match active {
                Some(a) => position.finished() & 1 << a == 0 && last_cells & 1 << a != 0,
                None => ply == 0 || last_cells & position.finished() != 0,
            }
        };
        if !consistent {
            return Err(DecodeError(
                "ultimate active board does not fit the position",
            ));
        }
        Ok(position)
    }

    fn dims(&self) -> (u8, u8) {
        (9, 9)
    }

    /// Grid row `r`, column `c` is cell `(r % 3) * 3 + c % 3` of board
    /// `(r / 3) * 3 + c / 3`.
    fn cell_at(&self, row: u8, col: u8) -> Option<Player> {
        if row >= 9 || col >= 9 {
            return None;
        }
        self.stone(Move {
            board: (row / 3) * 3 + col / 3,
            cell: (row % 3) * 3 + col % 3,
        })
    }
}

/// Whether the lines in `mask` (a 3x3 mask with at least one line) can all
/// have been completed by one last stone: some stone lies on all of them.
fn made_by_one_move(mask: u16) -> bool {
    bits(mask).any(|i| !has_line(mask & !(1 << i)))
}
