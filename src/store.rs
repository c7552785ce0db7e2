//! Persistence: games, moves, seat tokens and idempotency records.
//!
//! The store has one seam, [`Store`] and its write transaction [`WriteTx`]:
//! the service never touches SQL. SQL lives in `store/db.rs` (and, for the
//! SQLite writer's batches, `store/db/batch.rs`), read into private `*Row`
//! structs and converted to the records below, validating on the way in
//! exactly as a request would be (a snapshot goes through the rules' decoder,
//! names through their parsers).
//!
//! Two backends share this seam: SQLite, the embedded default, and
//! PostgreSQL, for many stateless instances on one database. Reads, and
//! PostgreSQL's writes, are written once (`store/db.rs`), with `$N`
//! placeholders that both accept, and run against whichever connection the
//! backend has; no use case knows which backend it runs on.
//!
//! Queries are runtime `query`/`query_as` with `FromRow` row structs rather
//! than the compile-time checked macros: the macros check a query against one
//! database, so sharing a query between two backends would need two `.sqlx/`
//! caches and a live server of each kind at build time. Instead the whole
//! black-box API suite runs against both backends (CI starts a throwaway
//! PostgreSQL), which is what catches a wrong query, on both.
//!
//! On SQLite, writes go through a single connection owned by one writer task
//! (SQLite allows one writer at a time; queueing is cheaper than retrying
//! `SQLITE_BUSY`), which runs queued writes in batches, one transaction per
//! batch (group commit, `store/writer.rs`). A batch takes the write lock
//! first (`BEGIN IMMEDIATE`), reads games from a cache of committed games
//! that is dropped whenever another connection has written, keeps its writes
//! in memory and sends them with the COMMIT in one round trip
//! (`store/db/batch.rs`). Reads go through a pool. On PostgreSQL each write
//! is its own transaction that locks the game row (`SELECT … FOR UPDATE`);
//! on both, an update names the version it replaces, so a lost race is seen
//! as nothing changed, never as a silent overwrite.

mod db;
mod writer;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::ai::Level;
use crate::rules::{AnyGame, GameKind, MoveInput, Player, Status};

pub use db::{Store, WriteTx};
pub use writer::JobFn;
/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot take the request now (disk full, read-only,
    /// locked, unreachable): nothing was changed, retry later.
    #[error("storage unavailable")]
    Unavailable(#[source] sqlx::Error),
    /// A stored row does not decode into a valid record.
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// Any other database error.
    #[error("database error")]
    Database(#[source] sqlx::Error),
    /// Migrations failed at start.
    #[error("migration failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Another process wrote to the SQLite file while a batch ran on games
    /// the writer had cached: nothing of the batch was written, retry.
    #[error("the database was changed by another process during the write")]
    Interfered,
    /// The batch this write ran in could not commit: nothing of it was written.
    #[error("the write could not be committed")]
    Batch(#[source] std::sync::Arc<StoreError>),
}

/// SQLite result codes (primary, the low byte) that mean "cannot write now".
const SQLITE_UNAVAILABLE: [i64; 6] = [
    5,  // SQLITE_BUSY
    6,  // SQLITE_LOCKED
    8,  // SQLITE_READONLY
    10, // SQLITE_IOERR
    13, // SQLITE_FULL
    14, // SQLITE_CANTOPEN
];

/// PostgreSQL SQLSTATE classes and codes that mean "cannot write now":
/// connection exceptions, insufficient resources (disk full), operator
/// intervention (shutdown), a read-only transaction, serialization and
/// deadlock failures.
fn postgres_unavailable(state: &str) -> bool {
    matches!(state.get(..2), Some("08" | "53" | "57"))
        || matches!(state, "25006" | "40001" | "40P01")
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        let unavailable = match &e {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
            sqlx::Error::Database(db) => {
                if let Some(pg) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                    postgres_unavailable(pg.code())
                } else {
                    db.code()
                        .and_then(|c| c.parse::<i64>().ok())
                        .is_some_and(|c| SQLITE_UNAVAILABLE.contains(&(c & 0xff)))
                }
            }
            _ => false,
        };
        if unavailable {
            StoreError::Unavailable(e)
        } else {
            StoreError::Database(e)
        }
    }
}

impl StoreError {
    /// Whether this means "cannot write now, retry later" (503).
    #[must_use]
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Unavailable(_) | StoreError::Interfered => true,
            StoreError::Batch(inner) => inner.is_unavailable(),
            _ => false,
        }
    }
}

/// The SHA-256 of a seat token: what is stored instead of the token.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// Hashes a presented token.
    #[must_use]
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        bytes.try_into().ok().map(TokenHash)
    }

    fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenHash(…)")
    }
}

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person; `token` is `None` while the seat is open.
    Human { token: Option<TokenHash> },
    /// A server bot.
    Bot { level: Level, seed: u64 },
}

impl Seat {
    /// A human seat nobody has taken yet.
    #[must_use]
    pub fn is_open(&self) -> bool {
        matches!(self, Seat::Human { token: None })
    }
}

/// The game-level status, which adds `waiting` and resignation to the
/// position's own status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Waiting,
    InProgress,
    Won,
    Draw,
}

impl GameStatus {
    pub const ALL: [GameStatus; 4] = [
        GameStatus::Waiting,
        GameStatus::InProgress,
        GameStatus::Won,
        GameStatus::Draw,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::InProgress => "in_progress",
            GameStatus::Won => "won",
            GameStatus::Draw => "draw",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<GameStatus> {
        GameStatus::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Line,
    FullBoard,
    Resignation,
}

impl EndReason {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Line => "line",
            EndReason::FullBoard => "full_board",
            EndReason::Resignation => "resignation",
        }
    }
}

/// A game as stored: the current round's position and everything around it.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub id: Uuid,
    pub position: AnyGame,
    /// Seats X and O, indexed by [`Player::index`].
    pub seats: [Seat; 2],
    pub hotseat: bool,
    pub round: u32,
    /// The seat that resigned the current round, if any.
    pub resigned: Option<Player>,
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl GameRecord {
    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.position.kind()
    }

    #[must_use]
    pub fn seat(&self, player: Player) -> &Seat {
        &self.seats[player.index()]
    }

    /// Whether a human seat is still free.
    #[must_use]
    pub fn has_open_seat(&self) -> bool {
        self.seats.iter().any(Seat::is_open)
    }

    /// Whether the round is over (line, full board or resignation).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.resigned.is_some() || self.position.is_over()
    }

    /// The status, winner and end reason of the current round.
    #[must_use]
    pub fn outcome(&self) -> (GameStatus, Option<Player>, Option<EndReason>) {
        if let Some(loser) = self.resigned {
            return (
                GameStatus::Won,
                Some(loser.other()),
                Some(EndReason::Resignation),
            );
        }
        match self.position.status() {
            Status::Won { winner, .. } => (GameStatus::Won, Some(winner), Some(EndReason::Line)),
            Status::Draw => (GameStatus::Draw, None, Some(EndReason::FullBoard)),
            Status::InProgress { .. } if self.has_open_seat() => (GameStatus::Waiting, None, None),
            Status::InProgress { .. } => (GameStatus::InProgress, None, None),
        }
    }

    /// The seat whose token matches, if any. In a hotseat game the token
    /// matches both seats; the side to move is returned.
    #[must_use]
    pub fn seat_of(&self, token: &TokenHash) -> Option<Player> {
        let matches =
            |p: Player| matches!(self.seat(p), Seat::Human { token: Some(t) } if t == token);
        let to_move = self.position.to_move();
        [to_move, to_move.other()].into_iter().find(|&p| matches(p))
    }
}

/// One played move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    pub round: u32,
    /// 1 for the first move of a round.
    pub ply: u32,
    /// The game's version after this move.
    pub version: i64,
    pub player: Player,
    pub mv: MoveInput,
    pub at: DateTime<Utc>,
}

/// What a change that is not a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Create,
    /// The seat taken.
    Join(Player),
    Restart,
    /// The seat that resigned.
    Resign(Player),
}

/// A change that is not a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRecord {
    pub version: i64,
    pub event: EventType,
    /// The round after the change.
    pub round: u32,
    pub at: DateTime<Utc>,
}

/// The filter of a game listing.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub kind: Option<GameKind>,
    pub status: Option<GameStatus>,
    pub open: Option<bool>,
    /// Only games older than this cursor.
    pub before: Option<i64>,
    pub limit: u32,
}

/// A stored answer to an idempotent request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
}
