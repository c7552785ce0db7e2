//! Handlers of the OpenAPI tag `webhooks` (operators only, behind
//! `--admin-key`), how events' `data` is written (the store records
//! events with the write they report; see `store/db/outbox.rs`), and how a
//! webhook bot's move requests and answers are (see
//! `service/webhook_bots.rs`).

use actix_web::{HttpResponse, delete, get, patch, post, web};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use super::extract::{Bearer, Body, NoQuery, Query};
use super::responses::{
    AdminErrors, AdminNotFound, BodyErrors, StoreErrors, WebhookNotFound, WebhookRefused,
};
use super::wire::{
    BotMove, CreateWebhook, DeliveriesQuery, DeliveryList, DeliveryView, Game, MoveAnswer,
    MoveRecordView, MoveRequestType, MoveRequested, PatchWebhook, Position, RoundResult,
    WebhookEventBody, WebhookEventData, WebhookGrant, WebhookList, WebhookView,
};
use crate::domain::webhook::WebhookEvent;
use crate::domain::{GameRecord, GameStatus, MoveRecord};
use crate::rules::notation::{self, Line};
use crate::rules::{MoveInput, Player, Setup};
use crate::service::{EventRender, MoveRequests};

type ApiResult = Result<HttpResponse, ApiError>;

/// Default and largest number of attempts listed.
const DEFAULT_LIMIT: u32 = 50;
const MAX_LIMIT: u32 = 500;

/// Lets an operator through: the server must have an admin key (else the
/// path does not exist: 404), and the request must carry it.
fn operator(state: &AppState, bearer: &Bearer) -> Result<(), ApiError> {
    let Some(key) = state.admin_key.as_deref() else {
        return Err(ApiError::NotFound);
    };
    let Some(sent) = bearer.token() else {
        return Err(ApiError::AdminKeyMissing);
    };
    // Digests compared, not the keys: the time taken says nothing of the key.
    if Sha256::digest(sent.as_bytes()) == Sha256::digest(key.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::AdminKeyWrong)
    }
}

/// The webhook named by the path's `{id}`, spelled as a game's id must be
/// (see [`GameId`](super::extract::GameId)); any other string is no webhook.
fn webhook_id(req: &actix_web::HttpRequest) -> Result<Uuid, ApiError> {
    req.match_info()
        .get("id")
        .and_then(super::extract::GameId::parse)
        .ok_or(ApiError::Service(
            crate::service::ServiceError::WebhookNotFound,
        ))
}

/// Register a webhook endpoint.
///
/// Events from now on are sent (`POST`) to `url`, signed as the Standard Webhooks
/// specification says, at least once and in order per game. The answer
/// carries the endpoint's signing secret, shown only here.
#[utoipa::path(
    tag = "webhooks",
    request_body(content = CreateWebhook, content_type = "application/json"),
    security(("admin" = [])),
    responses(
        (status = 201, description = "Registered: the endpoint and its secret (keep it: it is shown only here)", body = WebhookGrant),
        AdminErrors,
        (status = 404, response = AdminNotFound),
        BodyErrors,
        (status = 422, response = WebhookRefused),
        StoreErrors,
    ),
)]
#[post("/webhooks")]
pub async fn create_webhook(
    state: web::Data<AppState>,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    operator(&state, &bearer)?;
    let request: CreateWebhook = body.json()?;
    let webhook = state
        .service
        .add_webhook(&request.url, &request.events)
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/webhooks/{}", webhook.id)))
        .json(WebhookGrant {
            webhook: WebhookView::from(&webhook),
            secret: webhook.secret,
        }))
}

/// List the webhook endpoints, oldest first.
#[utoipa::path(
    tag = "webhooks",
    security(("admin" = [])),
    responses(
        (status = 200, description = "The endpoints (without their secrets)", body = WebhookList),
        AdminErrors,
        (status = 404, response = AdminNotFound),
        StoreErrors,
    ),
)]
#[get("/webhooks")]
pub async fn list_webhooks(state: web::Data<AppState>, bearer: Bearer, _: NoQuery) -> ApiResult {
    operator(&state, &bearer)?;
    let webhooks = state.service.webhooks().await?;
    Ok(HttpResponse::Ok().json(WebhookList {
        items: webhooks.iter().map(WebhookView::from).collect(),
    }))
}

/// Delete a webhook endpoint.
///
/// Nothing more is sent to it; its pending deliveries and their log go too.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    security(("admin" = [])),
    responses(
        (status = 204, description = "Deleted"),
        AdminErrors,
        (status = 404, response = WebhookNotFound),
        StoreErrors,
    ),
)]
#[delete("/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    req: actix_web::HttpRequest,
    bearer: Bearer,
    _: NoQuery,
) -> ApiResult {
    operator(&state, &bearer)?;
    state.service.delete_webhook(webhook_id(&req)?).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Disable or enable a webhook endpoint.
///
/// A disabled endpoint is sent nothing; its events wait (at most as long as
/// `--webhook-retry`'s waits add up to, then they fail) and are sent once it
/// is enabled again. Enabling also clears `disabled_reason`.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    request_body(content = PatchWebhook, content_type = "application/json"),
    security(("admin" = [])),
    responses(
        (status = 200, description = "The endpoint as it is now", body = WebhookView),
        AdminErrors,
        (status = 404, response = WebhookNotFound),
        BodyErrors,
        StoreErrors,
    ),
)]
#[patch("/webhooks/{id}")]
pub async fn patch_webhook(
    state: web::Data<AppState>,
    req: actix_web::HttpRequest,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    operator(&state, &bearer)?;
    let id = webhook_id(&req)?;
    let patch: PatchWebhook = body.json()?;
    let webhook = state
        .service
        .set_webhook_disabled(id, patch.disabled)
        .await?;
    Ok(HttpResponse::Ok().json(WebhookView::from(&webhook)))
}

/// List a webhook's delivery attempts, newest first.
///
/// Each attempt with the endpoint's status (or the error when no answer
/// came) and, when it failed, when the next is due.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = Uuid, Path, description = "The webhook's id"), DeliveriesQuery),
    security(("admin" = [])),
    responses(
        (status = 200, description = "The attempts, newest first", body = DeliveryList),
        AdminErrors,
        (status = 404, response = WebhookNotFound),
        StoreErrors,
    ),
)]
#[get("/webhooks/{id}/deliveries")]
pub async fn list_deliveries(
    state: web::Data<AppState>,
    req: actix_web::HttpRequest,
    bearer: Bearer,
    query: Query<DeliveriesQuery>,
) -> ApiResult {
    operator(&state, &bearer)?;
    let id = webhook_id(&req)?;
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::Malformed(format!(
            "limit must be between 1 and {MAX_LIMIT}"
        )));
    }
    let attempts = state.service.webhook_attempts(id, limit).await?;
    Ok(HttpResponse::Ok().json(DeliveryList {
        items: attempts.iter().map(DeliveryView::from).collect(),
    }))
}

/// Writes events' bodies as [`WebhookEventBody`], when the deliverer
/// sends them.
#[derive(Debug, Default)]
pub struct EventData;

impl EventData {
    /// The `data` of an event.
    fn data(event: WebhookEvent, game: &GameRecord, mv: Option<&MoveRecord>) -> WebhookEventData {
        let ended = event == WebhookEvent::GameEnded;
        let (status, winner, end_reason) = game.outcome();
        WebhookEventData {
            game: Some(Game::from(game)),
            tournament: None,
            mv: mv.map(MoveRecordView::from),
            result: ended.then(|| match (status, winner) {
                (GameStatus::Won, Some(p)) => {
                    RoundResult::from(crate::service::RoundResult::Won(p))
                }
                _ => RoundResult::Draw,
            }),
            end_reason: end_reason.filter(|_| ended).map(Into::into),
            rating_change: ended.then(|| game.players.change.as_ref().map(Into::into)),
        }
    }
}

impl EventRender for EventData {
    fn body(
        &self,
        event: WebhookEvent,
        timestamp: chrono::DateTime<chrono::Utc>,
        game: &GameRecord,
        mv: Option<&MoveRecord>,
    ) -> String {
        let body = WebhookEventBody {
            event_type: event.into(),
            timestamp,
            data: EventData::data(event, game, mv),
        };
        // Serializing these types cannot fail (no map with non-string keys).
        serde_json::to_string(&body).unwrap_or_default()
    }

    fn tournament_body(
        &self,
        event: WebhookEvent,
        timestamp: chrono::DateTime<chrono::Utc>,
        tournament: &crate::domain::tournament::TournamentRecord,
    ) -> String {
        let body = WebhookEventBody {
            event_type: event.into(),
            timestamp,
            data: WebhookEventData {
                game: None,
                tournament: Some(super::wire::Tournament::from(tournament)),
                mv: None,
                result: None,
                end_reason: None,
                rating_change: None,
            },
        };
        serde_json::to_string(&body).unwrap_or_default()
    }
}

/// Writes a webhook bot's move requests as [`MoveRequested`] and reads its
/// answers as [`MoveAnswer`].
#[derive(Debug, Default)]
pub struct MoveRequestBody;

impl MoveRequests for MoveRequestBody {
    fn body(
        &self,
        game: &GameRecord,
        seat: Player,
        line: &Line,
        deadline: chrono::DateTime<chrono::Utc>,
    ) -> String {
        let body = MoveRequested {
            request_type: MoveRequestType::MoveRequested,
            game: Game::from(game),
            seat: seat.into(),
            position: Position::from(line),
            deadline,
        };
        // Serializing these types cannot fail (no map with non-string keys).
        serde_json::to_string(&body).unwrap_or_default()
    }

    fn answer(&self, setup: Setup, body: &[u8]) -> Result<MoveInput, String> {
        let answer: MoveAnswer = serde_json::from_slice(body)
            .map_err(|e| format!("the answer is not {{\"move\": …}}: {e}"))?;
        match answer.mv {
            BotMove::Notation(text) => notation::read_move(setup, text.trim()).ok_or_else(|| {
                format!(
                    "{text:?} is not one move: {}",
                    notation::syntax(setup.kind())
                )
            }),
            BotMove::Move(body) => Ok(body.into()),
        }
    }
}
