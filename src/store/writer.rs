//! The writers: write jobs queue here and run in batches, one transaction
//! per batch (group commit). SQLite has one writer; PostgreSQL a few per
//! instance, whose batches lock the games they write.
//!
//! Concurrent moves of many games are applied one after the other inside one
//! transaction and committed together, so one commit carries many moves.
//! Every job gets its answer only after the batch's COMMIT has returned, so
//! nothing is acknowledged before it is durable.
//!
//! Jobs check everything before they write, so a refused job has written
//! nothing. The transaction counts its writes: should a job fail after it
//! wrote (a database error half-way), the whole batch is rolled back and every
//! job in it gets the error, so nothing half-done is ever committed.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use lru::LruCache;
use sqlx::Sqlite;
use sqlx::pool::PoolConnection;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;
use uuid::Uuid;

use super::StoreError;
use super::db::{Conn, JobFn, SqliteTx, WriteTx};
use super::outbox::{BUSY_BATCH, Outbox};
use crate::domain::GameRecord;

/// Most jobs run in one transaction.
const MAX_BATCH: usize = 256;

/// Games the writer remembers between batches.
const CACHED_GAMES: std::num::NonZeroUsize = std::num::NonZeroUsize::new(16_384).unwrap();

/// What a job does once the batch's commit is known.
type Completion = Box<dyn FnOnce(Result<(), Arc<StoreError>>) + Send>;

/// A job that ran: how to answer it, and whether it failed after writing.
pub(super) struct Ran {
    complete: Completion,
    poisoned: bool,
}

/// A write job, with its result type erased.
pub(super) trait Job: Send {
    /// The existing game the job writes, if any: on PostgreSQL read and
    /// locked with the batch's other games before its jobs run.
    fn game(&self) -> Option<Uuid>;
    /// Runs the job inside the batch transaction.
    fn run(self: Box<Self>, tx: &mut WriteTx) -> BoxFuture<'_, Ran>;
    /// Fails the job without running it.
    fn fail(self: Box<Self>, error: Arc<StoreError>);
}

pub(super) struct TypedJob<T, E> {
    pub(super) game: Option<Uuid>,
    pub(super) f: JobFn<T, E>,
    pub(super) reply: oneshot::Sender<Result<T, E>>,
    /// The span of the request that queued the job: the job runs in it, so
    /// its log lines name that request and game.
    pub(super) span: tracing::Span,
    /// Where the players' streams the job told are announced after the
    /// commit.
    pub(super) announce: tokio::sync::broadcast::Sender<Uuid>,
}

impl<T, E> Job for TypedJob<T, E>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    fn game(&self) -> Option<Uuid> {
        self.game
    }

    fn run(self: Box<Self>, tx: &mut WriteTx) -> BoxFuture<'_, Ran> {
        Box::pin(async move {
            let TypedJob {
                f,
                reply,
                span,
                announce,
                ..
            } = *self;
            let writes = tx.writes;
            let told = tx.told.len();
            let result = f(tx).instrument(span).await;
            let poisoned = result.is_err() && tx.writes != writes;
            let told: Vec<Uuid> = tx.told.drain(told..).collect();
            let complete: Completion = Box::new(move |commit| {
                let answer = match (commit, result) {
                    (Err(e), Ok(_)) => Err(E::from(StoreError::Batch(e))),
                    (_, result) => result,
                };
                if answer.is_ok() {
                    for id in told {
                        let _ = announce.send(id);
                    }
                }
                let _ = reply.send(answer);
            });
            Ran { complete, poisoned }
        })
    }

    fn fail(self: Box<Self>, error: Arc<StoreError>) {
        let _ = self.reply.send(Err(E::from(StoreError::Batch(error))));
    }
}

/// The database a writer writes.
pub(super) enum Target {
    /// `hold`: keep the connection between batches (not for an in-memory
    /// database, whose readers share it).
    Sqlite {
        pool: SqlitePool,
        hold: bool,
    },
    Postgres(PgPool),
}

/// The queue of write jobs, shared by the writers of one store: a writer
/// holds it while it takes a batch.
pub(super) type Queue = Arc<tokio::sync::Mutex<mpsc::Receiver<Box<dyn Job>>>>;

/// How many writers run batches at once on PostgreSQL: while one batch
/// waits for its COMMIT, the next is applied on another connection. SQLite
/// has one: the file takes one write transaction at a time.
pub(super) const PG_WRITERS: usize = 2;

/// Runs batches until every sender is gone or the pool closes.
pub(super) async fn run(target: Target, queue: Queue, outbox: Arc<Outbox>) {
    let mut batch: Vec<Box<dyn Job>> = Vec::with_capacity(MAX_BATCH);
    // SQLite: the committed games, carried from one batch to the next;
    // emptied by a batch that did not commit.
    let mut cache = Some(LruCache::new(CACHED_GAMES));
    // SQLite: the writer's connection, held from one batch to the next.
    let mut held = None;
    let closed = match &target {
        Target::Sqlite { pool, .. } => pool.close_event(),
        Target::Postgres(pool) => pool.close_event(),
    };
    tokio::pin!(closed);
    loop {
        {
            let mut jobs = tokio::select! {
                jobs = queue.lock() => jobs,
                () = &mut closed => break,
            };
            let first = tokio::select! {
                job = jobs.recv() => match job {
                    Some(job) => job,
                    None => break,
                },
                () = &mut closed => break,
            };
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match jobs.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
        }
        if batch.len() >= BUSY_BATCH {
            outbox.busy_now();
        }
        let games = cache.take().unwrap_or_else(|| LruCache::new(CACHED_GAMES));
        let begun = match &target {
            Target::Sqlite { pool, .. } => begin_sqlite(pool, held.take())
                .await
                .map(|conn| WriteTx::new(Conn::Sqlite(SqliteTx::new(conn)), games, outbox.hooks())),
            Target::Postgres(pool) => {
                let ids: Vec<Uuid> = batch.iter().filter_map(|job| job.game()).collect();
                begin_postgres(pool, games, &ids, outbox.hooks()).await
            }
        };
        let mut tx = match begun {
            Ok(tx) => tx,
            Err(e) => {
                let e = Arc::new(e);
                for job in batch.drain(..) {
                    job.fail(e.clone());
                }
                continue;
            }
        };
        let span = tracing::debug_span!("writer_batch", jobs = batch.len());
        let mut done = Vec::with_capacity(batch.len());
        let mut poisoned = false;
        for job in batch.drain(..) {
            let ran = job.run(&mut tx).await;
            poisoned |= ran.poisoned;
            done.push(ran);
        }
        let recorded = tx.records_events();
        let (commit, ended) = if poisoned {
            let failed = tx.failed.clone();
            let ended = tx.roll_back().await;
            let failed = failed.unwrap_or_else(|| {
                Arc::new(StoreError::Corrupt(
                    "a write failed half-way; the batch was rolled back".into(),
                ))
            });
            (Err(failed), ended)
        } else {
            let (committed, ended) = tx.commit().instrument(span.clone()).await;
            (committed.map_err(Arc::new), ended)
        };
        cache = Some(ended.games);
        // An in-memory database's one connection is the readers' too.
        held = ended
            .conn
            .filter(|_| matches!(target, Target::Sqlite { hold: true, .. }));
        match &commit {
            Ok(()) => {
                if recorded {
                    outbox.recorded.notify_one();
                }
                span.in_scope(|| tracing::debug!("batch committed"));
            }
            Err(e) => span.in_scope(|| tracing::error!(error = %e, "batch not committed")),
        }
        for ran in done {
            (ran.complete)(commit.clone());
        }
    }
}

/// The connection of an SQLite batch: the writer's (`held`), else one
/// from the pool. Its transaction begins with its first statement (see
/// [`SqliteTx`]).
async fn begin_sqlite(
    pool: &SqlitePool,
    held: Option<PoolConnection<Sqlite>>,
) -> Result<PoolConnection<Sqlite>, StoreError> {
    match held {
        Some(conn) => Ok(conn),
        None => Ok(pool.acquire().await?),
    }
}

/// Begins a PostgreSQL batch and reads and locks the games its jobs write,
/// in one statement, in the order of their ids: every instance's writers
/// lock in that order, so two batches never wait for each other in a
/// cycle over them. (The pool pings an idle connection before handing it
/// out, so a batch after a server restart begins on a live one.)
async fn begin_postgres(
    pool: &PgPool,
    games: LruCache<Uuid, GameRecord>,
    ids: &[Uuid],
    hooks: Option<super::outbox::Hooks>,
) -> Result<WriteTx, StoreError> {
    let mut ids: Vec<String> = ids.iter().map(Uuid::to_string).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut tx = WriteTx::new(Conn::Postgres(pool.begin().await?), games, hooks);
    tx.lock_games(&ids).await?;
    Ok(tx)
}
