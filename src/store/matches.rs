//! Quick match's choice: the oldest game waiting for an opponent under a
//! key (its kind and options), read and taken in the caller's transaction.
//!
//! On SQLite the writer holds the database's only write lock, so the choice
//! and its write are one step. On PostgreSQL the job first takes the key's
//! transaction-level advisory lock, so that of the instances matching under
//! one key one decides at a time, and a game is taken only if its row can
//! be locked without waiting. Neither ever waits: [`Waiting::Busy`] instead.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use super::db::{Conn, on_conn};
use super::{StoreError, WriteTx, parse_id, ts};
use crate::domain::{GameRecord, GameStatus, TokenHash};

/// What quick match finds for a key (see [`WriteTx::oldest_waiting`]).
#[derive(Debug)]
pub enum Waiting {
    /// The oldest game waiting for an opponent under the key, as the
    /// transaction sees it (on PostgreSQL, locked until it ends).
    Game(Box<GameRecord>),
    /// No game waits under the key: the caller may create one.
    Nothing,
    /// The oldest game waiting under the key is the caller's own (it holds
    /// a seat of it): a caller is never matched with itself.
    Own(Box<GameRecord>),
    /// PostgreSQL only: another instance is matching under the key, or
    /// holds a waiting game of it; nothing was decided. Retry shortly.
    Busy,
}

/// Rated quick match: take the waiting game whose player's rating is
/// nearest `rating`, within `window` points.
#[derive(Clone, Copy, Debug)]
pub struct Nearest {
    pub rating: f64,
    pub window: f64,
}

/// Candidates read at a time.
const WAITING_PAGE: i64 = 32;

/// The advisory lock of quick match's key: the first 8 bytes of the SHA-256
/// of `tabula match <key>`, the same number on every instance.
fn advisory_lock_id(key: &str) -> i64 {
    let digest = Sha256::digest(format!("tabula match {key}").as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(first)
}

/// Whether `game` waits for an opponent under quick match's key `key`.
fn waits_under(game: &GameRecord, key: &str) -> bool {
    game.outcome().0 == GameStatus::Waiting && game.match_key().as_deref() == Some(key)
}

impl WriteTx {
    /// The oldest game waiting for an opponent under quick match's key
    /// `key` (see [`GameRecord::match_key`]) and changed at `since` or later
    /// (older ones have waited too long: their people are likely gone), in
    /// the order they were created; with `nearest`, the one whose player's
    /// rating is nearest among them. A game of the caller's own (`own`
    /// holds a seat) is [`Waiting::Own`].
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn oldest_waiting(
        &mut self,
        key: &str,
        since: DateTime<Utc>,
        own: Option<&TokenHash>,
        nearest: Option<Nearest>,
    ) -> Result<Waiting, StoreError> {
        self.flush().await?;
        let postgres = matches!(self.conn, Conn::Postgres(_));
        if postgres {
            let locked: bool = on_conn!(self, |c| sqlx::query_scalar(
                "SELECT pg_try_advisory_xact_lock($1)"
            )
            .bind(advisory_lock_id(key))
            .fetch_one(c)
            .await)?;
            if !locked {
                return Ok(Waiting::Busy);
            }
        }
        let since_text = ts(since);
        let mut locked_elsewhere = false;
        // Rated: every candidate is seen, and the nearest taken at the end.
        let mut candidates: Vec<GameRecord> = Vec::new();
        let mut after = 0;
        loop {
            // The partial index `games_matchable` serves it; its condition is
            // repeated literally so that SQLite can use it.
            let page: Vec<(i64, String)> = on_conn!(self, |c| sqlx::query_as(
                "SELECT seq, id FROM games \
                 WHERE match_key = $1 AND status = 'waiting' AND deleted_at IS NULL \
                   AND seq > $2 AND updated_at >= $4 ORDER BY seq LIMIT $3"
            )
            .bind(key)
            .bind(after)
            .bind(WAITING_PAGE)
            .bind(&since_text)
            .fetch_all(c)
            .await)?;
            let full = page.len() >= usize::try_from(WAITING_PAGE).unwrap_or(usize::MAX);
            for (seq, id) in page {
                after = seq;
                let id = parse_id(&id)?;
                let game = if postgres {
                    // Skipped (and so not waited for) when another holds it.
                    let Some(game) = self.game_locked(id, " FOR UPDATE SKIP LOCKED").await? else {
                        locked_elsewhere = true;
                        continue;
                    };
                    Some(game)
                } else {
                    self.game(id).await?
                };
                let Some(game) = game.filter(|g| waits_under(g, key) && g.updated_at >= since)
                else {
                    continue;
                };
                if own.is_some_and(|token| game.seat_of(token).is_some()) {
                    return Ok(Waiting::Own(Box::new(game)));
                }
                if nearest.is_none() {
                    return Ok(Waiting::Game(Box::new(game)));
                }
                candidates.push(game);
            }
            if !full {
                break;
            }
        }
        if let Some(nearest) = nearest {
            let mut best: Option<(f64, GameRecord)> = None;
            for game in candidates {
                let rating = self.waiting_rating(&game).await?;
                let distance = (rating - nearest.rating).abs();
                if distance <= nearest.window && best.as_ref().is_none_or(|(d, _)| distance < *d) {
                    best = Some((distance, game));
                }
            }
            if let Some((_, game)) = best {
                return Ok(Waiting::Game(Box::new(game)));
            }
        }
        Ok(if locked_elsewhere {
            Waiting::Busy
        } else {
            Waiting::Nothing
        })
    }
}
