//! The two backends behind one seam, and every query, written once.
//!
//! Queries use `$N` placeholders, which PostgreSQL requires and SQLite also
//! accepts, and read rows into `*Row` structs whose `FromRow` impls decode on
//! both backends. The [`on_reader!`] macro runs the same query text against
//! whichever pool the backend has.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Postgres, Transaction};
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

mod batch;

use super::writer::{self, Job, JobFn, TypedJob};
use super::{
    EventRecord, EventType, GameRecord, ListFilter, MoveRecord, Seat, StoreError, StoredResponse,
    TokenHash,
};
use crate::ai::Level;
use crate::rules::{AnyGame, GameKind, MoveInput, Player};
use batch::Batch;
pub(super) use batch::WriterState;

/// The channel on which PostgreSQL announces changed games to every instance.
const CHANNEL: &str = "tabula_changes";

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
    changed: broadcast::Sender<Uuid>,
}

#[derive(Clone, Debug)]
enum Backend {
    /// Reads through a pool; writes through the one writer task.
    Sqlite {
        reader: SqlitePool,
        writer: SqlitePool,
        /// Copies the WAL back into the database file, off the writer's path
        /// (none for an in-memory database).
        checkpointer: Option<SqlitePool>,
        jobs: mpsc::Sender<Box<dyn Job>>,
    },
    /// Many instances may share it: each write is its own transaction that
    /// locks the game row.
    Postgres { pool: PgPool },
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
            Backend::Sqlite { reader: $c, .. } => $body,
            Backend::Postgres { pool: $c } => $body,
        }
    };
}

/// Binds the columns that insert and update share, in this order: status,
/// open_seat, hotseat, the seats (type, token, level, seed; X then O), round,
/// resigned, version, snapshot.
macro_rules! bind_state {
    ($q:expr, $v:expr) => {
        $q.bind($v.status)
            .bind($v.open_seat)
            .bind($v.hotseat)
            .bind($v.seats[0].0)
            .bind($v.seats[0].1.clone())
            .bind($v.seats[0].2)
            .bind($v.seats[0].3)
            .bind($v.seats[1].0)
            .bind($v.seats[1].1.clone())
            .bind($v.seats[1].2)
            .bind($v.seats[1].3)
            .bind($v.round)
            .bind($v.resigned)
            .bind($v.version)
            .bind($v.snapshot.clone())
    };
}

fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn parse_ts(s: &str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("timestamp {s:?}: {e}")))
}

fn player_str(p: Player) -> &'static str {
    match p {
        Player::X => "X",
        Player::O => "O",
    }
}

fn parse_player(s: &str) -> Result<Player, StoreError> {
    match s {
        "X" => Ok(Player::X),
        "O" => Ok(Player::O),
        _ => Err(StoreError::Corrupt(format!("player {s:?}"))),
    }
}

impl Store {
    /// Opens the database at `url` (`sqlite://…` or `postgres://…`), creating
    /// an SQLite file if missing, and applies the migrations.
    ///
    /// # Errors
    /// When the database cannot be opened or a migration fails.
    pub async fn open(url: &str, read_connections: u32) -> Result<Store, StoreError> {
        let (changed, _) = broadcast::channel(1024);
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            open_postgres(url, read_connections, changed.clone()).await?
        } else {
            open_sqlite(url, read_connections).await?
        };
        Ok(Store { backend, changed })
    }

    /// Whether this store is on PostgreSQL.
    #[must_use]
    pub fn is_postgres(&self) -> bool {
        matches!(self.backend, Backend::Postgres { .. })
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
            Backend::Sqlite {
                reader,
                writer,
                checkpointer,
                ..
            } => {
                writer.close().await;
                reader.close().await;
                if let Some(c) = checkpointer {
                    c.close().await;
                }
            }
            Backend::Postgres { pool } => pool.close().await,
        }
    }

    /// Runs `f` in a write transaction and answers once it has committed.
    /// `f` must check before it writes. On SQLite, the job shares a batch
    /// transaction with other queued writes (and a job that fails after
    /// writing rolls back its whole batch); on PostgreSQL it has its own.
    ///
    /// # Errors
    /// The job's own error, or the store's when the write cannot commit.
    pub async fn write<T, E>(&self, f: JobFn<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        match &self.backend {
            Backend::Sqlite { jobs, .. } => {
                let (reply, answer) = oneshot::channel();
                let job: Box<dyn Job> = Box::new(TypedJob { f, reply });
                let closed = || E::from(StoreError::Unavailable(sqlx::Error::PoolClosed));
                if jobs.send(job).await.is_err() {
                    return Err(closed());
                }
                answer.await.unwrap_or_else(|_| Err(closed()))
            }
            Backend::Postgres { pool } => {
                let tx = pool.begin().await.map_err(|e| E::from(e.into()))?;
                let mut tx = WriteTx {
                    conn: Conn::Postgres(tx),
                    writes: 0,
                };
                match f(&mut tx).await {
                    Ok(value) => {
                        tx.commit().await.0.map_err(E::from)?;
                        Ok(value)
                    }
                    Err(e) => {
                        tx.abandon().await;
                        Err(e)
                    }
                }
            }
        }
    }

    /// A game by id, read outside any write transaction.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row: Option<GameRow> = on_reader!(self, |c| sqlx::query_as(GAME_BY_ID)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(GameRow::into_record).transpose()
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
        let rows: Vec<MoveRow> = on_reader!(self, |c| sqlx::query_as(
            "SELECT round, ply, version, player, a, b, at FROM moves \
             WHERE game_id = $1 AND round = $2 ORDER BY ply"
        )
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
        let moves: Vec<MoveRow> = on_reader!(self, |c| sqlx::query_as(
            "SELECT round, ply, version, player, a, b, at FROM moves \
             WHERE game_id = $1 AND round >= $2 ORDER BY version"
        )
        .bind(id.to_string())
        .bind(i64::from(from_round))
        .fetch_all(c)
        .await)?;
        let events: Vec<EventRow> = on_reader!(self, |c| sqlx::query_as(
            "SELECT version, type, round, player, at FROM game_events \
             WHERE game_id = $1 AND round >= $2 ORDER BY version"
        )
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
            "SELECT seq, {GAME_COLUMNS} FROM games \
             WHERE ($1 IS NULL OR kind = $1) AND ($2 IS NULL OR status = $2) \
               AND ($3 IS NULL OR open_seat = $3) AND ($4 IS NULL OR seq < $4) \
             ORDER BY seq DESC LIMIT $5"
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
        let page = usize::try_from(limit).unwrap_or(usize::MAX);
        let next = (rows.len() > page).then(|| rows[page - 1].seq);
        let games = rows
            .into_iter()
            .take(page)
            .map(|r| r.game.into_record())
            .collect::<Result<_, _>>()?;
        Ok((games, next))
    }
}

async fn open_sqlite(url: &str, read_connections: u32) -> Result<Backend, StoreError> {
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // NORMAL in WAL mode: a commit survives a crash of the process (only
        // a power loss or OS crash may lose the last commits).
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(Duration::from_secs(5))
        // Statement journals (a multi-row insert that may fail half-way
        // keeps one) stay in memory rather than spilling into temp files.
        .pragma("temp_store", "memory")
        // 32 MiB of page cache per connection rather than 2: the pages that
        // live games write stay in memory between batches.
        .pragma("cache_size", "-32768")
        // A background connection copies the WAL into the database file as
        // it grows (see `writer::checkpoint`); the writer's own checkpoint,
        // which stalls every queued write for two fsyncs, only comes when
        // the WAL reaches 64 MiB without having started over.
        .pragma("wal_autocheckpoint", "16384")
        .foreign_keys(true);
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    // The writer keeps its one connection: the game cache's check against
    // `PRAGMA data_version` (see `db/batch.rs`) holds for one connection.
    // It is not pinged before each batch either: a round trip to the
    // connection's thread costs as much as a small batch, and a broken
    // connection fails the batch, which discards it.
    let writer = SqlitePoolOptions::new()
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .test_before_acquire(false)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options.clone())
        .await?;
    sqlx::migrate!("./migrations/sqlite").run(&writer).await?;
    let (reader, checkpointer) = if in_memory {
        (writer.clone(), None)
    } else {
        let reader = SqlitePoolOptions::new()
            .max_connections(read_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone().read_only(true))
            .await?;
        let checkpointer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        tokio::spawn(writer::checkpoint(checkpointer.clone()));
        (reader, Some(checkpointer))
    };
    let (jobs, queue) = mpsc::channel(4096);
    tokio::spawn(writer::run(writer.clone(), queue, !in_memory));
    Ok(Backend::Sqlite {
        reader,
        writer,
        checkpointer,
        jobs,
    })
}

async fn open_postgres(
    url: &str,
    connections: u32,
    changed: broadcast::Sender<Uuid>,
) -> Result<Backend, StoreError> {
    let options = PgConnectOptions::from_str(url)?;
    let pool = PgPoolOptions::new()
        .max_connections(connections.max(2) * 4)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    tokio::spawn(listen(pool.clone(), changed));
    Ok(Backend::Postgres { pool })
}

/// Forwards the change notifications of every instance to this one's
/// subscribers. After a reconnect (notifications may have been missed) every
/// subscriber is told to re-read, with the nil id.
async fn listen(pool: PgPool, changed: broadcast::Sender<Uuid>) {
    loop {
        let mut listener = match PgListener::connect_with(&pool).await {
            Ok(l) => l,
            Err(e) => {
                if pool.is_closed() {
                    return;
                }
                tracing::warn!(error = %e, "cannot listen for changes; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if let Err(e) = listener.listen(CHANNEL).await {
            tracing::warn!(error = %e, "LISTEN failed; retrying");
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        let _ = changed.send(Uuid::nil());
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) => {
                    if let Ok(id) = Uuid::parse_str(n.payload()) {
                        let _ = changed.send(id);
                    }
                }
                // The connection was lost and re-established: re-read all.
                Ok(None) => {
                    let _ = changed.send(Uuid::nil());
                }
                Err(e) => {
                    if pool.is_closed() {
                        return;
                    }
                    tracing::warn!(error = %e, "change listener failed; reconnecting");
                    break;
                }
            }
        }
    }
}

/// The connection of a write transaction.
enum Conn {
    /// A batch of the writer task (see `db/batch.rs`): writes wait in memory
    /// and go in with the COMMIT.
    Sqlite(Box<Batch>),
    Postgres(Transaction<'static, Postgres>),
}

/// A write transaction.
pub struct WriteTx {
    conn: Conn,
    writes: u64,
}

impl WriteTx {
    /// Starts an SQLite write batch on the writer's connection, reading games
    /// through its cache (see [`Batch`]); the write lock is taken by the
    /// first read from the database, or at commit.
    pub(super) async fn begin_sqlite(
        pool: &SqlitePool,
        state: WriterState,
    ) -> Result<WriteTx, StoreError> {
        Ok(WriteTx {
            conn: Conn::Sqlite(Box::new(Batch::begin(pool, state).await?)),
            writes: 0,
        })
    }

    /// Rolls back; on SQLite also discards the connection and the cache (a
    /// fresh connection is opened for the next batch, so a fault that went
    /// away is forgotten).
    pub(super) async fn abandon(self) {
        match self.conn {
            Conn::Sqlite(batch) => batch.abandon().await,
            Conn::Postgres(tx) => {
                let _ = tx.rollback().await;
            }
        }
    }

    /// Makes the transaction durable. On SQLite, also gives back the
    /// writer's state (a cold one if the commit failed).
    ///
    /// # Errors
    /// When the commit fails (nothing was written then).
    pub(super) async fn commit(self) -> (Result<(), StoreError>, Option<WriterState>) {
        match self.conn {
            Conn::Postgres(tx) => (tx.commit().await.map_err(Into::into), None),
            Conn::Sqlite(batch) => {
                let (result, state) = batch.commit().await;
                (result, Some(state))
            }
        }
    }

    /// Writes made so far in this transaction.
    pub(super) fn writes(&self) -> u64 {
        self.writes
    }

    /// Tells every instance (PostgreSQL, on commit) that the game changed.
    async fn notify(tx: &mut Transaction<'static, Postgres>, id: Uuid) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(id.to_string())
            .execute(&mut **tx)
            .await?;
        Ok(())
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
            Conn::Postgres(tx) => {
                let row: Option<GameRow> = sqlx::query_as(&format!("{GAME_BY_ID} FOR UPDATE"))
                    .bind(id.to_string())
                    .fetch_optional(&mut **tx)
                    .await?;
                row.map(GameRow::into_record).transpose()
            }
        }
    }

    /// Inserts a new game.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_game(&mut self, game: &GameRecord) -> Result<(), StoreError> {
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.insert_game(game),
            Conn::Postgres(tx) => {
                let v = GameValues::of(game);
                bind_state!(sqlx::query(
                    "INSERT INTO games (id, kind, status, open_seat, hotseat, \
                       x_type, x_token, x_level, x_seed, o_type, o_token, o_level, o_seed, \
                       round, resigned, version, snapshot, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)"
                )
                .bind(&v.id)
                .bind(v.kind), v)
                .bind(ts(game.created_at))
                .bind(&v.updated_at)
                .execute(&mut **tx)
                .await?;
                Self::notify(tx, game.id).await?;
            }
        }
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
        let done = match &mut self.conn {
            Conn::Sqlite(batch) => batch.update_game(game, expected_version).await?,
            Conn::Postgres(tx) => {
                let v = GameValues::of(game);
                let rows = bind_state!(
                    sqlx::query(
                        "UPDATE games SET status = $1, open_seat = $2, hotseat = $3, \
                           x_type = $4, x_token = $5, x_level = $6, x_seed = $7, \
                           o_type = $8, o_token = $9, o_level = $10, o_seed = $11, \
                           round = $12, resigned = $13, version = $14, snapshot = $15, updated_at = $16 \
                         WHERE id = $17 AND version = $18"
                    ),
                    v
                )
                .bind(&v.updated_at)
                .bind(&v.id)
                .bind(expected_version)
                .execute(&mut **tx)
                .await?
                .rows_affected();
                Self::notify(tx, game.id).await?;
                rows == 1
            }
        };
        if done {
            self.writes += 1;
        }
        Ok(done)
    }

    /// Appends a move to the history.
    ///
    /// # Errors
    /// Database errors (a duplicate `(game, round, ply)` among them).
    pub async fn insert_move(&mut self, id: Uuid, m: &MoveRecord) -> Result<(), StoreError> {
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.insert_move(id, m),
            Conn::Postgres(tx) => {
                let (a, b) = move_columns(m);
                sqlx::query(
                    "INSERT INTO moves (game_id, round, ply, version, player, a, b, at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(id.to_string())
                .bind(i64::from(m.round))
                .bind(i64::from(m.ply))
                .bind(m.version)
                .bind(player_str(m.player))
                .bind(a)
                .bind(b)
                .bind(ts(m.at))
                .execute(&mut **tx)
                .await?;
            }
        }
        self.writes += 1;
        Ok(())
    }

    /// Appends a change that is not a move.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_event(&mut self, id: Uuid, e: &EventRecord) -> Result<(), StoreError> {
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.insert_event(id, e),
            Conn::Postgres(tx) => {
                let (name, player) = event_columns(e);
                sqlx::query(
                    "INSERT INTO game_events (game_id, version, type, round, player, at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(id.to_string())
                .bind(e.version)
                .bind(name)
                .bind(i64::from(e.round))
                .bind(player)
                .bind(ts(e.at))
                .execute(&mut **tx)
                .await?;
            }
        }
        self.writes += 1;
        Ok(())
    }

    /// Deletes a game with its moves, events and idempotency records.
    ///
    /// # Errors
    /// Database errors.
    pub async fn delete_game(&mut self, id: Uuid) -> Result<bool, StoreError> {
        let done = match &mut self.conn {
            Conn::Sqlite(batch) => batch.delete_game(id).await?,
            Conn::Postgres(tx) => {
                let rows = sqlx::query("DELETE FROM games WHERE id = $1")
                    .bind(id.to_string())
                    .execute(&mut **tx)
                    .await?
                    .rows_affected();
                Self::notify(tx, id).await?;
                rows == 1
            }
        };
        if done {
            self.writes += 1;
        }
        Ok(done)
    }

    /// The stored answer for an idempotency key of a seat, if any.
    ///
    /// # Errors
    /// Database errors.
    pub async fn idempotent(
        &mut self,
        id: Uuid,
        seat: Player,
        key: &str,
    ) -> Result<Option<StoredResponse>, StoreError> {
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.idempotent(id, seat, key).await,
            Conn::Postgres(tx) => stored_response(
                sqlx::query_as(IDEMPOTENT)
                    .bind(id.to_string())
                    .bind(player_str(seat))
                    .bind(key)
                    .fetch_optional(&mut **tx)
                    .await?,
            ),
        }
    }

    /// Remembers (or replaces) the answer to an idempotent request.
    ///
    /// # Errors
    /// Database errors.
    pub async fn remember(
        &mut self,
        id: Uuid,
        seat: Player,
        key: &str,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.remember(id, seat, key, response),
            Conn::Postgres(tx) => {
                sqlx::query(
                    "INSERT INTO idempotency (game_id, seat, key, status, body, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (game_id, seat, key) DO UPDATE SET status = excluded.status, body = excluded.body",
                )
                .bind(id.to_string())
                .bind(player_str(seat))
                .bind(key)
                .bind(i64::from(response.status))
                .bind(&response.body)
                .bind(ts(Utc::now()))
                .execute(&mut **tx)
                .await?;
            }
        }
        self.writes += 1;
        Ok(())
    }
}

/// The stored answer for an idempotency key of a seat: `$1` game, `$2` seat, `$3` key.
const IDEMPOTENT: &str =
    "SELECT status, body FROM idempotency WHERE game_id = $1 AND seat = $2 AND key = $3";

fn stored_response(row: Option<(i64, String)>) -> Result<Option<StoredResponse>, StoreError> {
    row.map(|(status, body)| {
        Ok(StoredResponse {
            status: u16::try_from(status)
                .map_err(|_| StoreError::Corrupt(format!("status {status}")))?,
            body,
        })
    })
    .transpose()
}

/// A move's two columns: row | column | board, then col | NULL | cell.
fn move_columns(m: &MoveRecord) -> (i64, Option<i64>) {
    match m.mv {
        MoveInput::Cell { row, col } => (row, Some(col)),
        MoveInput::Column { column } => (column, None),
        MoveInput::BoardCell { board, cell } => (board, Some(cell)),
    }
}

/// An event's type name and player column.
fn event_columns(e: &EventRecord) -> (&'static str, Option<&'static str>) {
    match e.event {
        EventType::Create => ("create", None),
        EventType::Join(p) => ("join", Some(player_str(p))),
        EventType::Restart => ("restart", None),
        EventType::Resign(p) => ("resign", Some(player_str(p))),
    }
}

const GAME_COLUMNS: &str = "id, kind, hotseat, x_type, x_token, x_level, x_seed, \
    o_type, o_token, o_level, o_seed, round, resigned, version, snapshot, created_at, updated_at";

const GAME_BY_ID: &str = "SELECT id, kind, hotseat, x_type, x_token, x_level, x_seed, \
    o_type, o_token, o_level, o_seed, round, resigned, version, snapshot, created_at, updated_at \
    FROM games WHERE id = $1";

/// A seat's columns: type, token hash, bot level, bot seed.
type SeatValues = (
    &'static str,
    Option<Vec<u8>>,
    Option<&'static str>,
    Option<i64>,
);

/// The column values of a game, as bound by insert and update.
struct GameValues {
    id: String,
    kind: &'static str,
    status: &'static str,
    open_seat: bool,
    hotseat: bool,
    seats: [SeatValues; 2],
    round: i64,
    resigned: Option<&'static str>,
    version: i64,
    snapshot: Vec<u8>,
    updated_at: String,
}

impl GameValues {
    fn of(game: &GameRecord) -> GameValues {
        let seat = |s: &Seat| match *s {
            Seat::Human { token } => ("human", token.map(|t| t.as_bytes().to_vec()), None, None),
            Seat::Bot { level, seed } => (
                "bot",
                None,
                Some(level.as_str()),
                Some(i64::from_ne_bytes(seed.to_ne_bytes())),
            ),
        };
        GameValues {
            id: game.id.to_string(),
            kind: game.kind().as_str(),
            status: game.outcome().0.as_str(),
            open_seat: game.has_open_seat(),
            hotseat: game.hotseat,
            seats: [seat(&game.seats[0]), seat(&game.seats[1])],
            round: i64::from(game.round),
            resigned: game.resigned.map(player_str),
            version: game.version,
            snapshot: game.position.encode(),
            updated_at: ts(game.updated_at),
        }
    }
}

/// A stored game, as read.
#[derive(sqlx::FromRow)]
struct GameRow {
    id: String,
    kind: String,
    hotseat: bool,
    x_type: String,
    x_token: Option<Vec<u8>>,
    x_level: Option<String>,
    x_seed: Option<i64>,
    o_type: String,
    o_token: Option<Vec<u8>>,
    o_level: Option<String>,
    o_seed: Option<i64>,
    round: i64,
    resigned: Option<String>,
    version: i64,
    snapshot: Vec<u8>,
    created_at: String,
    updated_at: String,
}

/// A listed game with its cursor.
#[derive(sqlx::FromRow)]
struct ListedRow {
    seq: i64,
    #[sqlx(flatten)]
    game: GameRow,
}

fn seat_from(
    kind: &str,
    token: Option<Vec<u8>>,
    level: Option<String>,
    seed: Option<i64>,
) -> Result<Seat, StoreError> {
    match kind {
        "human" => {
            let token = token
                .map(|t| {
                    TokenHash::from_slice(&t)
                        .ok_or_else(|| StoreError::Corrupt("token hash length".into()))
                })
                .transpose()?;
            Ok(Seat::Human { token })
        }
        "bot" => {
            let level = level
                .as_deref()
                .and_then(|l| Level::from_str(l).ok())
                .ok_or_else(|| StoreError::Corrupt(format!("bot level {level:?}")))?;
            let seed = u64::from_ne_bytes(seed.unwrap_or_default().to_ne_bytes());
            Ok(Seat::Bot { level, seed })
        }
        other => Err(StoreError::Corrupt(format!("seat type {other:?}"))),
    }
}

impl GameRow {
    /// Validates the row the way a request is validated: the snapshot goes
    /// through the rules' decoder, names through their parsers.
    fn into_record(self) -> Result<GameRecord, StoreError> {
        let id = Uuid::parse_str(&self.id).map_err(|e| StoreError::Corrupt(format!("id: {e}")))?;
        let kind =
            GameKind::from_str(&self.kind).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let position = AnyGame::decode(kind, &self.snapshot)
            .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
        Ok(GameRecord {
            id,
            position,
            seats: [
                seat_from(&self.x_type, self.x_token, self.x_level, self.x_seed)?,
                seat_from(&self.o_type, self.o_token, self.o_level, self.o_seed)?,
            ],
            hotseat: self.hotseat,
            round: u32::try_from(self.round)
                .map_err(|_| StoreError::Corrupt(format!("round {}", self.round)))?,
            resigned: self.resigned.as_deref().map(parse_player).transpose()?,
            version: self.version,
            created_at: parse_ts(&self.created_at)?,
            updated_at: parse_ts(&self.updated_at)?,
        })
    }
}

/// A stored move.
#[derive(sqlx::FromRow)]
struct MoveRow {
    round: i64,
    ply: i64,
    version: i64,
    player: String,
    a: i64,
    b: Option<i64>,
    at: String,
}

impl MoveRow {
    fn into_record(self, kind: GameKind) -> Result<MoveRecord, StoreError> {
        let corrupt = || StoreError::Corrupt(format!("move {}/{}", self.round, self.ply));
        let mv = match (kind, self.b) {
            (GameKind::ConnectFour, None) => MoveInput::Column { column: self.a },
            (GameKind::TicTacToe | GameKind::Gomoku, Some(b)) => MoveInput::Cell {
                row: self.a,
                col: b,
            },
            (GameKind::UltimateTicTacToe, Some(b)) => MoveInput::BoardCell {
                board: self.a,
                cell: b,
            },
            _ => return Err(corrupt()),
        };
        Ok(MoveRecord {
            round: u32::try_from(self.round).map_err(|_| corrupt())?,
            ply: u32::try_from(self.ply).map_err(|_| corrupt())?,
            version: self.version,
            player: parse_player(&self.player)?,
            mv,
            at: parse_ts(&self.at)?,
        })
    }
}

/// A stored change that is not a move.
#[derive(sqlx::FromRow)]
struct EventRow {
    version: i64,
    #[sqlx(rename = "type")]
    event_type: String,
    round: i64,
    player: Option<String>,
    at: String,
}

impl EventRow {
    fn into_record(self) -> Result<EventRecord, StoreError> {
        let player = self.player.as_deref().map(parse_player).transpose()?;
        let event = match (self.event_type.as_str(), player) {
            ("create", None) => EventType::Create,
            ("join", Some(p)) => EventType::Join(p),
            ("restart", None) => EventType::Restart,
            ("resign", Some(p)) => EventType::Resign(p),
            (name, _) => {
                return Err(StoreError::Corrupt(format!(
                    "event {name:?} at version {}",
                    self.version
                )));
            }
        };
        Ok(EventRecord {
            version: self.version,
            event,
            round: u32::try_from(self.round)
                .map_err(|_| StoreError::Corrupt(format!("round {}", self.round)))?,
            at: parse_ts(&self.at)?,
        })
    }
}
