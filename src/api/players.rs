//! Handlers of the OpenAPI tag `players`: create a player, read one and
//! their games, and a kind's leaderboard.

use actix_web::{HttpRequest, HttpResponse, get, post, web};

use super::AppState;
use super::client_ip::ClientAddr;
use super::error::ApiError;
use super::extract::{
    Bearer, Body, IdempotencyKey, NoQuery, Query, page_cursor, page_limit, path_kind,
};
use super::responses::{
    BadRequest, BodyErrors, InvalidPlayer, KindNotFound, PlayerNotFound, PlayerUnauthorized,
    StoreErrors, TooManyRequests,
};
use super::wire::{
    CreatePlayer, Game, GamePage, Kind, Leaderboard, LeaderboardEntry, LeaderboardQuery,
    PlayerBody, PlayerCreated, PlayerGamesQuery,
};
use crate::service::ServiceError;

type ApiResult = Result<HttpResponse, ApiError>;

/// The player id in the path (a UUID, or `ext:<sub>`, URL-encoded); over
/// 210 characters is no player. (actix decodes the path but `%2F`, `%25`
/// and `%2B`, so that a `/` cannot split it: those are decoded here.)
fn player_id(req: &HttpRequest) -> Result<String, ApiError> {
    req.match_info()
        .get("id")
        .and_then(|id| percent_encoding::percent_decode_str(id).decode_utf8().ok())
        .filter(|id| !id.is_empty() && id.len() <= 210)
        .map(std::borrow::Cow::into_owned)
        .ok_or(ApiError::Service(ServiceError::PlayerNotFound))
}

/// Create a player.
///
/// The answer carries the player's key, shown only here (only its hash is
/// stored). Send it as `Authorization: Bearer <key>` when creating, joining
/// or quick matching: the seat is then bound to the player (`seats.X.player`),
/// the key also works as that seat's token, and rated games (`"rated": true`)
/// move the player's rating.
#[utoipa::path(
    tag = "players",
    request_body(content = CreatePlayer, content_type = "application/json"),
    responses(
        (status = 201, description = "Created: the player and their key (keep it: it is shown only here). A retry with the same `Idempotency-Key` from the same client gets the same player and key, with `Idempotent-Replayed: true`", body = PlayerCreated,
            headers(("Location" = String, description = "The player's URL"),
                ("Idempotent-Replayed" = bool, description = "Present (`true`) when this answers an earlier request with the same key"))),
        (status = 400, response = BadRequest),
        BodyErrors,
        (status = 422, response = InvalidPlayer),
        (status = 429, response = TooManyRequests),
        StoreErrors,
    ),
)]
#[post("/players")]
pub async fn create_player(
    state: web::Data<AppState>,
    _: NoQuery,
    client: ClientAddr,
    key: IdempotencyKey,
    body: Body,
) -> ApiResult {
    let request: CreatePlayer = body.json()?;
    let created = state
        .service
        .create_player(request.name, client.0, key.key)
        .await?;
    let mut answer = HttpResponse::Created();
    answer.insert_header((
        actix_web::http::header::LOCATION,
        format!(
            "/v1/players/{}",
            percent_encoding::utf8_percent_encode(&created.view.player.id, PATH_SEGMENT)
        ),
    ));
    if created.replayed {
        answer.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(answer.json(PlayerCreated {
        player: PlayerBody::from(&created.view),
        key: created.key,
    }))
}

/// What a player id escapes in a path: all but unreserved characters and
/// the `:` of `ext:` (RFC 3986).
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':');

/// Get a player.
///
/// Their name and their rating in each kind they have played rated.
#[utoipa::path(
    tag = "players",
    params(("id" = String, Path, description = "The player's id: a UUID, or `ext:<sub>` for a player known by the operator's sign-in")),
    responses(
        (status = 200, description = "The player", body = PlayerBody),
        (status = 400, response = BadRequest),
        (status = 404, response = PlayerNotFound),
        StoreErrors,
    ),
)]
#[get("/players/{id}")]
pub async fn get_player(state: web::Data<AppState>, req: HttpRequest, _: NoQuery) -> ApiResult {
    let id = player_id(&req)?;
    let player = state.service.player(&id).await?;
    Ok(HttpResponse::Ok().json(PlayerBody::from(&player)))
}

/// The caller's player.
///
/// The player the `Authorization` credential names (a player's key, or a
/// sign-in token): how a client that holds only a key learns whose it is,
/// e.g. to sign in with it. A seat token names no player.
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's player", body = PlayerBody),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        StoreErrors,
    ),
)]
#[get("/players/me")]
pub async fn get_me(state: web::Data<AppState>, bearer: Bearer, _: NoQuery) -> ApiResult {
    let player = state.service.me(bearer.token()).await?;
    Ok(HttpResponse::Ok().json(PlayerBody::from(&player)))
}

/// A player's games, newest first.
///
/// The public games in which the player holds a seat (private ones are not
/// listed); page with `cursor`.
#[utoipa::path(
    tag = "players",
    params(("id" = String, Path, description = "The player's id"), PlayerGamesQuery),
    responses(
        (status = 200, description = "A page of the player's games, newest first", body = GamePage),
        (status = 400, response = BadRequest),
        (status = 404, response = PlayerNotFound),
        StoreErrors,
    ),
)]
#[get("/players/{id}/games")]
pub async fn player_games(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<PlayerGamesQuery>,
) -> ApiResult {
    let id = player_id(&req)?;
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let before = page_cursor(query.cursor.as_deref())?;
    let (games, next) = state.service.player_games(&id, before, limit).await?;
    Ok(HttpResponse::Ok().json(GamePage {
        items: games.iter().map(Game::from).collect(),
        next_cursor: next.map(|n| n.to_string()),
    }))
}

/// A kind's leaderboard.
///
/// The players of the kind whose rating is not provisional (deviation at
/// most 110), best first; with `provisional=true`, the provisional players
/// after them (each row says which it is), best first.
#[utoipa::path(
    tag = "players",
    params(("kind" = Kind, Path, description = "The kind"), LeaderboardQuery),
    responses(
        (status = 200, description = "The leaderboard, best first", body = Leaderboard),
        (status = 400, response = BadRequest),
        (status = 404, response = KindNotFound),
        StoreErrors,
    ),
)]
#[get("/kinds/{kind}/leaderboard")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<LeaderboardQuery>,
) -> ApiResult {
    let kind = path_kind(&req)?;
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let ranked = state
        .service
        .leaderboard(kind.into(), limit, query.provisional.unwrap_or(false))
        .await?;
    Ok(HttpResponse::Ok().json(Leaderboard {
        items: ranked.iter().map(LeaderboardEntry::from).collect(),
    }))
}
