//! Examples for the OpenAPI document, made by the code that makes real
//! answers: a Connect Four game between two people, played through the rule
//! engine and rendered by the wire types and [`ApiError::problem`]. An example
//! cannot show a field, a shape or an error message the server does not send.

use chrono::{DateTime, TimeZone, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::error::{ApiError, ErrorCode, Problem};
use super::wire::{
    self, AnalysisView, BotLevel, EvaluationView, Game, GamePage, HintView, KindList, MoveBody,
    MoveList, MoveRecordView, MoveResponse, NotationView, Position, PositionItem, PositionList,
    ProvenOutcome, SeatGrant,
};
use crate::domain::{GameRecord, Level, MoveRecord, Seat, TokenHash};
use crate::rules::{
    AnyGame, GameKind, GomokuOptions, GomokuRule, MoveInput, MoveParseError, Player, Setup,
    notation,
};
use crate::service::{
    Analysis, Evaluation, MoveAnalysis, Outcome, Played, RoundNotation, ScoredMove, SeatTaken,
    ServiceError,
};

/// The example game's id.
const ID: Uuid = Uuid::from_u128(0x3f0c_8a56_7a4e_4f7e_9d55_2b8f_0c1d_9e10);
/// The token shown in the examples (64 hex digits, like a real one).
pub const TOKEN: &str = "9f2c4e0b7d3a51c8e6f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3";

fn at(second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, second)
        .single()
        .unwrap_or_default()
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A Connect Four game created by X (version 1), joined by O (version 2),
/// after `columns` were played in turn (one version each), with the records
/// of those moves.
pub(super) fn connect_four(columns: &[i64], joined: bool) -> (GameRecord, Vec<MoveRecord>) {
    let mut position = AnyGame::new(Setup::default_for(GameKind::ConnectFour));
    let mut version = if joined { 2 } else { 1 };
    let mut moves = Vec::new();
    for (second, &column) in (5..).zip(columns) {
        let player = position.to_move();
        if let Ok(mv) = position.play_input(MoveInput::Column { column }) {
            version += 1;
            moves.push(MoveRecord {
                round: 1,
                ply: position.ply(),
                version,
                player,
                mv: mv.input(),
                at: at(second),
            });
        }
    }
    let o_token = joined.then(|| TokenHash::of("o"));
    let game = GameRecord {
        id: ID,
        position,
        seats: [
            Seat::Human {
                token: Some(TokenHash::of(TOKEN)),
            },
            Seat::Human { token: o_token },
        ],
        hotseat: false,
        round: 1,
        ending: None,
        version,
        derived: false,
        created_at: at(0),
        updated_at: moves.last().map_or(at(0), |m| m.at),
        names: [Some("Ann".into()), joined.then(|| "Bob".into())],
        private: false,
        invite: None,
        offer: None,
        clock: None,
        as_of: moves.last().map_or(at(0), |m| m.at),
        players: crate::domain::player::Players::default(),
        ..GameRecord::blank(Setup::default_for(GameKind::ConnectFour))
    };
    (game, moves)
}

/// X has played the centre column; O is to move.
fn after_first_move() -> (GameRecord, Vec<MoveRecord>) {
    connect_four(&[3], true)
}

/// A game in progress.
#[must_use]
pub fn game() -> Value {
    to_value(&Game::from(&after_first_move().0))
}

/// A `move.played` webhook event's body.
#[must_use]
pub fn webhook_event() -> Value {
    use crate::service::EventRender as _;
    let (game, moves) = after_first_move();
    let at = moves.last().map_or(game.updated_at, |m| m.at);
    let body = super::EventData.body(
        crate::domain::webhook::WebhookEvent::MovePlayed,
        at,
        &game,
        moves.last(),
    );
    serde_json::from_str(&body).unwrap_or(Value::Null)
}

/// A webhook bot's move request: O to answer X's first move.
#[must_use]
pub fn move_requested() -> Value {
    use crate::service::MoveRequests as _;
    let (game, moves) = after_first_move();
    let mut line = crate::rules::notation::Line::empty(game.position.setup());
    for m in &moves {
        if let Ok(mv) = line.position().parse_move(m.mv) {
            let _ = line.play(mv);
        }
    }
    let deadline = game.deadline().unwrap_or(game.updated_at);
    let body = super::MoveRequestBody.body(&game, Player::O, &line, deadline);
    serde_json::from_str(&body).unwrap_or(Value::Null)
}

/// The answer to create: X's seat and token; O's seat is open.
#[must_use]
pub fn seat_grant() -> Value {
    let taken = SeatTaken {
        game: connect_four(&[], false).0,
        seat: Player::X,
        token: TOKEN.into(),
        invite: None,
    };
    to_value(&SeatGrant::from(&taken))
}

/// The answer to join: O's seat and token.
#[must_use]
pub fn join_grant() -> Value {
    let taken = SeatTaken {
        game: connect_four(&[], true).0,
        seat: Player::O,
        token: TOKEN.into(),
        invite: None,
    };
    to_value(&SeatGrant::from(&taken))
}

/// The answer to X's first move.
#[must_use]
pub fn move_response() -> Value {
    let (game, mut moves) = after_first_move();
    let Some(mv) = moves.pop() else {
        return Value::Null;
    };
    to_value(&MoveResponse::from(&Played {
        mv,
        game,
        replies: Vec::new(),
    }))
}

/// One move record.
#[must_use]
pub fn move_record() -> Value {
    let (_, moves) = after_first_move();
    moves
        .first()
        .map_or(Value::Null, |m| to_value(&MoveRecordView::from(m)))
}

/// A round's history.
#[must_use]
pub fn move_list() -> Value {
    let (_, moves) = connect_four(&[3, 3, 4], true);
    to_value(&MoveList {
        items: moves.iter().map(MoveRecordView::from).collect(),
    })
}

/// A page of games with a next page.
#[must_use]
pub fn game_page() -> Value {
    to_value(&GamePage {
        items: vec![Game::from(&after_first_move().0)],
        next_cursor: Some("41".into()),
    })
}

/// The kinds, as served.
#[must_use]
pub fn kind_list() -> Value {
    to_value(&KindList::all())
}

/// A hint that finds a win in one.
#[must_use]
pub fn hint() -> Value {
    to_value(&HintView {
        mv: MoveBody::from(MoveInput::Column { column: 3 }),
        level: BotLevel::Easy,
        evaluation: EvaluationView {
            score: 1000,
            outcome: Some(ProvenOutcome::Win),
            plies: Some(1),
        },
    })
}

/// The notation of a round of four moves, in progress.
#[must_use]
pub fn notation() -> Value {
    let (game, moves) = connect_four(&[3, 3, 4, 2], true);
    let setup = game.position.setup();
    let mut position = AnyGame::new(setup);
    let played: Vec<_> = moves
        .iter()
        .filter_map(|m| position.play_input(m.mv).ok())
        .collect();
    to_value(&NotationView::from(&RoundNotation {
        setup,
        round: game.round,
        moves: notation::format_line(setup, &played),
        result: None,
    }))
}

/// The analysis at `easy` of the tic-tac-toe position `1425` (X holds the
/// two left cells of the top row, O the two left cells of the middle row;
/// X to move): the top row's last cell wins at once, the middle row's last
/// cell blocks O, any other move lets O win. `tests/api/notation.rs` checks
/// that the server answers exactly this.
#[must_use]
pub fn analysis() -> Value {
    let Ok(line) = notation::parse_line(Setup::TicTacToe, "1425") else {
        return Value::Null;
    };
    let evaluation = |index: i64| match index {
        2 => Evaluation::proven(Outcome::Win, 1),
        5 => Evaluation::heuristic(0),
        _ => Evaluation::proven(Outcome::Loss, 2),
    };
    let moves = line
        .position()
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let index = match mv.input() {
                MoveInput::Cell { row, col } => row * 3 + col,
                _ => -1,
            };
            ScoredMove {
                mv,
                evaluation: evaluation(index),
            }
        })
        .collect();
    to_value(&AnalysisView::from(&MoveAnalysis {
        analysis: Analysis {
            moves,
            exact: false,
            stopped_on_time: false,
        },
        level: Level::Easy,
    }))
}

/// The event sent when O answers in the centre column.
#[must_use]
pub fn move_event() -> Value {
    let (game, moves) = connect_four(&[3, 3], true);
    json!({
        "type": "move",
        "version": game.version,
        "move": moves.last().map(MoveRecordView::from),
        "game": Game::from(&game),
    })
}

/// An illegal move: column 3 of a game whose column 3 is full.
fn illegal_move() -> ApiError {
    let (game, _) = connect_four(&[3, 3, 3, 3, 3, 3], true);
    let input = MoveInput::Column { column: 3 };
    let mut position = game.position.clone();
    match position.play_input(input) {
        Err(MoveParseError::Refused(refusal)) => ServiceError::IllegalMove {
            refusal,
            input,
            legal_moves: game.position.legal_moves(),
        }
        .into(),
        _ => ApiError::Malformed("unreachable example".into()),
    }
}

/// An illegal move of a set-up line: the seventh disc in column 4.
#[must_use]
pub fn line_problem() -> Value {
    match notation::parse_line(Setup::ConnectFour, "4444444") {
        Err(e) => to_value(&ApiError::from(ServiceError::IllegalLine(Box::new(e))).problem()),
        Ok(_) => Value::Null,
    }
}

/// A batch of positions: a line read, and one refused at its seventh move.
#[must_use]
pub fn position_list() -> Value {
    let items = ["4453", "4444444"]
        .iter()
        .map(
            |text| match crate::service::rules::position(Setup::ConnectFour, text) {
                Ok(line) => PositionItem::Position(Box::new(Position::from(&line))),
                Err(e) => PositionItem::Problem(Box::new(ApiError::from(e).problem())),
            },
        )
        .collect();
    to_value(&PositionList { items })
}

/// A line's analysis: tic-tac-toe's `1425`, as [`analysis`] evaluates it.
#[must_use]
pub fn line_analysis() -> Value {
    let Ok(line) = notation::parse_line(Setup::TicTacToe, "1425") else {
        return Value::Null;
    };
    let mut value = json!({"position": to_value(&Position::from(&line))});
    if let (Some(out), Value::Object(fields)) = (value.as_object_mut(), analysis()) {
        out.extend(fields);
        out.insert("stopped_on_time".into(), false.into());
    }
    value
}

/// The problem body of a challenge to oneself (`same_player`, 422).
#[must_use]
pub fn challenge_to_oneself() -> Value {
    to_value(&ApiError::from(ServiceError::ChallengeSelf).problem())
}

/// The problem body the server sends for `code`, from a typical cause.
#[must_use]
pub fn problem(code: ErrorCode) -> Value {
    let error: ApiError = match code {
        ErrorCode::MalformedRequest => ApiError::Malformed(
            serde_json::from_value(json!({"column": "3"}))
                .ok()
                .and_then(|fields| wire::parse_move(&fields).err())
                .map(|bad| bad.detail(GameKind::ConnectFour))
                .unwrap_or_default(),
        ),
        ErrorCode::MissingToken => ServiceError::MissingToken.into(),
        ErrorCode::InvalidToken => ServiceError::InvalidToken.into(),
        ErrorCode::GameNotFound => ServiceError::GameNotFound.into(),
        ErrorCode::PositionNotFound => ServiceError::PositionNotFound(
            "no position after move 12: round 1 has 9 moves (positions 0 to 9)".into(),
        )
        .into(),
        ErrorCode::NotFound => ApiError::NotFound,
        ErrorCode::MethodNotAllowed => ApiError::MethodNotAllowed("GET, DELETE".into()),
        ErrorCode::NotYourTurn => ServiceError::NotYourTurn { turn: Player::O }.into(),
        ErrorCode::GameOver => ServiceError::GameOver.into(),
        ErrorCode::WaitingForOpponent => ServiceError::WaitingForOpponent.into(),
        ErrorCode::NoOpenSeat => ServiceError::NoOpenSeat.into(),
        ErrorCode::VersionMismatch => {
            ServiceError::VersionMismatch(Box::new(after_first_move().0)).into()
        }
        ErrorCode::PayloadTooLarge => ApiError::PayloadTooLarge(4096),
        ErrorCode::UnsupportedMediaType => ApiError::UnsupportedMediaType,
        ErrorCode::IllegalMove => illegal_move(),
        ErrorCode::InvalidName => ServiceError::InvalidName(
            crate::domain::normalize_name("Fаrm")
                .err()
                .unwrap_or_default(),
        )
        .into(),
        ErrorCode::InvalidOption => ServiceError::InvalidOption(
            GomokuOptions::new(30, GomokuRule::Freestyle)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
        )
        .into(),
        ErrorCode::IdempotencyKeyReused => ServiceError::IdempotencyKeyReused.into(),
        ErrorCode::RateLimited => {
            return to_value(&Problem::bare(
                code,
                "too many requests: retry after the number of seconds in Retry-After".into(),
            ));
        }
        ErrorCode::Internal => ServiceError::Internal("example".into()).into(),
        ErrorCode::Busy => ServiceError::Busy("the bots are at capacity; retry in a moment").into(),
        ErrorCode::RequestTimeout => ApiError::BodyTimeout(10),
        ErrorCode::InvalidInvite => ServiceError::InvalidInvite.into(),
        ErrorCode::AgreementRequired => ServiceError::AgreementRequired.into(),
        ErrorCode::OfferPending => ServiceError::OfferPending.into(),
        ErrorCode::NoOffer => ServiceError::NoOffer.into(),
        ErrorCode::NotYourOffer => ServiceError::NotYourOffer(
            "you made this offer: the other seat answers it (or withdraw it with DELETE)",
        )
        .into(),
        ErrorCode::NothingToTakeBack => ServiceError::NothingToTakeBack.into(),
        ErrorCode::WebhookUrlRefused => ServiceError::WebhookUrlRefused(
            "backend.internal resolves to 10.0.0.7, which is not a global unicast address".into(),
        )
        .into(),
        ErrorCode::WebhookNotFound => ServiceError::WebhookNotFound.into(),
        ErrorCode::PlayerRequired => ServiceError::PlayerRequired.into(),
        ErrorCode::SamePlayer => ServiceError::SamePlayer.into(),
        ErrorCode::PlayerNotFound => ServiceError::PlayerNotFound.into(),
        ErrorCode::ClockRequired => ServiceError::ClockRequired.into(),
        ErrorCode::AssistanceForbidden => ServiceError::AssistanceForbidden.into(),
        ErrorCode::DuplicateHeader => ApiError::DuplicateHeader("authorization"),
        ErrorCode::RoundInProgress => ServiceError::RoundInProgress.into(),
        ErrorCode::TournamentNotFound => ServiceError::TournamentNotFound.into(),
        ErrorCode::EntrantNotFound => ServiceError::EntrantNotFound.into(),
        ErrorCode::NotCreator => ServiceError::NotTournamentCreator.into(),
        ErrorCode::TournamentFull => ServiceError::TournamentFull.into(),
        ErrorCode::AlreadyEntered => ServiceError::AlreadyEntered.into(),
        ErrorCode::EntryClosed => ServiceError::EntryClosed.into(),
        ErrorCode::NotEnoughEntrants => ServiceError::NotEnoughEntrants.into(),
        ErrorCode::TournamentStarted => ServiceError::TournamentStarted.into(),
        ErrorCode::TournamentGame => ServiceError::TournamentGame.into(),
        ErrorCode::NoRounds => ServiceError::ArenaHasNoRounds.into(),
        ErrorCode::RoundNotFound => ServiceError::RoundNotFound(3).into(),
        ErrorCode::ChallengeNotFound => ServiceError::ChallengeNotFound.into(),
        ErrorCode::NotYourChallenge => ServiceError::NotYourChallenge.into(),
        ErrorCode::ChallengeClosed => ServiceError::ChallengeClosed("expired").into(),
        ErrorCode::TooManyGames => ServiceError::TooManyGames.into(),
        ErrorCode::BotNotAllowed => ServiceError::BotNotAllowed.into(),
        ErrorCode::RematchExists => ServiceError::RematchExists(uuid::Uuid::from_u128(
            0x0193_0f6e_1c2a_7b3c_9d4e_5f60_7182_93a4,
        ))
        .into(),
        ErrorCode::TooManyLines => ApiError::TooManyLines(120),
        ErrorCode::ClaimNotAllowed => ServiceError::ClaimNotAllowed(Some(at(300))).into(),
        ErrorCode::StorageUnavailable => {
            ServiceError::Unavailable("the disk is full".into()).into()
        }
    };
    to_value(&error.problem())
}
