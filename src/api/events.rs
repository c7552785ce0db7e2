//! `GET /v1/games/{id}/events`: Server-Sent Events, one per change of a game.
//!
//! Each connection runs a small task: it sends the stored changes after the
//! client's `Last-Event-ID` (read back from the history, so nothing is missed
//! while a client was away), then sleeps until the service announces a change
//! of this game, and reads again from the last version it sent. Heartbeat
//! comments keep idle connections open through proxies. The stream ends with
//! `deleted`, the game's last change: a deleted game's history is kept a
//! while (`store::KEEP_DELETED`), so that the changes a stream had not sent
//! yet when the game was deleted are sent first, here or on any other
//! instance, and a client that resumes after it gets them too.

use std::convert::Infallible;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use super::extract::{GameId, Query};
use super::responses::{BadRequest, GameNotFound, Internal, StreamUnavailable};
use super::wire::{Game, MoveRecordView, OfferType, Side};
use crate::domain::DeleteReason;
use crate::domain::{ChangeKind, EventType as DomainEvent};
use crate::service::{Change, Service, ServiceError};

/// Where to resume.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Resume after this version, for clients that cannot set `Last-Event-ID`
    /// (a browser's first `EventSource` connection). The header wins when both are given.
    pub last_event_id: Option<i64>,
}

/// One event of the stream, as an `EventSource` (or any SSE parser) sees it.
///
/// On the wire each event is three lines and a blank one:
/// `event: move`, `id: 4`, `data: {"type":"move","version":4,…}`.
#[derive(ToSchema)]
#[schema(example = json!({
    "event": "join", "id": "2",
    "data": "{\"type\":\"join\",\"version\":2,\"seat\":\"O\",\"game\":{…}}"
}))]
#[expect(
    dead_code,
    reason = "documents the stream; events are written by `frame`"
)]
pub struct SseEvent {
    /// The type of change, as in `data.type` (`state`: the stream's first
    /// event, whose `data` is the game).
    event: EventType,
    /// The game's version after the change: reconnect with `Last-Event-ID` set to it.
    #[schema(pattern = "^[0-9]+$")]
    id: String,
    /// The change as JSON: a `GameEvent` (for `state`, the `Game`).
    #[schema(schema_with = event_data)]
    data: String,
}

/// `data`: a string holding the JSON of a `GameEvent`, or of the `Game` for
/// the `state` event a stream starts with (`contentSchema`, which utoipa has
/// no attribute for).
fn event_data() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::extensions::Extensions;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "The change as JSON: a `GameEvent`; for the `state` event a stream starts with, the `Game`.",
        ))
        .content_media_type("application/json")
        .extensions(Some(Extensions::from_iter([(
            "contentSchema",
            serde_json::json!({"oneOf": [
                {"$ref": "#/components/schemas/GameEvent"},
                {"$ref": "#/components/schemas/Game"}
            ]}),
        )])))
        .build()
}

/// The type of a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    Move,
    Join,
    Restart,
    Resign,
    /// An offer made (`seat`: by whom, `offer_type`: what).
    Offer,
    /// The offer declined (`seat`: by whom).
    OfferDeclined,
    /// The offer withdrawn by the seat that made it.
    OfferWithdrawn,
    /// Moves taken back (`ply`: the moves left in the round).
    Takeback,
    /// A draw agreed.
    Draw,
    /// A side's time ran out (`seat`: whose).
    Timeout,
    Deleted,
    /// A rematch was made (`game.rematch`: the new game's id).
    Rematch,
    /// The round claimed (`seat`: by whom; `game.end_reason` `abandoned` or
    /// `aborted`, `game.winner` the claimant unless drawn).
    Claim,
    /// A seat asked for a hint or an analysis (`seat`: which;
    /// `game.assistance_used` counts them).
    Assistance,
    /// The first event of a stream opened without `Last-Event-ID`: its
    /// `data` is the `Game` as it stands (never a `GameEvent`'s `type`).
    State,
}

/// Why a game was deleted (`deleted` events only): `deleted`, a seat of the
/// game deleted it; `expired`, the service deleted it after it had waited
/// for an opponent, stood finished or stood idle too long (`--expire-waiting`,
/// `--expire-finished`, `--expire-idle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(example = "expired")]
pub enum DeletedReason {
    Deleted,
    Expired,
}

impl From<DeleteReason> for DeletedReason {
    fn from(r: DeleteReason) -> DeletedReason {
        match r {
            DeleteReason::BySeat => DeletedReason::Deleted,
            DeleteReason::Expired => DeletedReason::Expired,
        }
    }
}

/// The `data` of one event (JSON): the change and the game right after it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = super::examples::move_event)]
pub struct GameEvent {
    #[serde(rename = "type")]
    pub event_type: EventType,
    /// The game's version after the change; also the event's `id:`.
    pub version: i64,
    /// `move` only: the move played.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub mv: Option<MoveRecordView>,
    /// `join`: the seat taken; `resign`: the seat that resigned; `offer`,
    /// `offer_declined`, `offer_withdrawn`: the seat that did it; `timeout`:
    /// the seat whose time (or first-move deadline) ran out; `claim`: the
    /// seat that claimed; `assistance`: the seat that asked for help.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub seat: Option<Side>,
    /// The offer events: what was offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub offer_type: Option<OfferType>,
    /// `takeback`: the number of moves left in the round.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ply: Option<u32>,
    /// `restart`: the new round.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub round: Option<u32>,
    /// `deleted` only: why the game was deleted, by a seat (`deleted`) or by
    /// expiry (`expired`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<DeletedReason>,
    /// The game right after the change (absent for `deleted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub game: Option<Game>,
}

fn event_of(change: &Change) -> GameEvent {
    let mut event = GameEvent {
        event_type: EventType::Move,
        version: change.version,
        mv: None,
        seat: None,
        offer_type: None,
        ply: None,
        round: None,
        reason: None,
        game: None,
    };
    let done = match change.kind {
        ChangeKind::Move(m) => {
            event.mv = Some(MoveRecordView::from(&m));
            return GameEvent {
                game: Some(Game::from(&change.game)),
                ..event
            };
        }
        ChangeKind::Event(done) => done,
    };
    event.event_type = match done {
        // Not streamed: a stream starts after it (the replay leaves it out).
        DomainEvent::Create => EventType::Move,
        DomainEvent::Join(p) => {
            event.seat = Some(p.into());
            EventType::Join
        }
        DomainEvent::Restart => {
            event.round = Some(change.game.round);
            EventType::Restart
        }
        DomainEvent::Resign(p) => {
            event.seat = Some(p.into());
            EventType::Resign
        }
        DomainEvent::Offer(k, p) => {
            (event.offer_type, event.seat) = (Some(k.into()), Some(p.into()));
            EventType::Offer
        }
        DomainEvent::OfferDeclined(k, p) => {
            (event.offer_type, event.seat) = (Some(k.into()), Some(p.into()));
            EventType::OfferDeclined
        }
        DomainEvent::OfferWithdrawn(k, p) => {
            (event.offer_type, event.seat) = (Some(k.into()), Some(p.into()));
            EventType::OfferWithdrawn
        }
        DomainEvent::Takeback(n) => {
            event.ply = Some(n);
            EventType::Takeback
        }
        DomainEvent::Draw => EventType::Draw,
        DomainEvent::Timeout(p) => {
            event.seat = Some(p.into());
            EventType::Timeout
        }
        DomainEvent::Deleted(reason) => {
            event.reason = Some(reason.into());
            EventType::Deleted
        }
        DomainEvent::Rematch(_) => EventType::Rematch,
        DomainEvent::Claim(p, _) => {
            event.seat = Some(p.into());
            EventType::Claim
        }
        DomainEvent::Assistance(p) => {
            event.seat = Some(p.into());
            EventType::Assistance
        }
    };
    event.game = (event.event_type != EventType::Deleted).then(|| Game::from(&change.game));
    event
}

/// One SSE frame. An event that cannot be written as JSON (never expected)
/// is logged and sent as a comment, so the stream goes on without a frame
/// whose data is empty.
fn frame(name: &str, id: i64, data: &GameEvent) -> Bytes {
    match serde_json::to_string(data) {
        Ok(json) => Bytes::from(format!("event: {name}\nid: {id}\ndata: {json}\n\n")),
        Err(e) => {
            tracing::error!(error = %e, id, "an event could not be written as JSON");
            Bytes::from(format!(": event {id} could not be written\n\n"))
        }
    }
}

/// The `state` frame a stream without `Last-Event-ID` starts with.
fn state_frame(game: &crate::domain::GameRecord) -> Bytes {
    match serde_json::to_string(&Game::from(game)) {
        Ok(json) => Bytes::from(format!(
            "event: {}\nid: {}\ndata: {json}\n\n",
            name_of(EventType::State),
            game.version
        )),
        Err(e) => {
            tracing::error!(error = %e, "a game could not be written as JSON");
            Bytes::from_static(b": the state could not be written\n\n")
        }
    }
}

fn name_of(t: EventType) -> &'static str {
    match t {
        EventType::Move => "move",
        EventType::Join => "join",
        EventType::Restart => "restart",
        EventType::Resign => "resign",
        EventType::Offer => "offer",
        EventType::OfferDeclined => "offer_declined",
        EventType::OfferWithdrawn => "offer_withdrawn",
        EventType::Takeback => "takeback",
        EventType::Draw => "draw",
        EventType::Timeout => "timeout",
        EventType::Deleted => "deleted",
        EventType::Rematch => "rematch",
        EventType::Claim => "claim",
        EventType::Assistance => "assistance",
        EventType::State => "state",
    }
}

/// Follow a game: Server-Sent Events, one per change.
///
/// Without `Last-Event-ID` the stream starts with `event: state`, whose
/// `id:` is the current version and whose `data:` is the game as `GET
/// /v1/games/{id}` answers it (a `Game`, not a `GameEvent`); then one event
/// per change: `move`, `join`, `restart`, `resign`, `offer`,
/// `offer_declined`, `offer_withdrawn`, `takeback`, `draw`, `timeout` (a
/// first-move deadline passed too: `game.end_reason` `aborted`), `claim`,
/// `assistance`, `rematch` and `deleted`; each `id:` is the game's version
/// after the change and each `data:` a JSON `GameEvent` with the change and
/// the game right after it. Reconnect with `Last-Event-ID: N` (browsers do
/// this by themselves) to receive every change after version N, once each
/// and in order, including those made while away (no `state` then). Comment lines
/// (`: keep-alive`) are sent while idle. The stream ends after `deleted`, the
/// game's last change, which has a version of its own and comes after every
/// change before it; its `reason` is `deleted` (a seat deleted the game) or
/// `expired` (the service deleted it: waiting for an opponent, finished or
/// idle for longer than the server keeps such games). For five minutes
/// after a delete, a client that resumes with an earlier `Last-Event-ID`
/// still gets the changes it missed and `deleted`; otherwise the events of
/// a deleted game are 404 (which stops an `EventSource` from reconnecting).
/// The server holds a bounded number of streams (`--max-streams`), and each
/// client address a share of them (`--max-streams-per-client`); past either
/// a new one is refused with 503 `busy` and `Retry-After`. A stream's place
/// is freed as soon as its client closes the connection.
#[utoipa::path(
    tag = "games",
    params(
        GameId,
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]{1,18}$", description = "Resume after this version: the `id` of the last event received"),
        EventsQuery,
    ),
    responses(
        (status = 200, description = "An endless `text/event-stream`, one event per change (schema: one event as an SSE parser reads it; `data` is a JSON `GameEvent`)", content_type = "text/event-stream", body = SseEvent),
        (status = 400, response = BadRequest),
        (status = 404, response = GameNotFound),
        (status = 500, response = Internal),
        (status = 503, response = StreamUnavailable),
    ),
)]
#[get("/games/{id}/events")]
pub async fn game_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    game: GameId,
    query: Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game.id;
    let header_id = last_event_id(&req)?;
    // Subscribe before reading, so that no change falls between the two.
    let changes = state.service.subscribe();
    let (after, current) = state
        .service
        .events_start(id, header_id.or(query.last_event_id))
        .await?;
    let place = take_place(&state, &req)?;
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    if let Some(game) = &current {
        // A client that connects without a place to resume from starts
        // from the state: the game as `GET /v1/games/{id}` answers it.
        let _ = tx.try_send(state_frame(game));
    }
    tokio::spawn(follow(
        state.service.clone(),
        id,
        after,
        changes,
        tx,
        state.heartbeat,
    ));
    Ok(stream_response(rx, place))
}

/// The `Last-Event-ID` header's version, if one was sent.
///
/// # Errors
/// `Malformed` for a value that is not a version number.
pub(super) fn last_event_id(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    req.headers()
        .get("last-event-id")
        .map(|v| {
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<i64>().ok())
                .ok_or_else(|| ApiError::Malformed("Last-Event-ID must be a version number".into()))
        })
        .transpose()
}

/// A stream's place among those the server holds and those its client may.
pub(super) type StreamPlace = (tokio::sync::OwnedSemaphorePermit, ClientStream);

/// Takes a place for one more stream of the client of `req`.
///
/// # Errors
/// `Busy` when the server or this client holds as many as it may.
pub(super) fn take_place(state: &AppState, req: &HttpRequest) -> Result<StreamPlace, ApiError> {
    let client = state.stream_clients.take(req)?;
    let permit = state.streams.clone().try_acquire_owned().map_err(|_| {
        ServiceError::Busy("as many event streams are open as the server holds; retry later")
    })?;
    Ok((permit, client))
}

/// 200 `text/event-stream` with what `rx` receives. The body holds `place`:
/// it is freed when the client goes away (the server reads the connection
/// while it streams, so a close is seen at once: `h1_allow_half_closed(false)`
/// in `startup`).
pub(super) fn stream_response(rx: mpsc::Receiver<Bytes>, place: StreamPlace) -> HttpResponse {
    let body = futures_util::stream::unfold((rx, place), |(mut rx, place)| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(b), (rx, place)))
    });
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body)
}

/// Waits until record `id` changes (or every record may have: the nil id,
/// a lagging receiver); while idle, sends a heartbeat and returns anyway
/// (a safety net should a notification be lost). False when the stream is
/// over: the client went away or the service is closing.
pub(super) async fn wait_for_change(
    changes: &mut broadcast::Receiver<Uuid>,
    id: Uuid,
    tx: &mpsc::Sender<Bytes>,
    heartbeat: std::time::Duration,
) -> bool {
    loop {
        tokio::select! {
            received = changes.recv() => match received {
                Ok(changed) if changed == id || changed.is_nil() => return true,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => return true,
                Err(broadcast::error::RecvError::Closed) => return false,
            },
            () = tokio::time::sleep(heartbeat) => {
                return tx.send(Bytes::from_static(b": keep-alive\n\n")).await.is_ok();
            }
            () = tx.closed() => return false,
        }
    }
}

/// The event streams each client holds (by address, the one trusted proxies
/// name), so that one client cannot take every stream the server holds.
#[derive(Clone, Debug)]
pub struct StreamClients {
    /// Streams one client may hold at once; 0: no limit.
    cap: usize,
    proxies: super::client_ip::TrustedProxies,
    open: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

/// A client's place among its streams, given back when dropped.
pub struct ClientStream {
    ip: std::net::IpAddr,
    open: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

impl StreamClients {
    #[must_use]
    pub fn new(cap: usize, proxies: super::client_ip::TrustedProxies) -> StreamClients {
        StreamClients {
            cap,
            proxies,
            open: std::sync::Arc::default(),
        }
    }

    /// A place for one more stream of the client of `req`, or `Busy`.
    pub(super) fn take(&self, req: &HttpRequest) -> Result<ClientStream, ServiceError> {
        let peer = req
            .peer_addr()
            .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |a| a.ip());
        let ip = self.proxies.client(peer, req.headers());
        let mut open = self
            .open
            .lock()
            .map_err(|_| ServiceError::Internal("stream count poisoned".into()))?;
        let held = open.entry(ip).or_insert(0);
        if self.cap > 0 && *held >= self.cap {
            return Err(ServiceError::Busy(
                "this client holds as many event streams as one client may (--max-streams-per-client); close one first",
            ));
        }
        *held += 1;
        Ok(ClientStream {
            ip,
            open: self.open.clone(),
        })
    }
}

impl Drop for ClientStream {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.lock()
            && let Some(held) = open.get_mut(&self.ip)
        {
            *held -= 1;
            if *held == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Sends the changes of game `id` after version `last` to `tx` until the
/// client goes away or the game's last change, `deleted`, has been sent.
async fn follow(
    service: Service,
    id: Uuid,
    mut last: i64,
    mut changes: broadcast::Receiver<Uuid>,
    tx: mpsc::Sender<Bytes>,
    heartbeat: std::time::Duration,
) {
    loop {
        match service.changes_since(id, last).await {
            // Nothing more to tell: the game and its history are gone (only
            // for a stream that fell `KEEP_DELETED` behind). The client's
            // reconnection then learns the game is not found.
            Ok(None) => return,
            Ok(Some(list)) => {
                for change in &list {
                    let event = event_of(change);
                    if tx
                        .send(frame(name_of(event.event_type), change.version, &event))
                        .await
                        .is_err()
                        || event.event_type == EventType::Deleted
                    {
                        return;
                    }
                    last = change.version;
                }
            }
            Err(e) => {
                tracing::warn!(game = %id, error = %e, "event stream stopped");
                return;
            }
        }
        if !wait_for_change(&mut changes, id, &tx, heartbeat).await {
            return;
        }
    }
}
