//! The use cases: create, join, play, restart, resign, delete, read, hint.
//!
//! This is where rules, ai and store meet. Each write is a job for the
//! store's writer: it loads the game, checks token, `If-Match`, status and
//! turn, asks the rules, writes the move and the new snapshot under
//! `WHERE version = ?`, and returns only after its transaction has committed.
//! A refused job is rolled back to its savepoint: nothing changes. Bot replies
//! are computed outside any transaction (off the async workers) and written
//! by a job of their own.

use std::time::Duration;

use chrono::Utc;
use rand::RngCore;
use std::sync::Arc;

use tokio::sync::{Semaphore, broadcast};
use uuid::Uuid;

use crate::ai::{self, Budget, Level, Suggestion};
use crate::domain::{
    EventRecord, EventType, GameRecord, ListFilter, MoveRecord, Seat, StoredResponse, TokenHash,
};
use crate::rules::{AnyGame, AnyMove, MoveInput, MoveParseError, Player, Refusal, Setup};
use crate::store::{JobFn, Store, StoreError, WriteTx};
use crate::telemetry::{Metrics, spawn_blocking_with_tracing};

/// Why a use case refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("no such game")]
    GameNotFound,
    #[error("no such position")]
    PositionNotFound,
    #[error("a bearer token is required")]
    MissingToken,
    #[error("the token is not a seat of this game")]
    InvalidToken,
    #[error("it is {turn}'s turn")]
    NotYourTurn { turn: Player },
    #[error("the game is over")]
    GameOver,
    #[error("a seat is still open")]
    WaitingForOpponent,
    #[error("both seats are taken")]
    NoOpenSeat,
    #[error("the game is at another version")]
    VersionMismatch(Box<GameRecord>),
    #[error("{0}")]
    Malformed(String),
    #[error("illegal move: {refusal}")]
    IllegalMove {
        refusal: Refusal,
        input: MoveInput,
        legal_moves: Vec<AnyMove>,
    },
    #[error("{0}")]
    InvalidOption(String),
    /// The database cannot take the request now: nothing was changed, retry.
    #[error("storage unavailable")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Any other failure of the database.
    #[error("storage error")]
    Store(#[source] StoreError),
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> ServiceError {
        if e.is_unavailable() {
            ServiceError::Unavailable(Box::new(e))
        } else {
            ServiceError::Store(e)
        }
    }
}

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;

/// The other seat of a new game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    Human,
    Bot { level: Level, seed: u64 },
}

/// A request to create a game, already parsed.
#[derive(Clone, Copy, Debug)]
pub struct NewGame {
    pub setup: Setup,
    pub seat: Player,
    pub opponent: Opponent,
    pub hotseat: bool,
}

/// A seat just taken: the token is shown once, here.
#[derive(Clone, Debug)]
pub struct SeatTaken {
    pub game: GameRecord,
    pub seat: Player,
    pub token: String,
}

/// A played move with the bot replies that followed it.
#[derive(Clone, Debug)]
pub struct Played {
    pub mv: MoveRecord,
    pub game: GameRecord,
    pub replies: Vec<MoveRecord>,
}

/// The answer to a move: freshly played, or the stored answer to a retry.
#[derive(Clone, Debug)]
pub enum MoveResult {
    Played(Box<Played>),
    Replayed(StoredResponse),
}

/// What a change did.
#[derive(Clone, Debug)]
pub enum ChangeKind {
    Join(Player),
    Move(MoveRecord),
    Restart,
    Resign(Player),
}

/// One change of a game, with the game as it stood right after it.
#[derive(Clone, Debug)]
pub struct Change {
    pub version: i64,
    pub kind: ChangeKind,
    pub game: GameRecord,
}

/// A hint for the side to move.
#[derive(Clone, Copy, Debug)]
pub struct Hint {
    pub suggestion: Suggestion,
    pub level: Level,
}

/// Preconditions a write may carry.
#[derive(Clone, Debug, Default)]
pub struct Preconditions {
    /// `If-Match`: the version the client last saw.
    pub if_match: Option<i64>,
    /// `Idempotency-Key`.
    pub idempotency_key: Option<String>,
}

/// Renders the answer to a move, for the idempotency record.
pub type Render = fn(&Played) -> Result<StoredResponse>;

/// The use cases over one store.
#[derive(Clone, Debug)]
pub struct Service {
    store: Store,
    bot_budget: Duration,
    metrics: Metrics,
    /// Bounds the searches running at once (each may use up to 64 MiB and a
    /// core); further requests wait for a permit.
    thinkers: Arc<Semaphore>,
}

impl Service {
    #[must_use]
    pub fn new(
        store: Store,
        bot_budget: Duration,
        metrics: Metrics,
        max_searches: usize,
    ) -> Service {
        Service {
            store,
            bot_budget,
            metrics,
            thinkers: Arc::new(Semaphore::new(max_searches.max(1))),
        }
    }

    /// Ids of games that changed (after the change committed; on PostgreSQL
    /// also through other instances). The nil id means "re-read everything".
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<Uuid> {
        self.store.subscribe()
    }

    fn publish(&self, id: Uuid) {
        self.store.publish(id);
    }

    /// Whether the database answers (for readiness probes).
    ///
    /// # Errors
    /// `Unavailable` when it does not.
    pub async fn ready(&self) -> Result<()> {
        self.store
            .ping()
            .await
            .map_err(|e| ServiceError::Unavailable(Box::new(e)))
    }

    /// Runs a write job on the store's writer.
    async fn write<T: Send + 'static>(&self, job: JobFn<T, ServiceError>) -> Result<T> {
        self.store.write(job).await
    }

    /// Creates a game; the caller takes `new.seat`. A bot holding X opens.
    ///
    /// # Errors
    /// `InvalidOption` (hotseat with a bot, an unavailable bot level), store errors.
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
        let token = new_token();
        let hash = TokenHash::of(&token);
        let mut seats = [Seat::Human { token: None }; 2];
        seats[new.seat.index()] = Seat::Human { token: Some(hash) };
        seats[new.seat.other().index()] = match new.opponent {
            Opponent::Human if new.hotseat => Seat::Human { token: Some(hash) },
            Opponent::Human => Seat::Human { token: None },
            Opponent::Bot { level, seed } => Seat::Bot { level, seed },
        };
        let now = Utc::now();
        let mut game = GameRecord {
            id: Uuid::now_v7(),
            position,
            seats,
            hotseat: new.hotseat,
            round: 1,
            resigned: None,
            version: 1,
            created_at: now,
            updated_at: now,
        };
        let record = game.clone();
        self.write(Box::new(move |tx| {
            Box::pin(async move {
                tx.insert_game(&record).await?;
                tx.insert_event(record.id, &event(&record, EventType::Create))
                    .await?;
                Ok(())
            })
        }))
        .await?;
        self.publish(game.id);
        self.bot_replies(&mut game, None).await?;
        Ok(SeatTaken {
            game,
            seat: new.seat,
            token,
        })
    }

    /// A game by id.
    ///
    /// # Errors
    /// `GameNotFound`, store errors.
    pub async fn game(&self, id: Uuid) -> Result<GameRecord> {
        self.store.game(id).await?.ok_or(ServiceError::GameNotFound)
    }

    /// Games matching a filter, with the next page's cursor.
    ///
    /// # Errors
    /// Store errors.
    pub async fn list(&self, filter: &ListFilter) -> Result<(Vec<GameRecord>, Option<i64>)> {
        Ok(self.store.list(filter).await?)
    }

    /// Takes the open seat.
    ///
    /// # Errors
    /// `GameNotFound`, `VersionMismatch`, `NoOpenSeat`, store errors.
    pub async fn join(&self, id: Uuid, if_match: Option<i64>) -> Result<SeatTaken> {
        let token = new_token();
        let hash = TokenHash::of(&token);
        let (game, seat) = self
            .write(Box::new(move |tx| {
                Box::pin(async move {
                    let mut game = load(tx, id).await?;
                    check_version(&game, if_match)?;
                    let seat = Player::BOTH
                        .into_iter()
                        .find(|&p| game.seat(p).is_open())
                        .ok_or(ServiceError::NoOpenSeat)?;
                    game.seats[seat.index()] = Seat::Human { token: Some(hash) };
                    save(tx, &mut game).await?;
                    tx.insert_event(id, &event(&game, EventType::Join(seat)))
                        .await?;
                    Ok((game, seat))
                })
            }))
            .await?;
        self.publish(id);
        Ok(SeatTaken { game, seat, token })
    }

    /// Plays a move for the token's seat, then lets a bot opponent reply.
    ///
    /// # Errors
    /// Every refusal of the contract's table, store errors.
    pub async fn play(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        input: MoveInput,
        render: Render,
    ) -> Result<MoveResult> {
        self.play_with(id, token, pre, render, input).await
    }

    /// Lets the server play one move at `level` for the side to move (the
    /// caller holds that seat's token), then lets a bot opponent reply.
    ///
    /// # Errors
    /// As [`Service::play`], plus `InvalidOption` for an unavailable level.
    pub async fn bot_move(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        level: Level,
        render: Render,
    ) -> Result<MoveResult> {
        // Check who may ask before thinking, then think outside the transaction.
        let game = self.game(id).await?;
        authorize_turn(&game, token)?;
        check_version(&game, pre.if_match)?;
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let seed = rand::rng().next_u64();
        let suggestion = self.think(&game.position, level, seed).await?;
        let expected = game.version;
        let pre = Preconditions {
            if_match: Some(expected),
            ..pre
        };
        self.play_with(id, token, pre, render, suggestion.mv.input())
            .await
    }

    async fn play_with(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        render: Render,
        input: MoveInput,
    ) -> Result<MoveResult> {
        let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
        let metrics = self.metrics.clone();
        let key = pre.idempotency_key.clone();
        let outcome = self
            .write(Box::new(move |tx| {
                Box::pin(async move {
                    let mut game = load(tx, id).await?;
                    let seat = game.seat_of(&token).ok_or(ServiceError::InvalidToken)?;
                    if let Some(key) = &key
                        && let Some(stored) = tx.idempotent(id, seat, key).await?
                    {
                        return Ok(Err(stored));
                    }
                    let kind = game.kind().as_str();
                    let checked = check_version(&game, pre.if_match)
                        .and_then(|()| check_playable(&game, Some(seat)))
                        .and_then(|()| apply(&mut game, input));
                    metrics.count_move(kind, checked.is_ok());
                    let mv = checked?;
                    tx.insert_move(id, &mv).await?;
                    save(tx, &mut game).await?;
                    let played = Played {
                        mv,
                        game,
                        replies: Vec::new(),
                    };
                    if let Some(key) = &key {
                        tx.remember(id, seat, key, &render(&played)?).await?;
                    }
                    Ok(Ok((played, seat)))
                })
            }))
            .await?;
        let (mut played, seat) = match outcome {
            Ok(done) => done,
            Err(stored) => return Ok(MoveResult::Replayed(stored)),
        };
        self.publish(id);
        let record = pre
            .idempotency_key
            .map(|key| (seat, key, render, played.mv));
        played.replies = self.bot_replies(&mut played.game, record).await?;
        Ok(MoveResult::Played(Box::new(played)))
    }

    /// Starts a new round from the empty board; a bot holding X opens it.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`,
    /// `WaitingForOpponent`, store errors.
    pub async fn restart(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
        let mut game = self
            .write(Box::new(move |tx| {
                Box::pin(async move {
                    let (mut game, _) = load_seat(tx, id, &token, if_match).await?;
                    if game.has_open_seat() {
                        return Err(ServiceError::WaitingForOpponent);
                    }
                    game.position = AnyGame::new(game.position.setup());
                    game.round += 1;
                    game.resigned = None;
                    save(tx, &mut game).await?;
                    tx.insert_event(id, &event(&game, EventType::Restart))
                        .await?;
                    Ok(game)
                })
            }))
            .await?;
        self.publish(id);
        self.bot_replies(&mut game, None).await?;
        Ok(game)
    }

    /// The caller's seat (hotseat: the side to move) gives up the round.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `GameOver`,
    /// `WaitingForOpponent`, store errors.
    pub async fn resign(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
        let game = self
            .write(Box::new(move |tx| {
                Box::pin(async move {
                    let (mut game, seat) = load_seat(tx, id, &token, if_match).await?;
                    check_playable(&game, None)?;
                    game.resigned = Some(seat);
                    save(tx, &mut game).await?;
                    tx.insert_event(id, &event(&game, EventType::Resign(seat)))
                        .await?;
                    Ok(game)
                })
            }))
            .await?;
        self.publish(id);
        Ok(game)
    }

    /// Deletes the game, its history and idempotency records.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, store errors.
    pub async fn delete(&self, id: Uuid, token: Option<&str>, if_match: Option<i64>) -> Result<()> {
        let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
        self.write(Box::new(move |tx| {
            Box::pin(async move {
                load_seat(tx, id, &token, if_match).await?;
                tx.delete_game(id).await?;
                Ok(())
            })
        }))
        .await?;
        self.publish(id);
        Ok(())
    }

    /// The moves of a round (default: the current one).
    ///
    /// # Errors
    /// `GameNotFound`, `PositionNotFound` for a round that does not exist,
    /// store errors.
    pub async fn history(
        &self,
        id: Uuid,
        round: Option<u32>,
    ) -> Result<(GameRecord, Vec<MoveRecord>)> {
        let game = self.game(id).await?;
        let round = round.unwrap_or(game.round);
        if round == 0 || round > game.round {
            return Err(ServiceError::PositionNotFound);
        }
        let moves = self.store.moves(id, game.kind(), round).await?;
        Ok((game, moves))
    }

    /// The position after `ply` moves of a round, replayed from its history.
    /// The record keeps the game's current seats and version; the position,
    /// round and resignation are those of that moment.
    ///
    /// # Errors
    /// `GameNotFound`, `PositionNotFound`, store errors.
    pub async fn position(&self, id: Uuid, round: Option<u32>, ply: u32) -> Result<GameRecord> {
        let (mut game, moves) = self.history(id, round).await?;
        let round = round.unwrap_or(game.round);
        if usize::try_from(ply).map_or(true, |p| p > moves.len()) {
            return Err(ServiceError::PositionNotFound);
        }
        let replayed = replay(game.position.setup(), &moves[..ply as usize])?;
        let last_of_round = ply as usize == moves.len();
        if !(round == game.round && last_of_round) {
            game.resigned = None;
        }
        game.position = replayed;
        game.round = round;
        Ok(game)
    }

    /// A suggested move for the side to move (the caller holds that seat's
    /// token, or the hotseat token).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `GameOver`, `WaitingForOpponent`,
    /// `NotYourTurn`, `InvalidOption`, store errors.
    pub async fn hint(&self, id: Uuid, token: Option<&str>, level: Level) -> Result<Hint> {
        let game = self.game(id).await?;
        authorize_turn(&game, token)?;
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let suggestion = self.think(&game.position, level, 0).await?;
        Ok(Hint { suggestion, level })
    }

    /// Every change after version `after`, in order, each with the game as it
    /// stood right after it (read back from the stored history). `None` when
    /// the game does not exist (any more).
    ///
    /// # Errors
    /// Store errors; `Internal` for a history that does not replay.
    pub async fn changes_since(&self, id: Uuid, after: i64) -> Result<Option<Vec<Change>>> {
        let Some(now) = self.store.game(id).await? else {
            return Ok(None);
        };
        if after >= now.version {
            return Ok(Some(Vec::new()));
        }
        let from_round = self.store.round_at(id, after).await?.unwrap_or(1);
        let (moves, events) = self.store.changes(id, now.kind(), from_round).await?;
        // A seat taken after version v was open at v.
        let joined_at = |seat: Player| {
            events.iter().find_map(|e| match e.event {
                EventType::Join(p) if p == seat => Some(e.version),
                _ => None,
            })
        };
        let join_versions = Player::BOTH.map(joined_at);
        let setup = now.position.setup();
        let mut state = now.clone();
        state.position = AnyGame::new(setup);
        state.round = from_round;
        state.resigned = None;
        let mut out = Vec::new();
        let (mut mi, mut ei) = (0, 0);
        loop {
            let take_move = match (moves.get(mi), events.get(ei)) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(m), Some(e)) => m.version < e.version,
            };
            let kind = if take_move {
                let m = moves[mi];
                mi += 1;
                state.position.play_input(m.mv).map_err(|e| {
                    ServiceError::Internal(format!("stored move at version {}: {e}", m.version))
                })?;
                state.version = m.version;
                state.updated_at = m.at;
                Some(ChangeKind::Move(m))
            } else {
                let e = events[ei];
                ei += 1;
                state.version = e.version;
                state.updated_at = e.at;
                match e.event {
                    EventType::Create => {
                        state.position = AnyGame::new(setup);
                        None
                    }
                    EventType::Restart => {
                        state.position = AnyGame::new(setup);
                        state.round = e.round;
                        state.resigned = None;
                        Some(ChangeKind::Restart)
                    }
                    EventType::Join(p) => Some(ChangeKind::Join(p)),
                    EventType::Resign(p) => {
                        state.resigned = Some(p);
                        Some(ChangeKind::Resign(p))
                    }
                }
            };
            if let Some(kind) = kind.filter(|_| state.version > after) {
                let mut game = state.clone();
                for seat in Player::BOTH {
                    if join_versions[seat.index()].is_some_and(|v| v > game.version) {
                        game.seats[seat.index()] = Seat::Human { token: None };
                    }
                }
                out.push(Change {
                    version: game.version,
                    kind,
                    game,
                });
            }
        }
        Ok(Some(out))
    }

    /// Runs a bot off the async workers.
    async fn think(&self, position: &AnyGame, level: Level, seed: u64) -> Result<Suggestion> {
        let position = position.clone();
        let budget = Budget {
            time: self.bot_budget,
        };
        let permit = self
            .thinkers
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ServiceError::Internal(format!("bot pool closed: {e}")))?;
        spawn_blocking_with_tracing(move || {
            let _permit = permit;
            ai::choose(&position, level, seed, budget)
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("bot task failed: {e}")))?
        .map_err(|e| ServiceError::InvalidOption(e.to_string()))?
        .ok_or_else(|| ServiceError::Internal("bot found no move".into()))
    }

    /// While a bot is to move in `game`, lets it move, one committed
    /// transaction per move. Stops quietly if the game changed meanwhile.
    /// `record` names an idempotency record (seat, key, renderer and the
    /// move it answers) to keep current after each reply.
    async fn bot_replies(
        &self,
        game: &mut GameRecord,
        record: Option<(Player, String, Render, MoveRecord)>,
    ) -> Result<Vec<MoveRecord>> {
        let mut replies = Vec::new();
        while !game.is_over() && !game.has_open_seat() {
            let Seat::Bot { level, seed } = *game.seat(game.position.to_move()) else {
                break;
            };
            let suggestion = self.think(&game.position, level, seed).await?;
            let (id, seen) = (game.id, game.version);
            let record = record.clone();
            let so_far = replies.clone();
            let reply = self
                .write(Box::new(move |tx| {
                    Box::pin(async move {
                        let mut current = load(tx, id).await?;
                        if current.version != seen {
                            return Ok(None);
                        }
                        let mv = apply(&mut current, suggestion.mv.input())?;
                        tx.insert_move(id, &mv).await?;
                        save(tx, &mut current).await?;
                        if let Some((seat, key, render, answered)) = record {
                            let mut replies = so_far;
                            replies.push(mv);
                            let played = Played {
                                mv: answered,
                                game: current.clone(),
                                replies,
                            };
                            tx.remember(id, seat, &key, &render(&played)?).await?;
                        }
                        Ok(Some((mv, current)))
                    })
                }))
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

/// 256 random bits from the OS-seeded CSPRNG, hex-encoded.
fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

async fn load(tx: &mut WriteTx, id: Uuid) -> Result<GameRecord> {
    tx.game(id).await?.ok_or(ServiceError::GameNotFound)
}

/// Loads the game for a seat's write: the token must hold one of its seats
/// and `If-Match`, if any, must name its version (checked in that order).
async fn load_seat(
    tx: &mut WriteTx,
    id: Uuid,
    token: &TokenHash,
    if_match: Option<i64>,
) -> Result<(GameRecord, Player)> {
    let game = load(tx, id).await?;
    let seat = game.seat_of(token).ok_or(ServiceError::InvalidToken)?;
    check_version(&game, if_match)?;
    Ok((game, seat))
}

fn check_version(game: &GameRecord, if_match: Option<i64>) -> Result<()> {
    match if_match {
        Some(v) if v != game.version => Err(ServiceError::VersionMismatch(Box::new(game.clone()))),
        _ => Ok(()),
    }
}

/// The game accepts a move now, from `seat` if given.
fn check_playable(game: &GameRecord, seat: Option<Player>) -> Result<()> {
    if game.is_over() {
        return Err(ServiceError::GameOver);
    }
    if game.has_open_seat() {
        return Err(ServiceError::WaitingForOpponent);
    }
    let turn = game.position.to_move();
    match seat {
        Some(s) if s != turn => Err(ServiceError::NotYourTurn { turn }),
        _ => Ok(()),
    }
}

/// The token holds the seat to move of a playable game.
fn authorize_turn(game: &GameRecord, token: Option<&str>) -> Result<Player> {
    let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
    let seat = game.seat_of(&token).ok_or(ServiceError::InvalidToken)?;
    check_playable(game, Some(seat))?;
    Ok(seat)
}

/// Plays `input` on the game's position; the record is untouched on refusal.
fn apply(game: &mut GameRecord, input: MoveInput) -> Result<MoveRecord> {
    let player = game.position.to_move();
    match game.position.play_input(input) {
        Ok(mv) => Ok(MoveRecord {
            round: game.round,
            ply: game.position.ply(),
            version: game.version + 1,
            player,
            mv: mv.input(),
            at: Utc::now(),
        }),
        Err(MoveParseError::WrongShape { kind }) => Err(ServiceError::Malformed(format!(
            "a {kind} move looks like {}",
            kind.move_shape()
        ))),
        Err(MoveParseError::Refused(refusal)) => Err(ServiceError::IllegalMove {
            refusal,
            input,
            legal_moves: game.position.legal_moves(),
        }),
    }
}

/// The record of a change that is not a move, at the game's (new) version.
fn event(game: &GameRecord, event: EventType) -> EventRecord {
    EventRecord {
        version: game.version,
        event,
        round: game.round,
        at: game.updated_at,
    }
}

/// Bumps the version and writes the game. The writer holds the write lock,
/// so the version check cannot fail unless the database was changed behind
/// the service's back.
async fn save(tx: &mut WriteTx, game: &mut GameRecord) -> Result<()> {
    let expected = game.version;
    game.version = expected + 1;
    game.updated_at = Utc::now();
    if tx.update_game(game, expected).await? {
        Ok(())
    } else {
        Err(ServiceError::Internal(
            "the game changed during a write".into(),
        ))
    }
}

/// The position reached by playing stored moves from the empty board. Stored
/// moves go through the same checks as requests do.
///
/// # Errors
/// `Internal` when a stored move is not legal (a corrupt history).
pub fn replay(setup: Setup, moves: &[MoveRecord]) -> Result<AnyGame> {
    let mut position = AnyGame::new(setup);
    for m in moves {
        position.play_input(m.mv).map_err(|e| {
            ServiceError::Internal(format!("stored move {} is illegal: {e}", m.ply))
        })?;
    }
    Ok(position)
}
