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
//!   idempotency records go in as one multi-statement query, one JSON array
//!   per table expanded by `json_each`, ending with COMMIT.
//!
//! A batch whose games are all cached is one round trip: `BEGIN IMMEDIATE`,
//! a guard, the writes and `COMMIT`, sent together. The first read that has
//! to go to the database begins the transaction then (`BEGIN IMMEDIATE` with
//! `PRAGMA data_version`, one more round trip).
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
use std::sync::LazyLock;

use lru::LruCache;
use sqlx::Sqlite;
use sqlx::pool::PoolConnection;
use sqlx::sqlite::SqlitePool;
use uuid::Uuid;

use super::StoreError;
use super::pending::{Pending, json_array};
use super::rows::{
    EVENT_COLUMNS, GAME_SQL, GameColumns, IDEMPOTENT, IdempotencyRow, MATCH_IDEMPOTENT,
    MOVE_COLUMNS, MoveRow, ROUND_MOVES, WAITING, ts, waiting_ids,
};
use crate::domain::GameRecord;
use crate::domain::player::KindRating;
use crate::rules::GameKind;

/// Committed games the writer remembers between batches.
const CACHED_GAMES: NonZeroUsize = NonZeroUsize::new(16_384).unwrap();

/// Begins a batch's transaction when a read must go to the database: takes
/// the write lock and reads the count of other connections' commits.
const BEGIN: &str = "BEGIN IMMEDIATE; PRAGMA data_version";

/// Begins the transaction of a batch that read nothing from the database,
/// and stops with an error (`json` refuses the text; nothing is written) if
/// another connection committed since our last commit (`$6`: the count we
/// last saw), as the batch's cached games may then be stale.
const BEGIN_GUARDED: &str = "\
BEGIN IMMEDIATE;
SELECT json('interfered ' || data_version) FROM pragma_data_version WHERE data_version <> $6;
";

/// Writes a batch and commits it, after [`BEGIN_GUARDED`] or [`BEGIN`].
/// `$1`: ids of games to mark deleted; `$2`: games to insert or update; `$3`:
/// moves; `$4`: events; `$5`: idempotency records. Each is a JSON array of
/// rows, each row an object keyed by column name (see [`Batch::flush`]).
/// `$7`: the time of the deletions; `$8`: purge the games deleted before
/// this time (none when NULL); `$9`: takebacks' deletions (see
/// [`Truncation`](super::pending::Truncation)), run before the inserts;
/// `$10`: webhook events, `$11` their bodies (a blob, each event naming its
/// bytes), `$12` their deliveries (see `db/outbox.rs`), `$13` how many
/// events: they took the rowids after the last, one each in order (this
/// writer alone writes the table), which is how a delivery names its event
/// (the `n`th of the batch) without an index on the events' text ids.
/// `$14`: the players' writes (see `db/players.rs`).
static FLUSH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\
WITH r AS MATERIALIZED (SELECT value AS g, key FROM json_each($2)) \
INSERT INTO games ({columns}) SELECT {from_json} FROM r WHERE true ORDER BY key \
  ON CONFLICT (id) DO UPDATE SET {upsert_set};
DELETE FROM moves WHERE seq IN (SELECT m.seq FROM json_each($9) t JOIN moves m \
  ON m.game_id = t.value->>'game_id' AND m.round = t.value->>'round' AND m.ply > t.value->>'keep');
DELETE FROM idempotency WHERE (game_id, key) IN (SELECT i.game_id, i.key FROM json_each($9) t \
  JOIN idempotency i ON i.game_id = t.value->>'game_id' AND i.version >= t.value->>'from_version');
WITH r AS MATERIALIZED (SELECT value AS m, key FROM json_each($3)) \
INSERT INTO moves ({MOVE_COLUMNS}) \
  SELECT m->>'game_id', m->>'round', m->>'ply', m->>'version', m->>'player', m->>'a', m->>'b', m->>'at' \
  FROM r ORDER BY key;
INSERT INTO game_events ({EVENT_COLUMNS}) \
  SELECT value->>'game_id', value->>'version', value->>'type', value->>'round', value->>'player', value->>'at', \
    value->>'detail' \
  FROM json_each($4) ORDER BY key;
INSERT INTO idempotency (game_id, key, request, status, body, version, created_at) \
  SELECT value->>'game_id', value->>'key', value->>'request', value->>'status', value->>'body', \
    value->>'version', value->>'created_at' \
  FROM json_each($5) WHERE true ORDER BY key \
  ON CONFLICT (game_id, key) DO UPDATE \
  SET status = excluded.status, body = excluded.body, version = excluded.version;
UPDATE games SET deleted_at = $7 WHERE id IN (SELECT value FROM json_each($1));
DELETE FROM games WHERE deleted_at < $8;
INSERT INTO webhook_events (event_id, game_id, type, body, created_at) \
  SELECT value->>'event_id', value->>'game_id', value->>'type', \
    substr($11, value->>'off', value->>'len'), value->>'created_at' \
  FROM json_each($10) ORDER BY key;
INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, game_id, next_attempt_at) \
  SELECT value->>'webhook_id', value->>'event_id', \
    (SELECT max(seq) FROM webhook_events) - $13 + (value->>'n'), value->>'game_id', value->>'next_attempt_at' \
  FROM json_each($12) ORDER BY key;
{players}COMMIT",
        columns = GAME_SQL.columns,
        from_json = GAME_SQL.from_json,
        upsert_set = GAME_SQL.upsert_set,
        players = super::players::SQLITE_FLUSH,
    )
});

/// [`BEGIN_GUARDED`] then [`FLUSH`].
static GUARDED_FLUSH: LazyLock<String> = LazyLock::new(|| format!("{BEGIN_GUARDED}{}", *FLUSH));

/// What the writer keeps from one batch to the next: its connection and its
/// cache of committed games. All of it is dropped with a failed batch.
pub(in crate::store) struct WriterState {
    /// Held between batches, unless the database is in memory: its one
    /// connection is the readers' too.
    conn: Option<PoolConnection<Sqlite>>,
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
            hold,
            games: LruCache::new(CACHED_GAMES),
            ratings: LruCache::new(CACHED_GAMES),
            data_version: None,
        }
    }
}

/// An SQLite write transaction whose writes wait in memory until commit.
pub(super) struct Batch {
    conn: PoolConnection<Sqlite>,
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
            None => pool.acquire().await?,
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
            let data_version: i64 = sqlx::query_scalar(BEGIN).fetch_one(&mut *self.conn).await?;
            self.begun = true;
            if self.state.data_version != Some(data_version) {
                self.state.games.clear();
                self.state.ratings.clear();
                self.interfered = self.used_cache;
                self.state.data_version = Some(data_version);
            }
        }
        Ok(&mut self.conn)
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
            let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
            // Tell a refusal of the guard from other failures.
            let now: Option<i64> = sqlx::query_scalar("PRAGMA data_version")
                .fetch_one(&mut *conn)
                .await
                .ok();
            conn.close_on_drop();
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
            let _ = sqlx::query("ROLLBACK").execute(&mut *self.conn).await;
        }
        self.conn.close_on_drop();
    }

    async fn flush(&mut self) -> Result<(), StoreError> {
        let rows = self.pending.rows()?;
        let gone = rows.games.iter().filter(|(_, deleted)| *deleted);
        let gone = json_array(gone.map(|(game, _)| &game.id))?;
        let games = json_array(rows.games.iter().map(|(game, _)| game))?;
        let flush = sqlx::query(if self.begun {
            FLUSH.as_str()
        } else {
            GUARDED_FLUSH.as_str()
        });
        flush
            .bind(gone)
            .bind(games)
            .bind(rows.moves)
            .bind(rows.events)
            .bind(rows.remembered)
            .bind(self.state.data_version)
            .bind(ts(chrono::Utc::now()))
            .bind(self.pending.purge())
            .bind(rows.truncations.unwrap_or_else(|| "[]".into()))
            .bind(json_array(rows.recorded.events.iter())?)
            .bind(rows.recorded.bodies)
            .bind(json_array(rows.recorded.deliveries.iter())?)
            .bind(i64::try_from(rows.recorded.events.len()).unwrap_or(i64::MAX))
            .bind(super::players::sqlite_json(&self.pending.players)?)
            .execute(&mut *self.conn)
            .await?;
        Ok(())
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
