//! Handlers of the OpenAPI tag `bots`: a hint, an analysis of every move,
//! and a move played by the server for the side to move.

use actix_web::{HttpResponse, get, post, web};

use super::AppState;
use super::client_ip::ClientAddr;
use super::error::ApiError;
use super::extract::{self, Bearer, Body, GameId, IdempotencyKey, IfMatch, NoQuery, Prefer, Query};
use super::reply;
use super::responses::{
    AnalysisConflict, AssistForbidden, BadRequest, BodyErrors, BotUnavailable, GameNotFound,
    Internal, InvalidOption, MoveConflict, PositionNotFound, PreconditionFailed, Unauthorized,
    UnprocessableBotMove,
};
use super::wire::{
    AnalysisQuery, AnalysisView, BotMoveRequest, ETag, HintQuery, HintView, MoveResponse,
    PreferenceApplied, Replayed,
};
use crate::domain::Level;
use crate::service::AnalysisAt;

type ApiResult = Result<HttpResponse, ApiError>;

/// The level used when a request names none.
const DEFAULT_LEVEL: Level = Level::Medium;

/// A suggested move for the side to move.
///
/// With the token of the seat to move (or the hotseat token). Nothing is played.
#[utoipa::path(
    tag = "bots",
    params(GameId, HintQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The suggested move and how the bot sees the position", body = HintView),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = AssistForbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = MoveConflict),
        (status = 422, response = InvalidOption),
        (status = 500, response = Internal),
        (status = 503, response = BotUnavailable),
    ),
)]
#[get("/games/{id}/hint")]
pub async fn get_hint(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    query: Query<HintQuery>,
    client: ClientAddr,
) -> ApiResult {
    let level = query.level.map_or(DEFAULT_LEVEL, Into::into);
    let hint = state
        .service
        .hint(game.id, token.token(), level, client.0)
        .await?;
    Ok(HttpResponse::Ok().json(HintView::from(&hint)))
}

/// Let the server play one move for the side to move.
///
/// With the token of the seat to move (or the hotseat token). Answers like a
/// move; a bot opponent then replies as usual. 412 also when the game changed
/// while the bot was thinking. A retry with the same `Idempotency-Key` returns
/// the first answer (also after the turn has passed); the key reused with
/// another level, or by another seat, is refused with 422
/// `idempotency_key_reused`. With `Prefer: return=minimal` the answer is 204
/// with the game's new `ETag` and no body.
#[utoipa::path(
    tag = "bots",
    params(GameId, IfMatch, IdempotencyKey, Prefer),
    request_body(content = Option<BotMoveRequest>, content_type = "application/json", description = "Optional: the level (default `medium`)"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Played: the bot's move for the caller's seat, the game after it and any bot replies", body = MoveResponse,
            headers(
                ("ETag" = ETag, description = "The game's new version, quoted"),
                ("Idempotent-Replayed" = Replayed, description = "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`; absent otherwise"),
            )),
        (status = 204, description = "Played, under `Prefer: return=minimal`: no body; the game's new version in `ETag`",
            headers(
                ("ETag" = ETag, description = "The game's new version, quoted"),
                ("Preference-Applied" = PreferenceApplied, description = "`return=minimal`"),
                ("Idempotent-Replayed" = Replayed, description = "`true` when this answers an earlier request with the same `Idempotency-Key`; absent otherwise"),
            )),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = AssistForbidden),
        (status = 404, response = GameNotFound),
        (status = 409, response = MoveConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        (status = 422, response = UnprocessableBotMove),
        (status = 500, response = Internal),
        (status = 503, response = BotUnavailable),
    ),
)]
#[post("/games/{id}/bot-move")]
#[expect(
    clippy::too_many_arguments,
    reason = "actix passes each part of the request as an extractor of its own"
)]
pub async fn play_bot_move(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    key: IdempotencyKey,
    prefer: Prefer,
    _: NoQuery,
    client: ClientAddr,
    body: Body,
) -> ApiResult {
    let request: BotMoveRequest = body.json_or_default()?;
    let level = request.level.map_or(DEFAULT_LEVEL, Into::into);
    let pre = extract::preconditions(if_match, key);
    let result = state
        .service
        .bot_move(game.id, token.token(), pre, level, reply::render, client.0)
        .await?;
    Ok(reply::played_as(result, prefer))
}

/// Every legal move of the side to move, evaluated, best first.
///
/// The live position, or with `ply` (and `round`) one of a round's
/// positions, as `GET /moves/{ply}` shows it: a finished game's review
/// asks for each in turn. While the current round is in progress: with the
/// token of the seat to move (or the hotseat token), as for a hint,
/// whichever of its positions is asked for. A finished round's positions
/// need no token; where the round is over the list is empty. The level's bot evaluates the position after each
/// move within the time of one bot move (shared between the moves); `exact`
/// says whether every evaluation is proven. Nothing is played.
#[utoipa::path(
    tag = "bots",
    params(GameId, AnalysisQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "Every legal move with its evaluation, best first", body = AnalysisView),
        (status = 400, response = BadRequest),
        (status = 401, response = Unauthorized),
        (status = 403, response = AssistForbidden),
        (status = 404, response = PositionNotFound),
        (status = 409, response = AnalysisConflict),
        (status = 422, response = InvalidOption),
        (status = 500, response = Internal),
        (status = 503, response = BotUnavailable),
    ),
)]
#[get("/games/{id}/analysis")]
pub async fn get_analysis(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    query: Query<AnalysisQuery>,
    client: ClientAddr,
) -> ApiResult {
    let level = query.level.map_or(DEFAULT_LEVEL, Into::into);
    let analysis = state
        .service
        .analysis(
            game.id,
            token.token(),
            level,
            AnalysisAt {
                round: query.round,
                ply: query.ply,
            },
            client.0,
        )
        .await?;
    Ok(HttpResponse::Ok().json(AnalysisView::from(&analysis)))
}
