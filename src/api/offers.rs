//! Handlers of offers between the two seats (OpenAPI tag `games`): make one
//! (takeback, draw, restart), accept or decline it (the other seat), or
//! withdraw it (the seat that made it).

use actix_web::{HttpResponse, delete, post, web};

use super::AppState;
use super::error::ApiError;
use super::extract::{Bearer, Body, GameId, IfMatch, NoQuery};
use super::reply;
use super::responses::{
    AnswerConflict, BodyErrors, OfferConflict, PreconditionFailed, SeatErrors, StoreErrors,
    WithdrawConflict,
};
use super::wire::{EmptyBody, Game, OfferRequest, SeatGrant};

type ApiResult = Result<HttpResponse, ApiError>;

/// Offer the other seat a takeback, a draw, a restart or a rematch.
///
/// The game then shows the offer until the other seat accepts or declines
/// it, the offering seat withdraws it, or a move lets it lapse; one offer at
/// a time. `takeback`: on accept, your last move and any reply after it
/// leave the round, and you are to move again. `draw`: the round ends drawn
/// (`end_reason` `agreement`). `restart`: a new round begins (during the
/// round or after it; between two people a new round is only ever agreed).
/// `rematch` (after the round): as `POST /rematch`, a new game of the same
/// terms with the seats swapped; answered with this game. A bot answers
/// at once (it takes back and restarts; it agrees a draw only when its own
/// search finds the position drawn or lost for it), and in a hotseat game
/// the offer is carried out at once (a takeback there undoes the last move).
/// Between two people a seat may make 5 offers in a row, then one every 6 s
/// (each is an event to the other): past that, 429 `rate_limited` with
/// `Retry-After`, nothing changed.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = OfferRequest, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Offered (or, against a bot or in a hotseat game, already answered): the game", body = Game,
            headers(("ETag" = super::wire::ETag, description = "The game's new version, quoted"))),
        SeatErrors,
        (status = 409, response = OfferConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/games/{id}/offers")]
pub async fn make_offer(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: OfferRequest = body.json()?;
    let game = state
        .service
        .offer(
            game.id,
            token.token(),
            if_match.version,
            request.offer_type.into(),
        )
        .await?;
    Ok(reply::with_etag(
        HttpResponse::Created().json(Game::from(&game)),
        game.version,
    ))
}

/// Accept the other seat's offer: it is carried out.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Accepted and carried out: the game", body = Game,
            headers(("ETag" = super::wire::ETag, description = "The game's new version, quoted"))),
        (status = 201, description = "A rematch accepted: the new game, the caller's seat in it and its token (the one the caller sent), as `POST /rematch` answers", body = SeatGrant,
            headers(
                ("Location" = super::wire::GameUrl, description = "The new game's URL, `/v1/games/{id}`"),
                ("ETag" = super::wire::ETag, description = "The new game's version, quoted"),
            )),
        SeatErrors,
        (status = 409, response = AnswerConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/games/{id}/offers/accept")]
pub async fn accept_offer(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    body.empty_object()?;
    let accepted = state
        .service
        .accept_offer(game.id, token.token(), if_match.version)
        .await?;
    Ok(match &accepted.rematch {
        Some(taken) => reply::seat_created(taken),
        None => reply::game(&accepted.game),
    })
}

/// Decline the other seat's offer.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Declined: the game, without the offer", body = Game,
            headers(("ETag" = super::wire::ETag, description = "The game's new version, quoted"))),
        SeatErrors,
        (status = 409, response = WithdrawConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/games/{id}/offers/decline")]
pub async fn decline_offer(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    body.empty_object()?;
    let game = state
        .service
        .decline_offer(game.id, token.token(), if_match.version)
        .await?;
    Ok(reply::game(&game))
}

/// Withdraw your own pending offer.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Withdrawn: the game, without the offer", body = Game,
            headers(("ETag" = super::wire::ETag, description = "The game's new version, quoted"))),
        SeatErrors,
        (status = 409, response = WithdrawConflict),
        (status = 412, response = PreconditionFailed),
        StoreErrors,
    ),
)]
#[delete("/games/{id}/offers")]
pub async fn withdraw_offer(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    _: NoQuery,
) -> ApiResult {
    let game = state
        .service
        .withdraw_offer(game.id, token.token(), if_match.version)
        .await?;
    Ok(reply::game(&game))
}
