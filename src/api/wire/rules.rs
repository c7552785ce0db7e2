//! Rules as a service on the wire: a position from a line, a batch of them,
//! and a line's analysis.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::create::{CreateOptions, setup_of};
use super::game::{Shown, options_of};
use super::{
    AnalysisView, BotLevel, Coord, GameOptions, Kind, MoveBody, Side, Status, ThreatInfo,
    UltimateState,
};
use crate::api::error::Problem;
use crate::rules::notation::Line;
use crate::rules::{AnyGame, Setup};
use crate::service::ServiceError;

/// A position's line and the options of its kind, as query parameters.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PositionQuery {
    /// The moves from the start, in the kind's notation (`4453`, `h8 i9`);
    /// absent or empty: the start position.
    pub moves: Option<String>,
    /// Gomoku only: the board's side, 5 to 25 (default 15).
    #[param(minimum = 5, maximum = 25)]
    pub size: Option<i64>,
    /// Gomoku only: `freestyle` (the default) or `standard`.
    #[param(value_type = Option<super::Rule>)]
    pub rule: Option<String>,
}

impl PositionQuery {
    /// The kind's setup and the line read on it.
    ///
    /// # Errors
    /// `InvalidOption`, `IllegalLine`.
    pub fn line(self, kind: Kind) -> Result<Line, ServiceError> {
        let setup = setup_from(kind, self.size, self.rule)?;
        crate::service::rules::position(setup, self.moves.as_deref().unwrap_or(""))
    }
}

/// A line's analysis: the line, the options, the level and the work.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LineAnalysisQuery {
    /// The moves from the start, in the kind's notation; absent or empty:
    /// the start position.
    pub moves: Option<String>,
    /// Gomoku only: the board's side, 5 to 25 (default 15).
    #[param(minimum = 5, maximum = 25)]
    pub size: Option<i64>,
    /// Gomoku only: `freestyle` (the default) or `standard`.
    #[param(value_type = Option<super::Rule>)]
    pub rule: Option<String>,
    /// The bot level whose search evaluates the moves (default `medium`).
    pub level: Option<BotLevel>,
    /// The search's work: alpha-beta nodes (playouts in ultimate
    /// tic-tac-toe; tic-tac-toe is solved outright), shared by the moves;
    /// default: what one bot move does; at most `--max-analysis-work`
    /// (2,000,000 by default). The same request gets the same answer.
    #[param(minimum = 1)]
    pub work: Option<u64>,
}

impl LineAnalysisQuery {
    /// The line it names.
    ///
    /// # Errors
    /// `InvalidOption`, `IllegalLine`.
    pub fn line(&self, kind: Kind) -> Result<Line, ServiceError> {
        let setup = setup_from(kind, self.size, self.rule.clone())?;
        crate::service::rules::position(setup, self.moves.as_deref().unwrap_or(""))
    }
}

/// A setup from query options (as create takes them in `options`).
fn setup_from(kind: Kind, size: Option<i64>, rule: Option<String>) -> Result<Setup, ServiceError> {
    setup_of(
        kind,
        Some(CreateOptions {
            size,
            rule,
            ..CreateOptions::default()
        }),
    )
}

/// Lines of one kind to read at once.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"lines": ["4453", "", "4444444"]}))]
pub struct PositionBatch {
    /// The kind's options, as at create (Gomoku: `size`, `rule`).
    pub options: Option<CreateOptions>,
    /// Up to 100 lines, each in the kind's notation.
    pub lines: Vec<String>,
}

impl PositionBatch {
    /// The kind's setup.
    ///
    /// # Errors
    /// `InvalidOption`.
    pub fn setup(&self, kind: Kind) -> Result<Setup, ServiceError> {
        setup_of(kind, self.options.clone())
    }
}

/// A position of a kind, read from a line: each field as in a Game (those
/// that do not apply are null, not absent).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "kind": "connect_four", "options": {"rows": 6, "columns": 7}, "moves": "4453", "ply": 4,
    "turn": "X", "status": "in_progress", "winner": null, "winning_line": null,
    "board": [".......", ".......", ".......", ".......", "...O...", "..OXX.."],
    "ultimate": null,
    "legal_moves": [{"column": 0}, {"column": 1}, {"column": 2}, {"column": 3}, {"column": 4}, {"column": 5}, {"column": 6}],
    "threats": []
}))]
pub struct Position {
    pub kind: Kind,
    pub options: GameOptions,
    /// The line, as the kind's notation writes it.
    pub moves: String,
    /// Moves played.
    pub ply: u32,
    /// The side to move; null when the game is over.
    #[schema(required = true)]
    pub turn: Option<Side>,
    /// `in_progress`, `won` or `draw`.
    pub status: Status,
    /// The winner when `status` is `won`, else null.
    #[schema(required = true)]
    pub winner: Option<Side>,
    /// The cells of the winning line(s); null unless won.
    #[schema(required = true)]
    pub winning_line: Option<Vec<Coord>>,
    /// One string per row, top row first: `.` empty, `X`, `O`.
    pub board: Vec<String>,
    /// Ultimate tic-tac-toe only; null for the other kinds.
    #[schema(required = true)]
    pub ultimate: Option<UltimateState>,
    /// The moves the side to move may play; empty when the game is over.
    pub legal_moves: Vec<MoveBody>,
    /// Moves that would win at once, for either player; empty when the game is over.
    pub threats: Vec<ThreatInfo>,
}

impl From<&Line> for Position {
    fn from(line: &Line) -> Position {
        let position: &AnyGame = line.position();
        let over = position.is_over();
        let winner = position.winner();
        let shown = Shown::of(position, over, winner.is_some());
        Position {
            kind: position.kind().into(),
            options: options_of(position.setup(), position),
            moves: line.text(),
            ply: position.ply(),
            turn: (!over).then(|| position.to_move().into()),
            status: match (over, winner) {
                (false, _) => Status::InProgress,
                (true, Some(_)) => Status::Won,
                (true, None) => Status::Draw,
            },
            winner: winner.map(Into::into),
            winning_line: shown.winning_line,
            board: position.board_rows(),
            ultimate: shown.ultimate,
            legal_moves: shown.legal_moves,
            threats: shown.threats,
        }
    }
}

/// One line's answer in a batch: its position, or why it was refused.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum PositionItem {
    Position(Box<Position>),
    Problem(Box<Problem>),
}

/// A batch's answers, one per line, in order.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::position_list)]
pub struct PositionList {
    pub items: Vec<PositionItem>,
}

/// A line's analysis: the position, and every legal move evaluated.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::line_analysis)]
pub struct LineAnalysis {
    pub position: Position,
    #[serde(flatten)]
    pub analysis: AnalysisView,
    /// True when the search reached the service's time cap (a minute)
    /// before its `work` was done: the moves not searched by then are
    /// unknown, and a repeat may answer otherwise. False (the rule): the
    /// work alone bounded it, and the same request gets the same answer.
    pub stopped_on_time: bool,
}
