//! Bots: hints, moves the server plays for a seat, and a bot opponent's
//! replies. Searches run off the async workers, bounded in number.

use std::net::IpAddr;
use std::time::Duration;

use rand::RngCore;
use uuid::Uuid;

use super::{
    Analysis, AnalysisAt, Hint, MoveAnalysis, MoveResult, Played, Preconditions, Render, Result,
    Service, ServiceError, apply, authorize_turn, check_playable, check_version, load, replay,
    save,
};
use crate::ai::{self, Budget, Level, Suggestion};
use crate::domain::{EventType, GameRecord, MoveRecord, RequestHash, Seat, TimeControl};
use crate::rules::{AnyGame, Player, Setup};
use crate::telemetry::spawn_blocking_with_tracing;

/// The operation of a bot move, in its request's hash
/// (`POST /v1/games/{id}/bot-move`).
const BOT_MOVE: &str = "bot-move";

/// A finished round's position analysed at a level: the game, the round,
/// the moves before it, the level.
pub(super) type AnalysisKey = (Uuid, u32, u32, Level);

/// How many analyses of finished rounds' positions are kept.
pub(super) const KEPT_ANALYSES: std::num::NonZeroUsize = std::num::NonZeroUsize::new(4096).unwrap();

impl Service {
    /// Lets the server play one move at `level` for the side to move (the
    /// caller holds that seat's token), then lets a bot opponent reply.
    ///
    /// # Errors
    /// As [`Service::play`], plus `InvalidOption` for an unavailable level.
    #[tracing::instrument(name = "bot_move", level = "debug", skip_all, fields(game = %id))]
    pub async fn bot_move(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        level: Level,
        render: Render,
        client: Option<IpAddr>,
    ) -> Result<MoveResult> {
        // Check who may ask before thinking, then think outside the transaction.
        let game = self.game(id).await?;
        check_unassisted(&game)?;
        let token = self.seat_credential(token)?;
        let seat = game.seat_of(&token).ok_or(ServiceError::InvalidToken)?;
        let keyed = pre.idempotency_key.map(|key| {
            let body = format!(r#"{{"level":"{level}"}}"#);
            (key, RequestHash::of(BOT_MOVE, &body, &token))
        });
        // A retry is answered before the turn is checked: it has passed since.
        if let Some((key, request)) = &keyed
            && let Some(stored) = replay(self.store.idempotent(id, key).await?, request)?
        {
            return Ok(MoveResult::Replayed(stored));
        }
        check_playable(&game, Some(seat))?;
        check_version(&game, pre.if_match)?;
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let seed = rand::rng().next_u64();
        let suggestion = self.think_for_client(&game, level, seed, client).await?;
        let expected = game.version;
        self.play_with(
            id,
            token,
            keyed,
            Some(expected),
            render,
            suggestion.mv.input(),
            true,
        )
        .await
    }

    /// A suggested move for the side to move (the caller holds that seat's
    /// token, or the hotseat token).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `GameOver`, `WaitingForOpponent`,
    /// `NotYourTurn`, `InvalidOption`, store errors.
    #[tracing::instrument(name = "hint", level = "debug", skip_all, fields(game = %id))]
    pub async fn hint(
        &self,
        id: Uuid,
        token: Option<&str>,
        level: Level,
        client: Option<IpAddr>,
    ) -> Result<Hint> {
        let game = self.game(id).await?;
        check_unassisted(&game)?;
        let seat = authorize_turn(&game, &self.seat_credential(token)?)?;
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let suggestion = self.think_for_client(&game, level, 0, client).await?;
        self.count_assistance(&game, seat).await?;
        Ok(Hint { suggestion, level })
    }

    /// Every legal move of the side to move, evaluated at `level`, best
    /// first, in the live position or, with `at`, after `ply` moves of a
    /// round (by default the current one; without `ply` its last position).
    /// While the current round is in progress the caller holds the seat to
    /// move (or the hotseat token), as for a hint, whichever of its
    /// positions is asked for; positions of a finished round need no token.
    /// A position where the round is over has no move to analyze. One
    /// search per game, in the queue of the hints.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `WaitingForOpponent`, `NotYourTurn`
    /// (in progress only), `PositionNotFound` (no such round or ply),
    /// `InvalidOption`, `Busy`, store errors.
    #[tracing::instrument(name = "analysis", level = "debug", skip_all, fields(game = %id))]
    pub async fn analysis(
        &self,
        id: Uuid,
        token: Option<&str>,
        level: Level,
        at: AnalysisAt,
        client: Option<IpAddr>,
    ) -> Result<MoveAnalysis> {
        let live = self.game(id).await?;
        let round = at.round.unwrap_or(live.round);
        // A finished round's positions never change: their analyses are
        // kept, so that the same question reads the same answer (the time
        // cap may cut a search shorter one time than another).
        let finished = round < live.round || live.is_over();
        // Only the round in progress asks for the seat to move.
        let asking = if finished {
            None
        } else {
            check_unassisted(&live)?;
            Some((
                live.clone(),
                authorize_turn(&live, &self.seat_credential(token)?)?,
            ))
        };
        let game = match at {
            AnalysisAt {
                round: None,
                ply: None,
            } => live,
            AnalysisAt { round, ply } => self.position_at(id, round, ply).await?,
        };
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        if game.is_over() {
            let analysis = Analysis {
                moves: Vec::new(),
                exact: true,
                stopped_on_time: false,
            };
            return Ok(MoveAnalysis { analysis, level });
        }
        let key = (id, round, game.position.ply(), level);
        if finished && let Some(kept) = self.kept_analysis(&key) {
            return Ok(MoveAnalysis {
                analysis: kept,
                level,
            });
        }
        let _place = QueuePlace::take(self, game.id, client)?;
        let permit = self.thinker().await?;
        let budget = Budget {
            time: self.bot_budget,
        };
        let position = game.position;
        // (Stopped if the request goes away: nothing after this is reached,
        // so a cut analysis is never kept.)
        let analysis = client_search(permit, move || ai::analyze(&position, level, 0, budget))
            .await?
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        if finished && let Ok(mut kept) = self.analyses.lock() {
            kept.put(key, analysis.clone());
        }
        if let Some((live, seat)) = asking {
            self.count_assistance(&live, seat).await?;
        }
        Ok(MoveAnalysis { analysis, level })
    }

    /// A place among the clients' searches that run at once, when one is
    /// free.
    pub(super) async fn thinker(&self) -> Result<tokio::sync::OwnedSemaphorePermit> {
        self.thinkers
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ServiceError::Internal(format!("bot pool closed: {e}")))
    }

    /// A finished round's analysis made before, if it is still kept.
    fn kept_analysis(&self, key: &AnalysisKey) -> Option<Analysis> {
        self.analyses.lock().ok()?.get(key).cloned()
    }

    /// A search a client asked for (hint, bot move): one per game at a
    /// time, at most `queue_limit` running or waiting, and at most a
    /// [`client_share`] of them for one client (by address), else `Busy`.
    /// `random` and `easy` take microseconds: they wait for nobody.
    pub(super) async fn think_for_client(
        &self,
        game: &GameRecord,
        level: Level,
        seed: u64,
        client: Option<IpAddr>,
    ) -> Result<Suggestion> {
        let budget = self.budget_for(game);
        if level <= Level::Easy {
            return self.think(&game.position, level, seed, budget).await;
        }
        let _place = QueuePlace::take(self, game.id, client)?;
        let permit = self.thinker().await?;
        let position = game.position.clone();
        let budget = Budget { time: budget };
        client_search(permit, move || ai::choose(&position, level, seed, budget))
            .await?
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?
            .ok_or_else(|| ServiceError::Internal("bot found no move".into()))
    }

    /// Runs a bot off the async workers (its own replies and the cheap
    /// levels, which take no search thread).
    pub(super) async fn think(
        &self,
        position: &AnyGame,
        level: Level,
        seed: u64,
        time: Duration,
    ) -> Result<Suggestion> {
        let position = position.clone();
        let budget = Budget { time };
        spawn_blocking_with_tracing(move || ai::choose(&position, level, seed, budget))
            .await
            .map_err(|e| ServiceError::Internal(format!("bot task failed: {e}")))?
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?
            .ok_or_else(|| ServiceError::Internal("bot found no move".into()))
    }

    /// While a bot is to move in `game`, lets it move, one committed
    /// transaction per move. Stops quietly if the game changed meanwhile.
    /// `record` names an idempotency record (seat, key, renderer and the
    /// move it answers) to keep current after each reply.
    pub(super) async fn bot_replies(
        &self,
        game: &mut GameRecord,
        record: Option<(String, RequestHash, Render, MoveRecord)>,
    ) -> Result<Vec<MoveRecord>> {
        let mut replies = Vec::new();
        while !game.is_over() && !game.has_open_seat() {
            let Seat::Bot { level, seed } = *game.seat(game.position.to_move()) else {
                break;
            };
            // The bot's clock starts with its search, not while it waits
            // for a slot (see `GameRecord::sync_clock`); its budget is what
            // its clock allows then.
            let permit = if level > Level::Easy {
                Some(
                    self.repliers
                        .clone()
                        .acquire_owned()
                        .await
                        .map_err(|e| ServiceError::Internal(format!("bot pool closed: {e}")))?,
                )
            } else {
                None
            };
            let started = self.clock.now();
            let budget = self.budget_for(game);
            let suggestion = self.think(&game.position, level, seed, budget).await?;
            drop(permit);
            let (id, seen) = (game.id, game.version);
            let record = record.clone();
            let so_far = replies.clone();
            let clock = self.clock.clone();
            let reply = self
                .write(
                    Some(id),
                    Box::new(move |tx| {
                        Box::pin(async move {
                            let now = clock.now();
                            let mut current = load(tx, id, now).await?;
                            if current.version != seen || current.is_over() {
                                return Ok(None);
                            }
                            if let Some(clock) = &mut current.clock
                                && clock.since.is_none()
                            {
                                clock.since = Some(started);
                            }
                            let mv = apply(&mut current, suggestion.mv.input(), now)?;
                            tx.insert_move(id, &mv);
                            save(tx, &mut current, now).await?;
                            if let Some((key, request, render, answered)) = record {
                                let mut replies = so_far;
                                replies.push(mv);
                                let played = Played {
                                    mv: answered,
                                    game: current.clone(),
                                    replies,
                                };
                                tx.remember(id, &key, &request, &render(&played)?);
                            }
                            Ok(Some((mv, current)))
                        })
                    }),
                )
                .await?;
            let Some((mv, current)) = reply else {
                break;
            };
            self.publish(id);
            replies.push(mv);
            *game = current;
        }
        Ok(replies)
    }
}

/// `AssistanceForbidden` while a round of a rated game, or of one created
/// with assistance forbidden, is in progress: no hint, analysis or bot move
/// reaches it (a finished round is open to all).
fn check_unassisted(game: &GameRecord) -> Result<()> {
    if game.assistance_forbidden() && !game.is_over() {
        return Err(ServiceError::AssistanceForbidden);
    }
    Ok(())
}

impl Service {
    /// Counts a hint or an analysis that `seat` of `seen` (as read before
    /// the search) was answered, in a round between two people still in
    /// progress: the game's `assistance_used`, with an `assistance` event
    /// that tells the other seat. A round that moved on since is left alone.
    async fn count_assistance(&self, seen: &GameRecord, seat: Player) -> Result<()> {
        if !seen.between_two_people() || seen.is_over() {
            return Ok(());
        }
        let (id, round) = (seen.id, seen.round);
        let clock = self.clock.clone();
        let counted = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let mut game = load(tx, id, now).await?;
                        if game.round != round || game.is_over() {
                            return Ok(false);
                        }
                        game.assistance.used[seat.index()] += 1;
                        save(tx, &mut game, now).await?;
                        tx.insert_event(id, &super::event(&game, EventType::Assistance(seat)));
                        Ok(true)
                    })
                }),
            )
            .await?;
        if counted {
            self.publish(id);
        }
        Ok(())
    }
}

impl Service {
    /// Lets the bot to move in game `id` reply in the background, once a
    /// search slot is free (its clock stays stopped until its search
    /// starts): for a move answered without waiting for it, and at start
    /// for the games a stopped server left with a bot to move.
    pub(super) fn reply_later(&self, id: Uuid) {
        let service = self.clone();
        let place = self.reply_queue.defer();
        tokio::spawn(async move {
            let _place = place;
            let replied = match service.game(id).await {
                Ok(mut game) => service.bot_replies(&mut game, None).await.map(|_| ()),
                Err(ServiceError::GameNotFound) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = replied {
                tracing::warn!(game = %id, error = %e, "a bot's reply failed; it is made again at the next start");
            }
        });
    }

    /// Lets every bot to move reply (in the background): the replies a
    /// stopped server did not make. Called once at start.
    ///
    /// # Errors
    /// Store errors.
    pub async fn resume_bot_replies(&self) -> Result<usize> {
        let mut resumed = 0;
        let mut after = Some(0);
        while let Some(cursor) = after {
            let (ids, next) = self.store.bots_to_move(cursor, 512).await?;
            for id in ids {
                self.reply_later(id);
                resumed += 1;
            }
            after = next;
        }
        Ok(resumed)
    }
}

/// The bot levels a game of `setup` can be played, hinted and analyzed at,
/// weakest first.
#[must_use]
pub fn available_levels(setup: Setup) -> Vec<Level> {
    let position = AnyGame::new(setup);
    Level::ALL
        .into_iter()
        .filter(|&level| ai::check_available(&position, level).is_ok())
        .collect()
}

impl Service {
    /// The time a search for the side to move may take: the bot budget, or
    /// less when that side's clock runs, so that a bot with a sane clock
    /// never loses on time (a twentieth of its time plus half its increment,
    /// at most a third of what is left; a third of a per-move limit).
    pub(super) fn budget_for(&self, game: &GameRecord) -> Duration {
        let (Some(side), Some(clock)) = (game.clock_running(), game.clock) else {
            return self.bot_budget;
        };
        let left = clock.remaining_at(side, Some(side), self.clock.now());
        let share = match clock.control {
            TimeControl::Fischer { increment_ms, .. } => {
                (left / 20 + increment_ms / 2).min(left / 3)
            }
            TimeControl::PerMove { .. } => left / 3,
        };
        let share = Duration::from_millis(u64::try_from(share).unwrap_or(0).max(1));
        share.min(self.bot_budget)
    }
}

/// The bot replies that may run or wait for a search slot at once, each
/// answered with the move it follows. Past it, a person's move is still
/// played and answered; the bot's reply is made later ([`Reply::Later`]),
/// its clock stopped until its search starts.
#[derive(Clone, Debug)]
pub(super) struct ReplyQueue {
    held: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    limit: usize,
}

/// A place in the [`ReplyQueue`], given back when dropped.
#[derive(Debug)]
pub(super) struct ReplyPlace(std::sync::Arc<std::sync::atomic::AtomicUsize>);

/// How the bot to move after a move replies.
#[derive(Debug)]
pub(super) enum Reply {
    /// No bot searches next (a person's turn, the round over, or a bot of
    /// `easy` or below, which answers at once).
    Now,
    /// A bot searches next, in this place: its reply comes with the move's
    /// answer.
    Queued(
        #[expect(
            dead_code,
            reason = "held until the reply is made: dropping it gives the place back"
        )]
        ReplyPlace,
    ),
    /// The queue is full: the move is answered at once, and the bot replies
    /// when a search slot is free.
    Later,
}

impl ReplyQueue {
    pub(super) fn new(limit: usize) -> ReplyQueue {
        ReplyQueue {
            held: std::sync::Arc::default(),
            limit: limit.max(1),
        }
    }

    /// How the bot to move in `game`, if any, replies.
    pub(super) fn for_reply(&self, game: &GameRecord) -> Reply {
        use std::sync::atomic::Ordering;
        if game.is_over() || game.has_open_seat() {
            return Reply::Now;
        }
        let Seat::Bot { level, .. } = *game.seat(game.position.to_move()) else {
            return Reply::Now;
        };
        if level <= Level::Easy {
            return Reply::Now;
        }
        if self.held.fetch_add(1, Ordering::AcqRel) >= self.limit {
            self.held.fetch_sub(1, Ordering::AcqRel);
            return Reply::Later;
        }
        Reply::Queued(ReplyPlace(self.held.clone()))
    }

    /// A place for a reply made later, past the limit if need be: while it
    /// waits, the moves after it are answered at once too, rather than
    /// waiting behind it.
    pub(super) fn defer(&self) -> ReplyPlace {
        self.held.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        ReplyPlace(self.held.clone())
    }
}

impl Drop for ReplyPlace {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// The searches one client (by address) may hold, running or waiting, when
/// `searches` run at once: one less, so that a search thread is always left
/// for the others (at least one, so that a client can search at all).
#[must_use]
pub fn client_share(searches: usize) -> usize {
    searches.saturating_sub(1).max(1)
}

/// Runs a client's search off the async workers, holding `permit` (its
/// search thread) until it ends. The search runs under a stop pulled when
/// this future is dropped: when the request that waits for it goes away
/// (its client left), the search ends at once and gives its thread to the
/// next rather than search for nobody.
pub(super) async fn client_search<T: Send + 'static>(
    permit: tokio::sync::OwnedSemaphorePermit,
    search: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    /// Pulls the stop when dropped.
    struct StopOnDrop(ai::Stop);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.stop();
        }
    }
    let stop = StopOnDrop(ai::Stop::new());
    let run = stop.0.clone();
    spawn_blocking_with_tracing(move || {
        let _permit = permit;
        run.run(search)
    })
    .await
    .map_err(|e| ServiceError::Internal(format!("search task failed: {e}")))
}

/// The client searches running or waiting: the games they are for (one
/// search per game) and how many each client holds.
#[derive(Debug, Default)]
pub(super) struct Queued {
    games: std::collections::HashSet<Uuid>,
    clients: std::collections::HashMap<IpAddr, usize>,
}

/// A client search's place in the bots' queue, given back when dropped
/// (also when the request goes away while waiting).
pub(super) struct QueuePlace {
    queued: std::sync::Arc<std::sync::Mutex<Queued>>,
    game: Uuid,
    client: Option<IpAddr>,
}

impl QueuePlace {
    pub(super) fn take(
        service: &Service,
        game: Uuid,
        client: Option<IpAddr>,
    ) -> Result<QueuePlace> {
        let mut queued = service
            .queued
            .lock()
            .map_err(|_| ServiceError::Internal("bot queue poisoned".into()))?;
        if queued.games.contains(&game) {
            return Err(ServiceError::Busy(
                "a bot is already thinking about this game; retry when it has answered",
            ));
        }
        if queued.games.len() >= service.queue_limit {
            return Err(ServiceError::Busy(
                "the bots are at capacity; retry in a moment",
            ));
        }
        let share = client_share(service.searches);
        if let Some(ip) = client {
            if queued.clients.get(&ip).is_some_and(|&n| n >= share) {
                return Err(ServiceError::Busy(
                    "your searches already hold this client's share of the bots; retry when one has answered",
                ));
            }
            *queued.clients.entry(ip).or_insert(0) += 1;
        }
        queued.games.insert(game);
        Ok(QueuePlace {
            queued: service.queued.clone(),
            game,
            client,
        })
    }
}

impl Drop for QueuePlace {
    fn drop(&mut self) {
        if let Ok(mut queued) = self.queued.lock() {
            queued.games.remove(&self.game);
            if let Some(ip) = self.client
                && let Some(n) = queued.clients.get_mut(&ip)
            {
                *n -= 1;
                if *n == 0 {
                    queued.clients.remove(&ip);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::store::Store;
    use crate::telemetry::Metrics;

    /// A service on an in-memory store with `slots` search slots.
    async fn service_with(slots: usize) -> Service {
        let store = Store::open("sqlite::memory:", 1).await.unwrap();
        Service::new(
            store,
            Duration::from_millis(10),
            Metrics::new(),
            slots,
            Clock::system(),
        )
    }

    #[tokio::test]
    async fn client_searches_take_one_place_per_game_up_to_the_queue_limit() {
        let slots = 2;
        let service = service_with(slots).await;
        let games: Vec<Uuid> = (0..30).map(|_| Uuid::new_v4()).collect();
        // Each from a client of its own (one client's share is below).
        let client = |n: usize| Some(IpAddr::from([10, 0, 0, n as u8]));
        let mut places: Vec<_> = games
            .iter()
            .enumerate()
            .map(|(n, &game)| QueuePlace::take(&service, game, client(n)))
            .collect();
        let limit = slots * crate::service::QUEUE_PER_SLOT;
        assert!(places[..limit].iter().all(Result::is_ok));
        assert!(
            places[limit..]
                .iter()
                .all(|p| matches!(p, Err(ServiceError::Busy(_))))
        );
        // A game already searched is refused even with room in the queue.
        drop(places.pop());
        drop(places.swap_remove(0));
        assert!(matches!(
            QueuePlace::take(&service, games[1], client(99)),
            Err(ServiceError::Busy(_))
        ));
        // A place given back (a search done, or its request gone) is free again.
        let again = QueuePlace::take(&service, games[0], client(0));
        assert!(again.is_ok());
        assert!(matches!(
            QueuePlace::take(&service, games[limit], client(limit)),
            Err(ServiceError::Busy(_))
        ));
        drop(places);
        assert!(QueuePlace::take(&service, games[limit], client(limit)).is_ok());
    }

    #[tokio::test]
    async fn one_client_holds_at_most_its_share_of_the_queue() {
        let slots = 2;
        let service = service_with(slots).await;
        let share = client_share(slots);
        assert!(share < slots, "a thread is left for the others");
        let flood = Some(IpAddr::from([10, 0, 0, 1]));
        let games: Vec<Uuid> = (0..20).map(|_| Uuid::new_v4()).collect();
        let places: Vec<_> = games
            .iter()
            .map(|&game| QueuePlace::take(&service, game, flood))
            .collect();
        assert_eq!(places.iter().filter(|p| p.is_ok()).count(), share);
        // Others are served meanwhile, up to the queue's bound.
        let others: Vec<_> = (0..20)
            .map(|n| QueuePlace::take(&service, Uuid::new_v4(), Some(IpAddr::from([10, 0, 1, n]))))
            .collect();
        let limit = slots * crate::service::QUEUE_PER_SLOT;
        assert_eq!(others.iter().filter(|p| p.is_ok()).count(), limit - share);
        // Places the flooding client gives back are its own again.
        drop(places);
        let again: Vec<_> = games
            .iter()
            .map(|&game| QueuePlace::take(&service, game, flood))
            .collect();
        assert_eq!(again.iter().filter(|p| p.is_ok()).count(), share);
        drop(others);
    }
}
