//! Challenges (one player asks another for a game) and each player's own
//! event stream: what a bot, or a person's page, listens to for challenges
//! and games. Every change here records the events it tells, in its write.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use super::players::{self, Identified};
use super::webhooks;
use super::writes::{check_clock, new_token};
use super::{Result, SeatTaken, Service, ServiceError, event};
use crate::domain::challenge::{
    ChallengeRecord, ChallengeStatus, Clock, DeclineReason, SeatChoice, Side,
};
use crate::domain::player::{MOST_GAMES, PlayerView, SeatPlayer};
use crate::domain::{EventType, GameRecord, Seat, TimeControl, TokenHash};
use crate::rules::{AnyGame, Player, Setup};
use crate::store::{PlayerEvent, WriteTx};

/// What a challenger asks for.
#[derive(Clone, Debug)]
pub struct NewChallenge {
    /// The challenged player's id.
    pub to: String,
    pub setup: Setup,
    pub clock: Option<TimeControl>,
    pub rated: bool,
    pub seat: SeatChoice,
}

/// The types of a player's events.
pub mod kinds {
    /// A challenge received (data: the challenge).
    pub const CHALLENGE: &str = "challenge";
    /// A challenge received was cancelled by its challenger.
    pub const CHALLENGE_CANCELLED: &str = "challenge_cancelled";
    /// A challenge made was declined.
    pub const CHALLENGE_DECLINED: &str = "challenge_declined";
    /// A game began with the player in a seat (`{game, seat}`).
    pub const GAME_START: &str = "game_start";
    /// A round of a game of theirs ended (`{game, seat, result}`).
    pub const GAME_FINISH: &str = "game_finish";
    /// A tournament paired them (`{tournament, round, game}`).
    pub const TOURNAMENT_PAIRED: &str = "tournament_paired";
}

fn side(view: &PlayerView) -> Side {
    Side {
        id: view.player.id.clone(),
        name: view.player.name.clone(),
        bot: view.player.bot,
    }
}

fn encode(c: &ChallengeRecord) -> Result<String> {
    serde_json::to_string(c).map_err(|e| ServiceError::Internal(format!("challenge: {e}")))
}

/// Tells `player` of a game of theirs that began, in seat `seat`.
pub(super) async fn tell_game_start(
    tx: &mut WriteTx,
    player: &str,
    game: Uuid,
    seat: Player,
    now: DateTime<Utc>,
) -> Result<()> {
    let data = json!({"game": game, "seat": seat.to_string()}).to_string();
    tx.insert_player_event(player, kinds::GAME_START, &data, now)
        .await?;
    Ok(())
}

/// Tells the players of `game` (the seats a player holds) that a round of it
/// began: a join that filled its last seat, a restart, a game that starts in
/// progress (against the service's bot, a rematch).
pub(super) async fn tell_round_start(
    tx: &mut WriteTx,
    game: &GameRecord,
    now: DateTime<Utc>,
) -> Result<()> {
    for seat in Player::BOTH {
        if let Some(sp) = game.players.of(seat) {
            tell_game_start(tx, &sp.id, game.id, seat, now).await?;
        }
    }
    Ok(())
}

/// Tells the players of `game` that its round ended, if this write ended it
/// (`was_playing`: the round was in progress before the write).
pub(super) async fn tell_game_finish(
    tx: &mut WriteTx,
    game: &GameRecord,
    was_playing: bool,
    now: DateTime<Utc>,
) -> Result<()> {
    if !was_playing || !game.is_over() {
        return Ok(());
    }
    let score = game.x_score();
    for seat in [Player::X, Player::O] {
        let Some(sp) = game.players.of(seat) else {
            continue;
        };
        let result = match score {
            Some(s) if s > 0.75 => {
                if seat == Player::X {
                    "won"
                } else {
                    "lost"
                }
            }
            Some(s) if s < 0.25 => {
                if seat == Player::X {
                    "lost"
                } else {
                    "won"
                }
            }
            Some(_) => "draw",
            None => "aborted",
        };
        let data = json!({"game": game.id, "seat": seat.to_string(), "result": result}).to_string();
        tx.insert_player_event(&sp.id, kinds::GAME_FINISH, &data, now)
            .await?;
    }
    Ok(())
}

impl Service {
    /// Sets how long a challenge waits for its answer.
    #[must_use]
    pub fn with_challenge_expiry(mut self, expiry: std::time::Duration) -> Service {
        self.challenge_expiry =
            chrono::TimeDelta::from_std(expiry).unwrap_or(chrono::TimeDelta::MAX);
        self
    }

    /// The player a bearer credential names (required).
    async fn caller(&self, bearer: Option<&str>) -> Result<Identified> {
        self.identify(bearer)
            .await?
            .ok_or(ServiceError::PlayerRequired)
    }

    /// Challenges player `new.to`. A bot already playing its `max_games`
    /// declines at once (`too_many_games`).
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `PlayerNotFound`, `ChallengeSelf`,
    /// `ClockRequired`, `InvalidOption` (a clock out of bounds; a rated
    /// challenge from a bot), store errors.
    pub async fn create_challenge(
        &self,
        bearer: Option<&str>,
        new: NewChallenge,
    ) -> Result<ChallengeRecord> {
        let caller = self.caller(bearer).await?;
        if new.to == caller.player.id {
            return Err(ServiceError::ChallengeSelf);
        }
        if let Some(control) = new.clock {
            check_clock(control)?;
        }
        if new.rated && new.clock.is_none() {
            return Err(ServiceError::ClockRequired);
        }
        if new.rated && caller.player.bot {
            return Err(ServiceError::InvalidOption(
                "a bot plays rated games only when a person challenges it rated".into(),
            ));
        }
        let target = self.player(&new.to).await?;
        let now = self.clock.now();
        let from = Side {
            id: caller.player.id.clone(),
            name: caller.player.name.clone(),
            bot: caller.player.bot,
        };
        let challenge = ChallengeRecord {
            id: Uuid::now_v7(),
            from,
            to: side(&target),
            setup: new.setup,
            clock: new.clock.map(Clock),
            rated: new.rated,
            seat: new.seat,
            status: ChallengeStatus::Pending,
            reason: None,
            game: None,
            created_at: now,
            expires_at: now + self.challenge_expiry,
        };
        let max_games = target.player.max_games;
        let service = self.clone();
        let challenge = self
            .write(
                None,
                Box::new(move |tx| {
                    Box::pin(async move {
                        let mut c = challenge;
                        if caller.new {
                            tx.insert_player(&caller.player).await?;
                        }
                        if c.to.bot {
                            tx.lock_player(&c.to.id).await?;
                            let hooked = tx.bot_hook(&c.to.id).await?.is_some();
                            let playing = tx.count_games_in_progress(&c.to.id).await?;
                            if playing >= i64::from(max_games) {
                                c.decline(DeclineReason::TooManyGames);
                            } else if hooked && c.clock.is_none() {
                                // A webhook bot is asked for its moves under its clock.
                                c.decline(DeclineReason::TimeControl);
                            } else if hooked {
                                // A webhook bot accepts every challenge within `max_games`.
                                let accepter = Identified::of(target.player);
                                service
                                    .begin(tx, &mut c, &caller.player, &accepter, now)
                                    .await?;
                            }
                        }
                        tx.insert_challenge(&c).await?;
                        let data = encode(&c)?;
                        match c.status {
                            ChallengeStatus::Declined => {
                                tx.insert_player_event(
                                    &c.from.id,
                                    kinds::CHALLENGE_DECLINED,
                                    &data,
                                    now,
                                )
                                .await?;
                            }
                            ChallengeStatus::Pending => {
                                tx.insert_player_event(&c.to.id, kinds::CHALLENGE, &data, now)
                                    .await?;
                            }
                            _ => {}
                        }
                        Ok(c)
                    })
                }),
            )
            .await?;
        if let Some(game) = challenge.game {
            self.publish(game);
        }
        Ok(challenge)
    }

    /// The caller's challenges, made and received, newest first (each as
    /// it stands now: expired ones say so), with the next page's cursor.
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, store errors.
    pub async fn challenges(
        &self,
        bearer: Option<&str>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<ChallengeRecord>, Option<i64>)> {
        let caller = self.caller(bearer).await?;
        let now = self.clock.now();
        let (list, next) = self
            .store
            .challenges_of(&caller.player.id, before, limit)
            .await?;
        Ok((list.into_iter().map(|c| c.at(now)).collect(), next))
    }

    /// A challenge the caller made or received, as it stands now.
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `ChallengeNotFound` (also for
    /// another's), store errors.
    pub async fn challenge(&self, bearer: Option<&str>, id: Uuid) -> Result<ChallengeRecord> {
        let caller = self.caller(bearer).await?;
        let c = self
            .store
            .challenge(id)
            .await?
            .filter(|c| c.from.id == caller.player.id || c.to.id == caller.player.id)
            .ok_or(ServiceError::ChallengeNotFound)?;
        Ok(c.at(self.clock.now()))
    }

    /// Runs `change` on challenge `id` in a write, as `caller`: it checks and
    /// edits the challenge (refusals change nothing), which is then saved.
    async fn challenge_write<T: Send + 'static>(
        &self,
        caller: Identified,
        id: Uuid,
        change: impl for<'t> FnOnce(
            &'t mut WriteTx,
            &'t mut ChallengeRecord,
            &'t Identified,
            DateTime<Utc>,
        ) -> futures_util::future::BoxFuture<'t, Result<T>>
        + Send
        + 'static,
    ) -> Result<(ChallengeRecord, T)> {
        let clock = self.clock.clone();
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    let now = clock.now();
                    let mut c = tx
                        .challenge(id)
                        .await?
                        .filter(|c| c.from.id == caller.player.id || c.to.id == caller.player.id)
                        .ok_or(ServiceError::ChallengeNotFound)?;
                    let status = c.status_at(now);
                    if status != ChallengeStatus::Pending {
                        return Err(ServiceError::ChallengeClosed(status.as_str()));
                    }
                    if caller.new {
                        tx.insert_player(&caller.player).await?;
                    }
                    let out = change(tx, &mut c, &caller, now).await?;
                    tx.update_challenge(&c).await?;
                    Ok((c, out))
                })
            }),
        )
        .await
    }

    /// Accepts a challenge the caller received: its game begins, each side
    /// seated and bound to its player (a bot playing its `max_games` is
    /// refused).
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `ChallengeNotFound`,
    /// `NotYourChallenge` (the challenger), `ChallengeClosed`,
    /// `TooManyGames`, store errors.
    pub async fn accept_challenge(&self, bearer: Option<&str>, id: Uuid) -> Result<SeatTaken> {
        let caller = self.caller(bearer).await?;
        let service = self.clone();
        let (_, accepted) = self
            .challenge_write(caller, id, move |tx, c, caller, now| {
                Box::pin(async move {
                    if c.to.id != caller.player.id {
                        return Err(ServiceError::NotYourChallenge);
                    }
                    let challenger = tx
                        .player_record(&c.from.id)
                        .await?
                        .ok_or(ServiceError::PlayerNotFound)?;
                    if caller.player.bot {
                        tx.lock_player(&caller.player.id).await?;
                        // Read here: `max_games` may have changed since the
                        // key was first known.
                        let most = tx
                            .player_record(&caller.player.id)
                            .await?
                            .map_or(caller.player.max_games, |p| p.max_games);
                        let playing = tx.count_games_in_progress(&caller.player.id).await?;
                        if playing >= i64::from(most.min(MOST_GAMES)) {
                            return Err(ServiceError::TooManyGames);
                        }
                    }
                    let (game, seat, token) =
                        service.begin(tx, c, &challenger, caller, now).await?;
                    Ok(SeatTaken {
                        game,
                        seat,
                        token,
                        invite: None,
                    })
                })
            })
            .await?;
        self.publish(accepted.game.id);
        Ok(accepted)
    }

    /// Begins the game of challenge `c`, accepted now by `accepter`: the
    /// game with its first change, each side bound to its player and told;
    /// `c` marked accepted. Answers the game, the accepter's seat and its
    /// new token.
    async fn begin(
        &self,
        tx: &mut WriteTx,
        c: &mut ChallengeRecord,
        challenger: &crate::domain::player::PlayerRecord,
        accepter: &Identified,
        now: DateTime<Utc>,
    ) -> Result<(GameRecord, Player, String)> {
        let token = new_token();
        let mut game = self.challenge_game(c, challenger, accepter, &token, now);
        players::count_rated_round(tx, &mut game, now).await?;
        tx.insert_game(&game);
        tx.insert_event(game.id, &event(&game, EventType::Create));
        for seat in [Player::X, Player::O] {
            if let Some(sp) = game.players.of(seat) {
                let player = sp.id.clone();
                tx.player_game(&player, game.id).await?;
                tell_game_start(tx, &player, game.id, seat, now).await?;
            }
        }
        c.status = ChallengeStatus::Accepted;
        c.game = Some(game.id);
        let seat = if game
            .players
            .of(Player::X)
            .is_some_and(|p| p.id == accepter.player.id)
        {
            Player::X
        } else {
            Player::O
        };
        Ok((game, seat, token))
    }

    /// The game of challenge `c`, accepted now by `accepter` whose seat's
    /// token is `token`.
    fn challenge_game(
        &self,
        c: &ChallengeRecord,
        challenger: &crate::domain::player::PlayerRecord,
        accepter: &Identified,
        token: &str,
        now: DateTime<Utc>,
    ) -> GameRecord {
        let mine = c.challenger_seat(rand::random());
        let mut seats = [Seat::Human { token: None }, Seat::Human { token: None }];
        let mut names: [Option<String>; 2] = [None, None];
        let mut bound: [Option<SeatPlayer>; 2] = [None, None];
        // The challenger plays with their credential (key or sign-in) as
        // the seat's token; the accepter is given a token too.
        let challenger_credential = challenger
            .key
            .unwrap_or_else(|| crate::domain::player::external_credential(&challenger.id));
        seats[mine] = Seat::Human {
            token: Some(challenger_credential),
        };
        names[mine] = Some(c.from.name.clone());
        bound[mine] = Some(SeatPlayer {
            id: c.from.id.clone(),
            credential: challenger_credential,
            rating: None,
        });
        seats[1 - mine] = Seat::Human {
            token: Some(TokenHash::of(token)),
        };
        names[1 - mine] = Some(accepter.player.name.clone());
        bound[1 - mine] = Some(SeatPlayer {
            id: accepter.player.id.clone(),
            credential: accepter.credential,
            rating: None,
        });
        let mut game = GameRecord {
            id: Uuid::now_v7(),
            position: AnyGame::new(c.setup),
            seats,
            created_at: now,
            updated_at: now,
            names,
            private: true,
            clock: c.clock.map(|Clock(control)| self.new_clock(control)),
            as_of: now,
            claim_after_ms: self.claim_after_ms,
            ..GameRecord::blank(c.setup)
        };
        game.players.seats = bound;
        game.players.rated = c.rated;
        game.assistance.forbidden = c.rated;
        game.sync_clock(now);
        game.mark_turn(now);
        game
    }

    /// Declines a challenge the caller received, for `reason` (default
    /// `generic`); the challenger is told.
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `ChallengeNotFound`,
    /// `NotYourChallenge`, `ChallengeClosed`, store errors.
    pub async fn decline_challenge(
        &self,
        bearer: Option<&str>,
        id: Uuid,
        reason: Option<DeclineReason>,
    ) -> Result<ChallengeRecord> {
        let caller = self.caller(bearer).await?;
        let (c, ()) = self
            .challenge_write(caller, id, move |tx, c, caller, now| {
                Box::pin(async move {
                    if c.to.id != caller.player.id {
                        return Err(ServiceError::NotYourChallenge);
                    }
                    c.status = ChallengeStatus::Declined;
                    c.reason = Some(reason.unwrap_or(DeclineReason::Generic));
                    let data = encode(c)?;
                    tx.insert_player_event(&c.from.id, kinds::CHALLENGE_DECLINED, &data, now)
                        .await?;
                    Ok(())
                })
            })
            .await?;
        Ok(c)
    }

    /// Cancels a challenge the caller made; the challenged is told.
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `ChallengeNotFound`,
    /// `NotYourChallenge`, `ChallengeClosed`, store errors.
    pub async fn cancel_challenge(&self, bearer: Option<&str>, id: Uuid) -> Result<()> {
        let caller = self.caller(bearer).await?;
        self.challenge_write(caller, id, move |tx, c, caller, now| {
            Box::pin(async move {
                if c.from.id != caller.player.id {
                    return Err(ServiceError::NotYourChallenge);
                }
                c.status = ChallengeStatus::Cancelled;
                let data = encode(c)?;
                tx.insert_player_event(&c.to.id, kinds::CHALLENGE_CANCELLED, &data, now)
                    .await?;
                Ok(())
            })
        })
        .await?;
        Ok(())
    }

    /// Sets what the caller may change of their own player: `max_games`,
    /// and a bot's `move_url` (`Some(None)` removes it). Answers the player
    /// and, when a move URL was set, the new secret its requests are signed
    /// with (shown only here).
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `InvalidOption` (`max_games` out
    /// of 1..=64, a move URL for a person), `WebhookUrlRefused`, store
    /// errors.
    pub async fn update_me(
        &self,
        bearer: Option<&str>,
        max_games: Option<u32>,
        move_url: Option<Option<String>>,
    ) -> Result<(PlayerView, Option<String>)> {
        let caller = self.caller(bearer).await?;
        if let Some(n) = max_games
            && !(1..=MOST_GAMES).contains(&n)
        {
            return Err(ServiceError::InvalidOption(format!(
                "`max_games` must be from 1 to {MOST_GAMES}"
            )));
        }
        let hook = match move_url {
            Some(Some(_)) if !caller.player.bot => {
                return Err(ServiceError::InvalidOption(
                    "only a bot player has a `move_url`".into(),
                ));
            }
            Some(Some(url)) => {
                let url = webhooks::check_url(&url, self.webhooks.allow_private).await?;
                Some(Some((url.to_string(), webhooks::new_secret())))
            }
            Some(None) => Some(None),
            None => None,
        };
        let secret = hook.clone().flatten().map(|(_, secret)| secret);
        let id = caller.player.id.clone();
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    if caller.new {
                        tx.insert_player(&caller.player).await?;
                    }
                    if let Some(n) = max_games {
                        tx.set_max_games(&caller.player.id, n).await?;
                    }
                    if let Some(hook) = &hook {
                        let hook = hook.as_ref().map(|(u, s)| (u.as_str(), s.as_str()));
                        tx.set_bot_hook(&caller.player.id, hook).await?;
                    }
                    Ok(())
                })
            }),
        )
        .await?;
        Ok((self.player(&id).await?, secret))
    }

    /// The caller's player and where their stream stands: the number of
    /// their last event.
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, store errors.
    pub async fn player_stream(&self, bearer: Option<&str>) -> Result<(String, i64)> {
        let caller = self.caller(bearer).await?;
        let head = self.store.player_event_head(&caller.player.id).await?;
        Ok((caller.player.id, head))
    }

    /// What a player's stream opens with: their games in progress and the
    /// challenges waiting for their answer.
    ///
    /// # Errors
    /// Store errors.
    pub async fn player_snapshot(
        &self,
        player: &str,
    ) -> Result<(Vec<GameRecord>, Vec<ChallengeRecord>)> {
        let games = self.store.games_in_progress(player).await?;
        let pending = self
            .store
            .pending_challenges_to(player, self.clock.now())
            .await?;
        Ok((games, pending))
    }

    /// `player`'s events after number `after`, oldest first.
    ///
    /// # Errors
    /// Store errors.
    pub async fn player_events(&self, player: &str, after: i64) -> Result<Vec<PlayerEvent>> {
        Ok(self.store.player_events(player, after, 100).await?)
    }
}
