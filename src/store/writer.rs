//! The single writer (one per process; on PostgreSQL one per instance):
//! write jobs queue here and run in batches, one transaction per batch
//! (group commit).
//!
//! Concurrent moves of many games are applied one after the other inside one
//! transaction and committed together, so one commit carries many moves.
//! Every job gets its answer only after the batch's COMMIT has returned, so
//! nothing is acknowledged before it is durable.
//!
//! Jobs check everything before they write, so a refused job has written
//! nothing. The transaction counts its writes: should a job fail after it
//! wrote (a database error half-way), the whole batch is rolled back and every
//! job in it gets the error, so nothing half-done is ever committed. (A
//! SAVEPOINT per job would spare the other jobs, at two more statements per
//! job on the hot path, for a case that only a failing disk produces.)

use std::sync::Arc;

use futures_util::future::BoxFuture;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;
use uuid::Uuid;

use super::db::outbox::Outbox;
use super::db::{Kept, WriterState};
use super::{StoreError, WriteTx};

/// Most jobs run in one transaction.
const MAX_BATCH: usize = 256;

/// A PostgreSQL connection held this long without a batch is pinged before
/// the next one: the server may have ended it meanwhile (a restart, a
/// failover, an idle timeout), and a batch on a dead connection fails. Under
/// load batches follow each other faster and pay nothing; a batch that
/// finds the connection dead without the check is begun again on a new one
/// if no job has run, but one of creations only is a single statement that
/// commits itself, which is not sent twice (it may have committed).
const IDLE_CHECK: std::time::Duration = std::time::Duration::from_millis(200);

/// What a job does once the batch's commit is known.
type Completion = Box<dyn FnOnce(Result<(), Arc<StoreError>>) + Send>;

/// A job that ran: how to answer it, where, and whether it failed after
/// writing.
pub(super) struct Ran {
    complete: Completion,
    home: Option<Home>,
    poisoned: bool,
}

/// The thread that queued a job and the runtime it runs: where its answer
/// is delivered (see [`answer`]).
pub(super) struct Home {
    thread: std::thread::ThreadId,
    runtime: tokio::runtime::Handle,
}

impl Home {
    /// The calling task's, when it runs on a Tokio runtime.
    pub(super) fn here() -> Option<Home> {
        Some(Home {
            runtime: tokio::runtime::Handle::try_current().ok()?,
            thread: std::thread::current().id(),
        })
    }
}

/// Answers a committed (or failed) batch's jobs. Each answer sent from
/// this thread wakes its task on another thread's runtime, and Tokio makes
/// every such wake a system call (`write` to the runtime's `eventfd`), one
/// a move; so the answers of the jobs queued from one thread are handed to
/// that thread's runtime in one task, which sends them there, each a wake
/// of a task on its own thread (no call). A job alone from its thread, or
/// queued from outside any runtime, is answered from here.
fn answer(done: Vec<Ran>, commit: &Result<(), Arc<StoreError>>) {
    let mut groups: Vec<(Home, Vec<Completion>)> = Vec::new();
    for Ran { complete, home, .. } in done {
        let Some(home) = home else {
            complete(commit.clone());
            continue;
        };
        match groups.iter_mut().find(|(h, _)| h.thread == home.thread) {
            Some((_, group)) => group.push(complete),
            None => groups.push((home, vec![complete])),
        }
    }
    for (home, mut group) in groups {
        if group.len() == 1 {
            if let Some(complete) = group.pop() {
                complete(commit.clone());
            }
            continue;
        }
        let commit = commit.clone();
        // A runtime already shut down drops the task: its callers, which
        // ran there, are gone with it.
        drop(home.runtime.spawn(async move {
            for complete in group {
                complete(commit.clone());
            }
        }));
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

/// A write job, with its result type erased.
pub(super) trait Job: Send {
    /// The game the job writes, if it writes one that exists: read (and on
    /// PostgreSQL locked) for the whole batch before its jobs run.
    fn game(&self) -> Option<Uuid>;
    /// Runs the job inside the batch transaction.
    fn run(self: Box<Self>, tx: &mut WriteTx) -> BoxFuture<'_, Ran>;
    /// Fails the job without running it.
    fn fail(self: Box<Self>, error: Arc<StoreError>);
}

/// The job function the service writes.
pub type JobFn<T, E> =
    Box<dyn for<'t> FnOnce(&'t mut WriteTx) -> BoxFuture<'t, Result<T, E>> + Send>;

pub(super) struct TypedJob<T, E> {
    pub(super) game: Option<Uuid>,
    pub(super) f: JobFn<T, E>,
    pub(super) reply: oneshot::Sender<Result<T, E>>,
    /// Where the reply is sent from ([`Home::here`] of the caller).
    pub(super) home: Option<Home>,
    /// The span of the request that queued the job: the job runs in it, so
    /// its log lines name that request and game.
    pub(super) span: tracing::Span,
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
                home,
                ..
            } = *self;
            let writes = tx.writes();
            let result = f(tx).instrument(span).await;
            let poisoned = result.is_err() && tx.writes() != writes;
            let complete = Box::new(move |commit: Result<(), Arc<StoreError>>| {
                let answer = match (commit, result) {
                    (Err(e), Ok(_)) => Err(E::from(StoreError::Batch(e))),
                    (_, result) => result,
                };
                let _ = reply.send(answer);
            }) as Completion;
            Ran {
                complete,
                home,
                poisoned,
            }
        })
    }

    fn fail(self: Box<Self>, error: Arc<StoreError>) {
        let _ = self.reply.send(Err(E::from(StoreError::Batch(error))));
    }
}

/// The queue of write jobs, shared by the writers of one store. Holding it
/// is a writer's turn to build a batch: one writer at a time takes jobs and
/// applies them, up to sending the batch's writes; its COMMIT (the wait for
/// the disk) overlaps the next writer's turn. So the jobs that arrive while
/// a batch is built make up the next one, rather than each idle writer
/// starting a batch of the one or two jobs there are (more, smaller
/// batches: more round trips and commits for the same moves).
pub(super) type Queue = Arc<tokio::sync::Mutex<mpsc::Receiver<Box<dyn Job>>>>;

/// A writer's turn to build a batch (the queue, held), given back once the
/// batch's writes are sent (or it failed).
pub(super) type Turn = tokio::sync::OwnedMutexGuard<mpsc::Receiver<Box<dyn Job>>>;

/// How many writers run batches at once on PostgreSQL: while one batch
/// waits for its COMMIT (the fsync), the next is read, locked and applied
/// on another connection. Batches on a common game take turns on its row
/// lock (each locks its games in id order, as two instances' batches do),
/// so nothing is applied to a game that another batch has not committed.
/// SQLite has one writer: the file takes one write transaction at a time.
pub(super) const PG_WRITERS: usize = 2;

/// The shared queue of a store's writers.
pub(super) fn queue(jobs: mpsc::Receiver<Box<dyn Job>>) -> Queue {
    Arc::new(tokio::sync::Mutex::new(jobs))
}

/// Runs batches until every sender is gone or the pool closes. The writer
/// holds the queue from taking a batch's jobs until the batch's writes are
/// sent (see [`Queue`]).
pub(super) async fn run(target: Target, queue: Queue, outbox: Arc<Outbox>) {
    let hold = matches!(target, Target::Sqlite { hold: true, .. });
    let mut batch: Vec<Box<dyn Job>> = Vec::with_capacity(MAX_BATCH);
    // The connection and the cache of committed games, carried from one
    // batch to the next; dropped with a failed batch (the next starts cold).
    let mut state = Some(WriterState::new(hold));
    // PostgreSQL: the connection, held from one batch to the next, and when
    // it last committed one.
    let mut held: Option<sqlx::pool::PoolConnection<sqlx::Postgres>> = None;
    let mut used = std::time::Instant::now();
    // Closing the pool waits for the held connection: let go of it then.
    let closed = match &target {
        Target::Sqlite { pool, .. } => pool.close_event(),
        Target::Postgres(pool) => pool.close_event(),
    };
    tokio::pin!(closed);
    loop {
        let mut turn = tokio::select! {
            turn = queue.clone().lock_owned() => turn,
            () = &mut closed => break,
        };
        let first = tokio::select! {
            job = turn.recv() => match job {
                Some(job) => job,
                None => break,
            },
            () = &mut closed => break,
        };
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match turn.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if batch.len() >= super::db::outbox::BUSY_BATCH {
            outbox.busy_now();
        }
        let cold = || WriterState::new(hold);
        let begun = match &target {
            Target::Sqlite { pool, .. } => {
                WriteTx::begin_sqlite(pool, state.take().unwrap_or_else(cold)).await
            }
            Target::Postgres(pool) => Ok(WriteTx::begin_postgres(
                pool.clone(),
                alive(held.take(), used).await,
            )),
        };
        let games: Vec<Uuid> = batch.iter().filter_map(|job| job.game()).collect();
        let begun = match begun {
            Ok(tx) => match (prefetched(tx, &games).await, &target) {
                // No job has run and nothing is written: on PostgreSQL a
                // connection that died since the check is replaced and the
                // batch begun once more before anyone gets a 503.
                (Err(e), Target::Postgres(pool)) if lost_connection(&e) => {
                    tracing::info!(error = %e, "the writer's connection was lost; retrying the batch on a new one");
                    prefetched(WriteTx::begin_postgres(pool.clone(), None), &games).await
                }
                (begun, _) => begun,
            },
            Err(e) => Err(e),
        };
        let mut tx = match begun {
            Ok(mut tx) => {
                tx.hook(outbox.hooks());
                tx
            }
            Err(e) => {
                let e = Arc::new(e);
                for job in batch.drain(..) {
                    job.fail(e.clone());
                }
                continue;
            }
        };
        let span = tracing::debug_span!("writer_batch", jobs = batch.len());
        let (commit, done) = async {
            let mut done = Vec::with_capacity(batch.len());
            let mut poisoned = false;
            for job in batch.drain(..) {
                let ran = job.run(&mut tx).await;
                poisoned |= ran.poisoned;
                done.push(ran);
            }
            let recorded = tx.records_events();
            let commit = if poisoned {
                tx.abandon().await;
                Err(Arc::new(StoreError::Corrupt(
                    "a write failed half-way; the batch was rolled back".into(),
                )))
            } else {
                let (result, kept) = tx.commit(turn).await;
                match kept {
                    Kept::Sqlite(kept) => state = Some(kept),
                    Kept::Postgres(conn) => {
                        held = conn;
                        used = std::time::Instant::now();
                    }
                }
                result.map_err(Arc::new)
            };
            if recorded {
                outbox.settled(commit.is_ok());
            }
            match &commit {
                Ok(()) if recorded => {
                    outbox.recorded.notify_one();
                    tracing::debug!("batch committed");
                }
                Ok(()) => tracing::debug!("batch committed"),
                Err(e) => tracing::error!(error = %e, "batch not committed"),
            }
            (commit, done)
        }
        .instrument(span)
        .await;
        answer(done, &commit);
    }
    // The statements kept on the connection are finalized before the pool
    // closes it.
    if let Some(state) = state {
        state.release().await;
    }
}

/// `tx` with the batch's games read (and on PostgreSQL locked); rolled
/// back when that fails.
async fn prefetched(mut tx: WriteTx, games: &[Uuid]) -> Result<WriteTx, StoreError> {
    match tx.prefetch(games).await {
        Ok(()) => Ok(tx),
        Err(e) => {
            tx.abandon().await;
            Err(e)
        }
    }
}

/// The held connection if it is still usable: pinged first when it has
/// been idle past [`IDLE_CHECK`] (a round trip, only after a pause); dropped
/// (closed) when the ping fails, so the batch takes a fresh one from the pool.
async fn alive(
    held: Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
    used: std::time::Instant,
) -> Option<sqlx::pool::PoolConnection<sqlx::Postgres>> {
    use sqlx::Connection;
    let mut conn = held?;
    if used.elapsed() < IDLE_CHECK {
        return Some(conn);
    }
    match conn.ping().await {
        Ok(()) => Some(conn),
        Err(e) => {
            tracing::info!(error = %e, "the writer's idle connection is gone; taking a new one");
            None
        }
    }
}

/// Whether a batch failed because its connection is gone (closed, reset,
/// or ended by the server: SQLSTATE classes 08 and 57), so that the same
/// batch may begin again on a new connection.
fn lost_connection(e: &StoreError) -> bool {
    match e {
        StoreError::Unavailable(sqlx::Error::Io(_) | sqlx::Error::Protocol(_))
        | StoreError::Database(sqlx::Error::Protocol(_)) => true,
        StoreError::Unavailable(sqlx::Error::Database(db)) => db
            .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
            .is_some_and(|pg| matches!(pg.code().get(..2), Some("08" | "57"))),
        _ => false,
    }
}

/// Checkpoints the WAL in the background (PASSIVE: never blocks the writer
/// or readers), every 40 ms while there is something to copy (every 10 ms
/// cost ~1.5 µs more a move under load: a checkpoint is two `fsync`s, and the
/// same hot pages copied four times as often). A checkpoint
/// syncs the WAL and the database file, so it is kept off the writer's path:
/// the writer's own automatic checkpoint (at 64 MiB of WAL, see
/// `open_sqlite`) then finds nearly every page copied. The WAL starts over
/// when a write begins after a checkpoint that caught up with it, which
/// happens whenever writes pause; under writes that never pause, it is the
/// writer's checkpoint that bounds the WAL.
pub(super) async fn checkpoint(pool: SqlitePool) {
    let busy = std::time::Duration::from_millis(40);
    let idle = std::time::Duration::from_millis(250);
    loop {
        let pause = match sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&pool)
            .await
        {
            // (blocked, pages in the WAL, pages copied): writes are coming in.
            Ok((_, log, _)) if log > 0 => busy,
            Ok(_) => idle,
            Err(_) if pool.is_closed() => return,
            Err(e) => {
                tracing::warn!(error = %e, "background checkpoint failed");
                idle
            }
        };
        tokio::time::sleep(pause).await;
    }
}
