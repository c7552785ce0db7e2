//! The HTTP layer: handlers per resource, wire types, errors as
//! problem+json, and the OpenAPI document generated from the handlers.

mod bots;
mod challenges;
mod client_ip;
mod error;
mod events;
pub use events::StreamClients;
mod examples;
mod extract;
mod games;
mod headers;
mod kinds;
mod matches;
mod moves;
mod offers;
mod players;
mod rate_limit;
mod reply;
mod responses;
mod rules;
mod rules_limits;
mod system;
mod tournaments;
mod webhooks;
pub mod wire;

use actix_web::body::{BodySize, BodyStream, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{App, HttpRequest, web};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::service_config::ServiceConfig;
use utoipa_actix_web::{AppExt, scope};

pub use client_ip::TrustedProxies;
pub use error::{ApiError, ErrorCode, Problem};
pub use extract::{BodyLimit, BodyTimeout, close_stalled, path_config};
pub use headers::{not_modified, refuse_duplicates};
pub use rate_limit::{RateLimiter, limit as rate_limit};
pub use rules_limits::RulesLimits;
pub use webhooks::{EventData, MoveRequestBody};

use crate::service::Service;
use crate::telemetry::Metrics;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub service: Service,
    pub metrics: Metrics,
    /// Interval of SSE keep-alive comments.
    pub heartbeat: std::time::Duration,
    /// One permit per event stream that may be open (`--max-streams`).
    pub streams: std::sync::Arc<tokio::sync::Semaphore>,
    /// The streams each client holds (`--max-streams-per-client`).
    pub stream_clients: events::StreamClients,
    /// The proxies whose `X-Forwarded-For` names the client.
    pub proxies: client_ip::TrustedProxies,
    /// The operators' key (`--admin-key`); none: the operators' paths are 404.
    pub admin_key: Option<String>,
    /// What the rules routes may take (`--rules-rate`, the batch builders).
    pub rules: std::sync::Arc<RulesLimits>,
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The seat token returned once by create or join: `Authorization: Bearer <token>`",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "admin",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The operators' key, the server's `--admin-key`: `Authorization: Bearer <admin key>`",
                    ))
                    .build(),
            ),
        );
    }
}

/// The document's fixed parts; paths and schemas are collected from the routes.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tabula",
        description = "A game-state service for tic-tac-toe, Connect Four, Gomoku and Ultimate tic-tac-toe: create games, seat players, play validated moves, read state and history.\n\n\
**Seats and tokens.** Creating a game takes a seat and returns its token once; joining takes the open seat and returns another. Send it as `Authorization: Bearer <token>` on the operations marked with a lock.\n\n\
**Versions.** Every change of a game (move, join, restart, resign) bumps its `version`. Game answers carry it as `ETag: \"<version>\"`; send it back as `If-Match` on a write to have it refused with 412 `version_mismatch` if anything changed meanwhile.\n\n\
**Retries.** A move (or bot move) with an `Idempotency-Key` is played once: a retry of the same request with the same key returns the first answer. The key answers only the request it was first sent with: with another body, seat or operation it is refused with 422 `idempotency_key_reused`.\n\n\
**Errors** are RFC 9457 problem details (`application/problem+json`) with a stable `code` to branch on; each error response below lists the codes it can carry. A refused request changes nothing. Every `/v1` operation may answer 429 `rate_limited` with `Retry-After`.",
        license(name = "MIT", identifier = "MIT"),
    ),
    servers((url = "/", description = "This service")),
    modifiers(&BearerAuth),
    components(schemas(Problem, events::GameEvent, wire::ETag, wire::GameUrl, wire::Replayed, wire::PreferenceApplied, wire::WebhookEventBody, wire::MoveRequested, wire::MoveAnswer), responses(
        responses::BadRequest,
        responses::Unauthorized,
        responses::Forbidden,
        responses::AssistForbidden,
        responses::GameNotFound,
        responses::PositionNotFound,
        responses::MoveConflict,
        responses::JoinConflict,
        responses::AnalysisConflict,
        responses::UnprocessableCreate,
        responses::UnprocessableLine,
        responses::UnprocessableLines,
        responses::RestartConflict,
        responses::DeleteConflict,
        responses::InvalidInvite,
        responses::OfferConflict,
        responses::AnswerConflict,
        responses::WithdrawConflict,
        responses::ResignConflict,
        responses::PreconditionFailed,
        responses::PayloadTooLarge,
        responses::UnsupportedMediaType,
        responses::UnprocessableMove,
        responses::InvalidOption,
        responses::InvalidName,
        responses::InvalidMatch,
        responses::InvalidPlayer,
        responses::RematchConflict,
        responses::ClaimConflict,
        responses::MatchUnavailable,
        responses::UnprocessableBotMove,
        responses::TooManyRequests,
        responses::Internal,
        responses::Unavailable,
        responses::MoveUnavailable,
        responses::BotUnavailable,
        responses::BotUnavailableNoStore,
        responses::BatchUnavailable,
        responses::StreamUnavailable,
        responses::RequestTimeout,
        responses::AdminUnauthorized,
        responses::AdminForbidden,
        responses::AdminNotFound,
        responses::WebhookNotFound,
        responses::WebhookRefused,
        responses::PlayerNotFound,
        responses::KindNotFound,
        responses::PlayerUnauthorized,
        responses::TournamentNotFound,
        responses::EntrantNotFound,
        responses::RoundNotFound,
        responses::NoRounds,
        responses::NotCreator,
        responses::EntryForbidden,
        responses::EntryConflict,
        responses::StartConflict,
        responses::InvalidTournament,
        responses::ChallengeNotFound,
        responses::ChallengeForbidden,
        responses::ChallengeConflict,
        responses::ClosedChallenge,
        responses::InvalidChallenge,
        responses::BotNotAllowed,
        responses::UnprocessablePlayerUpdate,
    )),
    tags(
        (name = "kinds", description = "The games Tabula hosts"),
        (name = "games", description = "Create, join, read, list, follow, restart, resign and delete games"),
        (name = "matches", description = "Quick match: a seat in the next game of the kind wanted, with the next person who wants it"),
        (name = "moves", description = "Play moves and read the history, also in each kind's notation"),
        (name = "bots", description = "Server bots: hints, analyses and bot moves"),
        (name = "rules", description = "Rules as a service: any position of any kind from a line of moves, and its analysis; nothing is stored, no token is needed"),
        (name = "players", description = "Players with keys or the operator's sign-in, their ratings (Glicko-2, per kind) and games, and each kind's leaderboard"),
        (name = "tournaments", description = "Swiss (FIDE's Dutch system), round robin (Berger tables) and arena tournaments: entrants, rounds, standings, TRF16, and their event streams"),
        (name = "challenges", description = "One player asks another (a person or a bot) for a game: challenges made, received, accepted, declined and cancelled"),
        (name = "webhooks", description = "For operators (`--admin-key`): endpoints that are sent what happens to games, signed as the Standard Webhooks specification says; the deliveries' log"),
        (name = "system", description = "Health, readiness and metrics"),
    ),
)]
struct ApiDoc;

/// Registers every route (each through `service`, so the OpenAPI document
/// collects it). The router tries them in this order, matching each path
/// with a parameter by its regex: a move, the most frequent request, first
/// (it was eighth, after three regexes that cannot match it).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope::scope("/v1")
            .service(moves::play_move)
            .service(kinds::list_kinds)
            .service(games::create_game)
            .service(games::list_games)
            .service(games::get_game)
            .service(games::delete_game)
            .service(games::join_game)
            .service(matches::quick_match)
            .service(moves::list_moves)
            .service(moves::get_position)
            .service(moves::get_notation)
            .service(games::restart_game)
            .service(games::rematch_game)
            .service(games::claim_game)
            .service(games::resign_game)
            .service(offers::make_offer)
            .service(offers::accept_offer)
            .service(offers::decline_offer)
            .service(offers::withdraw_offer)
            .service(bots::get_hint)
            .service(bots::get_analysis)
            .service(bots::play_bot_move)
            .service(events::game_events)
            .service(players::create_player)
            .service(players::get_me)
            .service(players::patch_me)
            .service(players::my_events)
            .service(players::get_player)
            .service(players::player_games)
            .service(players::leaderboard)
            .service(tournaments::create_tournament)
            .service(tournaments::list_tournaments)
            .service(tournaments::get_tournament)
            .service(tournaments::delete_tournament)
            .service(tournaments::start_tournament)
            .service(tournaments::enter_tournament)
            .service(tournaments::leave_tournament)
            .service(tournaments::tournament_standings)
            .service(tournaments::tournament_round)
            .service(tournaments::tournament_games)
            .service(tournaments::tournament_trf)
            .service(tournaments::tournament_events)
            .service(challenges::create_challenge)
            .service(challenges::list_challenges)
            .service(challenges::get_challenge)
            .service(challenges::accept_challenge)
            .service(challenges::decline_challenge)
            .service(challenges::cancel_challenge)
            .service(webhooks::create_webhook)
            .service(webhooks::list_webhooks)
            .service(webhooks::delete_webhook)
            .service(webhooks::patch_webhook)
            .service(webhooks::list_deliveries)
            .service(
                // A batch of lines may be larger than a move's body.
                scope::scope("/rules")
                    .app_data(extract::BodyLimit(rules::BATCH_BODY_LIMIT))
                    .service(rules::get_rules_position)
                    .service(rules::post_rules_positions)
                    .service(rules::get_rules_analysis),
            ),
    )
    .service(system::healthz)
    .service(system::readyz)
    .service(system::metrics);
}

/// The problem for a request no route took: 405 `method_not_allowed` with
/// `Allow` when the path is one the service serves with another method, else
/// 404 `not_found`.
#[must_use]
pub fn not_found(req: &HttpRequest) -> ApiError {
    match allowed_methods(req.path()) {
        Some(allow) => ApiError::MethodNotAllowed(allow),
        None => ApiError::NotFound,
    }
}

/// Middleware: answers HEAD wherever GET is answered (RFC 9110 §9.3.2),
/// with the status and headers of GET and no body. The routes declare GET
/// only (so the OpenAPI document lists each operation once): a HEAD request
/// is routed as a GET. actix writes a HEAD answer's headers, `Content-Length`
/// included, and drops its body; a streamed body (the event stream, which
/// never ends) is replaced by an empty stream, so the answer ends at once and
/// the stream's task stops.
///
/// # Errors
/// Passes on the inner service's error.
pub async fn head_as_get<B: MessageBody + 'static>(
    mut req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B, NoBody>>, actix_web::Error> {
    if req.method() != Method::HEAD {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    }
    req.head_mut().method = Method::GET;
    let res = next.call(req).await?;
    if res.response().body().size() != BodySize::Stream {
        return Ok(res.map_into_left_body());
    }
    Ok(res.map_body(|_, _| EitherBody::right(BodyStream::new(futures_util::stream::empty()))))
}

/// An empty streamed body: the answer to HEAD on a stream.
type NoBody = BodyStream<futures_util::stream::Empty<Result<web::Bytes, std::convert::Infallible>>>;

/// The methods served at a concrete `path` (e.g. `GET, HEAD, DELETE` for
/// `/v1/games/<id>`): the API's read from the OpenAPI document, with HEAD
/// wherever GET (see [`head_as_get`]), and the document and its page (GET
/// and HEAD); `None` for a path the service does not serve.
#[must_use]
pub fn allowed_methods(path: &str) -> Option<String> {
    static ROUTES: std::sync::LazyLock<Vec<(String, String)>> = std::sync::LazyLock::new(|| {
        let doc = document();
        let paths = doc.get("paths").and_then(|p| p.as_object());
        paths
            .into_iter()
            .flatten()
            .map(|(template, item)| {
                let mut methods: Vec<String> = item
                    .as_object()
                    .into_iter()
                    .flat_map(|ops| ops.keys())
                    .map(|m| m.to_ascii_uppercase())
                    .collect();
                if let Some(get) = methods.iter().position(|m| m == "GET") {
                    methods.insert(get + 1, "HEAD".into());
                }
                (template.clone(), methods.join(", "))
            })
            .collect()
    });
    if path == "/openapi.json" || path == "/docs" || path.starts_with("/docs/") {
        return Some("GET, HEAD".into());
    }
    let matches = |template: &str| {
        let mut want = template.split('/');
        let mut got = path.split('/');
        loop {
            match (want.next(), got.next()) {
                (None, None) => return true,
                (Some(w), Some(g)) if w.starts_with('{') && w.ends_with('}') && !g.is_empty() => {}
                (Some(w), Some(g)) if w == g => {}
                _ => return false,
            }
        }
    };
    ROUTES
        .iter()
        .find(|(template, _)| matches(template))
        .map(|(_, methods)| methods.clone())
}

/// The document's fixed parts (info, tags, security, shared responses).
#[must_use]
pub fn base_document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// The OpenAPI document of the routes in [`configure`], with 429 on every
/// `/v1` operation (the rate limiter guards the whole scope).
#[must_use]
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, mut api) = App::new()
        .into_utoipa_app()
        .openapi(base_document())
        .configure(configure)
        .split_for_parts();
    for (path, item) in &mut api.paths.paths {
        for operation in operations_mut(item) {
            if path.starts_with("/v1/") {
                operation.responses.responses.insert(
                    "429".into(),
                    utoipa::openapi::Ref::from_response_name("TooManyRequests").into(),
                );
            }
            // Say so explicitly where no token is needed.
            operation.security.get_or_insert_with(Vec::new);
            if let Some(body) = &mut operation.request_body {
                drop_null_from_optional_body(body);
            }
        }
    }
    api
}

/// utoipa marks a request body optional only when its type is `Option<T>`,
/// which also makes its schema `oneOf: [null, T]`. The server takes no body or
/// a `T`, never a JSON `null`: drop the `null` branch.
fn drop_null_from_optional_body(body: &mut utoipa::openapi::request_body::RequestBody) {
    use utoipa::openapi::schema::{Schema, Type};
    use utoipa::openapi::{RefOr, Required};
    if body.required == Some(Required::True) {
        return;
    }
    for content in body.content.values_mut() {
        let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema else {
            continue;
        };
        let is_null = |s: &RefOr<Schema>| {
            matches!(s, RefOr::T(Schema::Object(o))
                if o.schema_type == utoipa::openapi::schema::SchemaType::Type(Type::Null))
        };
        let rest: Vec<RefOr<Schema>> = one_of
            .items
            .iter()
            .filter(|s| !is_null(s))
            .cloned()
            .collect();
        if let [only] = rest.as_slice() {
            content.schema = Some(only.clone());
        }
    }
}

fn operations_mut(
    item: &mut utoipa::openapi::PathItem,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.options,
        &mut item.head,
        &mut item.patch,
        &mut item.trace,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

/// Response headers the server does not send on every answer of the response
/// that declares them; every other declared response header is marked
/// `required` (utoipa has no attribute for that).
const OPTIONAL_RESPONSE_HEADERS: &[&str] = &["Idempotent-Replayed"];

/// The OpenAPI document as JSON: [`openapi`] with response headers marked
/// `required`. The service serves this at `/openapi.json`.
#[must_use]
pub fn document() -> serde_json::Value {
    let mut doc = serde_json::to_value(openapi()).unwrap_or_default();
    let mut responses: Vec<&mut serde_json::Value> = Vec::new();
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        for item in paths.values_mut().filter_map(|i| i.as_object_mut()) {
            for operation in item.values_mut() {
                if let Some(r) = operation
                    .get_mut("responses")
                    .and_then(|r| r.as_object_mut())
                {
                    responses.extend(r.values_mut());
                }
            }
        }
    }
    for response in responses {
        mark_headers_required(response);
    }
    if let Some(shared) = doc
        .pointer_mut("/components/responses")
        .and_then(|r| r.as_object_mut())
    {
        shared.values_mut().for_each(mark_headers_required);
    }
    if let Some(fields) = doc.as_object_mut() {
        fields.insert("webhooks".into(), webhooks());
    }
    doc
}

/// The document's `webhooks` (OpenAPI 3.1): what the service sends to the
/// endpoints operators register (utoipa has no attribute for them).
fn webhooks() -> serde_json::Value {
    let header = |name: &str, description: &str, example: &str| {
        serde_json::json!({
            "name": name, "in": "header", "required": true, "description": description,
            "schema": {"type": "string"}, "example": example,
        })
    };
    serde_json::json!({
        "gameEvent": {
            "post": {
                "operationId": "receive_game_event",
                "tags": ["webhooks"],
                "summary": "An event, sent to every endpoint subscribed to its type",
                "description": "Sent at least once, in order per game and endpoint, signed as the Standard Webhooks specification says: verify `webhook-signature` with the endpoint's secret (any Standard Webhooks library does) and deduplicate on `webhook-id`. Answer 2xx within 10 s; anything else is retried on the server's schedule (`--webhook-retry`), then the delivery is marked failed.",
                "security": [],
                "parameters": [
                    header("webhook-id", "The event's id: the same on every attempt.", "msg_01a2d0f3b2c47e0a9d55e2b8f0c1d9e1"),
                    header("webhook-timestamp", "When this attempt was signed, in Unix seconds.", "1795600800"),
                    header("webhook-signature", "`v1,` and the base64 of the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the bytes of the secret after `whsec_`.", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
                ],
                "requestBody": {
                    "required": true,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WebhookEventBody"}}},
                },
                "responses": {
                    "200": {"description": "Received (any 2xx will do)."},
                    "400": {
                        "description": "Refused by the endpoint (any status other than 2xx): the delivery is tried again later.",
                        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
                    },
                },
            }
        },
        "moveRequested": {
            "post": {
                "operationId": "request_bot_move",
                "tags": ["players"],
                "summary": "A webhook bot's turn: sent to its `move_url`",
                "description": "Sent when it is a webhook bot's turn in a game with a clock, signed as webhook deliveries are, with the bot's own secret (`move_secret`). Answer 200 with the move; a failed, late or illegal answer is asked again after 1 s, 2 s, 4 s, … while the bot's clock runs, and the bot loses on time when it runs out. Each request must be answered within 10 s and before `deadline`.",
                "security": [],
                "parameters": [
                    header("webhook-id", "The turn's id: the same on every request for one turn.", "move_0192f0c46c1e7f53a4a83c1b9e2d5a11_3"),
                    header("webhook-timestamp", "When this request was signed, in Unix seconds.", "1795600800"),
                    header("webhook-signature", "`v1,` and the base64 of the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the bytes of the secret after `whsec_`.", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
                ],
                "requestBody": {
                    "required": true,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MoveRequested"}}},
                },
                "responses": {
                    "200": {
                        "description": "The bot's move.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MoveAnswer"}}},
                    },
                },
            }
        }
    })
}

fn mark_headers_required(response: &mut serde_json::Value) {
    let Some(headers) = response.get_mut("headers").and_then(|h| h.as_object_mut()) else {
        return;
    };
    for (name, header) in headers.iter_mut() {
        if !OPTIONAL_RESPONSE_HEADERS.contains(&name.as_str())
            && let Some(header) = header.as_object_mut()
        {
            header.insert("required".into(), serde_json::Value::Bool(true));
        }
    }
}

/// The OpenAPI document as pretty JSON, ending with a newline (as committed
/// in `openapi/openapi.json`).
#[must_use]
pub fn openapi_json() -> String {
    let mut json = serde_json::to_string_pretty(&document()).unwrap_or_default();
    json.push('\n');
    json
}
