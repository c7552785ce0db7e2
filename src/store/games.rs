//! Games and their seats: the `games` table (one list, [`game_table!`], makes
//! its row, its column lists and its binds), the row's conversion to and
//! from [`GameRecord`] (on the way in, the snapshot goes through the rules'
//! decoder and the ids, kinds, levels, hashes and times through their
//! parsers; names are taken as stored, having been checked when they were
//! written), and the reads and writes of games.
//!
//! Over 700 lines, on purpose: a game's row and its conversion both ways sit
//! together, so that a column added is added to its reader, its writer and
//! its validation in one file (most of the length is the `meta` JSON).

use std::str::FromStr;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use sqlx::query_builder::Separated;

use super::db::{Batch, Conn, JsonCell, Many, on_conn, on_reader};
use super::{Store, StoreError, WriteTx, parse_id, parse_ts, ts};
use crate::domain::player::{Players, RatingChange, SeatPlayer};
use crate::domain::rating::Rating;
use crate::domain::{
    Assistance, DEFAULT_CLAIM_AFTER_MS, DEFAULT_FIRST_MOVE_MS, Ending, GameClock, GameRecord,
    GameStatus, Level, ListFilter, Offer, OfferKind, Seat, TimeControl, TokenHash, Turn,
};
use crate::rules::{AnyGame, GameKind, Player};

pub(super) fn player_str(p: Player) -> &'static str {
    match p {
        Player::X => "X",
        Player::O => "O",
    }
}

pub(super) fn parse_player(s: &str) -> Result<Player, StoreError> {
    match s {
        "X" => Ok(Player::X),
        "O" => Ok(Player::O),
        _ => Err(StoreError::Corrupt(format!("player {s:?}"))),
    }
}

/// Whether an update of a game writes a column, or only its insert does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Written {
    /// At the insert only: what a game never changes.
    Once,
    /// At the insert and at every update: what a move changes.
    Moved,
    /// At the insert and at an update that changes it: what a move leaves
    /// alone, among them every column some index holds (see [`Kept`]).
    Kept,
}

/// The games table, one line a column: its field of [`GameRow`] (with its
/// type) and when it is written. The struct, the column list of every read,
/// the update's `SET` list and the insert's binds are all made from this one
/// list, so a new column is a line here, the migrations (one per backend)
/// and its conversion in [`GameRow::of`] and [`GameRow::into_record`] (a
/// `Kept` one's in [`Kept::at`]).
macro_rules! game_table {
    // Whether `row` holds the stored value of a column: always true of one
    // every update writes.
    (@held Kept $kept:ident $row:ident $col:ident) => { $kept.$col == $row.$col };
    (@held $written:ident $kept:ident $row:ident $col:ident) => { true };
    ($( $(#[$attr:meta])* $col:ident: $ty:ty => $written:ident, )*) => {
        /// A stored game, one field per column of the games table.
        #[derive(Clone, Debug, PartialEq, sqlx::FromRow, Serialize, Deserialize)]
        pub(super) struct GameRow {
            $( $(#[$attr])* pub(super) $col: $ty, )*
        }

        /// The games table's columns in [`GameRow`]'s order, with when each
        /// is written.
        const GAME_TABLE: &[(&str, Written)] = &[$( (stringify!($col), Written::$written), )*];

        // Binds a row's columns in [`GAME_TABLE`]'s order, on either backend.
        super::db::bind_row!(GameRow: $($col),*);

        /// Whether `row` holds the values `kept` holds (no update but a
        /// move's, or none): whether [`steady_update`] may write it.
        fn held_by(kept: &Kept, row: &GameRow) -> bool {
            true $( && game_table!(@held $written kept row $col) )*
        }

        /// Binds a row's id and the columns written at every update, in
        /// [`GAME_TABLE`]'s order: the values of [`steady_update`].
        pub(super) struct Steady<'a>(&'a GameRow);

        impl super::db::BindRow for Steady<'_> {
            fn bind_row<'a>(&'a self, b: &mut Separated<'_, 'a, sqlx::Postgres, &'static str>) {
                b.push_bind(&self.0.id);
                $( if Written::$written == Written::Moved { b.push_bind(&self.0.$col); } )*
            }
        }

        impl super::db::JsonRow for Steady<'_> {
            fn blobs() -> Vec<bool> {
                let mut blobs = vec![false];
                $( if Written::$written == Written::Moved {
                    blobs.push(<$ty as JsonCell>::BLOB);
                } )*
                blobs
            }
            fn write_cells<S: serde::ser::SerializeSeq>(&self, seq: &mut S) -> Result<(), S::Error> {
                self.0.id.write(seq)?;
                $( if Written::$written == Written::Moved { self.0.$col.write(seq)?; } )*
                Ok(())
            }
        }
    };
}

game_table! {
    id: String => Once,
    kind: String => Once,
    /// Derived from the position and seats; stored for listing filters.
    status: String => Kept,
    /// Derived: a human seat is free. Stored for listing filters.
    open_seat: bool => Kept,
    hotseat: bool => Kept,
    x_type: String => Kept,
    x_token: Option<Vec<u8>> => Kept,
    x_level: Option<String> => Kept,
    x_seed: Option<i64> => Kept,
    o_type: String => Kept,
    o_token: Option<Vec<u8>> => Kept,
    o_level: Option<String> => Kept,
    o_seed: Option<i64> => Kept,
    round: i64 => Kept,
    resigned: Option<String> => Kept,
    version: i64 => Moved,
    snapshot: Vec<u8> => Moved,
    created_at: String => Once,
    updated_at: String => Moved,
    /// Private: not listed.
    private: bool => Kept,
    /// Names, invite hash, ending, offer, clock and players, as JSON (see
    /// [`Meta`]); NULL when all are empty.
    meta: Option<String> => Moved,
    /// When the running side's clock runs out (for the timeout sweeper).
    deadline: Option<String> => Kept,
    /// Derived: the terms under which quick match may join the game
    /// ([`GameRecord::match_key`]); NULL when it may not.
    match_key: Option<String> => Kept,
    /// Derived: `updated_at` to the minute (`2026-11-24T04:35`), for the
    /// expiry sweeper's index.
    updated_minute: String => Kept,
    /// Set when the game is deleted (kept a while for event streams); not
    /// in a webhook event's facts.
    #[serde(skip)]
    deleted_at: Option<String> => Kept,
}

/// The games table's columns, comma-separated, in [`GameRow`]'s order: what
/// every read of whole games selects.
pub(super) fn game_columns() -> &'static str {
    static COLUMNS: LazyLock<String> = LazyLock::new(|| {
        let names: Vec<&str> = GAME_TABLE.iter().map(|(name, _)| *name).collect();
        names.join(", ")
    });
    &COLUMNS
}

/// An update of the games `v` holds (a `WITH v(id, …) AS (VALUES …)`
/// before it) that sets the columns a move changes only: no index holds
/// them, so the row is rewritten and no index entry, and a move's row is a
/// few values, not the whole game (see [`Kept`]).
fn steady_update() -> &'static Many {
    static SQL: LazyLock<Many> = LazyLock::new(|| {
        let steady: Vec<&str> = GAME_TABLE
            .iter()
            .filter(|(_, written)| *written == Written::Moved)
            .map(|(name, _)| *name)
            .collect();
        let sets: Vec<String> = steady.iter().map(|c| format!("{c} = v.{c}")).collect();
        Many::around(
            &format!("WITH v (id, {}) AS (", steady.join(", ")),
            &format!(
                ") UPDATE games SET {} FROM v WHERE games.id = v.id",
                sets.join(", ")
            ),
        )
    });
    &SQL
}

/// What an update of a game sets: every column but those written once.
fn upsert_set() -> &'static str {
    static SET: LazyLock<String> = LazyLock::new(|| {
        let sets: Vec<String> = GAME_TABLE
            .iter()
            .filter(|(_, written)| *written != Written::Once)
            .map(|(name, _)| format!("{name} = excluded.{name}"))
            .collect();
        sets.join(", ")
    });
    &SET
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
    /// `timeout`, `no_first_move`, `agreement`, `claimed` or `claimed_draw`
    /// (resignations are in `resigned`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ending: Option<String>,
    /// The seat whose time or first-move deadline ran out; the seat that
    /// claimed.
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
    /// The round the two players were last counted for (see [`Players`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counted_round: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pair_limited: bool,
    /// Before and after, by seat: `[rating, deviation, volatility]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rating_change: Option<[[[f64; 3]; 2]; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rematch_of: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rematch: Option<Uuid>,
    /// The tournament the game is a board of, and its round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tournament: Option<(Uuid, u32)>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    assistance_forbidden: bool,
    /// Hints, analyses and bot moves in this round, by seat.
    #[serde(default, skip_serializing_if = "zeros")]
    assistance_used: [u32; 2],
    /// The turn of the side to move: `[round, ply]` and since when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    turn: Option<([u32; 2], String)>,
    /// The claim delay, when not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claim_after_ms: Option<i64>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn zeros(used: &[u32; 2]) -> bool {
    *used == [0, 0]
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
    /// The first-move window (absent in rows written before it: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_move_ms: Option<i64>,
}

impl Meta {
    fn of(game: &GameRecord) -> Meta {
        let (ending, loser) = match game.ending {
            Some(Ending::Timeout(p)) => (Some("timeout"), Some(player_str(p).to_owned())),
            Some(Ending::NoFirstMove(p)) => (Some("no_first_move"), Some(player_str(p).to_owned())),
            Some(Ending::Claimed { by, draw }) => (
                Some(if draw { "claimed_draw" } else { "claimed" }),
                Some(player_str(by).to_owned()),
            ),
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
                    first_move_ms: Some(c.first_move_ms),
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
            counted_round: game.players.counted_round,
            pair_limited: game.players.pair_limited,
            rating_change: game.players.change.map(|c| {
                [c.before, c.after].map(|side| side.map(|r| [r.rating, r.deviation, r.volatility]))
            }),
            rematch_of: game.rematch_of,
            rematch: game.rematch,
            tournament: game.tournament,
            assistance_forbidden: game.assistance.forbidden,
            assistance_used: game.assistance.used,
            turn: game.turn.map(|t| ([t.round, t.ply], ts(t.since))),
            claim_after_ms: (game.claim_after_ms != DEFAULT_CLAIM_AFTER_MS)
                .then_some(game.claim_after_ms),
        }
    }

    fn parse(text: Option<&str>) -> Result<Meta, StoreError> {
        text.map_or_else(|| Ok(Meta::default()), |t| super::from_json("meta", t))
    }
}

/// A game's columns a move leaves alone (those [`Written::Kept`]), among
/// them every one some index holds: an update that changes none of them is
/// written by [`steady_update`], one that does by the upsert.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Kept {
    status: String,
    open_seat: bool,
    hotseat: bool,
    x_type: String,
    x_token: Option<Vec<u8>>,
    x_level: Option<String>,
    x_seed: Option<i64>,
    o_type: String,
    o_token: Option<Vec<u8>>,
    o_level: Option<String>,
    o_seed: Option<i64>,
    round: i64,
    resigned: Option<String>,
    private: bool,
    deadline: Option<String>,
    match_key: Option<String>,
    updated_minute: String,
    /// NULL in every game read; set by a deletion.
    deleted_at: Option<String>,
}

impl Kept {
    fn of(game: &GameRecord) -> Kept {
        Kept::at(game, &ts(game.updated_at))
    }

    /// As [`of`](Self::of), with the game's `updated_at` as stored.
    fn at(game: &GameRecord, updated_at: &str) -> Kept {
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
        let (x_type, x_token, x_level, x_seed) = seat(&game.seats[0]);
        let (o_type, o_token, o_level, o_seed) = seat(&game.seats[1]);
        Kept {
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
            private: game.private,
            deadline: game.deadline().map(ts),
            match_key: game.match_key(),
            // The minute: the stored time up to its seconds.
            updated_minute: updated_at[..16].to_owned(),
            deleted_at: None,
        }
    }
}

/// A game's row staged for the batch, with the values its stored row keeps
/// from a move (none: a new game).
pub(super) struct StagedGame {
    row: GameRow,
    stored: Option<Kept>,
}

impl GameRow {
    /// The columns of a game record.
    pub(super) fn of(game: &GameRecord) -> GameRow {
        let updated_at = ts(game.updated_at);
        let Kept {
            status,
            open_seat,
            hotseat,
            x_type,
            x_token,
            x_level,
            x_seed,
            o_type,
            o_token,
            o_level,
            o_seed,
            round,
            resigned,
            private,
            deadline,
            match_key,
            updated_minute,
            deleted_at,
        } = Kept::at(game, &updated_at);
        GameRow {
            id: game.id.to_string(),
            kind: game.kind().as_str().to_owned(),
            status,
            open_seat,
            hotseat,
            x_type,
            x_token,
            x_level,
            x_seed,
            o_type,
            o_token,
            o_level,
            o_seed,
            round,
            resigned,
            version: game.version,
            snapshot: game.position.encode(),
            created_at: ts(game.created_at),
            updated_at,
            private,
            // NULL when every part is empty (each is left out when empty).
            meta: serde_json::to_string(&Meta::of(game))
                .ok()
                .filter(|m| m != "{}"),
            deadline,
            match_key,
            updated_minute,
            deleted_at,
        }
    }

    /// The record of a row, checked as it is read: the snapshot goes through
    /// the rules' decoder, ids, kinds, levels, hashes and times through their
    /// parsers; a row that fails is [`StoreError::Corrupt`]. (`status`,
    /// `open_seat`, `deadline`, `match_key` and `updated_minute` are derived,
    /// not read back.)
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
            (Some("no_first_move"), Some(p)) => Some(Ending::NoFirstMove(parse_player(p)?)),
            (Some(claim @ ("claimed" | "claimed_draw")), Some(p)) => Some(Ending::Claimed {
                by: parse_player(p)?,
                draw: claim == "claimed_draw",
            }),
            (Some("agreement"), None) => Some(Ending::Agreement),
            (None, None) => resigned.map(Ending::Resignation),
            (e, _) => return Err(StoreError::Corrupt(format!("game {id}: ending {e:?}"))),
        };
        let hash = |hex_text: &str| {
            hex::decode(hex_text)
                .ok()
                .and_then(|b| TokenHash::from_slice(&b))
                .ok_or_else(|| StoreError::Corrupt(format!("game {id}: hash {hex_text:?}")))
        };
        let invite = meta.invite.as_deref().map(hash).transpose()?;
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
                let first_move_ms = c.first_move_ms.unwrap_or(DEFAULT_FIRST_MOVE_MS);
                Ok(GameClock {
                    remaining_ms: c.remaining_ms,
                    since: c.since.as_deref().map(parse_ts).transpose()?,
                    ..GameClock::new(control, first_move_ms)
                })
            })
            .transpose()?;
        let mut seat_players = [None, None];
        for (slot, p) in seat_players.iter_mut().zip(meta.players) {
            *slot = p
                .map(|p| -> Result<SeatPlayer, StoreError> {
                    Ok(SeatPlayer {
                        credential: hash(&p.credential)?,
                        id: p.id,
                        rating: p.rating,
                    })
                })
                .transpose()?;
        }
        let players = Players {
            seats: seat_players,
            rated: meta.rated,
            counted_round: meta.counted_round,
            pair_limited: meta.pair_limited,
            change: meta.rating_change.map(|[before, after]| RatingChange {
                before: before.map(triple_rating),
                after: after.map(triple_rating),
            }),
        };
        Ok(GameRecord {
            id,
            position,
            seats: [
                seat(
                    &self.x_type,
                    self.x_token,
                    self.x_level.as_deref(),
                    self.x_seed,
                )?,
                seat(
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
            rematch_of: meta.rematch_of,
            rematch: meta.rematch,
            tournament: meta.tournament,
            assistance: Assistance {
                forbidden: meta.assistance_forbidden,
                used: meta.assistance_used,
            },
            turn: meta
                .turn
                .map(|([round, ply], since)| -> Result<Turn, StoreError> {
                    Ok(Turn {
                        round,
                        ply,
                        since: parse_ts(&since)?,
                    })
                })
                .transpose()?,
            claim_after_ms: meta.claim_after_ms.unwrap_or(DEFAULT_CLAIM_AFTER_MS),
        })
    }
}

/// A seat from its columns.
fn seat(
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

/// A listed game with its cursor.
#[derive(sqlx::FromRow)]
pub(super) struct ListedRow {
    pub(super) seq: i64,
    #[sqlx(flatten)]
    pub(super) game: GameRow,
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

impl Store {
    /// A game by id, read outside any write transaction.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let kept = self.game_kept(id).await?;
        Ok(kept.and_then(|(game, deleted)| (!deleted).then_some(game)))
    }

    /// A game by id, also while it is kept after its deletion (see
    /// [`KEEP_DELETED`](super::KEEP_DELETED)): `true` with a deleted one,
    /// whose version is that of its `deleted` event.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game_kept(&self, id: Uuid) -> Result<Option<(GameRecord, bool)>, StoreError> {
        let sql = format!("SELECT {} FROM games WHERE id = $1", game_columns());
        let row: Option<GameRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(|r| {
            let deleted = r.deleted_at.is_some();
            Ok((r.into_record()?, deleted))
        })
        .transpose()
    }

    /// Games in `status` unchanged since before `before` (not deleted), the
    /// longest unchanged first, at most `limit`: each one's id and version.
    /// The expiry sweeper's choice; the index on `(status,
    /// updated_minute)` serves it through the implied condition on the
    /// minute, and the cutoff on `updated_at` stays exact (both are stored
    /// in one fixed-width UTC format, so text order is time order).
    ///
    /// # Errors
    /// Database errors, or an id that does not decode.
    pub async fn unchanged_since(
        &self,
        status: GameStatus,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let before = ts(before);
        let rows: Vec<(String, i64)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT id, version FROM games \
             WHERE status = $1 AND updated_minute <= $2 AND updated_at < $3 \
               AND deleted_at IS NULL \
             ORDER BY updated_minute LIMIT $4"
        )
        .bind(status.as_str())
        .bind(&before[..16])
        .bind(&before)
        .bind(i64::from(limit))
        .fetch_all(c)
        .await)?;
        rows.into_iter()
            .map(|(id, version)| Ok((parse_id(&id)?, version)))
            .collect()
    }

    /// Games matching `filter`, newest first, with the cursor of the next page.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn list(
        &self,
        filter: &ListFilter,
    ) -> Result<(Vec<GameRecord>, Option<i64>), StoreError> {
        let limit = i64::from(filter.limit.max(1));
        let sql = format!(
            "SELECT seq, {} FROM games \
             WHERE deleted_at IS NULL AND NOT private \
               AND ($1 IS NULL OR kind = $1) AND ($2 IS NULL OR status = $2) \
               AND ($3 IS NULL OR open_seat = $3) AND ($4 IS NULL OR seq < $4) \
             ORDER BY seq DESC LIMIT $5",
            game_columns()
        );
        let kind = filter.kind.map(|k| k.as_str().to_owned());
        let status = filter.status.map(|s| s.as_str().to_owned());
        let rows: Vec<ListedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(kind.clone())
            .bind(status.clone())
            .bind(filter.open)
            .bind(filter.before)
            .bind(limit + 1)
            .fetch_all(c)
            .await)?;
        ListedRow::page(rows, limit)
    }

    /// Of the games in progress with a bot seat after cursor `after` (their
    /// `seq`; at most `limit` read), those with a bot to move, and the
    /// cursor of the next page if there may be one.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn bots_to_move(
        &self,
        after: i64,
        limit: u32,
    ) -> Result<(Vec<Uuid>, Option<i64>), StoreError> {
        let sql = format!(
            "SELECT seq, {} FROM games WHERE status = 'in_progress' \
             AND (x_type = 'bot' OR o_type = 'bot') AND deleted_at IS NULL AND seq > $1 \
             ORDER BY seq LIMIT $2",
            game_columns()
        );
        let rows: Vec<ListedRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(after)
            .bind(i64::from(limit))
            .fetch_all(c)
            .await)?;
        let next = (rows.len() >= usize::try_from(limit).unwrap_or(usize::MAX))
            .then(|| rows.last().map(|r| r.seq))
            .flatten();
        let mut ids = Vec::new();
        for row in rows {
            let game = row.game.into_record()?;
            if matches!(game.seat(game.position.to_move()), Seat::Bot { .. }) {
                ids.push(game.id);
            }
        }
        Ok((ids, next))
    }

    /// Games whose running clock ran out at or before `now` (at most
    /// `limit`, earliest deadline first), for the timeout sweeper.
    ///
    /// # Errors
    /// Database errors.
    pub async fn overdue(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Uuid>, StoreError> {
        let rows: Vec<(String,)> = on_reader!(self, |c| sqlx::query_as(
            "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1 \
             AND deleted_at IS NULL ORDER BY deadline LIMIT $2"
        )
        .bind(ts(now))
        .bind(i64::from(limit))
        .fetch_all(c)
        .await)?;
        rows.into_iter().map(|(id,)| parse_id(&id)).collect()
    }
}

impl WriteTx {
    /// The game by id, inside the transaction: from the games this
    /// transaction holds, else read (on PostgreSQL the row stays locked
    /// until the transaction ends, so concurrent writers of one game, on
    /// any instance, take turns).
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let lock = match self.conn {
            Conn::Postgres(_) => " FOR UPDATE",
            Conn::Sqlite(_) => "",
        };
        self.game_locked(id, lock).await
    }

    /// The game by id, from the games this transaction holds, else read
    /// with `lock` (a PostgreSQL locking clause, or nothing) and kept.
    pub(super) async fn game_locked(
        &mut self,
        id: Uuid,
        lock: &str,
    ) -> Result<Option<GameRecord>, StoreError> {
        if let Some(game) = self.games.get(&id) {
            return Ok(Some(game.clone()));
        }
        self.flush().await?;
        let sql = format!(
            "SELECT {} FROM games WHERE id = $1 AND deleted_at IS NULL{lock}",
            game_columns()
        );
        let row: Option<GameRow> = on_conn!(self, |c| sqlx::query_as(&sql)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        let game = row.map(GameRow::into_record).transpose()?;
        if let Some(game) = &game {
            self.games.put(id, game.clone());
        }
        Ok(game)
    }

    /// Inserts a new game (staged: sent with the batch's next statement).
    pub fn insert_game(&mut self, game: &GameRecord) {
        self.stage_game(None, game, false);
    }

    /// Writes the game's new state if its stored version is still
    /// `expected_version`. Returns false (and changes nothing) otherwise.
    ///
    /// # Errors
    /// Database errors.
    pub async fn update_game(
        &mut self,
        game: &GameRecord,
        expected_version: i64,
    ) -> Result<bool, StoreError> {
        match self.game(game.id).await? {
            Some(current) if current.version == expected_version => {
                self.stage_game(Some(&current), game, false);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Deletes a game: from now on no read or write finds it, but it is kept,
    /// with its history, for [`KEEP_DELETED`](super::KEEP_DELETED), for event
    /// streams (see [`Store::game_kept`]); then it is purged. Record its last
    /// change (the `deleted` event, at a version of its own) first. False
    /// (nothing changed) when there is no such game.
    ///
    /// # Errors
    /// Database errors.
    pub async fn delete_game(&mut self, id: Uuid) -> Result<bool, StoreError> {
        // Written in its latest state and marked, so that its history stays
        // whole for event streams.
        let Some(game) = self.game(id).await? else {
            return Ok(false);
        };
        self.stage_game(Some(&game), &game, true);
        Ok(true)
    }

    /// Erases the games deleted before `before`, with their history and
    /// idempotency records.
    ///
    /// # Errors
    /// Database errors.
    pub async fn purge_deleted(&mut self, before: DateTime<Utc>) -> Result<(), StoreError> {
        self.direct().await?;
        on_conn!(self, |c| sqlx::query(
            "DELETE FROM games WHERE deleted_at < $1"
        )
        .bind(ts(before))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }

    /// Stages the game's row (replacing one staged before) and keeps its
    /// state as this transaction's.
    fn stage_game(&mut self, before: Option<&GameRecord>, game: &GameRecord, deleted: bool) {
        let mut row = GameRow::of(game);
        if deleted {
            row.deleted_at = Some(ts(Utc::now()));
            self.games.pop(&game.id);
        } else {
            self.games.put(game.id, game.clone());
        }
        // The first staging in a batch sees the game as stored: its kept
        // values are those of the stored row until the batch commits.
        match self.staged.games.iter_mut().find(|g| g.row.id == row.id) {
            Some(staged) => staged.row = row,
            None => self.staged.games.push(StagedGame {
                row,
                stored: before.map(Kept::of),
            }),
        }
        self.wrote(before, game, deleted);
    }
}

/// The staged games by how they are written: new games and updates that
/// change a kept column by the upsert, the others (a move's update) by
/// [`steady_update`].
pub(super) struct Split<'s> {
    upserts: Vec<&'s GameRow>,
    steady: Vec<Steady<'s>>,
}

impl<'s> Split<'s> {
    pub(super) fn of(games: &'s [StagedGame]) -> Split<'s> {
        let mut split = Split {
            upserts: Vec::new(),
            steady: Vec::new(),
        };
        for g in games {
            if g.stored.as_ref().is_some_and(|s| held_by(s, &g.row)) {
                split.steady.push(Steady(&g.row));
            } else {
                split.upserts.push(&g.row);
            }
        }
        split
    }
}

/// Writes the statements that insert or update the staged games, a
/// statement for many.
pub(super) fn push_rows<'a>(
    out: &mut impl Batch<'a>,
    games: &'a Split<'a>,
) -> Result<(), StoreError> {
    static UPSERT: LazyLock<Many> = LazyLock::new(|| {
        Many::insert(
            "games",
            game_columns(),
            &format!(" ON CONFLICT (id) DO UPDATE SET {}", upsert_set()),
        )
    });
    out.rows(&UPSERT, &games.upserts)?;
    out.rows(steady_update(), &games.steady)
}
