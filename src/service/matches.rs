//! Quick match: a caller asks for a game of some kind and options and is
//! seated at once, in the open seat of the oldest public game waiting for
//! an opponent under those terms, or in a new game that then waits for the
//! next caller.
//!
//! The choice and the write are one write job, so no two callers get the
//! same seat and a caller creates a game only when none waits: on SQLite
//! the writer holds the database's one write lock, and the batch sees the
//! games its earlier jobs created or joined; on PostgreSQL the job's
//! transaction takes the key's advisory lock first, so that instances decide
//! one at a time (see [`WriteTx::oldest_waiting`]). A job that would have to
//! wait for another instance writes nothing and is run again shortly.
//!
//! [`WriteTx::oldest_waiting`]: crate::store::WriteTx::oldest_waiting

use std::time::Duration;

use rand::Rng;
use uuid::Uuid;

use super::writes::{check_clock, new_token};
use super::{Identified, Result, SeatTaken, Service, ServiceError, event, save};
use crate::domain::rating::START;
use crate::domain::{
    EventType, GameClock, GameRecord, RequestHash, Seat, StoredResponse, TimeControl, TokenHash,
    match_key, normalize_name,
};
use crate::rules::{Player, Setup};
use crate::store::{MATCH_KEY_PREFIX, Nearest, Waiting};

/// How long a match that keeps finding another instance deciding under its
/// key is tried again (every few milliseconds) before it answers `Busy`.
const PATIENCE: Duration = Duration::from_secs(2);

/// What one attempt did.
enum Attempt {
    /// Seated: in a waiting game (`true`), or in a new one (`false`).
    Seated(Box<GameRecord>, Player, bool),
    /// The caller's own game still waits: it is theirs again.
    Own(Box<GameRecord>, Player),
    /// A retry with the same `Idempotency-Key`: its first answer.
    Replayed(StoredResponse),
    /// Another instance was deciding: nothing was written.
    Busy,
}

/// The answer to a quick match.
#[derive(Debug)]
pub enum Matched {
    /// Seated now (or, for a caller whose own game still waits, in it again).
    Seated(Box<SeatTaken>),
    /// The stored first answer to a request with the same `Idempotency-Key`.
    Replayed(StoredResponse),
}

/// Renders the answer to a quick match, for its idempotency record.
pub type RenderGrant = fn(&SeatTaken) -> Result<StoredResponse>;

/// Who asks for a quick match, and how to answer a retry.
#[derive(Clone, Debug, Default)]
pub struct MatchRequest {
    /// The caller's name in the game.
    pub name: Option<String>,
    /// A seat token the caller sent: a game of theirs that still waits is
    /// never matched with them, it is given back.
    pub token: Option<String>,
    /// `Idempotency-Key`: a retry gets the first answer.
    pub idempotency_key: Option<String>,
    /// The caller's player, if their credential names one: the seat is
    /// bound to them.
    pub player: Option<Identified>,
    /// Only rated games (the caller needs a player): the waiting game whose
    /// player's rating is nearest, within the match window.
    pub rated: bool,
    /// The clock of the game wanted (a rated one needs one): only games of
    /// the same time control are matched.
    pub clock: Option<TimeControl>,
}

/// What a keyed quick match's token is derived with.
const MATCH_LABEL: &str = "tabula quick match token";

/// The operation of a quick match, in its request's hash.
const MATCH: &str = "match";

impl Service {
    /// Seats the caller, under `name` if given, in the oldest public game
    /// waiting for an opponent of `setup`'s kind and options (the open seat,
    /// whichever it is) that changed within the match wait, or else in a new
    /// game of those terms (seat X) that waits for the next caller. A caller
    /// whose token holds a seat of the game found gets that game back, never
    /// itself as an opponent; a retry with the same `Idempotency-Key` gets
    /// the first answer (the token in it is derived from the key and a
    /// stored salt, so the store never holds the token itself).
    ///
    /// # Errors
    /// `InvalidName`, `IdempotencyKeyReused`, `Busy` when other
    /// instances kept deciding under these terms for `PATIENCE`, store
    /// errors.
    #[tracing::instrument(name = "quick_match", level = "debug", skip_all, fields(game = tracing::field::Empty, joined = tracing::field::Empty))]
    pub async fn quick_match(
        &self,
        setup: Setup,
        request: MatchRequest,
        render: RenderGrant,
    ) -> Result<Matched> {
        let MatchRequest {
            name,
            token: caller,
            idempotency_key,
            player,
            rated,
            clock: control,
        } = request;
        let name = name
            .map(|n| normalize_name(&n).map_err(ServiceError::InvalidName))
            .transpose()?;
        if let Some(control) = control {
            check_clock(control)?;
        }
        if rated && player.is_none() {
            return Err(ServiceError::PlayerRequired);
        }
        if player.as_ref().is_some_and(|p| p.player.bot) {
            return Err(ServiceError::BotNotAllowed);
        }
        if rated && control.is_none() {
            return Err(ServiceError::ClockRequired);
        }
        let key = match_key(setup, control, rated);
        let nearest = rated.then(|| Nearest {
            rating: player
                .as_ref()
                .map_or(START.rating, |p| p.rating(setup.kind()).rating.rating),
            window: self.players.match_window,
        });
        let caller_hash = match &player {
            Some(p) => Some(p.credential),
            None => caller.as_deref().map(TokenHash::of),
        };
        let request = RequestHash::of(
            MATCH,
            &serde_json::json!([key, name]).to_string(),
            &TokenHash::of(caller.as_deref().unwrap_or("")),
        );
        // A keyed request's token is derived from its key and a salt kept
        // in its record, so that a retry can be answered in full.
        let (token, keyed) = match &idempotency_key {
            None => (new_token(), None),
            Some(k) => {
                let salt = new_token();
                (
                    keyed_token(MATCH_LABEL, &salt, k),
                    Some((format!("{MATCH_KEY_PREFIX}{k}"), salt)),
                )
            }
        };
        let hash = TokenHash::of(&token);
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let (first_move_ms, claim_after_ms) = (self.first_move_ms, self.claim_after_ms);
        while tokio::time::Instant::now() < deadline {
            let clock = self.clock.clone();
            let since =
                clock.now() - chrono::Duration::from_std(self.match_wait).unwrap_or_default();
            let (key, name, keyed) = (key.clone(), name.clone(), keyed.clone());
            let player = player.clone();
            let job_token = token.clone();
            let attempt = self
                .write(
                    None,
                    Box::new(move |tx| {
                        Box::pin(async move {
                            let now = clock.now();
                            if let Some((stored_key, _)) = &keyed
                                && let Some((_, record)) = tx.match_idempotent(stored_key).await?
                            {
                                if !record.answers(&request) {
                                    return Err(ServiceError::IdempotencyKeyReused);
                                }
                                return Ok(Attempt::Replayed(record.response));
                            }
                            let (game, seat, joined) = match tx
                                .oldest_waiting(&key, since, caller_hash.as_ref(), nearest)
                                .await?
                            {
                                Waiting::Busy => return Ok(Attempt::Busy),
                                Waiting::Own(game) => {
                                    let seat = caller_hash
                                        .and_then(|h| game.seat_of(&h))
                                        .ok_or(ServiceError::NoOpenSeat)?;
                                    return Ok(Attempt::Own(game, seat));
                                }
                                Waiting::Game(game) => {
                                    let mut game = *game;
                                    let seat = Player::BOTH
                                        .into_iter()
                                        .find(|&p| game.seat(p).is_open())
                                        .ok_or(ServiceError::NoOpenSeat)?;
                                    if rated
                                        && let Some(p) = &player
                                        && game
                                            .players
                                            .seats
                                            .iter()
                                            .flatten()
                                            .any(|sp| sp.id == p.player.id)
                                    {
                                        return Err(ServiceError::SamePlayer);
                                    }
                                    game.seats[seat.index()] = Seat::Human { token: Some(hash) };
                                    game.names[seat.index()] = name;
                                    if let Some(p) = &player {
                                        p.bind(&mut game, seat);
                                    }
                                    game.sync_clock(now);
                                    save(tx, &mut game, now).await?;
                                    if let Some(p) = &player {
                                        p.record(tx, game.id).await?;
                                    }
                                    tx.insert_event(game.id, &event(&game, EventType::Join(seat)));
                                    (game, seat, true)
                                }
                                Waiting::Nothing => {
                                    let mut game = new_waiting_game(setup, hash, name, now);
                                    game.clock = control.map(|c| GameClock::new(c, first_move_ms));
                                    game.claim_after_ms = claim_after_ms;
                                    game.players.rated = rated;
                                    if let Some(p) = &player {
                                        p.bind(&mut game, Player::X);
                                    }
                                    tx.insert_game(&game);
                                    if let Some(p) = &player {
                                        p.record(tx, game.id).await?;
                                    }
                                    tx.insert_event(game.id, &event(&game, EventType::Create));
                                    (game, Player::X, false)
                                }
                            };
                            if let Some((stored_key, salt)) = keyed {
                                let taken = SeatTaken {
                                    game: game.clone(),
                                    seat,
                                    token: job_token.clone(),
                                    invite: None,
                                };
                                let answer = salted(render(&taken)?, &job_token, &salt)?;
                                tx.remember(game.id, &stored_key, &request, &answer);
                            }
                            Ok(Attempt::Seated(Box::new(game), seat, joined))
                        })
                    }),
                )
                .await?;
            match attempt {
                Attempt::Seated(game, seat, joined) => {
                    let span = tracing::Span::current();
                    span.record("game", tracing::field::display(game.id));
                    span.record("joined", joined);
                    self.publish(game.id);
                    return Ok(Matched::Seated(Box::new(SeatTaken {
                        game: *game,
                        seat,
                        token,
                        invite: None,
                    })));
                }
                Attempt::Own(game, seat) => {
                    return Ok(Matched::Seated(Box::new(SeatTaken {
                        game: *game,
                        seat,
                        token: caller.unwrap_or_default(),
                        invite: None,
                    })));
                }
                Attempt::Replayed(stored) => {
                    let key = idempotency_key.as_deref().unwrap_or_default();
                    return Ok(Matched::Replayed(unsalted(stored, key)?));
                }
                Attempt::Busy => {
                    let pause = rand::rng().random_range(2..=12);
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
            }
        }
        Err(ServiceError::Busy(
            "quick match is busy for these terms: other servers kept matching them; retry",
        ))
    }
}

/// The token of a keyed request (`label` says which kind): derived from
/// the client's key and a random salt, so the stored answer holds the salt,
/// not the token.
pub(super) fn keyed_token(label: &str, salt: &str, key: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for part in [label, salt, key] {
        hash.update(part.len().to_le_bytes());
        hash.update(part.as_bytes());
    }
    hex::encode(hash.finalize())
}

/// The answer as stored: its `token` replaced by `salt:<salt>`.
fn salted(mut answer: StoredResponse, token: &str, salt: &str) -> Result<StoredResponse> {
    let mut body: serde_json::Value = serde_json::from_str(&answer.body)
        .map_err(|e| ServiceError::Internal(format!("a quick match's answer: {e}")))?;
    if body["token"] != token {
        return Err(ServiceError::Internal(
            "a quick match's answer has no token".into(),
        ));
    }
    body["token"] = format!("salt:{salt}").into();
    answer.body = body.to_string();
    Ok(answer)
}

/// A stored answer with its token derived again from its salt and `key`.
fn unsalted(mut answer: StoredResponse, key: &str) -> Result<StoredResponse> {
    let mut body: serde_json::Value = serde_json::from_str(&answer.body)
        .map_err(|e| ServiceError::Internal(format!("a stored quick match: {e}")))?;
    let salt = body["token"]
        .as_str()
        .and_then(|t| t.strip_prefix("salt:"))
        .ok_or_else(|| ServiceError::Internal("a stored quick match has no salt".into()))?;
    body["token"] = keyed_token(MATCH_LABEL, salt, key).into();
    answer.body = body.to_string();
    Ok(answer)
}

/// A public game of `setup` between two people, the caller in seat X (its
/// token hashed to `hash`), seat O open.
fn new_waiting_game(
    setup: Setup,
    hash: TokenHash,
    name: Option<String>,
    now: chrono::DateTime<chrono::Utc>,
) -> GameRecord {
    GameRecord {
        id: Uuid::now_v7(),
        seats: [
            Seat::Human { token: Some(hash) },
            Seat::Human { token: None },
        ],
        created_at: now,
        updated_at: now,
        names: [name, None],
        as_of: now,
        ..GameRecord::blank(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::GameStatus;
    use crate::rules::GameKind;

    #[test]
    fn a_new_quick_match_game_waits_under_its_terms() {
        let now = chrono::Utc::now();
        for kind in GameKind::ALL {
            let setup = Setup::default_for(kind);
            let game = new_waiting_game(setup, TokenHash::of("t"), Some("Ada".into()), now);
            assert_eq!(game.outcome().0, GameStatus::Waiting);
            assert_eq!(game.match_key(), Some(match_key(setup, None, false)));
            assert_eq!(game.seat_of(&TokenHash::of("t")), Some(Player::X));
            assert!(game.seat(Player::O).is_open());
        }
    }
}
