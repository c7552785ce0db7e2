//! Persistence: games, their history, idempotency records, players and
//! ratings, webhooks and their outbox, on SQLite or PostgreSQL.
//!
//! The store has one seam, [`Store`](crate::store::Store) for reads and
//! [`WriteTx`](crate::store::WriteTx) for what a
//! write job does inside its transaction: the service never touches SQL.
//! Each module holds one kind of record's rows and SQL, written once with
//! `$N` placeholders for both backends (sqlx queries with binds, run on
//! either connection by the `on_reader!` and `on_conn!` macros of `db`;
//! `QueryBuilder` for multi-row writes). The black-box API suite runs on
//! both backends, which is what catches a wrong query.
//!
//! Write jobs queue for the writers (`writer`), which run them in batches,
//! one transaction per batch (group commit); every job is answered after
//! its batch's COMMIT. A batch stages the rows its jobs write and inserts
//! each table's in few statements, before anything is read through SQL, so
//! a read never merges pending writes. SQLite has one writer, which keeps a
//! cache of games (a second process on the file is refused at start);
//! PostgreSQL has two per instance, each batch locking its games (`FOR
//! UPDATE`, in id order), and instances learn of each other's changes
//! through `NOTIFY`. An update names the version it replaces, so a lost race
//! is seen as nothing changed, never as a silent overwrite.
//!
//! A delete marks the game (`deleted_at`): no read or write finds it, but
//! its history stays [`KEEP_DELETED`](crate::store::KEEP_DELETED) for event streams, which must still
//! send its last move before `deleted`; a background task purges it later.

mod challenges;
mod db;
mod games;
mod idempotency;
mod matches;
mod moves;
mod outbox;
mod players;
mod tournaments;
mod webhooks;
mod writer;

use std::time::Duration;

/// How long a deleted game is kept, with its history, for event streams
/// that have not yet sent its last changes, or that resume (`Last-Event-ID`)
/// after a dropped connection. Reads and writes no longer find it meanwhile.
pub const KEEP_DELETED: Duration = Duration::from_mins(5);

/// How often deleted games past [`KEEP_DELETED`] are purged.
pub const PURGE_EVERY: Duration = Duration::from_mins(1);

/// A record kept as JSON in a row (`what` names it in the error).
fn from_json<T: serde::de::DeserializeOwned>(what: &str, data: &str) -> Result<T, StoreError> {
    serde_json::from_str(data).map_err(|e| StoreError::Corrupt(format!("{what}: {e}")))
}

/// A record as the JSON its row keeps.
fn to_json<T: serde::Serialize>(what: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(format!("{what}: {e}")))
}

pub use challenges::{BotHook, PlayerEvent, player_stream_id};
pub use db::{JobFn, Store, WriteTx};
pub use idempotency::MATCH_KEY_PREFIX;
pub use matches::{Nearest, Waiting};
pub use outbox::{EventRender, Outbox};
pub use players::PlayerRequest;
pub use tournaments::TournamentEvent;
pub use webhooks::{AttemptRecord, Claimed, DeliveryState, FAILING_REASON, Outcome, WebhookRecord};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot take the request now (disk full, read-only,
    /// locked, unreachable): nothing was changed, retry later. Its message
    /// carries the driver's (with SQLite's extended result code, or
    /// PostgreSQL's SQLSTATE), so that every log line about it says why.
    #[error("storage unavailable: {}", driver_message(.0))]
    Unavailable(sqlx::Error),
    /// A stored row does not decode into a valid record.
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// Any other database error (its message carries the driver's).
    #[error("database error: {}", driver_message(.0))]
    Database(sqlx::Error),
    /// Migrations failed at start.
    #[error("migration failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Another process serves the SQLite file: this one must not open it.
    #[error("{0}")]
    InUse(String),
    /// The batch this write ran in could not commit: nothing of it was written.
    #[error("the write could not be committed: {0}")]
    Batch(std::sync::Arc<StoreError>),
}

/// A driver error as a log line needs it: its message, with the database's
/// own code (SQLite's extended result code, PostgreSQL's SQLSTATE).
fn driver_message(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(db) => match db.code() {
            Some(code) => format!("{} (code {code})", db.message()),
            None => db.message().to_owned(),
        },
        other => other.to_string(),
    }
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
            StoreError::Unavailable(_) => true,
            StoreError::Batch(inner) => inner.is_unavailable(),
            _ => false,
        }
    }
}

/// A timestamp as stored: RFC 3339, microseconds, `Z` (one fixed width, so
/// that text order is time order).
fn ts(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A stored timestamp.
fn parse_ts(s: &str) -> Result<chrono::DateTime<chrono::Utc>, StoreError> {
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|e| StoreError::Corrupt(format!("timestamp {s:?}: {e}")))
}

/// A stored id.
fn parse_id(s: &str) -> Result<uuid::Uuid, StoreError> {
    uuid::Uuid::parse_str(s).map_err(|e| StoreError::Corrupt(format!("id {s:?}: {e}")))
}
