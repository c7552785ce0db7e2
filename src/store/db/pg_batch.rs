//! The PostgreSQL write batch: group commit for one instance, as the SQLite
//! writer does it, keeping what makes several instances on one database
//! safe.
//!
//! Every instance runs `writer::PG_WRITERS` writer tasks (see
//! `store/writer.rs`), which take turns to build a batch: the write jobs
//! queued while a batch is built make up the next, one transaction, built
//! while the last waits for its COMMIT.
//! Within it:
//!
//! - a game is read once, `FOR UPDATE`: the row stays locked until the
//!   batch commits, so writers of one game on any instance take turns, and
//!   the batch sees the game as it is (no cache: another instance may have
//!   written it);
//! - writes wait in memory, and at commit the batch's games, moves, events
//!   and idempotency records go in with one statement (one JSON array per
//!   table), which also notifies every instance of the changed games; then
//!   `COMMIT`.
//!
//! A batch is four round trips (`BEGIN`, one read that locks all its games,
//! the writes, `COMMIT`) and one WAL flush, on a connection the writer holds
//! from one batch to the next, where a transaction per move was six round
//! trips and a flush per move on pooled connections. A batch that reads
//! nothing (only creations) is its one statement, committed on its own.
//!
//! A game's update touches no indexed column but when its status or the
//! minute of its last change (`updated_minute`) changes, and the table
//! leaves room on each page (`fillfactor` 80), so most updates are
//! heap-only: no new entry in any of the table's indexes.
//!
//! Two instances' batches may lock the same games in opposite orders: then
//! PostgreSQL finds the deadlock and aborts one of them, whose jobs all get
//! 503 `storage_unavailable` (nothing of it was written; retry). Moves of
//! one game arrive one at a time in turn-based play, so it takes two games
//! each written on both instances in the same milliseconds.
//!
//! Quick match is the one write whose game is not known before its batch
//! runs: it looks for a waiting game (see `WriteTx::oldest_waiting`). It
//! never waits for a lock there, so that it adds no such cycle: it takes
//! its key's transaction-level advisory lock with `pg_try_advisory_xact_lock`
//! (so that of the batches matching under one key, on any instance or
//! writer, one decides at a time, after seeing what the others committed)
//! and locks a candidate game `FOR UPDATE SKIP LOCKED`; when either is held
//! elsewhere it decides nothing, and the service runs it again shortly.

use std::collections::HashMap;
use std::sync::LazyLock;

use sqlx::Postgres as Pg;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::StoreError;
use super::pending::{Pending, json_array};
use super::rows::{
    EVENT_COLUMNS, GAME_SQL, GameColumns, IDEMPOTENT, IdempotencyRow, MATCH_IDEMPOTENT,
    MOVE_COLUMNS, MoveRow, ROUND_MOVES, WAITING, ts, waiting_ids,
};
use crate::domain::GameRecord;

/// The channel on which PostgreSQL announces changed games to every instance.
pub(super) const CHANNEL: &str = "tabula_changes";

/// Writes a batch: `$1` games to insert or update (a deleted one with its
/// `deleted_at`); `$2` moves; `$3` events; `$4` idempotency records; `$5`
/// ids of the changed games, to notify; `$6` webhook events, `$7` their
/// bodies (an array), `$8` their deliveries (see `db/outbox.rs`). Each a JSON array, rows as objects
/// keyed by column name. Data-modifying `WITH` clauses all run, in one
/// statement, whose foreign keys are checked at its end; the final `SELECT`
/// reads the notifications (an unreferenced plain `WITH` would not run).
static FLUSH: LazyLock<String> = LazyLock::new(|| {
    let idempotency = "game_id, key, request, status, body, version, created_at";
    format!(
        "\
WITH saved AS (INSERT INTO games ({columns}, deleted_at) \
  SELECT {from_json}, p.deleted_at \
    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(g, n), \
    LATERAL jsonb_populate_record(NULL::games, e.g) AS p ORDER BY e.n \
  ON CONFLICT (id) DO UPDATE SET {upsert_set}, deleted_at = excluded.deleted_at), \
played AS (INSERT INTO moves ({MOVE_COLUMNS}) \
  SELECT {MOVE_COLUMNS} FROM jsonb_populate_recordset(NULL::moves, $2::jsonb)), \
happened AS (INSERT INTO game_events ({EVENT_COLUMNS}) \
  SELECT {EVENT_COLUMNS} FROM jsonb_populate_recordset(NULL::game_events, $3::jsonb)), \
remembered AS (INSERT INTO idempotency ({idempotency}) \
  SELECT {idempotency} FROM jsonb_populate_recordset(NULL::idempotency, $4::jsonb) \
  ON CONFLICT (game_id, key) DO UPDATE \
  SET status = excluded.status, body = excluded.body, version = excluded.version), \
happened_events AS (INSERT INTO webhook_events (event_id, game_id, type, body, created_at) \
  SELECT e.event_id, e.game_id, e.type, ($7::bytea[])[e.n], e.created_at \
  FROM jsonb_to_recordset($6::jsonb) AS e(event_id text, game_id text, type text, created_at text, n int) \
  RETURNING seq, event_id), \
recorded AS (INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, game_id, next_attempt_at) \
  SELECT d.webhook_id, d.event_id, h.seq, d.game_id, d.next_attempt_at \
  FROM jsonb_to_recordset($8::jsonb) AS d(webhook_id text, event_id text, game_id text, next_attempt_at text) \
  JOIN happened_events h ON h.event_id = d.event_id) \
SELECT count(*) FROM \
  (SELECT pg_notify('{CHANNEL}', id) FROM jsonb_array_elements_text($5::jsonb) AS ids(id)) AS told",
        columns = GAME_SQL.columns,
        from_json = GAME_SQL.pg_from_json,
        upsert_set = GAME_SQL.upsert_set,
    )
});

/// Takebacks' deletions (`$1`, see [`Truncation`](super::pending::Truncation)):
/// the moves after the kept ply, and the answers that showed them.
const TRUNCATE: &str = "\
WITH t AS (SELECT * FROM jsonb_to_recordset($1::jsonb) \
  AS t(game_id text, round bigint, keep bigint, from_version bigint)), \
gone AS (DELETE FROM moves m USING t \
  WHERE m.game_id = t.game_id AND m.round = t.round AND m.ply > t.keep) \
DELETE FROM idempotency i USING t WHERE i.game_id = t.game_id AND i.version >= t.from_version";

/// The advisory lock of quick match's key: the first 8 bytes of the SHA-256
/// of `tabula match <key>`, the same number on every instance.
fn advisory_lock_id(key: &str) -> i64 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("tabula match {key}").as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(first)
}

/// A PostgreSQL write batch whose writes wait in memory until commit.
pub(super) struct PgBatch {
    pool: PgPool,
    /// The writer's connection, held from one batch to the next (a pool
    /// connection is pinged when taken and again when given back: two round
    /// trips a batch). It closes rather than go back to the pool if the
    /// batch is dropped half-way, so no one else gets it inside a
    /// transaction.
    conn: Option<PoolConnection<Pg>>,
    /// Whether `BEGIN` was sent: the transaction begins with the first read.
    open: bool,
    /// Games read (and locked) in this batch, as read.
    read: HashMap<Uuid, Option<GameRecord>>,
    /// What the batch's jobs wrote, until commit.
    pub(super) pending: Pending,
}

impl PgBatch {
    /// A batch on `pool`, on the connection `held` from the writer's last
    /// batch if there is one; the transaction begins with the first read.
    pub(super) fn new(pool: PgPool, held: Option<PoolConnection<Pg>>) -> PgBatch {
        PgBatch {
            pool,
            conn: held,
            open: false,
            read: HashMap::new(),
            pending: Pending::default(),
        }
    }

    /// The writer's connection, taken from the pool if it holds none.
    async fn conn(&mut self) -> Result<&mut PgConnection, StoreError> {
        if self.conn.is_none() {
            let mut conn = self.pool.acquire().await?;
            conn.close_on_drop();
            self.conn = Some(conn);
        }
        match self.conn.as_mut() {
            Some(conn) => Ok(&mut **conn),
            None => Err(StoreError::Corrupt("no connection".into())),
        }
    }

    /// The connection inside the batch's transaction, begun if need be.
    pub(super) async fn tx(&mut self) -> Result<&mut PgConnection, StoreError> {
        if !self.open {
            sqlx::query("BEGIN").execute(self.conn().await?).await?;
            self.open = true;
        }
        self.conn().await
    }

    /// The game as this batch sees it; read from the database the first
    /// time, and locked there until the batch ends.
    pub(super) async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        if let Some(written) = self.pending.game(id) {
            return Ok(written);
        }
        if let Some(game) = self.read.get(&id) {
            return Ok(game.clone());
        }
        let tx = self.tx().await?;
        let row: Option<GameColumns> = sqlx::query_as(&format!("{} FOR UPDATE", GAME_SQL.by_id))
            .bind(id.to_string())
            .fetch_optional(&mut *tx)
            .await?;
        let game = row.map(GameColumns::into_record).transpose()?;
        self.read.insert(id, game.clone());
        Ok(game)
    }

    /// Reads and locks the games the batch's jobs will write, in one round
    /// trip, in the order of their ids: every instance locks in that order,
    /// so two instances' batches never wait for each other in a cycle.
    pub(super) async fn prefetch(&mut self, ids: &[Uuid]) -> Result<(), StoreError> {
        let mut wanted: Vec<Uuid> = ids
            .iter()
            .copied()
            .filter(|&id| !self.read.contains_key(&id) && !self.pending.wrote(id))
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        // The statement locks in the order of the array: the order of the
        // ids, which is that of their text (lower-case hex), on every
        // instance.
        wanted.sort_unstable();
        wanted.dedup();
        let texts: Vec<String> = wanted.iter().map(Uuid::to_string).collect();
        let tx = self.tx().await?;
        let rows: Vec<GameColumns> = sqlx::query_as(&GAME_SQL.lock_many)
            .bind(&texts)
            .fetch_all(&mut *tx)
            .await?;
        for id in wanted {
            self.read.insert(id, None);
        }
        for row in rows {
            let game = row.into_record()?;
            self.read.insert(game.id, Some(game));
        }
        Ok(())
    }

    /// The stored moves of a round (the batch's own are in its pending writes).
    pub(super) async fn round_moves(
        &mut self,
        id: Uuid,
        round: u32,
    ) -> Result<Vec<MoveRow>, StoreError> {
        let tx = self.tx().await?;
        let rows = sqlx::query_as(ROUND_MOVES)
            .bind(id.to_string())
            .bind(i64::from(round))
            .fetch_all(&mut *tx)
            .await?;
        Ok(rows)
    }

    /// Takes the transaction-level advisory lock of quick match's key `key`
    /// if no other transaction holds it (it is held until the batch ends;
    /// taking it again in the same batch succeeds). Never waits: a batch
    /// that waited here while holding game rows could deadlock with one that
    /// holds the key and wants those rows.
    pub(super) async fn try_lock_key(&mut self, key: &str) -> Result<bool, StoreError> {
        let lock = advisory_lock_id(key);
        let tx = self.tx().await?;
        let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_xact_lock($1)")
            .bind(lock)
            .fetch_one(&mut *tx)
            .await?;
        Ok(locked)
    }

    /// Quick match's candidates as committed now (see [`WAITING`]).
    pub(super) async fn waiting(
        &mut self,
        key: &str,
        after: i64,
        limit: i64,
        since: &str,
    ) -> Result<Vec<(i64, Uuid)>, StoreError> {
        let tx = self.tx().await?;
        let rows = sqlx::query_as(WAITING)
            .bind(key)
            .bind(after)
            .bind(limit)
            .bind(since)
            .fetch_all(&mut *tx)
            .await?;
        waiting_ids(rows)
    }

    /// The game as this batch sees it, locking it unless another
    /// transaction holds it: `None` when it is locked elsewhere (or was
    /// deleted since it was listed). Never waits, for the reason given at
    /// [`PgBatch::try_lock_key`].
    pub(super) async fn try_game(
        &mut self,
        id: Uuid,
    ) -> Result<Option<Option<GameRecord>>, StoreError> {
        if let Some(written) = self.pending.game(id) {
            return Ok(Some(written));
        }
        if let Some(game) = self.read.get(&id) {
            return Ok(Some(game.clone()));
        }
        let tx = self.tx().await?;
        let row: Option<GameColumns> =
            sqlx::query_as(&format!("{} FOR UPDATE SKIP LOCKED", GAME_SQL.by_id))
                .bind(id.to_string())
                .fetch_optional(&mut *tx)
                .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let game = row.into_record()?;
        self.read.insert(id, Some(game.clone()));
        Ok(Some(Some(game)))
    }

    /// The stored record of a quick match's idempotency key, stored as
    /// written (with its prefix).
    pub(super) async fn match_idempotent(
        &mut self,
        key: &str,
    ) -> Result<Option<IdempotencyRow>, StoreError> {
        let tx = self.tx().await?;
        let row = sqlx::query_as(MATCH_IDEMPOTENT)
            .bind(key)
            .fetch_optional(&mut *tx)
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
        let tx = self.tx().await?;
        let row = sqlx::query_as(IDEMPOTENT)
            .bind(id.to_string())
            .bind(key)
            .fetch_optional(&mut *tx)
            .await?;
        Ok(row)
    }

    /// Writes everything and commits; gives back the connection to hold
    /// for the next batch (none when something failed: it is closed).
    pub(super) async fn commit(
        mut self,
        turn: super::super::writer::Turn,
    ) -> (Result<(), StoreError>, Option<PoolConnection<Pg>>) {
        let result = self.write(turn).await;
        let kept = if result.is_ok() {
            self.conn.take()
        } else {
            None
        };
        (result, kept)
    }

    async fn write(&mut self, turn: super::super::writer::Turn) -> Result<(), StoreError> {
        if let Some(before) = self.pending.purge().map(str::to_owned) {
            let tx = self.tx().await?;
            sqlx::query("DELETE FROM games WHERE deleted_at < $1")
                .bind(before)
                .execute(&mut *tx)
                .await?;
        }
        if self.pending.is_empty() {
            drop(turn);
            if self.open {
                sqlx::query("COMMIT").execute(self.conn().await?).await?;
            }
            return Ok(());
        }
        if !self.pending.ops.is_empty() {
            let ops = std::mem::take(&mut self.pending.ops);
            let tx = self.tx().await?;
            super::webhooks::run_postgres(tx, &ops).await?;
        }
        if !self.pending.players.is_empty() {
            let players = std::mem::take(&mut self.pending.players);
            let tx = self.tx().await?;
            super::players::run_postgres(tx, &players).await?;
        }
        let rows = self.pending.rows()?;
        if let Some(truncations) = &rows.truncations {
            // Its own statement, before the inserts: data-modifying WITH
            // clauses of one statement do not see each other's changes, and a
            // move played again at a ply taken back must find the old one gone.
            let tx = self.tx().await?;
            sqlx::query(TRUNCATE)
                .bind(truncations)
                .execute(&mut *tx)
                .await?;
        }
        let now = ts(chrono::Utc::now());
        let mut games = Vec::with_capacity(rows.games.len());
        for (game, deleted) in &rows.games {
            let mut row = serde_json::to_value(game)
                .map_err(|e| StoreError::Corrupt(format!("a row as JSON: {e}")))?;
            if *deleted && let Some(fields) = row.as_object_mut() {
                fields.insert("deleted_at".into(), now.clone().into());
            }
            games.push(row);
        }
        let flush = sqlx::query(FLUSH.as_str())
            .bind(json_array(games.iter())?)
            .bind(rows.moves)
            .bind(rows.events)
            .bind(rows.remembered)
            .bind(json_array(rows.games.iter().map(|(game, _)| &game.id))?)
            .bind(json_array(rows.recorded.events.iter())?)
            .bind(&rows.recorded.bodies)
            .bind(json_array(rows.recorded.deliveries.iter())?);
        // Nothing read: the statement is a transaction of its own.
        let open = self.open;
        flush.execute(self.conn().await?).await?;
        // The next batch is built while this one waits for the disk.
        drop(turn);
        if open {
            sqlx::query("COMMIT").execute(self.conn().await?).await?;
        }
        Ok(())
    }

    /// Rolls back; the connection is closed (the next batch takes another),
    /// so a fault on it is forgotten.
    pub(super) async fn abandon(mut self) {
        if self.open
            && let Some(conn) = self.conn.as_mut()
        {
            let _ = sqlx::query("ROLLBACK").execute(&mut **conn).await;
        }
    }
}
