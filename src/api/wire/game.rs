//! A game on the wire: its options, status, board, seats, threats and
//! versions, rendered from a game record; a seat just taken; a page of games.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{BotLevel, Kind, MoveBody, RatingChangeView, Side};
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
    /// The loser's clock ran out.
    Timeout,
    /// A draw both seats agreed.
    Agreement,
    /// The round counts for nothing (`status` `draw`, no winner, no rating
    /// change): a side let its first-move deadline pass, or the round ended
    /// before each side had moved by a claim or, rated, by resignation, time
    /// or agreement.
    Aborted,
    /// Without a clock, the side to move was gone for the claim delay and
    /// the other seat claimed the round (`POST /claim`): won or drawn.
    Abandoned,
    /// A tournament game whose side to move missed its first-move deadline:
    /// it loses (`winner` the other side), the game counted as not played.
    Forfeit,
}

impl From<domain::EndReason> for EndReason {
    fn from(r: domain::EndReason) -> EndReason {
        match r {
            domain::EndReason::Line => EndReason::Line,
            domain::EndReason::FullBoard => EndReason::FullBoard,
            domain::EndReason::Resignation => EndReason::Resignation,
            domain::EndReason::Timeout => EndReason::Timeout,
            domain::EndReason::Agreement => EndReason::Agreement,
            domain::EndReason::Aborted => EndReason::Aborted,
            domain::EndReason::Abandoned => EndReason::Abandoned,
            domain::EndReason::Forfeit => EndReason::Forfeit,
        }
    }
}

/// A tournament game's tournament and round.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct TournamentRef {
    pub id: Uuid,
    pub round: u32,
}

/// Who may see and join a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed by `GET /v1/games`; anyone may join.
    Public,
    /// Not listed; joining needs the invite code.
    Private,
}

/// What an offer proposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OfferType {
    /// The offering seat's last move, and any reply after it, leave the round.
    Takeback,
    /// The round ends drawn (`end_reason` `agreement`).
    Draw,
    /// A new round begins.
    Restart,
    /// After a round: a new game of the same terms, seats swapped
    /// (`POST /v1/games/{id}/rematch` makes and accepts it).
    Rematch,
}

impl From<domain::OfferKind> for OfferType {
    fn from(k: domain::OfferKind) -> OfferType {
        match k {
            domain::OfferKind::Takeback => OfferType::Takeback,
            domain::OfferKind::Draw => OfferType::Draw,
            domain::OfferKind::Restart => OfferType::Restart,
            domain::OfferKind::Rematch => OfferType::Rematch,
        }
    }
}

impl From<OfferType> for domain::OfferKind {
    fn from(k: OfferType) -> domain::OfferKind {
        match k {
            OfferType::Takeback => domain::OfferKind::Takeback,
            OfferType::Draw => domain::OfferKind::Draw,
            OfferType::Restart => domain::OfferKind::Restart,
            OfferType::Rematch => domain::OfferKind::Rematch,
        }
    }
}

/// A pending offer.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"type": "draw", "by": "X", "at": "2026-11-23T10:00:00Z"}))]
pub struct OfferView {
    #[serde(rename = "type")]
    pub offer_type: OfferType,
    /// The seat that made it; the other seat answers.
    pub by: Side,
    #[serde(serialize_with = "super::stamp::time")]
    pub at: DateTime<Utc>,
}

/// One side's time.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SideClock {
    /// Time left (per-move clocks: for the current move while it runs), in
    /// milliseconds, as of the answer.
    pub remaining_ms: i64,
}

/// A round's clock.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"X": {"remaining_ms": 287_500}, "O": {"remaining_ms": 300_000}, "running": "X", "deadline": "2026-11-23T10:04:47.500Z", "first_move_deadline": null, "initial_ms": 300_000, "increment_ms": 2000}))]
pub struct ClockView {
    #[serde(rename = "X")]
    pub x: SideClock,
    #[serde(rename = "O")]
    pub o: SideClock,
    /// The side whose time runs (the side to move, once both seats are
    /// taken); null while stopped.
    #[schema(required = true)]
    pub running: Option<Side>,
    /// When the running side's time runs out (or, during a first move,
    /// its first-move deadline); null while stopped.
    #[schema(required = true)]
    #[serde(serialize_with = "super::stamp::option")]
    pub deadline: Option<DateTime<Utc>>,
    /// Between people, neither side's clock runs before that side's first
    /// move of the round: the side to move must make it by this time, or
    /// the round ends `aborted`. Null otherwise.
    #[schema(required = true)]
    #[serde(serialize_with = "super::stamp::option")]
    pub first_move_deadline: Option<DateTime<Utc>>,
    /// Fischer clocks: each side's budget at the start of a round.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub initial_ms: Option<i64>,
    /// Fischer clocks: added after each of a side's moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub increment_ms: Option<i64>,
    /// Per-move clocks: the time for each move.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub per_move_ms: Option<i64>,
}

fn clock_view(g: &GameRecord) -> Option<ClockView> {
    let clock = g.clock?;
    let running = g.time_running();
    let side = |p: Player| SideClock {
        remaining_ms: clock.remaining_at(p, running, g.as_of),
    };
    let (initial_ms, increment_ms, per_move_ms) = match clock.control {
        domain::TimeControl::Fischer {
            initial_ms,
            increment_ms,
        } => (Some(initial_ms), Some(increment_ms), None),
        domain::TimeControl::PerMove { per_move_ms } => (None, None, Some(per_move_ms)),
    };
    Some(ClockView {
        x: side(Player::X),
        o: side(Player::O),
        running: running.map(Into::into),
        deadline: g.deadline().filter(|_| clock.since.is_some()),
        first_move_deadline: g.first_move_deadline(),
        initial_ms,
        increment_ms,
        per_move_ms,
    })
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
    /// The name the seat's holder gave at create or join (a player's name
    /// by default); null when none.
    #[schema(required = true, example = "Ann")]
    pub name: Option<String>,
    /// The id of the player who holds the seat (taken with a player's key
    /// or sign-in); null when none.
    #[schema(required = true, example = json!(null))]
    pub player: Option<String>,
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

fn seat_info(g: &GameRecord, p: Player) -> SeatInfo {
    let name = g.names[p.index()].clone();
    let player = g.players.of(p).map(|sp| sp.id.clone());
    match *g.seat(p) {
        domain::Seat::Human { token } => SeatInfo {
            seat_type: SeatType::Human,
            taken: token.is_some(),
            level: None,
            name,
            player,
        },
        domain::Seat::Bot { level, .. } => SeatInfo {
            seat_type: SeatType::Bot,
            taken: true,
            level: Some(level.into()),
            name,
            player,
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
    /// `public` (listed, anyone may join) or `private` (invite code).
    pub visibility: Visibility,
    /// The pending offer (takeback, draw, restart); null when none.
    #[schema(required = true)]
    pub offer: Option<OfferView>,
    /// The round's clock; null without one.
    #[schema(required = true)]
    pub clock: Option<ClockView>,
    /// Rated: when a round ends, both players' ratings move.
    pub rated: bool,
    /// Whether this round's result moves the ratings: false for an unrated
    /// game, and for a round of a rated game that its two players began
    /// after 3 rated rounds together in the last 24 hours (it is played
    /// unrated, and says so from its start).
    pub round_rated: bool,
    /// How the round that just ended moved the ratings (rated games); null
    /// otherwise, and again once a new round starts.
    #[schema(required = true)]
    pub rating_change: Option<RatingChangeView>,
    /// The game this one is a rematch of (`POST /v1/games/{id}/rematch`); null
    /// otherwise.
    #[schema(required = true)]
    pub rematch_of: Option<Uuid>,
    /// This game's rematch, once one was made; null until then.
    #[schema(required = true)]
    pub rematch: Option<Uuid>,
    /// The tournament this game is a board of, and its round (an arena's:
    /// its game's number); null for other games.
    #[schema(required = true)]
    pub tournament: Option<TournamentRef>,
    /// A round in progress between two people without a clock: from when
    /// the seat not to move may claim it (`POST /v1/games/{id}/claim`),
    /// the side to move having been away that long; null otherwise.
    #[schema(required = true)]
    #[serde(serialize_with = "super::stamp::option")]
    pub claimable_at: Option<DateTime<Utc>>,
    /// Whether hints, analyses and bot moves may reach a round in progress
    /// (rated games: always `forbidden`).
    pub assistance: AssistanceSetting,
    /// Hints, analyses and bot moves each seat asked for in this round
    /// (counted between two people).
    pub assistance_used: AssistanceUsed,
    #[serde(serialize_with = "super::stamp::time")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "super::stamp::time")]
    pub updated_at: DateTime<Utc>,
}

/// Whether the bots may help a side while the round is in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssistanceSetting {
    /// Hints, analyses and bot moves answer (and are counted).
    #[default]
    Allowed,
    /// They answer 403 `assistance_forbidden` until the round is over.
    Forbidden,
}

/// Hints, analyses and bot moves asked for in this round, by seat.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"X": 2, "O": 0}))]
pub struct AssistanceUsed {
    #[serde(rename = "X")]
    pub x: u32,
    #[serde(rename = "O")]
    pub o: u32,
}

/// What a position shows of itself, in a Game as in a rules Position.
pub(super) struct Shown {
    pub winning_line: Option<Vec<Coord>>,
    pub ultimate: Option<UltimateState>,
    pub legal_moves: Vec<MoveBody>,
    pub threats: Vec<ThreatInfo>,
}

impl Shown {
    /// `over`: the round has ended (nothing is legal, nothing threatens);
    /// `by_line`: it ended by a line, which is then shown.
    pub(super) fn of(position: &AnyGame, over: bool, by_line: bool) -> Shown {
        let winning_line = by_line.then(|| {
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
        Shown {
            winning_line,
            ultimate,
            legal_moves,
            threats,
        }
    }
}

impl From<&GameRecord> for Game {
    fn from(g: &GameRecord) -> Game {
        let (status, winner, end_reason) = g.outcome();
        let over = g.is_over();
        let position = &g.position;
        let shown = Shown::of(position, over, end_reason == Some(domain::EndReason::Line));
        Game {
            id: g.id,
            kind: g.kind().into(),
            options: options_of(position.setup(), position),
            status: status.into(),
            end_reason: end_reason.map(Into::into),
            turn: (!over).then(|| position.to_move().into()),
            winner: winner.map(Into::into),
            winning_line: shown.winning_line,
            board: position.board_rows(),
            ultimate: shown.ultimate,
            legal_moves: shown.legal_moves,
            threats: shown.threats,
            round: g.round,
            ply: position.ply(),
            version: g.version,
            seats: Seats {
                x: seat_info(g, Player::X),
                o: seat_info(g, Player::O),
            },
            visibility: if g.private {
                Visibility::Private
            } else {
                Visibility::Public
            },
            offer: g.offer.map(|o| OfferView {
                offer_type: o.kind.into(),
                by: o.by.into(),
                at: o.at,
            }),
            clock: clock_view(g),
            rated: g.players.rated,
            round_rated: g.players.round_rated(),
            rating_change: g.players.change.as_ref().map(Into::into),
            rematch_of: g.rematch_of,
            rematch: g.rematch,
            tournament: g.tournament.map(|(id, round)| TournamentRef { id, round }),
            claimable_at: g.claimable_at(),
            assistance: if g.assistance_forbidden() {
                AssistanceSetting::Forbidden
            } else {
                AssistanceSetting::Allowed
            },
            assistance_used: AssistanceUsed {
                x: g.assistance.used[0],
                o: g.assistance.used[1],
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
    /// A private game's invite code, to its creator, shown only here: the
    /// other player sends it to `POST /join` as `invite`. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(
        nullable = false,
        example = "5d41402abc4b2a76b9719d911017c592a1b2c3d4e5f60718293a4b5c6d7e8f90"
    )]
    pub invite: Option<String>,
}

impl From<&service::SeatTaken> for SeatGrant {
    fn from(s: &service::SeatTaken) -> SeatGrant {
        SeatGrant {
            game: (&s.game).into(),
            seat: s.seat.into(),
            token: s.token.clone(),
            invite: s.invite.clone(),
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
