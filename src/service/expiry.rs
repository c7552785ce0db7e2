//! Expiry: games that wait for an opponent, stand finished, or stand idle in
//! progress for too long are deleted by a background sweeper, the way a
//! seat's delete does it (a `deleted` change at a version of its own, then
//! purged with its history), with the reason `expired`.
//!
//! A sweep has two steps, kept apart so that each can be tested on its own:
//! [`Service::expiring`] chooses, from a read of committed games, those whose
//! last change is older than the age of their state, each at the version it
//! was seen at; [`Service::expire`] then deletes one of them in a write job
//! of its own, which re-reads the game and deletes it only if its version is
//! still the one chosen. A game that changed in between (a move, a join) is
//! left alone, and so is one that is gone: on PostgreSQL every instance
//! sweeps, and of two instances that chose the same game, the second finds
//! it deleted (its job waits for the first's row lock, then reads the row
//! again) and does nothing.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use futures_util::future::join_all;
use uuid::Uuid;

use super::{Result, Service, event, save};
use crate::domain::{DeleteReason, EventType, GameStatus};

/// The ages after which games expire; `None` never.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expiry {
    /// A game with an open human seat (`waiting`), since its last change.
    pub waiting: Option<Duration>,
    /// A game whose round is over (`won`, `draw`), since its last change.
    pub finished: Option<Duration>,
    /// A game in progress, since its last change.
    pub idle: Option<Duration>,
}

impl Expiry {
    /// Whether no game ever expires.
    #[must_use]
    pub fn is_off(&self) -> bool {
        self.waiting.is_none() && self.finished.is_none() && self.idle.is_none()
    }

    /// Each status that expires, with its reason and age.
    fn rules(&self) -> impl Iterator<Item = (GameStatus, ExpiryReason, Duration)> {
        [
            (GameStatus::Waiting, ExpiryReason::Waiting, self.waiting),
            (GameStatus::Won, ExpiryReason::Finished, self.finished),
            (GameStatus::Draw, ExpiryReason::Finished, self.finished),
            (GameStatus::InProgress, ExpiryReason::Idle, self.idle),
        ]
        .into_iter()
        .filter_map(|(status, reason, age)| age.map(|age| (status, reason, age)))
    }
}

/// Why a game expired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpiryReason {
    /// A human seat stayed open.
    Waiting,
    /// The round was over.
    Finished,
    /// The game was in progress, with no move.
    Idle,
}

impl ExpiryReason {
    /// The name, as in the metric's `reason` label.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ExpiryReason::Waiting => "waiting",
            ExpiryReason::Finished => "finished",
            ExpiryReason::Idle => "idle",
        }
    }
}

/// A game chosen to expire, at the version it was chosen at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expiring {
    pub id: Uuid,
    pub version: i64,
    pub reason: ExpiryReason,
}

/// Most games one status contributes to one round of a sweep.
pub const SWEEP_LIMIT: u32 = 256;

/// Most rounds of one sweep: a backlog larger than this many full rounds
/// waits for the next sweep, so that a sweep never holds the writer long.
const SWEEP_ROUNDS: usize = 8;

impl Service {
    /// Sets the ages after which games expire (none by default).
    #[must_use]
    pub fn with_expiry(mut self, expiry: Expiry) -> Service {
        self.expiry = expiry;
        self
    }

    /// The ages after which games expire.
    #[must_use]
    pub fn expiry(&self) -> Expiry {
        self.expiry
    }

    /// Chooses the games that have expired by now (the service's clock): up
    /// to `limit` of each status, the longest unchanged first, each at the
    /// version it was seen at. Changes nothing.
    ///
    /// # Errors
    /// Store errors.
    pub async fn expiring(&self, limit: u32) -> Result<Vec<Expiring>> {
        let now = self.clock.now();
        let mut chosen = Vec::new();
        for (status, reason, age) in self.expiry.rules() {
            let before = cutoff(now, age);
            let games = self.store.unchanged_since(status, before, limit).await?;
            chosen.extend(games.into_iter().map(|(id, version)| Expiring {
                id,
                version,
                reason,
            }));
        }
        Ok(chosen)
    }

    /// Deletes a chosen game, with the reason `expired`, if it is still at
    /// the version it was chosen at: true if it was deleted here; false
    /// (nothing changed) if it has changed since, or is gone (deleted by a
    /// seat, or expired by another instance).
    ///
    /// # Errors
    /// Store errors.
    #[tracing::instrument(name = "expire", skip_all, fields(game = %chosen.id, reason = chosen.reason.as_str()))]
    pub async fn expire(&self, chosen: Expiring) -> Result<bool> {
        let Expiring { id, version, .. } = chosen;
        let clock = self.clock.clone();
        let expired = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let Some(mut game) = tx.game(id).await? else {
                            return Ok(false);
                        };
                        if game.version != version {
                            return Ok(false);
                        }
                        save(tx, &mut game, clock.now()).await?;
                        let deleted = EventType::Deleted(DeleteReason::Expired);
                        tx.insert_event(id, &event(&game, deleted));
                        tx.delete_game(id).await?;
                        Ok(true)
                    })
                }),
            )
            .await?;
        if expired {
            self.publish(id);
            self.metrics.count_expired(chosen.reason.as_str());
        }
        Ok(expired)
    }

    /// One sweep: chooses the expired games and deletes those unchanged
    /// since; returns how many it deleted. The deletions of a round are
    /// queued together, so that the writer commits them in a few batches.
    ///
    /// # Errors
    /// Store errors of the choice (a deletion that fails is logged and left
    /// for the next sweep).
    pub async fn sweep_expired(&self) -> Result<usize> {
        let mut deleted = 0;
        for _ in 0..SWEEP_ROUNDS {
            let chosen = self.expiring(SWEEP_LIMIT).await?;
            let full = chosen.len() >= SWEEP_LIMIT as usize;
            let mut progress = false;
            for result in join_all(chosen.into_iter().map(|c| self.expire(c))).await {
                match result {
                    Ok(true) => {
                        deleted += 1;
                        progress = true;
                    }
                    Ok(false) => {}
                    Err(e) => tracing::warn!(error = %e, "expiring a game failed; retrying later"),
                }
            }
            if !(full && progress) {
                break;
            }
        }
        if deleted > 0 {
            tracing::info!(deleted, "expired games deleted");
        }
        Ok(deleted)
    }

    /// Starts the sweeper: every `every`, [`Service::sweep_expired`], until
    /// the store closes. Nothing is started when no game ever expires.
    pub fn spawn_expiry(&self, every: Duration) {
        if self.expiry.is_off() {
            return;
        }
        let service = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                if service.store.is_closed() {
                    return;
                }
                if let Err(e) = service.sweep_expired().await
                    && !service.store.is_closed()
                {
                    tracing::warn!(error = %e, "choosing expired games failed; retrying later");
                }
            }
        });
    }
}

/// `now - age`, or the earliest time for an age beyond the calendar.
fn cutoff(now: DateTime<Utc>, age: Duration) -> DateTime<Utc> {
    TimeDelta::from_std(age)
        .ok()
        .and_then(|age| now.checked_sub_signed(age))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_expires_by_its_own_age_and_off_means_never() {
        let hour = Duration::from_hours(1);
        let expiry = Expiry {
            waiting: Some(hour),
            finished: Some(2 * hour),
            idle: None,
        };
        let rules: Vec<_> = expiry.rules().collect();
        assert_eq!(
            rules,
            [
                (GameStatus::Waiting, ExpiryReason::Waiting, hour),
                (GameStatus::Won, ExpiryReason::Finished, 2 * hour),
                (GameStatus::Draw, ExpiryReason::Finished, 2 * hour),
            ]
        );
        assert!(!expiry.is_off());
        assert!(Expiry::default().is_off());
        assert_eq!(Expiry::default().rules().count(), 0);
    }

    #[test]
    fn a_cutoff_beyond_the_calendar_is_the_earliest_time() {
        let now = Utc::now();
        assert_eq!(
            cutoff(now, Duration::from_mins(1)),
            now - TimeDelta::seconds(60)
        );
        assert_eq!(cutoff(now, Duration::MAX), DateTime::<Utc>::MIN_UTC);
    }
}
