//! Players and their ratings: the rows of `players`, `player_ratings` and
//! `player_games`. Written in the transaction that makes the change (a rated
//! round's end rates both players in the transaction that ends it), read
//! through the readers for the API.
//!
//! On PostgreSQL the transaction that rates a round first locks both
//! players' rows (`FOR UPDATE`, in the order of their ids), so that two
//! instances ending games of one player at once take turns: the second reads
//! the rating the first wrote, and no update is lost. On SQLite the writer
//! holds the database's only write lock.

use chrono::{DateTime, Utc};

use super::db::{Conn, on_conn, on_reader};
use super::games::{ListedRow, game_columns};
use super::{Store, StoreError, WriteTx, parse_ts, ts};
use crate::domain::player::{KindRating, LeaderboardRows, PlayerRecord, PlayerView, Ranked};
use crate::domain::rating::Rating;
use crate::domain::{GameRecord, TokenHash};
use crate::rules::GameKind;

#[derive(sqlx::FromRow)]
struct PlayerRow {
    id: String,
    name: String,
    key_hash: Option<Vec<u8>>,
    created_at: String,
    bot: bool,
    max_games: i64,
}

impl PlayerRow {
    fn into_record(self) -> Result<PlayerRecord, StoreError> {
        let key = self
            .key_hash
            .map(|b| {
                TokenHash::from_slice(&b)
                    .ok_or_else(|| StoreError::Corrupt(format!("player {}: key hash", self.id)))
            })
            .transpose()?;
        Ok(PlayerRecord {
            created_at: parse_ts(&self.created_at)?,
            id: self.id,
            name: self.name,
            key,
            bot: self.bot,
            max_games: u32::try_from(self.max_games)
                .map_err(|_| StoreError::Corrupt("player: max_games".into()))?,
        })
    }
}

/// The player by id, read in the transaction `tx`.
pub(super) async fn player_in(
    tx: &mut WriteTx,
    id: &str,
) -> Result<Option<PlayerRecord>, StoreError> {
    let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE id = $1");
    let row: Option<PlayerRow> = on_conn!(tx, |c| sqlx::query_as(&sql)
        .bind(id)
        .fetch_optional(c)
        .await)?;
    row.map(PlayerRow::into_record).transpose()
}

#[derive(sqlx::FromRow)]
pub(super) struct RatingRow {
    kind: String,
    rating: f64,
    deviation: f64,
    volatility: f64,
    games: i64,
}

impl RatingRow {
    pub(super) fn kind_rating(&self) -> KindRating {
        KindRating {
            rating: Rating {
                rating: self.rating,
                deviation: self.deviation,
                volatility: self.volatility,
            },
            games: self.games,
        }
    }
}

#[derive(sqlx::FromRow)]
struct RankedRow {
    player_id: String,
    name: String,
    bot: bool,
    #[sqlx(flatten)]
    rating: RatingRow,
}

const PLAYER_COLUMNS: &str = "id, name, key_hash, created_at, bot, max_games";
const RATING_COLUMNS: &str = "kind, rating, deviation, volatility, games";

/// How a player created with an `Idempotency-Key` was asked for (see the
/// `player_requests` table).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct PlayerRequest {
    /// A hash of the client and its key: the record's key.
    pub scope: String,
    /// The request's hash, hex.
    pub request: String,
    /// What the player's key is derived from, with the client's key.
    pub salt: String,
    pub player_id: String,
}

/// The record of a scope (`$1`): read by the readers and inside writes.
const PLAYER_REQUEST: &str =
    "SELECT scope, request, salt, player_id FROM player_requests WHERE scope = $1";

impl Store {
    /// The player created under a request's scope, if any.
    ///
    /// # Errors
    /// Database errors.
    pub async fn player_request(&self, scope: &str) -> Result<Option<PlayerRequest>, StoreError> {
        Ok(on_reader!(self, |c| sqlx::query_as(PLAYER_REQUEST)
            .bind(scope)
            .fetch_optional(c)
            .await)?)
    }
}

impl WriteTx {
    /// The player created under a request's scope, if any, as this
    /// transaction sees it.
    ///
    /// # Errors
    /// Database errors.
    pub async fn player_request(
        &mut self,
        scope: &str,
    ) -> Result<Option<PlayerRequest>, StoreError> {
        self.flush().await?;
        Ok(on_conn!(self, |c| sqlx::query_as(PLAYER_REQUEST)
            .bind(scope)
            .fetch_optional(c)
            .await)?)
    }

    /// Records how a player was asked for (after [`WriteTx::insert_player`]).
    ///
    /// # Errors
    /// Database errors (a scope recorded already among them).
    pub async fn insert_player_request(&mut self, r: &PlayerRequest) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO player_requests (scope, request, salt, player_id, created_at) \
             VALUES ($1, $2, $3, $4, $5)"
        )
        .bind(&r.scope)
        .bind(&r.request)
        .bind(&r.salt)
        .bind(&r.player_id)
        .bind(ts(Utc::now()))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Creates a player (nothing if one has the id already: a signed-in
    /// player created twice at once).
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_player(&mut self, player: &PlayerRecord) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO players (id, name, key_hash, created_at, bot, max_games) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING"
        )
        .bind(&player.id)
        .bind(&player.name)
        .bind(player.key.map(|k| k.as_bytes().to_vec()))
        .bind(ts(player.created_at))
        .bind(player.bot)
        .bind(i64::from(player.max_games))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Records that `player` holds a seat of `game`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn player_game(&mut self, player: &str, game: uuid::Uuid) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO player_games (player_id, game_id) VALUES ($1, $2)"
        )
        .bind(player)
        .bind(game.to_string())
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// How many rated rounds the two players `pair` (their ids, in order)
    /// began together since `since`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn pair_rounds_since(
        &mut self,
        pair: [&str; 2],
        since: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        self.direct().await?;
        Ok(on_conn!(self, |c| sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM rated_pair_rounds \
             WHERE low = $1 AND high = $2 AND started_at >= $3"
        )
        .bind(pair[0])
        .bind(pair[1])
        .bind(ts(since))
        .fetch_one(c)
        .await)?)
    }

    /// Records that the two players `pair` (their ids, in order) began a
    /// rated round of `game` at `now`, and forgets their rounds begun before
    /// `forget_before`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_pair_round(
        &mut self,
        pair: [&str; 2],
        game: uuid::Uuid,
        round: u32,
        now: DateTime<Utc>,
        forget_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "DELETE FROM rated_pair_rounds WHERE low = $1 AND high = $2 AND started_at < $3"
        )
        .bind(pair[0])
        .bind(pair[1])
        .bind(ts(forget_before))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO rated_pair_rounds (low, high, game_id, round, started_at) \
             VALUES ($1, $2, $3, $4, $5)"
        )
        .bind(pair[0])
        .bind(pair[1])
        .bind(game.to_string())
        .bind(i64::from(round))
        .bind(ts(now))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Writes a player's rating in a kind.
    ///
    /// # Errors
    /// Database errors.
    pub async fn set_rating(
        &mut self,
        player: &str,
        kind: GameKind,
        r: KindRating,
    ) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "INSERT INTO player_ratings (player_id, kind, rating, deviation, volatility, games) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (player_id, kind) DO UPDATE SET rating = excluded.rating, \
               deviation = excluded.deviation, volatility = excluded.volatility, \
               games = excluded.games"
        )
        .bind(player)
        .bind(kind.as_str())
        .bind(r.rating.rating)
        .bind(r.rating.deviation)
        .bind(r.rating.volatility)
        .bind(r.games)
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Both players' ratings in `kind` as this transaction sees them (a
    /// newcomer's if none is stored). On PostgreSQL both players' rows are
    /// locked first, in the order of their ids, until the transaction ends.
    ///
    /// # Errors
    /// Database errors, or a player who does not exist (PostgreSQL).
    pub async fn ratings(
        &mut self,
        kind: GameKind,
        ids: [&str; 2],
    ) -> Result<[KindRating; 2], StoreError> {
        self.flush().await?;
        if let Conn::Postgres(t) = &mut self.conn {
            let mut sorted = ids.map(str::to_owned);
            sorted.sort_unstable();
            let locked: Vec<(String,)> =
                sqlx::query_as("SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR UPDATE")
                    .bind(sorted.to_vec())
                    .fetch_all(&mut **t)
                    .await?;
            if locked.len() != if ids[0] == ids[1] { 1 } else { 2 } {
                return Err(StoreError::Corrupt(format!(
                    "a rated game's players {ids:?} are not all stored"
                )));
            }
        }
        let mut out = [KindRating::START; 2];
        for (slot, id) in out.iter_mut().zip(ids) {
            if let Some(rating) = self.rating(id, kind).await? {
                *slot = rating;
            }
        }
        Ok(out)
    }

    /// The rating in the game's kind of the player waiting in `game` (the
    /// taken seat's): as seated if known, else as stored, read without a
    /// lock; a newcomer's if none.
    ///
    /// # Errors
    /// Database errors.
    pub(super) async fn waiting_rating(&mut self, game: &GameRecord) -> Result<f64, StoreError> {
        let Some(seated) = game.players.seats.iter().flatten().next() else {
            return Ok(KindRating::START.rating.rating);
        };
        if let Some(rating) = seated.rating {
            return Ok(rating);
        }
        let stored = self.rating(&seated.id, game.kind()).await?;
        Ok(stored.unwrap_or(KindRating::START).rating.rating)
    }

    /// A player's rating in a kind as this transaction sees it; `None` if
    /// the player has none.
    ///
    /// # Errors
    /// Database errors.
    pub async fn rating(
        &mut self,
        id: &str,
        kind: GameKind,
    ) -> Result<Option<KindRating>, StoreError> {
        self.flush().await?;
        let sql = format!(
            "SELECT {RATING_COLUMNS} FROM player_ratings WHERE player_id = $1 AND kind = $2"
        );
        let row: Option<RatingRow> = on_conn!(self, |c| sqlx::query_as(&sql)
            .bind(id)
            .bind(kind.as_str())
            .fetch_optional(c)
            .await)?;
        Ok(row.map(|r| r.kind_rating()))
    }
}

impl Store {
    /// A player with their ratings.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn player(&self, id: &str) -> Result<Option<PlayerView>, StoreError> {
        let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE id = $1");
        let row: Option<PlayerRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(c)
            .await)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let sql = format!(
            "SELECT {RATING_COLUMNS} FROM player_ratings WHERE player_id = $1 ORDER BY kind"
        );
        let ratings: Vec<RatingRow> =
            on_reader!(self, |c| sqlx::query_as(&sql).bind(id).fetch_all(c).await)?;
        let ratings = ratings
            .iter()
            .map(|r| {
                let kind = r
                    .kind
                    .parse::<GameKind>()
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?;
                Ok((kind, r.kind_rating()))
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(Some(PlayerView {
            player: row.into_record()?,
            ratings,
        }))
    }

    /// The player whose key hashes to `key`.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn player_by_key(&self, key: &TokenHash) -> Result<Option<PlayerRecord>, StoreError> {
        let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE key_hash = $1");
        let bytes = key.as_bytes().to_vec();
        let row: Option<PlayerRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(bytes.clone())
            .fetch_optional(c)
            .await)?;
        row.map(PlayerRow::into_record).transpose()
    }

    /// The games a player holds a seat of (not deleted, not private), newest
    /// first, with the cursor of the next page.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn player_games(
        &self,
        id: &str,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<GameRecord>, Option<i64>), StoreError> {
        let limit = i64::from(limit.max(1));
        let columns = format!("g.{}", game_columns().replace(", ", ", g."));
        let sql = format!(
            "SELECT p.seq, {columns} FROM player_games p JOIN games g ON g.id = p.game_id \
             WHERE p.player_id = $1 AND ($2 IS NULL OR p.seq < $2) \
               AND g.deleted_at IS NULL AND NOT g.private \
             ORDER BY p.seq DESC LIMIT $3"
        );
        let rows: Vec<ListedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(id)
            .bind(before)
            .bind(limit + 1)
            .fetch_all(c)
            .await)?;
        ListedRow::page(rows, limit)
    }

    /// The players of a kind whose rating is not provisional, best first;
    /// with `rows.provisional`, the provisional ones after them, best first;
    /// bots only with `rows.bots`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn leaderboard(
        &self,
        kind: GameKind,
        limit: u32,
        rows: LeaderboardRows,
    ) -> Result<Vec<Ranked>, StoreError> {
        let sql = format!(
            "SELECT r.player_id, p.name, p.bot, r.{} FROM player_ratings r \
             JOIN players p ON p.id = r.player_id \
             WHERE r.kind = $1 AND ($4 OR r.deviation <= $2) AND ($5 OR NOT p.bot) \
             ORDER BY CASE WHEN r.deviation <= $2 THEN 0 ELSE 1 END, r.rating DESC, r.player_id \
             LIMIT $3",
            RATING_COLUMNS.replace(", ", ", r.")
        );
        let rows: Vec<RankedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(kind.as_str())
            .bind(crate::domain::rating::PROVISIONAL_ABOVE)
            .bind(i64::from(limit))
            .bind(rows.provisional)
            .bind(rows.bots)
            .fetch_all(c)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|r| Ranked {
                rating: r.rating.kind_rating(),
                id: r.player_id,
                name: r.name,
                bot: r.bot,
            })
            .collect())
    }
}
