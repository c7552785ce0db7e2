//! Webhook bots: bot players whose moves the service asks their own URL
//! for (`move_url`, set by `PATCH /v1/players/me`).
//!
//! When it is such a bot's turn in a game with a clock, the service POSTs a
//! `move.requested` to the URL, signed as webhooks are (Standard Webhooks,
//! with the bot's own secret), and plays the move of a 200 answer with the
//! bot's credential at the version it asked about (`If-Match`: once). A
//! failed, late or illegal answer is asked again after 1 s, 2 s, 4 s, …
//! while the bot's clock runs; when it runs out, the timeout sweeper ends
//! the game. Each turn is asked for by a task of its own, each request with
//! its own deadline, so a slow bot delays no other game.
//!
//! One loop per instance finds the turns: woken by the changes of games (on
//! PostgreSQL, other instances' too) and every [`POLL`], it reads the games
//! in progress of webhook bots (only while there is one) and starts a task
//! for each game at a version it has not looked at yet. Two instances may
//! both ask for one turn: the requests carry one `webhook-id`, and the move
//! is played once.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

use super::{Played, Result, Service, ServiceError, webhooks};
use crate::domain::GameRecord;
use crate::rules::notation::Line;
use crate::rules::{MoveInput, Player, Setup};
use crate::store::BotHook;

/// Renders the requests and reads the answers (the API's wire types).
pub trait MoveRequests: Send + Sync {
    /// The body of a `move.requested` for `seat` of `game`, whose round so
    /// far is `line`, to be answered before `deadline`.
    fn body(&self, game: &GameRecord, seat: Player, line: &Line, deadline: DateTime<Utc>)
    -> String;

    /// The move a bot's answer `body` names, for a game of `setup`, or why
    /// it names none.
    ///
    /// # Errors
    /// What is wrong with the answer, for the logs.
    fn answer(&self, setup: Setup, body: &[u8]) -> std::result::Result<MoveInput, String>;
}

/// The first wait before a turn is asked for again; each wait doubles, up
/// to [`LONGEST_WAIT`].
const FIRST_WAIT: Duration = Duration::from_secs(1);
const LONGEST_WAIT: Duration = Duration::from_secs(32);
/// The turns are looked for at most this often (changes come in bursts)…
const LOOK_EVERY: Duration = Duration::from_millis(20);
/// …and at least this often (another instance's change may be missed).
const POLL: Duration = Duration::from_millis(250);
/// How often the webhook bots are read again.
const RELOAD: Duration = Duration::from_secs(1);
/// The longest answer read.
const MAX_ANSWER: usize = 16 * 1024;

impl Service {
    /// Webhook bot `player`'s move URL and secret, if it has set one.
    ///
    /// # Errors
    /// Store errors.
    pub async fn bot_hook(&self, player: &str) -> Result<Option<BotHook>> {
        Ok(self.store.bot_hook(player).await?)
    }

    /// Starts the loop that asks webhook bots for their moves (one per
    /// instance).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn spawn_webhook_bots(&self, render: Arc<dyn MoveRequests>) -> anyhow::Result<()> {
        let client = webhooks::client(
            self.webhooks.allow_private,
            concat!("Tabula-Bots/", env!("CARGO_PKG_VERSION")),
        )?;
        let caller = Caller {
            service: self.clone(),
            render,
            client,
            asking: Arc::default(),
        };
        tokio::spawn(caller.find_turns());
        Ok(())
    }
}

/// What the tasks that ask share.
#[derive(Clone)]
struct Caller {
    service: Service,
    render: Arc<dyn MoveRequests>,
    client: reqwest::Client,
    /// The games a task is asking for a move of now.
    asking: Arc<Mutex<HashSet<Uuid>>>,
}

impl Caller {
    async fn find_turns(self) {
        let store = self.service.store.clone();
        let mut changes = store.subscribe();
        let mut hooks: HashMap<String, BotHook> = HashMap::new();
        let mut reloaded: Option<tokio::time::Instant> = None;
        // The version of each game last looked at.
        let mut seen: HashMap<Uuid, i64> = HashMap::new();
        let mut due = true;
        loop {
            if store.is_closed() {
                return;
            }
            if reloaded.is_none_or(|r| r.elapsed() >= RELOAD) {
                reloaded = Some(tokio::time::Instant::now());
                match store.bot_hooks().await {
                    Ok(list) => {
                        let read: HashMap<String, BotHook> =
                            list.into_iter().map(|h| (h.player.clone(), h)).collect();
                        if read != hooks {
                            // A game looked at before its bot's URL was
                            // known (or while it was another) is looked at again.
                            hooks = read;
                            seen.clear();
                            due = true;
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "reading the webhook bots failed"),
                }
            }
            if due && !hooks.is_empty() {
                due = false;
                match store.hooked_games().await {
                    Ok(games) => {
                        let current: HashMap<Uuid, i64> = games.into_iter().collect();
                        for (&id, &version) in &current {
                            if seen.get(&id) == Some(&version) || self.is_asking(id) {
                                continue;
                            }
                            seen.insert(id, version);
                            tokio::spawn(self.clone().ask(id, hooks.clone()));
                        }
                        seen.retain(|id, _| current.contains_key(id));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "looking for webhook bots' turns failed");
                        due = true;
                    }
                }
            }
            let wait = if due { LOOK_EVERY } else { POLL };
            tokio::select! {
                changed = changes.recv() => match changed {
                    Ok(_) | Err(RecvError::Lagged(_)) => {
                        due = true;
                        // What comes meanwhile is taken in the same look.
                        tokio::time::sleep(LOOK_EVERY).await;
                    }
                    Err(RecvError::Closed) => return,
                },
                () = tokio::time::sleep(wait) => due = true,
            }
        }
    }

    fn is_asking(&self, id: Uuid) -> bool {
        self.asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&id)
    }

    /// Asks the webhook bot to move in game `id`, if it is one's turn, until
    /// a move of it is played, the game moves on, or its clock runs out;
    /// then asks for the next turn if it is a webhook bot's too.
    async fn ask(self, id: Uuid, hooks: HashMap<String, BotHook>) {
        if !self
            .asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id)
        {
            return;
        }
        let _done = Asking(self.asking.clone(), id);
        let mut wait = FIRST_WAIT;
        let mut asked_at: Option<i64> = None;
        for attempt in 1.. {
            let turn = match self.turn(id, &hooks).await {
                Ok(Some(turn)) if asked_at.is_none_or(|v| v == turn.game.version) => turn,
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(game = %id, error = %e, "reading a webhook bot's game failed");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(LONGEST_WAIT);
                    continue;
                }
            };
            asked_at = Some(turn.game.version);
            let left = (turn.deadline - self.service.clock.now())
                .to_std()
                .unwrap_or_default();
            if left.is_zero() {
                return;
            }
            let why = match self.request(&turn, left.min(webhooks::TIMEOUT)).await {
                Ok(input) => match self.play(&turn, input).await {
                    Err(Some(why)) => why,
                    // Played: the next turn may be a webhook bot's too (two
                    // of them playing each other), asked for at once.
                    Ok(()) => {
                        asked_at = None;
                        wait = FIRST_WAIT;
                        continue;
                    }
                    // The turn has passed.
                    Err(None) => return,
                },
                Err(why) => why,
            };
            let wait_now = wait.min(left);
            tracing::info!(
                game = %id, bot = %turn.hook.player, attempt, %why,
                "a webhook bot's move request failed; asking again in {wait_now:?}"
            );
            tokio::time::sleep(wait_now).await;
            wait = (wait * 2).min(LONGEST_WAIT);
        }
    }

    /// The turn of a webhook bot in game `id`, if it is one's now: the game
    /// with a running clock, both seats taken, a bot of `hooks` to move.
    async fn turn(&self, id: Uuid, hooks: &HashMap<String, BotHook>) -> Result<Option<Turn>> {
        let (game, moves) = match self.service.history(id, None).await {
            Ok(found) => found,
            Err(ServiceError::GameNotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        if game.is_over() || game.has_open_seat() || game.clock.is_none() {
            return Ok(None);
        }
        let seat = game.position.to_move();
        let Some(player) = game.players.of(seat) else {
            return Ok(None);
        };
        let Some(hook) = hooks.get(&player.id).cloned() else {
            return Ok(None);
        };
        let Some(deadline) = game.deadline() else {
            return Ok(None);
        };
        let mut line = Line::empty(game.position.setup());
        for m in &moves {
            let mv = line.position().parse_move(m.mv).map_err(|e| {
                ServiceError::Internal(format!("stored move {} does not read: {e}", m.ply))
            })?;
            line.play(mv).map_err(|e| {
                ServiceError::Internal(format!("stored move {} is illegal: {e}", m.ply))
            })?;
        }
        Ok(Some(Turn {
            game,
            seat,
            line,
            deadline,
            hook,
        }))
    }

    /// Sends one `move.requested` and reads the move answered.
    async fn request(
        &self,
        turn: &Turn,
        timeout: Duration,
    ) -> std::result::Result<MoveInput, String> {
        let url = webhooks::guarded_url(&turn.hook.url, self.service.webhooks.allow_private)?;
        let body = self
            .render
            .body(&turn.game, turn.seat, &turn.line, turn.deadline);
        // One id per turn: a bot asked twice for it can tell.
        let message = format!("move_{}_{}", turn.game.id.simple(), turn.game.version);
        let timestamp = Utc::now().timestamp();
        let signature = webhooks::sign(&turn.hook.secret, &message, timestamp, &body)
            .ok_or("the secret does not decode")?;
        let mut answer = self
            .client
            .post(url)
            .timeout(timeout)
            .header("content-type", "application/json")
            .header("webhook-id", &message)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body)
            .send()
            .await
            .map_err(|e| crate::telemetry::error_chain(&e))?;
        let status = answer.status().as_u16();
        if status != 200 {
            return Err(format!("the bot answered {status}"));
        }
        let mut read = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|e| crate::telemetry::error_chain(&e))?
        {
            read.extend_from_slice(&chunk);
            if read.len() > MAX_ANSWER {
                return Err(format!("the answer is longer than {MAX_ANSWER} bytes"));
            }
        }
        self.render.answer(turn.game.position.setup(), &read)
    }

    /// Plays the bot's move: `Err(Some(why))` to ask again, `Err(None)`
    /// when the turn has passed (another instance played it, the game
    /// ended or changed).
    async fn play(&self, turn: &Turn, input: MoveInput) -> std::result::Result<(), Option<String>> {
        let credential = turn
            .game
            .players
            .of(turn.seat)
            .map(|p| p.credential)
            .ok_or(None)?;
        // No idempotency record is kept of these moves: nothing renders one.
        let unkept: super::Render = |_: &Played| {
            Err(ServiceError::Internal(
                "a webhook bot's move keeps no answer".into(),
            ))
        };
        match self
            .service
            .play_with(
                turn.game.id,
                credential,
                None,
                Some(turn.game.version),
                unkept,
                input,
                false,
            )
            .await
        {
            Ok(_) => Ok(()),
            Err(
                ServiceError::VersionMismatch(_)
                | ServiceError::GameOver
                | ServiceError::GameNotFound
                | ServiceError::NotYourTurn { .. }
                | ServiceError::InvalidToken,
            ) => Err(None),
            Err(e) => Err(Some(e.to_string())),
        }
    }
}

/// A webhook bot's turn: the game, its seat and round so far, until when.
struct Turn {
    game: GameRecord,
    seat: Player,
    line: Line,
    deadline: DateTime<Utc>,
    hook: BotHook,
}

/// Takes a game off the set of those asked for when its task ends.
struct Asking(Arc<Mutex<HashSet<Uuid>>>, Uuid);

impl Drop for Asking {
    fn drop(&mut self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.1);
    }
}
