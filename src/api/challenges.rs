//! Handlers of the OpenAPI tag `challenges`: make, list, read, accept,
//! decline and cancel challenges between players.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, delete, get, post, web};
use futures_util::future::{Ready, ready};
use utoipa::IntoParams;
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use super::extract::{Bearer, Body, GameId, NoQuery, Query, page_cursor, page_limit};
use super::responses::{
    BadRequest, BodyErrors, ChallengeConflict, ChallengeForbidden, ChallengeNotFound,
    ClosedChallenge, InvalidChallenge, PlayerUnauthorized, StoreErrors,
};
use super::wire::{
    Challenge, ChallengePage, CreateChallenge, DeclineChallenge, ETag, GameUrl, PlayerGamesQuery,
    SeatGrant,
};
use crate::service::ServiceError;

type ApiResult = Result<HttpResponse, ApiError>;

/// The challenge named by the path's `{id}`: a hyphenated UUID, else 404
/// `challenge_not_found`.
#[derive(Clone, Copy, Debug, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ChallengeId {
    /// The challenge id (a hyphenated UUID)
    pub id: Uuid,
}

impl FromRequest for ChallengeId {
    type Error = ApiError;
    type Future = Ready<Result<ChallengeId, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.match_info()
                .get("id")
                .and_then(GameId::parse)
                .map(|id| ChallengeId { id })
                .ok_or(ApiError::Service(ServiceError::ChallengeNotFound)),
        )
    }
}

/// Challenge a player (a player's credential: the challenger).
///
/// The challenged player hears of it on their event stream
/// (`GET /v1/players/me/events`, `challenge`) and in their list; it waits
/// `--challenge-expiry` (2 minutes by default) for an answer. A bot already
/// playing its `max_games` declines at once (`declined`, `too_many_games`).
#[utoipa::path(
    tag = "challenges",
    security(("bearer" = [])),
    request_body(content = CreateChallenge, content_type = "application/json"),
    responses(
        (status = 201, description = "Made (or, to a bot at its `max_games`, declined at once)", body = Challenge,
            headers(("Location" = String, description = "The challenge's URL"))),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 404, response = super::responses::PlayerNotFound),
        BodyErrors,
        (status = 422, response = InvalidChallenge),
        StoreErrors,
    ),
)]
#[post("/challenges")]
pub async fn create_challenge(
    state: web::Data<AppState>,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: CreateChallenge = body.json()?;
    let c = state
        .service
        .create_challenge(bearer.token(), request.into_new()?)
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            actix_web::http::header::LOCATION,
            format!("/v1/challenges/{}", c.id),
        ))
        .json(Challenge::from(&c)))
}

/// The caller's challenges, made and received, newest first.
///
/// Each as it stands now: one not answered in time is `expired`.
#[utoipa::path(
    tag = "challenges",
    security(("bearer" = [])),
    params(PlayerGamesQuery),
    responses(
        (status = 200, description = "A page of challenges, newest first", body = ChallengePage),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        StoreErrors,
    ),
)]
#[get("/challenges")]
pub async fn list_challenges(
    state: web::Data<AppState>,
    bearer: Bearer,
    query: Query<PlayerGamesQuery>,
) -> ApiResult {
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let before = page_cursor(query.cursor.as_deref())?;
    let (list, next) = state
        .service
        .challenges(bearer.token(), before, limit)
        .await?;
    Ok(HttpResponse::Ok().json(ChallengePage {
        items: list.iter().map(Challenge::from).collect(),
        next_cursor: next.map(|n| n.to_string()),
    }))
}

/// A challenge the caller made or received.
#[utoipa::path(
    tag = "challenges",
    security(("bearer" = [])),
    params(ChallengeId),
    responses(
        (status = 200, description = "The challenge", body = Challenge),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 404, response = ChallengeNotFound),
        StoreErrors,
    ),
)]
#[get("/challenges/{id}")]
pub async fn get_challenge(
    state: web::Data<AppState>,
    bearer: Bearer,
    id: ChallengeId,
    _: NoQuery,
) -> ApiResult {
    let c = state.service.challenge(bearer.token(), id.id).await?;
    Ok(HttpResponse::Ok().json(Challenge::from(&c)))
}

/// Accept a challenge (the challenged player).
///
/// Its game begins: each side's seat is bound to its player (the player's
/// credential plays it), the challenger's seat as asked. Both hear
/// `game_start` on their event streams. A bot playing its `max_games` is
/// refused (409 `too_many_games`).
#[utoipa::path(
    tag = "challenges",
    security(("bearer" = [])),
    params(ChallengeId),
    responses(
        (status = 201, description = "The game, the accepter's seat and a token for it (the accepter's credential plays it too)", body = SeatGrant,
            headers(
                ("Location" = GameUrl, description = "The game's URL, `/v1/games/{id}`"),
                ("ETag" = ETag, description = "The game's version, quoted, e.g. `\"1\"`"),
            )),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = ChallengeForbidden),
        (status = 404, response = ChallengeNotFound),
        (status = 409, response = ChallengeConflict),
        StoreErrors,
    ),
)]
#[post("/challenges/{id}/accept")]
pub async fn accept_challenge(
    state: web::Data<AppState>,
    bearer: Bearer,
    id: ChallengeId,
    _: NoQuery,
) -> ApiResult {
    let accepted = state
        .service
        .accept_challenge(bearer.token(), id.id)
        .await?;
    Ok(super::reply::seat_created(&accepted))
}

/// Decline a challenge (the challenged player), for a `reason`.
#[utoipa::path(
    tag = "challenges",
    security(("bearer" = [])),
    params(ChallengeId),
    request_body(content = Option<DeclineChallenge>, content_type = "application/json", description = "Optional: no body, `{}`, or a `reason`"),
    responses(
        (status = 200, description = "Declined", body = Challenge),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = ChallengeForbidden),
        (status = 404, response = ChallengeNotFound),
        BodyErrors,
        (status = 409, response = ClosedChallenge),
        StoreErrors,
    ),
)]
#[post("/challenges/{id}/decline")]
pub async fn decline_challenge(
    state: web::Data<AppState>,
    bearer: Bearer,
    id: ChallengeId,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: DeclineChallenge = body.json_or_default()?;
    let c = state
        .service
        .decline_challenge(bearer.token(), id.id, request.reason.map(Into::into))
        .await?;
    Ok(HttpResponse::Ok().json(Challenge::from(&c)))
}

/// Cancel a challenge (its challenger), while it waits for an answer.
#[utoipa::path(
    tag = "challenges",
    security(("bearer" = [])),
    params(ChallengeId),
    responses(
        (status = 204, description = "Cancelled"),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = ChallengeForbidden),
        (status = 404, response = ChallengeNotFound),
        (status = 409, response = ClosedChallenge),
        StoreErrors,
    ),
)]
#[delete("/challenges/{id}")]
pub async fn cancel_challenge(
    state: web::Data<AppState>,
    bearer: Bearer,
    id: ChallengeId,
    _: NoQuery,
) -> ApiResult {
    state
        .service
        .cancel_challenge(bearer.token(), id.id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
