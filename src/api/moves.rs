//! Handlers of the OpenAPI tag `moves`: play a move, read the history, any
//! earlier position, and a round in the kind's notation.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, get, post, web};
use utoipa::IntoParams;

use super::AppState;
use super::error::ApiError;
use super::extract::{self, Bearer, Body, GameId, IdempotencyKey, IfMatch, NoQuery, Prefer, Query};
use super::reply;
use super::responses::{
    BadRequest, BodyErrors, Internal, MoveConflict, MoveUnavailable, PositionNotFound,
    PreconditionFailed, SeatErrors, StoreErrors, UnprocessableMove,
};
use super::wire::{
    self, ETag, Game, MoveBody, MoveList, MoveRecordView, MoveResponse, NotationView,
    PreferenceApplied, Replayed, RoundQuery,
};

type ApiResult = Result<HttpResponse, ApiError>;

/// The path's `{ply}`: a number of moves.
#[derive(Clone, Copy, Debug, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct Ply {
    /// Moves played, 0 for the empty board
    #[param(maximum = 4_294_967_295_u64)]
    ply: u32,
}

impl FromRequest for Ply {
    type Error = ApiError;
    type Future = Ready<Result<Ply, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let raw = req.match_info().get("ply").unwrap_or_default();
        ready(
            raw.parse().map(|ply| Ply { ply }).map_err(|_| {
                ApiError::Malformed(format!("ply must be a whole number, got {raw:?}"))
            }),
        )
    }
}

/// Play a move.
///
/// With the token of the seat to move. The move is durable before the answer
/// is sent. A bot opponent's reply is played before the answer and listed in
/// `replies`. A retry with the same `Idempotency-Key` returns the first answer
/// and plays nothing; the key reused with another body, or by another seat,
/// is refused with 422 `idempotency_key_reused`. With `Prefer:
/// return=minimal` the answer is 204 with the game's new `ETag` and no body.
#[utoipa::path(
    tag = "moves",
    params(GameId, IfMatch, IdempotencyKey, Prefer),
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
        (status = 204, description = "Played, under `Prefer: return=minimal`: no body; the game's new version in `ETag`",
            headers(
                ("ETag" = ETag, description = "The game's new version, quoted"),
                ("Preference-Applied" = PreferenceApplied, description = "`return=minimal`"),
                ("Idempotent-Replayed" = Replayed, description = "`true` when this answers an earlier request with the same `Idempotency-Key`; absent otherwise"),
            )),
        SeatErrors,
        (status = 409, response = MoveConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        (status = 422, response = UnprocessableMove),
        (status = 500, response = Internal),
        (status = 503, response = MoveUnavailable),
    ),
)]
#[post("/games/{id}/moves")]
#[expect(
    clippy::too_many_arguments,
    reason = "actix passes each part of the request as an extractor of its own"
)]
pub async fn play_move(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    key: IdempotencyKey,
    prefer: Prefer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let input = match wire::parse_move(&body.object()?) {
        Ok(input) => input,
        // The fix depends on the game's kind: read it (on this path only).
        Err(bad) => {
            let kind = state.service.game(game.id).await?.kind();
            return Err(ApiError::Malformed(bad.detail(kind)));
        }
    };
    let pre = extract::preconditions(if_match, key);
    let result = state
        .service
        .play(game.id, token.token(), pre, input, reply::render)
        .await?;
    Ok(reply::played_as(result, prefer))
}

/// The moves of a round (default: the current one), in order.
///
/// Rounds start at 1; `?round=` reads an earlier one after a restart.
#[utoipa::path(
    tag = "moves",
    params(GameId, RoundQuery),
    responses(
        (status = 200, description = "The round's moves, in order", body = MoveList),
        (status = 400, response = BadRequest),
        (status = 404, response = PositionNotFound),
        StoreErrors,
    ),
)]
#[get("/games/{id}/moves")]
pub async fn list_moves(
    state: web::Data<AppState>,
    game: GameId,
    query: Query<RoundQuery>,
) -> ApiResult {
    let (_, moves) = state.service.history(game.id, query.round).await?;
    Ok(HttpResponse::Ok().json(MoveList {
        items: moves.iter().map(MoveRecordView::from).collect(),
    }))
}

/// The game as it stood after `ply` moves of a round (0: the empty board).
///
/// `version` and `seats` are the game's current ones.
#[utoipa::path(
    tag = "moves",
    params(GameId, Ply, RoundQuery),
    responses(
        (status = 200, description = "The position (no `ETag`: it is not the game now)", body = Game),
        (status = 400, response = BadRequest),
        (status = 404, response = PositionNotFound),
        StoreErrors,
    ),
)]
#[get("/games/{id}/positions/{ply}")]
pub async fn get_position(
    state: web::Data<AppState>,
    game: GameId,
    ply: Ply,
    query: Query<RoundQuery>,
) -> ApiResult {
    let game = state
        .service
        .position(game.id, query.round, ply.ply)
        .await?;
    Ok(HttpResponse::Ok().json(Game::from(&game)))
}

/// A round's moves in the kind's notation (default: the current round).
///
/// One string for the whole line (`connect_four` `"4453"`, `tic_tac_toe`
/// `"519"`, `gomoku` `"h8 i9"`, `ultimate_tic_tac_toe` `"55 51"`; see the
/// `moves` of the answer), with the round's result. Send the string as
/// `moves` to `POST /v1/games` to start a game from the same line.
#[utoipa::path(
    tag = "moves",
    params(GameId, RoundQuery),
    responses(
        (status = 200, description = "The round's moves in the kind's notation and its result", body = NotationView),
        (status = 400, response = BadRequest),
        (status = 404, response = PositionNotFound),
        StoreErrors,
    ),
)]
#[get("/games/{id}/notation")]
pub async fn get_notation(
    state: web::Data<AppState>,
    game: GameId,
    query: Query<RoundQuery>,
) -> ApiResult {
    let notation = state.service.notation(game.id, query.round).await?;
    Ok(HttpResponse::Ok().json(NotationView::from(&notation)))
}
