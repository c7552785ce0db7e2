//! Challenges and players' own events: the `challenges` table (one row
//! each; the record as JSON in `data`, beside the columns listings filter
//! on) and `player_events` (each player's changes, numbered per player, for
//! the player's event stream), written in the transaction of the change.
//!
//! On PostgreSQL a player's event is numbered after locking the player's
//! row (`FOR UPDATE`), so that two instances telling one player of
//! something take turns and never give two events one number; the same
//! lock makes a bot's count of games in progress hold until its write ends.
//! On SQLite the writer holds the database's only write lock.
//!
//! And `bot_hooks`: a webhook bot's move URL and signing secret.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::db::{Conn, on_conn, on_reader};
use super::games::{ListedRow, game_columns};
use super::{Store, StoreError, WriteTx, from_json, to_json, ts};
use crate::domain::GameRecord;
use crate::domain::challenge::ChallengeRecord;

/// One event of a player's stream: its number (per player), type and JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerEvent {
    pub seq: i64,
    pub kind: String,
    pub data: String,
}

/// The id a player's stream is told of changes under: a UUID derived from
/// the player's id (which is not always a UUID), never a game's or a
/// tournament's.
#[must_use]
pub fn player_stream_id(player: &str) -> Uuid {
    Uuid::new_v5(
        &Uuid::NAMESPACE_URL,
        format!("tabula:player:{player}").as_bytes(),
    )
}

impl Store {
    /// The challenge by id.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn challenge(&self, id: Uuid) -> Result<Option<ChallengeRecord>, StoreError> {
        let row: Option<(String,)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT data FROM challenges WHERE id = $1"
        )
        .bind(id.to_string())
        .fetch_optional(c)
        .await)?;
        row.map(|(d,)| from_json("challenge", &d)).transpose()
    }

    /// A player's challenges, made and received, newest first, before
    /// cursor `before`; with the next page's cursor.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn challenges_of(
        &self,
        player: &str,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<ChallengeRecord>, Option<i64>), StoreError> {
        let limit = i64::from(limit.max(1));
        let rows: Vec<(i64, String)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT seq, data FROM challenges WHERE (from_id = $1 OR to_id = $1) \
             AND ($2 IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3"
        )
        .bind(player)
        .bind(before)
        .bind(limit + 1)
        .fetch_all(c)
        .await)?;
        let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        let mut last = None;
        for (seq, data) in rows.into_iter().take(usize::try_from(limit).unwrap_or(0)) {
            out.push(from_json("challenge", &data)?);
            last = Some(seq);
        }
        Ok((out, last.filter(|_| more)))
    }

    /// The challenges `player` received that wait for an answer at `now`,
    /// oldest first.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn pending_challenges_to(
        &self,
        player: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ChallengeRecord>, StoreError> {
        let rows: Vec<(String,)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT data FROM challenges WHERE to_id = $1 AND status = 'pending' \
             AND expires_at > $2 ORDER BY seq LIMIT 100"
        )
        .bind(player)
        .bind(ts(now))
        .fetch_all(c)
        .await)?;
        rows.iter().map(|(d,)| from_json("challenge", d)).collect()
    }

    /// The games in progress `player` holds a seat of, oldest first (at
    /// most 100).
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn games_in_progress(&self, player: &str) -> Result<Vec<GameRecord>, StoreError> {
        let columns = format!("g.{}", game_columns().replace(", ", ", g."));
        let sql = format!(
            "SELECT p.seq, {columns} FROM player_games p JOIN games g ON g.id = p.game_id \
             WHERE p.player_id = $1 AND g.status = 'in_progress' AND g.deleted_at IS NULL \
             ORDER BY p.seq LIMIT 100"
        );
        let rows: Vec<ListedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(player)
            .fetch_all(c)
            .await)?;
        Ok(ListedRow::page(rows, 100)?.0)
    }

    /// The events of `player` after number `after`, oldest first (at most
    /// `limit`).
    ///
    /// # Errors
    /// Database errors.
    pub async fn player_events(
        &self,
        player: &str,
        after: i64,
        limit: u32,
    ) -> Result<Vec<PlayerEvent>, StoreError> {
        let rows: Vec<(i64, String, String)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT seq, type, data FROM player_events \
             WHERE player_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        )
        .bind(player)
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(c)
        .await)?;
        Ok(rows
            .into_iter()
            .map(|(seq, kind, data)| PlayerEvent { seq, kind, data })
            .collect())
    }

    /// The number of `player`'s last event (0 before the first).
    ///
    /// # Errors
    /// Database errors.
    pub async fn player_event_head(&self, player: &str) -> Result<i64, StoreError> {
        let row: (Option<i64>,) = on_reader!(self, |c| sqlx::query_as(
            "SELECT MAX(seq) FROM player_events WHERE player_id = $1"
        )
        .bind(player)
        .fetch_one(c)
        .await)?;
        Ok(row.0.unwrap_or(0))
    }
}

impl WriteTx {
    /// The challenge by id, inside the transaction (on PostgreSQL its row
    /// stays locked until the transaction ends).
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn challenge(&mut self, id: Uuid) -> Result<Option<ChallengeRecord>, StoreError> {
        self.flush().await?;
        let sql = match self.conn {
            Conn::Postgres(_) => "SELECT data FROM challenges WHERE id = $1 FOR UPDATE",
            Conn::Sqlite(_) => "SELECT data FROM challenges WHERE id = $1",
        };
        let row: Option<(String,)> = on_conn!(self, |c| sqlx::query_as(sql)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(|(d,)| from_json("challenge", &d)).transpose()
    }

    /// Inserts a new challenge.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_challenge(&mut self, c: &ChallengeRecord) -> Result<(), StoreError> {
        self.direct().await?;
        let data = to_json("challenge", c)?;
        on_conn!(self, |conn| sqlx::query(
            "INSERT INTO challenges (id, from_id, to_id, status, expires_at, data) \
             VALUES ($1, $2, $3, $4, $5, $6)"
        )
        .bind(c.id.to_string())
        .bind(&c.from.id)
        .bind(&c.to.id)
        .bind(c.status.as_str())
        .bind(ts(c.expires_at))
        .bind(&data)
        .execute(conn)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Writes a challenge's new state.
    ///
    /// # Errors
    /// Database errors.
    pub async fn update_challenge(&mut self, c: &ChallengeRecord) -> Result<(), StoreError> {
        self.direct().await?;
        let data = to_json("challenge", c)?;
        on_conn!(self, |conn| sqlx::query(
            "UPDATE challenges SET status = $1, data = $2 WHERE id = $3"
        )
        .bind(c.status.as_str())
        .bind(&data)
        .bind(c.id.to_string())
        .execute(conn)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// The player by id, inside the transaction.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn player_record(
        &mut self,
        id: &str,
    ) -> Result<Option<crate::domain::player::PlayerRecord>, StoreError> {
        self.flush().await?;
        super::players::player_in(self, id).await
    }

    /// Locks `player`'s row until the transaction ends (PostgreSQL; on
    /// SQLite the writer holds the only write lock already).
    ///
    /// # Errors
    /// Database errors.
    pub async fn lock_player(&mut self, player: &str) -> Result<(), StoreError> {
        self.flush().await?;
        if let Conn::Postgres(_) = self.conn {
            on_conn!(self, |c| sqlx::query(
                "SELECT id FROM players WHERE id = $1 FOR UPDATE"
            )
            .bind(player)
            .execute(c)
            .await
            .map(|r| r.rows_affected()))?;
        }
        Ok(())
    }

    /// How many games in progress `player` holds a seat of.
    ///
    /// # Errors
    /// Database errors.
    pub async fn count_games_in_progress(&mut self, player: &str) -> Result<i64, StoreError> {
        self.flush().await?;
        let row: (i64,) = on_conn!(self, |c| sqlx::query_as(
            "SELECT COUNT(*) FROM player_games p JOIN games g ON g.id = p.game_id \
             WHERE p.player_id = $1 AND g.status = 'in_progress' AND g.deleted_at IS NULL"
        )
        .bind(player)
        .fetch_one(c)
        .await)?;
        Ok(row.0)
    }

    /// Sets how many games in progress bot `player` takes on at most.
    ///
    /// # Errors
    /// Database errors.
    pub async fn set_max_games(&mut self, player: &str, max_games: u32) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "UPDATE players SET max_games = $1 WHERE id = $2"
        )
        .bind(i64::from(max_games))
        .bind(player)
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Records an event for `player`'s stream, numbered after their last
    /// (their row locked first on PostgreSQL), and tells their streams at
    /// commit.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_player_event(
        &mut self,
        player: &str,
        kind: &str,
        data: &str,
        at: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        self.lock_player(player).await?;
        self.direct().await?;
        let row: (Option<i64>,) = on_conn!(self, |c| sqlx::query_as(
            "SELECT MAX(seq) FROM player_events WHERE player_id = $1"
        )
        .bind(player)
        .fetch_one(c)
        .await)?;
        let seq = row.0.unwrap_or(0) + 1;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO player_events (player_id, seq, type, data, at) VALUES ($1, $2, $3, $4, $5)"
        )
        .bind(player)
        .bind(seq)
        .bind(kind)
        .bind(data)
        .bind(ts(at))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        let stream = player_stream_id(player);
        self.touched(stream);
        self.told.push(stream);
        Ok(seq)
    }

    /// Sets (`Some((url, secret))`) or removes webhook bot `player`'s move URL.
    ///
    /// # Errors
    /// Database errors.
    pub async fn set_bot_hook(
        &mut self,
        player: &str,
        hook: Option<(&str, &str)>,
    ) -> Result<(), StoreError> {
        self.direct().await?;
        match hook {
            Some((url, secret)) => on_conn!(self, |c| sqlx::query(
                "INSERT INTO bot_hooks (player_id, url, secret) VALUES ($1, $2, $3) \
                 ON CONFLICT (player_id) DO UPDATE SET url = excluded.url, secret = excluded.secret"
            )
            .bind(player)
            .bind(url)
            .bind(secret)
            .execute(c)
            .await
            .map(|r| r.rows_affected()))?,
            None => on_conn!(self, |c| sqlx::query(
                "DELETE FROM bot_hooks WHERE player_id = $1"
            )
            .bind(player)
            .execute(c)
            .await
            .map(|r| r.rows_affected()))?,
        };
        Ok(())
    }

    /// Webhook bot `player`'s move URL and secret, if it has set one.
    ///
    /// # Errors
    /// Database errors.
    pub async fn bot_hook(&mut self, player: &str) -> Result<Option<BotHook>, StoreError> {
        self.flush().await?;
        let row: Option<BotHookRow> = on_conn!(self, |c| sqlx::query_as(
            "SELECT player_id, url, secret FROM bot_hooks WHERE player_id = $1"
        )
        .bind(player)
        .fetch_optional(c)
        .await)?;
        Ok(row.map(BotHook::from))
    }
}

/// A webhook bot's move URL and the secret its move requests are signed with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotHook {
    pub player: String,
    pub url: String,
    pub secret: String,
}

#[derive(sqlx::FromRow)]
struct BotHookRow {
    player_id: String,
    url: String,
    secret: String,
}

impl From<BotHookRow> for BotHook {
    fn from(r: BotHookRow) -> BotHook {
        BotHook {
            player: r.player_id,
            url: r.url,
            secret: r.secret,
        }
    }
}

impl Store {
    /// Every webhook bot's move URL and secret.
    ///
    /// # Errors
    /// Database errors.
    pub async fn bot_hooks(&self) -> Result<Vec<BotHook>, StoreError> {
        let rows: Vec<BotHookRow> = on_reader!(self, |c| sqlx::query_as(
            "SELECT player_id, url, secret FROM bot_hooks ORDER BY player_id"
        )
        .fetch_all(c)
        .await)?;
        Ok(rows.into_iter().map(BotHook::from).collect())
    }

    /// Webhook bot `player`'s move URL and secret, if it has set one.
    ///
    /// # Errors
    /// Database errors.
    pub async fn bot_hook(&self, player: &str) -> Result<Option<BotHook>, StoreError> {
        let row: Option<BotHookRow> = on_reader!(self, |c| sqlx::query_as(
            "SELECT player_id, url, secret FROM bot_hooks WHERE player_id = $1"
        )
        .bind(player)
        .fetch_optional(c)
        .await)?;
        Ok(row.map(BotHook::from))
    }

    /// The games in progress a webhook bot holds a seat of, with their
    /// versions: where the service may have a move to ask for.
    ///
    /// # Errors
    /// Database errors, or an id that is not a UUID.
    pub async fn hooked_games(&self) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let rows: Vec<(String, i64)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT g.id, g.version FROM bot_hooks h \
             JOIN player_games p ON p.player_id = h.player_id JOIN games g ON g.id = p.game_id \
             WHERE g.status = 'in_progress' AND g.deleted_at IS NULL"
        )
        .fetch_all(c)
        .await)?;
        rows.into_iter()
            .map(|(id, version)| {
                Uuid::parse_str(&id)
                    .map(|id| (id, version))
                    .map_err(|_| StoreError::Corrupt(format!("game id {id:?}")))
            })
            .collect()
    }
}
