//! The HTTP layer: handlers per resource, wire types, errors as
//! problem+json, and the OpenAPI document generated from the handlers.

mod error;
mod events;
mod extract;
mod games;
mod rate_limit;
mod responses;
mod system;
pub mod wire;

use actix_web::App;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::service_config::ServiceConfig;
use utoipa_actix_web::{AppExt, scope};

pub use error::{ApiError, ErrorCode, Problem};
pub use extract::{BodyLimit, path_config, query_config};
pub use games::not_found;
pub use rate_limit::{RateLimiter, limit as rate_limit};

use crate::service::Service;
use crate::telemetry::Metrics;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub service: Service,
    pub metrics: Metrics,
    /// Interval of SSE keep-alive comments.
    pub heartbeat: std::time::Duration,
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
    }
}

/// The document's fixed parts; paths and schemas are collected from the routes.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tabula",
        description = "A game-state service for tic-tac-toe, Connect Four, Gomoku and Ultimate tic-tac-toe: create games, seat players, play validated moves, read state and history.\n\nErrors are RFC 9457 problem details (`application/problem+json`) with a stable `code`.",
        license(name = "MIT", identifier = "MIT"),
    ),
    modifiers(&BearerAuth),
    components(schemas(events::GameEvent), responses(
        responses::BadRequest,
        responses::Unauthorized,
        responses::Forbidden,
        responses::NotFound,
        responses::Conflict,
        responses::PreconditionFailed,
        responses::PayloadTooLarge,
        responses::UnsupportedMediaType,
        responses::Unprocessable,
        responses::Internal,
        responses::Unavailable,
    )),
    tags(
        (name = "kinds", description = "The games Tabula hosts"),
        (name = "games", description = "Create, join, read, list, restart, resign and delete games"),
        (name = "moves", description = "Play moves and read the history"),
        (name = "bots", description = "Server bots: hints and bot moves"),
        (name = "system", description = "Health, readiness and metrics"),
    ),
)]
struct ApiDoc;

/// Registers every route (each through `service`, so the OpenAPI document
/// collects it).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope::scope("/v1")
            .service(games::list_kinds)
            .service(games::create_game)
            .service(games::list_games)
            .service(games::get_game)
            .service(games::delete_game)
            .service(games::join_game)
            .service(games::play_move)
            .service(games::list_moves)
            .service(games::get_position)
            .service(games::restart_game)
            .service(games::resign_game)
            .service(games::get_hint)
            .service(games::play_bot_move)
            .service(events::game_events),
    )
    .service(system::healthz)
    .service(system::readyz)
    .service(system::metrics);
}

/// The document's fixed parts (info, tags, security, shared responses).
#[must_use]
pub fn base_document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// The OpenAPI document of the routes in [`configure`].
#[must_use]
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(base_document())
        .configure(configure)
        .split_for_parts();
    api
}

/// The OpenAPI document as pretty JSON, ending with a newline (as committed
/// in `openapi/openapi.json`).
#[must_use]
pub fn openapi_json() -> String {
    let mut json = openapi().to_pretty_json().unwrap_or_default();
    json.push('\n');
    json
}
