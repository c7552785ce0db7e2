//! Offers between the two seats: takeback, draw, restart. One is pending at
//! a time; the other seat accepts or declines it, the offering seat may
//! withdraw it, and a move lets it lapse. A bot answers at once (it takes
//! back and restarts; it agrees a draw only when its own search finds the
//! position drawn or lost for it); in a hotseat game an offer is applied at
//! once. Each step is one job of the writer, recorded as an event.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::writes::{check_rematch, make_rematch, new_round};
use super::{
    Accepted, Rematched, Result, SeatTaken, Service, ServiceError, check_playable, check_version,
    event, load_seat, save,
};
use crate::ai::{Level, Outcome};
use crate::domain::{EventType, GameRecord, Offer, OfferKind, Seat};
use crate::rules::{AnyGame, Player};
use crate::store::WriteTx;

/// How often an offer to a bot is tried again when the game changed
/// while the bot was thinking about it.
const BOT_ANSWER_TRIES: usize = 3;

impl Service {
    /// Offers a takeback, a draw or a restart to the other seat.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `GameOver`,
    /// `WaitingForOpponent`, `OfferPending`, `NothingToTakeBack`, store errors.
    #[tracing::instrument(name = "offer", level = "debug", skip_all, fields(game = %id, offer = kind.as_str()))]
    pub async fn offer(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
        kind: OfferKind,
    ) -> Result<GameRecord> {
        if kind == OfferKind::Rematch {
            return match self.rematch(id, token).await? {
                Rematched::Offered(game) => Ok(*game),
                Rematched::Made(_) => self.game(id).await,
            };
        }
        let token = self.seat_credential(token)?;
        let mut tries = 0;
        let mut game = loop {
            // A bot's answer is thought out before the write, on the game
            // as read now; the write checks that it has not changed since.
            let seen = self.game(id).await?;
            // Who may ask is checked before a bot thinks (the write checks
            // again, with the rest).
            let seat = seen.seat_of(&token).ok_or(ServiceError::InvalidToken)?;
            // Between two people each offer is an event to the other: a
            // seat may make a few in a row, then one every few seconds.
            if tries == 0 && !seen.hotseat && bot_seat(&seen).is_none() {
                self.offer_limiter.check(id, seat)?;
            }
            if bot_seat(&seen).is_some() {
                check_version(&seen, if_match)?;
                check_offerable(&seen, kind)?;
                if seen.offer.is_some() {
                    return Err(ServiceError::OfferPending);
                }
            }
            let answer = match bot_seat(&seen) {
                Some((bot, level, seed)) if kind == OfferKind::Draw => {
                    Some(self.bot_takes_draw(&seen, bot, level, seed).await?)
                }
                Some(_) => Some(true),
                None => None,
            };
            let clock = self.clock.clone();
            let expected = answer.map(|_| seen.version);
            let done = self
                .write(
                    Some(id),
                    Box::new(move |tx| {
                        Box::pin(async move {
                            let now = clock.now();
                            let (mut game, seat) = load_seat(tx, id, &token, if_match, now).await?;
                            if expected.is_some_and(|v| v != game.version) {
                                return Ok(None);
                            }
                            check_offerable(&game, kind)?;
                            if game.offer.is_some() {
                                return Err(ServiceError::OfferPending);
                            }
                            if kind == OfferKind::Takeback {
                                takeback_line(tx, &game, taker(&game, seat)).await?;
                            }
                            if game.hotseat {
                                let by = taker(&game, seat);
                                settle_offer(tx, &mut game, kind, by, now).await?;
                                return Ok(Some(game));
                            }
                            game.offer = Some(Offer {
                                kind,
                                by: seat,
                                at: now,
                            });
                            save(tx, &mut game, now).await?;
                            tx.insert_event(id, &event(&game, EventType::Offer(kind, seat)));
                            match answer {
                                Some(true) => {
                                    settle_offer(tx, &mut game, kind, seat, now).await?;
                                }
                                Some(false) => {
                                    game.offer = None;
                                    save(tx, &mut game, now).await?;
                                    let declined = EventType::OfferDeclined(kind, seat.other());
                                    tx.insert_event(id, &event(&game, declined));
                                }
                                None => {}
                            }
                            Ok(Some(game))
                        })
                    }),
                )
                .await?;
            if let Some(game) = done {
                break game;
            }
            tries += 1;
            if tries >= BOT_ANSWER_TRIES {
                return Err(ServiceError::Busy(
                    "the bot was moving while it considered the offer; retry",
                ));
            }
        };
        self.publish(id);
        if kind == OfferKind::Restart {
            self.bot_replies(&mut game, None).await?;
        }
        Ok(game)
    }

    /// The other seat accepts the pending offer: it is carried out.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `NoOffer`,
    /// `NotYourOffer`, `NothingToTakeBack`, store errors.
    #[tracing::instrument(name = "accept_offer", level = "debug", skip_all, fields(game = %id))]
    pub async fn accept_offer(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<Accepted> {
        let credential = self.seat_credential(token)?;
        let clock = self.clock.clone();
        let (mut game, kind, rematch) = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let (mut game, seat) =
                            load_seat(tx, id, &credential, if_match, now).await?;
                        let offer = answerable(&game, seat)?;
                        let rematch =
                            settle_offer(tx, &mut game, offer.kind, offer.by, now).await?;
                        Ok((game, offer.kind, rematch.map(|new| (new, seat.other()))))
                    })
                }),
            )
            .await?;
        self.publish(id);
        if kind == OfferKind::Restart {
            self.bot_replies(&mut game, None).await?;
        }
        let rematch = rematch.map(|(new, seat)| {
            self.publish(new.id);
            SeatTaken {
                game: new,
                seat,
                token: token.unwrap_or_default().to_owned(),
                invite: None,
            }
        });
        Ok(Accepted { game, rematch })
    }

    /// The other seat declines the pending offer.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `NoOffer`,
    /// `NotYourOffer`, store errors.
    #[tracing::instrument(name = "decline_offer", level = "debug", skip_all, fields(game = %id))]
    pub async fn decline_offer(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        self.seat_change(id, token, if_match, |game, seat, _| {
            let offer = answerable(game, seat)?;
            game.offer = None;
            Ok(EventType::OfferDeclined(offer.kind, seat))
        })
        .await
    }

    /// The offering seat withdraws its offer.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `NoOffer`,
    /// `NotYourOffer`, store errors.
    #[tracing::instrument(name = "withdraw_offer", level = "debug", skip_all, fields(game = %id))]
    pub async fn withdraw_offer(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        self.seat_change(id, token, if_match, |game, seat, _| {
            let offer = game.offer.ok_or(ServiceError::NoOffer)?;
            if offer.by != seat {
                return Err(ServiceError::NotYourOffer(
                    "the pending offer is the other seat's: accept or decline it",
                ));
            }
            game.offer = None;
            Ok(EventType::OfferWithdrawn(offer.kind, seat))
        })
        .await
    }

    /// Whether the bot holding `bot` agrees a draw: only when its own
    /// search finds the position drawn or lost for it.
    async fn bot_takes_draw(
        &self,
        game: &GameRecord,
        bot: Player,
        level: Level,
        seed: u64,
    ) -> Result<bool> {
        if game.is_over() || game.has_open_seat() {
            // Refused in the write, with the right code.
            return Ok(false);
        }
        // A search a client asked for: it queues as hints do (one per game).
        let suggestion = self.think_for_client(game, level, seed, None).await?;
        let eval = suggestion.evaluation;
        // The evaluation is the side to move's.
        let for_bot = if game.position.to_move() == bot {
            eval.proven.map(|(o, _)| o)
        } else {
            eval.proven.map(|(o, _)| match o {
                Outcome::Win => Outcome::Loss,
                Outcome::Loss => Outcome::Win,
                Outcome::Draw => Outcome::Draw,
            })
        };
        let score = if game.position.to_move() == bot {
            eval.score
        } else {
            -eval.score
        };
        Ok(match for_bot {
            Some(outcome) => outcome != Outcome::Win,
            None => score < 0,
        })
    }
}

/// The bot seat of a game, with its level and seed, if one is a bot.
fn bot_seat(game: &GameRecord) -> Option<(Player, Level, u64)> {
    Player::BOTH.into_iter().find_map(|p| match *game.seat(p) {
        Seat::Bot { level, seed } => Some((p, level, seed)),
        Seat::Human { .. } => None,
    })
}

/// Whose moves a takeback by `seat` takes back: in a hotseat game (one
/// token holds both seats) the side that moved last, else the seat's own.
fn taker(game: &GameRecord, seat: Player) -> Player {
    if game.hotseat {
        game.position.to_move().other()
    } else {
        seat
    }
}

/// The pending offer, which `seat` may answer (it is the other seat's).
fn answerable(game: &GameRecord, seat: Player) -> Result<Offer> {
    let offer = game.offer.ok_or(ServiceError::NoOffer)?;
    if offer.by == seat {
        return Err(ServiceError::NotYourOffer(
            "you made this offer: the other seat answers it (or withdraw it with DELETE)",
        ));
    }
    Ok(offer)
}

/// Where a takeback by `seat` cuts the current round's line: the moves
/// kept (those before the seat's last move) and the version of the first
/// move taken back.
async fn takeback_line(
    tx: &mut WriteTx,
    game: &GameRecord,
    seat: Player,
) -> Result<(Vec<crate::domain::MoveRecord>, i64)> {
    let mut moves = tx.round_moves(game.id, game.kind(), game.round).await?;
    let cut = moves
        .iter()
        .rposition(|m| m.player == seat)
        .ok_or(ServiceError::NothingToTakeBack)?;
    let from_version = moves[cut].version;
    moves.truncate(cut);
    Ok((moves, from_version))
}

/// Whether `kind` may be offered in `game` now: a takeback or a draw in a
/// round in progress; a restart once both seats are taken (during the
/// round or after it), unless the game has had its rematch; a rematch
/// after the round.
fn check_offerable(game: &GameRecord, kind: OfferKind) -> Result<()> {
    match kind {
        OfferKind::Takeback | OfferKind::Draw => check_playable(game, None),
        OfferKind::Restart => {
            if game.tournament.is_some() {
                return Err(ServiceError::TournamentGame);
            }
            if game.has_open_seat() {
                return Err(ServiceError::WaitingForOpponent);
            }
            match game.rematch {
                Some(rematch) => Err(ServiceError::RematchExists(rematch)),
                None => Ok(()),
            }
        }
        OfferKind::Rematch => check_rematch(game),
    }
}

/// Carries out an accepted offer made by `by`, at `now`, and records it;
/// for a rematch, answers the new game.
async fn settle_offer(
    tx: &mut WriteTx,
    game: &mut GameRecord,
    kind: OfferKind,
    by: Player,
    now: DateTime<Utc>,
) -> Result<Option<GameRecord>> {
    game.offer = None;
    let change = match kind {
        OfferKind::Rematch => return make_rematch(tx, game, now).await.map(Some),
        OfferKind::Takeback => {
            let (kept, from_version) = takeback_line(tx, game, by).await?;
            let keep = u32::try_from(kept.len())
                .map_err(|_| ServiceError::Internal("long line".into()))?;
            let mut position = AnyGame::new(game.position.setup());
            for m in &kept {
                position.play_input(m.mv).map_err(|e| {
                    ServiceError::Internal(format!("stored move at version {}: {e}", m.version))
                })?;
            }
            game.position = position;
            tx.take_back(game.id, game.round, keep, from_version)
                .await?;
            // The side to move now starts afresh from its time left.
            if let Some(clock) = &mut game.clock {
                clock.since = None;
            }
            EventType::Takeback(keep)
        }
        OfferKind::Draw => {
            game.ending = Some(crate::domain::Ending::Agreement);
            EventType::Draw
        }
        OfferKind::Restart => {
            new_round(game);
            EventType::Restart
        }
    };
    game.sync_clock(now);
    save(tx, game, now).await?;
    tx.insert_event(game.id, &event(game, change));
    Ok(None)
}

/// How often the sweeper looks for games whose clock ran out.
pub const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

impl Service {
    /// Ends, with a `timeout` event, every game whose running clock ran out
    /// by now (reads already show them so; this records it and tells
    /// subscribers). Returns how many it ended. On PostgreSQL every instance
    /// sweeps: the write locks the game and ends it only if it is still
    /// running, so exactly one instance ends each game.
    ///
    /// # Errors
    /// Store errors.
    pub async fn end_overdue(&self) -> Result<usize> {
        let mut ended = 0;
        for id in self.store.overdue(self.clock.now(), 256).await? {
            if self.end_if_overdue(id).await? {
                ended += 1;
            }
        }
        Ok(ended)
    }

    /// Ends game `id` with a `timeout` event if its running clock ran out
    /// by now (rating a rated round in the same write); true if it did.
    ///
    /// # Errors
    /// Store errors.
    pub(super) async fn end_if_overdue(&self, id: Uuid) -> Result<bool> {
        let clock = self.clock.clone();
        let done = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let Some(mut game) = tx.game(id).await? else {
                            return Ok(false);
                        };
                        let now = clock.now();
                        if !game.settle(now) {
                            return Ok(false);
                        }
                        let Some(
                            crate::domain::Ending::Timeout(loser)
                            | crate::domain::Ending::NoFirstMove(loser),
                        ) = game.ending
                        else {
                            return Ok(false);
                        };
                        // Recorded under the version reads showed it with.
                        game.version = game.stored_version();
                        game.derived = false;
                        save(tx, &mut game, now).await?;
                        tx.insert_event(id, &event(&game, EventType::Timeout(loser)));
                        Ok(true)
                    })
                }),
            )
            .await?;
        if done {
            self.publish(id);
        }
        Ok(done)
    }

    /// Runs [`Service::end_overdue`] every `SWEEP_EVERY` until the store
    /// closes. A failure is logged once, and then how long it lasted when
    /// it is over (not four lines a second through a database outage).
    pub async fn sweep_timeouts(self) {
        let mut failing: Option<(std::time::Instant, u64)> = None;
        loop {
            tokio::time::sleep(SWEEP_EVERY).await;
            if self.store.is_closed() {
                return;
            }
            match self.end_overdue().await {
                Err(_) if self.store.is_closed() => return,
                Err(e) => {
                    if let Some((_, tries)) = &mut failing {
                        *tries += 1;
                    } else {
                        tracing::warn!(error = %e, "ending overdue games failed; retrying quietly until it works");
                        failing = Some((std::time::Instant::now(), 1));
                    }
                }
                Ok(_) => {
                    if let Some((since, tries)) = failing.take() {
                        tracing::info!(
                            failed_for_ms =
                                u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX),
                            tries,
                            "ending overdue games works again"
                        );
                    }
                }
            }
        }
    }
}

/// How many offers a seat of a game between two people may make in a row,
/// and how fast it may make more: one every [`OFFER_EVERY`].
pub const OFFER_BURST: u32 = 5;
/// See [`OFFER_BURST`].
pub const OFFER_EVERY: std::time::Duration = std::time::Duration::from_secs(6);

/// Offers per game and seat (GCRA buckets, the `governor` crate), so that
/// one seat cannot flood the other with offer events.
#[derive(Clone)]
pub(super) struct OfferLimiter(std::sync::Arc<governor::DefaultKeyedRateLimiter<(Uuid, Player)>>);

impl OfferLimiter {
    pub(super) fn new() -> OfferLimiter {
        let burst = std::num::NonZeroU32::new(OFFER_BURST).unwrap_or(std::num::NonZeroU32::MIN);
        let quota = governor::Quota::with_period(OFFER_EVERY)
            .unwrap_or_else(|| governor::Quota::per_second(std::num::NonZeroU32::MIN))
            .allow_burst(burst);
        OfferLimiter(std::sync::Arc::new(governor::RateLimiter::keyed(quota)))
    }

    /// `TooManyOffers` with the seconds to wait, if `seat` of `game` is over
    /// its quota.
    pub(super) fn check(&self, game: Uuid, seat: Player) -> Result<()> {
        use governor::clock::{Clock, DefaultClock};
        // Seats that have not offered lately are forgotten now and then.
        if self.0.len() > 10_000 {
            self.0.retain_recent();
        }
        self.0.check_key(&(game, seat)).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ServiceError::TooManyOffers(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
        })
    }
}

impl std::fmt::Debug for OfferLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfferLimiter").finish_non_exhaustive()
    }
}
