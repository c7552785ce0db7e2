//! SQLite's batch written row by row, each row's values bound to a prepared
//! statement, on the writer's own connection and thread.
//!
//! The batch's writes used to go as one multi-statement query whose rows
//! were JSON arrays expanded by `json_each`: SQLite parsed each row's text
//! again for every column it read (`->>`), and the query ran on sqlx's
//! thread for the connection. Here the writer takes the connection's handle
//! from that thread (sqlx's `lock_handle`, kept from one flush to the next
//! while nothing goes through sqlx: `db/batch.rs`, `Held`), and `rusqlite` binds each
//! row's values to statements prepared once and kept with the connection
//! ([`Prepared`]): no JSON is written or read, blobs go in as blobs.
//!
//! The statements and their order are the JSON query's: games first (moves
//! and events refer to them), then a takeback's deletions, the moves,
//! events and idempotency records, games marked deleted and the purge of
//! old ones, webhook events and their deliveries, the players' writes, and
//! COMMIT.

use std::borrow::Cow;
use std::sync::LazyLock;

use rusqlite::{Connection, params};
use sqlx::sqlite::LockedSqliteHandle;

use super::StoreError;
use super::outbox::{Recorded, Recording};
use super::pending::Truncation;
use super::players::PlayerOp;
use super::rows::{
    EVENT_COLUMNS, EventRow, GAME_SQL, GameColumns, IdempotencyRow, MOVE_COLUMNS, MoveRow,
};

/// A move row's insert, its columns bound in [`MOVE_COLUMNS`]' order.
static INSERT_MOVE: LazyLock<String> = LazyLock::new(|| {
    format!("INSERT INTO moves ({MOVE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
});

/// An event row's insert, its columns bound in [`EVENT_COLUMNS`]' order.
static INSERT_EVENT: LazyLock<String> = LazyLock::new(|| {
    format!("INSERT INTO game_events ({EVENT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
});

/// What one flush writes (see [`write`]).
pub(super) struct Flush<'p> {
    /// `Some(version)`: the transaction has not begun. Begin it, and write
    /// nothing if another connection committed since our last commit
    /// (`PRAGMA data_version` moved from `version`): the batch's cached
    /// games may then be stale.
    pub(super) guard: Option<i64>,
    /// Each game written, in order, and whether it is deleted.
    pub(super) games: Vec<(GameColumns, bool)>,
    pub(super) truncations: &'p [Truncation],
    pub(super) moves: &'p [MoveRow],
    pub(super) events: &'p [EventRow],
    pub(super) remembered: Vec<&'p IdempotencyRow>,
    /// The time the deleted games are marked with.
    pub(super) deleted_at: String,
    /// Purge the games deleted before this time.
    pub(super) purge: Option<&'p str>,
    pub(super) recorded: Recording,
    pub(super) players: &'p [PlayerOp],
}

/// The writer's statements, prepared on its connection and kept from one
/// flush to the next (preparing them again each batch cost ~4% of a move's
/// CPU): a `rusqlite` connection on sqlx's handle, with its statement cache.
///
/// It is used, and its statements finalized, only while the writer holds
/// the connection's lock (`lock_handle`), so never while sqlx's thread uses
/// the connection: [`write`] and [`close`] take the lock's guard. Dropped
/// any other way (a panic unwinding the writer), its statements are left
/// unfinalized rather than finalized while the connection may be in use.
pub(super) struct Prepared {
    db: Option<Connection>,
    /// The address of the `sqlite3` handle it was made on (only compared).
    handle: usize,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            tracing::error!(
                "the writer's prepared statements were dropped without the connection's lock: left unfinalized"
            );
            std::mem::forget(db);
        }
    }
}

fn address(handle: &mut LockedSqliteHandle<'_>) -> usize {
    handle.as_raw_handle().as_ptr() as usize
}

/// Finalizes `prepared`'s statements under the connection's lock: before
/// the connection is closed or handed to anyone else.
pub(super) fn close(handle: &mut LockedSqliteHandle<'_>, mut prepared: Prepared) {
    if prepared.handle == address(handle) {
        drop(prepared.db.take());
    }
}

/// Runs `f` on the connection behind `handle` (locked: taken from sqlx's
/// thread), with the statements of `prepared` if it has any, else
/// preparing them; kept in `prepared` if `keep`, finalized otherwise.
fn with_connection<R>(
    handle: &mut LockedSqliteHandle<'_>,
    prepared: &mut Option<Prepared>,
    keep: bool,
    f: impl FnOnce(&Connection) -> R,
) -> Result<R, StoreError> {
    let here = address(handle);
    if prepared.as_ref().is_some_and(|p| p.handle != here) {
        // Made on another connection (cannot happen: a failed batch closes
        // them with its connection): not touched.
        *prepared = None;
    }
    if prepared.is_none() {
        #[expect(
            unsafe_code,
            reason = "rusqlite on sqlx's connection: sqlx hands out the raw handle, not a safe way to run statements on it"
        )]
        // SAFETY: the handle is sqlx's open connection, and its worker
        // thread waits for the lock `handle` holds: no other thread uses
        // the connection while `handle` is borrowed here. `from_handle`
        // does not take ownership (dropping the `Connection` does not close
        // the handle). The `Connection` and its statements are used only
        // here and finalized only in `close` or below, each under the lock,
        // and always before the sqlx connection is closed or given back to
        // the pool (`db/batch.rs`); dropped otherwise, they are leaked, not
        // finalized (see [`Prepared`]).
        let db =
            unsafe { Connection::from_handle(handle.as_raw_handle().as_ptr()) }.map_err(failure)?;
        // Room for every statement the writer has (rusqlite keeps 16 by default).
        db.set_prepared_statement_cache_capacity(64);
        *prepared = Some(Prepared {
            db: Some(db),
            handle: here,
        });
    }
    let db = prepared
        .as_mut()
        .and_then(|p| p.db.as_ref())
        .ok_or_else(|| StoreError::Corrupt("the writer's statements are gone".into()))?;
    let out = f(db);
    if !keep && let Some(mut p) = prepared.take() {
        drop(p.db.take());
    }
    Ok(out)
}

/// Writes the batch and commits it, on the connection behind `handle`,
/// with the statements of `prepared` (kept there if `keep`).
///
/// # Errors
/// `Interfered` when the guard refuses; a database error otherwise (the
/// caller rolls back).
pub(super) fn write(
    handle: &mut LockedSqliteHandle<'_>,
    prepared: &mut Option<Prepared>,
    keep: bool,
    flush: &Flush<'_>,
) -> Result<(), StoreError> {
    // A failed recording of the webhook events stops the rows as a
    // conversion error; the batch fails with the recording's own error.
    let write_rows = |db: &Connection| {
        rows(db, flush).map_err(|e| match flush.recorded.get() {
            Err(recording) => recording,
            Ok(_) => failure(e),
        })
    };
    with_connection(handle, prepared, keep, |db| match flush.guard {
        Some(version) => {
            db.prepare_cached("BEGIN IMMEDIATE")
                .and_then(|mut begin| begin.execute([]))
                .map_err(failure)?;
            let now: i64 = db
                .prepare_cached("PRAGMA data_version")
                .and_then(|mut version| version.query_row([], |row| row.get(0)))
                .map_err(failure)?;
            if now == version {
                write_rows(db)
            } else {
                Err(StoreError::Interfered)
            }
        }
        None => write_rows(db),
    })?
}

/// The batch's statements, in order, then COMMIT.
fn rows(db: &Connection, f: &Flush<'_>) -> rusqlite::Result<()> {
    if !f.games.is_empty() {
        // The update first: it writes nothing when the game is new or its
        // indexed columns change, and then the upsert does.
        let mut update = db.prepare_cached(&GAME_SQL.sqlite_update)?;
        let mut upsert = db.prepare_cached(&GAME_SQL.sqlite_upsert)?;
        for (game, _) in &f.games {
            game.bind(&mut update)?;
            if update.raw_execute()? == 0 {
                game.bind(&mut upsert)?;
                upsert.raw_execute()?;
            }
        }
    }
    for t in f.truncations {
        db.prepare_cached("DELETE FROM moves WHERE game_id = ?1 AND round = ?2 AND ply > ?3")?
            .execute(params![t.game_id, t.round, t.keep])?;
        db.prepare_cached("DELETE FROM idempotency WHERE game_id = ?1 AND version >= ?2")?
            .execute(params![t.game_id, t.from_version])?;
    }
    if !f.moves.is_empty() {
        let mut insert = db.prepare_cached(&INSERT_MOVE)?;
        for m in f.moves {
            insert.execute(params![
                m.game_id, m.round, m.ply, m.version, m.player, m.a, m.b, m.at
            ])?;
        }
    }
    if !f.events.is_empty() {
        let mut insert = db.prepare_cached(&INSERT_EVENT)?;
        for e in f.events {
            insert.execute(params![
                e.game_id,
                e.version,
                e.event_type,
                e.round,
                e.player,
                e.at,
                e.detail
            ])?;
        }
    }
    if !f.remembered.is_empty() {
        let mut upsert = db.prepare_cached(
            "INSERT INTO idempotency (game_id, key, request, status, body, version, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
             ON CONFLICT (game_id, key) DO UPDATE \
             SET status = excluded.status, body = excluded.body, version = excluded.version",
        )?;
        for r in &f.remembered {
            upsert.execute(params![
                r.game_id,
                r.key,
                r.request,
                r.status,
                r.body,
                r.version,
                r.created_at
            ])?;
        }
    }
    for (game, _) in f.games.iter().filter(|(_, deleted)| *deleted) {
        db.prepare_cached("UPDATE games SET deleted_at = ?1 WHERE id = ?2")?
            .execute(params![f.deleted_at, game.id])?;
    }
    if let Some(before) = f.purge {
        db.prepare_cached("DELETE FROM games WHERE deleted_at < ?1")?
            .execute([before])?;
    }
    let recorded = f
        .recorded
        .get()
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
    webhook_events(db, recorded)?;
    super::players::write_sqlite(db, f.players)?;
    db.prepare_cached("COMMIT")?.execute([]).map(|_| ())
}

/// The batch's webhook events and their deliveries; a delivery names its
/// event by the event's rowid (`seq`).
fn webhook_events(db: &Connection, recorded: &Recorded) -> rusqlite::Result<()> {
    if recorded.events.is_empty() {
        return Ok(());
    }
    let mut seqs = Vec::with_capacity(recorded.events.len());
    let mut insert = db.prepare_cached(
        "INSERT INTO webhook_events (event_id, game_id, type, body, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (e, body) in recorded.events.iter().zip(&recorded.bodies) {
        insert.execute(params![
            e.event_id,
            e.game_id,
            e.event_type,
            body,
            e.created_at
        ])?;
        seqs.push(db.last_insert_rowid());
    }
    let mut deliver = db.prepare_cached(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, game_id, next_attempt_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for d in &recorded.deliveries {
        let seq = seqs.get(d.n.wrapping_sub(1)).copied().ok_or_else(|| {
            rusqlite::Error::ToSqlConversionFailure(
                format!("delivery of event {} of {}", d.n, seqs.len()).into(),
            )
        })?;
        deliver.execute(params![
            d.webhook_id,
            d.event_id,
            seq,
            d.game_id,
            d.next_attempt_at
        ])?;
    }
    Ok(())
}

/// An error of SQLite through `rusqlite`, as the store's errors classify
/// sqlx's: by SQLite's result code (busy, locked, full, I/O: unavailable).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct Failure {
    message: String,
    /// SQLite's extended result code, when SQLite gave one.
    code: Option<i32>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "passed to `map_err`, which hands the error over"
)]
fn failure(e: rusqlite::Error) -> StoreError {
    let code = match &e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.extended_code),
        _ => None,
    };
    StoreError::from(sqlx::Error::Database(Box::new(Failure {
        message: e.to_string(),
        code,
    })))
}

impl sqlx::error::DatabaseError for Failure {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<Cow<'_, str>> {
        self.code.map(|c| Cow::Owned(c.to_string()))
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> sqlx::error::ErrorKind {
        use sqlx::error::ErrorKind;
        match self.code {
            Some(2067 | 1555) => ErrorKind::UniqueViolation,
            Some(787) => ErrorKind::ForeignKeyViolation,
            Some(1299) => ErrorKind::NotNullViolation,
            Some(275) => ErrorKind::CheckViolation,
            _ => ErrorKind::Other,
        }
    }
}
