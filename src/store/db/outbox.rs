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

/// Writes an event's body: the layer that renders games for the API
/// supplies it (the store knows records, not their JSON).
pub trait EventRender: Send + Sync {
    /// The body of `event` (`{"type", "timestamp", "data"}`) about `game`
    /// as it is after the change; `mv`: the move, for `move.played`.
    fn body(
        &self,
        event: WebhookEvent,
        timestamp: chrono::DateTime<chrono::Utc>,
        game: &GameRecord,
        mv: Option<&MoveRecord>,
    ) -> String;

    /// The batch whose events were just rendered committed, or did not:
    /// told before any of its writers hears of it.
    fn settled(&self, _committed: bool) {}
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
    /// When the writer last took a batch of [`BUSY_BATCH`] jobs or more:
    /// milliseconds after [`EPOCH`], plus one (0: never).
    busy_at: std::sync::atomic::AtomicU64,
}

/// Jobs in a batch from which the writer counts as busy.
pub const BUSY_BATCH: usize = 8;

/// The origin of [`Outbox`]'s times.
static EPOCH: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

fn since_epoch() -> u64 {
    u64::try_from(EPOCH.elapsed().as_millis()).unwrap_or(u64::MAX)
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
    /// Notes that the writer took a busy batch now.
    pub(in crate::store) fn busy_now(&self) {
        self.busy_at
            .store(since_epoch() + 1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the writer took a busy batch within `window`.
    pub(in crate::store) fn busy_within(&self, window: std::time::Duration) -> bool {
        match self.busy_at.load(std::sync::atomic::Ordering::Relaxed) {
            0 => false,
            at => {
                let window = u64::try_from(window.as_millis()).unwrap_or(u64::MAX);
                (since_epoch() + 1).saturating_sub(at) <= window
            }
        }
    }

    /// Tells the renderer whether the batch that recorded events committed.
    pub(in crate::store) fn settled(&self, committed: bool) {
        if let Some(render) = self.render.get() {
            render.settled(committed);
        }
    }

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

/// A row of `webhook_events` to insert (its body apart: see [`Recorded`]).
#[derive(Debug, Serialize)]
pub(super) struct EventRow {
    pub(super) event_id: String,
    pub(super) game_id: String,
    #[serde(rename = "type")]
    pub(super) event_type: &'static str,
    pub(super) created_at: String,
    /// Its place among the batch's events (1-based), which is also its
    /// body's in [`Recorded::bodies`].
    pub(super) n: usize,
}

/// A row of `webhook_deliveries` to insert.
#[derive(Debug, Serialize)]
pub(super) struct DeliveryRow {
    pub(super) webhook_id: String,
    pub(super) event_id: String,
    /// Its event's place among the batch's events (1-based).
    pub(super) n: usize,
    pub(super) game_id: String,
    pub(super) next_attempt_at: String,
}

/// The events a batch made and their deliveries. The bodies travel beside
/// the rows, not inside their JSON (PostgreSQL's batch sends the rows as
/// JSON): quoted in JSON they would be escaped here and parsed again by the
/// database, on the writer's path.
#[derive(Debug, Default)]
pub(super) struct Recorded {
    pub(super) events: Vec<EventRow>,
    /// Each event's body, compressed, in the order of the events.
    pub(super) bodies: Vec<Vec<u8>>,
    pub(super) deliveries: Vec<DeliveryRow>,
}

/// A batch's events being recorded (rendered and compressed) on a thread
/// of their own while the SQLite writer writes the batch's other rows: the
/// writer does a batch's work in series, and the moves wait on it.
///
/// It is always waited for before the batch ends, used or not (see
/// `Drop`): rendering stages a move's game for its answer, and a batch that
/// fails must not find something staged after it let go of what it staged.
pub(super) struct Recording {
    running: Option<std::sync::mpsc::Receiver<Result<Recorded, StoreError>>>,
    done: std::cell::OnceCell<Result<Recorded, StoreError>>,
}

impl Recording {
    /// The batch's events, once recorded.
    pub(super) fn get(&self) -> Result<&Recorded, StoreError> {
        let recorded = self.done.get_or_init(|| match &self.running {
            Some(running) => running
                .recv()
                .unwrap_or_else(|_| Err(StoreError::Corrupt("the event recorder stopped".into()))),
            None => Ok(Recorded::default()),
        });
        recorded
            .as_ref()
            .map_err(|e| StoreError::Corrupt(format!("recording the batch's events: {e}")))
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        let _ = self.get();
    }
}

impl Default for Recording {
    /// No events.
    fn default() -> Recording {
        Recording {
            running: None,
            done: std::cell::OnceCell::new(),
        }
    }
}

/// A batch's recording, sent to the recorder's thread.
type RecordJob = Box<dyn FnOnce() + Send>;

/// The thread that records events (started with the first batch that has
/// any); `None` if it could not be started (they are recorded in place).
static RECORDER: std::sync::LazyLock<Option<std::sync::Mutex<std::sync::mpsc::Sender<RecordJob>>>> =
    std::sync::LazyLock::new(|| {
        let (jobs, queue) = std::sync::mpsc::channel::<RecordJob>();
        std::thread::Builder::new()
            .name("event-recorder".into())
            .spawn(move || {
                for job in queue {
                    job();
                }
            })
            .ok()
            .map(|_| std::sync::Mutex::new(jobs))
    });

impl Hooks {
    /// [`Hooks::record`] on the recorder's thread, for the SQLite writer
    /// to write the batch's other rows meanwhile.
    pub(super) fn recording(self, steps: Vec<Step>, moves: Vec<MoveRow>) -> Recording {
        let (done, running) = std::sync::mpsc::sync_channel(1);
        let job: RecordJob = Box::new(move || {
            let _ = done.send(self.record(&steps, &moves));
        });
        let unsent = match RECORDER.as_ref() {
            Some(recorder) => {
                let recorder = match recorder.lock() {
                    Ok(r) => r,
                    Err(poisoned) => poisoned.into_inner(),
                };
                recorder.send(job).err().map(|back| back.0)
            }
            None => Some(job),
        };
        // No recorder: in place (the result waits in the channel).
        if let Some(job) = unsent {
            job();
        }
        Recording {
            running: Some(running),
            done: std::cell::OnceCell::new(),
        }
    }

    /// The events `steps` made, in order, with their deliveries; `moves`:
    /// the batch's moves (those of a step are the game's moves with versions
    /// after `before`'s, up to `after`'s).
    pub(super) fn record(&self, steps: &[Step], moves: &[MoveRow]) -> Result<Recorded, StoreError> {
        let mut out = Recorded::default();
        let created_at = ts(chrono::Utc::now());
        // The batch's moves by game, in order (a batch has dozens of games).
        let mut by_game: std::collections::HashMap<&str, Vec<&MoveRow>> =
            std::collections::HashMap::new();
        if self.wanted.contains(WebhookEvent::MovePlayed) {
            for m in moves {
                by_game.entry(m.game_id.as_str()).or_default().push(m);
            }
        }
        for step in steps {
            let game = &step.after;
            let id = game.id.to_string();
            let made = happened(step.before.as_ref(), game, step.deleted);
            let from = step.before.as_ref().map_or(i64::MAX, |b| b.version);
            let played: Vec<MoveRecord> = if self.wanted.contains(WebhookEvent::MovePlayed) {
                by_game
                    .get(id.as_str())
                    .into_iter()
                    .flatten()
                    .filter(|m| m.version > from && m.version <= game.version)
                    .map(|m| (*m).clone().into_record(game.kind()))
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
                        self.one(event, game, Some(m), &id, &created_at, &mut out);
                    }
                } else if made.contains(event) {
                    self.one(event, game, None, &id, &created_at, &mut out);
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
        id: &str,
        created_at: &str,
        out: &mut Recorded,
    ) {
        let endpoints = self
            .subscriptions
            .iter()
            .filter(|s| s.events.contains(event));
        let mut endpoints = endpoints.peekable();
        if endpoints.peek().is_none() {
            return;
        }
        let at = mv.map_or(game.updated_at, |m| m.at);
        // Compressed (see `event_body.rs`): each byte stored is written on
        // the writer's path, and again by the checkpoint.
        let body = super::event_body::pack(&self.render.body(event, at, game, mv));
        let event_id = format!("msg_{}", event_uuid().simple());
        out.events.push(EventRow {
            event_id: event_id.clone(),
            game_id: id.to_owned(),
            event_type: event.as_str(),
            created_at: created_at.to_owned(),
            n: out.bodies.len() + 1,
        });
        out.bodies.push(body);
        for endpoint in endpoints {
            out.deliveries.push(DeliveryRow {
                webhook_id: endpoint.id.to_string(),
                event_id: event_id.clone(),
                n: out.events.len(),
                game_id: id.to_owned(),
                next_attempt_at: created_at.to_owned(),
            });
        }
    }
}

/// An event's id: a version 7 UUID (its time first) whose random bits
/// come from the thread's generator: `Uuid::now_v7` asks the kernel for
/// them, a system call on the writer's path for every event. Events are
/// ordered by their rows, not their ids, so the ids need no counter within
/// a millisecond.
fn event_uuid() -> Uuid {
    let millis = u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or(0);
    uuid::Builder::from_unix_timestamp_millis(millis, &rand::random()).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn event_ids_are_version_7_with_the_time_first_and_distinct() {
        let before = chrono::Utc::now().timestamp_millis();
        let ids: Vec<Uuid> = (0..1000).map(|_| event_uuid()).collect();
        let after = chrono::Utc::now().timestamp_millis();
        let distinct: std::collections::HashSet<&Uuid> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        for id in &ids {
            assert_eq!(id.get_version_num(), 7);
            let (secs, nanos) = id.get_timestamp().unwrap().to_unix();
            let millis = i64::try_from(secs).unwrap() * 1000 + i64::from(nanos / 1_000_000);
            assert!((before..=after).contains(&millis), "{id}");
        }
    }

    /// Renders an event as its type, slowly, counting the bodies it made.
    struct Slow(std::sync::atomic::AtomicUsize);

    impl EventRender for Slow {
        fn body(
            &self,
            event: WebhookEvent,
            _: chrono::DateTime<chrono::Utc>,
            game: &GameRecord,
            _: Option<&MoveRecord>,
        ) -> String {
            std::thread::sleep(Duration::from_millis(30));
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            format!("{} {}", event.as_str(), game.id)
        }
    }

    fn hooks(render: Arc<Slow>) -> Hooks {
        let outbox = Outbox::default();
        outbox.set_render(render);
        outbox.set_subscriptions(vec![Subscription {
            id: Uuid::now_v7(),
            events: EventSet::of(WebhookEvent::ALL),
        }]);
        outbox.hooks().unwrap()
    }

    fn created() -> Vec<Step> {
        let game = GameRecord {
            id: Uuid::now_v7(),
            ..GameRecord::blank(crate::rules::Setup::ConnectFour)
        };
        vec![Step {
            before: None,
            after: game,
            deleted: false,
        }]
    }

    #[test]
    fn events_recorded_on_the_recorders_thread_are_those_recorded_in_place() {
        let render = Arc::new(Slow(std::sync::atomic::AtomicUsize::new(0)));
        let hooks = hooks(render.clone());
        let steps = created();
        let in_place = hooks.record(&steps, &[]).unwrap();
        assert!(!in_place.events.is_empty(), "a new game is an event");
        let recording = hooks.clone().recording(steps, Vec::new());
        let there = recording.get().unwrap();
        let shape = |r: &Recorded| {
            r.events
                .iter()
                .map(|e| (e.event_type, e.game_id.clone(), e.n))
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(there), shape(&in_place));
        assert_eq!(there.bodies, in_place.bodies);
        assert_eq!(there.deliveries.len(), in_place.deliveries.len());
    }

    #[test]
    fn a_recording_dropped_unused_is_waited_for() {
        let render = Arc::new(Slow(std::sync::atomic::AtomicUsize::new(0)));
        let recording = hooks(render.clone()).recording(created(), Vec::new());
        drop(recording);
        // Every body was made before the drop returned: nothing renders
        // (and stages a game) after a failed batch has let go.
        let made = render.0.load(std::sync::atomic::Ordering::SeqCst);
        assert!(made > 0);
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(render.0.load(std::sync::atomic::Ordering::SeqCst), made);
    }

    #[test]
    fn the_writer_is_busy_only_within_the_window_after_a_busy_batch() {
        let outbox = Outbox::default();
        assert!(
            !outbox.busy_within(Duration::from_hours(1)),
            "never busy yet"
        );
        outbox.busy_now();
        assert!(outbox.busy_within(Duration::from_hours(1)));
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            !outbox.busy_within(Duration::from_millis(5)),
            "the window has passed"
        );
        assert!(outbox.busy_within(Duration::from_hours(1)));
    }
}
