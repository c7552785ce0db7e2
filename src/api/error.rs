//! One error enum for the HTTP layer, mapped to RFC 9457 problem details in
//! one place. 5xx bodies are opaque; their cause is logged with its chain.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use super::wire::{self, Game, MoveBody, Side};
use crate::domain::GameRecord;
use crate::rules::Refusal;
use crate::rules::notation::Problem as LineProblem;
use crate::service::ServiceError;
use crate::telemetry::{Failure, error_chain};

/// The stable error code of a problem: branch on it, not on `title` or `detail`.
///
/// Each error response of an operation lists the codes it can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    MalformedRequest,
    MissingToken,
    InvalidToken,
    GameNotFound,
    PositionNotFound,
    NotFound,
    MethodNotAllowed,
    NotYourTurn,
    GameOver,
    WaitingForOpponent,
    NoOpenSeat,
    VersionMismatch,
    PayloadTooLarge,
    UnsupportedMediaType,
    IllegalMove,
    InvalidOption,
    InvalidName,
    IdempotencyKeyReused,
    RateLimited,
    Internal,
    StorageUnavailable,
    Busy,
    RequestTimeout,
    InvalidInvite,
    AgreementRequired,
    OfferPending,
    NoOffer,
    NotYourOffer,
    NothingToTakeBack,
    WebhookUrlRefused,
    WebhookNotFound,
    PlayerRequired,
    SamePlayer,
    PlayerNotFound,
    ClockRequired,
    AssistanceForbidden,
    DuplicateHeader,
    RoundInProgress,
    RematchExists,
    TooManyLines,
    ClaimNotAllowed,
    TournamentNotFound,
    EntrantNotFound,
    NotCreator,
    TournamentFull,
    AlreadyEntered,
    EntryClosed,
    NotEnoughEntrants,
    TournamentStarted,
    TournamentGame,
    NoRounds,
    RoundNotFound,
    ChallengeNotFound,
    NotYourChallenge,
    ChallengeClosed,
    TooManyGames,
    BotNotAllowed,
}

/// Why a move is illegal (`illegal_move` only).
///
/// `occupied`: the cell is taken; `column_full`: the column has no room;
/// `out_of_bounds`: outside the board; `wrong_board`: ultimate, the move must
/// be played in `active_board`; `board_finished`: ultimate, that inner board
/// is already won or drawn; `game_over`: the round has ended;
/// `unreadable`: a set-up line (`moves` at create) holds text that is not a
/// move of the kind's notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Occupied,
    ColumnFull,
    OutOfBounds,
    WrongBoard,
    BoardFinished,
    GameOver,
    Unreadable,
}

impl From<Refusal> for Reason {
    fn from(r: Refusal) -> Reason {
        match r {
            Refusal::Occupied => Reason::Occupied,
            Refusal::ColumnFull => Reason::ColumnFull,
            Refusal::OutOfBounds => Reason::OutOfBounds,
            Refusal::WrongBoard => Reason::WrongBoard,
            Refusal::BoardFinished => Reason::BoardFinished,
            Refusal::GameOver => Reason::GameOver,
        }
    }
}

/// An error, as RFC 9457 problem details (`application/problem+json`) with a
/// stable `code`.
///
/// `reason` and `legal_moves` come with `illegal_move` (and `index` when
/// the move is one of a set-up line), `turn` with `not_your_turn`, and
/// `game` with `version_mismatch`; they are absent otherwise.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "about:blank", "title": "Illegal move", "status": 422, "code": "illegal_move",
    "reason": "column_full", "detail": "column 3 is full",
    "legal_moves": [{"column": 0}, {"column": 1}, {"column": 2}, {"column": 4}, {"column": 5}, {"column": 6}]
}))]
pub struct Problem {
    /// Always `about:blank`: the `code` says what happened.
    #[serde(rename = "type")]
    #[schema(example = "about:blank")]
    pub problem_type: &'static str,
    /// A short summary of the code, e.g. `Illegal move`.
    pub title: &'static str,
    /// The HTTP status, repeated.
    #[schema(minimum = 400, maximum = 599)]
    pub status: u16,
    /// The stable error code to branch on.
    pub code: ErrorCode,
    /// A human-readable explanation of this occurrence (not stable: show it, do not parse it).
    pub detail: String,
    /// `illegal_move` only: why the move is illegal.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<Reason>,
    /// `illegal_move` only: the moves that are legal now (for a set-up
    /// line: where the bad move was tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub legal_moves: Option<Vec<MoveBody>>,
    /// `illegal_move` of a set-up line (`moves` at create) only: the
    /// 0-based number of its first bad move.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, minimum = 0)]
    pub index: Option<u32>,
    /// `not_your_turn` only: whose turn it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub turn: Option<Side>,
    /// `version_mismatch` only: the game as it is now (its `version` is the one to send in `If-Match`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub game: Option<Box<Game>>,
    /// `rematch_exists` only: the id of the game's rematch.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rematch: Option<uuid::Uuid>,
    /// `claim_not_allowed` only, when a claim will be open: from when (RFC 3339).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "wire::stamp::option"
    )]
    #[schema(nullable = false, value_type = Option<String>, format = DateTime)]
    pub claimable_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl Problem {
    /// A problem with only the common fields.
    #[must_use]
    pub fn bare(code: ErrorCode, detail: String) -> Problem {
        let (status, title) = status_and_title(code);
        Problem {
            problem_type: "about:blank",
            title,
            status: status.as_u16(),
            code,
            detail,
            reason: None,
            legal_moves: None,
            index: None,
            turn: None,
            game: None,
            rematch: None,
            claimable_at: None,
        }
    }
}

/// Every kind's API name, quoted: `tic_tac_toe`, `connect_four`, ….
fn kind_names() -> String {
    crate::rules::GameKind::ALL
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An error of the HTTP layer.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    Malformed(String),
    #[error("not found")]
    NotFound,
    /// A kind in the path that is none of the four (answered as `not_found`).
    #[error("no game kind `{0}`: the kinds are {kinds}", kinds = kind_names())]
    KindNotFound(String),
    /// The path exists but not with this method; carries the allowed ones.
    #[error("method not allowed: use {0}")]
    MethodNotAllowed(String),
    #[error("payload too large: the limit is {0} bytes")]
    PayloadTooLarge(usize),
    #[error("the body must be JSON, sent with `Content-Type: application/json`")]
    UnsupportedMediaType,
    /// An `Authorization` header that is not `Bearer <token>` (answered as
    /// `missing_token`: no token was given in the form the API reads).
    #[error(
        "the Authorization header must be `Bearer <token>`, with the token from create or join"
    )]
    BadAuthorization,
    /// `If-Match` with a weak tag (`W/"3"`), which never matches: carries the
    /// game now, as `version_mismatch` does.
    #[error("If-Match compares strongly (RFC 9110): a weak tag (W/) never matches")]
    WeakIfMatch(Box<GameRecord>),
    #[error("too many requests: retry in {0} s")]
    RateLimited(u64),
    /// The body did not arrive within the allowed seconds.
    #[error("the request body did not arrive within {0} s of its headers")]
    BodyTimeout(u64),
    /// An operator's path without `Authorization: Bearer <admin key>`.
    #[error(
        "this operation is for the operator: send `Authorization: Bearer <admin key>` (the server's --admin-key)"
    )]
    AdminKeyMissing,
    /// An operator's path with a key that is not the admin key.
    #[error("the bearer token is not the server's admin key")]
    AdminKeyWrong,
    /// A header the contract reads, sent more than once.
    #[error("the header {0} came more than once: send it once")]
    DuplicateHeader(&'static str),
    /// A batch of positions with more lines than it may hold.
    #[error("{0} lines: a batch holds at most 100")]
    TooManyLines(usize),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

impl ApiError {
    fn code(&self) -> ErrorCode {
        match self {
            ApiError::Malformed(_) => ErrorCode::MalformedRequest,
            ApiError::NotFound | ApiError::KindNotFound(_) => ErrorCode::NotFound,
            ApiError::MethodNotAllowed(_) => ErrorCode::MethodNotAllowed,
            ApiError::PayloadTooLarge(_) => ErrorCode::PayloadTooLarge,
            ApiError::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            ApiError::BadAuthorization | ApiError::AdminKeyMissing => ErrorCode::MissingToken,
            ApiError::WeakIfMatch(_) => ErrorCode::VersionMismatch,
            ApiError::RateLimited(_) => ErrorCode::RateLimited,
            ApiError::BodyTimeout(_) => ErrorCode::RequestTimeout,
            ApiError::AdminKeyWrong => ErrorCode::InvalidToken,
            ApiError::DuplicateHeader(_) => ErrorCode::DuplicateHeader,
            ApiError::TooManyLines(_) => ErrorCode::TooManyLines,
            ApiError::Service(e) => match e {
                ServiceError::TooManyOffers(_) | ServiceError::TooManyPlayers(_) => {
                    ErrorCode::RateLimited
                }
                ServiceError::GameNotFound => ErrorCode::GameNotFound,
                ServiceError::Busy(_) => ErrorCode::Busy,
                ServiceError::PositionNotFound(_) => ErrorCode::PositionNotFound,
                ServiceError::MissingToken => ErrorCode::MissingToken,
                ServiceError::InvalidToken | ServiceError::BadCredential => ErrorCode::InvalidToken,
                ServiceError::NotYourTurn { .. } => ErrorCode::NotYourTurn,
                ServiceError::GameOver => ErrorCode::GameOver,
                ServiceError::WaitingForOpponent => ErrorCode::WaitingForOpponent,
                ServiceError::NoOpenSeat => ErrorCode::NoOpenSeat,
                ServiceError::VersionMismatch(_) => ErrorCode::VersionMismatch,
                ServiceError::Malformed(_) => ErrorCode::MalformedRequest,
                ServiceError::IllegalMove { .. } | ServiceError::IllegalLine(_) => {
                    ErrorCode::IllegalMove
                }
                ServiceError::InvalidOption(_) => ErrorCode::InvalidOption,
                ServiceError::InvalidName(_) => ErrorCode::InvalidName,
                ServiceError::IdempotencyKeyReused => ErrorCode::IdempotencyKeyReused,
                ServiceError::InvalidInvite => ErrorCode::InvalidInvite,
                ServiceError::AgreementRequired => ErrorCode::AgreementRequired,
                ServiceError::OfferPending => ErrorCode::OfferPending,
                ServiceError::NoOffer => ErrorCode::NoOffer,
                ServiceError::NotYourOffer(_) => ErrorCode::NotYourOffer,
                ServiceError::NothingToTakeBack => ErrorCode::NothingToTakeBack,
                ServiceError::WebhookUrlRefused(_) => ErrorCode::WebhookUrlRefused,
                ServiceError::WebhookNotFound => ErrorCode::WebhookNotFound,
                ServiceError::PlayerRequired => ErrorCode::PlayerRequired,
                ServiceError::SamePlayer | ServiceError::ChallengeSelf => ErrorCode::SamePlayer,
                ServiceError::ChallengeNotFound => ErrorCode::ChallengeNotFound,
                ServiceError::NotYourChallenge => ErrorCode::NotYourChallenge,
                ServiceError::ChallengeClosed(_) => ErrorCode::ChallengeClosed,
                ServiceError::TooManyGames => ErrorCode::TooManyGames,
                ServiceError::BotNotAllowed => ErrorCode::BotNotAllowed,
                ServiceError::PlayerNotFound => ErrorCode::PlayerNotFound,
                ServiceError::ClockRequired | ServiceError::TournamentClockRequired => {
                    ErrorCode::ClockRequired
                }
                ServiceError::AssistanceForbidden => ErrorCode::AssistanceForbidden,
                ServiceError::RoundInProgress => ErrorCode::RoundInProgress,
                ServiceError::RematchExists(_) => ErrorCode::RematchExists,
                ServiceError::ClaimNotAllowed(_) => ErrorCode::ClaimNotAllowed,
                ServiceError::TournamentNotFound => ErrorCode::TournamentNotFound,
                ServiceError::EntrantNotFound => ErrorCode::EntrantNotFound,
                ServiceError::NotTournamentCreator => ErrorCode::NotCreator,
                ServiceError::TournamentFull => ErrorCode::TournamentFull,
                ServiceError::AlreadyEntered => ErrorCode::AlreadyEntered,
                ServiceError::EntryClosed => ErrorCode::EntryClosed,
                ServiceError::NotEnoughEntrants => ErrorCode::NotEnoughEntrants,
                ServiceError::TournamentStarted => ErrorCode::TournamentStarted,
                ServiceError::TournamentGame => ErrorCode::TournamentGame,
                ServiceError::ArenaHasNoRounds => ErrorCode::NoRounds,
                ServiceError::RoundNotFound(_) => ErrorCode::RoundNotFound,
                ServiceError::Unavailable(_) => ErrorCode::StorageUnavailable,
                ServiceError::Store(_) | ServiceError::Internal(_) => ErrorCode::Internal,
            },
        }
    }

    /// The problem body.
    #[must_use]
    pub fn problem(&self) -> Problem {
        let mut problem = Problem::bare(self.code(), self.to_string());
        match self {
            ApiError::Service(ServiceError::IllegalMove {
                refusal,
                input,
                legal_moves,
            }) => {
                problem.reason = Some((*refusal).into());
                problem.detail = wire::refusal_detail(*refusal, *input);
                problem.legal_moves = Some(
                    legal_moves
                        .iter()
                        .map(|m| MoveBody::from(m.input()))
                        .collect(),
                );
            }
            ApiError::Service(ServiceError::IllegalLine(e)) => {
                problem.reason = Some(match e.problem {
                    LineProblem::Unreadable => Reason::Unreadable,
                    LineProblem::Refused(r) => r.into(),
                });
                problem.index = Some(u32::try_from(e.index).unwrap_or(u32::MAX));
                problem.legal_moves = Some(
                    e.position
                        .legal_moves()
                        .iter()
                        .map(|m| MoveBody::from(m.input()))
                        .collect(),
                );
            }
            ApiError::Service(ServiceError::NotYourTurn { turn }) => {
                problem.turn = Some((*turn).into());
            }
            ApiError::Service(ServiceError::RematchExists(id)) => {
                problem.rematch = Some(*id);
            }
            ApiError::Service(ServiceError::ClaimNotAllowed(at)) => {
                problem.claimable_at = *at;
            }
            ApiError::Service(ServiceError::VersionMismatch(game)) => {
                problem.detail = format!("the game is at version {}", game.version);
                problem.game = Some(Box::new(Game::from(game.as_ref())));
            }
            ApiError::WeakIfMatch(game) => {
                problem.detail = format!(
                    "If-Match compares strongly (RFC 9110), so a weak tag (W/) never matches: \
                     send the ETag as it came, \"{}\"",
                    game.version
                );
                problem.game = Some(Box::new(Game::from(game.as_ref())));
            }
            ApiError::Service(ServiceError::Unavailable(_)) => {
                "the database cannot serve this request now; retry later. Nothing was changed, \
                 except by a write cut off by a database failover (several PostgreSQL hosts): \
                 retry it with its Idempotency-Key to learn its outcome"
                    .clone_into(&mut problem.detail);
            }
            ApiError::Service(ServiceError::Store(_) | ServiceError::Internal(_)) => {
                "an internal error occurred".clone_into(&mut problem.detail);
            }
            ApiError::Service(ServiceError::BadCredential) => {
                problem.status = StatusCode::UNAUTHORIZED.as_u16();
            }
            ApiError::Service(ServiceError::ChallengeSelf) => {
                problem.status = StatusCode::UNPROCESSABLE_ENTITY.as_u16();
            }
            _ => {}
        }
        problem
    }
}

fn status_and_title(code: ErrorCode) -> (StatusCode, &'static str) {
    match code {
        ErrorCode::MalformedRequest => (StatusCode::BAD_REQUEST, "Malformed request"),
        ErrorCode::MissingToken => (StatusCode::UNAUTHORIZED, "Missing token"),
        ErrorCode::InvalidToken => (StatusCode::FORBIDDEN, "Invalid token"),
        ErrorCode::GameNotFound => (StatusCode::NOT_FOUND, "Game not found"),
        ErrorCode::PositionNotFound => (StatusCode::NOT_FOUND, "Position not found"),
        ErrorCode::NotFound => (StatusCode::NOT_FOUND, "Not found"),
        ErrorCode::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "Method not allowed"),
        ErrorCode::NotYourTurn => (StatusCode::CONFLICT, "Not your turn"),
        ErrorCode::GameOver => (StatusCode::CONFLICT, "Game over"),
        ErrorCode::WaitingForOpponent => (StatusCode::CONFLICT, "Waiting for opponent"),
        ErrorCode::NoOpenSeat => (StatusCode::CONFLICT, "No open seat"),
        ErrorCode::VersionMismatch => (StatusCode::PRECONDITION_FAILED, "Version mismatch"),
        ErrorCode::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "Payload too large"),
        ErrorCode::UnsupportedMediaType => {
            (StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported media type")
        }
        ErrorCode::IllegalMove => (StatusCode::UNPROCESSABLE_ENTITY, "Illegal move"),
        ErrorCode::InvalidOption => (StatusCode::UNPROCESSABLE_ENTITY, "Invalid option"),
        ErrorCode::InvalidName => (StatusCode::UNPROCESSABLE_ENTITY, "Invalid name"),
        ErrorCode::IdempotencyKeyReused => {
            (StatusCode::UNPROCESSABLE_ENTITY, "Idempotency key reused")
        }
        ErrorCode::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "Rate limited"),
        ErrorCode::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "Internal error"),
        ErrorCode::StorageUnavailable => (StatusCode::SERVICE_UNAVAILABLE, "Storage unavailable"),
        ErrorCode::Busy => (StatusCode::SERVICE_UNAVAILABLE, "Busy"),
        ErrorCode::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, "Request timeout"),
        ErrorCode::InvalidInvite => (StatusCode::FORBIDDEN, "Invalid invite"),
        ErrorCode::AgreementRequired => (StatusCode::CONFLICT, "Agreement required"),
        ErrorCode::OfferPending => (StatusCode::CONFLICT, "Offer pending"),
        ErrorCode::NoOffer => (StatusCode::CONFLICT, "No offer"),
        ErrorCode::NotYourOffer => (StatusCode::CONFLICT, "Not your offer"),
        ErrorCode::NothingToTakeBack => (StatusCode::CONFLICT, "Nothing to take back"),
        ErrorCode::WebhookUrlRefused => (StatusCode::UNPROCESSABLE_ENTITY, "Webhook URL refused"),
        ErrorCode::WebhookNotFound => (StatusCode::NOT_FOUND, "Webhook not found"),
        ErrorCode::PlayerRequired => (StatusCode::UNAUTHORIZED, "Player required"),
        ErrorCode::SamePlayer => (StatusCode::CONFLICT, "Same player"),
        ErrorCode::PlayerNotFound => (StatusCode::NOT_FOUND, "Player not found"),
        ErrorCode::ClockRequired => (StatusCode::UNPROCESSABLE_ENTITY, "Clock required"),
        ErrorCode::AssistanceForbidden => (StatusCode::FORBIDDEN, "Assistance forbidden"),
        ErrorCode::DuplicateHeader => (StatusCode::BAD_REQUEST, "Duplicate header"),
        ErrorCode::RoundInProgress => (StatusCode::CONFLICT, "Round in progress"),
        ErrorCode::RematchExists => (StatusCode::CONFLICT, "Rematch exists"),
        ErrorCode::TooManyLines => (StatusCode::UNPROCESSABLE_ENTITY, "Too many lines"),
        ErrorCode::ClaimNotAllowed => (StatusCode::CONFLICT, "Claim not allowed"),
        ErrorCode::TournamentNotFound => (StatusCode::NOT_FOUND, "Tournament not found"),
        ErrorCode::EntrantNotFound => (StatusCode::NOT_FOUND, "Entrant not found"),
        ErrorCode::NotCreator => (StatusCode::FORBIDDEN, "Not the creator"),
        ErrorCode::TournamentFull => (StatusCode::CONFLICT, "Tournament full"),
        ErrorCode::AlreadyEntered => (StatusCode::CONFLICT, "Already entered"),
        ErrorCode::EntryClosed => (StatusCode::CONFLICT, "Entry closed"),
        ErrorCode::NotEnoughEntrants => (StatusCode::CONFLICT, "Not enough entrants"),
        ErrorCode::TournamentStarted => (StatusCode::CONFLICT, "Tournament started"),
        ErrorCode::TournamentGame => (StatusCode::CONFLICT, "Tournament game"),
        ErrorCode::NoRounds => (StatusCode::CONFLICT, "No rounds"),
        ErrorCode::RoundNotFound => (StatusCode::NOT_FOUND, "Round not found"),
        ErrorCode::ChallengeNotFound => (StatusCode::NOT_FOUND, "Challenge not found"),
        ErrorCode::NotYourChallenge => (StatusCode::FORBIDDEN, "Not your challenge"),
        ErrorCode::ChallengeClosed => (StatusCode::CONFLICT, "Challenge closed"),
        ErrorCode::TooManyGames => (StatusCode::CONFLICT, "Too many games"),
        ErrorCode::BotNotAllowed => (StatusCode::FORBIDDEN, "Bot not allowed"),
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        if let ApiError::Service(ServiceError::BadCredential) = self {
            // `invalid_token`, but no seat was tried: the credential itself
            // failed, as an authentication does.
            return StatusCode::UNAUTHORIZED;
        }
        if let ApiError::Service(ServiceError::ChallengeSelf) = self {
            // `same_player`, refused as a request no state could make right.
            return StatusCode::UNPROCESSABLE_ENTITY;
        }
        status_and_title(self.code()).0
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let mut res = HttpResponse::build(status);
        res.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        if status == StatusCode::SERVICE_UNAVAILABLE {
            res.insert_header((header::RETRY_AFTER, HeaderValue::from_static("1")));
        }
        if let ApiError::BodyTimeout(_) = self {
            // The rest of the body may still come: the connection cannot be
            // read for another request.
            res.force_close();
        }
        if let ApiError::RateLimited(secs)
        | ApiError::Service(
            ServiceError::TooManyOffers(secs) | ServiceError::TooManyPlayers(secs),
        ) = self
        {
            res.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        if let ApiError::MethodNotAllowed(allow) = self
            && let Ok(value) = HeaderValue::from_str(allow)
        {
            res.insert_header((header::ALLOW, value));
        }
        if let ApiError::Service(ServiceError::VersionMismatch(game))
        | ApiError::WeakIfMatch(game) = self
        {
            res.insert_header((header::ETAG, wire::etag(game.version)));
        }
        // The content type is set above; `json` answers 500 if this fails.
        let mut res = res.json(self.problem());
        if status.is_server_error() {
            // Logged on the request's one line (`telemetry::observe`), at a
            // level that says whether it was a fault or a refusal for load.
            let fault = !matches!(self, ApiError::Service(ServiceError::Busy(_)));
            res.extensions_mut().insert(Failure {
                cause: error_chain(self),
                fault,
            });
        }
        res
    }
}
