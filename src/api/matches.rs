//! `POST /v1/matches` (OpenAPI tag `matches`): quick match. Extract, parse,
//! call the service, respond.

use actix_web::{HttpResponse, post, web};

use super::AppState;
use super::error::ApiError;
use super::extract::{Body, NoQuery};
use super::reply;
use super::responses::{
    BadRequest, Internal, InvalidMatch, MatchUnavailable, PayloadTooLarge, RequestTimeout,
    UnsupportedMediaType,
};
use super::wire::{ETag, QuickMatch, SeatGrant};

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
/// quick match waits per kind and options.
#[utoipa::path(
    tag = "matches",
    request_body(content = QuickMatch, content_type = "application/json",
        examples(
            ("connect_four" = (summary = "Connect Four, with a name", value = json!({"kind": "connect_four", "name": "Bob"}))),
            ("gomoku" = (summary = "Gomoku on a 9x9 board, exactly five", value = json!({"kind": "gomoku", "options": {"size": 9, "rule": "standard"}}))),
        )),
    responses(
        (status = 200, description = "Seated: the game, the caller's seat and its token (keep it: it is shown only here). In a game that was waiting (`status` `in_progress`), or in a new one that waits for an opponent (`status` `waiting`)", body = SeatGrant,
            headers(("ETag" = ETag, description = "The game's version, quoted")),
            examples(
                ("joined" = (summary = "A game was waiting: the caller takes its open seat, O", value = json!(super::examples::join_grant()))),
                ("waiting" = (summary = "No game was waiting: a new one, the caller in seat X, waiting for an opponent", value = json!(super::examples::seat_grant()))),
            )),
        (status = 400, response = BadRequest),
        (status = 408, response = RequestTimeout),
        (status = 413, response = PayloadTooLarge),
        (status = 415, response = UnsupportedMediaType),
        (status = 422, response = InvalidMatch),
        (status = 500, response = Internal),
        (status = 503, response = MatchUnavailable),
    ),
)]
#[post("/matches")]
pub async fn quick_match(
    state: web::Data<AppState>,
    _: NoQuery,
    body: Body,
) -> Result<HttpResponse, ApiError> {
    let request: QuickMatch = body.json()?;
    let (setup, name) = request.into_parts()?;
    let taken = state.service.quick_match(setup, name).await?;
    Ok(reply::with_etag(
        HttpResponse::Ok().json(SeatGrant::from(&taken)),
        taken.game.version,
    ))
}
