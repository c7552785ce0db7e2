//! Challenges on the wire: make one, the challenge, declining one, a page,
//! and the events of a player's own stream.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::Kind;
use super::create::{ClockRequest, CreateOptions, setup_of};
use super::game::{GameOptions, options_of};
use super::tournaments::TournamentClock;
use crate::domain::challenge::{
    ChallengeRecord, ChallengeStatus, Clock, DeclineReason, SeatChoice, Side,
};
use crate::rules::AnyGame;
use crate::service::{NewChallenge, ServiceError};

/// The challenger's seat: `X` (moves first), `O`, or `random` (the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum ChallengeSeat {
    X,
    O,
    #[serde(rename = "random")]
    Random,
}

impl From<ChallengeSeat> for SeatChoice {
    fn from(s: ChallengeSeat) -> SeatChoice {
        match s {
            ChallengeSeat::X => SeatChoice::X,
            ChallengeSeat::O => SeatChoice::O,
            ChallengeSeat::Random => SeatChoice::Random,
        }
    }
}

impl From<SeatChoice> for ChallengeSeat {
    fn from(s: SeatChoice) -> ChallengeSeat {
        match s {
            SeatChoice::X => ChallengeSeat::X,
            SeatChoice::O => ChallengeSeat::O,
            SeatChoice::Random => ChallengeSeat::Random,
        }
    }
}

/// `POST /v1/challenges`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"to": "0192f0c4-22bb-7c00-8e2e-5b7d0c4e9f02", "kind": "connect_four", "clock": {"initial_ms": 60000, "increment_ms": 1000}}))]
pub struct CreateChallenge {
    /// The challenged player's id.
    #[schema(min_length = 1, max_length = 210)]
    pub to: String,
    pub kind: Kind,
    /// Gomoku: `{"size": 15, "rule": "freestyle"}`; other kinds take none.
    #[serde(default)]
    pub options: Option<CreateOptions>,
    /// The game's clock; none by default (required when `rated`).
    pub clock: Option<ClockRequest>,
    /// Rated: the game moves both players' ratings. Default false.
    #[serde(default)]
    pub rated: bool,
    /// The challenger's seat (default `random`).
    pub seat: Option<ChallengeSeat>,
}

impl CreateChallenge {
    /// The challenge asked for.
    ///
    /// # Errors
    /// `InvalidOption` for options out of range or not of this kind, or a
    /// malformed clock.
    pub fn into_new(self) -> Result<NewChallenge, ServiceError> {
        Ok(NewChallenge {
            to: self.to,
            setup: setup_of(self.kind, self.options)?,
            clock: self.clock.map(ClockRequest::control).transpose()?,
            rated: self.rated,
            seat: self.seat.unwrap_or(ChallengeSeat::Random).into(),
        })
    }
}

/// Where a challenge stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeState {
    Pending,
    Accepted,
    Declined,
    Cancelled,
    Expired,
}

impl From<ChallengeStatus> for ChallengeState {
    fn from(s: ChallengeStatus) -> ChallengeState {
        match s {
            ChallengeStatus::Pending => ChallengeState::Pending,
            ChallengeStatus::Accepted => ChallengeState::Accepted,
            ChallengeStatus::Declined => ChallengeState::Declined,
            ChallengeStatus::Cancelled => ChallengeState::Cancelled,
            ChallengeStatus::Expired => ChallengeState::Expired,
        }
    }
}

/// Why a challenge was declined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeDeclineReason {
    Generic,
    Later,
    TooFast,
    TooSlow,
    TimeControl,
    Rated,
    Casual,
    Kind,
    TooManyGames,
}

impl From<ChallengeDeclineReason> for DeclineReason {
    fn from(r: ChallengeDeclineReason) -> DeclineReason {
        match r {
            ChallengeDeclineReason::Generic => DeclineReason::Generic,
            ChallengeDeclineReason::Later => DeclineReason::Later,
            ChallengeDeclineReason::TooFast => DeclineReason::TooFast,
            ChallengeDeclineReason::TooSlow => DeclineReason::TooSlow,
            ChallengeDeclineReason::TimeControl => DeclineReason::TimeControl,
            ChallengeDeclineReason::Rated => DeclineReason::Rated,
            ChallengeDeclineReason::Casual => DeclineReason::Casual,
            ChallengeDeclineReason::Kind => DeclineReason::Kind,
            ChallengeDeclineReason::TooManyGames => DeclineReason::TooManyGames,
        }
    }
}

impl From<DeclineReason> for ChallengeDeclineReason {
    fn from(r: DeclineReason) -> ChallengeDeclineReason {
        match r {
            DeclineReason::Generic => ChallengeDeclineReason::Generic,
            DeclineReason::Later => ChallengeDeclineReason::Later,
            DeclineReason::TooFast => ChallengeDeclineReason::TooFast,
            DeclineReason::TooSlow => ChallengeDeclineReason::TooSlow,
            DeclineReason::TimeControl => ChallengeDeclineReason::TimeControl,
            DeclineReason::Rated => ChallengeDeclineReason::Rated,
            DeclineReason::Casual => ChallengeDeclineReason::Casual,
            DeclineReason::Kind => ChallengeDeclineReason::Kind,
            DeclineReason::TooManyGames => ChallengeDeclineReason::TooManyGames,
        }
    }
}

/// `POST /v1/challenges/{id}/decline`.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "later"}))]
pub struct DeclineChallenge {
    /// Default `generic`.
    pub reason: Option<ChallengeDeclineReason>,
}

/// A player on one side of a challenge.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChallengePlayer {
    pub id: String,
    pub name: String,
    pub bot: bool,
}

impl From<&Side> for ChallengePlayer {
    fn from(s: &Side) -> ChallengePlayer {
        ChallengePlayer {
            id: s.id.clone(),
            name: s.name.clone(),
            bot: s.bot,
        }
    }
}

/// A challenge: one player asks another for a game.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a12", "from": {"id": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "name": "Ann", "bot": false}, "to": {"id": "0192f0c4-22bb-7c00-8e2e-5b7d0c4e9f02", "name": "Deep Four", "bot": true}, "kind": "connect_four", "options": {"rows": 6, "columns": 7}, "clock": {"initial_ms": 60000, "increment_ms": 1000}, "rated": false, "seat": "random", "status": "pending", "reason": null, "game": null, "created_at": "2026-12-04T18:00:00.000Z", "expires_at": "2026-12-04T18:02:00.000Z"}))]
pub struct Challenge {
    pub id: Uuid,
    /// The challenger.
    pub from: ChallengePlayer,
    /// The challenged.
    pub to: ChallengePlayer,
    pub kind: Kind,
    pub options: GameOptions,
    /// The game's clock; null: none.
    pub clock: Option<TournamentClock>,
    pub rated: bool,
    /// The challenger's seat.
    pub seat: ChallengeSeat,
    /// `expired`: not answered by `expires_at`.
    pub status: ChallengeState,
    /// Why it was declined (`declined` only).
    pub reason: Option<ChallengeDeclineReason>,
    /// The game an accepted challenge began.
    pub game: Option<Uuid>,
    #[serde(serialize_with = "super::stamp::time")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "super::stamp::time")]
    pub expires_at: DateTime<Utc>,
}

impl From<&ChallengeRecord> for Challenge {
    fn from(c: &ChallengeRecord) -> Challenge {
        Challenge {
            id: c.id,
            from: (&c.from).into(),
            to: (&c.to).into(),
            kind: c.setup.kind().into(),
            options: options_of(c.setup, &AnyGame::new(c.setup)),
            clock: c.clock.map(|Clock(control)| control.into()),
            rated: c.rated,
            seat: c.seat.into(),
            status: c.status.into(),
            reason: c.reason.map(Into::into),
            game: c.game,
            created_at: c.created_at,
            expires_at: c.expires_at,
        }
    }
}

/// A page of challenges.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [{"id": "0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a12", "from": {"id": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "name": "Ann", "bot": false}, "to": {"id": "0192f0c4-22bb-7c00-8e2e-5b7d0c4e9f02", "name": "Deep Four", "bot": true}, "kind": "connect_four", "options": {"rows": 6, "columns": 7}, "clock": null, "rated": false, "seat": "X", "status": "declined", "reason": "later", "game": null, "created_at": "2026-12-04T18:00:00.000Z", "expires_at": "2026-12-04T18:02:00.000Z"}], "next_cursor": null}))]
pub struct ChallengePage {
    pub items: Vec<Challenge>,
    /// Pass as `cursor` for the next page; null on the last one.
    pub next_cursor: Option<String>,
}
