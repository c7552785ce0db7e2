//! Handlers of the OpenAPI tag `tournaments`: create, list, read, delete,
//! start; enter and leave; standings, rounds, games, the TRF16 file and the
//! tournament's event stream.

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest, HttpResponse, delete, get, post, web};
use futures_util::future::{Ready, ready};
use tokio::sync::{broadcast, mpsc};
use utoipa::IntoParams;
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use super::events::{EventsQuery, last_event_id, stream_response, take_place, wait_for_change};
use super::extract::{Bearer, Body, GameId, NoQuery, Query, page_cursor, page_limit};
use super::reply::with_etag;
use super::responses::{
    BadRequest, BodyErrors, EntrantNotFound, EntryConflict, EntryForbidden, InvalidTournament,
    NoRounds, NotCreator, PlayerUnauthorized, RoundNotFound, StartConflict, StoreErrors,
    StreamUnavailable, TournamentNotFound,
};
use super::wire::{
    CreateTournament, ETag, EmptyBody, EnterTournament, Entrant, Game, GamePage, Round, Standings,
    Tournament, TournamentGamesQuery, TournamentListQuery, TournamentPage,
};
use crate::domain::tournament::{System, TournamentRecord};
use crate::service::{Enter, Service, ServiceError};

type ApiResult = Result<HttpResponse, ApiError>;

/// One event of a tournament's stream, as an `EventSource` (or any SSE
/// parser) sees it: `event: game_end`, `id: 12`,
/// `data: {"type":"game_end","version":12,…}`.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({
    "event": "game_end", "id": "12",
    "data": "{\"round\":1,\"white\":\"0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01\",\"black\":\"0192f0c4-22bb-7c00-8e2e-5b7d0c4e9f02\",\"game\":\"0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a11\",\"result\":\"1-0\",\"type\":\"game_end\",\"version\":12}"
}))]
#[expect(
    dead_code,
    reason = "documents the stream; events are written by the stream's handler"
)]
pub struct TournamentSseEvent {
    /// The type of change, as in `data.type` (`state`: the stream's first
    /// event, whose `data` is the tournament).
    event: TournamentEventType,
    /// The tournament's version after the change: reconnect with `Last-Event-ID` set to it.
    #[schema(pattern = "^[0-9]+$")]
    id: String,
    /// The change as a JSON object with `type` and `version` (for `state`,
    /// the `Tournament`).
    #[schema(content_media_type = "application/json")]
    data: String,
}

/// The type of a tournament's change.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[expect(dead_code, reason = "documents the stream's `event:` lines")]
pub enum TournamentEventType {
    /// The first event of a stream opened without `Last-Event-ID`.
    State,
    /// A player entered (`entrant`, `player`).
    Entrant,
    /// A player withdrew or was withdrawn (`player`).
    Withdrawn,
    Started,
    /// A round paired (`round` and its `pairings`).
    Round,
    /// An arena's game began.
    GameStart,
    /// A game's result (`round`, `white`, `black`, `game`, `result`).
    GameEnd,
    /// The standings changed: read them again.
    Standings,
    Finished,
}

/// The tournament named by the path's `{id}`: a hyphenated UUID, else 404
/// `tournament_not_found`.
#[derive(Clone, Copy, Debug, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TournamentId {
    /// The tournament id (a hyphenated UUID)
    pub id: Uuid,
}

impl FromRequest for TournamentId {
    type Error = ApiError;
    type Future = Ready<Result<TournamentId, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.match_info()
                .get("id")
                .and_then(GameId::parse)
                .map(|id| TournamentId { id })
                .ok_or(ApiError::Service(ServiceError::TournamentNotFound)),
        )
    }
}

/// 200 with the tournament and its `ETag`.
fn tournament(t: &TournamentRecord) -> HttpResponse {
    with_etag(HttpResponse::Ok().json(Tournament::from(t)), t.version)
}

/// Create a tournament (a player's credential: its creator).
///
/// A swiss (`rounds`), a round robin (`double` for each pair twice) or an
/// arena (`duration_ms`), under one `clock` (required). It is `open` for
/// entrants until `starts_at`, or until the creator starts it. A private one
/// answers with its `invite` code, once.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    request_body(content = CreateTournament, content_type = "application/json"),
    responses(
        (status = 201, description = "Created", body = Tournament,
            headers(("Location" = String, description = "The tournament's URL"),
                ("ETag" = ETag, description = "The tournament's version, quoted"))),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        BodyErrors,
        (status = 422, response = InvalidTournament),
        StoreErrors,
    ),
)]
#[post("/tournaments")]
pub async fn create_tournament(
    state: web::Data<AppState>,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: CreateTournament = body.json()?;
    let created = state
        .service
        .create_tournament(bearer.token(), request.into_new()?)
        .await?;
    let t = &created.tournament;
    let mut view = Tournament::from(t);
    view.invite = created.invite;
    Ok(with_etag(
        HttpResponse::Created()
            .insert_header((header::LOCATION, format!("/v1/tournaments/{}", t.id)))
            .json(view),
        t.version,
    ))
}

/// List public tournaments, newest first.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentListQuery),
    responses(
        (status = 200, description = "A page of tournaments, newest first", body = TournamentPage),
        (status = 400, response = BadRequest),
        StoreErrors,
    ),
)]
#[get("/tournaments")]
pub async fn list_tournaments(
    state: web::Data<AppState>,
    query: Query<TournamentListQuery>,
) -> ApiResult {
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let before = page_cursor(query.cursor.as_deref())?;
    let (items, next) = state
        .service
        .tournaments(
            query.status.map(Into::into),
            query.kind.map(Into::into),
            before,
            limit,
        )
        .await?;
    Ok(HttpResponse::Ok().json(TournamentPage {
        items: items.iter().map(Tournament::from).collect(),
        next_cursor: next.map(|n| n.to_string()),
    }))
}

/// Get a tournament.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId),
    responses(
        (status = 200, description = "The tournament now", body = Tournament,
            headers(("ETag" = ETag, description = "The tournament's version, quoted"))),
        (status = 400, response = BadRequest),
        (status = 404, response = TournamentNotFound),
        StoreErrors,
    ),
)]
#[get("/tournaments/{id}")]
pub async fn get_tournament(state: web::Data<AppState>, id: TournamentId, _: NoQuery) -> ApiResult {
    let t = state.service.tournament(id.id).await?;
    Ok(tournament(&t))
}

/// Delete a tournament that has not started (its creator).
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = NotCreator),
        (status = 404, response = TournamentNotFound),
        (status = 409, response = StartConflict),
        StoreErrors,
    ),
)]
#[delete("/tournaments/{id}")]
pub async fn delete_tournament(
    state: web::Data<AppState>,
    id: TournamentId,
    bearer: Bearer,
    _: NoQuery,
) -> ApiResult {
    state
        .service
        .delete_tournament(bearer.token(), id.id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Start a tournament now (its creator), with 2 entrants or more.
///
/// The starting ranks are fixed (rating in the kind, highest first; 1500
/// without one; ties by order of entry) and the first round is paired at
/// once (an arena pairs its entrants).
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId),
    security(("bearer" = [])),
    request_body(content = Option<EmptyBody>, content_type = "application/json", description = "Optional: no body, or `{}`"),
    responses(
        (status = 200, description = "Started", body = Tournament),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = NotCreator),
        (status = 404, response = TournamentNotFound),
        (status = 409, response = StartConflict),
        BodyErrors,
        StoreErrors,
    ),
)]
#[post("/tournaments/{id}/start")]
pub async fn start_tournament(
    state: web::Data<AppState>,
    id: TournamentId,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    body.empty_object()?;
    let t = state
        .service
        .start_tournament(bearer.token(), id.id)
        .await?;
    Ok(tournament(&t))
}

/// Enter a tournament: the caller's player, or (its creator) one of the
/// service's bots by level.
///
/// Open until the start for a round robin; a swiss takes entrants while it
/// runs too (from its next round on, the rounds missed scored 0), and so
/// does an arena. A withdrawn entrant may enter again.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId),
    security(("bearer" = [])),
    request_body(content = Option<EnterTournament>, content_type = "application/json", description = "Optional: no body (the caller enters), `{\"bot\": {\"level\": \"easy\"}}`, or `{\"invite\": \"…\"}` for a private tournament"),
    responses(
        (status = 201, description = "Entered", body = Entrant),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = EntryForbidden),
        (status = 404, response = TournamentNotFound),
        (status = 409, response = EntryConflict),
        BodyErrors,
        (status = 422, response = InvalidTournament),
        StoreErrors,
    ),
)]
#[post("/tournaments/{id}/entrants")]
pub async fn enter_tournament(
    state: web::Data<AppState>,
    id: TournamentId,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: EnterTournament = body.json_or_default()?;
    let who = request
        .bot
        .map_or(Enter::Me, |b| Enter::Bot(b.level.into()));
    let (t, i) = state
        .service
        .enter_tournament(bearer.token(), id.id, who, request.invite)
        .await?;
    Ok(with_etag(
        HttpResponse::Created().json(Entrant::of(&t, i)),
        t.version,
    ))
}

/// Leave a tournament: that player, or the creator.
///
/// Before the start the entrant is removed; after it, withdrawn: never
/// paired again, its results stay, a game in progress goes on.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId, ("player" = String, Path, description = "The entrant's player id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Left (or withdrawn already)"),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 403, response = NotCreator),
        (status = 404, response = EntrantNotFound),
        (status = 409, response = EntryConflict),
        StoreErrors,
    ),
)]
#[delete("/tournaments/{id}/entrants/{player}")]
pub async fn leave_tournament(
    state: web::Data<AppState>,
    id: TournamentId,
    req: HttpRequest,
    bearer: Bearer,
    _: NoQuery,
) -> ApiResult {
    let player = req
        .match_info()
        .get("player")
        .and_then(|p| percent_encoding::percent_decode_str(p).decode_utf8().ok())
        .map(std::borrow::Cow::into_owned)
        .filter(|p| !p.is_empty() && p.len() <= 210)
        .ok_or(ApiError::Service(ServiceError::EntrantNotFound))?;
    state
        .service
        .leave_tournament(bearer.token(), id.id, player)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A tournament's standings, best first.
///
/// Swiss: points, Buchholz Cut-1, Buchholz, Sonneborn-Berger, starting
/// rank; round robin: points, Sonneborn-Berger, wins, starting rank; arena:
/// points, performance, starting rank. Before the start: the entrants, in
/// order of entry.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId),
    responses(
        (status = 200, description = "The standings", body = Standings),
        (status = 400, response = BadRequest),
        (status = 404, response = TournamentNotFound),
        StoreErrors,
    ),
)]
#[get("/tournaments/{id}/standings")]
pub async fn tournament_standings(
    state: web::Data<AppState>,
    id: TournamentId,
    _: NoQuery,
) -> ApiResult {
    let t = state.service.tournament(id.id).await?;
    Ok(with_etag(
        HttpResponse::Ok().json(Standings::of(&t, &t.standings())),
        t.version,
    ))
}

/// A round's pairings and results (swiss and round robin).
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId, ("n" = u32, Path, description = "The round, from 1")),
    responses(
        (status = 200, description = "The round", body = Round),
        (status = 400, response = BadRequest),
        (status = 404, response = RoundNotFound),
        (status = 409, response = NoRounds),
        StoreErrors,
    ),
)]
#[get("/tournaments/{id}/rounds/{n}")]
pub async fn tournament_round(
    state: web::Data<AppState>,
    id: TournamentId,
    req: HttpRequest,
    _: NoQuery,
) -> ApiResult {
    let t = state.service.tournament(id.id).await?;
    if t.system == System::Arena {
        return Err(ServiceError::ArenaHasNoRounds.into());
    }
    let n = req
        .match_info()
        .get("n")
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n >= 1 && n <= t.round)
        .ok_or(ServiceError::RoundNotFound(t.round))?;
    Ok(with_etag(
        HttpResponse::Ok().json(Round::of(&t, n)),
        t.version,
    ))
}

/// A tournament's games, latest paired first (a player's, with `player`).
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId, TournamentGamesQuery),
    responses(
        (status = 200, description = "A page of games", body = GamePage),
        (status = 400, response = BadRequest),
        (status = 404, response = TournamentNotFound),
        StoreErrors,
    ),
)]
#[get("/tournaments/{id}/games")]
pub async fn tournament_games(
    state: web::Data<AppState>,
    id: TournamentId,
    query: Query<TournamentGamesQuery>,
) -> ApiResult {
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let skip = page_cursor(query.cursor.as_deref())?.unwrap_or(0);
    let (games, more) = state
        .service
        .tournament_games(
            id.id,
            query.player.as_deref(),
            usize::try_from(skip).unwrap_or(usize::MAX),
            limit as usize,
        )
        .await?;
    Ok(HttpResponse::Ok().json(GamePage {
        items: games.iter().map(Game::from).collect(),
        next_cursor: more.then(|| (skip + i64::from(limit)).to_string()),
    }))
}

/// The tournament as FIDE's TRF16 (swiss and round robin).
///
/// The `001` line of each entrant in starting-rank order, with its rounds;
/// between rounds the coming round's `0000 - Z` for every withdrawn entrant,
/// so that bbpPairings pairs exactly the entrants the service will.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentId),
    responses(
        (status = 200, description = "The TRF16 file", content_type = "text/plain", body = String,
            example = json!("012 Friday swiss\nXXR 5\nXXC white1\n001    1      Ann                               1500                              1.0          2 w 1\n001    2      Bob                               1500                              0.0          1 b 0\n")),
        (status = 400, response = BadRequest),
        (status = 404, response = TournamentNotFound),
        (status = 409, response = NoRounds),
        StoreErrors,
    ),
)]
#[get("/tournaments/{id}/trf")]
pub async fn tournament_trf(state: web::Data<AppState>, id: TournamentId, _: NoQuery) -> ApiResult {
    let t = state.service.tournament(id.id).await?;
    if t.system == System::Arena {
        return Err(ServiceError::ArenaHasNoRounds.into());
    }
    Ok(with_etag(
        HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, "text/plain; charset=utf-8"))
            .body(t.trf_text()),
        t.version,
    ))
}

/// Follow a tournament: Server-Sent Events, one per change.
///
/// Without `Last-Event-ID` the stream starts with `event: state`, the
/// tournament as `GET` answers it; then `entrant`, `withdrawn`, `started`,
/// `round` (its pairings), `game_start` (an arena's games), `game_end`,
/// `standings` and `finished`, each
/// `id:` the tournament's version after it and each `data:` a JSON object
/// with `type` and `version`. Reconnect with `Last-Event-ID` to receive every
/// change after it, once each and in order.
#[utoipa::path(
    tag = "tournaments",
    params(
        TournamentId,
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]{1,18}$", description = "Resume after this version"),
        EventsQuery,
    ),
    responses(
        (status = 200, description = "An endless `text/event-stream`, one event per change (schema: one event as an SSE parser reads it)", content_type = "text/event-stream", body = TournamentSseEvent),
        (status = 400, response = BadRequest),
        (status = 404, response = TournamentNotFound),
        (status = 503, response = StreamUnavailable),
    ),
)]
#[get("/tournaments/{id}/events")]
pub async fn tournament_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: TournamentId,
    query: Query<EventsQuery>,
) -> ApiResult {
    let id = id.id;
    let header_id = last_event_id(&req)?;
    let changes = state.service.subscribe();
    let t = state.service.tournament(id).await?;
    let resume = header_id.or(query.into_inner().last_event_id);
    let place = take_place(&state, &req)?;
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    // Without a place to resume from, the stream starts from the state.
    let after = resume.unwrap_or_else(|| {
        let json = serde_json::to_string(&Tournament::from(&t)).unwrap_or_default();
        let _ = tx.try_send(Bytes::from(format!(
            "event: state\nid: {}\ndata: {json}\n\n",
            t.version
        )));
        t.version
    });
    tokio::spawn(follow(
        state.service.clone(),
        id,
        after,
        changes,
        tx,
        state.heartbeat,
    ));
    Ok(stream_response(rx, place))
}

/// Sends the changes of tournament `id` after version `last` until the
/// client goes away.
async fn follow(
    service: Service,
    id: Uuid,
    mut last: i64,
    mut changes: broadcast::Receiver<Uuid>,
    tx: mpsc::Sender<Bytes>,
    heartbeat: std::time::Duration,
) {
    loop {
        match service.tournament_changes(id, last).await {
            Ok(list) => {
                for e in &list {
                    let frame =
                        format!("event: {}\nid: {}\ndata: {}\n\n", e.kind, e.version, e.data);
                    if tx.send(Bytes::from(frame)).await.is_err() {
                        return;
                    }
                    last = e.version;
                }
                if list.len() >= 256 {
                    continue;
                }
            }
            Err(e) => {
                tracing::warn!(tournament = %id, error = %e, "event stream stopped");
                return;
            }
        }
        if !wait_for_change(&mut changes, id, &tx, heartbeat).await {
            return;
        }
    }
}
