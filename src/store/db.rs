//! The two backends behind one seam: [`Store`] for reads and for running
//! write jobs, [`WriteTx`] for what a job does inside its transaction.
//!
//! Over 700 lines, on purpose: this is the store's one seam, every read and
//! every write a job can make, each dispatched to both backends in one
//! place, so that a query cannot be written for one backend and forgotten
//! for the other. What is backend-specific lives in the `db/` modules.
//!
//! Reads are written once here, with `$N` placeholders, which PostgreSQL
//! requires and SQLite also accepts, and read into the row structs of
//! `db/rows.rs`, whose `FromRow` impls decode on both backends; the
//! [`on_reader!`] macro runs the same query text against whichever pool the
//! backend has. Writes go through each backend's writer task, in batches
//! whose writes wait in memory until commit: SQLite's (`db/sqlite.rs`,
//! `db/batch.rs`) and PostgreSQL's (`db/postgres.rs`, `db/pg_batch.rs`).

use chrono::{DateTime, Utc};
use tokio::sync::{broadcast, oneshot};
use uuid::Uuid;

mod batch;
mod bound;
mod event_body;
mod pending;
mod pg_batch;
mod postgres;
mod rows;
pub use rows::MATCH_KEY_PREFIX;
mod sqlite;
mod wal_vfs;

use super::StoreError;
use super::writer::{Home, Job, JobFn, TypedJob};
use crate::domain::{
    EventRecord, GameRecord, GameStatus, IdempotentRecord, ListFilter, MoveRecord, RequestHash,
    StoredResponse, TokenHash,
};
use crate::rules::GameKind;
use batch::Batch;
pub(super) use batch::WriterState;
use pending::Pending;
use pg_batch::PgBatch;
use rows::{
    EVENT_COLUMNS, EventRow, GAME_SQL, GameColumns, KeptRow, ListedRow, MOVE_COLUMNS, MoveRow, ts,
};

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
    changed: broadcast::Sender<Uuid>,
    /// The webhook endpoints the writer records events for.
    outbox: std::sync::Arc<outbox::Outbox>,
}

#[derive(Clone, Debug)]
enum Backend {
    /// Reads through a pool; writes through the one writer task.
    Sqlite(sqlite::Sqlite),
    /// Many instances may share it: each instance's writer batches its
    /// writes, locking the games it writes.
    Postgres(postgres::Postgres),
}

impl std::fmt::Debug for dyn Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

/// Runs `$body` with `$c` bound to the backend's reader pool.
macro_rules! on_reader {
    ($store:expr, |$c:ident| $body:expr) => {
        match &$store.backend {
            Backend::Sqlite(sqlite::Sqlite { reader: $c, .. }) => $body,
            Backend::Postgres(postgres::Postgres { pool: $c, .. }) => $body,
        }
    };
}

pub mod outbox;
mod players;
mod webhooks;
pub use webhooks::{AttemptRecord, Claimed, DeliveryState, Outcome, WebhookRecord};

impl Store {
    /// Opens the database at `url` (`sqlite://…` or `postgres://…`), creating
    /// an SQLite file if missing, and applies the migrations.
    ///
    /// # Errors
    /// When the database cannot be opened or a migration fails.
    pub async fn open(url: &str, read_connections: u32) -> Result<Store, StoreError> {
        let (changed, _) = broadcast::channel(1024);
        let outbox = std::sync::Arc::new(outbox::Outbox::default());
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres(
                postgres::open(url, read_connections, changed.clone(), outbox.clone()).await?,
            )
        } else {
            Backend::Sqlite(sqlite::open(url, read_connections, outbox.clone()).await?)
        };
        let store = Store {
            backend,
            changed,
            outbox,
        };
        store.reload_webhooks().await?;
        tokio::spawn(purge_deleted(store.clone()));
        Ok(store)
    }

    /// Whether the store has been closed.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.reader.is_closed(),
            Backend::Postgres(postgres) => postgres.pool.is_closed(),
        }
    }

    /// Whether the writer (on PostgreSQL, any of its writers) took a batch
    /// of [`outbox::BUSY_BATCH`] jobs or more within `window`: how busy it
    /// is. One batch says little (under a steady load their sizes swing
    /// from one job to dozens); the last busy one within a window says
    /// whether a load is on.
    #[must_use]
    pub fn busy_within(&self, window: std::time::Duration) -> bool {
        self.outbox.busy_within(window)
    }

    /// Whether this store is on PostgreSQL.
    #[must_use]
    pub fn is_postgres(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }

    /// Ids of games that changed, after the change committed (on PostgreSQL
    /// also changes made by other instances). A receiver that lags behind
    /// should re-read what it follows.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<Uuid> {
        self.changed.subscribe()
    }

    /// Announces a committed change of game `id` to this instance's subscribers.
    pub fn publish(&self, id: Uuid) {
        // No subscriber is not an error.
        let _ = self.changed.send(id);
    }

    /// Whether the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_reader!(self, |c| sqlx::query("SELECT 1")
            .execute(c)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Closes the pools, letting queries in flight finish.
    pub async fn close(&self) {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.close().await,
            Backend::Postgres(postgres) => postgres.pool.close().await,
        }
    }

    /// Runs `f` in a write transaction and answers once it has committed.
    /// `f` must check before it writes. The job shares a batch transaction
    /// with other queued writes (and a job that fails after writing rolls
    /// back its whole batch); `game`, the existing game it writes if any, is
    /// read (on PostgreSQL, and locked) with the batch's other games before
    /// the jobs run. The job runs in the caller's tracing span.
    ///
    /// # Errors
    /// The job's own error, or the store's when the write cannot commit.
    pub async fn write<T, E>(&self, game: Option<Uuid>, f: JobFn<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let jobs = match &self.backend {
            Backend::Sqlite(sqlite) => &sqlite.jobs,
            Backend::Postgres(postgres) => &postgres.jobs,
        };
        let (reply, answer) = oneshot::channel();
        let job: Box<dyn Job> = Box::new(TypedJob {
            game,
            f,
            reply,
            home: Home::here(),
            span: tracing::Span::current(),
        });
        let closed = || E::from(StoreError::Unavailable(sqlx::Error::PoolClosed));
        if jobs.send(job).await.is_err() {
            return Err(closed());
        }
        answer.await.unwrap_or_else(|_| Err(closed()))
    }

    /// A game by id, read outside any write transaction.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row: Option<GameColumns> = on_reader!(self, |c| sqlx::query_as(&GAME_SQL.by_id)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(GameColumns::into_record).transpose()
    }

    /// A game by id, also while it is kept after its deletion (see
    /// [`KEEP_DELETED`](super::KEEP_DELETED)): `true` with a deleted one,
    /// whose version is that of its `deleted` event.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game_kept(&self, id: Uuid) -> Result<Option<(GameRecord, bool)>, StoreError> {
        let row: Option<KeptRow> = on_reader!(self, |c| sqlx::query_as(&GAME_SQL.by_id_kept)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(|r| Ok((r.game.into_record()?, r.deleted_at.is_some())))
            .transpose()
    }

    /// The moves of one round, in order.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn moves(
        &self,
        id: Uuid,
        kind: GameKind,
        round: u32,
    ) -> Result<Vec<MoveRecord>, StoreError> {
        let rows: Vec<MoveRow> = on_reader!(self, |c| sqlx::query_as(rows::ROUND_MOVES)
            .bind(id.to_string())
            .bind(i64::from(round))
            .fetch_all(c)
            .await)?;
        rows.into_iter().map(|r| r.into_record(kind)).collect()
    }

    /// Every change of a game from round `from_round` on: its moves and its
    /// other events, each in version order.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn changes(
        &self,
        id: Uuid,
        kind: GameKind,
        from_round: u32,
    ) -> Result<(Vec<MoveRecord>, Vec<EventRecord>), StoreError> {
        let moves_sql = format!(
            "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 AND round >= $2 ORDER BY version"
        );
        let events_sql = format!(
            "SELECT {EVENT_COLUMNS} FROM game_events \
             WHERE game_id = $1 AND round >= $2 ORDER BY version"
        );
        let moves: Vec<MoveRow> = on_reader!(self, |c| sqlx::query_as(&moves_sql)
            .bind(id.to_string())
            .bind(i64::from(from_round))
            .fetch_all(c)
            .await)?;
        let events: Vec<EventRow> = on_reader!(self, |c| sqlx::query_as(&events_sql)
            .bind(id.to_string())
            .bind(i64::from(from_round))
            .fetch_all(c)
            .await)?;
        let moves = moves
            .into_iter()
            .map(|r| r.into_record(kind))
            .collect::<Result<_, _>>()?;
        let events = events
            .into_iter()
            .map(EventRow::into_record)
            .collect::<Result<_, _>>()?;
        Ok((moves, events))
    }

    /// The round a game was in at `version` (the round of the last change at
    /// or before it).
    ///
    /// # Errors
    /// Database errors.
    pub async fn round_at(&self, id: Uuid, version: i64) -> Result<Option<u32>, StoreError> {
        let round: Option<i64> = on_reader!(self, |c| sqlx::query_scalar(
            "SELECT MAX(round) FROM (\
               SELECT round FROM moves WHERE game_id = $1 AND version <= $2 \
               UNION ALL SELECT round FROM game_events WHERE game_id = $1 AND version <= $2\
             ) AS changes"
        )
        .bind(id.to_string())
        .bind(version)
        .fetch_one(c)
        .await)?;
        Ok(round.and_then(|r| u32::try_from(r).ok()))
    }

    /// The record of an idempotency key of the game, read outside any write
    /// transaction (to answer a retry before any work is done for it).
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn idempotent(
        &self,
        id: Uuid,
        key: &str,
    ) -> Result<Option<IdempotentRecord>, StoreError> {
        let row: Option<rows::IdempotencyRow> =
            on_reader!(self, |c| sqlx::query_as(rows::IDEMPOTENT)
                .bind(id.to_string())
                .bind(key)
                .fetch_optional(c)
                .await)?;
        row.map(rows::IdempotencyRow::into_record).transpose()
    }

    /// Games in `status` unchanged since before `before` (not deleted), the
    /// longest unchanged first, at most `limit`: each one's id and version.
    /// The expiry sweeper's choice; the index on `(status,
    /// updated_minute)` serves it through the implied condition on the
    /// minute, and the cutoff on `updated_at` stays exact (both are stored
    /// in one fixed-width UTC format, so text order is time order). Oldest
    /// first to the minute.
    ///
    /// # Errors
    /// Database errors, or an id that does not decode.
    pub async fn unchanged_since(
        &self,
        status: GameStatus,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let rows: Vec<(String, i64)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT id, version FROM games \
             WHERE status = $1 AND updated_minute <= $2 AND updated_at < $3 \
               AND deleted_at IS NULL \
             ORDER BY updated_minute LIMIT $4"
        )
        .bind(status.as_str())
        .bind(rows::minute(before))
        .bind(ts(before))
        .bind(i64::from(limit))
        .fetch_all(c)
        .await)?;
        rows.into_iter()
            .map(|(id, version)| {
                Uuid::parse_str(&id)
                    .map(|id| (id, version))
                    .map_err(|e| StoreError::Corrupt(format!("id {id:?}: {e}")))
            })
            .collect()
    }

    /// Games matching `filter`, newest first, with the cursor of the next page.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn list(
        &self,
        filter: &ListFilter,
    ) -> Result<(Vec<GameRecord>, Option<i64>), StoreError> {
        let limit = i64::from(filter.limit.max(1));
        let sql = format!(
            "SELECT seq, {} FROM games \
             WHERE deleted_at IS NULL AND NOT private \
               AND ($1 IS NULL OR kind = $1) AND ($2 IS NULL OR status = $2) \
               AND ($3 IS NULL OR open_seat = $3) AND ($4 IS NULL OR seq < $4) \
             ORDER BY seq DESC LIMIT $5",
            GAME_SQL.columns
        );
        let kind = filter.kind.map(|k| k.as_str().to_owned());
        let status = filter.status.map(|s| s.as_str().to_owned());
        let rows: Vec<ListedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(kind.clone())
            .bind(status.clone())
            .bind(filter.open)
            .bind(filter.before)
            .bind(limit + 1)
            .fetch_all(c)
            .await)?;
        ListedRow::page(rows, limit)
    }

    /// Games whose running clock ran out at or before `now` (at most
    /// `limit`, earliest deadline first), for the timeout sweeper.
    ///
    /// # Errors
    /// Database errors.
    pub async fn overdue(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Uuid>, StoreError> {
        let sql = "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1 \
                   AND deleted_at IS NULL ORDER BY deadline LIMIT $2";
        let now = ts(now);
        let ids: Vec<(String,)> = on_reader!(self, |c| sqlx::query_as(sql)
            .bind(now.clone())
            .bind(i64::from(limit))
            .fetch_all(c)
            .await)?;
        ids.into_iter()
            .map(|(id,)| {
                Uuid::parse_str(&id).map_err(|e| StoreError::Corrupt(format!("id {id:?}: {e}")))
            })
            .collect()
    }
}

/// The connection of a write transaction.
enum Conn {
    /// A batch of the writer task (see `db/batch.rs`): writes wait in memory
    /// and go in with the COMMIT.
    Sqlite(Box<Batch>),
    /// A batch of the instance's writer (see `db/pg_batch.rs`): games read
    /// and locked, writes waiting in memory for the COMMIT.
    Postgres(Box<PgBatch>),
}

impl Conn {
    /// The batch's writes waiting for its commit.
    fn pending(&mut self) -> &mut Pending {
        match self {
            Conn::Sqlite(batch) => &mut batch.pending,
            Conn::Postgres(batch) => &mut batch.pending,
        }
    }
}

/// What quick match finds for a key (see [`WriteTx::oldest_waiting`]).
#[derive(Debug)]
pub enum Waiting {
    /// The oldest game waiting for an opponent under the key, as the batch
    /// sees it (on PostgreSQL, locked until the batch ends).
    Game(Box<GameRecord>),
    /// No game waits under the key: the caller may create one.
    Nothing,
    /// The oldest game waiting under the key is the caller's own (it holds
    /// a seat of it): a caller is never matched with itself.
    Own(Box<GameRecord>),
    /// PostgreSQL only: another instance is matching under the key, or
    /// holds a waiting game of it; nothing was decided. Retry shortly.
    Busy,
}

/// Rated quick match: take the waiting game whose player's rating is
/// nearest `rating`, within `window` points.
#[derive(Clone, Copy, Debug)]
pub struct Nearest {
    pub rating: f64,
    pub window: f64,
}

/// Candidates read at a time.
const WAITING_PAGE: i64 = 32;

/// A write transaction.
pub struct WriteTx {
    conn: Conn,
    writes: u64,
}

/// What a writer carries from one batch to the next.
#[expect(
    clippy::large_enum_variant,
    reason = "one per batch, moved once from the commit to the next batch"
)]
pub(super) enum Kept {
    /// SQLite: the connection and the cache of committed games.
    Sqlite(WriterState),
    /// PostgreSQL: the connection, when the batch succeeded.
    Postgres(Option<sqlx::pool::PoolConnection<sqlx::Postgres>>),
}

impl WriteTx {
    /// Starts an SQLite write batch on the writer's connection, reading games
    /// through its cache (see [`Batch`]); the write lock is taken by the
    /// first read from the database, or at commit.
    pub(super) async fn begin_sqlite(
        pool: &sqlx::SqlitePool,
        state: WriterState,
    ) -> Result<WriteTx, StoreError> {
        Ok(WriteTx {
            conn: Conn::Sqlite(Box::new(Batch::begin(pool, state).await?)),
            writes: 0,
        })
    }

    /// Starts a PostgreSQL write batch on the connection `held` from the
    /// writer's last batch, if any; its transaction begins with the first
    /// read.
    pub(super) fn begin_postgres(
        pool: sqlx::PgPool,
        held: Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
    ) -> WriteTx {
        WriteTx {
            conn: Conn::Postgres(Box::new(PgBatch::new(pool, held))),
            writes: 0,
        }
    }

    /// Reads ahead the games the batch's jobs write: on PostgreSQL in one
    /// round trip, locking them in the order of their ids. (SQLite's writer
    /// holds the database's only write lock and caches its games.)
    ///
    /// # Errors
    /// Database errors.
    pub(super) async fn prefetch(&mut self, games: &[Uuid]) -> Result<(), StoreError> {
        match &mut self.conn {
            Conn::Sqlite(_) => Ok(()),
            Conn::Postgres(batch) => batch.prefetch(games).await,
        }
    }

    /// Rolls back; on SQLite also discards the connection and the cache (a
    /// fresh connection is opened for the next batch, so a fault that went
    /// away is forgotten).
    pub(super) async fn abandon(self) {
        match self.conn {
            Conn::Sqlite(batch) => batch.abandon().await,
            Conn::Postgres(batch) => batch.abandon().await,
        }
    }

    /// Makes the transaction durable. On SQLite, also gives back the
    /// writer's state (a cold one if the commit failed).
    ///
    /// # Errors
    /// When the commit fails (nothing was written then).
    pub(super) async fn commit(self, turn: super::writer::Turn) -> (Result<(), StoreError>, Kept) {
        match self.conn {
            Conn::Postgres(batch) => {
                let (result, conn) = batch.commit(turn).await;
                (result, Kept::Postgres(conn))
            }
            Conn::Sqlite(batch) => {
                drop(turn);
                let (result, state) = batch.commit().await;
                (result, Kept::Sqlite(state))
            }
        }
    }

    /// Writes made so far in this transaction.
    pub(super) fn writes(&self) -> u64 {
        self.writes
    }

    /// Records webhook events for the games this batch writes (see
    /// `db/outbox.rs`); `None`: no endpoint wants any.
    pub(super) fn hook(&mut self, hooks: Option<outbox::Hooks>) {
        self.conn.pending().hook(hooks);
    }

    /// Whether the batch records webhook events.
    pub(super) fn records_events(&mut self) -> bool {
        self.conn.pending().records_events()
    }

    /// The game by id, inside the transaction; on PostgreSQL the row stays
    /// locked until the transaction ends, so concurrent writers of one game
    /// (on any instance) take turns.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.game(id).await,
            Conn::Postgres(batch) => batch.game(id).await,
        }
    }

    /// The oldest game waiting for an opponent under quick match's key
    /// `key` (see [`GameRecord::match_key`]), as this batch sees it: the
    /// committed ones first, in the order they were created, unless the
    /// batch has changed them, then those the batch created. So a batch's
    /// jobs pair with each other as jobs of separate batches would.
    ///
    /// On SQLite the writer's lock makes the choice and its write one step.
    /// On PostgreSQL the batch first takes the key's advisory lock, held
    /// until it commits, so that of the instances matching under one key one
    /// decides at a time, and it sees what the others committed; a game is
    /// taken only if its row can be locked without waiting. Neither ever
    /// waits: [`Waiting::Busy`] instead.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn oldest_waiting(
        &mut self,
        key: &str,
        since: DateTime<Utc>,
        own: Option<&TokenHash>,
        nearest: Option<Nearest>,
    ) -> Result<Waiting, StoreError> {
        let since_text = ts(since);
        if let Conn::Postgres(batch) = &mut self.conn
            && !batch.try_lock_key(key).await?
        {
            return Ok(Waiting::Busy);
        }
        let mut listed = std::collections::HashSet::new();
        let mut locked_elsewhere = false;
        // Rated: every candidate is seen, and the nearest taken at the end.
        let mut candidates: Vec<GameRecord> = Vec::new();
        let mut consider = |game: GameRecord| -> Option<Waiting> {
            if own.is_some_and(|token| game.seat_of(token).is_some()) {
                return Some(Waiting::Own(Box::new(game)));
            }
            if nearest.is_none() {
                return Some(Waiting::Game(Box::new(game)));
            }
            candidates.push(game);
            None
        };
        let mut after = 0;
        loop {
            let page = match &mut self.conn {
                Conn::Sqlite(batch) => batch.waiting(key, after, WAITING_PAGE, &since_text).await?,
                Conn::Postgres(batch) => {
                    batch.waiting(key, after, WAITING_PAGE, &since_text).await?
                }
            };
            let full = page.len() >= usize::try_from(WAITING_PAGE).unwrap_or(usize::MAX);
            for (seq, id) in page {
                after = seq;
                listed.insert(id);
                let game = match &mut self.conn {
                    Conn::Sqlite(batch) => batch.game(id).await?,
                    Conn::Postgres(batch) => {
                        let Some(game) = batch.try_game(id).await? else {
                            locked_elsewhere = true;
                            continue;
                        };
                        game
                    }
                };
                if let Some(game) =
                    game.filter(|g| pending::waits_under(g, key) && g.updated_at >= since)
                    && let Some(found) = consider(game)
                {
                    return Ok(found);
                }
            }
            if !full {
                break;
            }
        }
        for game in self.conn.pending().waiting(key, since, &listed) {
            if let Some(found) = consider(game) {
                return Ok(found);
            }
        }
        if let Some(nearest) = nearest {
            let mut best: Option<(f64, GameRecord)> = None;
            for game in candidates {
                let rating = self.waiting_rating(&game).await?;
                let distance = (rating - nearest.rating).abs();
                if distance <= nearest.window && best.as_ref().is_none_or(|(d, _)| distance < *d) {
                    best = Some((distance, game));
                }
            }
            if let Some((_, game)) = best {
                return Ok(Waiting::Game(Box::new(game)));
            }
        }
        Ok(if locked_elsewhere {
            Waiting::Busy
        } else {
            Waiting::Nothing
        })
    }

    /// The record of a quick match's idempotency key (stored with
    /// [`MATCH_KEY_PREFIX`]), in whichever game it was written.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn match_idempotent(
        &mut self,
        key: &str,
    ) -> Result<Option<(Uuid, IdempotentRecord)>, StoreError> {
        let row = match self.conn.pending().remembered_anywhere(key) {
            Some(row) => Some(row),
            None => match &mut self.conn {
                Conn::Sqlite(batch) => batch.match_idempotent(key).await?,
                Conn::Postgres(batch) => batch.match_idempotent(key).await?,
            },
        };
        row.map(|row| {
            let id = Uuid::parse_str(&row.game_id)
                .map_err(|e| StoreError::Corrupt(format!("id {:?}: {e}", row.game_id)))?;
            Ok((id, row.into_record()?))
        })
        .transpose()
    }

    /// Inserts a new game.
    ///
    /// # Errors
    /// Database errors.
    #[expect(
        clippy::unused_async,
        reason = "both backends hold writes until commit today; the write API stays async for one that writes through"
    )]
    pub async fn insert_game(&mut self, game: &GameRecord) -> Result<(), StoreError> {
        self.conn.pending().set(game.clone(), false, None);
        self.writes += 1;
        Ok(())
    }

    /// Writes the game's new state if its stored version is still
    /// `expected_version`. Returns false (and changes nothing) otherwise.
    ///
    /// # Errors
    /// Database errors.
    pub async fn update_game(
        &mut self,
        game: &GameRecord,
        expected_version: i64,
    ) -> Result<bool, StoreError> {
        match self.game(game.id).await? {
            Some(current) if current.version == expected_version => {
                self.conn.pending().set(game.clone(), false, Some(&current));
                self.writes += 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Appends a move to the history.
    ///
    /// # Errors
    /// Database errors (a duplicate `(game, round, ply)` among them).
    #[expect(
        clippy::unused_async,
        reason = "both backends hold writes until commit today; the write API stays async for one that writes through"
    )]
    pub async fn insert_move(&mut self, id: Uuid, m: &MoveRecord) -> Result<(), StoreError> {
        let row = MoveRow::of(id, m);
        self.conn.pending().insert_move(row);
        self.writes += 1;
        Ok(())
    }

    /// Appends a change that is not a move.
    ///
    /// # Errors
    /// Database errors.
    #[expect(
        clippy::unused_async,
        reason = "both backends hold writes until commit today; the write API stays async for one that writes through"
    )]
    pub async fn insert_event(&mut self, id: Uuid, e: &EventRecord) -> Result<(), StoreError> {
        let row = EventRow::of(id, e);
        self.conn.pending().insert_event(row);
        self.writes += 1;
        Ok(())
    }

    /// Deletes a game: from now on no read or write finds it, but it is kept,
    /// with its history, for [`KEEP_DELETED`](super::KEEP_DELETED), for event
    /// streams (see [`Store::game_kept`]); then it is purged. Record its last
    /// change (the `deleted` event, at a version of its own) first. False
    /// (nothing changed) when there is no such game.
    ///
    /// # Errors
    /// Database errors.
    pub async fn delete_game(&mut self, id: Uuid) -> Result<bool, StoreError> {
        // Written in its latest state and marked, with the batch, so that its
        // history stays whole for event streams.
        let Some(game) = self.game(id).await? else {
            return Ok(false);
        };
        self.conn.pending().set(game.clone(), true, Some(&game));
        self.writes += 1;
        Ok(true)
    }

    /// Erases the games deleted before `before`, with their history and
    /// idempotency records.
    ///
    /// # Errors
    /// Database errors.
    #[expect(
        clippy::unused_async,
        reason = "both backends hold writes until commit today; the write API stays async for one that writes through"
    )]
    pub async fn purge_deleted(&mut self, before: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn.pending().purge_deleted(ts(before));
        Ok(())
    }

    /// The moves of a round of the game as this transaction sees them
    /// (stored, less those taken back, and its own), in order.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn round_moves(
        &mut self,
        id: Uuid,
        kind: GameKind,
        round: u32,
    ) -> Result<Vec<MoveRecord>, StoreError> {
        let stored = match &mut self.conn {
            Conn::Sqlite(batch) => batch.round_moves(id, round).await?,
            Conn::Postgres(batch) => batch.round_moves(id, round).await?,
        };
        let pending = self.conn.pending();
        let mut rows: Vec<MoveRow> = stored
            .into_iter()
            .filter(|m| !pending.taken_back(m))
            .chain(pending.moves_of(&id.to_string(), i64::from(round)))
            .collect();
        rows.sort_by_key(|m| m.ply);
        rows.into_iter().map(|r| r.into_record(kind)).collect()
    }

    /// Takes back the moves of `round` after ply `keep` and the answers to
    /// idempotent requests from `from_version` on (they showed those moves).
    /// Record the game's new state and the `takeback` event too.
    ///
    /// # Errors
    /// Database errors.
    #[expect(
        clippy::unused_async,
        reason = "both backends hold writes until commit today; the write API stays async for one that writes through"
    )]
    pub async fn take_back(
        &mut self,
        id: Uuid,
        round: u32,
        keep: u32,
        from_version: i64,
    ) -> Result<(), StoreError> {
        self.conn.pending().truncate(pending::Truncation {
            game_id: id.to_string(),
            round: i64::from(round),
            keep: i64::from(keep),
            from_version,
        });
        self.writes += 1;
        Ok(())
    }

    /// The record of an idempotency key of the game, if any.
    ///
    /// # Errors
    /// Database errors.
    pub async fn idempotent(
        &mut self,
        id: Uuid,
        key: &str,
    ) -> Result<Option<IdempotentRecord>, StoreError> {
        let row = match self.conn.pending().remembered(id, key) {
            Some(row) => Some(row),
            None => match &mut self.conn {
                Conn::Sqlite(batch) => batch.idempotent(id, key).await?,
                Conn::Postgres(batch) => batch.idempotent(id, key).await?,
            },
        };
        row.map(rows::IdempotencyRow::into_record).transpose()
    }

    /// Remembers the answer to `request` under an idempotency key of the
    /// game (a later answer to the same request replaces it: a bot's reply
    /// completes the answer to a move).
    ///
    /// # Errors
    /// Database errors.
    #[expect(
        clippy::unused_async,
        reason = "both backends hold writes until commit today; the write API stays async for one that writes through"
    )]
    pub async fn remember(
        &mut self,
        id: Uuid,
        key: &str,
        request: &RequestHash,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        let row = rows::IdempotencyRow::of(id, key, request, response);
        self.conn.pending().remember(id, row);
        self.writes += 1;
        Ok(())
    }
}

/// Every [`PURGE_EVERY`](super::PURGE_EVERY), erases the games deleted more
/// than [`KEEP_DELETED`](super::KEEP_DELETED) ago, until the store closes.
/// (On PostgreSQL every instance does: the purges are idempotent.)
async fn purge_deleted(store: Store) {
    loop {
        tokio::time::sleep(super::PURGE_EVERY).await;
        if store.is_closed() {
            return;
        }
        let before = Utc::now() - super::KEEP_DELETED;
        let purged = store
            .write::<_, StoreError>(
                None,
                Box::new(move |tx| Box::pin(async move { tx.purge_deleted(before).await })),
            )
            .await;
        if let Err(e) = purged
            && !store.is_closed()
        {
            tracing::warn!(error = %e, "purging deleted games failed; retrying later");
        }
    }
}
