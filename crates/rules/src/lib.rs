//! Pure game logic: the four k-in-a-row games and the types they share.
//!
//! Nothing here does I/O or knows about HTTP, the database or async runtimes
//! (no actix, sqlx, tokio or `serde_json`; its manifest has none of them): a position is a value, a move either
//! gives a new position or a typed [`Refusal`] and leaves the old one as it was.
//!
//! Each game lives in its own file and implements [`Game`]; the service
//! dispatches over the closed set of games with [`AnyGame`].
//!
//! The rules themselves, edge cases included, are written down in
//! `docs/rules.md`; each game module names its section there.

mod any_game;
pub mod connect_four;
pub mod gomoku;
pub mod lines3;
pub mod notation;
pub mod tic_tac_toe;
pub mod ultimate;

use std::fmt;
use std::hash::Hash;

pub use any_game::{AnyGame, AnyMove, GameKind, MoveInput, MoveParseError, Setup};
pub use gomoku::{GomokuOptions, GomokuRule, OptionError};

/// One of the two sides. X moves first in every round of every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    X,
    O,
}

impl Player {
    /// Both players, X first.
    pub const BOTH: [Player; 2] = [Player::X, Player::O];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// 0 for X, 1 for O: an index into per-player arrays.
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Player::X => 0,
            Player::O => 1,
        }
    }

    /// `'X'` or `'O'`.
    #[must_use]
    pub const fn symbol(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }

    /// The player who moves at `ply` (0-based) of a round: X on even plies.
    #[must_use]
    pub const fn at_ply(ply: u32) -> Player {
        if ply.is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// A cell of a board in row/column coordinates, row 0 at the top.
///
/// Used for winning lines; for ultimate tic-tac-toe these are cells of the
/// 3x3 outer board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    pub row: u8,
    pub col: u8,
}

impl Coord {
    #[must_use]
    pub const fn new(row: u8, col: u8) -> Coord {
        Coord { row, col }
    }
}

/// Where a round stands: exactly one of in progress, won or drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    InProgress {
        to_move: Player,
    },
    /// `line` holds every cell of every winning line (row-major order).
    Won {
        winner: Player,
        line: Vec<Coord>,
    },
    /// No move left and nobody won.
    Draw,
}

impl Status {
    #[must_use]
    pub fn is_over(&self) -> bool {
        !matches!(self, Status::InProgress { .. })
    }
}

/// Why a move was refused. Each maps one to one onto an API `reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Refusal {
    #[error("the cell is already taken")]
    Occupied,
    #[error("the column is full")]
    ColumnFull,
    #[error("the move is outside the board")]
    OutOfBounds,
    #[error("the move must be played in the active board")]
    WrongBoard,
    #[error("that inner board is already finished")]
    BoardFinished,
    #[error("the game is over")]
    GameOver,
}

impl Refusal {
    /// The API's `reason` string.
    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            Refusal::Occupied => "occupied",
            Refusal::ColumnFull => "column_full",
            Refusal::OutOfBounds => "out_of_bounds",
            Refusal::WrongBoard => "wrong_board",
            Refusal::BoardFinished => "board_finished",
            Refusal::GameOver => "game_over",
        }
    }
}

/// A refused move together with the untouched position it was tried on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayError<G> {
    pub refusal: Refusal,
    pub position: G,
}

/// A move that wins at once for `player` (see docs/rules.md, "Threats").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Threat<M> {
    pub player: Player,
    pub mv: M,
}

/// A stored snapshot that does not describe a reachable position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid snapshot: {0}")]
pub struct DecodeError(pub &'static str);

/// The rules of one game.
///
/// Implementations provide the required methods; the provided ones
/// (`play`, `try_play`, `legal_moves`, `is_legal`, `status`) are final and are
/// not overridden.
pub trait Game: Clone + fmt::Debug + PartialEq + Eq {
    /// A move that is in range for this game (out-of-range input is refused
    /// with [`Refusal::OutOfBounds`] when the move is built).
    type Move: Copy + fmt::Debug + PartialEq + Eq + Hash;

    /// The side to move (once the game is over: the side that would move).
    fn to_move(&self) -> Player;
    /// Moves played so far in this round.
    fn ply(&self) -> u32;
    /// The winner, if a line has been made.
    fn winner(&self) -> Option<Player>;
    /// Won, or no move left.
    fn is_over(&self) -> bool;
    /// Every cell of every winning line, row-major; empty unless won.
    fn winning_line(&self) -> Vec<Coord>;

    /// Why `m` may not be played now, if it may not.
    ///
    /// # Errors
    /// The refusal, checked in this order: game over, then the
    /// game-specific reasons.
    fn check(&self, m: Self::Move) -> Result<(), Refusal>;
    /// Plays a move that [`Game::check`] accepted. For trusted callers (bots,
    /// replays of stored moves already checked); an unchecked illegal move
    /// leaves an unspecified but memory-safe position.
    fn play_unchecked(&mut self, m: Self::Move);
    /// Clears `out` and fills it with the legal moves, in a stable order
    /// (row-major / left to right).
    fn legal_moves_into(&self, out: &mut Vec<Self::Move>);
    /// Moves that win at once: the side to move's legal winning moves first,
    /// then the other side's. Empty when the game is over.
    fn threats(&self) -> Vec<Threat<Self::Move>>;

    /// A compact encoding of the position (for the store).
    fn encode(&self) -> Vec<u8>;
    /// The position back from [`Game::encode`], validated.
    ///
    /// # Errors
    /// [`DecodeError`] when the bytes are not a consistent position.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError>;

    /// Rows and columns of the displayed grid (ultimate: 9x9).
    fn dims(&self) -> (u8, u8);
    /// The stone at a displayed grid cell.
    fn cell_at(&self, row: u8, col: u8) -> Option<Player>;

    /* FINAL: the methods below are not overridden. */

    /// Plays `m`, or gives back the refusal with the position unchanged.
    ///
    /// # Errors
    /// [`PlayError`] with the refusal and the untouched position.
    fn play(mut self, m: Self::Move) -> Result<Self, PlayError<Self>> {
        match self.check(m) {
            Ok(()) => {
                self.play_unchecked(m);
                Ok(self)
            }
            Err(refusal) => Err(PlayError {
                refusal,
                position: self,
            }),
        }
    }

    /// Plays `m` in place; on refusal the position is left exactly as it was.
    ///
    /// # Errors
    /// The [`Refusal`].
    fn try_play(&mut self, m: Self::Move) -> Result<(), Refusal> {
        self.check(m)?;
        self.play_unchecked(m);
        Ok(())
    }

    /// The legal moves in a fresh vector.
    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut out = Vec::new();
        self.legal_moves_into(&mut out);
        out
    }

    /// Whether `m` may be played now.
    fn is_legal(&self, m: Self::Move) -> bool {
        self.check(m).is_ok()
    }

    /// The status: in progress (whose turn), won (winner and line) or draw.
    fn status(&self) -> Status {
        match self.winner() {
            Some(winner) => Status::Won {
                winner,
                line: self.winning_line(),
            },
            None if self.is_over() => Status::Draw,
            None => Status::InProgress {
                to_move: self.to_move(),
            },
        }
    }
}
