//! Tournaments: the `tournaments` table (one row each; the record as JSON
//! in `data`, beside the columns listings and the sweeper filter on) and
//! `tournament_events` (one change a version, for event streams).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::db::{Conn, on_conn, on_reader};
use super::{Store, StoreError, WriteTx, from_json, parse_id, to_json, ts};
use crate::domain::tournament::{TournamentRecord, TournamentStatus};
use crate::domain::webhook::WebhookEvent;
use crate::rules::GameKind;

/// One change of a tournament: its version, type and JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentEvent {
    pub version: i64,
    pub kind: String,
    pub data: String,
}

impl Store {
    /// The tournament by id.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn tournament(&self, id: Uuid) -> Result<Option<TournamentRecord>, StoreError> {
        let row: Option<(String,)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT data FROM tournaments WHERE id = $1"
        )
        .bind(id.to_string())
        .fetch_optional(c)
        .await)?;
        row.map(|(d,)| from_json("tournament", &d)).transpose()
    }

    /// Public tournaments, newest first, of `status` and `kind` if given,
    /// before cursor `before`; with the next page's cursor.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn tournaments(
        &self,
        status: Option<TournamentStatus>,
        kind: Option<GameKind>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<TournamentRecord>, Option<i64>), StoreError> {
        let limit = i64::from(limit.max(1));
        let rows: Vec<(i64, String)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT seq, data FROM tournaments WHERE NOT private \
             AND ($1 IS NULL OR status = $1) AND ($2 IS NULL OR kind = $2) \
             AND ($3 IS NULL OR seq < $3) ORDER BY seq DESC LIMIT $4"
        )
        .bind(status.map(|s| s.as_str().to_owned()))
        .bind(kind.map(|k| k.as_str().to_owned()))
        .bind(before)
        .bind(limit + 1)
        .fetch_all(c)
        .await)?;
        let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        let mut last = None;
        for (seq, data) in rows.into_iter().take(usize::try_from(limit).unwrap_or(0)) {
            out.push(from_json("tournament", &data)?);
            last = Some(seq);
        }
        Ok((out, last.filter(|_| more)))
    }

    /// Tournaments with something to do by `now` (at most `limit`, the
    /// earliest first), for the sweeper.
    ///
    /// # Errors
    /// Database errors.
    pub async fn tournaments_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Uuid>, StoreError> {
        let rows: Vec<(String,)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT id FROM tournaments WHERE due_at IS NOT NULL AND due_at <= $1 \
             ORDER BY due_at LIMIT $2"
        )
        .bind(ts(now))
        .bind(i64::from(limit))
        .fetch_all(c)
        .await)?;
        rows.into_iter().map(|(id,)| parse_id(&id)).collect()
    }

    /// The changes of tournament `id` after version `after`, oldest first
    /// (at most `limit`).
    ///
    /// # Errors
    /// Database errors.
    pub async fn tournament_events(
        &self,
        id: Uuid,
        after: i64,
        limit: u32,
    ) -> Result<Vec<TournamentEvent>, StoreError> {
        let rows: Vec<(i64, String, String)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT version, type, data FROM tournament_events \
             WHERE tournament_id = $1 AND version > $2 ORDER BY version LIMIT $3"
        )
        .bind(id.to_string())
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(c)
        .await)?;
        Ok(rows
            .into_iter()
            .map(|(version, kind, data)| TournamentEvent {
                version,
                kind,
                data,
            })
            .collect())
    }
}

impl WriteTx {
    /// The tournament by id, inside the transaction (on PostgreSQL its row
    /// stays locked until the transaction ends: its writers take turns, on
    /// any instance).
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn tournament(&mut self, id: Uuid) -> Result<Option<TournamentRecord>, StoreError> {
        self.flush().await?;
        let sql = match self.conn {
            Conn::Postgres(_) => "SELECT data FROM tournaments WHERE id = $1 FOR UPDATE",
            Conn::Sqlite(_) => "SELECT data FROM tournaments WHERE id = $1",
        };
        let row: Option<(String,)> = on_conn!(self, |c| sqlx::query_as(sql)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(|(d,)| from_json("tournament", &d)).transpose()
    }

    /// Inserts a new tournament, next due at `due_at`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_tournament(
        &mut self,
        t: &TournamentRecord,
        due_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.direct().await?;
        let data = to_json("tournament", t)?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO tournaments \
             (id, status, system, kind, private, due_at, created_at, version, data) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        )
        .bind(t.id.to_string())
        .bind(t.status.as_str())
        .bind(t.system.as_str())
        .bind(t.setup.kind().as_str())
        .bind(t.private)
        .bind(due_at.map(ts))
        .bind(ts(t.created_at))
        .bind(t.version)
        .bind(&data)
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        self.touched(t.id);
        Ok(())
    }

    /// Writes the tournament's new state if its stored version is still
    /// `expected`; false (nothing changed) otherwise.
    ///
    /// # Errors
    /// Database errors.
    pub async fn update_tournament(
        &mut self,
        t: &TournamentRecord,
        expected: i64,
        due_at: Option<DateTime<Utc>>,
    ) -> Result<bool, StoreError> {
        self.direct().await?;
        let data = to_json("tournament", t)?;
        let changed = on_conn!(self, |c| sqlx::query(
            "UPDATE tournaments SET status = $1, due_at = $2, version = $3, data = $4 \
             WHERE id = $5 AND version = $6"
        )
        .bind(t.status.as_str())
        .bind(due_at.map(ts))
        .bind(t.version)
        .bind(&data)
        .bind(t.id.to_string())
        .bind(expected)
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        self.touched(t.id);
        Ok(changed == 1)
    }

    /// Deletes a tournament and its changes.
    ///
    /// # Errors
    /// Database errors.
    pub async fn delete_tournament(&mut self, id: Uuid) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "DELETE FROM tournament_events WHERE tournament_id = $1"
        )
        .bind(id.to_string())
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        on_conn!(self, |c| sqlx::query(
            "DELETE FROM tournaments WHERE id = $1"
        )
        .bind(id.to_string())
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        self.touched(id);
        Ok(())
    }

    /// Records a change of tournament `id` at `version`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_tournament_event(
        &mut self,
        id: Uuid,
        event: &TournamentEvent,
    ) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO tournament_events (tournament_id, version, type, data) \
             VALUES ($1, $2, $3, $4)"
        )
        .bind(id.to_string())
        .bind(event.version)
        .bind(&event.kind)
        .bind(&event.data)
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Records webhook event `event` about tournament `t` (as the change
    /// left it, at `at`) for the endpoints that want it, with this write.
    ///
    /// # Errors
    /// Database errors.
    pub async fn record_tournament_webhook(
        &mut self,
        event: WebhookEvent,
        t: &TournamentRecord,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let Some(recorder) = self.recorder.as_mut() else {
            return Ok(());
        };
        let Some(made) = recorder.tournament_event(event, t, at)? else {
            return Ok(());
        };
        recorder.noted();
        self.direct().await?;
        super::outbox::write_events(self, vec![made]).await
    }

    /// Notes that record `id` (a tournament) changed: its watchers on every
    /// instance hear of it at commit (PostgreSQL's `NOTIFY`).
    pub(super) fn touched(&mut self, id: Uuid) {
        if !self.changed.contains(&id) {
            self.changed.push(id);
        }
    }
}
