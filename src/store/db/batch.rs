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

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::OnceLock;

use lru::LruCache;
use serde_json::{Value, json};
use sqlx::Sqlite;
use sqlx::pool::PoolConnection;
use sqlx::sqlite::SqlitePool;
use uuid::Uuid;

use super::{
    EventRecord, GAME_BY_ID, GameRecord, GameRow, GameValues, MoveRecord, StoreError,
    StoredResponse, event_columns, move_columns, player_str, ts,
};
use crate::rules::Player;

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
/// `$1`: ids of games to delete; `$2`: games to insert or update; `$3`:
/// moves; `$4`: events; `$5`: idempotency records. Each is a JSON array (see
/// [`Batch::flush`]).
const FLUSH: &str = "\
DELETE FROM games WHERE id IN (SELECT value FROM json_each($1));
WITH r AS MATERIALIZED (SELECT value AS g, key FROM json_each($2)) \
INSERT INTO games (id, kind, status, open_seat, hotseat, \
    x_type, x_token, x_level, x_seed, o_type, o_token, o_level, o_seed, \
    round, resigned, version, snapshot, created_at, updated_at) \
  SELECT g->>0, g->>1, g->>2, g->>3, g->>4, \
    g->>5, unhex(g->>6), g->>7, g->>8, g->>9, unhex(g->>10), g->>11, g->>12, \
    g->>13, g->>14, g->>15, unhex(g->>16), g->>17, g->>18 \
  FROM r WHERE true ORDER BY key \
  ON CONFLICT (id) DO UPDATE SET status = excluded.status, open_seat = excluded.open_seat, \
    hotseat = excluded.hotseat, x_type = excluded.x_type, x_token = excluded.x_token, \
    x_level = excluded.x_level, x_seed = excluded.x_seed, o_type = excluded.o_type, \
    o_token = excluded.o_token, o_level = excluded.o_level, o_seed = excluded.o_seed, \
    round = excluded.round, resigned = excluded.resigned, version = excluded.version, \
    snapshot = excluded.snapshot, updated_at = excluded.updated_at;
WITH r AS MATERIALIZED (SELECT value AS m, key FROM json_each($3)) \
INSERT INTO moves (game_id, round, ply, version, player, a, b, at) \
  SELECT m->>0, m->>1, m->>2, m->>3, m->>4, m->>5, m->>6, m->>7 FROM r ORDER BY key;
INSERT INTO game_events (game_id, version, type, round, player, at) \
  SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 \
  FROM json_each($4) ORDER BY key;
INSERT INTO idempotency (game_id, seat, key, status, body, created_at) \
  SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 \
  FROM json_each($5) WHERE true ORDER BY key \
  ON CONFLICT (game_id, seat, key) DO UPDATE SET status = excluded.status, body = excluded.body;
COMMIT";

/// [`BEGIN_GUARDED`] then [`FLUSH`].
static GUARDED_FLUSH: OnceLock<String> = OnceLock::new();

/// What the writer keeps from one batch to the next: its connection and its
/// cache of committed games. All of it is dropped with a failed batch.
pub(in crate::store) struct WriterState {
    /// Held between batches, unless the database is in memory: its one
    /// connection is the readers' too.
    conn: Option<PoolConnection<Sqlite>>,
    hold: bool,
    games: LruCache<Uuid, GameRecord>,
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
            data_version: None,
        }
    }
}

/// A game written in this batch.
struct Written {
    /// Whether it is in the database (it was not created in this batch).
    stored: bool,
    /// Its latest state; `None` once deleted.
    state: Option<GameRecord>,
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
    /// Games written in this batch, in the order first written.
    order: Vec<Uuid>,
    written: HashMap<Uuid, Written>,
    /// Rows to insert, each with its game's id (dropped if the game is deleted).
    moves: Vec<(Uuid, Value)>,
    events: Vec<(Uuid, Value)>,
    remembered: Vec<Remembered>,
}

/// An idempotency record to write.
struct Remembered {
    id: Uuid,
    seat: Player,
    key: String,
    response: StoredResponse,
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
            order: Vec::new(),
            written: HashMap::new(),
            moves: Vec::new(),
            events: Vec::new(),
            remembered: Vec::new(),
        })
    }

    /// Begins the transaction if it has not begun (takes the write lock).
    async fn begun(&mut self) -> Result<&mut PoolConnection<Sqlite>, StoreError> {
        if !self.begun {
            let data_version: i64 = sqlx::query_scalar(BEGIN).fetch_one(&mut *self.conn).await?;
            self.begun = true;
            if self.state.data_version != Some(data_version) {
                self.state.games.clear();
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
            Ok(()) => self.flush().await,
            Err(e) => Err(e),
        };
        let Batch {
            mut conn,
            mut state,
            order,
            mut written,
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
        for id in order {
            match written.remove(&id).and_then(|w| w.state) {
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
        let deleted = |id: &Uuid| self.written.get(id).is_some_and(|w| w.state.is_none());
        let mut gone = Vec::new();
        let mut games = Vec::new();
        for id in &self.order {
            match &self.written[id] {
                Written {
                    stored: true,
                    state: None,
                } => gone.push(json!(id.to_string())),
                Written { state: None, .. } => {}
                Written {
                    state: Some(game), ..
                } => games.push(game_json(game)),
            }
        }
        let rows = |rows: &[(Uuid, Value)]| {
            Value::Array(
                rows.iter()
                    .filter(|(id, _)| !deleted(id))
                    .map(|(_, row)| row.clone())
                    .collect(),
            )
        };
        let moves = rows(&self.moves);
        let events = rows(&self.events);
        let now = ts(chrono::Utc::now());
        let remembered: Vec<Value> = self
            .remembered
            .iter()
            .filter(|r| !deleted(&r.id))
            .map(|r| {
                json!([
                    r.id.to_string(),
                    player_str(r.seat),
                    r.key,
                    r.response.status,
                    r.response.body,
                    now
                ])
            })
            .collect();
        let flush = sqlx::query(if self.begun {
            FLUSH
        } else {
            GUARDED_FLUSH.get_or_init(|| format!("{BEGIN_GUARDED}{FLUSH}"))
        });
        flush
            .bind(Value::Array(gone).to_string())
            .bind(Value::Array(games).to_string())
            .bind(moves.to_string())
            .bind(events.to_string())
            .bind(Value::Array(remembered).to_string())
            .bind(self.state.data_version)
            .execute(&mut *self.conn)
            .await?;
        Ok(())
    }

    /// The game as this batch sees it.
    pub(super) async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        if let Some(w) = self.written.get(&id) {
            return Ok(w.state.clone());
        }
        if let Some(game) = self.state.games.get(&id) {
            self.used_cache = true;
            return Ok(Some(game.clone()));
        }
        let conn = self.begun().await?;
        let row: Option<GameRow> = sqlx::query_as(GAME_BY_ID)
            .bind(id.to_string())
            .fetch_optional(&mut **conn)
            .await?;
        let game = row.map(GameRow::into_record).transpose()?;
        if let Some(game) = &game {
            self.state.games.put(id, game.clone());
        }
        Ok(game)
    }

    fn set(&mut self, id: Uuid, stored: bool, state: Option<GameRecord>) {
        match self.written.get_mut(&id) {
            Some(w) => w.state = state,
            None => {
                self.order.push(id);
                self.written.insert(id, Written { stored, state });
            }
        }
    }

    pub(super) fn insert_game(&mut self, game: &GameRecord) {
        self.set(game.id, false, Some(game.clone()));
    }

    /// Records the new state if the game is at `expected_version`.
    pub(super) async fn update_game(
        &mut self,
        game: &GameRecord,
        expected_version: i64,
    ) -> Result<bool, StoreError> {
        match self.game(game.id).await? {
            Some(current) if current.version == expected_version => {
                self.set(game.id, true, Some(game.clone()));
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    pub(super) async fn delete_game(&mut self, id: Uuid) -> Result<bool, StoreError> {
        if self.game(id).await?.is_none() {
            return Ok(false);
        }
        self.set(id, true, None);
        Ok(true)
    }

    pub(super) fn insert_move(&mut self, id: Uuid, m: &MoveRecord) {
        let (a, b) = move_columns(m);
        let row = json!([
            id.to_string(),
            m.round,
            m.ply,
            m.version,
            player_str(m.player),
            a,
            b,
            ts(m.at)
        ]);
        self.moves.push((id, row));
    }

    pub(super) fn insert_event(&mut self, id: Uuid, e: &EventRecord) {
        let (name, player) = event_columns(e);
        let row = json!([id.to_string(), e.version, name, e.round, player, ts(e.at)]);
        self.events.push((id, row));
    }

    /// The stored answer for an idempotency key: one remembered in this batch,
    /// else the database's.
    pub(super) async fn idempotent(
        &mut self,
        id: Uuid,
        seat: Player,
        key: &str,
    ) -> Result<Option<StoredResponse>, StoreError> {
        if let Some(r) = self
            .remembered
            .iter()
            .rev()
            .find(|r| r.id == id && r.seat == seat && r.key == key)
        {
            return Ok(Some(r.response.clone()));
        }
        let conn = self.begun().await?;
        super::stored_response(
            sqlx::query_as(super::IDEMPOTENT)
                .bind(id.to_string())
                .bind(player_str(seat))
                .bind(key)
                .fetch_optional(&mut **conn)
                .await?,
        )
    }

    pub(super) fn remember(
        &mut self,
        id: Uuid,
        seat: Player,
        key: &str,
        response: &StoredResponse,
    ) {
        self.remembered.push(Remembered {
            id,
            seat,
            key: key.to_owned(),
            response: response.clone(),
        });
    }
}

/// A game's columns in the order of [`FLUSH`]'s games insert; blobs in hex.
fn game_json(game: &GameRecord) -> Value {
    let v = GameValues::of(game);
    let hex = |b: &Option<Vec<u8>>| b.as_ref().map(hex::encode);
    json!([
        v.id,
        v.kind,
        v.status,
        v.open_seat,
        v.hotseat,
        v.seats[0].0,
        hex(&v.seats[0].1),
        v.seats[0].2,
        v.seats[0].3,
        v.seats[1].0,
        hex(&v.seats[1].1),
        v.seats[1].2,
        v.seats[1].3,
        v.round,
        v.resigned,
        v.version,
        hex::encode(&v.snapshot),
        ts(game.created_at),
        v.updated_at
    ])
}
