//! Players and their ratings: the rows of `players`, `player_ratings` and
//! `player_games`. Written by the batch that makes the change (a rated
//! round's end rates both players in the transaction that ends it), read
//! through the readers for the API.
//!
//! On PostgreSQL the batch that rates a round first locks both players'
//! rows (`FOR UPDATE`, in the order of their ids), so that two instances
//! ending games of one player at once take turns: the second reads the
//! rating the first wrote, and no update is lost. On SQLite the writer holds
//! the database's only write lock, and a batch sees its own ratings through
//! its pending writes.

use chrono::{DateTime, Utc};

use super::rows::{ListedRow, ts};
use super::{Backend, Conn, GAME_SQL, Store, StoreError, WriteTx, postgres, sqlite};
use crate::domain::player::{KindRating, PlayerRecord, PlayerView, Ranked};
use crate::domain::rating::Rating;
use crate::domain::{GameRecord, TokenHash};
use crate::rules::GameKind;

/// A write of the players' tables, held with the batch until commit.
#[derive(Clone, Debug)]
pub(super) enum PlayerOp {
    /// A new player (nothing if the id exists: a signed-in player created
    /// twice at once).
    Insert(PlayerRecord),
    /// A player's rating in a kind, as it now is.
    Rating(String, GameKind, KindRating),
    /// A player took a seat of a game.
    Game(String, String),
}

#[derive(sqlx::FromRow)]
struct PlayerRow {
    id: String,
    name: String,
    key_hash: Option<Vec<u8>>,
    created_at: String,
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
        let created_at = DateTime::parse_from_rfc3339(&self.created_at)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| StoreError::Corrupt(format!("player {}: {e}", self.id)))?;
        Ok(PlayerRecord {
            id: self.id,
            name: self.name,
            key,
            created_at,
        })
    }
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
    #[sqlx(flatten)]
    rating: RatingRow,
}

const PLAYER_COLUMNS: &str = "id, name, key_hash, created_at";
const RATING_COLUMNS: &str = "kind, rating, deviation, volatility, games";

/// Writes the batch's player writes on SQLite (see `db/bound.rs`), inside
/// its transaction: players first (the ratings refer to them), then ratings
/// (a later one of the same player and kind wins), then their games.
pub(super) fn write_sqlite(db: &rusqlite::Connection, ops: &[PlayerOp]) -> rusqlite::Result<()> {
    use rusqlite::params;
    for op in ops {
        if let PlayerOp::Insert(p) = op {
            db.prepare_cached(
                "INSERT INTO players (id, name, key_hash, created_at) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (id) DO NOTHING",
            )?
            .execute(params![
                p.id,
                p.name,
                p.key.map(|k| k.as_bytes().to_vec()),
                ts(p.created_at)
            ])?;
        }
    }
    for op in ops {
        if let PlayerOp::Rating(id, kind, r) = op {
            db.prepare_cached(
                "INSERT INTO player_ratings (player_id, kind, rating, deviation, volatility, games) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT (player_id, kind) DO UPDATE SET rating = excluded.rating, \
                   deviation = excluded.deviation, volatility = excluded.volatility, games = excluded.games",
            )?
            .execute(params![
                id,
                kind.as_str(),
                r.rating.rating,
                r.rating.deviation,
                r.rating.volatility,
                r.games
            ])?;
        }
    }
    for op in ops {
        if let PlayerOp::Game(player, game) = op {
            db.prepare_cached("INSERT INTO player_games (player_id, game_id) VALUES (?1, ?2)")?
                .execute(params![player, game])?;
        }
    }
    Ok(())
}

/// The SELECT of one player's rating in one kind.
pub(super) const RATING_OF: &str = "SELECT kind, rating, deviation, volatility, games \
     FROM player_ratings WHERE player_id = $1 AND kind = $2";

/// Runs the batch's player writes on PostgreSQL, inside its transaction.
pub(super) async fn run_postgres(
    conn: &mut sqlx::PgConnection,
    ops: &[PlayerOp],
) -> Result<(), StoreError> {
    for op in ops {
        match op {
            PlayerOp::Insert(p) => {
                sqlx::query(
                    "INSERT INTO players (id, name, key_hash, created_at) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING",
                )
                .bind(&p.id)
                .bind(&p.name)
                .bind(p.key.map(|k| k.as_bytes().to_vec()))
                .bind(ts(p.created_at))
                .execute(&mut *conn)
                .await?;
            }
            PlayerOp::Rating(id, kind, r) => {
                sqlx::query(
                    "INSERT INTO player_ratings \
                       (player_id, kind, rating, deviation, volatility, games) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (player_id, kind) DO UPDATE SET \
                       rating = excluded.rating, deviation = excluded.deviation, \
                       volatility = excluded.volatility, games = excluded.games",
                )
                .bind(id)
                .bind(kind.as_str())
                .bind(r.rating.rating)
                .bind(r.rating.deviation)
                .bind(r.rating.volatility)
                .bind(r.games)
                .execute(&mut *conn)
                .await?;
            }
            PlayerOp::Game(player, game) => {
                sqlx::query("INSERT INTO player_games (player_id, game_id) VALUES ($1, $2)")
                    .bind(player)
                    .bind(game)
                    .execute(&mut *conn)
                    .await?;
            }
        }
    }
    Ok(())
}

impl WriteTx {
    fn player_op(&mut self, op: PlayerOp) {
        self.conn.pending().players.push(op);
        self.writes += 1;
    }

    /// Creates a player (nothing if one has the id already).
    pub fn insert_player(&mut self, player: &PlayerRecord) {
        self.player_op(PlayerOp::Insert(player.clone()));
    }

    /// Records that `player` holds a seat of `game`.
    pub fn player_game(&mut self, player: &str, game: uuid::Uuid) {
        self.player_op(PlayerOp::Game(player.to_owned(), game.to_string()));
    }

    /// Writes a player's rating in a kind.
    pub fn set_rating(&mut self, player: &str, kind: GameKind, rating: KindRating) {
        self.player_op(PlayerOp::Rating(player.to_owned(), kind, rating));
    }

    /// Both players' ratings in `kind` as this batch sees them (a newcomer's
    /// if none is stored). On PostgreSQL both players' rows are locked
    /// first, in the order of their ids, until the batch ends.
    ///
    /// # Errors
    /// Database errors, or a player who does not exist (PostgreSQL).
    pub async fn ratings(
        &mut self,
        kind: GameKind,
        ids: [&str; 2],
    ) -> Result<[KindRating; 2], StoreError> {
        let mut sorted = ids;
        sorted.sort_unstable();
        if let Conn::Postgres(batch) = &mut self.conn {
            let tx = batch.tx().await?;
            let locked: Vec<(String,)> =
                sqlx::query_as("SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR UPDATE")
                    .bind(sorted.map(str::to_owned).to_vec())
                    .fetch_all(&mut *tx)
                    .await?;
            if locked.len() != if ids[0] == ids[1] { 1 } else { 2 } {
                return Err(StoreError::Corrupt(format!(
                    "a rated game's players {ids:?} are not all stored"
                )));
            }
        }
        let mut out = [KindRating::START; 2];
        for (slot, id) in out.iter_mut().zip(ids) {
            if let Some(rating) = self.rating_as_seen(id, kind).await? {
                *slot = rating;
            }
        }
        Ok(out)
    }

    /// The rating in the game's kind of the player waiting in `game` (the
    /// taken seat's): as seated if known, else as this batch sees it, read
    /// without a lock; a newcomer's if none.
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
        let stored = self.rating_as_seen(&seated.id, game.kind()).await?;
        Ok(stored.unwrap_or(KindRating::START).rating.rating)
    }

    /// A player's rating in a kind as this batch sees it: its own write, else
    /// the committed one (SQLite: through the writer's cache); `None` if the
    /// player has none.
    async fn rating_as_seen(
        &mut self,
        id: &str,
        kind: GameKind,
    ) -> Result<Option<KindRating>, StoreError> {
        let pending = self
            .conn
            .pending()
            .players
            .iter()
            .rev()
            .find_map(|op| match op {
                PlayerOp::Rating(p, k, r) if p == id && *k == kind => Some(*r),
                _ => None,
            });
        if pending.is_some() {
            return Ok(pending);
        }
        match &mut self.conn {
            Conn::Sqlite(batch) => batch.rating(id, kind).await,
            Conn::Postgres(batch) => {
                let tx = batch.tx().await?;
                let row: Option<RatingRow> = sqlx::query_as(RATING_OF)
                    .bind(id)
                    .bind(kind.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
                Ok(row.map(|r| r.kind_rating()))
            }
        }
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
        let columns = GAME_SQL
            .columns
            .split(", ")
            .map(|c| format!("g.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
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

    /// The players of a kind whose rating is not provisional, best first.
    ///
    /// # Errors
    /// Database errors.
    pub async fn leaderboard(&self, kind: GameKind, limit: u32) -> Result<Vec<Ranked>, StoreError> {
        let sql = format!(
            "SELECT r.player_id, p.name, r.{} FROM player_ratings r \
             JOIN players p ON p.id = r.player_id \
             WHERE r.kind = $1 AND r.deviation <= $2 \
             ORDER BY r.rating DESC, r.player_id LIMIT $3",
            RATING_COLUMNS.replace(", ", ", r.")
        );
        let rows: Vec<RankedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(kind.as_str())
            .bind(crate::domain::rating::PROVISIONAL_ABOVE)
            .bind(i64::from(limit))
            .fetch_all(c)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|r| Ranked {
                rating: r.rating.kind_rating(),
                id: r.player_id,
                name: r.name,
            })
            .collect())
    }
}
