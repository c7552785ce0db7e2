//! Success answers the handlers share: a game with its `ETag`, a move's
//! answer (fresh or replayed for an `Idempotency-Key`), and the stored form
//! of a move's answer.

use actix_web::HttpResponse;
use actix_web::http::{StatusCode, header};

use super::extract::Prefer;
use super::wire::{self, Game, MoveResponse, SeatGrant};
use crate::domain::{GameRecord, StoredResponse};
use crate::service::{MoveResult, Played, SeatTaken, ServiceError};

/// `res` with `ETag: "<version>"`.
pub(super) fn with_etag(mut res: HttpResponse, version: i64) -> HttpResponse {
    res.headers_mut().insert(header::ETAG, wire::etag(version));
    res
}

/// 200 with the game and its `ETag`.
pub(super) fn game(game: &GameRecord) -> HttpResponse {
    with_etag(HttpResponse::Ok().json(Game::from(game)), game.version)
}

/// 201 with a new game's seat grant, its `Location` and its `ETag`.
pub(super) fn seat_created(taken: &SeatTaken) -> HttpResponse {
    with_etag(
        HttpResponse::Created()
            .insert_header((header::LOCATION, format!("/v1/games/{}", taken.game.id)))
            .json(SeatGrant::from(taken)),
        taken.game.version,
    )
}

/// The answer to a move as stored for its idempotency key.
pub(super) fn render(played: &Played) -> Result<StoredResponse, ServiceError> {
    let body = serde_json::to_string(&MoveResponse::from(played))
        .map_err(|e| ServiceError::Internal(format!("rendering a move's answer: {e}")))?;
    Ok(StoredResponse {
        status: 201,
        body,
        version: played.game.version,
    })
}

/// 201 with the move, the game and the bot replies; or the stored first
/// answer, marked `Idempotent-Replayed`, with the `ETag` it had.
pub(super) fn played(result: MoveResult) -> HttpResponse {
    match result {
        MoveResult::Played(played) => with_etag(
            HttpResponse::Created().json(MoveResponse::from(played.as_ref())),
            played.game.version,
        ),
        MoveResult::Replayed(stored) => replayed(stored),
    }
}

/// [`played`], or under `Prefer: return=minimal` 204 with the `ETag` and
/// `Preference-Applied`, no body (`Idempotent-Replayed` as in [`played`]).
pub(super) fn played_as(result: MoveResult, prefer: Prefer) -> HttpResponse {
    if !prefer.minimal {
        return played(result);
    }
    let mut res = HttpResponse::NoContent();
    res.insert_header(("Preference-Applied", "return=minimal"));
    let version = match result {
        MoveResult::Played(played) => played.game.version,
        MoveResult::Replayed(stored) => {
            res.insert_header(("Idempotent-Replayed", "true"));
            stored.version
        }
    };
    with_etag(res.finish(), version)
}

/// A stored first answer, marked `Idempotent-Replayed`, with the `ETag` it had.
pub(super) fn replayed(stored: StoredResponse) -> HttpResponse {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::CREATED);
    HttpResponse::build(status)
        .insert_header(("Idempotent-Replayed", "true"))
        .insert_header((header::ETAG, wire::etag(stored.version)))
        .content_type("application/json")
        .body(stored.body)
}
