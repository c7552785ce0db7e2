//! `POST /v1/matches` (OpenAPI tag `matches`): quick match. Extract, parse,
//! call the service, respond.

use actix_web::{HttpResponse, post, web};

use super::AppState;
use super::error::ApiError;
use super::extract::{Bearer, Body, IdempotencyKey, NoQuery};
use super::reply;
use super::responses::{
    BadRequest, BodyErrors, BotNotAllowed, Internal, InvalidMatch, JoinConflict, MatchUnavailable,
    PlayerUnauthorized,
};
use super::wire::{ETag, QuickMatch, Replayed, SeatGrant};
use crate::domain::StoredResponse;
use crate::service::{MatchRequest, Matched, SeatTaken, ServiceError};

/// Quick match: a seat in a game of this kind and options, with another person.
///
/// Takes the open seat of the oldest public game waiting for an opponent of
/// this kind and options (a game between two people, without a clock, not
/// yet begun: one made by an earlier quick match, or by `POST /v1/games`),
/// so the game is `in_progress` and whoever holds X moves first. When no
/// game waits, it creates one, the caller in seat X, `status` `waiting`
/// until the next quick match of the same kind and options (or a `join`)
/// takes seat O: follow its events to see it join. Either way the answer is
/// the game, the caller's seat and its token (shown only here).
///
/// Concurrent callers never get the same seat, and no caller creates a game
/// while another waits under the same terms: at most one game created by
/// quick match waits per kind and options. A game that has waited longer
/// than the match wait (`--match-wait`, default 60 s) without a change is
/// passed over: its people have likely gone (ask again to wait anew).
///
/// A caller is never matched with itself: with the token of a seat in the
/// game it would be given (`Authorization: Bearer`), that same game and seat
/// come back, nothing written. A retry with the same `Idempotency-Key` (and
/// the same body and token) returns the first answer, token included, with
/// `Idempotent-Replayed: true`; the key with another request is refused with
/// 422 `idempotency_key_reused`.
#[utoipa::path(
    tag = "matches",
    params(IdempotencyKey),
    security((), ("bearer" = [])),
    request_body(content = QuickMatch, content_type = "application/json",
        examples(
            ("connect_four" = (summary = "Connect Four, with a name", value = json!({"kind": "connect_four", "name": "Bob"}))),
            ("gomoku" = (summary = "Gomoku on a 9x9 board, exactly five", value = json!({"kind": "gomoku", "options": {"size": 9, "rule": "standard"}}))),
        )),
    responses(
        (status = 200, description = "Seated: the game, the caller's seat and its token (keep it: it is shown only here). In a game that was waiting (`status` `in_progress`), or in a new one that waits for an opponent (`status` `waiting`)", body = SeatGrant,
            headers(
                ("ETag" = ETag, description = "The game's version, quoted"),
                ("Idempotent-Replayed" = Replayed, description = "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`; absent otherwise"),
            ),
            examples(
                ("joined" = (summary = "A game was waiting: the caller takes its open seat, O", value = json!(super::examples::join_grant()))),
                ("waiting" = (summary = "No game was waiting: a new one, the caller in seat X, waiting for an opponent", value = json!(super::examples::seat_grant()))),
            )),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = BotNotAllowed),
        BodyErrors,
        (status = 409, response = JoinConflict),
        (status = 422, response = InvalidMatch),
        (status = 500, response = Internal),
        (status = 503, response = MatchUnavailable),
    ),
)]
#[post("/matches")]
pub async fn quick_match(
    state: web::Data<AppState>,
    _: NoQuery,
    bearer: Bearer,
    key: IdempotencyKey,
    body: Body,
) -> Result<HttpResponse, ApiError> {
    let request: QuickMatch = body.json()?;
    let (setup, name, rated, clock) = request.into_parts()?;
    let player = if rated {
        state.service.identify_rated(bearer.token()).await?
    } else {
        state.service.identify(bearer.token()).await?
    };
    let request = MatchRequest {
        name,
        token: bearer.0,
        idempotency_key: key.key,
        player,
        rated,
        clock,
    };
    match state.service.quick_match(setup, request, grant).await? {
        Matched::Seated(taken) => Ok(reply::with_etag(
            HttpResponse::Ok().json(SeatGrant::from(taken.as_ref())),
            taken.game.version,
        )),
        Matched::Replayed(stored) => Ok(reply::replayed(stored)),
    }
}

/// The answer to a quick match as stored for its `Idempotency-Key`.
fn grant(taken: &SeatTaken) -> Result<StoredResponse, ServiceError> {
    let body = serde_json::to_string(&SeatGrant::from(taken))
        .map_err(|e| ServiceError::Internal(format!("rendering a quick match: {e}")))?;
    Ok(StoredResponse {
        status: 200,
        body,
        version: taken.game.version,
    })
}
