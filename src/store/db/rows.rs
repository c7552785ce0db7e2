//! Rows: what a table holds, as named structs read with `FromRow` and
//! written by both backends, and their conversions to and from the domain
//! records, validating on the way in exactly as a request would be (a
//! snapshot goes through the rules' decoder, names through their parsers).
//!
//! Over 700 lines, on purpose: every table's row and its conversion both
//! ways sit together, so that a column added is added to its reader, its
//! writers and its validation in one file (most of the length is the games
//! row and its `meta` JSON).
//!
//! The games table's columns are listed once, in [`game_columns!`]: the
//! struct of a row and both batches' expressions (named JSON keys) come from
//! that list.

use std::str::FromStr;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};
use uuid::Uuid;

use super::StoreError;
use crate::clock::{Fraction, Rfc3339};
use crate::domain::player::{Players, RatingChange, SeatPlayer};
use crate::domain::rating::Rating;
use crate::domain::{
    DeleteReason, Ending, EventRecord, EventType, GameClock, GameRecord, IdempotentRecord, Level,
    MoveRecord, Offer, OfferKind, RequestHash, Seat, StoredResponse, TimeControl, TokenHash,
};
use crate::rules::{AnyGame, GameKind, MoveInput, Player};

/// A timestamp as stored: RFC 3339, microseconds, `Z`.
pub(super) fn ts(t: DateTime<Utc>) -> String {
    Rfc3339::of(&t, Fraction::Micros).as_str().to_owned()
}

/// The minute of `t` in the stored format: the first 16 characters of
/// [`ts`] (`2026-11-24T04:35`), in time order as text.
pub(super) fn minute(t: DateTime<Utc>) -> String {
    minute_of(&ts(t))
}

/// The minute of a time written by [`ts`]: up to its seconds (cut from the
/// text rather than formatted again, on the writer's path).
fn minute_of(stamp: &str) -> String {
    stamp
        .rfind(':')
        .map_or_else(|| stamp.to_owned(), |end| stamp[..end].to_owned())
}

fn parse_ts(s: &str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("timestamp {s:?}: {e}")))
}

pub(super) fn player_str(p: Player) -> &'static str {
    match p {
        Player::X => "X",
        Player::O => "O",
    }
}

fn parse_player(s: &str) -> Result<Player, StoreError> {
    match s {
        "X" => Ok(Player::X),
        "O" => Ok(Player::O),
        _ => Err(StoreError::Corrupt(format!("player {s:?}"))),
    }
}

/// One column of the games table.
pub(super) struct Column {
    pub(super) name: &'static str,
    /// Binary: hex-encoded in PostgreSQL's batch JSON.
    pub(super) blob: bool,
    /// Written once, by the insert; an update leaves it.
    pub(super) fixed: bool,
    /// In an index over every game (`games_by_status`, `games_idle`):
    /// SQLite rewrites a row's entries in an index whenever an UPDATE sets
    /// one of its columns, to the same value or not, so a move's update
    /// leaves these out unless they change (see
    /// [`GameSql::sqlite_update`]).
    pub(super) indexed: bool,
}

/// Declares the games table's columns once: the row struct [`GameColumns`]
/// (read with `FromRow`, serialized with the column names as keys, blobs in
/// hex) and [`GAME_COLUMNS`], the list the statements are made from.
/// Flags: `blob` (binary), `fixed` (set at insert only), `indexed` (in an
/// index over every game).
macro_rules! game_columns {
    ($($(#[$attr:meta])* $name:ident: $ty:ty $([$($flag:ident)+])?,)+) => {
        /// A stored game, one field per column of the games table.
        #[derive(Debug, sqlx::FromRow, Serialize)]
        pub(super) struct GameColumns {
            $($(#[$attr])* pub(super) $name: $ty,)+
        }

        /// The games table's columns, in the order of [`GameColumns`].
        pub(super) const GAME_COLUMNS: &[Column] = &[$(Column {
            name: stringify!($name),
            blob: game_columns!(@blob $($($flag)+)?),
            fixed: game_columns!(@fixed $($($flag)+)?),
            indexed: game_columns!(@indexed $($($flag)+)?),
        },)+];

        impl GameColumns {
            /// Binds the columns, in order, to `?1`… of `statement`
            /// (SQLite's batch: see `db/bound.rs`).
            pub(super) fn bind(&self, statement: &mut rusqlite::Statement<'_>) -> rusqlite::Result<()> {
                let mut i = 0;
                $(
                    i += 1;
                    statement.raw_bind_parameter(i, &self.$name)?;
                )+
                Ok(())
            }
        }

    };
    (@blob) => { false };
    (@blob blob $($rest:ident)*) => { true };
    (@blob $other:ident $($rest:ident)*) => { game_columns!(@blob $($rest)*) };
    (@fixed) => { false };
    (@fixed fixed $($rest:ident)*) => { true };
    (@fixed $other:ident $($rest:ident)*) => { game_columns!(@fixed $($rest)*) };
    (@indexed) => { false };
    (@indexed indexed $($rest:ident)*) => { true };
    (@indexed $other:ident $($rest:ident)*) => { game_columns!(@indexed $($rest)*) };
}

game_columns! {
    id: String [fixed],
    kind: String [fixed],
    /// Derived from the position and seats; stored for listing filters.
    status: String [indexed],
    /// Derived: a human seat is free. Stored for listing filters.
    open_seat: bool,
    hotseat: bool,
    x_type: String,
    #[serde(serialize_with = "hex_opt")]
    x_token: Option<Vec<u8>> [blob],
    x_level: Option<String>,
    x_seed: Option<i64>,
    o_type: String,
    #[serde(serialize_with = "hex_opt")]
    o_token: Option<Vec<u8>> [blob],
    o_level: Option<String>,
    o_seed: Option<i64>,
    round: i64,
    resigned: Option<String>,
    version: i64,
    #[serde(serialize_with = "hex")]
    snapshot: Vec<u8> [blob],
    created_at: String [fixed],
    updated_at: String,
    /// Private: not listed.
    private: bool,
    /// Names, invite hash, ending, offer and clock, as JSON (see [`Meta`]);
    /// NULL when all are empty.
    meta: Option<String>,
    /// When the running side's clock runs out (for the timeout sweeper).
    deadline: Option<String>,
    /// Derived: the terms under which quick match may join the game
    /// ([`GameRecord::match_key`]); NULL when it may not. Stored for the
    /// matcher's choice.
    match_key: Option<String>,
    /// Derived: `updated_at` to the minute (`2026-11-24T04:35`), for the
    /// expiry sweeper's index (it changes at most once a minute, so most
    /// updates touch no indexed column).
    updated_minute: String [indexed],
}

/// What a game row holds in its `meta` column: the parts of a game that
/// no query filters on.
#[derive(Debug, Default, serde::Deserialize, Serialize)]
struct Meta {
    #[serde(default, skip_serializing_if = "names_empty")]
    names: [Option<String>; 2],
    /// Hex SHA-256 of the invite code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    invite: Option<String>,
    /// `timeout` or `agreement` (resignations are in `resigned`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ending: Option<String>,
    /// The seat whose time ran out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    loser: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offer: Option<MetaOffer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clock: Option<MetaClock>,
    /// The seats' players (see [`Players`]).
    #[serde(default, skip_serializing_if = "players_empty")]
    players: [Option<MetaPlayer>; 2],
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    rated: bool,
    /// Before and after, by seat: `[rating, deviation, volatility]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rating_change: Option<[[[f64; 3]; 2]; 2]>,
}

fn players_empty(players: &[Option<MetaPlayer>; 2]) -> bool {
    players.iter().all(Option::is_none)
}

#[derive(Debug, serde::Deserialize, Serialize)]
struct MetaPlayer {
    id: String,
    /// Hex of the credential's hash.
    credential: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rating: Option<f64>,
}

fn rating_triple(r: &Rating) -> [f64; 3] {
    [r.rating, r.deviation, r.volatility]
}

fn triple_rating(t: [f64; 3]) -> Rating {
    Rating {
        rating: t[0],
        deviation: t[1],
        volatility: t[2],
    }
}

fn names_empty(names: &[Option<String>; 2]) -> bool {
    names.iter().all(Option::is_none)
}

#[derive(Debug, serde::Deserialize, Serialize)]
struct MetaOffer {
    kind: String,
    by: String,
    at: String,
}

#[derive(Debug, serde::Deserialize, Serialize)]
struct MetaClock {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    initial_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    increment_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    per_move_ms: Option<i64>,
    remaining_ms: [i64; 2],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    since: Option<String>,
}

impl Meta {
    fn of(game: &GameRecord) -> Meta {
        let (ending, loser) = match game.ending {
            Some(Ending::Timeout(p)) => (Some("timeout"), Some(player_str(p).to_owned())),
            Some(Ending::Agreement) => (Some("agreement"), None),
            Some(Ending::Resignation(_)) | None => (None, None),
        };
        Meta {
            names: game.names.clone(),
            invite: game.invite.map(|h| hex::encode(h.as_bytes())),
            ending: ending.map(str::to_owned),
            loser,
            offer: game.offer.map(|o| MetaOffer {
                kind: o.kind.as_str().to_owned(),
                by: player_str(o.by).to_owned(),
                at: ts(o.at),
            }),
            clock: game.clock.map(|c| {
                let (initial_ms, increment_ms, per_move_ms) = match c.control {
                    TimeControl::Fischer {
                        initial_ms,
                        increment_ms,
                    } => (Some(initial_ms), Some(increment_ms), None),
                    TimeControl::PerMove { per_move_ms } => (None, None, Some(per_move_ms)),
                };
                MetaClock {
                    initial_ms,
                    increment_ms,
                    per_move_ms,
                    remaining_ms: c.remaining_ms,
                    since: c.since.map(ts),
                }
            }),
            players: game.players.seats.clone().map(|sp| {
                sp.map(|sp| MetaPlayer {
                    id: sp.id,
                    credential: hex::encode(sp.credential.as_bytes()),
                    rating: sp.rating,
                })
            }),
            rated: game.players.rated,
            rating_change: game.players.change.map(|c| {
                [
                    [rating_triple(&c.before[0]), rating_triple(&c.before[1])],
                    [rating_triple(&c.after[0]), rating_triple(&c.after[1])],
                ]
            }),
        }
    }

    fn is_empty(&self) -> bool {
        players_empty(&self.players)
            && !self.rated
            && self.rating_change.is_none()
            && names_empty(&self.names)
            && self.invite.is_none()
            && self.ending.is_none()
            && self.offer.is_none()
            && self.clock.is_none()
    }

    fn parse(text: Option<&str>) -> Result<Meta, StoreError> {
        text.map_or_else(
            || Ok(Meta::default()),
            |t| serde_json::from_str(t).map_err(|e| StoreError::Corrupt(format!("meta: {e}"))),
        )
    }
}

fn hex<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex::encode(bytes))
}

#[expect(
    clippy::ref_option,
    reason = "serde's serialize_with passes a reference to the field"
)]
fn hex_opt<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(b) => hex(b, s),
        None => s.serialize_none(),
    }
}

/// The statements made from [`GAME_COLUMNS`].
pub(super) struct GameSql {
    /// Every column, comma-separated (for a SELECT).
    pub(super) columns: String,
    /// `SELECT <columns> FROM games WHERE id = $1`, unless deleted.
    pub(super) by_id: String,
    /// The same and `deleted_at`, deleted or not (for event streams).
    pub(super) by_id_kept: String,
    /// PostgreSQL: the games whose ids are in the array `$1` and not
    /// deleted, each looked up by its id and locked in the order of the
    /// array. A lookup per id, rather than `id = ANY($1)`, so that the plan
    /// does not hang on the table's statistics: on a table not yet analyzed
    /// the planner took a partial index over every undeleted game and
    /// compared each row with each id (2.7 ms for 64 ids among 2,000 games,
    /// against 0.25 ms by the id index).
    pub(super) lock_many: String,
    /// SQLite batch: insert or update one game, its columns bound in
    /// order ([`GameColumns::bind`]).
    pub(super) sqlite_upsert: String,
    /// SQLite batch: update one game whose indexed columns (status, updated
    /// minute) keep their stored values, bound as the upsert; no row
    /// changed when they do not (or the game is new), and then the upsert
    /// follows. Most moves change neither, and left out of the SET their
    /// index entries are not rewritten (in a test of batches of 16 moves on
    /// 16 of 3,000 games, ~40 pages a batch went to the WAL with them and
    /// ~16 without; the service's batches share more pages: 3% fewer).
    pub(super) sqlite_update: String,
    /// PostgreSQL batch: the columns of a JSON object `g`, read through `p`,
    /// the record `jsonb_populate_record(NULL::games, g)`, except the blobs
    /// (hex in the JSON), decoded from `g`.
    pub(super) pg_from_json: String,
    /// Both batches: `col = excluded.col` for every column that is not fixed.
    pub(super) upsert_set: String,
}

pub(super) static GAME_SQL: LazyLock<GameSql> = LazyLock::new(|| {
    let names: Vec<&str> = GAME_COLUMNS.iter().map(|c| c.name).collect();
    let columns = names.join(", ");
    let changing = || GAME_COLUMNS.iter().filter(|c| !c.fixed);
    let pg_from_json = GAME_COLUMNS
        .iter()
        .map(|c| {
            if c.blob {
                format!("decode(e.g->>'{}', 'hex')", c.name)
            } else {
                format!("p.{}", c.name)
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    let upsert_set = changing()
        .map(|c| format!("{0} = excluded.{0}", c.name))
        .collect::<Vec<_>>()
        .join(", ");
    let placeholders = (1..=GAME_COLUMNS.len())
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let (indexed, steady): (Vec<_>, Vec<_>) = GAME_COLUMNS
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.fixed)
        .partition(|(_, c)| c.indexed);
    let numbered = |columns: Vec<(usize, &Column)>, join: &str| {
        columns
            .iter()
            .map(|(i, c)| format!("{} = ?{}", c.name, i + 1))
            .collect::<Vec<_>>()
            .join(join)
    };
    GameSql {
        // `id` is the first column (a test checks).
        sqlite_update: format!(
            "UPDATE games SET {} WHERE id = ?1 AND {}",
            numbered(steady, ", "),
            numbered(indexed, " AND ")
        ),
        sqlite_upsert: format!(
            "INSERT INTO games ({columns}) VALUES ({placeholders}) \
             ON CONFLICT (id) DO UPDATE SET {upsert_set}"
        ),
        by_id: format!("SELECT {columns} FROM games WHERE id = $1 AND deleted_at IS NULL"),
        by_id_kept: format!("SELECT {columns}, deleted_at FROM games WHERE id = $1"),
        lock_many: format!(
            "SELECT g.* FROM unnest($1::text[]) WITH ORDINALITY AS w(id, n) \
             CROSS JOIN LATERAL (SELECT {columns} FROM games \
               WHERE games.id = w.id AND deleted_at IS NULL FOR UPDATE) AS g \
             ORDER BY w.n"
        ),
        columns,
        pg_from_json,
        upsert_set,
    }
});

impl GameColumns {
    /// The columns of a game record.
    pub(super) fn of(game: &GameRecord) -> GameColumns {
        let seat = |s: &Seat| match *s {
            Seat::Human { token } => (
                "human".to_owned(),
                token.map(|t| t.as_bytes().to_vec()),
                None,
                None,
            ),
            Seat::Bot { level, seed } => (
                "bot".to_owned(),
                None,
                Some(level.as_str().to_owned()),
                Some(i64::from_ne_bytes(seed.to_ne_bytes())),
            ),
        };
        let updated_at = ts(game.updated_at);
        let updated_minute = minute_of(&updated_at);
        let (x_type, x_token, x_level, x_seed) = seat(&game.seats[0]);
        let (o_type, o_token, o_level, o_seed) = seat(&game.seats[1]);
        GameColumns {
            id: game.id.to_string(),
            kind: game.kind().as_str().to_owned(),
            status: game.outcome().0.as_str().to_owned(),
            open_seat: game.has_open_seat(),
            hotseat: game.hotseat,
            x_type,
            x_token,
            x_level,
            x_seed,
            o_type,
            o_token,
            o_level,
            o_seed,
            round: i64::from(game.round),
            resigned: match game.ending {
                Some(Ending::Resignation(p)) => Some(player_str(p).to_owned()),
                _ => None,
            },
            version: game.version,
            snapshot: game.position.encode(),
            created_at: ts(game.created_at),
            updated_at,
            private: game.private,
            meta: {
                let meta = Meta::of(game);
                (!meta.is_empty()).then(|| serde_json::to_string(&meta).unwrap_or_default())
            },
            deadline: game.deadline().map(ts),
            match_key: game.match_key(),
            updated_minute,
        }
    }

    /// Validates the row the way a request is validated: the snapshot goes
    /// through the rules' decoder, names through their parsers. (`status`
    /// and `open_seat` are derived, not read back.)
    pub(super) fn into_record(self) -> Result<GameRecord, StoreError> {
        let id = Uuid::parse_str(&self.id).map_err(|e| StoreError::Corrupt(format!("id: {e}")))?;
        let kind =
            GameKind::from_str(&self.kind).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let position = AnyGame::decode(kind, &self.snapshot)
            .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
        let meta = Meta::parse(self.meta.as_deref())?;
        let resigned = self.resigned.as_deref().map(parse_player).transpose()?;
        let ending = match (meta.ending.as_deref(), meta.loser.as_deref()) {
            (Some("timeout"), Some(p)) => Some(Ending::Timeout(parse_player(p)?)),
            (Some("agreement"), None) => Some(Ending::Agreement),
            (None, None) => resigned.map(Ending::Resignation),
            (e, _) => return Err(StoreError::Corrupt(format!("game {id}: ending {e:?}"))),
        };
        let invite = meta
            .invite
            .as_deref()
            .map(|h| {
                hex::decode(h)
                    .ok()
                    .and_then(|b| TokenHash::from_slice(&b))
                    .ok_or_else(|| StoreError::Corrupt(format!("game {id}: invite hash")))
            })
            .transpose()?;
        let offer = meta
            .offer
            .map(|o| -> Result<Offer, StoreError> {
                Ok(Offer {
                    kind: OfferKind::parse(&o.kind)
                        .ok_or_else(|| StoreError::Corrupt(format!("offer {:?}", o.kind)))?,
                    by: parse_player(&o.by)?,
                    at: parse_ts(&o.at)?,
                })
            })
            .transpose()?;
        let clock = meta
            .clock
            .map(|c| -> Result<GameClock, StoreError> {
                let control = match (c.initial_ms, c.increment_ms, c.per_move_ms) {
                    (Some(initial_ms), Some(increment_ms), None) => TimeControl::Fischer {
                        initial_ms,
                        increment_ms,
                    },
                    (None, None, Some(per_move_ms)) => TimeControl::PerMove { per_move_ms },
                    _ => return Err(StoreError::Corrupt(format!("game {id}: clock"))),
                };
                Ok(GameClock {
                    control,
                    remaining_ms: c.remaining_ms,
                    since: c.since.as_deref().map(parse_ts).transpose()?,
                })
            })
            .transpose()?;
        let mut seat_players = [None, None];
        for (slot, p) in seat_players.iter_mut().zip(meta.players) {
            *slot = p
                .map(|p| -> Result<SeatPlayer, StoreError> {
                    let credential = hex::decode(&p.credential)
                        .ok()
                        .and_then(|b| TokenHash::from_slice(&b))
                        .ok_or_else(|| StoreError::Corrupt(format!("game {id}: credential")))?;
                    Ok(SeatPlayer {
                        id: p.id,
                        credential,
                        rating: p.rating,
                    })
                })
                .transpose()?;
        }
        let players = Players {
            seats: seat_players,
            rated: meta.rated,
            change: meta.rating_change.map(|[before, after]| RatingChange {
                before: before.map(triple_rating),
                after: after.map(triple_rating),
            }),
        };
        Ok(GameRecord {
            id,
            position,
            seats: [
                seat_from(
                    &self.x_type,
                    self.x_token,
                    self.x_level.as_deref(),
                    self.x_seed,
                )?,
                seat_from(
                    &self.o_type,
                    self.o_token,
                    self.o_level.as_deref(),
                    self.o_seed,
                )?,
            ],
            hotseat: self.hotseat,
            round: u32::try_from(self.round)
                .map_err(|_| StoreError::Corrupt(format!("round {}", self.round)))?,
            ending,
            version: self.version,
            derived: false,
            created_at: parse_ts(&self.created_at)?,
            updated_at: parse_ts(&self.updated_at)?,
            names: meta.names,
            private: self.private,
            invite,
            offer,
            clock,
            as_of: parse_ts(&self.updated_at)?,
            players,
        })
    }
}

fn seat_from(
    kind: &str,
    token: Option<Vec<u8>>,
    level: Option<&str>,
    seed: Option<i64>,
) -> Result<Seat, StoreError> {
    match kind {
        "human" => {
            let token = token
                .map(|t| {
                    TokenHash::from_slice(&t)
                        .ok_or_else(|| StoreError::Corrupt("token hash length".into()))
                })
                .transpose()?;
            Ok(Seat::Human { token })
        }
        "bot" => {
            let level = level
                .and_then(|l| Level::from_str(l).ok())
                .ok_or_else(|| StoreError::Corrupt(format!("bot level {level:?}")))?;
            let seed = u64::from_ne_bytes(seed.unwrap_or_default().to_ne_bytes());
            Ok(Seat::Bot { level, seed })
        }
        other => Err(StoreError::Corrupt(format!("seat type {other:?}"))),
    }
}

/// A game, deleted or not: `deleted_at` is set once it is deleted.
#[derive(sqlx::FromRow)]
pub(super) struct KeptRow {
    #[sqlx(flatten)]
    pub(super) game: GameColumns,
    pub(super) deleted_at: Option<String>,
}

/// A listed game with its cursor.
#[derive(sqlx::FromRow)]
pub(super) struct ListedRow {
    pub(super) seq: i64,
    #[sqlx(flatten)]
    pub(super) game: GameColumns,
}

impl ListedRow {
    /// A page of a listing read with `limit + 1` rows: its games, and the
    /// cursor of the next page (the last row's `seq`) if there is one.
    pub(super) fn page(
        rows: Vec<ListedRow>,
        limit: i64,
    ) -> Result<(Vec<GameRecord>, Option<i64>), StoreError> {
        let page = usize::try_from(limit).unwrap_or(usize::MAX);
        let next = (rows.len() > page).then(|| rows[page - 1].seq);
        let games = rows
            .into_iter()
            .take(page)
            .map(|r| r.game.into_record())
            .collect::<Result<_, _>>()?;
        Ok((games, next))
    }
}

/// A row of the moves table. A move is two numbers: `a` is the row, column
/// or board; `b` the column, nothing or the cell.
#[derive(Clone, Debug, sqlx::FromRow, Serialize)]
pub(super) struct MoveRow {
    pub(super) game_id: String,
    pub(super) round: i64,
    pub(super) ply: i64,
    pub(super) version: i64,
    pub(super) player: String,
    pub(super) a: i64,
    pub(super) b: Option<i64>,
    pub(super) at: String,
}

/// The columns of a move row, for a SELECT.
pub(super) const MOVE_COLUMNS: &str = "game_id, round, ply, version, player, a, b, at";

/// A round's moves: `$1` game, `$2` round.
pub(super) const ROUND_MOVES: &str = "SELECT game_id, round, ply, version, player, a, b, at \
     FROM moves WHERE game_id = $1 AND round = $2 ORDER BY ply";

impl MoveRow {
    pub(super) fn of(id: Uuid, m: &MoveRecord) -> MoveRow {
        let (a, b) = match m.mv {
            MoveInput::Cell { row, col } => (row, Some(col)),
            MoveInput::Column { column } => (column, None),
            MoveInput::BoardCell { board, cell } => (board, Some(cell)),
        };
        MoveRow {
            game_id: id.to_string(),
            round: i64::from(m.round),
            ply: i64::from(m.ply),
            version: m.version,
            player: player_str(m.player).to_owned(),
            a,
            b,
            at: ts(m.at),
        }
    }

    pub(super) fn into_record(self, kind: GameKind) -> Result<MoveRecord, StoreError> {
        let corrupt = || StoreError::Corrupt(format!("move {}/{}", self.round, self.ply));
        let mv = match (kind, self.b) {
            (GameKind::ConnectFour, None) => MoveInput::Column { column: self.a },
            (GameKind::TicTacToe | GameKind::Gomoku, Some(b)) => MoveInput::Cell {
                row: self.a,
                col: b,
            },
            (GameKind::UltimateTicTacToe, Some(b)) => MoveInput::BoardCell {
                board: self.a,
                cell: b,
            },
            _ => return Err(corrupt()),
        };
        Ok(MoveRecord {
            round: u32::try_from(self.round).map_err(|_| corrupt())?,
            ply: u32::try_from(self.ply).map_err(|_| corrupt())?,
            version: self.version,
            player: parse_player(&self.player)?,
            mv,
            at: parse_ts(&self.at)?,
        })
    }
}

/// A row of the `game_events` table: a change that is not a move.
#[derive(Debug, sqlx::FromRow, Serialize)]
pub(super) struct EventRow {
    pub(super) game_id: String,
    pub(super) version: i64,
    #[sqlx(rename = "type")]
    #[serde(rename = "type")]
    pub(super) event_type: String,
    pub(super) round: i64,
    /// `join`: the seat taken; `resign`: the seat that resigned; offers:
    /// the seat that offered, declined or withdrew; `timeout`: the seat
    /// whose time ran out.
    pub(super) player: Option<String>,
    pub(super) at: String,
    /// Offers: the offer's type; `takeback`: the moves left in the round;
    /// `deleted`: [`EXPIRED`] when the expiry sweeper deleted the game (NULL:
    /// a seat did).
    pub(super) detail: Option<String>,
}

/// The `detail` of a `deleted` event written by the expiry sweeper.
const EXPIRED: &str = "expired";

/// The columns of an event row, for a SELECT.
pub(super) const EVENT_COLUMNS: &str = "game_id, version, type, round, player, at, detail";

impl EventRow {
    pub(super) fn of(id: Uuid, e: &EventRecord) -> EventRow {
        let (name, player, detail) = match e.event {
            EventType::Create => ("create", None, None),
            EventType::Join(p) => ("join", Some(p), None),
            EventType::Restart => ("restart", None, None),
            EventType::Resign(p) => ("resign", Some(p), None),
            EventType::Offer(k, p) => ("offer", Some(p), Some(k.as_str().to_owned())),
            EventType::OfferDeclined(k, p) => {
                ("offer_declined", Some(p), Some(k.as_str().to_owned()))
            }
            EventType::OfferWithdrawn(k, p) => {
                ("offer_withdrawn", Some(p), Some(k.as_str().to_owned()))
            }
            EventType::Takeback(plies) => ("takeback", None, Some(plies.to_string())),
            EventType::Draw => ("draw", None, None),
            EventType::Timeout(p) => ("timeout", Some(p), None),
            EventType::Deleted(DeleteReason::BySeat) => ("deleted", None, None),
            // A deletion by the expiry sweeper.
            EventType::Deleted(DeleteReason::Expired) => {
                ("deleted", None, Some(EXPIRED.to_owned()))
            }
        };
        EventRow {
            game_id: id.to_string(),
            version: e.version,
            event_type: name.to_owned(),
            round: i64::from(e.round),
            player: player.map(|p| player_str(p).to_owned()),
            at: ts(e.at),
            detail,
        }
    }

    pub(super) fn into_record(self) -> Result<EventRecord, StoreError> {
        let player = self.player.as_deref().map(parse_player).transpose()?;
        let offer = self.detail.as_deref().and_then(OfferKind::parse);
        let plies = self.detail.as_deref().and_then(|d| d.parse::<u32>().ok());
        let event = match (self.event_type.as_str(), player, offer, plies) {
            ("create", None, ..) => EventType::Create,
            ("join", Some(p), ..) => EventType::Join(p),
            ("restart", None, ..) => EventType::Restart,
            ("resign", Some(p), ..) => EventType::Resign(p),
            ("offer", Some(p), Some(k), _) => EventType::Offer(k, p),
            ("offer_declined", Some(p), Some(k), _) => EventType::OfferDeclined(k, p),
            ("offer_withdrawn", Some(p), Some(k), _) => EventType::OfferWithdrawn(k, p),
            ("takeback", None, _, Some(n)) => EventType::Takeback(n),
            ("draw", None, ..) => EventType::Draw,
            ("timeout", Some(p), ..) => EventType::Timeout(p),
            ("deleted", None, ..) => match self.detail.as_deref() {
                None => EventType::Deleted(DeleteReason::BySeat),
                Some(EXPIRED) => EventType::Deleted(DeleteReason::Expired),
                Some(other) => {
                    return Err(StoreError::Corrupt(format!(
                        "deleted for {other:?} at version {}",
                        self.version
                    )));
                }
            },
            (name, ..) => {
                return Err(StoreError::Corrupt(format!(
                    "event {name:?} at version {}",
                    self.version
                )));
            }
        };
        Ok(EventRecord {
            version: self.version,
            event,
            round: u32::try_from(self.round)
                .map_err(|_| StoreError::Corrupt(format!("round {}", self.round)))?,
            at: parse_ts(&self.at)?,
        })
    }
}

/// A row of the idempotency table: the answer to a request, by game and
/// key, with the hash of the request (hex; NULL in records stored before
/// requests were hashed) and the version of the game the answer carries.
#[derive(Clone, Debug, sqlx::FromRow, Serialize)]
pub(super) struct IdempotencyRow {
    pub(super) game_id: String,
    pub(super) key: String,
    pub(super) request: Option<String>,
    pub(super) status: i64,
    pub(super) body: String,
    pub(super) version: i64,
    pub(super) created_at: String,
}

/// Quick match's candidates: the games waiting for an opponent under the
/// match key `$1`, oldest first, after `seq` `$2`, at most `$3`, changed at
/// `$4` or later (older ones have waited too long: their people are likely
/// gone): each one's `seq` and id. (The partial index `games_matchable`
/// serves it; its condition is repeated here literally so that SQLite can
/// use it.)
pub(super) const WAITING: &str = "SELECT seq, id FROM games \
     WHERE match_key = $1 AND status = 'waiting' AND deleted_at IS NULL AND seq > $2 \
     AND updated_at >= $4 ORDER BY seq LIMIT $3";

/// The record of a quick match's idempotency key `$1` (stored as
/// [`MATCH_KEY_PREFIX`] and the client's key, on the game the caller got).
/// The partial index `idempotency_matches` serves it; its condition is
/// repeated literally.
pub(super) const MATCH_IDEMPOTENT: &str = "SELECT game_id, key, request, status, body, version, created_at \
     FROM idempotency WHERE key = $1 AND key LIKE 'match:%' LIMIT 1";

/// How a quick match's idempotency key is stored: apart from the keys of
/// moves, which belong to one game.
pub const MATCH_KEY_PREFIX: &str = "match:";

/// Reads `(seq, id)` rows into ids.
pub(super) fn waiting_ids(rows: Vec<(i64, String)>) -> Result<Vec<(i64, Uuid)>, StoreError> {
    rows.into_iter()
        .map(|(seq, id)| {
            Uuid::parse_str(&id)
                .map(|id| (seq, id))
                .map_err(|e| StoreError::Corrupt(format!("id {id:?}: {e}")))
        })
        .collect()
}

/// The record of an idempotency key: `$1` game, `$2` key.
pub(super) const IDEMPOTENT: &str = "SELECT game_id, key, request, status, body, version, created_at \
     FROM idempotency WHERE game_id = $1 AND key = $2";

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minute_is_the_stored_time_up_to_its_seconds() {
        for t in [
            "2026-11-24T04:35:59.999999Z",
            "2026-01-01T00:00:00Z",
            "1999-12-31T23:59:00.5Z",
        ] {
            let t = DateTime::parse_from_rfc3339(t).unwrap().with_timezone(&Utc);
            assert_eq!(minute(t), t.format("%Y-%m-%dT%H:%M").to_string());
            assert!(ts(t).starts_with(&minute(t)));
        }
    }

    #[test]
    fn the_statements_name_every_column_once_in_list_order() {
        let sql = &*GAME_SQL;
        let placeholders = format!(
            "VALUES ({})",
            (1..=GAME_COLUMNS.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(
            sql.sqlite_upsert.contains(&placeholders),
            "{}",
            sql.sqlite_upsert
        );
        assert!(
            sql.sqlite_upsert
                .contains(&format!("INSERT INTO games ({})", sql.columns))
        );
        for c in GAME_COLUMNS {
            let pg = if c.blob {
                format!("decode(e.g->>'{}', 'hex')", c.name)
            } else {
                format!("p.{}", c.name)
            };
            assert_eq!(sql.pg_from_json.matches(&pg).count(), 1, "{pg}");
            let set = format!("{0} = excluded.{0}", c.name);
            assert_eq!(sql.upsert_set.contains(&set), !c.fixed, "{set}");
        }
        assert!(!sql.upsert_set.contains("created_at"));
    }

    #[test]
    fn a_moves_update_sets_the_changing_columns_and_keeps_the_indexed_ones_in_its_condition() {
        let sql = &GAME_SQL.sqlite_update;
        assert_eq!(GAME_COLUMNS[0].name, "id", "the update names the id ?1");
        let (set, condition) = sql
            .strip_prefix("UPDATE games SET ")
            .and_then(|s| s.split_once(" WHERE "))
            .unwrap();
        assert!(condition.starts_with("id = ?1 AND "), "{condition}");
        for (i, c) in GAME_COLUMNS.iter().enumerate() {
            let bound = format!("{} = ?{}", c.name, i + 1);
            let set_here = set.split(", ").any(|s| s == bound);
            let kept = condition.split(" AND ").any(|s| s == bound);
            assert_eq!(set_here, !c.fixed && !c.indexed, "{bound} in {set}");
            assert_eq!(kept, c.indexed || c.name == "id", "{bound} in {condition}");
        }
        let indexed: Vec<_> = GAME_COLUMNS
            .iter()
            .filter(|c| c.indexed)
            .map(|c| c.name)
            .collect();
        assert_eq!(indexed, ["status", "updated_minute"]);
    }

    #[test]
    fn a_row_serializes_under_the_column_names_with_blobs_in_hex() {
        let game = GameRecord {
            id: Uuid::nil(),
            position: AnyGame::new(crate::rules::Setup::ConnectFour),
            seats: [
                Seat::Human {
                    token: Some(TokenHash::of("t")),
                },
                Seat::Bot {
                    level: Level::Hard,
                    seed: u64::MAX,
                },
            ],
            hotseat: false,
            round: 1,
            ending: None,
            version: 3,
            derived: false,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            names: [Some("Ann".into()), None],
            private: true,
            invite: Some(TokenHash::of("invite")),
            offer: Some(Offer {
                kind: OfferKind::Takeback,
                by: Player::O,
                at: Utc::now(),
            }),
            clock: Some(GameClock::new(TimeControl::PerMove { per_move_ms: 1000 })),
            as_of: Utc::now(),
            players: crate::domain::player::Players::default(),
        };
        let json = serde_json::to_value(GameColumns::of(&game)).expect("serializes");
        let keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        let names: Vec<&str> = GAME_COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(keys, names);
        assert_eq!(json["x_token"], hex::encode(TokenHash::of("t").as_bytes()));
        assert_eq!(json["o_token"], serde_json::Value::Null);
        assert_eq!(json["o_seed"], -1);
        assert_eq!(json["private"], true);
        let back = GameColumns::of(&game).into_record().expect("reads back");
        assert_eq!(back.names, game.names);
        assert_eq!(back.invite, game.invite);
        assert_eq!(back.clock, game.clock);
        assert_eq!(
            back.offer.map(|o| (o.kind, o.by)),
            Some((OfferKind::Takeback, Player::O))
        );
        assert_eq!(json["snapshot"], hex::encode(game.position.encode()));
    }
}
