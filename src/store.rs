//! Persistence: games, moves, seat tokens and idempotency records.
//!
//! The store has one seam, [`Store`] and its write transaction [`WriteTx`]:
//! the service never touches SQL. SQL lives in `store/db.rs` (and, for the
//! SQLite writer's batches, `store/db/batch.rs` and `store/db/bound.rs`),
//! read into private `*Row`
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
//! on a thread of its own (SQLite allows one writer at a time; queueing is
//! cheaper than retrying `SQLITE_BUSY`), which runs queued writes in
//! batches, one transaction per batch (group commit, `store/writer.rs`). A
//! batch takes the write lock first (`BEGIN IMMEDIATE`), reads games from a
//! cache of committed games that is dropped whenever another connection has
//! written, keeps its writes in memory and writes them with the COMMIT, row
//! by row on the connection's handle (`store/db/batch.rs`,
//! `store/db/bound.rs`). Reads go through a pool. On PostgreSQL each write
//! is its own transaction that locks the game row (`SELECT … FOR UPDATE`);
//! on both, an update names the version it replaces, so a lost race is seen
//! as nothing changed, never as a silent overwrite.
//!
//! A delete marks the game (`deleted_at`) rather than erasing it: from then
//! on no read or write finds it, but its history stays [`KEEP_DELETED`] for
//! event streams, which may learn of a move and the delete that followed it
//! only once both have committed (on PostgreSQL, through `NOTIFY`, on any
//! instance) and must still send the move before `deleted`. A background
//! task of each store purges marked games, history and all, afterwards.

mod db;
mod writer;

use std::time::Duration;

/// How long a deleted game is kept, with its history, for event streams
/// that have not yet sent its last changes, or that resume (`Last-Event-ID`)
/// after a dropped connection. Reads and writes no longer find it meanwhile.
pub const KEEP_DELETED: Duration = Duration::from_mins(5);

/// How often deleted games past [`KEEP_DELETED`] are purged.
pub const PURGE_EVERY: Duration = Duration::from_mins(1);

pub use db::outbox::{EventRender, Outbox};
pub use db::{
    AttemptRecord, Claimed, DeliveryState, MATCH_KEY_PREFIX, Nearest, Outcome, Store, Waiting,
    WebhookRecord, WriteTx,
};
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
