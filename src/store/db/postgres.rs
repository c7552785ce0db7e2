//! PostgreSQL, for many stateless instances on one database: each instance
//! runs one writer task whose batches lock the games they write (`SELECT …
//! FOR UPDATE`, see `db/pg_batch.rs`), and changes are announced to every
//! instance with `LISTEN/NOTIFY`.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use super::super::StoreError;
use super::super::writer::{self, Job};
use super::pg_batch::CHANNEL;

/// The PostgreSQL backend: one pool for reads and the writer's batches, and
/// the writer's queue.
#[derive(Clone, Debug)]
pub(super) struct Postgres {
    pub(super) pool: PgPool,
    pub(super) jobs: mpsc::Sender<Box<dyn Job>>,
}

/// Connects, migrates, and starts forwarding change notifications.
pub(super) async fn open(
    url: &str,
    connections: u32,
    changed: broadcast::Sender<Uuid>,
    outbox: std::sync::Arc<super::outbox::Outbox>,
) -> Result<Postgres, StoreError> {
    let options = PgConnectOptions::from_str(url)?;
    // A request that needs a connection waits at most 3 s for one: with the
    // server down, sqlx retries connecting until then, so this is how long a
    // write takes to be refused with 503 (10 s before: past a client's
    // patience, and past the compose check's 6 s). Under load, requests queue
    // in the writer, not here; a pool busy for 3 s is overloaded, and says so.
    let pool = PgPoolOptions::new()
        .max_connections(connections.max(2) * 4)
        .acquire_timeout(Duration::from_secs(3))
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    tokio::spawn(listen(pool.clone(), changed));
    let (jobs, queue) = mpsc::channel(4096);
    let queue = writer::queue(queue);
    for _ in 0..writer::PG_WRITERS {
        tokio::spawn(writer::run(
            writer::Target::Postgres(pool.clone()),
            queue.clone(),
            outbox.clone(),
        ));
    }
    Ok(Postgres { pool, jobs })
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
