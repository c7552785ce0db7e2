//! Handlers of the OpenAPI tag `games`: create, list, read, delete, join,
//! restart, rematch, claim and resign (the event stream, also of this tag, is in
//! `events.rs`). Extract, parse, call the service, respond.

use actix_web::{HttpResponse, delete, get, post, web};

use super::AppState;
use super::error::ApiError;
use super::extract::{Bearer, Body, GameId, IfMatch, NoQuery, Query, page_cursor, page_limit};
use super::reply;
use super::responses::{
    BadRequest, BodyErrors, ClaimConflict, DeleteConflict, GameNotFound, InvalidInvite,
    InvalidName, JoinConflict, PlayerUnauthorized, PreconditionFailed, RematchConflict,
    ResignConflict, RestartConflict, SeatErrors, StoreErrors, UnprocessableCreate,
};
use super::wire::{
    ClaimRequest, CreateGame, ETag, EmptyBody, Game, GamePage, GameUrl, JoinGame, ListQuery,
    SeatGrant,
};
use crate::domain::ListFilter;
use crate::service::Rematched;

type ApiResult = Result<HttpResponse, ApiError>;

/// Create a game.
///
/// The caller takes `seat` (default X) and receives its token, shown only
/// here. With a human opponent the other seat stays open until someone joins;
/// with a bot opponent the bot plays its turns itself (a bot holding X opens
/// at once); with `hotseat` one token plays both seats. With `moves` the
/// game starts from that line of moves (a bot to move then replies).
#[utoipa::path(
    tag = "games",
    request_body(content = CreateGame, content_type = "application/json"),
    security((), ("bearer" = [])),
    responses(
        (status = 201, description = "Created: the game, the caller's seat and its token (keep it: it is shown only here)", body = SeatGrant,
            headers(
                ("Location" = GameUrl, description = "The game's URL, `/v1/games/{id}`"),
                ("ETag" = ETag, description = "The game's version, quoted, e.g. `\"1\"`"),
            )),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        BodyErrors,
        (status = 422, response = UnprocessableCreate),
        StoreErrors,
    ),
)]
#[post("/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    _: NoQuery,
    bearer: Bearer,
    body: Body,
) -> ApiResult {
    let request: CreateGame = body.json()?;
    let mut new = request.into_new_game()?;
    new.player = state.service.identify(bearer.token()).await?;
    let taken = state.service.create(new).await?;
    Ok(reply::seat_created(&taken))
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
        StoreErrors,
    ),
)]
#[get("/games")]
pub async fn list_games(state: web::Data<AppState>, query: Query<ListQuery>) -> ApiResult {
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let before = page_cursor(query.cursor.as_deref())?;
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
    params(GameId),
    responses(
        (status = 200, description = "The game now", body = Game,
            headers(("ETag" = ETag, description = "The game's version, quoted: send it back as `If-Match`"))),
        (status = 400, response = BadRequest),
        (status = 404, response = GameNotFound),
        StoreErrors,
    ),
)]
#[get("/games/{id}")]
pub async fn get_game(state: web::Data<AppState>, game: GameId, _: NoQuery) -> ApiResult {
    let game = state.service.game(game.id).await?;
    Ok(reply::game(&game))
}

/// Delete a game with its history (any seat token of the game).
///
/// Followers of its events receive the changes they had not received yet,
/// then `deleted` (at a version of its own, `"reason": "deleted"`); every
/// other operation on it answers 404 `game_not_found` at once. Its history
/// is erased within a few minutes (kept that long only for event streams
/// that resume). Between two people, a game whose round is in progress is
/// deleted only once it is over (resign, or agree a draw): 409
/// `agreement_required`. Games are also deleted by the service itself once
/// they have waited for an opponent, stood finished or stood idle too long
/// (`"reason": "expired"`; see the server's `--expire-*` settings).
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted, with its history; followers of its events receive `deleted`"),
        SeatErrors,
        (status = 409, response = DeleteConflict),
        (status = 412, response = PreconditionFailed),
        StoreErrors,
    ),
)]
#[delete("/games/{id}")]
pub async fn delete_game(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    _: NoQuery,
) -> ApiResult {
    state
        .service
        .delete(game.id, token.token(), if_match.version)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Take the open seat.
///
/// Returns the game, the seat taken and its token (shown only here). The
/// optional `name` is shown in `seats`; a private game needs its `invite`
/// code.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = Option<JoinGame>, content_type = "application/json", description = "Optional: no body, `{}`, or a name and a private game's invite code"),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "Joined: the game, the seat taken and its token (keep it: it is shown only here)", body = SeatGrant,
            headers(("ETag" = ETag, description = "The game's new version, quoted")),
            example = json!(super::examples::join_grant())),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = InvalidInvite),
        (status = 404, response = GameNotFound),
        (status = 409, response = JoinConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        (status = 422, response = InvalidName),
        StoreErrors,
    ),
)]
#[post("/games/{id}/join")]
pub async fn join_game(
    state: web::Data<AppState>,
    game: GameId,
    if_match: IfMatch,
    _: NoQuery,
    bearer: Bearer,
    body: Body,
) -> ApiResult {
    let request: JoinGame = body.json_or_default()?;
    let player = state.service.identify(bearer.token()).await?;
    let taken = state
        .service
        .join(
            game.id,
            if_match.version,
            request.name,
            request.invite,
            player,
        )
        .await?;
    Ok(reply::with_etag(
        HttpResponse::Ok().json(SeatGrant::from(&taken)),
        taken.game.version,
    ))
}

/// Start a new round from the empty board (any seat token).
///
/// Old rounds stay readable with `?round=`. X opens again; a bot holding X
/// plays its first move before the answer.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game in its new round", body = Game,
            headers(("ETag" = ETag, description = "The game's new version, quoted"))),
        SeatErrors,
        (status = 409, response = RestartConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/games/{id}/restart")]
pub async fn restart_game(
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
        .restart(game.id, token.token(), if_match.version)
        .await?;
    Ok(reply::game(&game))
}

/// A rematch: a new game of the same terms, the seats swapped (any seat
/// token, the round over).
///
/// Between two people it is an offer: the first seat's call makes it (202,
/// the game showing `offer` `{"type": "rematch"}`; called again, the offer
/// stands), the other seat's call (or `POST /offers/accept`) accepts it and
/// makes the rematch (201); the other seat may decline it, the offering seat
/// withdraw it, as for every offer. Against a bot and in a hotseat game the
/// rematch is made at once (201).
///
/// The same kind, options, clock, names, players and rating setting; whoever
/// was X is O. Each side's token (or player key) is the one it had, and plays
/// its seat of the new game; against a bot, the bot takes the other seat (and
/// opens if it now holds X). The new game's `rematch_of` names this one, and
/// this one's `rematch` the new one. At most one rematch per game.
#[utoipa::path(
    tag = "games",
    params(GameId),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Made: the new game, the caller's seat in it and its token (the one the caller sent)", body = SeatGrant,
            headers(
                ("Location" = GameUrl, description = "The new game's URL, `/v1/games/{id}`"),
                ("ETag" = ETag, description = "The new game's version, quoted"),
            )),
        (status = 202, description = "Offered to the other seat: this game, showing the offer", body = Game,
            headers(("ETag" = ETag, description = "The game's version, quoted"))),
        SeatErrors,
        BodyErrors,
        (status = 409, response = RematchConflict),
        StoreErrors,
    ),
)]
#[post("/games/{id}/rematch")]
pub async fn rematch_game(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    body.empty_object()?;
    Ok(match state.service.rematch(game.id, token.token()).await? {
        Rematched::Made(taken) => reply::seat_created(&taken),
        Rematched::Offered(game) => reply::with_etag(
            HttpResponse::Accepted().json(Game::from(game.as_ref())),
            game.version,
        ),
    })
}

/// Claim the round: the side to move has been gone too long.
///
/// In a round in progress between two people without a clock, once the side
/// to move has not moved for the claim delay (`--claim-after`, 5 minutes by
/// default; the game's `claimable_at` says from when), the other seat may
/// end it: `win` (the claimant wins) or `draw`. `end_reason` is `abandoned`
/// (`aborted`, unrated, when a side had not moved yet). Earlier, by the side
/// to move, or in a round with a clock (time decides there): 409
/// `claim_not_allowed`, with `claimable_at` when a claim will be open.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = ClaimRequest, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The finished game: `end_reason` `abandoned` (or `aborted`)", body = Game,
            headers(("ETag" = ETag, description = "The game's new version, quoted"))),
        SeatErrors,
        (status = 409, response = ClaimConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/games/{id}/claim")]
pub async fn claim_game(
    state: web::Data<AppState>,
    game: GameId,
    token: Bearer,
    if_match: IfMatch,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: ClaimRequest = body.json()?;
    let game = state
        .service
        .claim(
            game.id,
            token.token(),
            if_match.version,
            request.result.into(),
        )
        .await?;
    Ok(reply::game(&game))
}

/// Resign: the caller's seat gives up the round and the other wins.
///
/// In a hotseat game the side to move resigns.
#[utoipa::path(
    tag = "games",
    params(GameId, IfMatch),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The finished game: `status` `won`, `end_reason` `resignation`", body = Game,
            headers(("ETag" = ETag, description = "The game's new version, quoted"))),
        SeatErrors,
        (status = 409, response = ResignConflict),
        (status = 412, response = PreconditionFailed),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/games/{id}/resign")]
pub async fn resign_game(
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
        .resign(game.id, token.token(), if_match.version)
        .await?;
    Ok(reply::game(&game))
}
