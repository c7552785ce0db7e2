//! The webhook outbox: the events a batch's writes make, recorded in the
//! batch's own transaction (one `webhook_deliveries` row per event and
//! subscribed endpoint), so that a crash after the commit still delivers
//! them; and the endpoints, their deliveries and attempts as stored.
//!
//! The writer records events only for the endpoints this instance knows
//! of ([`Outbox`], reloaded from the database when an endpoint is added or
//! removed here, and every second for the other instances' changes), and
//! only when some endpoint subscribes to them: without webhooks a batch
//! does no work for them.

use std::sync::{Arc, OnceLock, RwLock};

use serde::Serialize;
use uuid::Uuid;

use super::StoreError;
use super::rows::{MoveRow, ts};
use crate::domain::webhook::{EventSet, WebhookEvent, happened};
use crate::domain::{GameRecord, MoveRecord};
use crate::rules::GameKind;

/// Writes an event's `data` object: the layer that renders games for the
/// API supplies it (the store knows records, not their JSON).
pub trait EventRender: Send + Sync {
    /// `data` of `event` about `game` as it is after the change; `mv`: the
    /// move, for `move.played`.
    fn data(
        &self,
        event: WebhookEvent,
        game: &GameRecord,
        mv: Option<&MoveRecord>,
    ) -> serde_json::Value;
}

/// An endpoint as the writer sees it: its id and the events it wants.
#[derive(Clone, Debug)]
pub struct Subscription {
    pub id: Uuid,
    pub events: EventSet,
}

/// The endpoints this instance records events for, and how to render them.
#[derive(Default)]
pub struct Outbox {
    subscriptions: RwLock<Arc<[Subscription]>>,
    render: OnceLock<Arc<dyn EventRender>>,
    /// Woken after a commit that recorded events.
    pub(in crate::store) recorded: tokio::sync::Notify,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox").finish_non_exhaustive()
    }
}

/// What a batch needs to record events: the endpoints when it began, and
/// the renderer.
#[derive(Clone)]
pub(in crate::store) struct Hooks {
    subscriptions: Arc<[Subscription]>,
    wanted: EventSet,
    render: Arc<dyn EventRender>,
}

impl Outbox {
    /// Sets the renderer (once; later calls are ignored).
    pub fn set_render(&self, render: Arc<dyn EventRender>) {
        let _ = self.render.set(render);
    }

    /// Replaces the endpoints known.
    pub fn set_subscriptions(&self, subscriptions: Vec<Subscription>) {
        let subscriptions: Arc<[Subscription]> = subscriptions.into();
        match self.subscriptions.write() {
            Ok(mut s) => *s = subscriptions,
            Err(poisoned) => *poisoned.into_inner() = subscriptions,
        }
    }

    /// What a batch beginning now records events with; `None` when no
    /// endpoint wants any (or nothing renders them).
    pub(in crate::store) fn hooks(&self) -> Option<Hooks> {
        let render = self.render.get()?.clone();
        let subscriptions = match self.subscriptions.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        let wanted = subscriptions
            .iter()
            .fold(EventSet::default(), |set, s| set.with(s.events));
        (!wanted.is_empty()).then_some(Hooks {
            subscriptions,
            wanted,
            render,
        })
    }
}

/// A write of one game in a batch, kept while events are recorded.
pub(super) struct Step {
    pub(super) before: Option<GameRecord>,
    pub(super) after: GameRecord,
    pub(super) deleted: bool,
}

/// A row of `webhook_deliveries` to insert.
#[derive(Debug, Serialize)]
pub(super) struct DeliveryRow {
    webhook_id: String,
    event_id: String,
    game_id: String,
    #[serde(rename = "type")]
    event_type: &'static str,
    body: String,
    created_at: String,
    next_attempt_at: String,
}

impl Hooks {
    /// The deliveries of the events `steps` made, in order; `moves`: the
    /// batch's moves (those of a step are the game's moves with versions
    /// after `before`'s, up to `after`'s).
    pub(super) fn deliveries(
        &self,
        steps: &[Step],
        moves: &[MoveRow],
    ) -> Result<Vec<DeliveryRow>, StoreError> {
        let mut rows = Vec::new();
        for step in steps {
            let game = &step.after;
            let id = game.id.to_string();
            let made = happened(step.before.as_ref(), game, step.deleted);
            let from = step.before.as_ref().map_or(i64::MAX, |b| b.version);
            let played: Vec<MoveRecord> = if self.wanted.contains(WebhookEvent::MovePlayed) {
                moves
                    .iter()
                    .filter(|m| m.game_id == id && m.version > from && m.version <= game.version)
                    .map(|m| m.clone().into_record(kind_of(game)))
                    .collect::<Result<_, _>>()?
            } else {
                Vec::new()
            };
            for event in WebhookEvent::ALL {
                if !self.wanted.contains(event) {
                    continue;
                }
                if event == WebhookEvent::MovePlayed {
                    for m in &played {
                        self.record(event, game, Some(m), &id, &mut rows)?;
                    }
                } else if made.contains(event) {
                    self.record(event, game, None, &id, &mut rows)?;
                }
            }
        }
        Ok(rows)
    }

    fn record(
        &self,
        event: WebhookEvent,
        game: &GameRecord,
        mv: Option<&MoveRecord>,
        id: &str,
        rows: &mut Vec<DeliveryRow>,
    ) -> Result<(), StoreError> {
        let endpoints: Vec<&Subscription> = self
            .subscriptions
            .iter()
            .filter(|s| s.events.contains(event))
            .collect();
        if endpoints.is_empty() {
            return Ok(());
        }
        let at = mv.map_or(game.updated_at, |m| m.at);
        let body = serde_json::json!({
            "type": event.as_str(),
            "timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "data": self.render.data(event, game, mv),
        });
        let body = serde_json::to_string(&body)
            .map_err(|e| StoreError::Corrupt(format!("an event as JSON: {e}")))?;
        let event_id = format!("msg_{}", Uuid::now_v7().simple());
        let created_at = ts(chrono::Utc::now());
        for endpoint in endpoints {
            rows.push(DeliveryRow {
                webhook_id: endpoint.id.to_string(),
                event_id: event_id.clone(),
                game_id: id.to_owned(),
                event_type: event.as_str(),
                body: body.clone(),
                created_at: created_at.clone(),
                next_attempt_at: created_at.clone(),
            });
        }
        Ok(())
    }
}

fn kind_of(game: &GameRecord) -> GameKind {
    game.kind()
}
