//! The closed set of games: a kind discriminant and an enum that forwards to
//! each game, so the rest of the service never matches on game-name strings.

use std::fmt;
use std::str::FromStr;

use super::connect_four::{Column, ConnectFour};
use super::gomoku::{Gomoku, GomokuOptions, Point};
use super::tic_tac_toe::{Cell, TicTacToe};
use super::ultimate::{self, Ultimate};
use super::{Coord, DecodeError, Game, Player, Refusal, Status, Threat};

/// Which game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    TicTacToe,
    ConnectFour,
    Gomoku,
    UltimateTicTacToe,
}

impl GameKind {
    pub const ALL: [GameKind; 4] = [
        GameKind::TicTacToe,
        GameKind::ConnectFour,
        GameKind::Gomoku,
        GameKind::UltimateTicTacToe,
    ];

    /// The API (and database) name: `tic_tac_toe`, `connect_four`, …
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameKind::TicTacToe => "tic_tac_toe",
            GameKind::ConnectFour => "connect_four",
            GameKind::Gomoku => "gomoku",
            GameKind::UltimateTicTacToe => "ultimate_tic_tac_toe",
        }
    }

    /// The shape of this kind's moves, for error messages.
    #[must_use]
    pub const fn move_shape(self) -> &'static str {
        match self {
            GameKind::TicTacToe | GameKind::Gomoku => r#"{"row": r, "col": c}"#,
            GameKind::ConnectFour => r#"{"column": c}"#,
            GameKind::UltimateTicTacToe => r#"{"board": b, "cell": c}"#,
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown kind name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game kind `{0}`")]
pub struct UnknownKind(pub String);

impl FromStr for GameKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

/// A kind together with its validated options: everything needed to start a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    TicTacToe,
    ConnectFour,
    Gomoku(GomokuOptions),
    UltimateTicTacToe,
}

impl Setup {
    #[must_use]
    pub const fn kind(self) -> GameKind {
        match self {
            Setup::TicTacToe => GameKind::TicTacToe,
            Setup::ConnectFour => GameKind::ConnectFour,
            Setup::Gomoku(_) => GameKind::Gomoku,
            Setup::UltimateTicTacToe => GameKind::UltimateTicTacToe,
        }
    }

    /// The default setup of a kind.
    #[must_use]
    pub fn default_for(kind: GameKind) -> Setup {
        match kind {
            GameKind::TicTacToe => Setup::TicTacToe,
            GameKind::ConnectFour => Setup::ConnectFour,
            GameKind::Gomoku => Setup::Gomoku(GomokuOptions::default()),
            GameKind::UltimateTicTacToe => Setup::UltimateTicTacToe,
        }
    }
}

/// A move as it arrives, before it is checked against a position: one of the
/// three shapes, with unchecked numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveInput {
    Cell { row: i64, col: i64 },
    Column { column: i64 },
    BoardCell { board: i64, cell: i64 },
}

/// Why a [`MoveInput`] is not a move of this game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    /// The input has another kind's shape.
    #[error("a {kind} move looks like {}", kind.move_shape())]
    WrongShape { kind: GameKind },
    /// The input has the right shape but may not be played.
    #[error(transparent)]
    Refused(Refusal),
}

/// A move of one of the games, already range-checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyMove {
    TicTacToe(Cell),
    ConnectFour(Column),
    Gomoku(Point),
    UltimateTicTacToe(ultimate::Move),
}

impl AnyMove {
    /// The move in its wire shape.
    #[must_use]
    pub fn input(self) -> MoveInput {
        match self {
            AnyMove::TicTacToe(c) => MoveInput::Cell {
                row: c.row().into(),
                col: c.col().into(),
            },
            AnyMove::ConnectFour(c) => MoveInput::Column {
                column: c.index().into(),
            },
            AnyMove::Gomoku(p) => MoveInput::Cell {
                row: p.row().into(),
                col: p.col().into(),
            },
            AnyMove::UltimateTicTacToe(m) => MoveInput::BoardCell {
                board: m.board().into(),
                cell: m.cell().into(),
            },
        }
    }
}

/// A position of any of the games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyGame {
    TicTacToe(TicTacToe),
    ConnectFour(ConnectFour),
    Gomoku(Gomoku),
    UltimateTicTacToe(Ultimate),
}

/// Runs `$body` with `$g` bound to the inner game, whatever its type.
macro_rules! dispatch {
    ($self:expr, $g:ident => $body:expr) => {
        match $self {
            AnyGame::TicTacToe($g) => $body,
            AnyGame::ConnectFour($g) => $body,
            AnyGame::Gomoku($g) => $body,
            AnyGame::UltimateTicTacToe($g) => $body,
        }
    };
}

/// Runs `$body` with `$g` the inner game and `$wrap` the matching [`AnyMove`]
/// constructor.
macro_rules! dispatch_moves {
    ($self:expr, $g:ident, $wrap:ident => $body:expr) => {
        match $self {
            AnyGame::TicTacToe($g) => {
                let $wrap = AnyMove::TicTacToe;
                $body
            }
            AnyGame::ConnectFour($g) => {
                let $wrap = AnyMove::ConnectFour;
                $body
            }
            AnyGame::Gomoku($g) => {
                let $wrap = AnyMove::Gomoku;
                $body
            }
            AnyGame::UltimateTicTacToe($g) => {
                let $wrap = AnyMove::UltimateTicTacToe;
                $body
            }
        }
    };
}

impl AnyGame {
    /// The empty board of a setup.
    #[must_use]
    pub fn new(setup: Setup) -> AnyGame {
        match setup {
            Setup::TicTacToe => AnyGame::TicTacToe(TicTacToe::new()),
            Setup::ConnectFour => AnyGame::ConnectFour(ConnectFour::new()),
            Setup::Gomoku(options) => AnyGame::Gomoku(Gomoku::new(options)),
            Setup::UltimateTicTacToe => AnyGame::UltimateTicTacToe(Ultimate::new()),
        }
    }

    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.setup().kind()
    }

    /// The kind and options this position was started with.
    #[must_use]
    pub fn setup(&self) -> Setup {
        match self {
            AnyGame::TicTacToe(_) => Setup::TicTacToe,
            AnyGame::ConnectFour(_) => Setup::ConnectFour,
            AnyGame::Gomoku(g) => Setup::Gomoku(g.options()),
            AnyGame::UltimateTicTacToe(_) => Setup::UltimateTicTacToe,
        }
    }

    /// Turns wire input into a move of this game.
    ///
    /// # Errors
    /// [`MoveParseError::WrongShape`] for another kind's shape,
    /// [`Refusal::OutOfBounds`] for numbers off the board.
    pub fn parse_move(&self, input: MoveInput) -> Result<AnyMove, MoveParseError> {
        let wrong = MoveParseError::WrongShape { kind: self.kind() };
        let parsed = match (self, input) {
            (AnyGame::TicTacToe(_), MoveInput::Cell { row, col }) => {
                Cell::new(row, col).map(AnyMove::TicTacToe)
            }
            (AnyGame::ConnectFour(_), MoveInput::Column { column }) => {
                Column::new(column).map(AnyMove::ConnectFour)
            }
            (AnyGame::Gomoku(g), MoveInput::Cell { row, col }) => {
                g.point(row, col).map(AnyMove::Gomoku)
            }
            (AnyGame::UltimateTicTacToe(_), MoveInput::BoardCell { board, cell }) => {
                ultimate::Move::new(board, cell).map(AnyMove::UltimateTicTacToe)
            }
            _ => return Err(wrong),
        };
        parsed.map_err(MoveParseError::Refused)
    }

    /// Why `m` may not be played now.
    ///
    /// # Errors
    /// The refusal; a move of another kind is refused as out of bounds.
    pub fn check(&self, m: AnyMove) -> Result<(), Refusal> {
        match (self, m) {
            (AnyGame::TicTacToe(g), AnyMove::TicTacToe(m)) => g.check(m),
            (AnyGame::ConnectFour(g), AnyMove::ConnectFour(m)) => g.check(m),
            (AnyGame::Gomoku(g), AnyMove::Gomoku(m)) => g.check(m),
            (AnyGame::UltimateTicTacToe(g), AnyMove::UltimateTicTacToe(m)) => g.check(m),
            _ => Err(Refusal::OutOfBounds),
        }
    }

    /// Plays `m`; on refusal the position is left exactly as it was.
    ///
    /// # Errors
    /// The refusal; a move of another kind is refused as out of bounds.
    pub fn try_play(&mut self, m: AnyMove) -> Result<(), Refusal> {
        match (self, m) {
            (AnyGame::TicTacToe(g), AnyMove::TicTacToe(m)) => g.try_play(m),
            (AnyGame::ConnectFour(g), AnyMove::ConnectFour(m)) => g.try_play(m),
            (AnyGame::Gomoku(g), AnyMove::Gomoku(m)) => g.try_play(m),
            (AnyGame::UltimateTicTacToe(g), AnyMove::UltimateTicTacToe(m)) => g.try_play(m),
            _ => Err(Refusal::OutOfBounds),
        }
    }

    /// Parses and plays wire input in one step.
    ///
    /// # Errors
    /// As [`AnyGame::parse_move`] and [`AnyGame::try_play`].
    pub fn play_input(&mut self, input: MoveInput) -> Result<AnyMove, MoveParseError> {
        let m = self.parse_move(input)?;
        self.try_play(m).map_err(MoveParseError::Refused)?;
        Ok(m)
    }

    #[must_use]
    pub fn to_move(&self) -> Player {
        dispatch!(self, g => g.to_move())
    }

    #[must_use]
    pub fn ply(&self) -> u32 {
        dispatch!(self, g => g.ply())
    }

    #[must_use]
    pub fn winner(&self) -> Option<Player> {
        dispatch!(self, g => g.winner())
    }

    #[must_use]
    pub fn is_over(&self) -> bool {
        dispatch!(self, g => g.is_over())
    }

    #[must_use]
    pub fn status(&self) -> Status {
        dispatch!(self, g => g.status())
    }

    #[must_use]
    pub fn winning_line(&self) -> Vec<Coord> {
        dispatch!(self, g => g.winning_line())
    }

    #[must_use]
    pub fn legal_moves(&self) -> Vec<AnyMove> {
        dispatch_moves!(self, g, wrap => g.legal_moves().into_iter().map(wrap).collect())
    }

    #[must_use]
    pub fn threats(&self) -> Vec<Threat<AnyMove>> {
        dispatch_moves!(self, g, wrap => g
            .threats()
            .into_iter()
            .map(|t| Threat { player: t.player, mv: wrap(t.mv) })
            .collect())
    }

    /// The snapshot bytes (the kind is stored beside them).
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        dispatch!(self, g => g.encode())
    }

    /// A position of `kind` back from its snapshot.
    ///
    /// # Errors
    /// [`DecodeError`] when the bytes are not a consistent position.
    pub fn decode(kind: GameKind, bytes: &[u8]) -> Result<AnyGame, DecodeError> {
        Ok(match kind {
            GameKind::TicTacToe => AnyGame::TicTacToe(TicTacToe::decode(bytes)?),
            GameKind::ConnectFour => AnyGame::ConnectFour(ConnectFour::decode(bytes)?),
            GameKind::Gomoku => AnyGame::Gomoku(Gomoku::decode(bytes)?),
            GameKind::UltimateTicTacToe => AnyGame::UltimateTicTacToe(Ultimate::decode(bytes)?),
        })
    }

    /// Rows and columns of the displayed grid.
    #[must_use]
    pub fn dims(&self) -> (u8, u8) {
        dispatch!(self, g => g.dims())
    }

    /// The grid as one string per row, top row first: `.`, `X` or `O`.
    #[must_use]
    pub fn board_rows(&self) -> Vec<String> {
        dispatch!(self, g => {
            let (rows, cols) = g.dims();
            (0..rows)
                .map(|r| {
                    (0..cols)
                        .map(|c| g.cell_at(r, c).map_or('.', Player::symbol))
                        .collect()
                })
                .collect()
        })
    }

    /// The ultimate position, when this is one.
    #[must_use]
    pub fn as_ultimate(&self) -> Option<&Ultimate> {
        match self {
            AnyGame::UltimateTicTacToe(g) => Some(g),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in GameKind::ALL {
            assert_eq!(kind.as_str().parse::<GameKind>(), Ok(kind));
        }
        assert!("chess".parse::<GameKind>().is_err());
    }

    #[test]
    fn a_move_of_another_shape_is_refused_as_wrong_shape() {
        let game = AnyGame::new(Setup::ConnectFour);
        assert_eq!(
            game.parse_move(MoveInput::Cell { row: 0, col: 0 }),
            Err(MoveParseError::WrongShape {
                kind: GameKind::ConnectFour
            })
        );
    }

    #[test]
    fn every_kind_plays_its_first_legal_move_and_round_trips() {
        for kind in GameKind::ALL {
            let mut game = AnyGame::new(Setup::default_for(kind));
            let first = game.legal_moves()[0];
            let played = game.play_input(first.input()).expect("first legal move");
            assert_eq!(played, first);
            assert_eq!(game.ply(), 1);
            assert_eq!(game.to_move(), Player::O);
            let back = AnyGame::decode(kind, &game.encode()).expect("decode");
            assert_eq!(back, game);
            assert!(game.board_rows().concat().contains('X'));
        }
    }
}
