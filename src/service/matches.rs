//! Quick match: a caller asks for a game of some kind and options and is
//! seated at once, in the open seat of the oldest public game waiting for
//! an opponent under those terms, or in a new game that then waits for the
//! next caller.
//!
//! The choice and the write are one job of the store's writer, so no two
//! callers get the same seat and a caller creates a game only when none
//! waits: on SQLite the writer holds the database's one write lock, and the
//! batch sees the games its earlier jobs created or joined; on PostgreSQL
//! the batch takes the key's advisory lock first, so that instances decide
//! one at a time (see [`WriteTx::oldest_waiting`]). A job that would have to
//! wait for another instance writes nothing and is run again shortly.
//!
//! [`WriteTx::oldest_waiting`]: crate::store::WriteTx::oldest_waiting

use std::time::Duration;

use rand::Rng;
use uuid::Uuid;

use super::writes::new_token;
use super::{Result, SeatTaken, Service, ServiceError, event, save};
use crate::domain::{EventType, GameRecord, Seat, TokenHash, check_name, match_key};
use crate::rules::{AnyGame, Player, Setup};
use crate::store::Waiting;

/// How long a match that keeps finding another instance deciding under its
/// key is tried again (every few milliseconds) before it answers `Busy`.
const PATIENCE: Duration = Duration::from_secs(2);

/// What one attempt did.
enum Attempt {
    /// Seated: in a waiting game (`true`), or in a new one (`false`).
    Seated(Box<GameRecord>, Player, bool),
    /// Another instance was deciding: nothing was written.
    Busy,
}

impl Service {
    /// Seats the caller, under `name` if given, in the oldest public game
    /// waiting for an opponent of `setup`'s kind and options (the open seat,
    /// whichever it is), or else in a new game of those terms (seat X) that
    /// waits for the next caller.
    ///
    /// # Errors
    /// `InvalidOption` (the name), `Busy` when other instances kept deciding
    /// under these terms for [`PATIENCE`], store errors.
    #[tracing::instrument(name = "quick_match", skip_all, fields(game = tracing::field::Empty, joined = tracing::field::Empty))]
    pub async fn quick_match(&self, setup: Setup, name: Option<String>) -> Result<SeatTaken> {
        if let Some(name) = &name {
            check_name(name).map_err(ServiceError::InvalidOption)?;
        }
        let key = match_key(setup);
        let token = new_token();
        let hash = TokenHash::of(&token);
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while tokio::time::Instant::now() < deadline {
            let clock = self.clock.clone();
            let (key, name) = (key.clone(), name.clone());
            let attempt = self
                .write(
                    None,
                    Box::new(move |tx| {
                        Box::pin(async move {
                            let now = clock.now();
                            match tx.oldest_waiting(&key).await? {
                                Waiting::Busy => Ok(Attempt::Busy),
                                Waiting::Game(game) => {
                                    let mut game = *game;
                                    let seat = Player::BOTH
                                        .into_iter()
                                        .find(|&p| game.seat(p).is_open())
                                        .ok_or(ServiceError::NoOpenSeat)?;
                                    game.seats[seat.index()] = Seat::Human { token: Some(hash) };
                                    game.names[seat.index()] = name;
                                    game.sync_clock(now);
                                    save(tx, &mut game, now).await?;
                                    tx.insert_event(game.id, &event(&game, EventType::Join(seat)))
                                        .await?;
                                    Ok(Attempt::Seated(Box::new(game), seat, true))
                                }
                                Waiting::Nothing => {
                                    let game = new_waiting_game(setup, hash, name, now);
                                    tx.insert_game(&game).await?;
                                    tx.insert_event(game.id, &event(&game, EventType::Create))
                                        .await?;
                                    Ok(Attempt::Seated(Box::new(game), Player::X, false))
                                }
                            }
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
                    return Ok(SeatTaken {
                        game: *game,
                        seat,
                        token,
                        invite: None,
                    });
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
        position: AnyGame::new(setup),
        seats: [
            Seat::Human { token: Some(hash) },
            Seat::Human { token: None },
        ],
        hotseat: false,
        round: 1,
        ending: None,
        version: 1,
        created_at: now,
        updated_at: now,
        names: [name, None],
        private: false,
        invite: None,
        offer: None,
        clock: None,
        as_of: now,
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
            assert_eq!(game.match_key(), Some(match_key(setup)));
            assert_eq!(game.seat_of(&TokenHash::of("t")), Some(Player::X));
            assert!(game.seat(Player::O).is_open());
        }
    }
}
