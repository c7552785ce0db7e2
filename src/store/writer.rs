//! The single writer: write jobs queue here and run in batches, one
//! transaction per batch (group commit).
//!
//! Concurrent moves of many games are applied one after the other inside one
//! transaction and committed together, so one commit carries many moves. Each
//! job runs inside its own SAVEPOINT: a job that fails (a refusal or an error)
//! is rolled back to its savepoint and leaves no trace in the batch. Every job
//! gets its answer only after the batch's COMMIT has returned, so nothing is
//! acknowledged before it is durable; if the commit fails, every job that
//! wrote in the batch gets the error, and nothing of the batch was written.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use sqlx::sqlite::SqlitePool;
use tokio::sync::{mpsc, oneshot};

use super::{StoreError, WriteTx};

/// Most jobs run in one transaction.
const MAX_BATCH: usize = 256;

/// What a job does once the batch's commit is known.
type Completion = Box<dyn FnOnce(Result<(), Arc<StoreError>>) + Send>;

/// A write job, with its result type erased.
pub(super) trait Job: Send {
    /// Runs the job inside the batch transaction.
    fn run<'t>(self: Box<Self>, tx: &'t mut WriteTx) -> BoxFuture<'t, Completion>;
    /// Fails the job without running it.
    fn fail(self: Box<Self>, error: Arc<StoreError>);
}

/// The job function the service writes.
pub type JobFn<T, E> =
    Box<dyn for<'t> FnOnce(&'t mut WriteTx) -> BoxFuture<'t, Result<T, E>> + Send>;

pub(super) struct TypedJob<T, E> {
    pub(super) f: JobFn<T, E>,
    pub(super) reply: oneshot::Sender<Result<T, E>>,
}

impl<T, E> Job for TypedJob<T, E>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    fn run<'t>(self: Box<Self>, tx: &'t mut WriteTx) -> BoxFuture<'t, Completion> {
        Box::pin(async move {
            let TypedJob { f, reply } = *self;
            if let Err(e) = tx.savepoint().await {
                return Box::new(move |_| {
                    let _ = reply.send(Err(E::from(e)));
                }) as Completion;
            }
            let mut result = f(tx).await;
            let settled = if result.is_ok() {
                tx.release().await
            } else {
                tx.rollback_to_savepoint().await
            };
            if let Err(e) = settled {
                result = Err(E::from(e));
            }
            Box::new(move |commit: Result<(), Arc<StoreError>>| {
                let answer = match (commit, result) {
                    (Err(e), Ok(_)) => Err(E::from(StoreError::Batch(e))),
                    (_, result) => result,
                };
                let _ = reply.send(answer);
            }) as Completion
        })
    }

    fn fail(self: Box<Self>, error: Arc<StoreError>) {
        let _ = self.reply.send(Err(E::from(StoreError::Batch(error))));
    }
}

/// Runs batches until every sender is gone.
pub(super) async fn run(pool: SqlitePool, mut jobs: mpsc::Receiver<Box<dyn Job>>) {
    let mut batch: Vec<Box<dyn Job>> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = jobs.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let mut tx = match WriteTx::begin(&pool).await {
            Ok(tx) => tx,
            Err(e) => {
                let e = Arc::new(e);
                for job in batch.drain(..) {
                    job.fail(e.clone());
                }
                continue;
            }
        };
        let mut done = Vec::with_capacity(batch.len());
        for job in batch.drain(..) {
            done.push(job.run(&mut tx).await);
        }
        let commit = tx.commit().await.map_err(Arc::new);
        if let Err(e) = &commit {
            tracing::error!(error = %e, jobs = done.len(), "batch commit failed");
        }
        for complete in done {
            complete(commit.clone());
        }
    }
}
