//! The use cases: games and their moves, seats, offers, clocks and
//! rematches; bots, hints and analyses; quick match; players, sign-in and
//! ratings; webhooks; tournaments; rules as a service; the sweepers.
//!
//! This is where rules, ai and store meet. Each write is a job for the
//! store's writer: it loads the game, checks token, `If-Match`, status and
//! turn, asks the rules, stages the move, the new state and the change's
//! event (and any rating change or webhook event) in one transaction, and
//! returns only after it has committed. The store writes a game only if its
//! version is still the one read. Jobs check everything before they write,
//! so a refused job has written nothing (and a job that fails after writing
//! takes its whole batch back with it: see `store/writer.rs`). Bot replies
//! are computed outside any transaction (off the async workers) and written
//! by a job of their own.
//!
//! The use cases live in these files: `writes.rs` (create, join, play,
//! restart, rematch, claim, resign, delete), `history.rs` (the game, listings,
//! history, positions and the changes an event stream replays), `bots.rs`
//! (hints, analyses, bot moves and bot replies), `notation.rs` (a round as
//! text, and a new game's set-up line), `offers.rs` (offers and the timeout
//! sweeper), `matches.rs` (quick match), `expiry.rs` (the sweeper that
//! deletes games left waiting, finished or idle too long), `players.rs`
//! (keys, sign-in, seats bound to players, ratings), `webhooks.rs`
//! (endpoints and the deliverer), `webhook_bots.rs` (bots asked for their
//! moves at their URL), `challenges.rs` (challenges and a player's own
//! stream), `tournaments.rs` (tournaments: entry,
//! the sweeper that starts them and pairs their rounds, a game's end
//! recorded by the write that ends it) and `rules.rs` (positions and analyses of
//! lines, nothing stored); the checks they share are here.

mod bots;
mod challenges;
mod expiry;
mod history;
mod matches;
pub use matches::{MatchRequest, Matched, RenderGrant};
pub use webhooks::{
    DEFAULT_DISABLE_AFTER, DEFAULT_RETRY, PER_ENDPOINT, WebhookSettings, refused_address, sign,
};
mod notation;
mod offers;
mod players;
pub mod rules;
mod tournaments;
mod webhook_bots;
mod webhooks;
mod writes;

pub use bots::{available_levels, client_share};
pub use challenges::{NewChallenge, kinds as player_event_kinds};
pub use players::{
    DEFAULT_MATCH_WINDOW, DEFAULT_PLAYER_RATE, Identified, JwtVerifier, PlayerCreated,
    PlayerSettings,
};
pub use tournaments::{DEFAULT_ROUND_PAUSE, Enter, NewTournament, TournamentCreated};
pub use webhook_bots::MoveRequests;

use std::time::Duration;

use chrono::{DateTime, Utc};
use std::sync::Arc;

use tokio::sync::{Semaphore, broadcast};
use uuid::Uuid;

use crate::ai::Level;
/// What a hint, an analysis or a bot move answers with: the api renders these.
pub use crate::ai::{Analysis, Evaluation, Outcome, ScoredMove, Suggestion};
// What the API renders of webhooks and their events, as the store keeps it.
use crate::clock::Clock;
pub use crate::domain::ChangeKind;
use crate::domain::{
    EventRecord, EventType, GameRecord, IdempotentRecord, MoveRecord, RequestHash, StoredResponse,
    TimeControl, TokenHash,
};
use crate::rules::notation::LineError;
use crate::rules::{AnyMove, MoveInput, MoveParseError, Player, Refusal, Setup};
pub use crate::store::{
    AttemptRecord, BotHook, EventRender, PlayerEvent, WebhookRecord, player_stream_id,
};
use crate::store::{JobFn, Store, StoreError, WriteTx};
use crate::telemetry::Metrics;
pub use expiry::{Expiring, Expiry, ExpiryReason, SWEEP_LIMIT};

/// Why a use case refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("no such game")]
    GameNotFound,
    /// The bots are at capacity, or already searching for this game.
    #[error("{0}")]
    Busy(&'static str),
    /// No such round, or no such ply in it: the detail says what there is.
    #[error("{0}")]
    PositionNotFound(String),
    #[error("a seat token is required: send `Authorization: Bearer <token>`")]
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
    #[error("this game is private: send the invite code its creator was given, as `invite`")]
    InvalidInvite,
    #[error(
        "the round is in progress between two people: one seat alone cannot end or erase it; \
         make an offer (POST /v1/games/{{id}}/offers) or resign first"
    )]
    AgreementRequired,
    #[error("an offer is already pending: wait for the answer, or withdraw it")]
    OfferPending,
    #[error("there is no pending offer")]
    NoOffer,
    #[error("{0}")]
    NotYourOffer(&'static str),
    #[error("your seat has no move to take back in this round")]
    NothingToTakeBack,
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
    /// A set-up line (`moves` at create) with an unreadable or illegal move.
    #[error("{0}")]
    IllegalLine(Box<LineError>),
    #[error("{0}")]
    InvalidOption(String),
    /// A name refused (see `domain::normalize_name`).
    #[error("{0}")]
    InvalidName(String),
    #[error(
        "this Idempotency-Key was first sent with another request (another body, seat or \
         operation) and answers only that one: send a new key with a new request"
    )]
    IdempotencyKeyReused,
    /// The database cannot take the request now: nothing was changed, retry.
    /// Shown as its cause (the store's error names the driver's message).
    #[error(transparent)]
    Unavailable(Box<dyn std::error::Error + Send + Sync>),
    /// Any other failure of the database, shown as its cause.
    #[error(transparent)]
    Store(StoreError),
    /// A seat made offers faster than `offers::OFFER_BURST` in a row, then
    /// one every `offers::OFFER_EVERY`: retry after that many seconds.
    #[error("offers come too fast from this seat: wait {0} s before the next one")]
    TooManyOffers(u64),
    /// A client created its hourly share of players (`--player-rate`).
    #[error("this client has created its share of players for now: wait {0} s")]
    TooManyPlayers(u64),
    #[error("internal error: {0}")]
    Internal(String),
    /// A webhook endpoint's URL that is not http(s), or whose host resolves
    /// to an address the guard refuses.
    #[error("{0}")]
    WebhookUrlRefused(String),
    #[error("no such webhook")]
    WebhookNotFound,
    /// A player's key nobody has, or a JWT that does not verify.
    #[error("the bearer credential is not a player's key or a valid sign-in token")]
    BadCredential,
    /// A rated game needs a player's credential (a key or a sign-in).
    #[error(
        "a rated game needs a player: send a player's key (POST /v1/players) or a sign-in token as `Authorization: Bearer …`"
    )]
    PlayerRequired,
    /// A player cannot take both seats of a rated game.
    #[error("you already hold the other seat of this rated game")]
    SamePlayer,
    #[error("no such player")]
    PlayerNotFound,
    /// A rated game without a clock: an abandoned round would never end.
    #[error(
        "a rated game needs a clock (`clock`: e.g. {{\"initial_ms\": 300000, \"increment_ms\": 2000}}, or {{\"per_move_ms\": 86400000}} for correspondence play)"
    )]
    ClockRequired,
    /// A rematch of a game whose round is still in progress.
    #[error("the round is in progress: a rematch follows a round that is over")]
    RoundInProgress,
    /// The game has a rematch already: its id.
    #[error("this game has a rematch already: {0}")]
    RematchExists(Uuid),
    /// A hint, analysis or bot move for a rated round in progress.
    #[error(
        "this round is rated and in progress: hints, analyses and bot moves are for unrated games and finished rounds"
    )]
    AssistanceForbidden,
    /// A claim refused: too early (`Some`: when it will be open), by the
    /// side to move, or in a round that has a clock or a bot (`None`).
    #[error("{}", claim_refusal(.0.as_ref()))]
    ClaimNotAllowed(Option<DateTime<Utc>>),
    #[error("no such tournament")]
    TournamentNotFound,
    #[error("this player has not entered the tournament")]
    EntrantNotFound,
    /// A tournament without a clock: its rounds would never end.
    #[error(
        "a tournament needs a clock (`clock`: e.g. {{\"initial_ms\": 180000, \"increment_ms\": 2000}})"
    )]
    TournamentClockRequired,
    #[error("only the tournament's creator may do this")]
    NotTournamentCreator,
    #[error("the tournament has as many entrants as it takes (`max_entrants`)")]
    TournamentFull,
    #[error("this player has entered the tournament already")]
    AlreadyEntered,
    #[error("entry is closed: the tournament is over, or a round robin that has started")]
    EntryClosed,
    #[error("a tournament starts with 2 entrants or more")]
    NotEnoughEntrants,
    #[error("the tournament has started: it can no longer be started or deleted")]
    TournamentStarted,
    #[error("a tournament game cannot be restarted, rematched or deleted")]
    TournamentGame,
    #[error("an arena has no rounds: its games start as entrants are free")]
    ArenaHasNoRounds,
    #[error("no such round: the tournament has paired {0} so far")]
    RoundNotFound(u32),
    /// A challenge to the challenger's own player.
    #[error("a player cannot challenge themselves")]
    ChallengeSelf,
    #[error("no such challenge (or not one of yours)")]
    ChallengeNotFound,
    /// Accepting or declining a challenge one made, or cancelling one
    /// received.
    #[error(
        "only the challenged player accepts or declines a challenge, and only its challenger cancels it"
    )]
    NotYourChallenge,
    /// A challenge answered already, cancelled or expired: its status.
    #[error("the challenge is {0}: it waits for no answer")]
    ChallengeClosed(&'static str),
    /// A bot with as many games in progress as its `max_games`.
    #[error("this bot plays as many games as it takes on (`max_games`): challenge it later")]
    TooManyGames,
    /// A bot where only people may be (quick match).
    #[error(
        "bots do not quick match: they play the challenges they accept and the tournaments they enter"
    )]
    BotNotAllowed,
}

fn claim_refusal(at: Option<&DateTime<Utc>>) -> String {
    match at {
        Some(at) => format!(
            "the side to move may still come back: a claim is open from {}",
            at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        ),
        None => "no claim is open to this seat: only the seat not to move may claim, in a \
                 round between two people without a clock (with a clock, time decides)"
            .into(),
    }
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
#[derive(Clone, Debug)]
pub struct NewGame {
    pub setup: Setup,
    pub seat: Player,
    pub opponent: Opponent,
    pub hotseat: bool,
    /// The creator's name (checked by the service).
    pub name: Option<String>,
    /// Private: not listed, joined with the invite code.
    pub private: bool,
    pub clock: Option<TimeControl>,
    /// The set-up line: moves played from the start position before
    /// anything else (checked again at create; empty for the start position).
    pub moves: Vec<AnyMove>,
    /// Rated: both seats' players' ratings move when a round ends.
    pub rated: bool,
    /// Whether hints, analyses and bot moves are refused while a round is
    /// in progress (`"assistance": "forbidden"`; rated games always are);
    /// none used yet.
    pub assistance: crate::domain::Assistance,
    /// The creator's player, if their bearer credential names one: their
    /// seat is bound to them.
    pub player: Option<Identified>,
}

/// A seat just taken: the token is shown once, here, and so is a private
/// game's invite code, to its creator.
#[derive(Clone, Debug)]
pub struct SeatTaken {
    pub game: GameRecord,
    pub seat: Player,
    pub token: String,
    pub invite: Option<String>,
}

/// What a seat's ask for a rematch did.
#[derive(Clone, Debug)]
pub enum Rematched {
    /// An offer to the other seat (made now, or standing from before): the
    /// game, showing it.
    Offered(Box<GameRecord>),
    /// The rematch, made: the caller's seat in it.
    Made(Box<SeatTaken>),
}

/// An accepted offer, carried out: the game, and for a rematch the new
/// game with the accepting seat in it.
#[derive(Clone, Debug)]
pub struct Accepted {
    pub game: GameRecord,
    pub rematch: Option<SeatTaken>,
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

/// One change of a game, with the game as it stood right after it.
#[derive(Clone, Debug)]
pub struct Change {
    pub version: i64,
    pub kind: ChangeKind,
    pub game: GameRecord,
}

/// How long a challenge waits for its answer by default (`--challenge-expiry`).
pub const DEFAULT_CHALLENGE_EXPIRY: std::time::Duration = crate::domain::challenge::DEFAULT_EXPIRY;

/// A hint for the side to move.
#[derive(Clone, Copy, Debug)]
pub struct Hint {
    pub suggestion: Suggestion,
    pub level: Level,
}

/// Every legal move of the side to move, evaluated at a level.
#[derive(Clone, Debug)]
pub struct MoveAnalysis {
    pub analysis: Analysis,
    pub level: Level,
}

/// Which position an analysis is of: the live one when both are `None`;
/// else after `ply` moves (by default all) of `round` (by default the
/// current one).
#[derive(Clone, Copy, Debug, Default)]
pub struct AnalysisAt {
    pub round: Option<u32>,
    pub ply: Option<u32>,
}

/// A round's moves in the kind's notation, and how the round ended.
#[derive(Clone, Debug)]
pub struct RoundNotation {
    pub setup: Setup,
    pub round: u32,
    /// The moves, as `rules::notation` writes them.
    pub moves: String,
    /// `None` while the round is in progress (or was left unfinished by a restart).
    pub result: Option<RoundResult>,
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundResult {
    /// Won by a line or by the other side's resignation.
    Won(Player),
    Draw,
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
    /// Bounds the searches asked for by clients (hints, bot moves) running
    /// at once (each may use up to 64 MiB and a core); others wait.
    thinkers: Arc<Semaphore>,
    /// The same for a bot opponent's replies, so that they never wait behind
    /// clients' hints.
    repliers: Arc<Semaphore>,
    /// How many client searches may be running or waiting; past it: `Busy`.
    queue_limit: usize,
    /// How many client searches run at once (the thinkers' permits).
    searches: usize,
    /// Client searches running or waiting, and the games they are for (one
    /// search per game at a time).
    queued: Arc<std::sync::Mutex<bots::Queued>>,
    /// Where "now" comes from.
    clock: Clock,
    /// The ages after which games expire (see `expiry.rs`).
    expiry: Expiry,
    /// How long a game waits for quick match to find it an opponent; older
    /// ones are passed over (their people have likely gone).
    match_wait: Duration,
    /// Offers per game and seat between two people.
    offer_limiter: offers::OfferLimiter,
    /// Bot replies running or waiting for a slot (past it, a move that a
    /// bot would answer is refused with `Busy`).
    reply_queue: bots::ReplyQueue,
    /// Webhooks' retry schedule and address guard.
    webhooks: Arc<WebhookSettings>,
    /// How players sign in and rated quick match pairs them.
    players: Arc<PlayerSettings>,
    /// Analyses of finished rounds' positions (see [`Service::analysis`]).
    analyses: Arc<std::sync::Mutex<lru::LruCache<bots::AnalysisKey, Analysis>>>,
    /// The most work an analysis of a line may ask for.
    max_analysis_work: u64,
    /// A side's first-move deadline in rounds between people with a
    /// Fischer clock, in milliseconds (`--first-move-window`).
    first_move_ms: i64,
    /// How long the side to move may be away, without a clock, before the
    /// other seat may claim, in milliseconds (`--claim-after`).
    claim_after_ms: i64,
    /// How long a swiss or round robin rests between rounds (tournaments
    /// created from now on; `--round-pause`).
    round_pause: chrono::TimeDelta,
    /// How long a challenge waits for its answer (`--challenge-expiry`).
    challenge_expiry: chrono::TimeDelta,
}

/// How long a game waits for quick match by default (`--match-wait`).
pub const DEFAULT_MATCH_WAIT: Duration = Duration::from_mins(1);

/// Client searches that may wait per search slot before `Busy`.
pub const QUEUE_PER_SLOT: usize = 8;

impl Service {
    #[must_use]
    pub fn new(
        store: Store,
        bot_budget: Duration,
        metrics: Metrics,
        max_searches: usize,
        clock: Clock,
    ) -> Service {
        Service {
            store,
            bot_budget,
            metrics,
            thinkers: Arc::new(Semaphore::new(max_searches.max(1))),
            repliers: Arc::new(Semaphore::new(max_searches.max(1))),
            queue_limit: max_searches.max(1) * QUEUE_PER_SLOT,
            searches: max_searches.max(1),
            queued: Arc::default(),
            clock,
            expiry: Expiry::default(),
            match_wait: DEFAULT_MATCH_WAIT,
            offer_limiter: offers::OfferLimiter::new(),
            reply_queue: bots::ReplyQueue::new(max_searches.max(1) * QUEUE_PER_SLOT),
            webhooks: Arc::default(),
            players: Arc::default(),
            analyses: Arc::new(std::sync::Mutex::new(lru::LruCache::new(
                bots::KEPT_ANALYSES,
            ))),
            max_analysis_work: rules::DEFAULT_MAX_ANALYSIS_WORK,
            first_move_ms: crate::domain::DEFAULT_FIRST_MOVE_MS,
            claim_after_ms: crate::domain::DEFAULT_CLAIM_AFTER_MS,
            challenge_expiry: chrono::TimeDelta::from_std(crate::domain::challenge::DEFAULT_EXPIRY)
                .unwrap_or(chrono::TimeDelta::MAX),
            round_pause: chrono::TimeDelta::from_std(tournaments::DEFAULT_ROUND_PAUSE)
                .unwrap_or_default(),
        }
    }

    /// Sets the first-move window of Fischer clocks between people, and how
    /// long the side to move may be away before a claim (games created
    /// from now on).
    #[must_use]
    pub fn with_game_life(mut self, first_move: Duration, claim_after: Duration) -> Service {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        self.first_move_ms = ms(first_move);
        self.claim_after_ms = ms(claim_after);
        self
    }

    /// A new game's clock of `control`, with this service's first-move window.
    fn new_clock(&self, control: TimeControl) -> crate::domain::GameClock {
        crate::domain::GameClock::new(control, self.first_move_ms)
    }

    /// Sets the most work an analysis of a line may ask for.
    #[must_use]
    pub fn with_max_analysis_work(mut self, work: u64) -> Service {
        self.max_analysis_work = work;
        self
    }

    /// Sets how webhooks are delivered.
    #[must_use]
    pub fn with_webhooks(mut self, settings: WebhookSettings) -> Service {
        self.webhooks = Arc::new(settings);
        self
    }

    /// Sets how long a game waits for quick match to find it an opponent.
    #[must_use]
    pub fn with_match_wait(mut self, wait: Duration) -> Service {
        self.match_wait = wait;
        self
    }

    /// The service's time source.
    #[must_use]
    pub fn clock(&self) -> &Clock {
        &self.clock
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

    /// Runs a write job on the store's writer; `game` is the existing game
    /// it writes, if any (see [`Store::write`]).
    async fn write<T: Send + 'static>(
        &self,
        game: Option<Uuid>,
        job: JobFn<T, ServiceError>,
    ) -> Result<T> {
        self.store.write(game, job).await
    }

    /// A seat's change that is not a move (restart, resign, …): loads the
    /// game for the token's seat, lets `change` check and edit it and name
    /// the event, then saves both and tells the game's watchers.
    async fn seat_change(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
        change: impl FnOnce(&mut GameRecord, Player, DateTime<Utc>) -> Result<EventType>
        + Send
        + 'static,
    ) -> Result<GameRecord> {
        let token = self.seat_credential(token)?;
        let clock = self.clock.clone();
        let game = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let (mut game, seat) = load_seat(tx, id, &token, if_match, now).await?;
                        let kind = change(&mut game, seat, now)?;
                        game.sync_clock(now);
                        save(tx, &mut game, now).await?;
                        tx.insert_event(id, &event(&game, kind));
                        Ok(game)
                    })
                }),
            )
            .await?;
        self.publish(id);
        Ok(game)
    }
}

/// Loads the game for a write, as it stands at `now`: a round whose clock
/// ran out is over (see [`GameRecord::settle`]).
async fn load(tx: &mut WriteTx, id: Uuid, now: DateTime<Utc>) -> Result<GameRecord> {
    let mut game = tx.game(id).await?.ok_or(ServiceError::GameNotFound)?;
    game.settle(now);
    Ok(game)
}

/// Loads the game for a seat's write: the token must hold one of its seats
/// and `If-Match`, if any, must name its version (checked in that order).
async fn load_seat(
    tx: &mut WriteTx,
    id: Uuid,
    token: &TokenHash,
    if_match: Option<i64>,
    now: DateTime<Utc>,
) -> Result<(GameRecord, Player)> {
    let game = load(tx, id, now).await?;
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

/// The stored answer if `request` is a retry of the request an
/// idempotency key was first sent with; nothing if the key is new.
///
/// # Errors
/// `IdempotencyKeyReused` when the key was first sent with another request.
fn replay(
    record: Option<IdempotentRecord>,
    request: &RequestHash,
) -> Result<Option<StoredResponse>> {
    match record {
        None => Ok(None),
        Some(r) if r.answers(request) => Ok(Some(r.response)),
        Some(_) => Err(ServiceError::IdempotencyKeyReused),
    }
}

/// A move in canonical form, for a request's hash: the same move spelled
/// otherwise (key order, spaces) is the same request.
fn canonical_move(input: MoveInput) -> String {
    match input {
        MoveInput::Cell { row, col } => format!(r#"{{"row":{row},"col":{col}}}"#),
        MoveInput::Column { column } => format!(r#"{{"column":{column}}}"#),
        MoveInput::BoardCell { board, cell } => {
            format!(r#"{{"board":{board},"cell":{cell}}}"#)
        }
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
fn authorize_turn(game: &GameRecord, token: &TokenHash) -> Result<Player> {
    let seat = game.seat_of(token).ok_or(ServiceError::InvalidToken)?;
    check_playable(game, Some(seat))?;
    Ok(seat)
}

/// Plays `input` on the game's position at `now`: the mover's clock is
/// charged, a pending offer lapses, the other side's clock starts. The record
/// is untouched on refusal.
fn apply(game: &mut GameRecord, input: MoveInput, now: DateTime<Utc>) -> Result<MoveRecord> {
    let player = game.position.to_move();
    let first = game.first_move_pending();
    match game.position.play_input(input) {
        Ok(mv) => Ok({
            game.charge_move(player, first, now);
            game.offer = None;
            game.sync_clock(now);
            MoveRecord {
                round: game.round,
                ply: game.position.ply(),
                version: game.version + 1,
                player,
                mv: mv.input(),
                at: now,
            }
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
async fn save(tx: &mut WriteTx, game: &mut GameRecord, now: DateTime<Utc>) -> Result<()> {
    // Past a derived timeout's version too: the state written is another.
    let expected = game.stored_version();
    game.version += 1;
    game.derived = false;
    game.updated_at = now;
    game.as_of = now;
    // A round in progress until this write has a turn (`mark_turn`).
    let was_playing = game.turn.is_some();
    game.mark_turn(now);
    players::count_rated_round(tx, game, now).await?;
    players::rate_if_ended(tx, game).await?;
    tournaments::record_game_end(tx, game, now).await?;
    challenges::tell_game_finish(tx, game, was_playing, now).await?;
    if !was_playing && game.turn.is_some() {
        challenges::tell_round_start(tx, game, now).await?;
    }
    if tx.update_game(game, expected).await? {
        Ok(())
    } else {
        Err(ServiceError::Internal(
            "the game changed during a write".into(),
        ))
    }
}
