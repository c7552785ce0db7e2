//! Success answers the handlers share: a game with its `ETag`, a move's
//! answer (fresh or replayed for an `Idempotency-Key`), and the stored form
//! of a move's answer.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, HttpResponseBuilder, ResponseError as _};

use super::error::ApiError;
use super::extract::Prefer;
use super::rendered::RenderedGames;
use super::wire::{self, Game, MoveResponse};
use crate::domain::{GameRecord, StoredResponse};
use crate::service::{MoveResult, Played, ServiceError};

/// `res` with `ETag: "<version>"`.
pub(super) fn with_etag(mut res: HttpResponse, version: i64) -> HttpResponse {
    res.headers_mut().insert(header::ETAG, wire::etag(version));
    res
}

/// 200 with the game and its `ETag`.
pub(super) fn game(game: &GameRecord) -> HttpResponse {
    let view = Game::from(game);
    with_etag(
        written(HttpResponse::Ok(), |body| view.write_json(body)),
        game.version,
    )
}

thread_local! {
    /// The length of the last answer this thread wrote, to size the next.
    static LAST_LENGTH: std::cell::Cell<usize> = const { std::cell::Cell::new(1024) };
}

/// `res` with `value` as its JSON body, as `HttpResponseBuilder::json`
/// does, written into a buffer sized after the thread's last answer rather
/// than one that doubles as it fills (a 25x25 Gomoku game is ~12 KB: a
/// dozen copies of what was written so far).
fn json(res: HttpResponseBuilder, value: &impl serde::Serialize) -> HttpResponse {
    written(res, |body| serde_json::to_writer(body, value))
}

/// `res` with the JSON body `write` makes (sized as [`json`] sizes it).
fn written(
    mut res: HttpResponseBuilder,
    write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
) -> HttpResponse {
    let mut body = Vec::with_capacity(LAST_LENGTH.get() + LAST_LENGTH.get() / 8);
    match write(&mut body) {
        Ok(()) => {
            LAST_LENGTH.set(body.len());
            res.content_type(actix_web::http::header::ContentType::json())
                .body(body)
        }
        Err(e) => ApiError::from(ServiceError::Internal(format!("writing an answer: {e}")))
            .error_response(),
    }
}

/// A move's answer as `MoveResponse` serialises, its game through
/// [`Game::write_json`].
fn move_answer(body: &mut Vec<u8>, answer: &MoveResponse) -> serde_json::Result<()> {
    body.extend_from_slice(b"{\"move\":");
    serde_json::to_writer(&mut *body, &answer.mv)?;
    body.extend_from_slice(b",\"game\":");
    answer.game.write_json(body)?;
    body.extend_from_slice(b",\"replies\":");
    serde_json::to_writer(&mut *body, &answer.replies)?;
    body.push(b'}');
    Ok(())
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
/// answer, marked `Idempotent-Replayed`, with the `ETag` it had. The game
/// is the one its webhook event rendered, when there is one and no bot
/// replied (see `rendered.rs`).
pub(super) fn played(result: MoveResult, rendered: &RenderedGames) -> HttpResponse {
    match result {
        MoveResult::Played(played) => {
            let res = if let Some(game) = rendered
                .take(&played.game)
                .filter(|_| played.replies.is_empty())
            {
                json(
                    HttpResponse::Created(),
                    &RenderedMove {
                        mv: (&played.mv).into(),
                        game: &game,
                        replies: [],
                    },
                )
            } else {
                let answer = MoveResponse::from(played.as_ref());
                written(HttpResponse::Created(), |body| move_answer(body, &answer))
            };
            with_etag(res, played.game.version)
        }
        MoveResult::Replayed(stored) => replayed(stored),
    }
}

/// A move's answer as [`MoveResponse`] writes it, with its game already
/// rendered (and no bot reply).
#[derive(serde::Serialize)]
struct RenderedMove<'a> {
    #[serde(rename = "move")]
    mv: wire::MoveRecordView,
    game: &'a serde_json::value::RawValue,
    replies: [wire::MoveRecordView; 0],
}

/// [`played`], or under `Prefer: return=minimal` 204 with the `ETag` and
/// `Preference-Applied`, no body (`Idempotent-Replayed` as in [`played`]).
pub(super) fn played_as(
    result: MoveResult,
    prefer: Prefer,
    rendered: &RenderedGames,
) -> HttpResponse {
    if !prefer.minimal {
        return played(result, rendered);
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
