//! Challenges: one player asks another for a game (the contract's "Bots
//! from outside"). Pure values: the store keeps them as JSON, the service
//! turns an accepted one into a game.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::TimeControl;
use crate::rules::Setup;

/// How long a challenge waits for an answer by default (`--challenge-expiry`).
pub const DEFAULT_EXPIRY: std::time::Duration = std::time::Duration::from_mins(2);

/// A challenge, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeRecord {
    pub id: Uuid,
    /// The challenger.
    pub from: Side,
    /// The challenged.
    pub to: Side,
    #[serde(with = "super::tournament::setup_text")]
    pub setup: Setup,
    #[serde(default)]
    pub clock: Option<Clock>,
    pub rated: bool,
    /// The challenger's seat.
    pub seat: SeatChoice,
    pub status: ChallengeStatus,
    #[serde(default)]
    pub reason: Option<DeclineReason>,
    /// The game an accepted challenge made.
    #[serde(default)]
    pub game: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A player on one side of a challenge, as they were when it was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub id: String,
    pub name: String,
    pub bot: bool,
}

/// A challenge's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock(#[serde(with = "super::tournament::clock_ms")] pub TimeControl);

/// The seat the challenger asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeatChoice {
    X,
    O,
    Random,
}

/// Where a challenge stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeStatus {
    Pending,
    Accepted,
    Declined,
    Cancelled,
    Expired,
}

impl ChallengeStatus {
    /// The stored name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeStatus::Pending => "pending",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Cancelled => "cancelled",
            ChallengeStatus::Expired => "expired",
        }
    }
}

/// Why a challenge was declined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclineReason {
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

impl ChallengeRecord {
    /// Its status at `now`: a pending challenge past `expires_at` has expired
    /// (whether or not that was written yet).
    #[must_use]
    pub fn status_at(&self, now: DateTime<Utc>) -> ChallengeStatus {
        if self.status == ChallengeStatus::Pending && now >= self.expires_at {
            ChallengeStatus::Expired
        } else {
            self.status
        }
    }

    /// The challenge as it stands at `now` (expiry applied).
    #[must_use]
    pub fn at(mut self, now: DateTime<Utc>) -> ChallengeRecord {
        self.status = self.status_at(now);
        self
    }

    /// Declines it at once, for `reason`.
    pub fn decline(&mut self, reason: DeclineReason) {
        self.status = ChallengeStatus::Declined;
        self.reason = Some(reason);
    }

    /// The challenger's seat index (0: X, 1: O), `random` resolved by `coin`.
    #[must_use]
    pub fn challenger_seat(&self, coin: bool) -> usize {
        match self.seat {
            SeatChoice::X => 0,
            SeatChoice::O => 1,
            SeatChoice::Random => usize::from(coin),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(now: DateTime<Utc>) -> ChallengeRecord {
        ChallengeRecord {
            id: Uuid::nil(),
            from: Side {
                id: "a".into(),
                name: "Ann".into(),
                bot: false,
            },
            to: Side {
                id: "b".into(),
                name: "Bot".into(),
                bot: true,
            },
            setup: Setup::default_for(crate::rules::GameKind::ConnectFour),
            clock: Some(Clock(TimeControl::Fischer {
                initial_ms: 60_000,
                increment_ms: 1000,
            })),
            rated: false,
            seat: SeatChoice::Random,
            status: ChallengeStatus::Pending,
            reason: None,
            game: None,
            created_at: now,
            expires_at: now + chrono::TimeDelta::seconds(120),
        }
    }

    #[test]
    fn a_pending_challenge_expires_at_its_time_and_an_answered_one_never() {
        let now = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap();
        let c = challenge(now);
        assert_eq!(c.status_at(now), ChallengeStatus::Pending);
        let later = now + chrono::TimeDelta::seconds(120);
        assert_eq!(c.status_at(later), ChallengeStatus::Expired);
        let mut declined = c.clone();
        declined.status = ChallengeStatus::Declined;
        assert_eq!(declined.status_at(later), ChallengeStatus::Declined);
    }

    #[test]
    fn a_challenge_reads_back_as_it_was_written() {
        let now = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap();
        let c = challenge(now);
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<ChallengeRecord>(&text).unwrap(), c);
        assert_eq!(c.challenger_seat(true), 1);
        assert_eq!(c.challenger_seat(false), 0);
    }
}
