//! SQLite, the embedded default: a pool of read-only connections, one
//! writer task on a thread of its own with its own connection
//! (`store/writer.rs`, batches in `db/batch.rs`), and a background
//! connection that checkpoints the WAL.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use tokio::sync::mpsc;

use super::super::StoreError;
use super::super::writer::{self, Job};

/// The SQLite backend's pools and the writer's queue.
#[derive(Clone, Debug)]
pub(super) struct Sqlite {
    pub(super) reader: SqlitePool,
    writer: SqlitePool,
    /// Copies the WAL back into the database file, off the writer's path
    /// (none for an in-memory database).
    checkpointer: Option<SqlitePool>,
    pub(super) jobs: mpsc::Sender<Box<dyn Job>>,
}

impl Sqlite {
    /// Closes the pools, the writer's first (it lets go of its connection
    /// when its pool closes).
    pub(super) async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
        if let Some(c) = &self.checkpointer {
            c.close().await;
        }
    }
}

/// Opens (creating if missing) and migrates the file, and starts the writer
/// and the checkpointer.
pub(super) async fn open(
    url: &str,
    read_connections: u32,
    outbox: std::sync::Arc<super::outbox::Outbox>,
) -> Result<Sqlite, StoreError> {
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
        // 8 MiB of page cache per connection (2,048 pages) rather than 2:
        // the pages that live games write stay in memory between batches.
        // Not more: a commit whose inserts split a B-tree page (826 of the
        // writer's commits in 3,000 games) ends with SQLite scanning the
        // cache's whole hash table. The split swaps two pages' numbers
        // through a spare one (the lock byte's page, 1 GiB in), so the
        // cache's highest page number seen is far past the file's end when
        // the commit drops the pages past it, and it looks through every
        // slot. At 32 MiB that scan was 3.8% of the service's CPU with
        // 10,000 games in the file, at 8 MiB 1.0%, with no more reads from
        // the file (docs/benchmarks.md).
        .pragma("cache_size", "-8192")
        // A background connection copies the WAL into the database file as
        // it grows (see `writer::checkpoint`); the writer's own checkpoint,
        // which stalls every queued write for two fsyncs, only comes when
        // the WAL reaches 64 MiB without having started over.
        .pragma("wal_autocheckpoint", "16384")
        .foreign_keys(true);
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    // A file's WAL frames go through `wal_vfs` (fewer system calls a
    // commit); an in-memory database has no WAL.
    let options = if in_memory {
        options
    } else {
        super::wal_vfs::register().map_err(|rc| {
            StoreError::Database(sqlx::Error::Configuration(
                format!("the SQLite VFS could not be registered (code {rc})").into(),
            ))
        })?;
        options.vfs(super::wal_vfs::name())
    };
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
    let run = writer::run(
        writer::Target::Sqlite {
            pool: writer.clone(),
            hold: !in_memory,
        },
        writer::queue(queue),
        outbox,
    );
    // The writer on a thread of its own, with a runtime of its own: a move
    // wakes it and it wakes the move's worker, and nothing else runs there
    // (on the service's shared runtime its wake-ups also woke idle workers
    // looking for tasks to steal).
    std::thread::Builder::new()
        .name("sqlite-writer".into())
        .spawn(move || {
            match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime.block_on(run),
                Err(e) => tracing::error!(error = %e, "the SQLite writer's runtime did not start"),
            }
        })
        .map_err(|e| StoreError::Unavailable(sqlx::Error::Io(e)))?;
    Ok(Sqlite {
        reader,
        writer,
        checkpointer,
        jobs,
    })
}
