//! Reusable OpenAPI responses for errors. Each is a problem+json body: the
//! shared [`Problem`] schema (referenced, not copied) narrowed to the `code`s
//! that response can carry, with one example per code as the server sends it.
//!
//! The unit structs exist for the OpenAPI document only: handlers name them in
//! `responses(...)`, and [`super::ApiDoc`] registers them as components. The
//! answers that many routes share are declared once as error sets
//! ([`SeatErrors`], [`BodyErrors`], [`StoreErrors`], [`AdminErrors`]), which a
//! route names beside its own answers.

use std::collections::BTreeMap;

use utoipa::openapi::example::ExampleBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{IntoResponses, ToResponse};

use super::error::ErrorCode;
use super::examples;

/// The media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// The wire name of a code (`game_not_found`).
fn code_name(code: ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A response header the server always sends with this response.
#[derive(Clone, Copy)]
enum With {
    /// `Retry-After: <seconds>`.
    RetryAfter,
    /// `ETag: "<version>"` of the game now.
    ETag,
    /// Every code of this response is answered 401 (`invalid_token`, 403
    /// for a seat, is 401 for a credential that fails to authenticate).
    Unauthorized,
    /// Every code of this response is answered 422 (`same_player`, 409 for
    /// a seat, is 422 for a challenge to oneself).
    Unprocessable,
}

fn problem_response(description: &str, codes: &[ErrorCode], headers: &[With]) -> Response {
    let names: Vec<String> = codes.iter().copied().map(code_name).collect();
    let narrowed = ObjectBuilder::new()
        .schema_type(Type::Object)
        .required("code")
        .property(
            "code",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(names.clone())),
        );
    let schema = AllOfBuilder::new()
        .item(Ref::from_schema_name("Problem"))
        .item(narrowed);
    let content = ContentBuilder::new()
        .schema(Some(schema))
        .examples_from_iter(codes.iter().zip(&names).map(|(&code, name)| {
            let mut value = examples::problem(code);
            if headers.iter().any(|h| matches!(h, With::Unauthorized)) {
                value["status"] = 401.into();
            }
            if code == ErrorCode::SamePlayer
                && headers.iter().any(|h| matches!(h, With::Unprocessable))
            {
                value = examples::challenge_to_oneself();
            }
            let title = value["title"].as_str().unwrap_or_default().to_owned();
            (
                name.clone(),
                ExampleBuilder::new()
                    .summary(format!("{title} (`{name}`)"))
                    .value(Some(value)),
            )
        }))
        .build();
    let mut response = ResponseBuilder::new()
        .description(description)
        .content(PROBLEM_JSON, content);
    for header in headers {
        response = match header {
            With::Unauthorized | With::Unprocessable => response,
            With::RetryAfter => response.header(
                "Retry-After",
                HeaderBuilder::new()
                    .schema(
                        ObjectBuilder::new()
                            .schema_type(Type::Integer)
                            .minimum(Some(0))
                            .examples([1]),
                    )
                    .description(Some("Seconds to wait before retrying"))
                    .build(),
            ),
            With::ETag => response.header(
                "ETag",
                HeaderBuilder::new()
                    .schema(Ref::from_schema_name("ETag"))
                    .description(Some(
                        "The game's current version, quoted: retry with it in `If-Match` once you have looked at `game`",
                    ))
                    .build(),
            ),
        };
    }
    response.build()
}

macro_rules! problem_responses {
    ($($(#[doc = $doc:literal])+ $name:ident: [$($code:ident),+] $(with [$($header:ident),+])?;)+) => {$(
        $(#[doc = $doc])+
        pub struct $name;

        impl<'s> ToResponse<'s> for $name {
            fn response() -> (&'s str, RefOr<Response>) {
                let description = [$($doc.trim()),+].join(" ");
                (
                    stringify!($name),
                    problem_response(
                        &description,
                        &[$(ErrorCode::$code),+],
                        &[$($(With::$header),+)?],
                    )
                    .into(),
                )
            }
        }
    )+};
}

problem_responses! {
    /// `malformed_request`: the body is not JSON or not of the documented shape (unknown
    /// field, wrong type, a move of another kind's shape), or a path, query or header
    /// parameter is invalid. Fix the request; `detail` says what is wrong. Or
    /// `duplicate_header`: a header the service reads (`Authorization`,
    /// `Idempotency-Key`, `If-Match`, `If-None-Match`, `Last-Event-ID`, `Content-Type`)
    /// came more than once.
    BadRequest: [MalformedRequest, DuplicateHeader];
    /// `missing_token`: this operation needs `Authorization: Bearer <token>`.
    Unauthorized: [MissingToken];
    /// `invalid_token`: the token is not a seat of this game.
    Forbidden: [InvalidToken];
    /// `invalid_token`: the token is not a seat of this game; or `assistance_forbidden`:
    /// the round is in progress in a rated game or one created with `assistance`
    /// `forbidden`, and no hint, analysis or bot move reaches it.
    AssistForbidden: [InvalidToken, AssistanceForbidden];
    /// `game_not_found`: no such game (also for an id that is not a hyphenated UUID,
    /// and for a deleted or expired game).
    GameNotFound: [GameNotFound];
    /// `game_not_found`, or `position_not_found`: the round (or, for positions, the ply)
    /// does not exist.
    PositionNotFound: [GameNotFound, PositionNotFound];
    /// The game cannot take this move now: `not_your_turn` (`turn` names the side to
    /// move), `game_over` (the round has ended: restart it), or `waiting_for_opponent`
    /// (a seat is still open).
    MoveConflict: [NotYourTurn, GameOver, WaitingForOpponent];
    /// `no_open_seat`: both seats are taken; or `same_player`: the caller's player
    /// already holds the other seat of this rated game.
    JoinConflict: [NoOpenSeat, SamePlayer];
    /// `waiting_for_opponent`: a round cannot start while a seat is open; or
    /// `agreement_required`: between two people a new round needs both, during the
    /// round and after it: offer a restart (`POST /offers`), or ask for a rematch.
    /// Or `tournament_game`: a tournament's game is never restarted.
    RestartConflict: [WaitingForOpponent, AgreementRequired, TournamentGame];
    /// `agreement_required`: between two people, a game whose round is in progress is
    /// deleted only once it is over (resign, or agree a draw).
    /// Or `tournament_game`: a tournament's game stays.
    DeleteConflict: [AgreementRequired, TournamentGame];
    /// `invalid_invite`: the game is private and the `invite` code is missing or wrong.
    InvalidInvite: [InvalidInvite];
    /// The offer cannot be made now: `game_over` (a takeback or draw after the round),
    /// `round_in_progress` (a rematch before the round is over), `rematch_exists` (a
    /// restart or rematch of a game that has its rematch), `waiting_for_opponent` (a
    /// seat is open), `offer_pending` (one offer at a time: wait for the answer or
    /// withdraw yours) or `nothing_to_take_back` (your seat has not moved in this round).
    /// Or `tournament_game`: no restart or rematch of a tournament's game.
    OfferConflict: [GameOver, RoundInProgress, RematchExists, WaitingForOpponent, OfferPending, NothingToTakeBack, TournamentGame];
    /// `no_offer` (nothing is pending), `not_your_offer` (the other seat answers an
    /// offer; the seat that made it may only withdraw it) or `nothing_to_take_back`.
    AnswerConflict: [NoOffer, NotYourOffer, NothingToTakeBack];
    /// `no_offer` (nothing is pending) or `not_your_offer` (only the seat that made
    /// the offer withdraws it).
    WithdrawConflict: [NoOffer, NotYourOffer];
    /// The round in progress cannot be analyzed for this token: `not_your_turn` (`turn`
    /// names the side to move: only its seat may ask) or `waiting_for_opponent` (a seat
    /// is still open).
    AnalysisConflict: [NotYourTurn, WaitingForOpponent];
    /// `game_over` (the round has already ended) or `waiting_for_opponent` (a seat is
    /// still open).
    ResignConflict: [GameOver, WaitingForOpponent];
    /// `version_mismatch`: `If-Match` names another version. Nothing was changed;
    /// `game` is the game now and `ETag` its version.
    PreconditionFailed: [VersionMismatch] with [ETag];
    /// `payload_too_large`: the body is over the server's limit (4096 bytes by default).
    PayloadTooLarge: [PayloadTooLarge];
    /// `unsupported_media_type`: a body was sent without `Content-Type: application/json`.
    UnsupportedMediaType: [UnsupportedMediaType];
    /// `illegal_move`: the move is not legal in this position; `reason` says why and
    /// `legal_moves` lists the moves that are. Or `idempotency_key_reused`: the
    /// `Idempotency-Key` was first sent with another request (another body, seat or
    /// operation); nothing was played. Send a new key with a new request.
    UnprocessableMove: [IllegalMove, IdempotencyKeyReused];
    /// `invalid_option`: an option is out of range, a combination is not allowed
    /// (`hotseat` with a bot), or the bot level is not available for this kind.
    InvalidOption: [InvalidOption];
    /// `invalid_option`: an option is out of range or not of this kind. Or
    /// `invalid_name`: `name` is not a valid name (see `CreatePlayer`). Or
    /// `idempotency_key_reused`: the `Idempotency-Key` was first sent with another
    /// request (another body or token); nothing was changed. Send a new key with a new
    /// request. Or `clock_required`: a rated quick match needs a `clock`.
    InvalidMatch: [InvalidOption, InvalidName, IdempotencyKeyReused, ClockRequired];
    /// `rematch_exists`: the game has a rematch already (`rematch` is its id); or
    /// `round_in_progress`: the round is not over yet; or `waiting_for_opponent`: a seat
    /// is still open; or `offer_pending`: another offer (a restart) is pending.
    /// Or `tournament_game`: a tournament's game has no rematch.
    RematchConflict: [RematchExists, RoundInProgress, WaitingForOpponent, OfferPending, TournamentGame];
    /// `claim_not_allowed`: no claim is open to this seat now: too early (`claimable_at`
    /// says from when), the caller's side is to move, or the round has a clock (time
    /// decides) or a bot; or `game_over` / `waiting_for_opponent`.
    ClaimConflict: [ClaimNotAllowed, GameOver, WaitingForOpponent];
    /// `invalid_name`: `name` is not a valid name (see `CreatePlayer`). Or
    /// `idempotency_key_reused`: the `Idempotency-Key` was first sent with another name;
    /// nothing was created. Send a new key with a new request.
    InvalidPlayer: [InvalidName, IdempotencyKeyReused];
    /// `invalid_name`: `name` is not a valid name (see `CreatePlayer`). Nothing was
    /// changed.
    InvalidName: [InvalidName];
    /// `storage_unavailable`: the database cannot serve the request now; or `busy`: other
    /// servers kept matching the same kind and options for two seconds. Nothing was
    /// changed; retry after `Retry-After` seconds.
    MatchUnavailable: [StorageUnavailable, Busy] with [RetryAfter];
    /// `invalid_option`: the bot level is not available for this kind. Or
    /// `idempotency_key_reused`: the `Idempotency-Key` was first sent with another
    /// request (another level, seat or operation); nothing was played. Send a new key
    /// with a new request.
    UnprocessableBotMove: [InvalidOption, IdempotencyKeyReused];
    /// `missing_token`: operators' paths need `Authorization: Bearer <admin key>`.
    AdminUnauthorized: [MissingToken];
    /// `invalid_token`: the bearer token is not the server's admin key.
    AdminForbidden: [InvalidToken];
    /// `not_found`: the server runs without `--admin-key` (no operator's path is
    /// served), or `webhook_not_found`: no such webhook.
    WebhookNotFound: [NotFound, WebhookNotFound];
    /// `player_not_found`: no such player.
    PlayerNotFound: [PlayerNotFound];
    /// `not_found`: no such kind.
    KindNotFound: [NotFound];
    /// `player_required`: a rated game needs a player's credential (a key from
    /// `POST /v1/players`, or a sign-in token) as `Authorization: Bearer …`; or
    /// `invalid_token`: the bearer credential is a player key nobody has, or a
    /// sign-in token (JWT) that does not verify (signature, `exp`, `nbf`, issuer,
    /// audience); or `missing_token`: an `Authorization` header not of the form
    /// `Bearer <credential>`.
    PlayerUnauthorized: [PlayerRequired, InvalidToken, MissingToken] with [Unauthorized];
    /// `not_found`: the server runs without `--admin-key`, so no operator's path is served.
    AdminNotFound: [NotFound];
    /// `webhook_url_refused`: the URL is not http(s), or its host resolves to a
    /// loopback, private, link-local or unspecified address (allowed only with
    /// `--webhook-allow-private`); or `invalid_option`: `events` is empty or names an
    /// event that does not exist.
    WebhookRefused: [WebhookUrlRefused, InvalidOption];
    /// `rate_limited`: too many requests from this client; wait `Retry-After` seconds.
    TooManyRequests: [RateLimited] with [RetryAfter];
    /// `internal`: an unexpected error. The body says nothing more; the cause is in the
    /// server's log.
    Internal: [Internal];
    /// `storage_unavailable`: the database cannot serve the request now. Nothing was changed;
    /// retry after `Retry-After` seconds.
    Unavailable: [StorageUnavailable] with [RetryAfter];
    /// `storage_unavailable`: the database cannot serve the request now; or `busy`: the bot
    /// opponent could not answer soon (its replies' queue is full: the move was not
    /// played). Nothing was changed; retry after `Retry-After` seconds.
    MoveUnavailable: [StorageUnavailable, Busy] with [RetryAfter];
    /// `storage_unavailable`: the database cannot serve the request now; or `busy`: the bots
    /// are at capacity, or already thinking about this game, or this client's searches
    /// hold its share (one less than the searches the server runs at once, at least
    /// one). Nothing was changed; retry after `Retry-After` seconds.
    BotUnavailable: [StorageUnavailable, Busy] with [RetryAfter];
    /// `storage_unavailable`: the database cannot be read now; or `busy`: as many event
    /// streams are open as the server holds (`--max-streams`). Retry after `Retry-After`
    /// seconds.
    StreamUnavailable: [StorageUnavailable, Busy] with [RetryAfter];
    /// `busy`: the bots are at capacity, or this client's searches hold its share (one
    /// less than the searches the server runs at once, at least one). Nothing was
    /// changed; retry after `Retry-After` seconds.
    BotUnavailableNoStore: [Busy] with [RetryAfter];
    /// `busy`: too many batches of positions are waiting to be built (they are built a
    /// few at a time, off the threads that serve moves). Nothing was changed; retry
    /// after `Retry-After` seconds.
    BatchUnavailable: [Busy] with [RetryAfter];
    /// `invalid_option` (an option out of range or not of this kind) or `too_many_lines`:
    /// more than 100 lines. Each line's own problem is its item's answer.
    UnprocessableLines: [InvalidOption, TooManyLines];
    /// `tournament_not_found`: no such tournament (also for an id that is not a
    /// hyphenated UUID, and for a deleted one).
    TournamentNotFound: [TournamentNotFound];
    /// `tournament_not_found`, or `entrant_not_found`: the player has not entered it.
    EntrantNotFound: [TournamentNotFound, EntrantNotFound];
    /// `tournament_not_found`, or `round_not_found`: the round has not been paired.
    RoundNotFound: [TournamentNotFound, RoundNotFound];
    /// `no_rounds`: an arena has no rounds (its games start as entrants are free).
    NoRounds: [NoRounds];
    /// `not_creator`: only the tournament's creator may do this.
    NotCreator: [NotCreator];
    /// `not_creator`: only the creator enters the service's bots; or `invalid_invite`:
    /// the tournament is private and `invite` is missing or wrong.
    EntryForbidden: [NotCreator, InvalidInvite];
    /// `tournament_full` (`max_entrants` reached), `already_entered`, or
    /// `entry_closed` (the tournament is over, or a round robin has started).
    EntryConflict: [TournamentFull, AlreadyEntered, EntryClosed];
    /// `tournament_started`: it has started (or ended) already; or
    /// `not_enough_entrants`: a tournament starts with 2 entrants or more.
    StartConflict: [TournamentStarted, NotEnoughEntrants];
    /// `invalid_option` (an option out of range, not of this kind or not of this
    /// system, a bot level the kind has not), `invalid_name`, or `clock_required`: a
    /// tournament needs a `clock`.
    InvalidTournament: [InvalidOption, InvalidName, ClockRequired];
    /// `challenge_not_found`: no such challenge, or not one the caller made or
    /// received (also for an id that is not a hyphenated UUID).
    ChallengeNotFound: [ChallengeNotFound];
    /// `not_your_challenge`: only the challenged accepts or declines, and only the
    /// challenger cancels.
    ChallengeForbidden: [NotYourChallenge];
    /// `challenge_closed`: it was answered, cancelled or has expired; or
    /// `too_many_games`: the accepting bot plays as many games as its `max_games`.
    ChallengeConflict: [ChallengeClosed, TooManyGames];
    /// `challenge_closed`: it was answered, cancelled or has expired.
    ClosedChallenge: [ChallengeClosed];
    /// `invalid_option` (an option out of range or not of this kind, a clock out of
    /// bounds, a rated challenge from a bot), `clock_required` (rated without a
    /// clock) or `same_player` (a challenge to oneself).
    InvalidChallenge: [InvalidOption, ClockRequired, SamePlayer] with [Unprocessable];
    /// `invalid_option` (`max_games` out of 1 to 64, a `move_url` for a person) or
    /// `webhook_url_refused` (a `move_url` that is not http(s), or whose host is a
    /// loopback, private, link-local or unspecified address).
    UnprocessablePlayerUpdate: [InvalidOption, WebhookUrlRefused];
    /// `bot_not_allowed`: a bot's credential; bots do not quick match.
    BotNotAllowed: [BotNotAllowed];
    /// `request_timeout`: the body did not arrive within `--body-timeout-secs` of the
    /// headers (10 s by default); the connection is closed. Send the whole body at once.
    RequestTimeout: [RequestTimeout];
}

/// `invalid_option` (an option out of range or not of this kind, a bot level the kind
/// does not offer, a `work` of 0 or over the limit) or `illegal_move`: the line holds a
/// move that is unreadable or illegal where it stands.
pub struct UnprocessableLine;

impl<'s> ToResponse<'s> for UnprocessableLine {
    fn response() -> (&'s str, RefOr<Response>) {
        let description = "`invalid_option`: an option is out of range or not of this kind, \
            the bot level is not available for this kind, or `work` is 0 or over \
            `--max-analysis-work`. Or `illegal_move`: the line (`moves`) holds a move that is \
            unreadable or illegal where it stands: `index` is its 0-based number, `reason` says \
            why (`unreadable` for text that is not a move of the kind's notation) and \
            `legal_moves` lists the moves that were legal there.";
        let mut response = problem_response(
            description,
            &[ErrorCode::InvalidOption, ErrorCode::IllegalMove],
            &[],
        );
        if let Some(content) = response.content.get_mut(PROBLEM_JSON)
            && let Some(RefOr::T(example)) = content.examples.get_mut("illegal_move")
        {
            example.value = Some(examples::line_problem());
        }
        ("UnprocessableLine", response.into())
    }
}

/// `invalid_option` (an option out of range, a combination not allowed, a bot level the
/// kind does not offer) or `illegal_move`: the set-up line (`moves`) holds a move that is
/// unreadable or illegal where it stands; `index` is its 0-based number, `reason` says why
/// (`unreadable` for text that is not a move of the kind's notation) and `legal_moves`
/// lists the moves that were legal there. Nothing was created.
pub struct UnprocessableCreate;

impl<'s> ToResponse<'s> for UnprocessableCreate {
    fn response() -> (&'s str, RefOr<Response>) {
        let description = "`invalid_option`: an option is out of range, a combination is not \
            allowed (`hotseat` with a bot), or the bot level is not available for this kind. Or \
            `illegal_move`: the set-up line (`moves`) holds a move that is unreadable or illegal \
            where it stands: `index` is its 0-based number, `reason` says why (`unreadable` for \
            text that is not a move of the kind's notation) and `legal_moves` lists the moves \
            that were legal there. Or `clock_required`: a rated game needs a `clock`. Or \
            `invalid_name`: `name` is not a valid name (see `CreatePlayer`). Nothing was \
            created.";
        let mut response = problem_response(
            description,
            &[
                ErrorCode::InvalidOption,
                ErrorCode::IllegalMove,
                ErrorCode::ClockRequired,
                ErrorCode::InvalidName,
            ],
            &[],
        );
        // The illegal move of a create is one of its line, not a played one.
        if let Some(content) = response.content.get_mut(PROBLEM_JSON)
            && let Some(RefOr::T(example)) = content.examples.get_mut("illegal_move")
        {
            example.value = Some(examples::line_problem());
        }
        ("UnprocessableCreate", response.into())
    }
}

/// Declares each error set: a unit struct whose responses are references to
/// the named components, by status.
macro_rules! error_sets {
    ($($(#[doc = $doc:literal])+ $name:ident: [$($status:literal => $response:ident),+];)+) => {$(
        $(#[doc = $doc])+
        pub struct $name;

        impl IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                [$((
                    $status.to_string(),
                    RefOr::Ref(Ref::from_response_name(stringify!($response))),
                )),+]
                .into_iter()
                .collect()
            }
        }
    )+};
}

error_sets! {
    /// A seat's request on a game: a malformed request, no token or a wrong
    /// one, a token of no seat, no such game.
    SeatErrors: [400 => BadRequest, 401 => Unauthorized, 403 => Forbidden, 404 => GameNotFound];
    /// A request with a body: sent too slowly, too large, not JSON.
    BodyErrors: [408 => RequestTimeout, 413 => PayloadTooLarge, 415 => UnsupportedMediaType];
    /// A route that reads or writes the store: an internal error, the
    /// storage unavailable.
    StoreErrors: [500 => Internal, 503 => Unavailable];
    /// The operators' routes: a malformed request, no admin key or a wrong
    /// one.
    AdminErrors: [400 => BadRequest, 401 => AdminUnauthorized, 403 => AdminForbidden];
}
