//! A game's JSON rendered for a webhook event, kept for the move's answer.
//!
//! With an endpoint subscribed to `move.played`, the state a move leaves
//! was rendered twice: in the event's body, by the writer as it commits
//! the move, and in the answer, by the HTTP worker once it has. The writer
//! now leaves its rendering here ([`RenderedGames::stage`]), published only
//! once the batch has committed ([`RenderedGames::settle`]), and the answer
//! takes it ([`RenderedGames::take`]) when it shows that very state: the
//! same game, version and times (a move that no bot answered). A state is
//! published only committed, and a committed version is never written
//! again, so what is taken is what the answer would have rendered itself
//! (a test holds the two equal).
//!
//! The table is small and lossy: a slot per game id's hash, a later
//! rendering replacing an earlier one; a miss renders as before.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::domain::GameRecord;

/// Slots: a few times the moves in flight at once.
const SLOTS: usize = 512;

/// Which state of which game a rendering shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    id: Uuid,
    version: i64,
    updated_at: DateTime<Utc>,
    as_of: DateTime<Utc>,
}

impl Key {
    fn of(game: &GameRecord) -> Key {
        Key {
            id: game.id,
            version: game.version,
            updated_at: game.updated_at,
            as_of: game.as_of,
        }
    }

    fn slot(&self) -> usize {
        // A version 7 id's last bits are random.
        usize::try_from(self.id.as_u128() % SLOTS as u128).unwrap_or(0)
    }
}

/// A game's JSON and the state it shows.
type Entry = (Key, Box<RawValue>);

/// Games' JSON as webhook events rendered them (see the module).
pub struct RenderedGames {
    /// Rendered by the batch being committed, not yet published.
    staged: Mutex<Vec<Entry>>,
    slots: Box<[Mutex<Option<Entry>>]>,
    /// Whether anything was ever published: without webhooks an answer
    /// looks no further.
    published: AtomicBool,
}

impl Default for RenderedGames {
    fn default() -> Self {
        RenderedGames {
            staged: Mutex::new(Vec::new()),
            slots: (0..SLOTS).map(|_| Mutex::new(None)).collect(),
            published: AtomicBool::new(false),
        }
    }
}

impl std::fmt::Debug for RenderedGames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderedGames").finish_non_exhaustive()
    }
}

impl RenderedGames {
    /// Keeps `json`, `game` rendered, until its batch settles.
    pub fn stage(&self, game: &GameRecord, json: Box<RawValue>) {
        lock(&self.staged).push((Key::of(game), json));
    }

    /// The batch that staged renderings committed (publish them) or did not
    /// (drop them).
    pub fn settle(&self, committed: bool) {
        let staged = std::mem::take(&mut *lock(&self.staged));
        if committed && !staged.is_empty() {
            self.published.store(true, Ordering::Relaxed);
            for (key, json) in staged {
                *lock(&self.slots[key.slot()]) = Some((key, json));
            }
        }
    }

    /// The published rendering of exactly this state of `game`, if any
    /// (taken: each is used once).
    pub fn take(&self, game: &GameRecord) -> Option<Box<RawValue>> {
        if !self.published.load(Ordering::Relaxed) {
            return None;
        }
        let key = Key::of(game);
        let mut slot = lock(&self.slots[key.slot()]);
        match slot.as_ref() {
            Some((k, _)) if *k == key => slot.take().map(|(_, json)| json),
            _ => None,
        }
    }
}

/// A lock whose holder cannot leave its data half-changed (every change is
/// one assignment): a poisoned one is used as it is.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use actix_web::body::to_bytes;
    use serde_json::Value;

    use super::*;
    use crate::api::EventData;
    use crate::api::examples::connect_four;
    use crate::api::extract::Prefer;
    use crate::api::reply::played_as;
    use crate::api::wire::{MoveResponse, WebhookEventBody};
    use crate::domain::webhook::WebhookEvent;
    use crate::service::{MoveResult, Played};
    use crate::store::EventRender as _;

    fn played(columns: &[i64]) -> Played {
        let (game, moves) = connect_four(columns, true);
        Played {
            mv: moves.last().copied().expect("a move"),
            game,
            replies: Vec::new(),
        }
    }

    async fn answer(played: &Played, rendered: &RenderedGames) -> String {
        let res = played_as(
            MoveResult::Played(Box::new(played.clone())),
            Prefer::default(),
            rendered,
        );
        assert_eq!(res.status(), 201);
        String::from_utf8(to_bytes(res.into_body()).await.unwrap().to_vec()).unwrap()
    }

    #[tokio::test]
    async fn an_answer_takes_the_games_json_only_once_its_batch_committed_and_only_for_that_state()
    {
        let rendered = RenderedGames::default();
        let p = played(&[3, 4, 3]);
        let marker = || RawValue::from_string(r#"{"marker":1}"#.into()).unwrap();
        // A batch that failed: nothing published.
        rendered.stage(&p.game, marker());
        rendered.settle(false);
        assert!(!answer(&p, &rendered).await.contains("marker"));
        // Committed: the answer carries what was rendered, once.
        rendered.stage(&p.game, marker());
        rendered.settle(true);
        let text = answer(&p, &rendered).await;
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["game"], serde_json::json!({"marker": 1}));
        assert_eq!(value["move"]["ply"], 3);
        assert_eq!(value["replies"], serde_json::json!([]));
        assert!(
            !answer(&p, &rendered).await.contains("marker"),
            "taken once"
        );
        // Another state of the game (a later version, or the same version
        // at another time) does not take it.
        rendered.stage(&p.game, marker());
        rendered.settle(true);
        let mut later = p.clone();
        later.game.version += 1;
        assert!(!answer(&later, &rendered).await.contains("marker"));
        let mut other_time = p.clone();
        other_time.game.updated_at += chrono::Duration::microseconds(1);
        assert!(!answer(&other_time, &rendered).await.contains("marker"));
        // With a bot's replies the answer shows more than the event did.
        let mut replied = p.clone();
        replied.replies.push(p.mv);
        assert!(!answer(&replied, &rendered).await.contains("marker"));
    }

    #[tokio::test]
    async fn a_move_played_body_and_its_answer_are_written_as_without_the_table() {
        for columns in [&[3][..], &[3, 3, 2, 4, 1, 5], &[0, 1, 0, 1, 0, 1, 0]] {
            let p = played(columns);
            let rendered = Arc::new(RenderedGames::default());
            let events = EventData::new(rendered.clone());
            let body = events.body(WebhookEvent::MovePlayed, p.mv.at, &p.game, Some(&p.mv));
            let plain = EventData::default();
            let generic = serde_json::to_string(&WebhookEventBody {
                event_type: WebhookEvent::MovePlayed.into(),
                timestamp: p.mv.at,
                data: crate::api::wire::WebhookEventData {
                    game: (&p.game).into(),
                    mv: Some((&p.mv).into()),
                    result: None,
                    end_reason: None,
                    rating_change: None,
                },
            })
            .unwrap();
            assert_eq!(body, generic);
            assert_eq!(
                plain.body(WebhookEvent::MovePlayed, p.mv.at, &p.game, Some(&p.mv)),
                generic
            );
            events.settled(true);
            let reused = answer(&p, &rendered).await;
            assert_eq!(
                reused,
                serde_json::to_string(&MoveResponse::from(&p)).unwrap()
            );
            assert_eq!(
                answer(&p, &rendered).await,
                reused,
                "rendered anew, the same"
            );
        }
    }
}
