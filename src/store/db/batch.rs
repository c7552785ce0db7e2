//! The SQLite write batch: what the jobs of one batch write is held in
//! memory and written, with the COMMIT, in one round trip to the database.
//!
//! sqlx runs each SQLite connection on a thread of its own, and every
//! statement is a round trip to that thread (two thread wake-ups). At three
//! statements per move those round trips, not SQLite, bounded the writer. So
//! inside a batch:
//!
//! - games are read from the batch itself (written earlier in it), then from
//!   a cache of committed games the writer keeps between batches, and only
//!   then from the database;
//! - writes are recorded, and at commit the batch's games, moves, events and
//!   idempotency records are written row by row with the COMMIT, on the
//!   connection's handle taken from sqlx's thread (see `db/bound.rs`) and
//!   kept from one batch to the next (see [`Held`]).
//!
//! A batch whose games are all cached goes to sqlx's thread not at all while
//! the writer keeps the handle: `BEGIN IMMEDIATE`, a guard, the writes and
//! `COMMIT` run on the writer's own thread. The first read that has to go to
//! the database gives the handle back and begins the transaction through
//! sqlx (`BEGIN IMMEDIATE` with `PRAGMA data_version`, a round trip).
//!
//! The cache holds committed states only, and this writer is the only one
//! meant to write the file. It is refreshed from each committed batch and
//! dropped with a failed one. Should another process write the file anyway,
//! `PRAGMA data_version` (which counts other connections' commits) tells: if
//! it moved since our last commit, the cache is dropped, and a batch that
//! already used cached games writes nothing and fails with
//! [`StoreError::Interfered`] (503, retry). The version check of an update
//! is made against the batch's view of the game, which is the database's
//! while the write lock (`BEGIN IMMEDIATE`) is held.

use std::num::NonZeroUsize;

use lru::LruCache;
use sqlx::Sqlite;
use sqlx::pool::PoolConnection;
use sqlx::sqlite::{LockedSqliteHandle, SqlitePool};
use uuid::Uuid;

use super::StoreError;
use super::pending::Pending;
use super::rows::{
    GAME_SQL, GameColumns, IDEMPOTENT, IdempotencyRow, MATCH_IDEMPOTENT, MoveRow, ROUND_MOVES,
    WAITING, waiting_ids,
};
use crate::domain::GameRecord;
use crate::domain::player::KindRating;
use crate::rules::GameKind;

/// Committed games the writer remembers between batches.
const CACHED_GAMES: NonZeroUsize = NonZeroUsize::new(16_384).unwrap();

/// Begins a batch's transaction when a read must go to the database: takes
/// the write lock and reads the count of other connections' commits.
const BEGIN: &str = "BEGIN IMMEDIATE; PRAGMA data_version";

/// What the writer keeps from one batch to the next: its connection and its
/// cache of committed games. All of it is dropped with a failed batch.
pub(in crate::store) struct WriterState {
    /// Held between batches, unless the database is in memory: its one
    /// connection is the readers' too.
    conn: Option<Held>,
    /// The flush's statements, prepared on `conn` (only while it is held).
    prepared: Option<super::bound::Prepared>,
    hold: bool,
    games: LruCache<Uuid, GameRecord>,
    /// Committed ratings, by player and kind (read when a rated round ends).
    ratings: LruCache<(String, GameKind), KindRating>,
    /// `PRAGMA data_version` when the cache was last known to be current.
    data_version: Option<i64>,
}

impl WriterState {
    /// A cold start: no connection yet, nothing cached. `hold`: keep the
    /// connection between batches.
    pub(in crate::store) fn new(hold: bool) -> WriterState {
        WriterState {
            conn: None,
            prepared: None,
            hold,
            games: LruCache::new(CACHED_GAMES),
            ratings: LruCache::new(CACHED_GAMES),
            data_version: None,
        }
    }

    /// Lets go of the connection: finalizes the statements kept on it
    /// first, under its lock (the writer stops).
    pub(in crate::store) async fn release(mut self) {
        if let Some(mut conn) = self.conn.take() {
            close_prepared(&mut conn, self.prepared.take()).await;
        }
    }
}

/// The writer's connection, and sqlx's lock on it (`lock_handle`) kept
/// from one flush to the next until something goes through sqlx again.
///
/// Taking the lock is a round trip to the connection's thread and back, and
/// letting go wakes that thread once more: three thread wake-ups a batch,
/// while a batch whose games are all cached goes through sqlx for nothing
/// else. So the writer keeps the lock while it holds the connection and
/// lets go only to read or write through sqlx (a game not cached, a
/// webhook's rows, a rollback), when it gives the connection back to the
/// pool or closes it. While it is kept, the connection's thread waits on it
/// and nothing else can use the connection: no one else does (the writer
/// holds it out of the pool).
pub(in crate::store) struct Held {
    /// Declared before `conn`, so dropped before it: a connection given
    /// back or closed while its lock is kept would wait for its thread,
    /// which waits for the lock.
    lock: Option<LockedSqliteHandle<'static>>,
    conn: PoolConnection<Sqlite>,
}

impl Held {
    fn new(conn: PoolConnection<Sqlite>) -> Held {
        Held { lock: None, conn }
    }

    /// The connection, for a statement through sqlx (the lock let go).
    fn sqlx(&mut self) -> &mut PoolConnection<Sqlite> {
        self.lock = None;
        &mut self.conn
    }

    /// The connection's handle, locked out of sqlx's thread (taken now if
    /// it is not kept already).
    async fn locked(&mut self) -> Result<&mut LockedSqliteHandle<'static>, StoreError> {
        if self.lock.is_none() {
            let handle = self.conn.lock_handle().await?;
            #[expect(
                unsafe_code,
                reason = "the lock is kept beside the connection it borrows; sqlx has no owned guard"
            )]
            // SAFETY: the guard borrows the mutex in the connection worker's
            // shared state, an `Arc` allocation that the connection (and its
            // thread) owns: it stays where it is while the `PoolConnection`
            // value moves, and lives as long as the connection. `Held` keeps
            // the guard only beside that connection, hands it out only
            // borrowed from `self`, and drops it before the connection
            // (field order; `into_inner`).
            let handle = unsafe {
                std::mem::transmute::<LockedSqliteHandle<'_>, LockedSqliteHandle<'static>>(handle)
            };
            self.lock = Some(handle);
        }
        self.lock
            .as_mut()
            .ok_or_else(|| StoreError::Corrupt("the writer's lock is gone".into()))
    }

    /// The connection, its lock let go (to give it back or close it).
    fn into_inner(self) -> PoolConnection<Sqlite> {
        let Held { lock, conn } = self;
        drop(lock);
        conn
    }
}

/// Finalizes statements kept on `conn` under its lock, before the
/// connection is closed or given back; if the lock cannot be had (the
/// connection's thread is gone), they are left unfinalized (see
/// `bound::Prepared`).
async fn close_prepared(conn: &mut Held, prepared: Option<super::bound::Prepared>) {
    let Some(prepared) = prepared else {
        return;
    };
    match conn.locked().await {
        Ok(handle) => super::bound::close(handle, prepared),
        Err(e) => {
            tracing::warn!(error = %e, "the writer's connection could not be locked to finalize its statements");
            drop(prepared);
        }
    }
}

/// An SQLite write transaction whose writes wait in memory until commit.
pub(super) struct Batch {
    conn: Held,
    state: WriterState,
    /// Whether `BEGIN` has been sent (the first read from the database does).
    begun: bool,
    /// Whether a job of this batch has read a game from the cache.
    used_cache: bool,
    /// Another connection committed after this batch used cached games.
    interfered: bool,
    /// What the batch's jobs wrote, until commit.
    pub(super) pending: Pending,
}

impl Batch {
    /// Starts a batch on the writer's connection; the transaction itself
    /// begins with the first read from the database, or with the commit.
    pub(super) async fn begin(
        pool: &SqlitePool,
        mut state: WriterState,
    ) -> Result<Batch, StoreError> {
        let conn = match state.conn.take() {
            Some(conn) => conn,
            None => Held::new(pool.acquire().await?),
        };
        Ok(Batch {
            conn,
            state,
            begun: false,
            used_cache: false,
            interfered: false,
            pending: Pending::default(),
        })
    }

    /// Begins the transaction if it has not begun (takes the write lock).
    pub(super) async fn begun(&mut self) -> Result<&mut PoolConnection<Sqlite>, StoreError> {
        if !self.begun {
            let data_version: i64 = sqlx::query_scalar(BEGIN)
                .fetch_one(&mut **self.conn.sqlx())
                .await?;
            self.begun = true;
            if self.state.data_version != Some(data_version) {
                self.state.games.clear();
                self.state.ratings.clear();
                self.interfered = self.used_cache;
                self.state.data_version = Some(data_version);
            }
        }
        Ok(self.conn.sqlx())
    }

    /// Writes everything and commits. Gives back the writer's state, with the
    /// cache refreshed with the batch's games when the commit succeeded, and
    /// a cold one when it failed.
    pub(super) async fn commit(mut self) -> (Result<(), StoreError>, WriterState) {
        // The guard needs the count of commits we last saw: without one (a
        // fresh cache), begin the plain way, which reads it.
        let flushed = if !self.begun && self.state.data_version.is_none() {
            self.begun().await.map(|_| ())
        } else {
            Ok(())
        };
        let flushed = match flushed {
            Ok(()) if self.interfered => Err(StoreError::Interfered),
            Ok(()) if !self.pending.ops.is_empty() => {
                let ops = std::mem::take(&mut self.pending.ops);
                let ran = match self.begun().await {
                    Ok(conn) => super::webhooks::run_sqlite(conn, &ops).await,
                    Err(e) => Err(e),
                };
                match ran {
                    Ok(()) => self.flush().await,
                    Err(e) => Err(e),
                }
            }
            Ok(()) => self.flush().await,
            Err(e) => Err(e),
        };
        let Batch {
            mut conn,
            mut state,
            pending,
            ..
        } = self;
        if let Err(e) = flushed {
            let _ = sqlx::query("ROLLBACK").execute(&mut **conn.sqlx()).await;
            // Tell a refusal of the guard from other failures.
            let now: Option<i64> = sqlx::query_scalar("PRAGMA data_version")
                .fetch_one(&mut **conn.sqlx())
                .await
                .ok();
            close_prepared(&mut conn, state.prepared.take()).await;
            conn.into_inner().close_on_drop();
            let e = if now.is_some() && now != state.data_version {
                StoreError::Interfered
            } else {
                e
            };
            return (Err(e), WriterState::new(state.hold));
        }
        for (key, rating) in pending.ratings() {
            state.ratings.put(key, rating);
        }
        for (id, game) in pending.into_committed() {
            match game {
                Some(game) => {
                    state.games.put(id, game);
                }
                None => {
                    state.games.pop(&id);
                }
            }
        }
        if state.hold {
            state.conn = Some(conn);
        }
        (Ok(()), state)
    }

    /// Rolls back and discards the connection (and the cache with it).
    pub(super) async fn abandon(mut self) {
        if self.begun {
            let _ = sqlx::query("ROLLBACK")
                .execute(&mut **self.conn.sqlx())
                .await;
        }
        close_prepared(&mut self.conn, self.state.prepared.take()).await;
        self.conn.into_inner().close_on_drop();
    }

    /// Writes the batch's rows and commits (see `db/bound.rs`), beginning
    /// the transaction first, with the guard, if no read has begun it.
    async fn flush(&mut self) -> Result<(), StoreError> {
        let guard = if self.begun {
            None
        } else {
            // `commit` begins the plain way when there is no count to guard with.
            Some(self.state.data_version.ok_or_else(|| {
                StoreError::Corrupt("a guarded flush without a count of commits".into())
            })?)
        };
        let flush = self.pending.bound(guard);
        let keep = self.state.hold;
        let handle = self.conn.locked().await?;
        super::bound::write(handle, &mut self.state.prepared, keep, &flush)
    }

    /// The game as this batch sees it.
    pub(super) async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        if let Some(written) = self.pending.game(id) {
            return Ok(written);
        }
        if let Some(game) = self.state.games.get(&id) {
            self.used_cache = true;
            return Ok(Some(game.clone()));
        }
        let conn = self.begun().await?;
        let row: Option<GameColumns> = sqlx::query_as(&GAME_SQL.by_id)
            .bind(id.to_string())
            .fetch_optional(&mut **conn)
            .await?;
        let game = row.map(GameColumns::into_record).transpose()?;
        if let Some(game) = &game {
            self.state.games.put(id, game.clone());
        }
        Ok(game)
    }

    /// A player's committed rating in a kind, if any (the batch's own are in
    /// its pending writes): from the cache, else read (and cached).
    pub(super) async fn rating(
        &mut self,
        player: &str,
        kind: GameKind,
    ) -> Result<Option<KindRating>, StoreError> {
        let key = (player.to_owned(), kind);
        if let Some(rating) = self.state.ratings.get(&key) {
            self.used_cache = true;
            return Ok(Some(*rating));
        }
        let conn = self.begun().await?;
        let row: Option<super::players::RatingRow> = sqlx::query_as(super::players::RATING_OF)
            .bind(player)
            .bind(kind.as_str())
            .fetch_optional(&mut **conn)
            .await?;
        let rating = row.map(|r| r.kind_rating());
        if let Some(rating) = rating {
            self.state.ratings.put(key, rating);
        }
        Ok(rating)
    }

    /// The stored moves of a round (the batch's own are in its pending writes).
    pub(super) async fn round_moves(
        &mut self,
        id: Uuid,
        round: u32,
    ) -> Result<Vec<MoveRow>, StoreError> {
        let conn = self.begun().await?;
        let rows = sqlx::query_as(ROUND_MOVES)
            .bind(id.to_string())
            .bind(i64::from(round))
            .fetch_all(&mut **conn)
            .await?;
        Ok(rows)
    }

    /// Quick match's candidates as committed (see [`WAITING`]); the write
    /// lock is held from here on, so nothing changes them behind the batch.
    pub(super) async fn waiting(
        &mut self,
        key: &str,
        after: i64,
        limit: i64,
        since: &str,
    ) -> Result<Vec<(i64, Uuid)>, StoreError> {
        let conn = self.begun().await?;
        let rows = sqlx::query_as(WAITING)
            .bind(key)
            .bind(after)
            .bind(limit)
            .bind(since)
            .fetch_all(&mut **conn)
            .await?;
        waiting_ids(rows)
    }

    /// The stored record of a quick match's idempotency key, stored as
    /// written (with its prefix).
    pub(super) async fn match_idempotent(
        &mut self,
        key: &str,
    ) -> Result<Option<IdempotencyRow>, StoreError> {
        let conn = self.begun().await?;
        let row = sqlx::query_as(MATCH_IDEMPOTENT)
            .bind(key)
            .fetch_optional(&mut **conn)
            .await?;
        Ok(row)
    }

    /// The stored record of an idempotency key (the batch's own are in
    /// its pending writes).
    pub(super) async fn idempotent(
        &mut self,
        id: Uuid,
        key: &str,
    ) -> Result<Option<IdempotencyRow>, StoreError> {
        let conn = self.begun().await?;
        let row = sqlx::query_as(IDEMPOTENT)
            .bind(id.to_string())
            .bind(key)
            .fetch_optional(&mut **conn)
            .await?;
        Ok(row)
    }
}
