//! PostgreSQL, for many stateless instances on one database: each write job
//! is its own transaction that locks its game row (`SELECT … FOR UPDATE`),
//! and changes are announced to every instance with `LISTEN/NOTIFY`.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use sqlx::{Postgres as Pg, Transaction};
use tokio::sync::broadcast;
use uuid::Uuid;

use super::super::StoreError;
use super::super::writer::JobFn;
use super::rows::{EventRow, GAME_SQL, GameColumns, IDEMPOTENT, IdempotencyRow, MoveRow};
use super::{Conn, WriteTx, rows::ts};
use crate::domain::{GameRecord, IdempotentRecord};

/// The channel on which PostgreSQL announces changed games to every instance.
const CHANNEL: &str = "tabula_changes";

/// The PostgreSQL backend: one pool for reads and writes.
#[derive(Clone, Debug)]
pub(super) struct Postgres {
    pub(super) pool: PgPool,
}

/// Connects, migrates, and starts forwarding change notifications.
pub(super) async fn open(
    url: &str,
    connections: u32,
    changed: broadcast::Sender<Uuid>,
) -> Result<Postgres, StoreError> {
    let options = PgConnectOptions::from_str(url)?;
    let pool = PgPoolOptions::new()
        .max_connections(connections.max(2) * 4)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    tokio::spawn(listen(pool.clone(), changed));
    Ok(Postgres { pool })
}

impl Postgres {
    /// Runs a job in a transaction of its own: committed if it succeeds,
    /// rolled back if it fails.
    pub(super) async fn write<T, E>(&self, f: JobFn<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let tx = self.pool.begin().await.map_err(|e| E::from(e.into()))?;
        let mut tx = WriteTx {
            conn: Conn::Postgres(Tx(tx)),
            writes: 0,
        };
        match f(&mut tx).await {
            Ok(value) => {
                tx.commit().await.0.map_err(E::from)?;
                Ok(value)
            }
            Err(e) => {
                tx.abandon().await;
                Err(e)
            }
        }
    }
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

/// A PostgreSQL write transaction.
pub(super) struct Tx(Transaction<'static, Pg>);

impl Tx {
    pub(super) async fn abandon(self) {
        let _ = self.0.rollback().await;
    }

    pub(super) async fn commit(self) -> Result<(), StoreError> {
        self.0.commit().await.map_err(Into::into)
    }

    /// Tells every instance (on commit) that the game changed.
    async fn notify(&mut self, id: Uuid) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(id.to_string())
            .execute(&mut *self.0)
            .await?;
        Ok(())
    }

    /// The game, locked until the transaction ends.
    pub(super) async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row: Option<GameColumns> = sqlx::query_as(&format!("{} FOR UPDATE", GAME_SQL.by_id))
            .bind(id.to_string())
            .fetch_optional(&mut *self.0)
            .await?;
        row.map(GameColumns::into_record).transpose()
    }

    pub(super) async fn insert_game(&mut self, game: &GameRecord) -> Result<(), StoreError> {
        GameColumns::of(game)
            .bind_all(sqlx::query(&GAME_SQL.insert))
            .execute(&mut *self.0)
            .await?;
        self.notify(game.id).await
    }

    pub(super) async fn update_game(
        &mut self,
        game: &GameRecord,
        expected_version: i64,
    ) -> Result<bool, StoreError> {
        let rows = GameColumns::of(game)
            .bind_all(sqlx::query(&GAME_SQL.update))
            .bind(game.id.to_string())
            .bind(expected_version)
            .execute(&mut *self.0)
            .await?
            .rows_affected();
        self.notify(game.id).await?;
        Ok(rows == 1)
    }

    pub(super) async fn insert_move(&mut self, m: MoveRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO moves (game_id, round, ply, version, player, a, b, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(m.game_id)
        .bind(m.round)
        .bind(m.ply)
        .bind(m.version)
        .bind(m.player)
        .bind(m.a)
        .bind(m.b)
        .bind(m.at)
        .execute(&mut *self.0)
        .await?;
        Ok(())
    }

    pub(super) async fn insert_event(&mut self, e: EventRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO game_events (game_id, version, type, round, player, at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(e.game_id)
        .bind(e.version)
        .bind(e.event_type)
        .bind(e.round)
        .bind(e.player)
        .bind(e.at)
        .execute(&mut *self.0)
        .await?;
        Ok(())
    }

    /// Marks the game deleted (see [`WriteTx::delete_game`]).
    pub(super) async fn delete_game(&mut self, id: Uuid) -> Result<bool, StoreError> {
        let rows =
            sqlx::query("UPDATE games SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL")
                .bind(id.to_string())
                .bind(ts(chrono::Utc::now()))
                .execute(&mut *self.0)
                .await?
                .rows_affected();
        self.notify(id).await?;
        Ok(rows == 1)
    }

    /// Erases the games deleted before `before` (a timestamp as stored).
    pub(super) async fn purge_deleted(&mut self, before: String) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM games WHERE deleted_at < $1")
            .bind(before)
            .execute(&mut *self.0)
            .await?;
        Ok(())
    }

    pub(super) async fn idempotent(
        &mut self,
        id: Uuid,
        key: &str,
    ) -> Result<Option<IdempotentRecord>, StoreError> {
        let row: Option<IdempotencyRow> = sqlx::query_as(IDEMPOTENT)
            .bind(id.to_string())
            .bind(key)
            .fetch_optional(&mut *self.0)
            .await?;
        row.map(IdempotencyRow::into_record).transpose()
    }

    pub(super) async fn remember(&mut self, r: IdempotencyRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO idempotency (game_id, key, request, status, body, version, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (game_id, key) DO UPDATE \
             SET status = excluded.status, body = excluded.body, version = excluded.version",
        )
        .bind(r.game_id)
        .bind(r.key)
        .bind(r.request)
        .bind(r.status)
        .bind(r.body)
        .bind(r.version)
        .bind(r.created_at)
        .execute(&mut *self.0)
        .await?;
        Ok(())
    }
}
