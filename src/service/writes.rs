//! The writes: create, join, play, restart, rematch, claim, resign, delete.
//! Each is one job of the store's writer, answered once its transaction has
//! committed.

use chrono::{DateTime, Utc};
use rand::RngCore;
use uuid::Uuid;

use super::bots::Reply;
use super::notation::play_setup_line;
use super::{
    Identified, MoveResult, NewGame, Opponent, Played, Preconditions, Rematched, Render, Result,
    SeatTaken, Service, ServiceError, apply, canonical_move, check_playable, check_version, event,
    load, load_seat, replay, save,
};
use crate::ai;
use crate::domain::{
    Assistance, ClaimResult, DeleteReason, Ending, EventType, GameClock, GameRecord, Offer,
    OfferKind, RequestHash, Seat, TimeControl, TokenHash, normalize_name,
};
use crate::rules::{AnyGame, MoveInput, Player};

impl Service {
    /// Creates a game; the caller takes `new.seat`. The set-up line, if
    /// any, is played first (see `notation.rs` for its versions); then a
    /// bot to move replies (a bot holding X opens).
    ///
    /// # Errors
    /// `InvalidOption` (hotseat with a bot, an unavailable bot level),
    /// `IllegalLine`, store errors.
    #[tracing::instrument(name = "create", level = "debug", skip_all, fields(game = tracing::field::Empty))]
    pub async fn create(&self, new: NewGame) -> Result<SeatTaken> {
        let position = AnyGame::new(new.setup);
        if new.hotseat && matches!(new.opponent, Opponent::Bot { .. }) {
            return Err(ServiceError::InvalidOption(
                "hotseat cannot be combined with a bot opponent".into(),
            ));
        }
        if let Opponent::Bot { level, .. } = new.opponent {
            ai::check_available(&position, level)
                .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        }
        let mut new = new;
        new.name = new
            .name
            .map(|n| normalize_name(&n).map_err(ServiceError::InvalidName))
            .transpose()?;
        if new.private && (new.hotseat || matches!(new.opponent, Opponent::Bot { .. })) {
            return Err(ServiceError::InvalidOption(
                "only a game against another person can be private (not hotseat, not a bot)".into(),
            ));
        }
        if let Some(control) = new.clock {
            check_clock(control)?;
        }
        if new.rated {
            if new.hotseat || !matches!(new.opponent, Opponent::Human) {
                return Err(ServiceError::InvalidOption(
                    "only a game between two people can be rated (not hotseat, not a bot)".into(),
                ));
            }
            if new.player.is_none() {
                return Err(ServiceError::PlayerRequired);
            }
            if new.clock.is_none() {
                return Err(ServiceError::ClockRequired);
            }
        }
        let invite = new.private.then(new_token);
        let token = new_token();
        let hash = TokenHash::of(&token);
        let mut seats = [Seat::Human { token: None }; 2];
        seats[new.seat.index()] = Seat::Human { token: Some(hash) };
        seats[new.seat.other().index()] = match new.opponent {
            Opponent::Human if new.hotseat => Seat::Human { token: Some(hash) },
            Opponent::Human => Seat::Human { token: None },
            Opponent::Bot { level, seed } => Seat::Bot { level, seed },
        };
        let now = self.clock.now();
        let mut names = [None, None];
        names[new.seat.index()] = new.name;
        let mut game = GameRecord {
            id: Uuid::now_v7(),
            position,
            seats,
            hotseat: new.hotseat,
            created_at: now,
            updated_at: now,
            names,
            private: new.private,
            invite: invite.as_deref().map(TokenHash::of),
            clock: new.clock.map(|c| self.new_clock(c)),
            as_of: now,
            assistance: new.assistance,
            claim_after_ms: self.claim_after_ms,
            ..GameRecord::blank(new.setup)
        };
        game.players.rated = new.rated;
        if let Some(player) = &new.player {
            player.bind(&mut game, new.seat);
        }
        game.sync_clock(now);
        tracing::Span::current().record("game", tracing::field::display(game.id));
        let created = event(&game, EventType::Create);
        let line = play_setup_line(&mut game, &new.moves)?;
        game.mark_turn(now);
        let record = game.clone();
        let player = new.player;
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    tx.insert_game(&record);
                    if let Some(player) = &player {
                        player.record(tx, record.id).await?;
                        if record.turn.is_some() {
                            super::challenges::tell_round_start(tx, &record, now).await?;
                        }
                    }
                    tx.insert_event(record.id, &created);
                    for m in &line {
                        tx.insert_move(record.id, m);
                    }
                    Ok(())
                })
            }),
        )
        .await?;
        self.publish(game.id);
        self.bot_replies(&mut game, None).await?;
        Ok(SeatTaken {
            game,
            seat: new.seat,
            token,
            invite,
        })
    }

    /// Takes the open seat, under `name` if given; a private game needs
    /// its `invite` code.
    ///
    /// # Errors
    /// `GameNotFound`, `VersionMismatch`, `InvalidInvite`, `NoOpenSeat`,
    /// `InvalidName`, store errors.
    #[tracing::instrument(name = "join", level = "debug", skip_all, fields(game = %id))]
    pub async fn join(
        &self,
        id: Uuid,
        if_match: Option<i64>,
        name: Option<String>,
        invite: Option<String>,
        player: Option<Identified>,
    ) -> Result<SeatTaken> {
        let name = name
            .map(|n| normalize_name(&n).map_err(ServiceError::InvalidName))
            .transpose()?;
        let token = new_token();
        let hash = TokenHash::of(&token);
        let clock = self.clock.clone();
        let (game, seat) = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let mut game = load(tx, id, now).await?;
                        check_version(&game, if_match)?;
                        if let Some(expected) = game.invite
                            && invite.as_deref().map(TokenHash::of) != Some(expected)
                        {
                            return Err(ServiceError::InvalidInvite);
                        }
                        let seat = Player::BOTH
                            .into_iter()
                            .find(|&p| game.seat(p).is_open())
                            .ok_or(ServiceError::NoOpenSeat)?;
                        if game.players.rated {
                            let player = player.as_ref().ok_or(ServiceError::PlayerRequired)?;
                            if game
                                .players
                                .seats
                                .iter()
                                .flatten()
                                .any(|p| p.id == player.player.id)
                            {
                                return Err(ServiceError::SamePlayer);
                            }
                        }
                        game.seats[seat.index()] = Seat::Human { token: Some(hash) };
                        game.names[seat.index()] = name;
                        if let Some(player) = &player {
                            player.bind(&mut game, seat);
                        }
                        game.sync_clock(now);
                        save(tx, &mut game, now).await?;
                        if let Some(player) = &player {
                            player.record(tx, id).await?;
                        }
                        tx.insert_event(id, &event(&game, EventType::Join(seat)));
                        Ok((game, seat))
                    })
                }),
            )
            .await?;
        self.publish(id);
        Ok(SeatTaken {
            game,
            seat,
            token,
            invite: None,
        })
    }

    /// Plays a move for the token's seat, then lets a bot opponent reply.
    ///
    /// # Errors
    /// Every refusal of the contract's table, store errors.
    #[tracing::instrument(name = "play", level = "debug", skip_all, fields(game = %id))]
    pub async fn play(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        input: MoveInput,
        render: Render,
    ) -> Result<MoveResult> {
        let token = self.seat_credential(token)?;
        // Hashed only when a record will keep it: most moves carry no key.
        let keyed = pre
            .idempotency_key
            .map(|key| (key, RequestHash::of(PLAY, &canonical_move(input), &token)));
        self.play_with(id, token, keyed, pre.if_match, render, input, false)
            .await
    }

    /// Plays `input` for the token's seat; `keyed` is the request's
    /// `Idempotency-Key` with the hash of what it asked for; `assisted`: a
    /// bot found the move (counted in `assistance_used` between two people).
    #[expect(
        clippy::too_many_arguments,
        reason = "a move's parts: the game, who, its preconditions, its answer, the move"
    )]
    pub(super) async fn play_with(
        &self,
        id: Uuid,
        token: TokenHash,
        keyed: Option<(String, RequestHash)>,
        if_match: Option<i64>,
        render: Render,
        input: MoveInput,
        assisted: bool,
    ) -> Result<MoveResult> {
        let metrics = self.metrics.clone();
        let clock = self.clock.clone();
        let key = keyed.clone();
        let replies = self.reply_queue.clone();
        let outcome = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let mut game = load(tx, id, now).await?;
                        let seat = game.seat_of(&token).ok_or(ServiceError::InvalidToken)?;
                        if let Some((key, request)) = &key
                            && let Some(stored) = replay(tx.idempotent(id, key).await?, request)?
                        {
                            return Ok(Err(stored));
                        }
                        let kind = game.kind().as_str();
                        let checked = check_version(&game, if_match)
                            .and_then(|()| check_playable(&game, Some(seat)))
                            .and_then(|()| apply(&mut game, input, now))
                            .map(|mv| (mv, replies.for_reply(&game)));
                        metrics.count_move(kind, checked.is_ok());
                        let (mv, place) = checked?;
                        if assisted && game.between_two_people() {
                            game.assistance.used[seat.index()] += 1;
                        }
                        tx.insert_move(id, &mv);
                        save(tx, &mut game, now).await?;
                        let played = Played {
                            mv,
                            game,
                            replies: Vec::new(),
                        };
                        if let Some((key, request)) = &key {
                            tx.remember(id, key, request, &render(&played)?);
                        }
                        Ok(Ok((played, place)))
                    })
                }),
            )
            .await?;
        let (mut played, reply) = match outcome {
            Ok(done) => done,
            Err(stored) => return Ok(MoveResult::Replayed(stored)),
        };
        self.publish(id);
        if let Reply::Later = reply {
            // The bots are busy: the person's move is answered now.
            self.reply_later(id);
            return Ok(MoveResult::Played(Box::new(played)));
        }
        let record = keyed.map(|(key, request)| (key, request, render, played.mv));
        played.replies = self.bot_replies(&mut played.game, record).await?;
        drop(reply);
        Ok(MoveResult::Played(Box::new(played)))
    }

    /// Starts a new round from the empty board; a bot holding X opens it.
    /// Between two people, a round in progress needs both (an offer).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`,
    /// `WaitingForOpponent`, `AgreementRequired`, store errors.
    #[tracing::instrument(name = "restart", level = "debug", skip_all, fields(game = %id))]
    pub async fn restart(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        let mut game = self
            .seat_change(id, token, if_match, |game, _, _| {
                if game.tournament.is_some() {
                    return Err(ServiceError::TournamentGame);
                }
                if game.has_open_seat() {
                    return Err(ServiceError::WaitingForOpponent);
                }
                // Between two people, during the round and after it: an offer.
                if game.between_two_people() {
                    return Err(ServiceError::AgreementRequired);
                }
                new_round(game);
                Ok(EventType::Restart)
            })
            .await?;
        self.bot_replies(&mut game, None).await?;
        Ok(game)
    }

    /// A rematch of a game whose round is over, asked by one of its seats.
    /// Between two people it is an offer: the first seat's ask makes it
    /// (asked again, it stands as it is), the other seat's accepts it.
    /// Against a bot and in a hotseat game it is made at once.
    ///
    /// The rematch is a new game of the same kind, options, clock, names,
    /// players and rating setting, the seats swapped, each side's token the
    /// one it had (a bot takes the other seat, and opens if it now holds
    /// X). The old game names it (`rematch`, at a version of its own), once.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `GameNotFound`,
    /// `WaitingForOpponent`, `RoundInProgress`, `RematchExists`,
    /// `OfferPending` (another offer is pending), `TooManyOffers`, store
    /// errors.
    #[tracing::instrument(name = "rematch", level = "debug", skip_all, fields(game = %id))]
    pub async fn rematch(&self, id: Uuid, token: Option<&str>) -> Result<Rematched> {
        let credential = self.seat_credential(token)?;
        let clock = self.clock.clone();
        let limiter = self.offer_limiter.clone();
        let done = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let (mut old, seat) = load_seat(tx, id, &credential, None, now).await?;
                        check_rematch(&old)?;
                        if !old.between_two_people() {
                            let new = make_rematch(tx, &mut old, now).await?;
                            return Ok(Ok((new, seat.other())));
                        }
                        match old.offer {
                            Some(Offer {
                                kind: OfferKind::Rematch,
                                by,
                                ..
                            }) if by != seat => {
                                old.offer = None;
                                let new = make_rematch(tx, &mut old, now).await?;
                                Ok(Ok((new, seat.other())))
                            }
                            // Asked again: the offer stands.
                            Some(Offer {
                                kind: OfferKind::Rematch,
                                ..
                            }) => Ok(Err(old)),
                            Some(_) => Err(ServiceError::OfferPending),
                            None => {
                                limiter.check(id, seat)?;
                                old.offer = Some(Offer {
                                    kind: OfferKind::Rematch,
                                    by: seat,
                                    at: now,
                                });
                                save(tx, &mut old, now).await?;
                                let offered = EventType::Offer(OfferKind::Rematch, seat);
                                tx.insert_event(id, &event(&old, offered));
                                Ok(Err(old))
                            }
                        }
                    })
                }),
            )
            .await?;
        let (mut game, seat) = match done {
            Ok(made) => made,
            Err(offered) => {
                self.publish(id);
                return Ok(Rematched::Offered(Box::new(offered)));
            }
        };
        self.publish(id);
        self.publish(game.id);
        self.bot_replies(&mut game, None).await?;
        Ok(Rematched::Made(Box::new(SeatTaken {
            game,
            seat,
            token: token.unwrap_or_default().to_owned(),
            invite: None,
        })))
    }

    /// The seat not to move claims a round between two people without a
    /// clock whose side to move has been away for the claim delay: won or
    /// drawn (`abandoned`; `aborted` before each side has moved).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `GameOver`,
    /// `WaitingForOpponent`, `ClaimNotAllowed` (with when a claim will be
    /// open, if it will), store errors.
    #[tracing::instrument(name = "claim", level = "debug", skip_all, fields(game = %id))]
    pub async fn claim(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
        result: ClaimResult,
    ) -> Result<GameRecord> {
        self.seat_change(id, token, if_match, move |game, seat, now| {
            check_playable(game, None)?;
            game.claim(seat, result, now)
                .map_err(ServiceError::ClaimNotAllowed)?;
            Ok(EventType::Claim(seat, result == ClaimResult::Draw))
        })
        .await
    }

    /// The caller's seat (hotseat: the side to move) gives up the round.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `GameOver`,
    /// `WaitingForOpponent`, store errors.
    #[tracing::instrument(name = "resign", level = "debug", skip_all, fields(game = %id))]
    pub async fn resign(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        self.seat_change(id, token, if_match, |game, seat, _| {
            check_playable(game, None)?;
            game.ending = Some(Ending::Resignation(seat));
            game.offer = None;
            Ok(EventType::Resign(seat))
        })
        .await
    }

    /// Deletes the game, its history and idempotency records. The deletion
    /// is a change of its own, at the next version: event streams send it
    /// after every change before it (the store keeps a deleted game's
    /// history a while for them: see [`crate::store::KEEP_DELETED`]).
    ///
    /// Between two people, a game whose round is in progress needs both
    /// (resign first, or agree a draw).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`,
    /// `AgreementRequired`, store errors.
    #[tracing::instrument(name = "delete", level = "debug", skip_all, fields(game = %id))]
    pub async fn delete(&self, id: Uuid, token: Option<&str>, if_match: Option<i64>) -> Result<()> {
        let token = self.seat_credential(token)?;
        let clock = self.clock.clone();
        self.write(
            Some(id),
            Box::new(move |tx| {
                Box::pin(async move {
                    let now = clock.now();
                    let (mut game, _) = load_seat(tx, id, &token, if_match, now).await?;
                    if game.tournament.is_some() {
                        return Err(ServiceError::TournamentGame);
                    }
                    if game.between_two_people() && !game.is_over() && !game.has_open_seat() {
                        return Err(ServiceError::AgreementRequired);
                    }
                    save(tx, &mut game, now).await?;
                    tx.insert_event(id, &event(&game, EventType::Deleted(DeleteReason::BySeat)));
                    tx.delete_game(id).await?;
                    Ok(())
                })
            }),
        )
        .await?;
        self.publish(id);
        Ok(())
    }
}

/// Starts the next round from the start position: no ending, no offer,
/// fresh clocks (started by the caller's [`GameRecord::sync_clock`]).
pub(super) fn new_round(game: &mut GameRecord) {
    game.position = AnyGame::new(game.position.setup());
    game.round += 1;
    game.ending = None;
    game.offer = None;
    game.players.change = None;
    game.assistance.used = [0, 0];
    game.reset_clock();
}

/// Whether `old` may have a rematch now: both seats taken, the round over,
/// none made yet.
pub(super) fn check_rematch(old: &GameRecord) -> Result<()> {
    if old.tournament.is_some() {
        return Err(ServiceError::TournamentGame);
    }
    if let Some(existing) = old.rematch {
        return Err(ServiceError::RematchExists(existing));
    }
    if old.has_open_seat() {
        return Err(ServiceError::WaitingForOpponent);
    }
    if !old.is_over() {
        return Err(ServiceError::RoundInProgress);
    }
    Ok(())
}

/// Makes the rematch of `old` at `now`: the new game and its creation are
/// staged, and `old` (saved here) names it, with a `rematch` event.
pub(super) async fn make_rematch(
    tx: &mut crate::store::WriteTx,
    old: &mut GameRecord,
    now: DateTime<Utc>,
) -> Result<GameRecord> {
    let mut new = rematch_of(old, now);
    super::players::count_rated_round(tx, &mut new, now).await?;
    tx.insert_game(&new);
    tx.insert_event(new.id, &event(&new, EventType::Create));
    for player in new.players.seats.iter().flatten() {
        tx.player_game(&player.id, new.id).await?;
    }
    if new.turn.is_some() {
        super::challenges::tell_round_start(tx, &new, now).await?;
    }
    old.rematch = Some(new.id);
    save(tx, old, now).await?;
    tx.insert_event(old.id, &event(old, EventType::Rematch(new.id)));
    Ok(new)
}

/// The rematch of `old` made at `now`: a new game of the same terms, the
/// seats (tokens, bots, names, players) swapped, from the empty board.
fn rematch_of(old: &GameRecord, now: DateTime<Utc>) -> GameRecord {
    let [x, o] = old.players.seats.clone();
    let [x_name, o_name] = old.names.clone();
    let mut new = GameRecord {
        id: Uuid::now_v7(),
        seats: [old.seats[1], old.seats[0]],
        hotseat: old.hotseat,
        created_at: now,
        updated_at: now,
        names: [o_name, x_name],
        private: old.private,
        invite: old.invite,
        clock: old
            .clock
            .map(|c| GameClock::new(c.control, c.first_move_ms)),
        assistance: Assistance {
            forbidden: old.assistance.forbidden,
            used: [0, 0],
        },
        claim_after_ms: old.claim_after_ms,
        as_of: now,
        players: crate::domain::player::Players {
            seats: [o, x],
            rated: old.players.rated,
            ..crate::domain::player::Players::default()
        },
        rematch_of: Some(old.id),
        ..GameRecord::blank(old.position.setup())
    };
    new.sync_clock(now);
    new.mark_turn(now);
    new
}

/// A time control within bounds: budgets of 1 s to 30 days, increments
/// up to an hour.
pub(super) fn check_clock(control: TimeControl) -> Result<()> {
    let (budget, name) = match control {
        TimeControl::Fischer { initial_ms, .. } => (initial_ms, "clock.initial_ms"),
        TimeControl::PerMove { per_move_ms } => (per_move_ms, "clock.per_move_ms"),
    };
    if !(1000..=TimeControl::MAX_MS).contains(&budget) {
        return Err(ServiceError::InvalidOption(format!(
            "`{name}` must be from 1000 (1 s) to {} (30 days)",
            TimeControl::MAX_MS
        )));
    }
    if let TimeControl::Fischer { increment_ms, .. } = control
        && !(0..=3_600_000).contains(&increment_ms)
    {
        return Err(ServiceError::InvalidOption(
            "`clock.increment_ms` must be from 0 to 3600000 (1 h)".into(),
        ));
    }
    Ok(())
}

/// The operation of a move, in its request's hash (`POST /v1/games/{id}/moves`).
const PLAY: &str = "play";

/// 256 random bits from the OS-seeded CSPRNG, hex-encoded.
pub(super) fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}
