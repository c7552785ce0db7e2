//! Moves on the wire: the three shapes of a move, their parsing with errors
//! that name what is wrong, and the records of played moves.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::game::Game;
use super::{Side, integral};
use crate::domain::MoveRecord;
use crate::rules::{GameKind, MoveInput, MoveParseError, Refusal};
use crate::service;

/// A tic-tac-toe or Gomoku move: a cell, 0-based, row 0 at the top
/// (tic-tac-toe 0..2; Gomoku 0..size-1, 0..14 by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"row": 1, "col": 1}))]
pub struct CellMove {
    /// 0 is the top row.
    #[schema(minimum = 0, maximum = 24)]
    pub row: i64,
    /// 0 is the left column.
    #[schema(minimum = 0, maximum = 24)]
    pub col: i64,
}

/// A Connect Four move: the column to drop a disc in, 0..6 from the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"column": 3}))]
pub struct ColumnMove {
    #[schema(minimum = 0, maximum = 6)]
    pub column: i64,
}

/// An ultimate tic-tac-toe move: the inner board and the cell in it, both
/// 0..8 row-major (0 top-left, 4 centre, 8 bottom-right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"board": 4, "cell": 0}))]
pub struct BoardCellMove {
    /// Must be the game's `ultimate.active_board` unless that is null.
    #[schema(minimum = 0, maximum = 8)]
    pub board: i64,
    #[schema(minimum = 0, maximum = 8)]
    pub cell: i64,
}

/// A move; its shape depends on the game's kind: `{"row", "col"}` for
/// `tic_tac_toe` and `gomoku`, `{"column"}` for `connect_four`, `{"board",
/// "cell"}` for `ultimate_tic_tac_toe`. A move of another kind's shape is
/// refused with 400 `malformed_request`; a move of the right shape that the
/// position does not allow, with 422 `illegal_move`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(example = json!({"column": 3}))]
pub enum MoveBody {
    Cell(CellMove),
    Column(ColumnMove),
    BoardCell(BoardCellMove),
}

impl From<MoveInput> for MoveBody {
    fn from(m: MoveInput) -> MoveBody {
        match m {
            MoveInput::Cell { row, col } => MoveBody::Cell(CellMove { row, col }),
            MoveInput::Column { column } => MoveBody::Column(ColumnMove { column }),
            MoveInput::BoardCell { board, cell } => {
                MoveBody::BoardCell(BoardCellMove { board, cell })
            }
        }
    }
}

impl From<MoveBody> for MoveInput {
    fn from(m: MoveBody) -> MoveInput {
        match m {
            MoveBody::Cell(CellMove { row, col }) => MoveInput::Cell { row, col },
            MoveBody::Column(ColumnMove { column }) => MoveInput::Column { column },
            MoveBody::BoardCell(BoardCellMove { board, cell }) => {
                MoveInput::BoardCell { board, cell }
            }
        }
    }
}

/// The fields of each move shape, as `MoveBody` names them.
const CELL: &[&str] = &["row", "col"];
const COLUMN: &[&str] = &["column"];
const BOARD_CELL: &[&str] = &["board", "cell"];

/// The fields of `kind`'s moves.
fn shape_of(kind: GameKind) -> &'static [&'static str] {
    match kind {
        GameKind::TicTacToe | GameKind::Gomoku => CELL,
        GameKind::ConnectFour => COLUMN,
        GameKind::UltimateTicTacToe => BOARD_CELL,
    }
}

/// A move body that is no move. What to say depends on the game's kind,
/// which the body does not name: [`BadMove::detail`] says it once the kind
/// is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadMove {
    /// The body's fields.
    fields: Vec<String>,
    /// The shape the fields are exactly (`None`: none of them), and what is
    /// wrong with a value.
    shape: Option<(&'static [&'static str], String)>,
}

impl BadMove {
    /// The `detail` for a game of `kind`: the wrong value when the fields
    /// are that kind's, else the field that is wrong and the kind's shape
    /// (as `MoveParseError::WrongShape` says it for a whole move of another
    /// kind).
    #[must_use]
    pub fn detail(&self, kind: GameKind) -> String {
        let want = shape_of(kind);
        if let Some((shape, problem)) = &self.shape
            && *shape == want
        {
            return problem.clone();
        }
        let unknown = self.fields.iter().find(|f| !want.contains(&f.as_str()));
        let missing = want.iter().find(|w| !self.fields.iter().any(|f| f == *w));
        let wrong = match (unknown, missing) {
            (Some(field), _) => format!("unknown field `{field}`: "),
            (None, Some(field)) => format!("missing field `{field}`: "),
            (None, None) => String::new(),
        };
        format!("{wrong}{}", MoveParseError::WrongShape { kind })
    }
}

/// Parses a move body, a JSON object's `fields`: exactly the fields of one
/// of the three shapes, each an integer.
///
/// # Errors
/// A [`BadMove`], which says what is wrong once the game's kind is known.
pub fn parse_move(fields: &Map<String, Value>) -> Result<MoveInput, BadMove> {
    let shape = [CELL, COLUMN, BOARD_CELL]
        .into_iter()
        .find(|s| s.len() == fields.len() && s.iter().all(|f| fields.contains_key(*f)));
    let Some(shape) = shape else {
        return Err(BadMove {
            fields: fields.keys().cloned().collect(),
            shape: None,
        });
    };
    let field = |name: &str| -> Result<i64, BadMove> {
        let v = fields.get(name).unwrap_or(&Value::Null);
        integral::as_i64(v).ok_or_else(|| BadMove {
            fields: fields.keys().cloned().collect(),
            shape: Some((shape, format!("`{name}` must be an integer, got {v}"))),
        })
    };
    Ok(if shape == COLUMN {
        MoveInput::Column {
            column: field("column")?,
        }
    } else if shape == BOARD_CELL {
        MoveInput::BoardCell {
            board: field("board")?,
            cell: field("cell")?,
        }
    } else {
        MoveInput::Cell {
            row: field("row")?,
            col: field("col")?,
        }
    })
}

/// The `detail` of an illegal move.
#[must_use]
pub fn refusal_detail(refusal: Refusal, input: MoveInput) -> String {
    let what = match input {
        MoveInput::Cell { row, col } => format!("cell ({row}, {col})"),
        MoveInput::Column { column } => format!("column {column}"),
        MoveInput::BoardCell { board, cell } => format!("board {board} cell {cell}"),
    };
    match refusal {
        Refusal::Occupied => format!("{what} is already taken"),
        Refusal::ColumnFull => format!("{what} is full"),
        Refusal::OutOfBounds => format!("{what} is outside the board"),
        Refusal::WrongBoard => format!("{what}: the move must be played in the active board"),
        Refusal::BoardFinished => format!("{what}: that inner board is already finished"),
        Refusal::GameOver => "the game is over".into(),
    }
}

/// A played move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::move_record)]
pub struct MoveRecordView {
    /// The round it was played in (1 for the first).
    pub round: u32,
    /// 1 for the first move of a round.
    pub ply: u32,
    /// Who played it.
    pub player: Side,
    #[serde(rename = "move")]
    pub mv: MoveBody,
    /// When it was played.
    #[serde(serialize_with = "super::stamp::time")]
    pub at: DateTime<Utc>,
}

impl From<&MoveRecord> for MoveRecordView {
    fn from(m: &MoveRecord) -> MoveRecordView {
        MoveRecordView {
            round: m.round,
            ply: m.ply,
            player: m.player.into(),
            mv: m.mv.into(),
            at: m.at,
        }
    }
}

/// The answer to an accepted move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::move_response)]
pub struct MoveResponse {
    /// The move just played.
    #[serde(rename = "move")]
    pub mv: MoveRecordView,
    /// The game after the move and any bot replies.
    pub game: Game,
    /// Moves a bot opponent played in reply, in order.
    pub replies: Vec<MoveRecordView>,
}

impl From<&service::Played> for MoveResponse {
    fn from(p: &service::Played) -> MoveResponse {
        MoveResponse {
            mv: (&p.mv).into(),
            game: (&p.game).into(),
            replies: p.replies.iter().map(Into::into).collect(),
        }
    }
}

/// A round's moves, in the order they were played.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::move_list)]
pub struct MoveList {
    pub items: Vec<MoveRecordView>,
}
