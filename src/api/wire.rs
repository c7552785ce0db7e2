//! Wire types: what goes over HTTP, with serde and OpenAPI schemas, and the
//! conversions from domain records. Requests are parsed here into domain
//! values (`MoveBody` → `MoveInput`, `CreateGame` → `NewGame`).

use actix_web::http::header::HeaderValue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::ai::{self, Level};
use crate::domain::{self as store, GameRecord, MoveRecord};
use crate::rules::{
    AnyGame, GameKind, GomokuOptions, GomokuRule, MoveInput, Player, Refusal, Setup, gomoku,
    ultimate::InnerStatus,
};
use crate::service::{self, Opponent};

/// The ETag of a version: `"<version>"`.
#[must_use]
pub fn etag(version: i64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{version}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// A game's version in double quotes, as sent in `ETag` and expected back in
/// `If-Match`.
#[derive(ToSchema)]
#[schema(pattern = r#"^"[0-9]+"$"#, example = "\"14\"")]
pub struct ETag(pub String);

/// A game's URL, as sent in `Location`.
#[derive(ToSchema)]
#[schema(
    pattern = "^/v1/games/[0-9a-f-]{36}$",
    example = "/v1/games/3f0c8a56-7a4e-4f7e-9d55-2b8f0c1d9e10"
)]
pub struct GameUrl(pub String);

/// `true`: the stored answer to an earlier request with the same `Idempotency-Key`.
#[derive(ToSchema)]
#[schema(pattern = "^true$", example = "true")]
pub struct Replayed(pub String);

/// A game kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    TicTacToe,
    ConnectFour,
    Gomoku,
    UltimateTicTacToe,
}

impl From<Kind> for GameKind {
    fn from(k: Kind) -> GameKind {
        match k {
            Kind::TicTacToe => GameKind::TicTacToe,
            Kind::ConnectFour => GameKind::ConnectFour,
            Kind::Gomoku => GameKind::Gomoku,
            Kind::UltimateTicTacToe => GameKind::UltimateTicTacToe,
        }
    }
}

impl From<GameKind> for Kind {
    fn from(k: GameKind) -> Kind {
        match k {
            GameKind::TicTacToe => Kind::TicTacToe,
            GameKind::ConnectFour => Kind::ConnectFour,
            GameKind::Gomoku => Kind::Gomoku,
            GameKind::UltimateTicTacToe => Kind::UltimateTicTacToe,
        }
    }
}

/// A seat (and player): X moves first in every round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Side {
    X,
    O,
}

impl From<Player> for Side {
    fn from(p: Player) -> Side {
        match p {
            Player::X => Side::X,
            Player::O => Side::O,
        }
    }
}

impl From<Side> for Player {
    fn from(s: Side) -> Player {
        match s {
            Side::X => Player::X,
            Side::O => Player::O,
        }
    }
}

/// A bot's strength, from `random` (any legal move) to `perfect` (a solver;
/// not available for every kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    Random,
    Easy,
    Medium,
    Hard,
    Perfect,
}

impl From<BotLevel> for Level {
    fn from(l: BotLevel) -> Level {
        match l {
            BotLevel::Random => Level::Random,
            BotLevel::Easy => Level::Easy,
            BotLevel::Medium => Level::Medium,
            BotLevel::Hard => Level::Hard,
            BotLevel::Perfect => Level::Perfect,
        }
    }
}

impl From<Level> for BotLevel {
    fn from(l: Level) -> BotLevel {
        match l {
            Level::Random => BotLevel::Random,
            Level::Easy => BotLevel::Easy,
            Level::Medium => BotLevel::Medium,
            Level::Hard => BotLevel::Hard,
            Level::Perfect => BotLevel::Perfect,
        }
    }
}

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

/// Parses a move body with errors that name what is wrong (serde's untagged
/// errors do not).
///
/// # Errors
/// A message for a 400 `malformed_request`.
pub fn parse_move(body: &[u8]) -> Result<MoveInput, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(map) = &value else {
        return Err("a move is a JSON object".into());
    };
    let shape: &[&str] = if map.contains_key("column") {
        &["column"]
    } else if map.contains_key("board") || map.contains_key("cell") {
        &["board", "cell"]
    } else {
        &["row", "col"]
    };
    if let Some(extra) = map.keys().find(|k| !shape.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{extra}`: a move is {{\"row\", \"col\"}}, {{\"column\"}} or {{\"board\", \"cell\"}}"
        ));
    }
    let field = |name: &str| -> Result<i64, String> {
        match map.get(name) {
            None => Err(format!("missing field `{name}`")),
            Some(v) => {
                integral::as_i64(v).ok_or_else(|| format!("`{name}` must be an integer, got {v}"))
            }
        }
    };
    Ok(match shape {
        ["column"] => MoveInput::Column {
            column: field("column")?,
        },
        ["board", "cell"] => MoveInput::BoardCell {
            board: field("board")?,
            cell: field("cell")?,
        },
        _ => MoveInput::Cell {
            row: field("row")?,
            col: field("col")?,
        },
    })
}

/// Integers as JSON Schema's `integer` has them: `3` and also `3.0` (a
/// number with no fractional part), which serde's integer types refuse.
mod integral {
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    /// An `i64` from an integer or an integral float in range.
    #[must_use]
    pub fn as_i64(v: &Value) -> Option<i64> {
        v.as_i64().or_else(|| {
            // Every integral f64 in (-2^63, 2^63) converts exactly.
            const LIMIT: f64 = 9_223_372_036_854_775_808.0;
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && (-LIMIT..LIMIT).contains(f))
                .map(|f| f as i64)
        })
    }

    fn as_u64(v: &Value) -> Option<u64> {
        v.as_u64().or_else(|| {
            const LIMIT: f64 = 18_446_744_073_709_551_616.0;
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && (0.0..LIMIT).contains(f))
                .map(|f| f as u64)
        })
    }

    pub fn option_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_i64(&v)
                .map(Some)
                .ok_or_else(|| D::Error::custom(format!("expected an integer, got {v}"))),
        }
    }

    pub fn option_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_u64(&v).map(Some).ok_or_else(|| {
                D::Error::custom(format!("expected a non-negative integer, got {v}"))
            }),
        }
    }
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

fn options_of(setup: Setup, position: &AnyGame) -> GameOptions {
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

impl From<store::GameStatus> for Status {
    fn from(s: store::GameStatus) -> Status {
        match s {
            store::GameStatus::Waiting => Status::Waiting,
            store::GameStatus::InProgress => Status::InProgress,
            store::GameStatus::Won => Status::Won,
            store::GameStatus::Draw => Status::Draw,
        }
    }
}

impl From<Status> for store::GameStatus {
    fn from(s: Status) -> store::GameStatus {
        match s {
            Status::Waiting => store::GameStatus::Waiting,
            Status::InProgress => store::GameStatus::InProgress,
            Status::Won => store::GameStatus::Won,
            Status::Draw => store::GameStatus::Draw,
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

impl From<store::EndReason> for EndReason {
    fn from(r: store::EndReason) -> EndReason {
        match r {
            store::EndReason::Line => EndReason::Line,
            store::EndReason::FullBoard => EndReason::FullBoard,
            store::EndReason::Resignation => EndReason::Resignation,
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

fn seat_info(seat: &store::Seat) -> SeatInfo {
    match *seat {
        store::Seat::Human { token } => SeatInfo {
            seat_type: SeatType::Human,
            taken: token.is_some(),
            level: None,
        },
        store::Seat::Bot { level, .. } => SeatInfo {
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
#[schema(example = super::examples::game)]
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
        let winning_line = (end_reason == Some(store::EndReason::Line)).then(|| {
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

/// A played move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = super::examples::move_record)]
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
#[schema(example = super::examples::move_response)]
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

/// A seat just taken, with its token (shown only this once).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = super::examples::seat_grant)]
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
#[schema(example = super::examples::game_page)]
pub struct GamePage {
    pub items: Vec<Game>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// A round's moves, in the order they were played.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = super::examples::move_list)]
pub struct MoveList {
    pub items: Vec<MoveRecordView>,
}

/// Gomoku options at creation.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"size": 15, "rule": "freestyle"}))]
pub struct CreateOptions {
    /// Must equal the kind's grid if given.
    #[serde(default, deserialize_with = "integral::option_i64")]
    pub rows: Option<i64>,
    /// Must equal the kind's grid if given.
    #[serde(default, deserialize_with = "integral::option_i64")]
    pub columns: Option<i64>,
    /// Gomoku only: the board's side, 5 to 25, default 15.
    #[serde(default, deserialize_with = "integral::option_i64")]
    #[schema(minimum = 5, maximum = 25)]
    pub size: Option<i64>,
    /// Gomoku only: `freestyle` (five or more in a row win, the default) or
    /// `standard` (exactly five).
    #[schema(value_type = Option<Rule>)]
    pub rule: Option<String>,
}

/// The other seat of a new game: `{"type": "human"}` (the default) or
/// `{"type": "bot", "level": …, "seed": …}`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpponentRequest {
    /// A person who joins with `POST /v1/games/{id}/join`. (A struct variant:
    /// serde ignores `deny_unknown_fields` on a unit variant.)
    Human {},
    /// A server bot that plays its turns itself.
    Bot {
        level: BotLevel,
        /// Same seed, same position → same move. Random when omitted.
        #[serde(default, deserialize_with = "integral::option_u64")]
        seed: Option<u64>,
    },
}

/// Written by hand: the derive neither closes the variants
/// (`additionalProperties: false`, as `deny_unknown_fields` does) nor lets a
/// `u64` reach past `int64`.
impl utoipa::PartialSchema for OpponentRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{
            AdditionalProperties, ObjectBuilder, OneOfBuilder, SchemaType, Type,
        };
        let tag = |value: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([value.to_owned()]))
        };
        let human = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("A person who joins with `POST /v1/games/{id}/join`."))
            .property("type", tag("human"))
            .required("type")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        let bot = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("A server bot that plays its turns itself."))
            .property("type", tag("bot"))
            .property("level", utoipa::openapi::Ref::from_schema_name("BotLevel"))
            .property(
                "seed",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                    .minimum(Some(0))
                    .maximum(Some(u64::MAX))
                    .description(Some(
                        "Same seed, same position → same move. Random when omitted.",
                    )),
            )
            .required("type")
            .required("level")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        OneOfBuilder::new()
            .item(human)
            .item(bot)
            .description(Some(
                "The other seat of a new game: a person who joins later, or a server bot.",
            ))
            .examples([json!({"type": "bot", "level": "easy", "seed": 7})])
            .into()
    }
}

impl ToSchema for OpponentRequest {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            <BotLevel as ToSchema>::name().into_owned(),
            <BotLevel as utoipa::PartialSchema>::schema(),
        ));
    }
}

/// A new game. Only `kind` is required.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "connect_four", "options": {}, "seat": "X", "opponent": {"type": "human"}, "hotseat": false}))]
pub struct CreateGame {
    pub kind: Kind,
    /// Gomoku: `{"size": 15, "rule": "freestyle"}`; other kinds take none.
    #[serde(default)]
    pub options: Option<CreateOptions>,
    /// The creator's seat, default `X`.
    #[serde(default)]
    pub seat: Option<Side>,
    /// Default: a human who joins later.
    #[serde(default)]
    pub opponent: Option<OpponentRequest>,
    /// One token plays both seats (not with a bot).
    #[serde(default)]
    pub hotseat: bool,
}

impl CreateGame {
    /// The validated request.
    ///
    /// # Errors
    /// `InvalidOption` for options out of range or not of this kind.
    pub fn into_new_game(self) -> Result<service::NewGame, service::ServiceError> {
        let invalid = |m: String| service::ServiceError::InvalidOption(m);
        let kind: GameKind = self.kind.into();
        let o = self.options.unwrap_or_default();
        let setup = if kind == GameKind::Gomoku {
            let rule = match o.rule.as_deref() {
                None => GomokuRule::Freestyle,
                Some(r) => GomokuRule::parse(r).ok_or_else(|| {
                    invalid(format!("rule must be `freestyle` or `standard`, got `{r}`"))
                })?,
            };
            let size = o.size.unwrap_or(i64::from(gomoku::DEFAULT_SIZE));
            Setup::Gomoku(GomokuOptions::new(size, rule).map_err(|e| invalid(e.to_string()))?)
        } else {
            if o.size.is_some() || o.rule.is_some() {
                return Err(invalid(format!(
                    "`size` and `rule` are Gomoku options; {kind} takes none"
                )));
            }
            Setup::default_for(kind)
        };
        let (rows, columns) = AnyGame::new(setup).dims();
        for (name, given, actual) in [("rows", o.rows, rows), ("columns", o.columns, columns)] {
            if given.is_some_and(|g| g != i64::from(actual)) {
                return Err(invalid(format!("{kind} has {actual} {name}")));
            }
        }
        let opponent = match self.opponent.unwrap_or(OpponentRequest::Human {}) {
            OpponentRequest::Human {} => Opponent::Human,
            OpponentRequest::Bot { level, seed } => Opponent::Bot {
                level: level.into(),
                seed: seed.unwrap_or_else(rand::random),
            },
        };
        Ok(service::NewGame {
            setup,
            seat: self.seat.map_or(Player::X, Into::into),
            opponent,
            hotseat: self.hotseat,
        })
    }
}

/// An optional body that carries nothing: send no body or `{}`. Fields are
/// ignored.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(example = json!({}))]
pub struct EmptyBody {}

/// Ask the server to play one move for the side to move.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"level": "easy"}))]
pub struct BotMoveRequest {
    /// Default `medium`.
    #[serde(default)]
    pub level: Option<BotLevel>,
}

/// The query of a game listing.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only games of this kind.
    pub kind: Option<Kind>,
    /// Only games with this status.
    pub status: Option<Status>,
    /// `true`: only games with a free seat; `false`: only games without.
    pub open: Option<bool>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
}

/// Which round.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RoundQuery {
    /// The round (default: the current one).
    #[param(minimum = 1)]
    pub round: Option<u32>,
}

/// Which hint.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HintQuery {
    /// The bot level that suggests the move (default `medium`).
    pub level: Option<BotLevel>,
}

/// A proven result, from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProvenOutcome {
    Win,
    Loss,
    Draw,
}

/// How good the position is for the side to move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"score": 1000, "outcome": "win", "plies": 1}))]
pub struct EvaluationView {
    /// Positive is good for the side to move; the scale depends on the level.
    pub score: i32,
    /// Where the search proved the result: `win`, `loss` or `draw`; null when it did not.
    #[schema(required = true)]
    pub outcome: Option<ProvenOutcome>,
    /// With `outcome`: in how many plies; else null.
    #[schema(required = true)]
    pub plies: Option<u32>,
}

/// A suggested move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = super::examples::hint)]
pub struct HintView {
    #[serde(rename = "move")]
    pub mv: MoveBody,
    pub level: BotLevel,
    pub evaluation: EvaluationView,
}

impl From<&service::Hint> for HintView {
    fn from(h: &service::Hint) -> HintView {
        let e = h.suggestion.evaluation;
        HintView {
            mv: h.suggestion.mv.input().into(),
            level: h.level.into(),
            evaluation: EvaluationView {
                score: e.score,
                outcome: e.proven.map(|(o, _)| match o {
                    ai::Outcome::Win => ProvenOutcome::Win,
                    ai::Outcome::Loss => ProvenOutcome::Loss,
                    ai::Outcome::Draw => ProvenOutcome::Draw,
                }),
                plies: e.proven.map(|(_, p)| p),
            },
        }
    }
}

/// A range option of a kind.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RangeOption {
    pub min: u8,
    pub max: u8,
    pub default: u8,
}

/// A choice option of a kind.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChoiceOption {
    pub values: Vec<Rule>,
    pub default: Rule,
}

/// The options a kind takes at creation (Gomoku: `size` and `rule`; the
/// other kinds: none).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct KindOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub size: Option<RangeOption>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rule: Option<ChoiceOption>,
}

/// The shape of a kind's moves.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveShape {
    /// `{"row", "col"}`
    Cell,
    /// `{"column"}`
    Column,
    /// `{"board", "cell"}`
    BoardCell,
}

/// A kind of game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct KindInfo {
    pub kind: Kind,
    /// Grid size with default options.
    pub rows: u8,
    pub columns: u8,
    /// Stones in a row that win (ultimate: three inner boards in a row).
    pub win_length: u8,
    #[serde(rename = "move")]
    pub move_shape: MoveShape,
    pub options: KindOptions,
    /// The default options, as a game reports them.
    pub defaults: GameOptions,
}

/// The kinds of game.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = super::examples::kind_list)]
pub struct KindList {
    pub items: Vec<KindInfo>,
}

impl KindList {
    #[must_use]
    pub fn all() -> KindList {
        let items = GameKind::ALL
            .into_iter()
            .map(|kind| {
                let setup = Setup::default_for(kind);
                let position = AnyGame::new(setup);
                let (rows, columns) = position.dims();
                let (win_length, move_shape) = match kind {
                    GameKind::TicTacToe => (3, MoveShape::Cell),
                    GameKind::ConnectFour => (4, MoveShape::Column),
                    GameKind::Gomoku => (5, MoveShape::Cell),
                    GameKind::UltimateTicTacToe => (3, MoveShape::BoardCell),
                };
                let options = if kind == GameKind::Gomoku {
                    KindOptions {
                        size: Some(RangeOption {
                            min: gomoku::MIN_SIZE,
                            max: gomoku::MAX_SIZE,
                            default: gomoku::DEFAULT_SIZE,
                        }),
                        rule: Some(ChoiceOption {
                            values: vec![Rule::Freestyle, Rule::Standard],
                            default: Rule::Freestyle,
                        }),
                    }
                } else {
                    KindOptions {
                        size: None,
                        rule: None,
                    }
                };
                KindInfo {
                    kind: kind.into(),
                    rows,
                    columns,
                    win_length,
                    move_shape,
                    options,
                    defaults: options_of(setup, &position),
                }
            })
            .collect();
        KindList { items }
    }
}
