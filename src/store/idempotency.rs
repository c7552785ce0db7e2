//! Idempotency records: the answer to a request, kept under its
//! `Idempotency-Key` within its game (a quick match's under
//! [`MATCH_KEY_PREFIX`] on the game the caller got), with the hash of the
//! request, so that a retry gets the same answer and a key reused for
//! another request is told apart.

use std::sync::LazyLock;

use chrono::Utc;
use uuid::Uuid;

use super::db::{Many, on_conn, on_reader};
use super::{Store, StoreError, WriteTx, parse_id, ts};
use crate::domain::{IdempotentRecord, RequestHash, StoredResponse};

/// How a quick match's idempotency key is stored: apart from the keys of
/// moves, which belong to one game.
pub const MATCH_KEY_PREFIX: &str = "match:";

super::db::bind_row!(IdempotencyRow: game_id, key, request, status, body, version, created_at);

/// The columns of an answer's row, in [`IdempotencyRow`]'s order.
const COLUMNS: &str = "game_id, key, request, status, body, version, created_at";

/// The record of a key of a game (`$1` game, `$2` key): read by the readers
/// and inside writes alike.
const BY_KEY: &str = "SELECT game_id, key, request, status, body, version, created_at \
     FROM idempotency WHERE game_id = $1 AND key = $2";

/// A row of the idempotency table: the answer to a request, by game and
/// key, with the hash of the request (hex; NULL in records stored before
/// requests were hashed) and the version of the game the answer carries.
#[derive(Clone, Debug, sqlx::FromRow)]
pub(super) struct IdempotencyRow {
    pub(super) game_id: String,
    pub(super) key: String,
    pub(super) request: Option<String>,
    pub(super) status: i64,
    pub(super) body: String,
    pub(super) version: i64,
    pub(super) created_at: String,
}

impl IdempotencyRow {
    pub(super) fn of(
        id: Uuid,
        key: &str,
        request: &RequestHash,
        r: &StoredResponse,
    ) -> IdempotencyRow {
        IdempotencyRow {
            game_id: id.to_string(),
            key: key.to_owned(),
            request: Some(request.to_hex()),
            status: i64::from(r.status),
            body: r.body.clone(),
            version: r.version,
            created_at: ts(Utc::now()),
        }
    }

    pub(super) fn into_record(self) -> Result<IdempotentRecord, StoreError> {
        let request = self
            .request
            .map(|h| {
                RequestHash::from_hex(&h)
                    .ok_or_else(|| StoreError::Corrupt(format!("request hash {h:?}")))
            })
            .transpose()?;
        Ok(IdempotentRecord {
            request,
            response: StoredResponse {
                status: u16::try_from(self.status)
                    .map_err(|_| StoreError::Corrupt(format!("status {}", self.status)))?,
                body: self.body,
                version: self.version,
            },
        })
    }
}

impl Store {
    /// The record of an idempotency key of the game, read outside any write
    /// transaction (to answer a retry before any work is done for it).
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn idempotent(
        &self,
        id: Uuid,
        key: &str,
    ) -> Result<Option<IdempotentRecord>, StoreError> {
        let row: Option<IdempotencyRow> = on_reader!(self, |c| sqlx::query_as(BY_KEY)
            .bind(id.to_string())
            .bind(key)
            .fetch_optional(c)
            .await)?;
        row.map(IdempotencyRow::into_record).transpose()
    }
}

impl WriteTx {
    /// The record of an idempotency key of the game, if any.
    ///
    /// # Errors
    /// Database errors.
    pub async fn idempotent(
        &mut self,
        id: Uuid,
        key: &str,
    ) -> Result<Option<IdempotentRecord>, StoreError> {
        self.flush().await?;
        let row: Option<IdempotencyRow> = on_conn!(self, |c| sqlx::query_as(BY_KEY)
            .bind(id.to_string())
            .bind(key)
            .fetch_optional(c)
            .await)?;
        row.map(IdempotencyRow::into_record).transpose()
    }

    /// The record of a quick match's idempotency key (stored with
    /// [`MATCH_KEY_PREFIX`]), in whichever game it was written. The partial
    /// index `idempotency_matches` serves it; its condition is repeated
    /// literally.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn match_idempotent(
        &mut self,
        key: &str,
    ) -> Result<Option<(Uuid, IdempotentRecord)>, StoreError> {
        self.flush().await?;
        let sql = format!(
            "SELECT {COLUMNS} FROM idempotency WHERE key = $1 AND key LIKE 'match:%' LIMIT 1"
        );
        let row: Option<IdempotencyRow> = on_conn!(self, |c| sqlx::query_as(&sql)
            .bind(key)
            .fetch_optional(c)
            .await)?;
        row.map(|row| Ok((parse_id(&row.game_id)?, row.into_record()?)))
            .transpose()
    }

    /// Remembers the answer to `request` under an idempotency key of the
    /// game (a later answer to the same request replaces it: a bot's reply
    /// completes the answer to a move). Staged.
    pub fn remember(
        &mut self,
        id: Uuid,
        key: &str,
        request: &RequestHash,
        response: &StoredResponse,
    ) {
        let row = IdempotencyRow::of(id, key, request, response);
        let answers = &mut self.staged.answers;
        match answers
            .iter_mut()
            .find(|r| r.game_id == row.game_id && r.key == row.key)
        {
            Some(staged) => *staged = row,
            None => answers.push(row),
        }
        self.writes += 1;
    }
}

/// The statement that inserts (or, for a key answered again, updates) the
/// staged answers.
pub(super) fn insert_rows() -> &'static Many {
    static INSERT: LazyLock<Many> = LazyLock::new(|| {
        Many::insert(
            "idempotency",
            COLUMNS,
            " ON CONFLICT (game_id, key) DO UPDATE \
             SET status = excluded.status, body = excluded.body, version = excluded.version",
        )
    });
    &INSERT
}
