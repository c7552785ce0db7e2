//! Wire types: what goes over HTTP, with serde and OpenAPI schemas, and the
//! conversions from domain records. Requests are parsed here into domain
//! values (`MoveBody` → `MoveInput`, `CreateGame` → `NewGame`).
//!
//! One file per subject: `moves`, `game`, `create`, `hints` (bots),
//! `analysis`, `notation`, `queries`, `kinds`, `players`, `rules` (rules as
//! a service), `tournaments`, `challenges` and `webhooks`; the small types they share (kinds, sides,
//! levels, headers) are here.

mod analysis;
mod challenges;
mod create;
mod game;
mod hints;
mod kinds;
mod moves;
mod notation;
mod players;
mod queries;
mod rules;
mod tournaments;
mod webhooks;

use actix_web::http::header::HeaderValue;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::Level;
use crate::rules::{GameKind, Player};

pub use analysis::{AnalysisQuery, AnalysisView, ScoredMoveView};
pub use challenges::{
    Challenge, ChallengeDeclineReason, ChallengePage, ChallengePlayer, ChallengeSeat,
    ChallengeState, CreateChallenge, DeclineChallenge,
};
pub use create::{
    ClaimRequest, ClaimWanted, ClockRequest, CreateGame, CreateOptions, EmptyBody, JoinGame,
    OfferRequest, OpponentRequest, QuickMatch,
};
pub use game::{
    AssistanceSetting, AssistanceUsed, ClockView, Coord, EndReason, Game, GameOptions, GamePage,
    InnerBoard, OfferType, OfferView, Rule, SeatGrant, SeatInfo, SeatType, Seats, SideClock,
    Status, ThreatInfo, UltimateState, Visibility,
};
pub use hints::{BotMoveRequest, EvaluationView, HintView, ProvenOutcome};
pub use kinds::{ChoiceOption, KindInfo, KindList, KindOptions, MoveShape, RangeOption};
pub use moves::{
    BadMove, BoardCellMove, CellMove, ColumnMove, MoveBody, MoveList, MoveRecordView, MoveResponse,
    parse_move, refusal_detail,
};
pub use notation::{NotationView, RoundResult};
pub use players::{
    BotRows, CreatePlayer, Leaderboard, LeaderboardEntry, LeaderboardQuery, Player as PlayerBody,
    PlayerCreated, PlayerGamesQuery, PlayerRating, PlayerUpdate, RatingChangeView,
    SeatRatingChange,
};
pub use queries::{HintQuery, ListQuery, RoundQuery};
pub use rules::{
    LineAnalysis, LineAnalysisQuery, Position, PositionBatch, PositionItem, PositionList,
    PositionQuery,
};
pub use tournaments::{
    BotEntrant, CreateTournament, EnterTournament, Entrant, EntrantPlayer, Pairing, Round,
    StandingLine, Standings, TiebreaksView, Tournament, TournamentClock, TournamentGamesQuery,
    TournamentListQuery, TournamentPage, TournamentState, TournamentSystem,
};
pub use webhooks::{
    BotMove, CreateWebhook, DeliveriesQuery, DeliveryList, DeliveryView, MoveAnswer,
    MoveRequestType, MoveRequested, PatchWebhook, WebhookEventBody, WebhookEventData,
    WebhookEventType, WebhookGrant, WebhookList, WebhookView,
};

/// The `ETag` of a version: `"<version>"`.
#[must_use]
pub fn etag(version: i64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{version}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// A game's version in double quotes, as sent in `ETag` and expected back in
/// `If-Match`.
#[derive(ToSchema)]
#[schema(pattern = r#"^"[0-9]+"$"#, example = "\"14\"")]
pub struct ETag(pub String);

/// A game's URL, as sent in `Location`.
#[derive(ToSchema)]
#[schema(
    pattern = "^/v1/games/[0-9a-f-]{36}$",
    example = "/v1/games/3f0c8a56-7a4e-4f7e-9d55-2b8f0c1d9e10"
)]
pub struct GameUrl(pub String);

/// `true`: the stored answer to an earlier request with the same `Idempotency-Key`.
#[derive(ToSchema)]
#[schema(pattern = "^true$", example = "true")]
pub struct Replayed(pub String);

/// `return=minimal`: the preference the answer followed (RFC 7240).
#[derive(ToSchema)]
#[schema(pattern = "^return=minimal$", example = "return=minimal")]
pub struct PreferenceApplied(pub String);

/// A game kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    TicTacToe,
    ConnectFour,
    Gomoku,
    UltimateTicTacToe,
}

impl From<Kind> for GameKind {
    fn from(k: Kind) -> GameKind {
        match k {
            Kind::TicTacToe => GameKind::TicTacToe,
            Kind::ConnectFour => GameKind::ConnectFour,
            Kind::Gomoku => GameKind::Gomoku,
            Kind::UltimateTicTacToe => GameKind::UltimateTicTacToe,
        }
    }
}

impl From<GameKind> for Kind {
    fn from(k: GameKind) -> Kind {
        match k {
            GameKind::TicTacToe => Kind::TicTacToe,
            GameKind::ConnectFour => Kind::ConnectFour,
            GameKind::Gomoku => Kind::Gomoku,
            GameKind::UltimateTicTacToe => Kind::UltimateTicTacToe,
        }
    }
}

/// A seat (and player): X moves first in every round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Side {
    X,
    O,
}

impl From<Player> for Side {
    fn from(p: Player) -> Side {
        match p {
            Player::X => Side::X,
            Player::O => Side::O,
        }
    }
}

impl From<Side> for Player {
    fn from(s: Side) -> Player {
        match s {
            Side::X => Player::X,
            Side::O => Player::O,
        }
    }
}

/// A bot's strength, from `random` (any legal move) to `perfect` (an exact
/// solver, for tic-tac-toe and Connect Four only: other kinds refuse it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    Random,
    Easy,
    Medium,
    Hard,
    Perfect,
}

impl From<BotLevel> for Level {
    fn from(l: BotLevel) -> Level {
        match l {
            BotLevel::Random => Level::Random,
            BotLevel::Easy => Level::Easy,
            BotLevel::Medium => Level::Medium,
            BotLevel::Hard => Level::Hard,
            BotLevel::Perfect => Level::Perfect,
        }
    }
}

impl From<Level> for BotLevel {
    fn from(l: Level) -> BotLevel {
        match l {
            Level::Random => BotLevel::Random,
            Level::Easy => BotLevel::Easy,
            Level::Medium => BotLevel::Medium,
            Level::Hard => BotLevel::Hard,
            Level::Perfect => BotLevel::Perfect,
        }
    }
}

/// Times as chrono writes them: RFC 3339, UTC as `Z`, as many fractional
/// digits as the time has (0, 3, 6 or 9).
pub(in crate::api) mod stamp {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::Serializer;

    pub fn time<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }

    #[expect(
        clippy::ref_option,
        reason = "serde's `serialize_with` passes a reference to the field"
    )]
    pub fn option<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => time(t, s),
            None => s.serialize_none(),
        }
    }

    #[cfg(test)]
    mod tests {
        use chrono::TimeZone;

        #[derive(serde::Serialize)]
        struct Both {
            #[serde(serialize_with = "super::time")]
            ours: chrono::DateTime<chrono::Utc>,
            chrono: chrono::DateTime<chrono::Utc>,
            #[serde(serialize_with = "super::option")]
            some: Option<chrono::DateTime<chrono::Utc>>,
            #[serde(serialize_with = "super::option")]
            none: Option<chrono::DateTime<chrono::Utc>>,
        }

        #[test]
        fn times_are_written_as_chrono_writes_them() {
            let base = chrono::Utc.with_ymd_and_hms(2026, 11, 27, 9, 5, 7).unwrap();
            for nanos in [0, 123_000_000, 123_456_000, 123_456_789, 1_000, 999_999_999] {
                let t = base + chrono::Duration::nanoseconds(nanos);
                let json = serde_json::to_value(Both {
                    ours: t,
                    chrono: t,
                    some: Some(t),
                    none: None,
                })
                .unwrap();
                assert_eq!(json["ours"], json["chrono"], "{nanos}");
                assert_eq!(json["some"], json["chrono"], "{nanos}");
                assert!(json["none"].is_null());
            }
            let t = base + chrono::Duration::microseconds(123_456);
            assert_eq!(
                serde_json::to_value(Both {
                    ours: t,
                    chrono: t,
                    some: None,
                    none: None
                })
                .unwrap()["ours"],
                "2026-11-27T09:05:07.123456Z"
            );
        }
    }
}

/// Integers as JSON Schema's `integer` has them: `3` and also `3.0` (a
/// number with no fractional part), which serde's integer types refuse.
mod integral {
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    /// An `i64` from an integer or an integral float in range.
    #[must_use]
    pub fn as_i64(v: &Value) -> Option<i64> {
        v.as_i64().or_else(|| {
            // Every integral f64 in (-2^63, 2^63) converts exactly.
            const LIMIT: f64 = 9_223_372_036_854_775_808.0;
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && (-LIMIT..LIMIT).contains(f))
                .map(|f| f as i64)
        })
    }

    fn as_u64(v: &Value) -> Option<u64> {
        v.as_u64().or_else(|| {
            const LIMIT: f64 = 18_446_744_073_709_551_616.0;
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && (0.0..LIMIT).contains(f))
                .map(|f| f as u64)
        })
    }

    pub fn option_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_i64(&v)
                .map(Some)
                .ok_or_else(|| D::Error::custom(format!("expected an integer, got {v}"))),
        }
    }

    pub fn option_u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        match option_u64(d)? {
            None => Ok(None),
            Some(n) => u32::try_from(n).map(Some).map_err(|_| {
                D::Error::custom(format!("expected an integer up to {}, got {n}", u32::MAX))
            }),
        }
    }

    pub fn option_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_u64(&v).map(Some).ok_or_else(|| {
                D::Error::custom(format!("expected a non-negative integer, got {v}"))
            }),
        }
    }
}
