//! Webhooks: endpoints, their deliveries, and the events' bodies.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::{EndReason, Game, MoveRecordView, RatingChangeView, RoundResult};
use crate::service::{AttemptRecord, WebhookRecord};

/// An event a webhook endpoint may subscribe to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum WebhookEventType {
    #[serde(rename = "game.created")]
    GameCreated,
    #[serde(rename = "game.joined")]
    GameJoined,
    #[serde(rename = "move.played")]
    MovePlayed,
    #[serde(rename = "game.ended")]
    GameEnded,
    #[serde(rename = "game.deleted")]
    GameDeleted,
    #[serde(rename = "tournament.started")]
    TournamentStarted,
    #[serde(rename = "tournament.round_started")]
    TournamentRoundStarted,
    #[serde(rename = "tournament.finished")]
    TournamentFinished,
}

impl From<crate::domain::webhook::WebhookEvent> for WebhookEventType {
    fn from(e: crate::domain::webhook::WebhookEvent) -> WebhookEventType {
        use crate::domain::webhook::WebhookEvent as E;
        match e {
            E::GameCreated => WebhookEventType::GameCreated,
            E::GameJoined => WebhookEventType::GameJoined,
            E::MovePlayed => WebhookEventType::MovePlayed,
            E::GameEnded => WebhookEventType::GameEnded,
            E::GameDeleted => WebhookEventType::GameDeleted,
            E::TournamentStarted => WebhookEventType::TournamentStarted,
            E::TournamentRoundStarted => WebhookEventType::TournamentRoundStarted,
            E::TournamentFinished => WebhookEventType::TournamentFinished,
        }
    }
}

/// An endpoint to register.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://backend.example.com/tabula", "events": ["move.played", "game.ended"]}))]
pub struct CreateWebhook {
    /// Where to POST the events: `http` or `https`, at most 2000 characters;
    /// its host must not resolve to a loopback, private, link-local or
    /// unspecified address (unless the server runs with `--webhook-allow-private`).
    pub url: String,
    /// The events to send, at least one.
    #[schema(min_items = 1)]
    pub events: Vec<String>,
}

static WEBHOOK_EXAMPLE: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
    serde_json::json!({
        "id": "01a2d0a0-5c1e-7b3a-9f00-3e2d1c0b9a88", "url": "https://backend.example.com/tabula",
        "events": ["move.played", "game.ended"], "created_at": "2026-11-25T09:58:00Z", "disabled": false,
        "disabled_reason": null
    })
});

/// A webhook endpoint.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!(WEBHOOK_EXAMPLE.clone()))]
pub struct WebhookView {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    #[serde(serialize_with = "super::stamp::time")]
    pub created_at: DateTime<Utc>,
    /// Sent nothing while true (`PATCH` sets it, and so does the service
    /// after every delivery failed for `--webhook-disable-after`, 24 h by
    /// default): its events wait at most as long as retries would, then fail.
    pub disabled: bool,
    /// Why the service disabled the endpoint; null when it did not.
    #[schema(required = true)]
    pub disabled_reason: Option<String>,
}

/// What to change of an endpoint.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"disabled": true}))]
pub struct PatchWebhook {
    /// `true`: send it nothing (its events wait); `false`: send again.
    pub disabled: bool,
}

impl From<&WebhookRecord> for WebhookView {
    fn from(w: &WebhookRecord) -> WebhookView {
        WebhookView {
            id: w.id,
            url: w.url.clone(),
            events: w.events.iter().map(|e| e.as_str().to_owned()).collect(),
            created_at: w.created_at,
            disabled: w.disabled,
            disabled_reason: w.disabled_reason.clone(),
        }
    }
}

/// A registered endpoint and its signing secret (shown only here).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"webhook": WEBHOOK_EXAMPLE.clone(), "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}))]
pub struct WebhookGrant {
    pub webhook: WebhookView,
    /// `whsec_` and the base64 of the key: verify each delivery's
    /// `webhook-signature` with it (any Standard Webhooks library does).
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub secret: String,
}

/// The registered endpoints, oldest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [WEBHOOK_EXAMPLE.clone()]}))]
pub struct WebhookList {
    pub items: Vec<WebhookView>,
}

/// One attempt to deliver an event.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    /// The event's id, sent as `webhook-id` (the same on every attempt).
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// 1 for the first attempt.
    pub attempt: i64,
    /// The endpoint's HTTP status; null when no answer came.
    #[schema(required = true)]
    pub status: Option<i64>,
    /// Why the attempt failed; null when delivered.
    #[schema(required = true)]
    pub error: Option<String>,
    #[serde(serialize_with = "super::stamp::time")]
    pub at: DateTime<Utc>,
    /// When the next attempt is due; null once delivered or given up.
    #[schema(required = true)]
    #[serde(serialize_with = "super::stamp::option")]
    pub next_attempt_at: Option<DateTime<Utc>>,
}

impl From<&AttemptRecord> for DeliveryView {
    fn from(a: &AttemptRecord) -> DeliveryView {
        DeliveryView {
            event_id: a.event_id.clone(),
            event_type: a.event_type.clone(),
            attempt: a.attempt,
            status: a.status,
            error: a.error.clone(),
            at: a.at,
            next_attempt_at: a.next_attempt_at,
        }
    }
}

/// An endpoint's delivery attempts, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [
    {"event_id": "msg_01a2d0f3b2c47e0a9d55e2b8f0c1d9e1", "type": "move.played", "attempt": 2,
     "status": 204, "error": null, "at": "2026-11-25T10:00:05.120Z", "next_attempt_at": null},
    {"event_id": "msg_01a2d0f3b2c47e0a9d55e2b8f0c1d9e1", "type": "move.played", "attempt": 1,
     "status": 503, "error": "the endpoint answered 503", "at": "2026-11-25T10:00:00.100Z",
     "next_attempt_at": "2026-11-25T10:00:05.100Z"}
]}))]
pub struct DeliveryList {
    pub items: Vec<DeliveryView>,
}

/// How many attempts to list.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveriesQuery {
    /// 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// The body of a webhook delivery (`POST` to the endpoint, signed: headers
/// `webhook-id`, `webhook-timestamp`, `webhook-signature`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::webhook_event)]
pub struct WebhookEventBody {
    #[serde(rename = "type")]
    pub event_type: WebhookEventType,
    /// When the change happened.
    #[serde(serialize_with = "super::stamp::time")]
    pub timestamp: DateTime<Utc>,
    pub data: WebhookEventData,
}

/// What an event says: the game after the change (`game.*`,
/// `move.played`) or the tournament (`tournament.*`), and per type more.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookEventData {
    /// `game.*` and `move.played`: the game after the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub game: Option<Game>,
    /// `tournament.*`: the tournament after the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub tournament: Option<super::Tournament>,
    /// `move.played` only: the move.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub mv: Option<MoveRecordView>,
    /// `game.ended` only: who won the round, or `draw`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub result: Option<RoundResult>,
    /// `game.ended` only: how the round ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub end_reason: Option<EndReason>,
    /// `game.ended` only: how a rated round moved both seats' ratings;
    /// null for an unrated game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_change: Option<Option<RatingChangeView>>,
}

/// The type of a webhook bot's request.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub enum MoveRequestType {
    #[serde(rename = "move.requested")]
    MoveRequested,
}

/// The body of a webhook bot's move request: `POST` to its `move_url` when
/// it is its turn, signed with its secret as webhook deliveries are (headers
/// `webhook-id`, the same for every request of one turn, `webhook-timestamp`,
/// `webhook-signature`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::move_requested)]
pub struct MoveRequested {
    #[serde(rename = "type")]
    pub request_type: MoveRequestType,
    /// The game, as `GET /v1/games/{id}` shows it.
    pub game: Game,
    /// The bot's seat: the side to move.
    pub seat: super::Side,
    /// The round so far, as the rules service answers it (its legal moves,
    /// its line in the kind's notation).
    pub position: super::Position,
    /// When the bot's clock runs out: a move answered later loses on time.
    #[serde(serialize_with = "super::stamp::time")]
    pub deadline: DateTime<Utc>,
}

/// A webhook bot's answer to a move request (status 200): its move, as
/// `POST /v1/games/{id}/moves` takes it or in the kind's notation (`"h8"`).
/// Any other answer, or an illegal move, is asked again after 1 s, 2 s,
/// 4 s, … while the bot's clock runs.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(example = json!({"move": {"column": 3}}))]
pub struct MoveAnswer {
    #[serde(rename = "move")]
    pub mv: BotMove,
}

/// A bot's move: a move body, or one move in the kind's notation.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum BotMove {
    #[schema(example = "h8")]
    Notation(String),
    Move(super::MoveBody),
}
