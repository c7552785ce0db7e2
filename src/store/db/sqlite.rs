//! Opening a SQLite database: the file created and migrated, a lock that
//! keeps a second process out, the single writer started, and a background
//! connection that checkpoints the WAL.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use tokio::sync::mpsc;

use super::super::StoreError;
use super::super::outbox::Outbox;
use super::super::writer::Target;
use super::SqliteBackend;

/// Opens (creating if missing) and migrates the file, takes its lock, and
/// starts the writer.
pub(super) async fn open(
    url: &str,
    read_connections: u32,
    outbox: Arc<Outbox>,
) -> Result<SqliteBackend, StoreError> {
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // NORMAL in WAL mode: a commit survives a crash of the process (only
        // a power loss or OS crash may lose the last commits).
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(Duration::from_secs(5))
        // The WAL is copied into the file by a background connection (see
        // `checkpoint`); the writer's own checkpoint, which stalls every
        // queued write for two fsyncs, comes only at 64 MiB of WAL.
        .pragma("wal_autocheckpoint", "16384")
        // Statement journals and the batch's materialized rows in memory:
        // as files they were opened, written and deleted for most batches.
        .pragma("temp_store", "memory")
        .foreign_keys(true);
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    let lock = if in_memory {
        None
    } else {
        Some(lock_file(options.get_filename())?)
    };
    // One connection, the writer's: SQLite takes one write transaction at a
    // time, and queueing is cheaper than retrying `SQLITE_BUSY`.
    let writer = SqlitePoolOptions::new()
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .test_before_acquire(false)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options.clone())
        .await?;
    sqlx::migrate!("./migrations/sqlite").run(&writer).await?;
    // An in-memory database is one connection's: the readers share it.
    let (reader, checkpointer) = if in_memory {
        (writer.clone(), None)
    } else {
        let checkpointer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        tokio::spawn(checkpoint(checkpointer.clone()));
        let reader = SqlitePoolOptions::new()
            .max_connections(read_connections.max(1))
            // A file the process holds open cannot go stale: no ping (one
            // more trip to the connection's thread) before every read.
            .test_before_acquire(false)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.read_only(true))
            .await?;
        (reader, Some(checkpointer))
    };
    let (jobs, queue) = mpsc::channel(4096);
    let target = Target::Sqlite {
        pool: writer.clone(),
        hold: !in_memory,
    };
    let run = super::super::writer::run(target, Arc::new(tokio::sync::Mutex::new(queue)), outbox);
    // The writer on a thread of its own, with a runtime of its own: its
    // batches never wait for the service's busy workers.
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
    Ok(SqliteBackend {
        reader,
        writer,
        checkpointer,
        jobs,
        lock: Arc::new(std::sync::Mutex::new(lock)),
    })
}

/// Copies the WAL into the database file in the background (PASSIVE: it
/// never blocks the writer or the readers), every 40 ms while there is
/// something to copy, until its pool closes. Off the writer's path
/// (a checkpoint syncs the WAL and the file), so that the writer's own
/// checkpoint finds nearly everything copied.
async fn checkpoint(pool: SqlitePool) {
    let busy = Duration::from_millis(40);
    let idle = Duration::from_millis(250);
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

/// Locks the database file itself (an advisory `flock`, which SQLite's own
/// POSIX locks do not touch): one process serves a file. The lock belongs
/// to the file, not to the name it was opened by, so a second process is
/// refused however it reaches the file: the same path, another spelling, a
/// symbolic link or a hard link (which would give the file a second WAL).
/// The file is created if missing (SQLite takes an empty file as an empty
/// database).
fn lock_file(db: &std::path::Path) -> Result<std::fs::File, StoreError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(db)
        .map_err(|e| StoreError::Unavailable(sqlx::Error::Io(e)))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse(format!(
            "the database {} is in use by another process (the file is locked, under \
             whatever name or link it was opened by); one process serves a SQLite file",
            db.display(),
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Unavailable(sqlx::Error::Io(e))),
    }
}
