//! The backends and the write transaction: [`Store`] opens SQLite or
//! PostgreSQL and runs write jobs, [`WriteTx`] is what a job writes through.
//! The records' own reads and writes are in their modules (`games`,
//! `moves`, …), each query written once for both backends; `sqlite` opens
//! a SQLite file (created, migrated, locked against a second process);
//! `hosts` reads a PostgreSQL URL's host list and follows a failover.

use std::sync::{Arc, OnceLock, PoisonError};
use std::time::Duration;

use chrono::Utc;
use futures_util::future::BoxFuture;
use lru::LruCache;
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};
use sqlx::query_builder::Separated;
use sqlx::sqlite::SqlitePool;
use sqlx::{Postgres, QueryBuilder, Sqlite, Transaction};
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

use super::StoreError;
use super::games::{GameRow, Split, StagedGame, game_columns};
use super::idempotency::IdempotencyRow;
use super::moves::{EventRow, MoveRow};
use super::outbox::{Hooks, Outbox, Recorder};
use super::writer::{Job, PG_WRITERS, Target, TypedJob};
use crate::domain::GameRecord;

// Opening the SQLite file: its lock, its writer, its checkpoints.
mod hosts;
mod sqlite;

/// Runs `$body` with `$c` bound to the backend's reader pool (the same
/// query text against either backend).
macro_rules! on_reader {
    ($store:expr, |$c:ident| $body:expr) => {
        match &$store.backend {
            $crate::store::db::Backend::Sqlite(s) => {
                let $c = &s.reader;
                $body
            }
            $crate::store::db::Backend::Postgres(p) => {
                let $c = &p.pool;
                $body
            }
        }
    };
}

/// Runs `$body` with `$c` bound to the write transaction's connection.
macro_rules! on_conn {
    ($tx:expr, |$c:ident| $body:expr) => {
        match &mut $tx.conn {
            $crate::store::db::Conn::Sqlite(t) => {
                let $c: &mut sqlx::SqliteConnection = t.begun().await?;
                $body
            }
            $crate::store::db::Conn::Postgres(t) => {
                let $c: &mut sqlx::PgConnection = &mut **t;
                $body
            }
        }
    };
}
pub(super) use {on_conn, on_reader};

/// Binds a row's columns, in its table's column order (PostgreSQL: a row
/// of a statement's `VALUES`).
pub(super) trait BindRow {
    fn bind_row<'a>(&'a self, b: &mut Separated<'_, 'a, Postgres, &'static str>);
}

impl<R: BindRow> BindRow for &R {
    fn bind_row<'a>(&'a self, b: &mut Separated<'_, 'a, Postgres, &'static str>) {
        (**self).bind_row(b);
    }
}

/// Writes a row's columns, in its table's column order, as the elements of
/// a JSON array (SQLite: one row of a statement's one JSON argument, see
/// [`Batch`]).
pub(super) trait JsonRow {
    /// Whether each column is a blob (written as hex, read with `unhex`).
    fn blobs() -> Vec<bool>;
    fn write_cells<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error>;
}

impl<R: JsonRow> JsonRow for &R {
    fn blobs() -> Vec<bool> {
        R::blobs()
    }
    fn write_cells<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
        (**self).write_cells(seq)
    }
}

/// A column's value in a JSON row: text, integers and NULL as themselves,
/// booleans as 0 and 1 (as SQLite stores them), blobs as hex.
pub(super) trait JsonCell {
    const BLOB: bool = false;
    fn write<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error>;
}

impl JsonCell for String {
    fn write<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
        seq.serialize_element(self)
    }
}

impl JsonCell for i64 {
    fn write<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
        seq.serialize_element(self)
    }
}

impl JsonCell for bool {
    fn write<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
        seq.serialize_element(&i64::from(*self))
    }
}

impl JsonCell for Vec<u8> {
    const BLOB: bool = true;
    fn write<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
        seq.serialize_element(&hex::encode(self))
    }
}

impl<T: JsonCell> JsonCell for Option<T> {
    const BLOB: bool = T::BLOB;
    fn write<S: SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
        match self {
            Some(value) => value.write(seq),
            None => seq.serialize_element(&()),
        }
    }
}

/// Whether the field `_field` reads is a blob (the field's type, named by
/// the function that takes it out of its row).
pub(super) fn blob_of<R, T: JsonCell>(_field: fn(R) -> T) -> bool {
    T::BLOB
}

/// Rows as one JSON array of arrays.
fn json_rows<R: JsonRow>(rows: &[R]) -> Result<String, StoreError> {
    struct Row<'r, R>(&'r R);
    impl<R: JsonRow> Serialize for Row<'_, R> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(None)?;
            self.0.write_cells(&mut seq)?;
            seq.end()
        }
    }
    struct Rows<'r, R>(&'r [R]);
    impl<R: JsonRow> Serialize for Rows<'_, R> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(Row))
        }
    }
    serde_json::to_string(&Rows(rows))
        .map_err(|e| StoreError::Corrupt(format!("a row as JSON: {e}")))
}

/// Implements [`BindRow`] for both backends: the row's fields named, in
/// its table's column order.
macro_rules! bind_row {
    ($row:ty: $($field:ident),* $(,)?) => {
        impl $crate::store::db::BindRow for $row {
            fn bind_row<'a>(
                &'a self,
                b: &mut sqlx::query_builder::Separated<'_, 'a, sqlx::Postgres, &'static str>,
            ) {
                $( b.push_bind(&self.$field); )*
            }
        }
        impl $crate::store::db::JsonRow for $row {
            fn blobs() -> Vec<bool> {
                vec![$( $crate::store::db::blob_of(|r: $row| r.$field) ),*]
            }
            fn write_cells<S: serde::ser::SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
                $( $crate::store::db::JsonCell::write(&self.$field, seq)?; )*
                Ok(())
            }
        }
    };
}
pub(super) use bind_row;

/// Where the statements that write a batch's staged rows go. SQLite
/// ([`SqliteBatch`]): one text, a statement per table whose text never
/// changes, the table's rows one JSON argument (`json_each`): every
/// statement goes through the connection's thread, and a batch costs one
/// trip there rather than one per statement (two thread wake-ups each).
/// PostgreSQL: statements of many `VALUES`.
pub(super) trait Batch<'a> {
    /// Adds the statement that writes `rows` as `many` says (none for no
    /// rows).
    fn rows<R: BindRow + JsonRow>(&mut self, many: &Many, rows: &'a [R]) -> Result<(), StoreError>;
}

/// An SQLite batch: its statements' text and their JSON arguments.
#[derive(Default)]
struct SqliteBatch {
    sql: String,
    rows: Vec<String>,
}

impl SqliteBatch {
    /// Adds `statement` to the text.
    fn then(&mut self, statement: &str) {
        if !self.sql.is_empty() {
            self.sql.push_str("; ");
        }
        self.sql.push_str(statement);
    }
}

impl<'a> Batch<'a> for SqliteBatch {
    fn rows<R: BindRow + JsonRow>(&mut self, many: &Many, rows: &'a [R]) -> Result<(), StoreError> {
        if !rows.is_empty() {
            self.then(many.json::<R>());
            self.rows.push(json_rows(rows)?);
        }
        Ok(())
    }
}

impl<'a> Batch<'a> for Vec<QueryBuilder<'a, Postgres>> {
    fn rows<R: BindRow + JsonRow>(&mut self, many: &Many, rows: &'a [R]) -> Result<(), StoreError> {
        for chunk in slices(rows) {
            let mut q = QueryBuilder::new(&many.head);
            q.push_values(chunk, |mut b, row| row.bind_row(&mut b));
            q.push(&many.tail);
            self.push(q);
        }
        Ok(())
    }
}

/// A statement for many rows of one table: its head, the rows (`VALUES`, or
/// on SQLite a `SELECT` of the JSON argument's rows), its tail.
pub(super) struct Many {
    head: String,
    tail: String,
    /// The SQLite text, made once.
    json: OnceLock<String>,
}

impl Many {
    /// `INSERT INTO {table} ({columns}) VALUES … {on_conflict}`.
    pub(super) fn insert(table: &str, columns: &str, on_conflict: &str) -> Many {
        Many::around(&format!("INSERT INTO {table} ({columns}) "), on_conflict)
    }

    /// The rows' `VALUES` between `head` and `tail`.
    pub(super) fn around(head: &str, tail: &str) -> Many {
        Many {
            head: head.to_owned(),
            tail: tail.to_owned(),
            json: OnceLock::new(),
        }
    }

    /// SQLite: the statement with its rows from one JSON argument, an array
    /// of rows (`WHERE true`: an `INSERT … SELECT` before `ON CONFLICT`
    /// needs one).
    fn json<R: JsonRow>(&self) -> &str {
        self.json.get_or_init(|| {
            let cells: Vec<String> = R::blobs()
                .iter()
                .enumerate()
                .map(|(i, blob)| match blob {
                    true => format!("unhex(j.row ->> {i})"),
                    false => format!("j.row ->> {i}"),
                })
                .collect();
            format!(
                "{}WITH j (row) AS MATERIALIZED (SELECT value FROM json_each(?)) \
                 SELECT {} FROM j WHERE true{}",
                self.head,
                cells.join(", "),
                self.tail
            )
        })
    }
}

/// The staged rows' statements, each table's in order (games first: the
/// others refer to them).
fn push_staged<'a>(
    out: &mut impl Batch<'a>,
    staged: &'a Staged,
    games: &'a Split<'a>,
) -> Result<(), StoreError> {
    super::games::push_rows(out, games)?;
    out.rows(super::moves::insert_moves(), &staged.moves)?;
    out.rows(super::moves::insert_events(), &staged.events)?;
    out.rows(super::idempotency::insert_rows(), &staged.answers)
}

/// The job function the service writes.
pub type JobFn<T, E> =
    Box<dyn for<'t> FnOnce(&'t mut WriteTx) -> BoxFuture<'t, Result<T, E>> + Send>;

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    pub(super) backend: Backend,
    changed: broadcast::Sender<Uuid>,
    /// The webhook endpoints events are recorded for.
    pub(super) outbox: Arc<Outbox>,
}

#[derive(Clone, Debug)]
pub(super) enum Backend {
    /// Reads through a pool; writes through the one writer task.
    Sqlite(SqliteBackend),
    /// Many instances may share it: each write job is a transaction.
    Postgres(PgBackend),
}

#[derive(Clone, Debug)]
pub(super) struct SqliteBackend {
    pub(super) reader: SqlitePool,
    writer: SqlitePool,
    /// Copies the WAL into the file (none for an in-memory database).
    checkpointer: Option<SqlitePool>,
    jobs: mpsc::Sender<Box<dyn Job>>,
    /// The lock that keeps other processes off the file, held while open.
    lock: Arc<std::sync::Mutex<Option<std::fs::File>>>,
}

#[derive(Clone, Debug)]
pub(super) struct PgBackend {
    pub(super) pool: PgPool,
    jobs: mpsc::Sender<Box<dyn Job>>,
}

/// The channel on which PostgreSQL announces changed games to every instance.
const CHANNEL: &str = "tabula_changes";

impl Store {
    /// Opens the database at `url` (`sqlite://…` or `postgres://…`), creating
    /// an SQLite file if missing, and applies the migrations.
    ///
    /// # Errors
    /// When the database cannot be opened, another process serves the
    /// SQLite file, or a migration fails.
    pub async fn open(url: &str, read_connections: u32) -> Result<Store, StoreError> {
        let (changed, _) = broadcast::channel(1024);
        let outbox = Arc::new(Outbox::default());
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres(
                open_postgres(url, read_connections, changed.clone(), outbox.clone()).await?,
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
            Backend::Sqlite(s) => s.reader.is_closed(),
            Backend::Postgres(p) => p.pool.is_closed(),
        }
    }

    /// Whether the writer (on PostgreSQL, any of its writers) took a batch
    /// of `outbox::BUSY_BATCH` jobs or more within `window`: how busy it
    /// is.
    #[must_use]
    pub fn busy_within(&self, window: Duration) -> bool {
        self.outbox.busy_within(window)
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

    /// Closes the pools, letting queries in flight finish, and lets go of
    /// the SQLite file's lock.
    pub async fn close(&self) {
        match &self.backend {
            Backend::Sqlite(s) => {
                s.writer.close().await;
                s.reader.close().await;
                if let Some(c) = &s.checkpointer {
                    c.close().await;
                }
                drop(s.lock.lock().unwrap_or_else(PoisonError::into_inner).take());
            }
            Backend::Postgres(p) => p.pool.close().await,
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
    pub async fn write<T, E>(&self, game: Option<Uuid>, f: super::JobFn<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let jobs = match &self.backend {
            Backend::Sqlite(s) => &s.jobs,
            Backend::Postgres(p) => &p.jobs,
        };
        let (reply, answer) = oneshot::channel();
        let job: Box<dyn Job> = Box::new(TypedJob {
            game,
            f,
            reply,
            span: tracing::Span::current(),
            announce: self.changed.clone(),
        });
        let closed = || E::from(StoreError::Unavailable(sqlx::Error::PoolClosed));
        if jobs.send(job).await.is_err() {
            return Err(closed());
        }
        answer.await.unwrap_or_else(|_| Err(closed()))
    }
}

/// Connects, migrates, and starts forwarding change notifications.
async fn open_postgres(
    url: &str,
    connections: u32,
    changed: broadcast::Sender<Uuid>,
    outbox: Arc<Outbox>,
) -> Result<PgBackend, StoreError> {
    let hosts = hosts::Hosts::parse(url)?;
    // The first host listed that serves (and, with `read-write`, is the
    // primary); the first listed if none does now (connecting then fails
    // as it would with one host).
    let options = match hosts.choose().await {
        Some(chosen) => chosen,
        None => hosts.options[0].clone(),
    };
    let read_write = hosts.read_write;
    // A request that needs a connection waits at most 3 s for one: with the
    // server down, sqlx retries connecting until then, so this is how long a
    // write takes to be refused with 503.
    let pool = PgPoolOptions::new()
        .max_connections(connections.max(2) * 4)
        .acquire_timeout(Duration::from_secs(3))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                // `read-write`: never a connection to a standby (refused as
                // the database being away: 503 until the watcher moves on).
                if read_write && !hosts::accepts_writes(&mut *conn).await? {
                    return Err(sqlx::Error::Io(std::io::Error::other(
                        "the server is a standby; target_session_attrs=read-write",
                    )));
                }
                Ok(())
            })
        })
        .connect_with(options)
        .await?;
    if hosts.watched() {
        tokio::spawn(hosts::watch(pool.clone(), hosts));
    }
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    tokio::spawn(listen(pool.clone(), changed));
    let (jobs, queue) = mpsc::channel(4096);
    let queue = Arc::new(tokio::sync::Mutex::new(queue));
    for _ in 0..PG_WRITERS {
        tokio::spawn(super::writer::run(
            Target::Postgres(pool.clone()),
            queue.clone(),
            outbox.clone(),
        ));
    }
    Ok(PgBackend { pool, jobs })
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
pub(super) enum Conn {
    /// The SQLite writer's connection, in its batch's transaction (ended by
    /// the writer, which no one cancels).
    Sqlite(SqliteTx),
    Postgres(Transaction<'static, Postgres>),
}

/// The SQLite writer's connection and whether its batch's transaction has
/// begun: `BEGIN IMMEDIATE` goes with the batch's first statement, so a
/// batch of moves is one trip to the connection's thread (see [`Batch`]).
/// It takes the write lock then: until then the batch has read nothing but
/// the writer's cache of games (the writer is the file's only one).
pub(super) struct SqliteTx {
    conn: PoolConnection<Sqlite>,
    begun: bool,
}

impl SqliteTx {
    pub(super) fn new(conn: PoolConnection<Sqlite>) -> SqliteTx {
        SqliteTx { conn, begun: false }
    }

    /// The connection, in the transaction (begun now if it has not been).
    pub(super) async fn begun(&mut self) -> Result<&mut sqlx::SqliteConnection, sqlx::Error> {
        if !self.begun {
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut *self.conn)
                .await?;
            self.begun = true;
        }
        Ok(&mut *self.conn)
    }
}

/// What a transaction leaves: the SQLite writer's connection, unless it
/// failed, and the cache of games (emptied when it failed: it may hold what
/// was never committed).
pub(super) struct Ended {
    pub(super) conn: Option<PoolConnection<Sqlite>>,
    pub(super) games: LruCache<Uuid, GameRecord>,
}

impl Ended {
    /// After a failure: rolled back, the connection closed, the cache emptied.
    async fn failed(
        mut conn: PoolConnection<Sqlite>,
        mut games: LruCache<Uuid, GameRecord>,
    ) -> Ended {
        // The transaction may be over already (SQLite rolls back on some
        // errors): the connection is closed either way.
        let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
        conn.close_on_drop();
        games.clear();
        Ended { conn: None, games }
    }
}

/// The rows a batch has written and not yet sent (see [`WriteTx::flush`]).
#[derive(Default)]
pub(super) struct Staged {
    /// Each game's latest row, in the order first written.
    pub(super) games: Vec<StagedGame>,
    pub(super) moves: Vec<MoveRow>,
    pub(super) events: Vec<EventRow>,
    pub(super) answers: Vec<IdempotencyRow>,
}

/// A write transaction.
pub struct WriteTx {
    pub(super) conn: Conn,
    /// Games as this transaction sees them: on SQLite the writer's cache of
    /// games, kept from batch to batch (it is the only writer); on
    /// PostgreSQL those the job read and locked.
    pub(super) games: LruCache<Uuid, GameRecord>,
    pub(super) staged: Staged,
    /// Writes made so far (staged or sent).
    pub(super) writes: u64,
    /// What webhook events need, when some endpoint wants them.
    pub(super) recorder: Option<Recorder>,
    /// Games written (PostgreSQL: notified at commit).
    pub(super) changed: Vec<Uuid>,
    /// Players' streams told of an event: announced on this instance once
    /// the job's batch commits (PostgreSQL also notifies them, in `changed`).
    pub(super) told: Vec<Uuid>,
    /// Why sending the staged rows failed, if it did: the transaction can
    /// only be rolled back, and its batch fails for this reason.
    pub(super) failed: Option<Arc<StoreError>>,
}

impl WriteTx {
    pub(super) fn new(
        conn: Conn,
        games: LruCache<Uuid, GameRecord>,
        hooks: Option<Hooks>,
    ) -> WriteTx {
        WriteTx {
            conn,
            games,
            staged: Staged::default(),
            writes: 0,
            recorder: hooks.map(Recorder::new),
            changed: Vec::new(),
            told: Vec::new(),
            failed: None,
        }
    }

    /// Whether the transaction records webhook events.
    pub(super) fn records_events(&self) -> bool {
        self.recorder.as_ref().is_some_and(Recorder::has_steps)
    }

    /// PostgreSQL: reads and locks the games `ids` (sorted), in one
    /// statement.
    pub(super) async fn lock_games(&mut self, ids: &[String]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let sql = format!(
            "SELECT {} FROM games WHERE id = ANY($1) AND deleted_at IS NULL \
             ORDER BY id FOR UPDATE",
            game_columns()
        );
        let rows: Vec<GameRow> = match &mut self.conn {
            Conn::Postgres(t) => sqlx::query_as(&sql).bind(ids).fetch_all(&mut **t).await?,
            Conn::Sqlite(_) => return Ok(()),
        };
        for row in rows {
            let game = row.into_record()?;
            self.games.put(game.id, game);
        }
        Ok(())
    }

    /// Sends the staged rows into the transaction: each table's in
    /// statements for many (games first: the others refer to them), then
    /// the webhook events they made. Called before anything is read through
    /// SQL and before the commit.
    ///
    /// # Errors
    /// Database errors.
    pub(super) async fn flush(&mut self) -> Result<(), StoreError> {
        if let Some(failed) = &self.failed {
            return Err(StoreError::Batch(failed.clone()));
        }
        match self.send_staged(false).await {
            Ok(_) => Ok(()),
            Err(e) => {
                let e = Arc::new(e);
                self.failed = Some(e.clone());
                Err(StoreError::Batch(e))
            }
        }
    }

    /// Sends the staged rows and the webhook events they made; with
    /// `commit`, on SQLite, the `COMMIT` too when it can go with them.
    /// Whether it did.
    async fn send_staged(&mut self, commit: bool) -> Result<bool, StoreError> {
        let staged = std::mem::take(&mut self.staged);
        let games = Split::of(&staged.games);
        let events = match self.recorder.as_mut() {
            Some(recorder) => recorder.take_events()?,
            None => Vec::new(),
        };
        let committed = match &mut self.conn {
            Conn::Sqlite(t) => {
                let mut batch = SqliteBatch::default();
                if !t.begun {
                    batch.then("BEGIN IMMEDIATE");
                }
                push_staged(&mut batch, &staged, &games)?;
                let commit = commit && events.is_empty();
                // Nothing to write and nothing begun: nothing to commit.
                if commit && batch.rows.is_empty() && !t.begun {
                    return Ok(true);
                }
                if commit {
                    batch.then("COMMIT");
                }
                if !batch.sql.is_empty() {
                    let mut query = sqlx::query(&batch.sql);
                    for json in batch.rows {
                        query = query.bind(json);
                    }
                    query.execute(&mut *t.conn).await?;
                    t.begun = true;
                }
                commit
            }
            Conn::Postgres(t) => {
                let mut statements = Vec::new();
                push_staged(&mut statements, &staged, &games)?;
                for mut q in statements {
                    q.build().execute(&mut **t).await?;
                }
                false
            }
        };
        if !events.is_empty() {
            super::outbox::write_events(self, events).await?;
        }
        Ok(committed)
    }

    /// Writes what is staged and commits; gives back the connection (on
    /// SQLite, the writer's, for its next batch) and the cache of games.
    /// A transaction that fails to commit is rolled back, and an SQLite
    /// connection closed (the next batch takes a fresh one).
    ///
    /// # Errors
    /// When a write or the commit fails (nothing was written then).
    pub(super) async fn commit(mut self) -> (Result<(), StoreError>, Ended) {
        let flushed = match &self.failed {
            Some(failed) => Err(StoreError::Batch(failed.clone())),
            None => self.send_staged(true).await,
        };
        let WriteTx {
            conn,
            mut games,
            changed,
            ..
        } = self;
        match conn {
            Conn::Sqlite(mut t) => {
                let committed = match flushed {
                    Ok(true) => Ok(()),
                    // Not committed with the rows (webhook events followed them).
                    Ok(false) => sqlx::query("COMMIT")
                        .execute(&mut *t.conn)
                        .await
                        .map(|_| ()),
                    Err(e) => return (Err(e), Ended::failed(t.conn, games).await),
                };
                match committed {
                    Ok(()) => (
                        Ok(()),
                        Ended {
                            conn: Some(t.conn),
                            games,
                        },
                    ),
                    Err(e) => (Err(e.into()), Ended::failed(t.conn, games).await),
                }
            }
            Conn::Postgres(mut t) => {
                games.clear();
                let ended = Ended { conn: None, games };
                if let Err(e) = flushed {
                    return (Err(e), ended);
                }
                if !changed.is_empty() {
                    let ids: Vec<String> = changed.iter().map(Uuid::to_string).collect();
                    let notified =
                        sqlx::query("SELECT pg_notify($1, id) FROM unnest($2::text[]) AS ids(id)")
                            .bind(CHANNEL)
                            .bind(ids)
                            .execute(&mut *t)
                            .await;
                    if let Err(e) = notified {
                        return (Err(e.into()), ended);
                    }
                }
                (t.commit().await.map_err(StoreError::from), ended)
            }
        }
    }

    /// Rolls back (see [`Ended::failed`]).
    pub(super) async fn roll_back(self) -> Ended {
        match self.conn {
            Conn::Sqlite(t) => Ended::failed(t.conn, self.games).await,
            // Dropped: rolled back.
            Conn::Postgres(_) => {
                let mut games = self.games;
                games.clear();
                Ended { conn: None, games }
            }
        }
    }

    /// Counts a write that goes straight into the transaction: what is
    /// staged goes first, so the statement sees it.
    pub(super) async fn direct(&mut self) -> Result<(), StoreError> {
        self.flush().await?;
        self.writes += 1;
        Ok(())
    }

    /// Notes a write of game `game` (its new state) for events and
    /// notifications; `before`: as it was (none: new).
    pub(super) fn wrote(&mut self, before: Option<&GameRecord>, after: &GameRecord, deleted: bool) {
        self.writes += 1;
        if !self.changed.contains(&after.id) {
            self.changed.push(after.id);
        }
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.step(before, after, deleted);
        }
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

/// `rows` in slices of descending powers of two (37: 32, 4, 1), for
/// multi-row statements: a statement's text, and so its prepared form in
/// the connection's cache, is one of a few per table rather than one per
/// batch size (preparing a new one each batch cost more than the insert).
pub(super) fn slices<T>(mut rows: &[T]) -> impl Iterator<Item = &[T]> {
    std::iter::from_fn(move || {
        if rows.is_empty() {
            return None;
        }
        let n = 1 << rows.len().min(ROWS_PER_STATEMENT).ilog2();
        let (slice, rest) = rows.split_at(n);
        rows = rest;
        Some(slice)
    })
}

/// Most rows in one multi-row statement (a power of two).
const ROWS_PER_STATEMENT: usize = 64;
