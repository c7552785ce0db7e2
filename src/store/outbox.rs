//! The webhook outbox: what happened, recorded in the transaction of the
//! change itself (one `webhook_events` row per event: its type, its game
//! and what its body needs, the game as the change left it and the move;
//! one `webhook_deliveries` row per event and subscribed endpoint), so that
//! a crash after the commit still delivers it. The body is rendered when a
//! delivery is claimed (see `webhooks.rs`), by the layer that renders games
//! for the API ([`EventRender`]).
//!
//! Events are recorded only for the endpoints this instance knows of
//! ([`Outbox`], reloaded from the database when an endpoint is added or
//! removed here, and every second for the other instances' changes), and
//! only when some endpoint subscribes to them: without webhooks a write does
//! no work for them.

use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::QueryBuilder;
use uuid::Uuid;

use super::db::on_conn;
use super::games::GameRow;
use super::moves::MoveRow;
use super::{StoreError, WriteTx, parse_ts, ts};
use crate::domain::tournament::TournamentRecord;
use crate::domain::webhook::{EventSet, WebhookEvent, happened};
use crate::domain::{GameRecord, MoveRecord};

/// Writes an event's body: the layer that renders games for the API
/// supplies it (the store knows records, not their JSON).
pub trait EventRender: Send + Sync {
    /// The body of `event` (`{"type", "timestamp", "data"}`) about `game`
    /// as it is after the change; `mv`: the move, for `move.played`.
    fn body(
        &self,
        event: WebhookEvent,
        timestamp: DateTime<Utc>,
        game: &GameRecord,
        mv: Option<&MoveRecord>,
    ) -> String;

    /// The body of a `tournament.*` event about `tournament` as it is after
    /// the change.
    fn tournament_body(
        &self,
        event: WebhookEvent,
        timestamp: DateTime<Utc>,
        tournament: &TournamentRecord,
    ) -> String;
}

/// An endpoint as the writer sees it: its id and the events it wants.
#[derive(Clone, Debug)]
pub struct Subscription {
    pub id: Uuid,
    pub events: EventSet,
    /// Sent nothing now: its events wait for it.
    pub disabled: bool,
}

/// The endpoints this instance records events for, how their bodies are
/// rendered, and how busy the writes are.
#[derive(Default)]
pub struct Outbox {
    subscriptions: RwLock<Arc<[Subscription]>>,
    render: OnceLock<Arc<dyn EventRender>>,
    /// Woken after a commit that recorded events.
    pub(super) recorded: tokio::sync::Notify,
    /// When a writer last took a busy batch.
    busy_at: Mutex<Option<Instant>>,
}

/// Jobs in a batch from which the writes count as busy.
pub const BUSY_BATCH: usize = 8;

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox").finish_non_exhaustive()
    }
}

impl Outbox {
    /// Notes that the writes are busy now.
    pub(super) fn busy_now(&self) {
        *self.busy_at.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    /// Whether the writes were busy within `window`.
    pub(super) fn busy_within(&self, window: Duration) -> bool {
        let busy_at = *self.busy_at.lock().unwrap_or_else(PoisonError::into_inner);
        busy_at.is_some_and(|at| at.elapsed() <= window)
    }

    /// Sets the renderer (once; later calls are ignored).
    pub fn set_render(&self, render: Arc<dyn EventRender>) {
        let _ = self.render.set(render);
    }

    /// The renderer, once set.
    pub(super) fn render(&self) -> Option<&Arc<dyn EventRender>> {
        self.render.get()
    }

    /// Replaces the endpoints known.
    pub fn set_subscriptions(&self, subscriptions: Vec<Subscription>) {
        *self
            .subscriptions
            .write()
            .unwrap_or_else(PoisonError::into_inner) = subscriptions.into();
    }

    /// Records nothing more for endpoint `id` (being deleted), in every
    /// transaction that begins from now on.
    pub(super) fn forget(&self, id: Uuid) {
        let mut subscriptions = self
            .subscriptions
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        *subscriptions = subscriptions
            .iter()
            .filter(|s| s.id != id)
            .cloned()
            .collect();
    }

    /// Whether an endpoint is disabled.
    pub(super) fn any_disabled(&self) -> bool {
        self.subscriptions
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|s| s.disabled)
    }

    /// What a transaction beginning now records events for; `None` when no
    /// endpoint wants any.
    pub(super) fn hooks(&self) -> Option<Hooks> {
        let subscriptions = self
            .subscriptions
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let wanted = subscriptions
            .iter()
            .fold(EventSet::default(), |set, s| set.with(s.events));
        (!wanted.is_empty()).then_some(Hooks {
            subscriptions,
            wanted,
        })
    }
}

/// The endpoints a transaction records events for.
#[derive(Clone)]
pub(super) struct Hooks {
    subscriptions: Arc<[Subscription]>,
    wanted: EventSet,
}

impl Hooks {
    /// The ids of the endpoints that want `event`.
    fn endpoints(&self, event: WebhookEvent) -> Vec<String> {
        self.subscriptions
            .iter()
            .filter(|s| s.events.contains(event))
            .map(|s| s.id.to_string())
            .collect()
    }
}

/// A write of one game, kept until its events are recorded.
struct Step {
    before: Option<GameRecord>,
    after: GameRecord,
    deleted: bool,
}

/// What a transaction's writes did that events are made of: the games'
/// changes, and the moves played (a step's moves are its game's with
/// versions after `before`'s, up to `after`'s).
pub(super) struct Recorder {
    hooks: Hooks,
    steps: Vec<Step>,
    moves: Vec<(Uuid, MoveRecord)>,
    /// Whether any step was taken (events recorded or to record).
    stepped: bool,
}

/// What an event's body is made of, as stored with it.
#[derive(Serialize, Deserialize)]
struct Facts {
    /// The game as the change left it.
    game: GameRow,
    /// When the game was read or written (its clocks are shown as of then).
    as_of: String,
    /// `move.played`: the move.
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    mv: Option<MoveRow>,
}

/// What a tournament event's body is made of, as stored with it: the
/// tournament as the change left it (its boards left out: the body shows
/// none of them) and when.
#[derive(Serialize, Deserialize)]
struct TournamentFacts {
    tournament: TournamentRecord,
    at: String,
}

/// An event to insert, with the endpoints it goes to.
pub(super) struct NewEvent {
    event_id: String,
    game_id: String,
    event_type: &'static str,
    facts: String,
    created_at: String,
    endpoints: Vec<String>,
}

impl Recorder {
    pub(super) fn new(hooks: Hooks) -> Recorder {
        Recorder {
            hooks,
            steps: Vec::new(),
            moves: Vec::new(),
            stepped: false,
        }
    }

    /// Whether the transaction wrote a game (and so may have events).
    pub(super) fn has_steps(&self) -> bool {
        self.stepped
    }

    /// Notes an event recorded without a game's write (a tournament's).
    pub(super) fn noted(&mut self) {
        self.stepped = true;
    }

    /// A game written: `before` as it was (none: new).
    pub(super) fn step(&mut self, before: Option<&GameRecord>, after: &GameRecord, deleted: bool) {
        self.stepped = true;
        self.steps.push(Step {
            before: before.cloned(),
            after: after.clone(),
            deleted,
        });
    }

    /// The event of a tournament's change, if an endpoint wants it: to be
    /// recorded with the transaction's next statements.
    ///
    /// # Errors
    /// `Corrupt` if its facts cannot be written as JSON.
    pub(super) fn tournament_event(
        &self,
        event: WebhookEvent,
        tournament: &TournamentRecord,
        at: DateTime<Utc>,
    ) -> Result<Option<NewEvent>, StoreError> {
        let endpoints = self.hooks.endpoints(event);
        if endpoints.is_empty() {
            return Ok(None);
        }
        let mut slim = tournament.clone();
        slim.boards.clear();
        let facts = TournamentFacts {
            tournament: slim,
            at: ts(at),
        };
        Ok(Some(NewEvent {
            event_id: format!("msg_{}", Uuid::now_v7().simple()),
            game_id: tournament.id.to_string(),
            event_type: event.as_str(),
            facts: serde_json::to_string(&facts)
                .map_err(|e| StoreError::Corrupt(format!("an event's facts: {e}")))?,
            created_at: ts(Utc::now()),
            endpoints,
        }))
    }

    /// A move played in game `id`.
    pub(super) fn played(&mut self, id: Uuid, m: &MoveRecord) {
        if self.hooks.wanted.contains(WebhookEvent::MovePlayed) {
            self.moves.push((id, *m));
        }
    }

    /// The events of the steps taken since the last call, in order.
    ///
    /// # Errors
    /// `Corrupt` if an event's facts cannot be written as JSON.
    pub(super) fn take_events(&mut self) -> Result<Vec<NewEvent>, StoreError> {
        let mut out = Vec::new();
        let created_at = ts(Utc::now());
        for step in std::mem::take(&mut self.steps) {
            let game = &step.after;
            let made = happened(step.before.as_ref(), game, step.deleted);
            let from = step.before.as_ref().map_or(i64::MAX, |b| b.version);
            for event in WebhookEvent::ALL {
                if !self.hooks.wanted.contains(event) {
                    continue;
                }
                if event == WebhookEvent::MovePlayed {
                    let played = self.moves.iter().filter(|(id, m)| {
                        *id == game.id && m.version > from && m.version <= game.version
                    });
                    for (_, m) in played {
                        self.one(event, game, Some(m), &created_at, &mut out)?;
                    }
                } else if made.contains(event) {
                    self.one(event, game, None, &created_at, &mut out)?;
                }
            }
        }
        Ok(out)
    }

    fn one(
        &self,
        event: WebhookEvent,
        game: &GameRecord,
        mv: Option<&MoveRecord>,
        created_at: &str,
        out: &mut Vec<NewEvent>,
    ) -> Result<(), StoreError> {
        let endpoints = self.hooks.endpoints(event);
        if endpoints.is_empty() {
            return Ok(());
        }
        let facts = Facts {
            game: GameRow::of(game),
            as_of: ts(game.as_of),
            mv: mv.map(|m| MoveRow::of(game.id, m)),
        };
        out.push(NewEvent {
            event_id: format!("msg_{}", Uuid::now_v7().simple()),
            game_id: game.id.to_string(),
            event_type: event.as_str(),
            facts: serde_json::to_string(&facts)
                .map_err(|e| StoreError::Corrupt(format!("an event's facts: {e}")))?,
            created_at: created_at.to_owned(),
            endpoints,
        });
        Ok(())
    }
}

/// Inserts the events and their deliveries.
pub(super) async fn write_events(
    tx: &mut WriteTx,
    events: Vec<NewEvent>,
) -> Result<(), StoreError> {
    let mut deliveries: Vec<(String, String, i64, String, String)> = Vec::new();
    for e in events {
        let seq: i64 = on_conn!(tx, |c| sqlx::query_scalar(
            "INSERT INTO webhook_events (event_id, game_id, type, body, facts, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq"
        )
        .bind(&e.event_id)
        .bind(&e.game_id)
        .bind(e.event_type)
        .bind(Vec::<u8>::new())
        .bind(&e.facts)
        .bind(&e.created_at)
        .fetch_one(c)
        .await)?;
        for webhook in e.endpoints {
            deliveries.push((
                webhook,
                e.event_id.clone(),
                seq,
                e.game_id.clone(),
                e.created_at.clone(),
            ));
        }
    }
    for chunk in super::db::slices(&deliveries) {
        on_conn!(tx, |c| {
            let mut q = QueryBuilder::new(
                "INSERT INTO webhook_deliveries \
                 (webhook_id, event_id, event_seq, game_id, next_attempt_at) ",
            );
            q.push_values(chunk, |mut b, d| {
                b.push_bind(&d.0)
                    .push_bind(&d.1)
                    .push_bind(d.2)
                    .push_bind(&d.3)
                    .push_bind(&d.4);
            });
            q.build().execute(c).await.map(|r| r.rows_affected())
        })?;
    }
    Ok(())
}

/// An event's body, rendered from its stored facts; `legacy`: the body
/// as stored by builds that rendered it when recording (LZ4-compressed).
pub(super) fn body(
    render: &dyn EventRender,
    event_type: &str,
    facts: Option<&str>,
    legacy: &[u8],
) -> Result<String, StoreError> {
    let Some(facts) = facts else {
        return legacy_body(legacy);
    };
    let corrupt = |what: String| StoreError::Corrupt(format!("an event's {what}"));
    let event =
        WebhookEvent::parse(event_type).ok_or_else(|| corrupt(format!("type {event_type:?}")))?;
    if event_type.starts_with("tournament.") {
        let facts: TournamentFacts =
            serde_json::from_str(facts).map_err(|e| corrupt(format!("facts: {e}")))?;
        return Ok(render.tournament_body(event, parse_ts(&facts.at)?, &facts.tournament));
    }
    let facts: Facts = serde_json::from_str(facts).map_err(|e| corrupt(format!("facts: {e}")))?;
    let mut game = facts.game.into_record()?;
    game.as_of = parse_ts(&facts.as_of)?;
    let mv = facts.mv.map(|m| m.into_record(game.kind())).transpose()?;
    let timestamp = mv.as_ref().map_or(game.updated_at, |m| m.at);
    Ok(render.body(event, timestamp, &game, mv.as_ref()))
}

/// The dictionary older builds compressed bodies against (frozen: their
/// stored bodies must decode).
const LEGACY_DICTIONARY: &[u8] = include_bytes!("legacy_event_dictionary.txt");

/// A body stored by older builds: `lz4_flex`'s block format, its size first
/// (four little-endian bytes, the top bit set when compressed against
/// [`LEGACY_DICTIONARY`]).
fn legacy_body(stored: &[u8]) -> Result<String, StoreError> {
    const WITH_DICTIONARY: u32 = 1 << 31;
    const LARGEST: usize = 16 << 20;
    let corrupt = || StoreError::Corrupt("a stored event's body".into());
    let (size, data) = stored.split_first_chunk::<4>().ok_or_else(corrupt)?;
    let size = u32::from_le_bytes(*size);
    let dictionary: &[u8] = if size & WITH_DICTIONARY == 0 {
        b""
    } else {
        LEGACY_DICTIONARY
    };
    let size = usize::try_from(size & !WITH_DICTIONARY).map_err(|_| corrupt())?;
    if size > LARGEST {
        return Err(corrupt());
    }
    let bytes =
        lz4_flex::block::decompress_with_dict(data, size, dictionary).map_err(|_| corrupt())?;
    String::from_utf8(bytes).map_err(|_| corrupt())
}
