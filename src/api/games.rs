//! Handlers for `/v1/kinds` and `/v1/games/…`: extract, parse, call the
//! service, respond.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};

use super::AppState;
use super::error::ApiError;
use super::extract::{self, Body};
use super::responses::{
    BadRequest, Forbidden, GameNotFound, IllegalMove, Internal, InvalidOption, JoinConflict,
    MoveConflict, PayloadTooLarge, PositionNotFound, PreconditionFailed, ResignConflict,
    RestartConflict, Unauthorized, Unavailable, UnsupportedMediaType,
};
use super::wire::{
    self, BotMoveRequest, CreateGame, ETag, EmptyBody, Game, GamePage, GameUrl, HintQuery,
    HintView, KindList, ListQuery, MoveBody, MoveList, MoveRecordView, MoveResponse, Replayed,
    RoundQuery, SeatGrant,
};
use crate::ai::Level;
use crate::domain::{ListFilter, StoredResponse};
use crate::service::{MoveResult, Played, ServiceError};

type ApiResult = Result<HttpResponse, ApiError>;

/// Default and largest page size of a listing.
const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: u32 = 100;

/// The level used when a request names none.
const DEFAULT_LEVEL: Level = Level::Medium;

fn with_etag(mut res: HttpResponse, version: i64) -> HttpResponse {
    res.headers_mut().insert(header::ETAG, wire::etag(version));
    res
}

fn game_response(game: &crate::domain::GameRecord) -> HttpResponse {
    with_etag(HttpResponse::Ok().json(Game::from(game)), game.version)
}

/// The answer to a move as stored for its idempotency key.
fn render(played: &Played) -> Result<StoredResponse, ServiceError> {
    let body = serde_json::to_string(&MoveResponse::from(played))
        .map_err(|e| ServiceError::Internal(format!("rendering a move's answer: {e}")))?;
    Ok(StoredResponse {
        status: 201,
        body,
        version: played.game.version,
    })
}

fn move_response(result: MoveResult) -> HttpResponse {
    match result {
        MoveResult::Played(played) => with_etag(
            HttpResponse::Created().json(MoveResponse::from(played.as_ref())),
            played.game.version,
        ),
        MoveResult::Replayed(stored) => {
            let mut res = HttpResponse::build(
                actix_web::http::StatusCode::from_u16(stored.status)
                    .unwrap_or(actix_web::http::StatusCode::CREATED),
            );
            res.insert_header(("Idempotent-Replayed", "true"));
            // The first answer's ETag: the version of the game it carries.
            res.insert_header((header::ETAG, wire::etag(stored.version)));
            res.content_type("application/json").body(stored.body)
        }
    }
}

/// List the game kinds.
///
/// Board sizes, the shape of a move, the options each kind takes at creation
/// and their defaults.
#[utoipa::path(
    tag = "kinds",
    responses((status = 200, description = "The kinds, with their board sizes, move shapes, options and defaults", body = KindList)),
)]
#[get("/kinds")]
pub async fn list_kinds() -> HttpResponse {
    HttpResponse::Ok().json(KindList::all())
}

/// Create a game.
///
/// The caller takes `seat` (default X) and receives its token, shown only
/// here. With a human opponent the other seat stays open until someone joins;
/// with a bot opponent the bot plays its turns itself (a bot holding X opens
/// at once); with `hotseat` one token plays both seats.
#[utoipa::path(
    tag = "games",
    request_body(content = CreateGame, content_type = "application/json"),
    responses(
        (status = 201, description = "Created: the game, the caller's seat and its token (keep it: it is shown only here)", body = SeatGrant,
            headers(
                ("Location" = GameUrl, description = "The game's URL, `/v1/games/{id}`"),
                ("ETag" = ETag, description = "The game's version, quoted, e.g. `\"1\"`"),
            )),
        (status = 400, response = BadRequest),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 422, response = InvalidOption),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[post("/games")]
pub async fn create_game(state: web::Data<AppState>, body: Body) -> ApiResult {
    let request: CreateGame = body.json()?;
    let new = request.into_new_game()?;
    let taken = state.service.create(new).await?;
    let location = format!("/v1/games/{}", taken.game.id);
    Ok(with_etag(
        HttpResponse::Created()
            .insert_header((header::LOCATION, location))
            .json(SeatGrant::from(&taken)),
        taken.game.version,
    ))
}

/// List games, newest first.
///
/// Filter by kind, status and whether a seat is open; page with `cursor`.
#[utoipa::path(
    tag = "games",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of games, newest first", body = GamePage),
        (status = 400, response = BadRequest),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[get("/games")]
pub async fn list_games(state: web::Data<AppState>, query: web::Query<ListQuery>) -> ApiResult {
    let query = query.into_inner();
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::Malformed(format!(
            "limit must be between 1 and {MAX_LIMIT}"
        )));
    }
    let before = query
        .cursor
        .as_deref()
        .map(|c| {
            c.parse::<i64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| ApiError::Malformed("invalid cursor".into()))
        })
        .transpose()?;
    let filter = ListFilter {
        kind: query.kind.map(Into::into),
        status: query.status.map(Into::into),
        open: query.open,
        before,
        limit,
    };
    let (games, next) = state.service.list(&filter).await?;
    Ok(HttpResponse::Ok().json(GamePage {
        items: games.iter().map(Game::from).collect(),
        next_cursor: next.map(|n| n.to_string()),
    }))
}

/// Get a game.
///
/// Everything a board needs: the position (`board`, `ultimate`), whose turn
/// it is, the `legal_moves` and the `threats`, the status and the seats. The
/// `ETag` is the game's version: send it back as `If-Match` on a write to
/// make sure nothing changed since you looked.
#[utoipa::path(
    tag = "games",
    params(("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)")),
    responses(
        (status = 200, description = "The game now", body = Game,
            headers(("ETag" = ETag, description = "The game's version, quoted: send it back as `If-Match`"))),
        (status = 404, response = GameNotFound),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[get("/games/{id}")]
pub async fn get_game(state: web::Data<AppState>, id: web::Path<String>) -> ApiResult {
    let game = state.service.game(extract::game_id(&id)?).await?;
    Ok(game_response(&game))
}

/// Delete a game with its history (any seat token of the game).
///
/// Followers of its events receive `deleted`; afterwards every operation on
/// it answers 404 `game_not_found`.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#, description = "Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `\"14\"` (`*` matches any version)"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted, with its history; followers of its events receive `deleted`"),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = GameNotFound),
        (status = 412, response = PreconditionFailed),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[delete("/games/{id}")]
pub async fn delete_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let pre = extract::preconditions(&req)?;
    state.service.delete(id, extract::bearer(&req), pre).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Take the open seat.
///
/// Returns the game, the seat taken and its token (shown only here).
#[utoipa::path(
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#, description = "Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `\"14\"` (`*` matches any version)"),
    ),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    responses(
        (status = 200, description = "Joined: the game, the seat taken and its token (keep it: it is shown only here)", body = SeatGrant,
            headers(("ETag" = ETag, description = "The game's new version, quoted")),
            example = json!(super::examples::join_grant())),
        (status = 400, response = BadRequest),
        (status = 404, response = GameNotFound),
        (status = 409, response = JoinConflict),
        (status = 412, response = PreconditionFailed),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[post("/games/{id}/join")]
pub async fn join_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Body,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let pre = extract::preconditions(&req)?;
    let _: serde_json::Map<String, serde_json::Value> = body.json_or_default()?;
    let taken = state.service.join(id, pre).await?;
    Ok(with_etag(
        HttpResponse::Ok().json(SeatGrant::from(&taken)),
        taken.game.version,
    ))
}

/// Play a move.
///
/// With the token of the seat to move. The move is durable before the answer
/// is sent. A bot opponent's reply is played before the answer and listed in
/// `replies`. A retry with the same `Idempotency-Key` returns the first answer
/// and plays nothing.
#[utoipa::path(
    tag = "moves",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#, description = "Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `\"14\"` (`*` matches any version)"),
        ("Idempotency-Key" = Option<String>, Header, nullable = false, min_length = 1, max_length = 255, pattern = "^[!-~]{1,255}$", description = "1 to 255 visible ASCII characters, e.g. a UUID: a retry with the same key from the same seat returns the first answer (with `Idempotent-Replayed: true`) and plays nothing"),
    ),
    request_body(content = MoveBody, content_type = "application/json",
        examples(
            ("connect_four" = (summary = "Connect Four: a column", value = json!({"column": 3}))),
            ("tic_tac_toe" = (summary = "Tic-tac-toe and Gomoku: a cell", value = json!({"row": 1, "col": 1}))),
            ("ultimate_tic_tac_toe" = (summary = "Ultimate tic-tac-toe: an inner board and a cell", value = json!({"board": 4, "cell": 0}))),
        )),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Played: the move, the game after it and any bot replies", body = MoveResponse,
            headers(
                ("ETag" = ETag, description = "The game's new version, quoted"),
                ("Idempotent-Replayed" = Replayed, description = "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`; absent otherwise"),
            )),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = MoveConflict),
        (status = 412, response = PreconditionFailed),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 422, response = IllegalMove),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[post("/games/{id}/moves")]
pub async fn play_move(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Body,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let pre = extract::preconditions(&req)?;
    let input = wire::parse_move(&body.0).map_err(ApiError::Malformed)?;
    let result = state
        .service
        .play(id, extract::bearer(&req), pre, input, render)
        .await?;
    Ok(move_response(result))
}

/// The moves of a round (default: the current one), in order.
///
/// Rounds start at 1; `?round=` reads an earlier one after a restart.
#[utoipa::path(
    tag = "moves",
    params(("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"), RoundQuery),
    responses(
        (status = 200, description = "The round's moves, in order", body = MoveList),
        (status = 400, response = BadRequest),
        (status = 404, response = PositionNotFound),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[get("/games/{id}/moves")]
pub async fn list_moves(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<RoundQuery>,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let (_, moves) = state.service.history(id, query.round).await?;
    Ok(HttpResponse::Ok().json(MoveList {
        items: moves.iter().map(MoveRecordView::from).collect(),
    }))
}

/// The game as it stood after `ply` moves of a round (0: the empty board).
///
/// `version` and `seats` are the game's current ones.
#[utoipa::path(
    tag = "moves",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("ply" = u32, Path, maximum = 4294967295_u64, description = "Moves played, 0 for the empty board"),
        RoundQuery,
    ),
    responses(
        (status = 200, description = "The position (no `ETag`: it is not the game now)", body = Game),
        (status = 400, response = BadRequest),
        (status = 404, response = PositionNotFound),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[get("/games/{id}/positions/{ply}")]
pub async fn get_position(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    query: web::Query<RoundQuery>,
) -> ApiResult {
    let (id, ply) = path.into_inner();
    let id = extract::game_id(&id)?;
    let ply: u32 = ply
        .parse()
        .map_err(|_| ApiError::Malformed(format!("ply must be a whole number, got {ply:?}")))?;
    let game = state.service.position(id, query.round, ply).await?;
    Ok(HttpResponse::Ok().json(Game::from(&game)))
}

/// Start a new round from the empty board (any seat token).
///
/// Old rounds stay readable with `?round=`. X opens again; a bot holding X
/// plays its first move before the answer.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#, description = "Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `\"14\"` (`*` matches any version)"),
    ),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game in its new round", body = Game,
            headers(("ETag" = ETag, description = "The game's new version, quoted"))),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = RestartConflict),
        (status = 412, response = PreconditionFailed),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[post("/games/{id}/restart")]
pub async fn restart_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Body,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let pre = extract::preconditions(&req)?;
    let _: serde_json::Map<String, serde_json::Value> = body.json_or_default()?;
    let game = state
        .service
        .restart(id, extract::bearer(&req), pre)
        .await?;
    Ok(game_response(&game))
}

/// Resign: the caller's seat gives up the round and the other wins.
///
/// In a hotseat game the side to move resigns.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#, description = "Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `\"14\"` (`*` matches any version)"),
    ),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The finished game: `status` `won`, `end_reason` `resignation`", body = Game,
            headers(("ETag" = ETag, description = "The game's new version, quoted"))),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = ResignConflict),
        (status = 412, response = PreconditionFailed),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[post("/games/{id}/resign")]
pub async fn resign_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Body,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let pre = extract::preconditions(&req)?;
    let _: serde_json::Map<String, serde_json::Value> = body.json_or_default()?;
    let game = state.service.resign(id, extract::bearer(&req), pre).await?;
    Ok(game_response(&game))
}

/// A suggested move for the side to move.
///
/// With the token of the seat to move (or the hotseat token). Nothing is played.
#[utoipa::path(
    tag = "bots",
    params(("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"), HintQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The suggested move and how the bot sees the position", body = HintView),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = MoveConflict),
        (status = 422, response = InvalidOption),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[get("/games/{id}/hint")]
pub async fn get_hint(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<HintQuery>,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let level = query.level.map_or(DEFAULT_LEVEL, Into::into);
    let hint = state.service.hint(id, extract::bearer(&req), level).await?;
    Ok(HttpResponse::Ok().json(HintView::from(&hint)))
}

/// Let the server play one move for the side to move.
///
/// With the token of the seat to move (or the hotseat token). Answers like a
/// move; a bot opponent then replies as usual. 412 also when the game changed
/// while the bot was thinking.
#[utoipa::path(
    tag = "bots",
    params(
        ("id" = Uuid, Path, description = "The game id (a UUID; any other string is answered 404 `game_not_found`)"),
        ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#, description = "Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `\"14\"` (`*` matches any version)"),
        ("Idempotency-Key" = Option<String>, Header, nullable = false, min_length = 1, max_length = 255, pattern = "^[!-~]{1,255}$", description = "1 to 255 visible ASCII characters, e.g. a UUID: a retry with the same key from the same seat returns the first answer (with `Idempotent-Replayed: true`) and plays nothing"),
    ),
    request_body(content = Option<BotMoveRequest>, content_type = "application/json", description = "Optional: the level (default `easy`)"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Played: the bot's move for the caller's seat, the game after it and any bot replies", body = MoveResponse,
            headers(
                ("ETag" = ETag, description = "The game's new version, quoted"),
                ("Idempotent-Replayed" = Replayed, description = "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`; absent otherwise"),
            )),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = MoveConflict),
        (status = 412, response = PreconditionFailed),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 422, response = InvalidOption),
        (status = 500, response = Internal),
        (status = 503, response = Unavailable),
    ),
)]
#[post("/games/{id}/bot-move")]
pub async fn play_bot_move(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Body,
) -> ApiResult {
    let id = extract::game_id(&id)?;
    let pre = extract::preconditions(&req)?;
    let request: BotMoveRequest = body.json_or_default()?;
    let level = request.level.map_or(DEFAULT_LEVEL, Into::into);
    let result = state
        .service
        .bot_move(id, extract::bearer(&req), pre, level, render)
        .await?;
    Ok(move_response(result))
}

/// Fallback for requests no route took: 405 `method_not_allowed` with
/// `Allow` when the path is one of the API's with another method, else 404
/// `not_found`.
pub async fn not_found(req: HttpRequest) -> ApiResult {
    match super::allowed_methods(req.path()) {
        Some(allow) => Err(ApiError::MethodNotAllowed(allow)),
        None => Err(ApiError::NotFound),
    }
}
