//! Handlers of the OpenAPI tag `players`: create a player, read one and
//! their games, and a kind's leaderboard.

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, patch, post, web};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};
use utoipa::ToSchema;
use uuid::Uuid;

use super::AppState;
use super::client_ip::ClientAddr;
use super::error::ApiError;
use super::events::{EventsQuery, last_event_id, stream_response, take_place, wait_for_change};
use super::extract::{
    Bearer, Body, IdempotencyKey, NoQuery, Query, page_cursor, page_limit, path_kind,
};
use super::responses::{
    BadRequest, BodyErrors, InvalidPlayer, KindNotFound, PlayerNotFound, PlayerUnauthorized,
    StoreErrors, StreamUnavailable, TooManyRequests, UnprocessablePlayerUpdate,
};
use super::wire::{
    BotRows, Challenge, CreatePlayer, Game, GamePage, Kind, Leaderboard, LeaderboardEntry,
    LeaderboardQuery, PlayerBody, PlayerCreated, PlayerGamesQuery, PlayerUpdate,
};
use crate::domain::challenge::ChallengeRecord;
use crate::domain::player::LeaderboardRows;
use crate::rules::Player;
use crate::service::ServiceError;
use crate::service::{PlayerEvent, Service, player_event_kinds};

type ApiResult = Result<HttpResponse, ApiError>;

/// The player id in the path (a UUID, or `ext:<sub>`, URL-encoded); over
/// 210 characters is no player. (actix decodes the path but `%2F`, `%25`
/// and `%2B`, so that a `/` cannot split it: those are decoded here.)
fn player_id(req: &HttpRequest) -> Result<String, ApiError> {
    req.match_info()
        .get("id")
        .and_then(|id| percent_encoding::percent_decode_str(id).decode_utf8().ok())
        .filter(|id| !id.is_empty() && id.len() <= 210)
        .map(std::borrow::Cow::into_owned)
        .ok_or(ApiError::Service(ServiceError::PlayerNotFound))
}

/// Create a player.
///
/// The answer carries the player's key, shown only here (only its hash is
/// stored). Send it as `Authorization: Bearer <key>` when creating, joining
/// or quick matching: the seat is then bound to the player (`seats.X.player`),
/// the key also works as that seat's token, and rated games (`"rated": true`)
/// move the player's rating.
#[utoipa::path(
    tag = "players",
    request_body(content = CreatePlayer, content_type = "application/json"),
    responses(
        (status = 201, description = "Created: the player and their key (keep it: it is shown only here). A retry with the same `Idempotency-Key` from the same client gets the same player and key, with `Idempotent-Replayed: true`", body = PlayerCreated,
            headers(("Location" = String, description = "The player's URL"),
                ("Idempotent-Replayed" = bool, description = "Present (`true`) when this answers an earlier request with the same key"))),
        (status = 400, response = BadRequest),
        BodyErrors,
        (status = 422, response = InvalidPlayer),
        (status = 429, response = TooManyRequests),
        StoreErrors,
    ),
)]
#[post("/players")]
pub async fn create_player(
    state: web::Data<AppState>,
    _: NoQuery,
    client: ClientAddr,
    key: IdempotencyKey,
    body: Body,
) -> ApiResult {
    let request: CreatePlayer = body.json()?;
    let created = state
        .service
        .create_player(request.name, request.bot, client.0, key.key)
        .await?;
    let mut answer = HttpResponse::Created();
    answer.insert_header((
        actix_web::http::header::LOCATION,
        format!(
            "/v1/players/{}",
            percent_encoding::utf8_percent_encode(&created.view.player.id, PATH_SEGMENT)
        ),
    ));
    if created.replayed {
        answer.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(answer.json(PlayerCreated {
        player: PlayerBody::from(&created.view),
        key: created.key,
    }))
}

/// What a player id escapes in a path: all but unreserved characters and
/// the `:` of `ext:` (RFC 3986).
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':');

/// Get a player.
///
/// Their name and their rating in each kind they have played rated.
#[utoipa::path(
    tag = "players",
    params(("id" = String, Path, description = "The player's id: a UUID, or `ext:<sub>` for a player known by the operator's sign-in")),
    responses(
        (status = 200, description = "The player", body = PlayerBody),
        (status = 400, response = BadRequest),
        (status = 404, response = PlayerNotFound),
        StoreErrors,
    ),
)]
#[get("/players/{id}")]
pub async fn get_player(state: web::Data<AppState>, req: HttpRequest, _: NoQuery) -> ApiResult {
    let id = player_id(&req)?;
    let player = state.service.player(&id).await?;
    Ok(HttpResponse::Ok().json(PlayerBody::from(&player)))
}

/// The caller's player.
///
/// The player the `Authorization` credential names (a player's key, or a
/// sign-in token): how a client that holds only a key learns whose it is,
/// e.g. to sign in with it. A seat token names no player.
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's player", body = PlayerBody),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        StoreErrors,
    ),
)]
#[get("/players/me")]
pub async fn get_me(state: web::Data<AppState>, bearer: Bearer, _: NoQuery) -> ApiResult {
    let player = state.service.me(bearer.token()).await?;
    Ok(HttpResponse::Ok().json(own(&state, &player, None).await?))
}

/// The caller's own player as `/v1/players/me` shows it: with a webhook
/// bot's move URL, and the secret when it was just made.
async fn own(
    state: &AppState,
    player: &crate::domain::player::PlayerView,
    secret: Option<String>,
) -> Result<PlayerBody, ApiError> {
    let mut body = PlayerBody::from(player);
    body.move_url = state
        .service
        .bot_hook(&player.player.id)
        .await?
        .map(|h| h.url);
    body.move_secret = secret;
    Ok(body)
}

/// Change the caller's player: `max_games` (how many games in progress a
/// bot takes on; a challenge past it is declined `too_many_games`), and a
/// bot's `move_url` (a webhook bot: the service asks it for its moves; the
/// answer shows its signing secret, once).
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    request_body(content = PlayerUpdate, content_type = "application/json"),
    responses(
        (status = 200, description = "The caller's player, changed", body = PlayerBody),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        BodyErrors,
        (status = 422, response = UnprocessablePlayerUpdate),
        StoreErrors,
    ),
)]
#[patch("/players/me")]
pub async fn patch_me(
    state: web::Data<AppState>,
    bearer: Bearer,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let request: PlayerUpdate = body.json()?;
    let (player, secret) = state
        .service
        .update_me(bearer.token(), request.max_games, request.move_url)
        .await?;
    Ok(HttpResponse::Ok().json(own(&state, &player, secret).await?))
}

/// One event of a player's stream, as an `EventSource` (or any SSE parser)
/// sees it: `event: challenge`, `id: 7`, `data: {"type":"challenge","seq":7,…}`.
#[derive(ToSchema)]
#[schema(example = json!({
    "event": "game_start", "id": "7",
    "data": "{\"game\":\"0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a11\",\"seat\":\"O\",\"type\":\"game_start\",\"seq\":7}"
}))]
#[expect(
    dead_code,
    reason = "documents the stream; events are written by the stream's handler"
)]
pub struct PlayerSseEvent {
    /// The type of the event, as in `data.type`.
    event: PlayerEventType,
    /// The number of the player's event: reconnect with `Last-Event-ID` set
    /// to it. The events a stream opens with carry the number of the last
    /// event so far.
    #[schema(pattern = "^[0-9]+$")]
    id: String,
    /// The event as a JSON object with `type` and `seq`; `challenge*` events
    /// hold the `challenge`, `game_*` events `game` and `seat`.
    #[schema(content_media_type = "application/json")]
    data: String,
}

/// The type of a player's event.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[expect(dead_code, reason = "documents the stream's `event:` lines")]
pub enum PlayerEventType {
    /// A challenge received (`challenge`).
    Challenge,
    /// A challenge received was cancelled by its challenger (`challenge`).
    ChallengeCancelled,
    /// A challenge made was declined (`challenge`, with its `reason`).
    ChallengeDeclined,
    /// A game began with the player seated (`game`, `seat`).
    GameStart,
    /// A round of the player's ended (`game`, `seat`, `result`: `won`,
    /// `lost`, `draw` or `aborted`).
    GameFinish,
    /// A tournament paired the player (`tournament`, `round`, `game`: null
    /// for a bye).
    TournamentPaired,
}

/// The caller's own event stream (a player's key or sign-in token).
///
/// Opened without `Last-Event-ID`, it starts with a `game_start` for each
/// game in progress the player holds a seat of and a `challenge` for each
/// challenge waiting for their answer; then `challenge`,
/// `challenge_cancelled`, `challenge_declined`, `game_start`, `game_finish`
/// and `tournament_paired` as they happen, each `id:` the player's event
/// number. A `: keep-alive` comment comes every 15 s while idle.
/// Reconnect with `Last-Event-ID` to receive every event after it, once each
/// and in order. A bot plays each game through the game's own stream and
/// moves.
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    params(
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]{1,18}$", description = "Resume after this event"),
        EventsQuery,
    ),
    responses(
        (status = 200, description = "An endless `text/event-stream`, one event per change (schema: one event as an SSE parser reads it)", content_type = "text/event-stream", body = PlayerSseEvent),
        (status = 400, response = BadRequest),
        (status = 401, response = PlayerUnauthorized),
        (status = 503, response = StreamUnavailable),
    ),
)]
#[get("/players/me/events")]
pub async fn my_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    bearer: Bearer,
    query: Query<EventsQuery>,
) -> ApiResult {
    let header_id = last_event_id(&req)?;
    let changes = state.service.subscribe();
    let (player, head) = state.service.player_stream(bearer.token()).await?;
    let resume = header_id.or(query.into_inner().last_event_id);
    let place = take_place(&state, &req)?;
    let (tx, rx) = mpsc::channel::<Bytes>(256);
    // Without a place to resume from, the stream starts from what stands:
    // games in progress, challenges waiting.
    let after = if let Some(after) = resume {
        after
    } else {
        let (games, pending) = state.service.player_snapshot(&player).await?;
        for game in &games {
            let seat = [Player::X, Player::O]
                .into_iter()
                .find(|&s| game.players.of(s).is_some_and(|p| p.id == player));
            let Some(seat) = seat else { continue };
            let data = json!({"game": game.id, "seat": seat.to_string()});
            let _ = tx.try_send(frame(player_event_kinds::GAME_START, head, data));
        }
        for c in &pending {
            let data = json!({"challenge": Challenge::from(c)});
            let _ = tx.try_send(frame(player_event_kinds::CHALLENGE, head, data));
        }
        head
    };
    tokio::spawn(follow_player(
        state.service.clone(),
        player,
        after,
        changes,
        tx,
        state.heartbeat,
    ));
    Ok(stream_response(rx, place))
}

/// One SSE frame of a player's stream: `data` with `type` and `seq` added.
fn frame(kind: &str, seq: i64, mut data: Value) -> Bytes {
    if let Value::Object(map) = &mut data {
        map.insert("type".into(), kind.into());
        map.insert("seq".into(), seq.into());
    }
    Bytes::from(format!("event: {kind}\nid: {seq}\ndata: {data}\n\n"))
}

/// A stored event as its frame: a challenge's record rendered as the API
/// shows challenges, other events as stored.
fn render(e: &PlayerEvent) -> Bytes {
    let data = if e.kind.starts_with("challenge") {
        serde_json::from_str::<ChallengeRecord>(&e.data)
            .map_or(Value::Null, |c| json!({"challenge": Challenge::from(&c)}))
    } else {
        serde_json::from_str(&e.data).unwrap_or(Value::Null)
    };
    frame(&e.kind, e.seq, data)
}

/// Sends `player`'s events after number `last` until the client goes away.
async fn follow_player(
    service: Service,
    player: String,
    mut last: i64,
    mut changes: broadcast::Receiver<Uuid>,
    tx: mpsc::Sender<Bytes>,
    heartbeat: std::time::Duration,
) {
    let id = crate::service::player_stream_id(&player);
    loop {
        match service.player_events(&player, last).await {
            Ok(list) => {
                for e in &list {
                    if tx.send(render(e)).await.is_err() {
                        return;
                    }
                    last = e.seq;
                }
                if list.len() >= 100 {
                    continue;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "a player's event stream stopped");
                return;
            }
        }
        if !wait_for_change(&mut changes, id, &tx, heartbeat).await {
            return;
        }
    }
}

/// A player's games, newest first.
///
/// The public games in which the player holds a seat (private ones are not
/// listed); page with `cursor`.
#[utoipa::path(
    tag = "players",
    params(("id" = String, Path, description = "The player's id"), PlayerGamesQuery),
    responses(
        (status = 200, description = "A page of the player's games, newest first", body = GamePage),
        (status = 400, response = BadRequest),
        (status = 404, response = PlayerNotFound),
        StoreErrors,
    ),
)]
#[get("/players/{id}/games")]
pub async fn player_games(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<PlayerGamesQuery>,
) -> ApiResult {
    let id = player_id(&req)?;
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let before = page_cursor(query.cursor.as_deref())?;
    let (games, next) = state.service.player_games(&id, before, limit).await?;
    Ok(HttpResponse::Ok().json(GamePage {
        items: games.iter().map(Game::from).collect(),
        next_cursor: next.map(|n| n.to_string()),
    }))
}

/// A kind's leaderboard.
///
/// The players of the kind whose rating is not provisional (deviation at
/// most 110), best first; with `provisional=true`, the provisional players
/// after them (each row says which it is), best first.
#[utoipa::path(
    tag = "players",
    params(("kind" = Kind, Path, description = "The kind"), LeaderboardQuery),
    responses(
        (status = 200, description = "The leaderboard, best first", body = Leaderboard),
        (status = 400, response = BadRequest),
        (status = 404, response = KindNotFound),
        StoreErrors,
    ),
)]
#[get("/kinds/{kind}/leaderboard")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<LeaderboardQuery>,
) -> ApiResult {
    let kind = path_kind(&req)?;
    let query = query.into_inner();
    let limit = page_limit(query.limit)?;
    let ranked = state
        .service
        .leaderboard(
            kind.into(),
            limit,
            LeaderboardRows {
                provisional: query.provisional.unwrap_or(false),
                bots: query.bots != Some(BotRows::Exclude),
            },
        )
        .await?;
    Ok(HttpResponse::Ok().json(Leaderboard {
        items: ranked.iter().map(LeaderboardEntry::from).collect(),
    }))
}
