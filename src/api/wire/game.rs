//! A game on the wire: its options, status, board, seats, threats and
//! versions, rendered from a game record; a seat just taken; a page of games.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{BotLevel, Kind, MoveBody, Side};
use crate::domain::{self, GameRecord};
use crate::rules::{AnyGame, GomokuRule, Player, Setup, ultimate::InnerStatus};
use crate::service;

/// A cell of a winning line (0-based, row 0 at the top).
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[schema(example = json!({"row": 5, "col": 3}))]
pub struct Coord {
    pub row: u8,
    pub col: u8,
}

/// The options of a game: grid size for every kind, `size` and `rule` for Gomoku.
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
#[schema(example = json!({"rows": 6, "columns": 7}))]
pub struct GameOptions {
    pub rows: u8,
    pub columns: u8,
    /// Gomoku only: the board's side.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub size: Option<u8>,
    /// Gomoku only: `freestyle` (five or more wins) or `standard` (exactly five).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rule: Option<Rule>,
}

/// A Gomoku rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    Freestyle,
    Standard,
}

impl From<GomokuRule> for Rule {
    fn from(r: GomokuRule) -> Rule {
        match r {
            GomokuRule::Freestyle => Rule::Freestyle,
            GomokuRule::Standard => Rule::Standard,
        }
    }
}

pub(super) fn options_of(setup: Setup, position: &AnyGame) -> GameOptions {
    let (rows, columns) = position.dims();
    match setup {
        Setup::Gomoku(o) => GameOptions {
            rows,
            columns,
            size: Some(o.size()),
            rule: Some(o.rule().into()),
        },
        _ => GameOptions {
            rows,
            columns,
            ..GameOptions::default()
        },
    }
}

/// Game status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Waiting,
    InProgress,
    Won,
    Draw,
}

impl From<domain::GameStatus> for Status {
    fn from(s: domain::GameStatus) -> Status {
        match s {
            domain::GameStatus::Waiting => Status::Waiting,
            domain::GameStatus::InProgress => Status::InProgress,
            domain::GameStatus::Won => Status::Won,
            domain::GameStatus::Draw => Status::Draw,
        }
    }
}

impl From<Status> for domain::GameStatus {
    fn from(s: Status) -> domain::GameStatus {
        match s {
            Status::Waiting => domain::GameStatus::Waiting,
            Status::InProgress => domain::GameStatus::InProgress,
            Status::Won => domain::GameStatus::Won,
            Status::Draw => domain::GameStatus::Draw,
        }
    }
}

/// How the round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Line,
    FullBoard,
    Resignation,
}

impl From<domain::EndReason> for EndReason {
    fn from(r: domain::EndReason) -> EndReason {
        match r {
            domain::EndReason::Line => EndReason::Line,
            domain::EndReason::FullBoard => EndReason::FullBoard,
            domain::EndReason::Resignation => EndReason::Resignation,
        }
    }
}

/// The state of an inner board of ultimate tic-tac-toe: `X`, `O`, `draw`, or null while open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum InnerBoard {
    X,
    O,
    #[serde(rename = "draw")]
    Draw,
}

/// Ultimate tic-tac-toe only: the inner boards and where the next move must go.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"boards": ["X", null, null, null, "draw", null, null, null, "O"], "active_board": 4}))]
pub struct UltimateState {
    /// Nine entries, row-major: who won each inner board, `draw`, or null while it is open.
    #[schema(min_items = 9, max_items = 9)]
    pub boards: Vec<Option<InnerBoard>>,
    /// The inner board (0..8) the side to move must play in; null when it may
    /// choose (first move, or sent to a finished board) or when the game is over.
    #[schema(required = true, maximum = 8)]
    pub active_board: Option<u8>,
}

/// Who sits in a seat.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatInfo {
    /// `human` or `bot`.
    #[serde(rename = "type")]
    pub seat_type: SeatType,
    /// Whether the seat is taken (always true for a bot).
    pub taken: bool,
    /// Bots only: the level.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub level: Option<BotLevel>,
}

/// The kind of seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatType {
    Human,
    Bot,
}

/// Both seats.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Seats {
    #[serde(rename = "X")]
    pub x: SeatInfo,
    #[serde(rename = "O")]
    pub o: SeatInfo,
}

fn seat_info(seat: &domain::Seat) -> SeatInfo {
    match *seat {
        domain::Seat::Human { token } => SeatInfo {
            seat_type: SeatType::Human,
            taken: token.is_some(),
            level: None,
        },
        domain::Seat::Bot { level, .. } => SeatInfo {
            seat_type: SeatType::Bot,
            taken: true,
            level: Some(level.into()),
        },
    }
}

/// A move that would win at once.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ThreatInfo {
    pub player: Side,
    #[serde(rename = "move")]
    pub mv: MoveBody,
}

/// A game: its position, status, seats and versions.
///
/// The fields that do not apply are null, not absent: `end_reason`, `winner`
/// and `winning_line` while the round is on, `turn` once it is over,
/// `ultimate` for kinds other than ultimate tic-tac-toe.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::game)]
pub struct Game {
    pub id: Uuid,
    pub kind: Kind,
    pub options: GameOptions,
    /// `waiting` while a seat is open, then `in_progress`, then `won` or `draw`.
    pub status: Status,
    /// How the round ended; null while it is on.
    #[schema(required = true)]
    pub end_reason: Option<EndReason>,
    /// The side to move; null when the round is over.
    #[schema(required = true)]
    pub turn: Option<Side>,
    /// The winner when `status` is `won`, else null.
    #[schema(required = true)]
    pub winner: Option<Side>,
    /// The cells of the winning line(s) (ultimate: cells of the outer 3x3
    /// board); null unless won by a line.
    #[schema(required = true)]
    pub winning_line: Option<Vec<Coord>>,
    /// One string per row, top row first: `.` empty, `X`, `O` (ultimate: the whole 9x9 grid).
    #[schema(example = json!(["...", ".X.", "..O"]))]
    pub board: Vec<String>,
    /// Ultimate tic-tac-toe only; null for the other kinds.
    #[schema(required = true)]
    pub ultimate: Option<UltimateState>,
    /// The moves the side to move may play; empty when the game is over.
    pub legal_moves: Vec<MoveBody>,
    /// Moves that would win at once, for either player; empty when the game is over.
    pub threats: Vec<ThreatInfo>,
    /// Rounds start at 1; a restart begins the next.
    pub round: u32,
    /// Moves played in this round.
    pub ply: u32,
    /// Grows by one on every change (move, join, restart, resign); the `ETag`.
    pub version: i64,
    pub seats: Seats,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&GameRecord> for Game {
    fn from(g: &GameRecord) -> Game {
        let (status, winner, end_reason) = g.outcome();
        let over = g.is_over();
        let position = &g.position;
        let winning_line = (end_reason == Some(domain::EndReason::Line)).then(|| {
            position
                .winning_line()
                .into_iter()
                .map(|c| Coord {
                    row: c.row,
                    col: c.col,
                })
                .collect()
        });
        let ultimate = position.as_ultimate().map(|u| UltimateState {
            boards: (0..9)
                .map(|b| match u.board_status(b) {
                    InnerStatus::Open => None,
                    InnerStatus::Won(Player::X) => Some(InnerBoard::X),
                    InnerStatus::Won(Player::O) => Some(InnerBoard::O),
                    InnerStatus::Drawn => Some(InnerBoard::Draw),
                })
                .collect(),
            active_board: if over { None } else { u.active_board() },
        });
        let (legal_moves, threats) = if over {
            (Vec::new(), Vec::new())
        } else {
            (
                position
                    .legal_moves()
                    .into_iter()
                    .map(|m| m.input().into())
                    .collect(),
                position
                    .threats()
                    .into_iter()
                    .map(|t| ThreatInfo {
                        player: t.player.into(),
                        mv: t.mv.input().into(),
                    })
                    .collect(),
            )
        };
        Game {
            id: g.id,
            kind: g.kind().into(),
            options: options_of(position.setup(), position),
            status: status.into(),
            end_reason: end_reason.map(Into::into),
            turn: (!over).then(|| position.to_move().into()),
            winner: winner.map(Into::into),
            winning_line,
            board: position.board_rows(),
            ultimate,
            legal_moves,
            threats,
            round: g.round,
            ply: position.ply(),
            version: g.version,
            seats: Seats {
                x: seat_info(g.seat(Player::X)),
                o: seat_info(g.seat(Player::O)),
            },
            created_at: g.created_at,
            updated_at: g.updated_at,
        }
    }
}

/// A seat just taken, with its token (shown only this once).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::seat_grant)]
pub struct SeatGrant {
    pub game: Game,
    /// The seat the caller now holds.
    pub seat: Side,
    /// The seat's secret: send it as `Authorization: Bearer <token>`. Only its hash is stored.
    #[schema(example = "9f2c4e0b7d3a51c8e6f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3")]
    pub token: String,
}

impl From<&service::SeatTaken> for SeatGrant {
    fn from(s: &service::SeatTaken) -> SeatGrant {
        SeatGrant {
            game: (&s.game).into(),
            seat: s.seat.into(),
            token: s.token.clone(),
        }
    }
}

/// A page of games, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::game_page)]
pub struct GamePage {
    pub items: Vec<Game>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}
