//! Tournaments: create, enter, leave, start, delete, read; the sweeper that
//! starts them, pairs their rounds (and an arena's free entrants) and
//! finishes them; and the record of a tournament game's end, written by the
//! write that ends it. The pairing, standings and TRF are pure values in
//! `domain::tournament`.
//!
//! Each write locks the tournament's row (PostgreSQL) and replaces it at
//! the version it read, with one change recorded per version: a round is
//! paired by the one write that moves `round` on, whichever instance's
//! sweeper gets there first, and a round a crash left unpaired is still due
//! (`due_at`) when the service comes back.

use chrono::{DateTime, TimeDelta, Utc};
use rand::RngCore;
use serde_json::{Value, json};
use uuid::Uuid;

use super::writes::{check_clock, new_token};
use super::{Result, Service, ServiceError, event, players};
use tabula_pairing::dutch::DutchError;

use crate::ai::{self, Level};
use crate::domain::player::{PlayerRecord, SeatPlayer};
use crate::domain::tournament::{
    ARENA_MS, Board, BoardResult, Entrant, EntryRefused, MAX_ENTRANTS, MAX_ROUND_ROBIN,
    MAX_SWISS_ROUNDS, NewBoard, Step, System, TournamentRecord, TournamentStatus, UNRATED,
};
use crate::domain::webhook::WebhookEvent;
use crate::domain::{
    Assistance, EventType, GameRecord, GameStatus, Seat, TimeControl, TokenHash, normalize_name,
};
use crate::rules::{AnyGame, GameKind, Player, Setup};
use crate::store::{TournamentEvent, WriteTx};

/// How long a swiss or round robin rests between rounds by default
/// (`--round-pause`).
pub const DEFAULT_ROUND_PAUSE: std::time::Duration = std::time::Duration::from_secs(10);

/// A tournament to create, as asked (checked here).
#[derive(Clone, Debug)]
pub struct NewTournament {
    pub name: String,
    pub setup: Setup,
    pub system: System,
    pub clock: Option<TimeControl>,
    pub rated: bool,
    pub rounds: Option<u32>,
    pub double: bool,
    pub duration_ms: Option<i64>,
    pub max_entrants: Option<u32>,
    pub starts_at: Option<DateTime<Utc>>,
    pub private: bool,
}

/// A tournament just created: its private invite code is shown once, here.
#[derive(Clone, Debug)]
pub struct TournamentCreated {
    pub tournament: TournamentRecord,
    pub invite: Option<String>,
}

/// Who enters: the caller, or (by the creator) one of the service's bots.
#[derive(Clone, Copy, Debug)]
pub enum Enter {
    Me,
    Bot(Level),
}

fn invalid(message: impl Into<String>) -> ServiceError {
    ServiceError::InvalidOption(message.into())
}

impl NewTournament {
    /// Checks what the system needs and takes nothing it does not.
    fn check(&mut self) -> Result<TimeControl> {
        self.name = normalize_name(&self.name).map_err(ServiceError::InvalidName)?;
        let clock = self.clock.ok_or(ServiceError::TournamentClockRequired)?;
        check_clock(clock)?;
        match self.system {
            System::Swiss => match self.rounds {
                Some(r) if (1..=MAX_SWISS_ROUNDS).contains(&r) => {}
                _ => {
                    return Err(invalid(format!(
                        "a swiss needs `rounds`, 1 to {MAX_SWISS_ROUNDS}"
                    )));
                }
            },
            System::RoundRobin if self.rounds.is_some() => {
                return Err(invalid(
                    "a round robin's rounds follow from its entrants: leave out `rounds`",
                ));
            }
            System::RoundRobin => {}
            System::Arena => {
                if self.rounds.is_some() {
                    return Err(invalid("an arena has no rounds: leave out `rounds`"));
                }
                match self.duration_ms {
                    Some(ms) if (ARENA_MS.0..=ARENA_MS.1).contains(&ms) => {}
                    _ => {
                        return Err(invalid(format!(
                            "an arena needs `duration_ms`, {} (1 min) to {} (24 h)",
                            ARENA_MS.0, ARENA_MS.1
                        )));
                    }
                }
            }
        }
        if self.system != System::Arena && self.duration_ms.is_some() {
            return Err(invalid("only an arena takes `duration_ms`"));
        }
        if self.system != System::RoundRobin && self.double {
            return Err(invalid("only a round robin takes `double`"));
        }
        let most = if self.system == System::RoundRobin {
            MAX_ROUND_ROBIN
        } else {
            MAX_ENTRANTS
        };
        let max = self.max_entrants.unwrap_or(most);
        if !(2..=most).contains(&max) {
            return Err(invalid(format!(
                "`max_entrants` must be from 2 to {most} for a {}",
                self.system.as_str()
            )));
        }
        self.max_entrants = Some(max);
        Ok(clock)
    }
}

impl From<EntryRefused> for ServiceError {
    fn from(r: EntryRefused) -> ServiceError {
        match r {
            EntryRefused::Full => ServiceError::TournamentFull,
            EntryRefused::Already => ServiceError::AlreadyEntered,
            EntryRefused::Closed => ServiceError::EntryClosed,
        }
    }
}

/// A change to record: its type and what it says.
type Change = (&'static str, Value);

/// A round paired outside the write (the Dutch system takes seconds for
/// hundreds of entrants, and a write holds SQLite's one writer): the round,
/// the tournament's version it was paired from, and the pairing.
type Paired = (u32, i64, Result<Vec<NewBoard>, DutchError>);

/// Up to this many entrants a round is paired inside the write that starts
/// it (a few milliseconds); past it, by the sweeper before its write.
const INLINE_PAIRING: usize = 64;

impl Service {
    /// Sets how long a swiss or round robin rests between rounds.
    #[must_use]
    pub fn with_round_pause(mut self, pause: std::time::Duration) -> Service {
        self.round_pause = TimeDelta::from_std(pause).unwrap_or(TimeDelta::MAX);
        self
    }

    /// The player a bearer credential names, for tournaments.
    async fn tournament_player(&self, bearer: Option<&str>) -> Result<super::Identified> {
        self.identify(bearer)
            .await?
            .ok_or(ServiceError::PlayerRequired)
    }

    /// Creates a tournament; its creator is the caller's player.
    ///
    /// # Errors
    /// `PlayerRequired`, `BadCredential`, `InvalidName`,
    /// `TournamentClockRequired`, `InvalidOption`, store errors.
    pub async fn create_tournament(
        &self,
        bearer: Option<&str>,
        mut new: NewTournament,
    ) -> Result<TournamentCreated> {
        let creator = self.tournament_player(bearer).await?;
        let clock = new.check()?;
        let now = self.clock.now();
        let invite = new.private.then(new_token);
        let t = TournamentRecord {
            id: Uuid::now_v7(),
            name: new.name,
            setup: new.setup,
            system: new.system,
            clock,
            rated: new.rated,
            rounds: new.rounds,
            double: new.double,
            duration_ms: new.duration_ms,
            max_entrants: new.max_entrants.unwrap_or(MAX_ENTRANTS),
            starts_at: new.starts_at,
            private: new.private,
            invite: invite.as_deref().map(TokenHash::of),
            status: TournamentStatus::Open,
            round: 0,
            creator: creator.player.id.clone(),
            created_at: now,
            started_at: None,
            ends_at: None,
            finished_at: None,
            round_ended_at: None,
            pause_ms: self.round_pause.num_milliseconds(),
            version: 1,
            entrants: Vec::new(),
            boards: Vec::new(),
        };
        let record = t.clone();
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    if creator.new {
                        tx.insert_player(&creator.player).await?;
                    }
                    tx.insert_tournament(&record, record.due_at(now)).await?;
                    Ok(())
                })
            }),
        )
        .await?;
        self.publish(t.id);
        Ok(TournamentCreated {
            tournament: t,
            invite,
        })
    }

    /// The tournament by id.
    ///
    /// # Errors
    /// `TournamentNotFound`, store errors.
    pub async fn tournament(&self, id: Uuid) -> Result<TournamentRecord> {
        self.store
            .tournament(id)
            .await?
            .ok_or(ServiceError::TournamentNotFound)
    }

    /// Public tournaments, newest first, with the next page's cursor.
    ///
    /// # Errors
    /// Store errors.
    pub async fn tournaments(
        &self,
        status: Option<TournamentStatus>,
        kind: Option<GameKind>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<TournamentRecord>, Option<i64>)> {
        Ok(self.store.tournaments(status, kind, before, limit).await?)
    }

    /// The changes of tournament `id` after version `after`.
    ///
    /// # Errors
    /// Store errors.
    pub async fn tournament_changes(&self, id: Uuid, after: i64) -> Result<Vec<TournamentEvent>> {
        Ok(self.store.tournament_events(id, after, 256).await?)
    }

    /// The games of tournament `id` (of `player` if given), latest first.
    ///
    /// # Errors
    /// `TournamentNotFound`, store errors.
    pub async fn tournament_games(
        &self,
        id: Uuid,
        player: Option<&str>,
        skip: usize,
        limit: usize,
    ) -> Result<(Vec<GameRecord>, bool)> {
        let t = self.tournament(id).await?;
        let who = player.map(|p| t.entrant_of(p));
        let ids: Vec<Uuid> = t
            .boards
            .iter()
            .rev()
            .filter(|b| match who {
                None => true,
                Some(None) => false,
                Some(Some(i)) => b.white == i || b.black == Some(i),
            })
            .filter_map(|b| b.game)
            .collect();
        let mut games = Vec::new();
        for game in ids.iter().skip(skip).take(limit) {
            if let Some(g) = self.store.game(*game).await? {
                games.push(g);
            }
        }
        Ok((games, ids.len() > skip + limit))
    }

    /// Runs `change` on tournament `id` in a write: it checks and edits the
    /// record (and `extra`, a player to create with it) and names the
    /// changes to record; then the record is saved at
    /// a version past each change, and any step now due is taken. Returns
    /// the tournament as saved and the games the step started.
    async fn tournament_write<T: Send + 'static>(
        &self,
        id: Uuid,
        change: impl FnOnce(
            &mut TournamentRecord,
            DateTime<Utc>,
            &mut Option<PlayerRecord>,
        ) -> Result<(T, Vec<Change>)>
        + Send
        + 'static,
        mut extra: Option<PlayerRecord>,
        paired: Option<Paired>,
    ) -> Result<(TournamentRecord, T)> {
        let clock = self.clock.clone();
        let service = self.clone();
        let (t, out, started) = self
            .write(
                None,
                Box::new(move |tx| {
                    Box::pin(async move {
                        let now = clock.now();
                        let mut t = tx
                            .tournament(id)
                            .await?
                            .ok_or(ServiceError::TournamentNotFound)?;
                        let expected = t.version;
                        let (out, mut changes) = change(&mut t, now, &mut extra)?;
                        if let Some(player) = &extra {
                            tx.insert_player(player).await?;
                        }
                        let started = service
                            .take_steps(tx, &mut t, now, &mut changes, paired)
                            .await?;
                        save_tournament(tx, &mut t, expected, changes, now).await?;
                        Ok((t, out, started))
                    })
                }),
            )
            .await?;
        self.after_steps(&t, &started);
        Ok((t, out))
    }

    /// Tells watchers of the tournament and of its new games, and lets the
    /// bots to move in those games reply.
    fn after_steps(&self, t: &TournamentRecord, started: &[GameRecord]) {
        self.publish(t.id);
        for game in started {
            self.publish(game.id);
            if matches!(game.seat(game.position.to_move()), Seat::Bot { .. }) {
                self.reply_later(game.id);
            }
        }
    }

    /// Enters the caller's player, or (the creator only) one of the
    /// service's bots, a player of its own named after its level.
    ///
    /// # Errors
    /// `PlayerRequired`, `NotTournamentCreator`, `InvalidInvite`,
    /// `TournamentFull`, `AlreadyEntered`, `EntryClosed`, `InvalidOption` (a
    /// level the kind has not), `TournamentNotFound`, store errors.
    pub async fn enter_tournament(
        &self,
        bearer: Option<&str>,
        id: Uuid,
        who: Enter,
        invite: Option<String>,
    ) -> Result<(TournamentRecord, usize)> {
        let caller = self.tournament_player(bearer).await?;
        let now = self.clock.now();
        let (entrant, extra) = match who {
            Enter::Me => (
                Entrant {
                    player: caller.player.id.clone(),
                    name: caller.player.name.clone(),
                    level: None,
                    credential: caller.credential,
                    rating: UNRATED,
                    number: 0,
                    withdrawn: false,
                    from_round: 1,
                    bot: caller.player.bot,
                },
                caller.new.then(|| caller.player.clone()),
            ),
            Enter::Bot(level) => {
                let mut key = [0u8; 32];
                rand::rng().fill_bytes(&mut key);
                let credential = TokenHash::of(&hex::encode(key));
                let player = PlayerRecord {
                    id: Uuid::now_v7().to_string(),
                    name: format!("Bot ({level})"),
                    key: Some(credential),
                    created_at: now,
                    bot: true,
                    max_games: crate::domain::player::MOST_GAMES,
                };
                (
                    Entrant {
                        player: player.id.clone(),
                        name: player.name.clone(),
                        level: Some(level),
                        credential,
                        rating: UNRATED,
                        number: 0,
                        withdrawn: false,
                        from_round: 1,
                        bot: true,
                    },
                    Some(player),
                )
            }
        };
        let caller_id = caller.player.id.clone();
        let kind_rating = if matches!(who, Enter::Me) {
            self.store
                .player(&caller_id)
                .await?
                .map(|v| v.ratings)
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let (t, index) = self
            .tournament_write(
                id,
                move |t, _, extra| {
                    if let Enter::Bot(level) = who {
                        if t.creator != caller_id {
                            return Err(ServiceError::NotTournamentCreator);
                        }
                        ai::check_available(&AnyGame::new(t.setup), level)
                            .map_err(|e| invalid(e.to_string()))?;
                    } else if t.private && t.creator != caller_id {
                        let given = invite.as_deref().map(TokenHash::of);
                        if given.is_none() || given != t.invite {
                            return Err(ServiceError::InvalidInvite);
                        }
                    }
                    t.check_entry(&entrant.player)?;
                    let mut entrant = entrant;
                    // Bots of one level are told apart: "Bot (easy) 2".
                    if let Some(level) = entrant.level {
                        let same = t.entrants.iter().filter(|e| e.level == Some(level)).count();
                        if same > 0 {
                            entrant.name = format!("{} {}", entrant.name, same + 1);
                            if let Some(player) = extra {
                                player.name.clone_from(&entrant.name);
                            }
                        }
                    }
                    // Late entrants are ranked by the rating they come with.
                    if let Some((_, r)) = kind_rating.iter().find(|(k, _)| *k == t.setup.kind()) {
                        entrant.rating = r.rating.rating;
                    }
                    let i = t.enter(entrant);
                    let e = &t.entrants[i];
                    let data = json!({"entrant": entrant_json(t, i), "player": e.player});
                    Ok((i, vec![("entrant", data)]))
                },
                extra,
                None,
            )
            .await?;
        Ok((t, index))
    }

    /// Takes `player` out of the tournament: that player, or its creator.
    /// Before the start the entrant is removed; after it, withdrawn.
    ///
    /// # Errors
    /// `PlayerRequired`, `NotTournamentCreator`, `EntrantNotFound`,
    /// `EntryClosed` (the tournament is over), store errors.
    pub async fn leave_tournament(
        &self,
        bearer: Option<&str>,
        id: Uuid,
        player: String,
    ) -> Result<()> {
        let caller = self.tournament_player(bearer).await?;
        self.tournament_write(
            id,
            move |t, _, _| {
                if caller.player.id != player && caller.player.id != t.creator {
                    return Err(ServiceError::NotTournamentCreator);
                }
                let i = t.entrant_of(&player).ok_or(ServiceError::EntrantNotFound)?;
                if matches!(
                    t.status,
                    TournamentStatus::Finished | TournamentStatus::Cancelled
                ) {
                    return Err(ServiceError::EntryClosed);
                }
                if t.entrants[i].withdrawn {
                    return Ok(((), Vec::new()));
                }
                t.leave(i);
                Ok(((), vec![("withdrawn", json!({"player": player}))]))
            },
            None,
            None,
        )
        .await?;
        Ok(())
    }

    /// Starts the tournament now: its creator only, while it is open, with
    /// two entrants or more.
    ///
    /// # Errors
    /// `PlayerRequired`, `NotTournamentCreator`, `TournamentStarted`,
    /// `NotEnoughEntrants`, store errors.
    pub async fn start_tournament(
        &self,
        bearer: Option<&str>,
        id: Uuid,
    ) -> Result<TournamentRecord> {
        let caller = self.tournament_player(bearer).await?;
        let (t, ()) = self
            .tournament_write(
                id,
                move |t, now, _| {
                    if caller.player.id != t.creator {
                        return Err(ServiceError::NotTournamentCreator);
                    }
                    if t.status != TournamentStatus::Open {
                        return Err(ServiceError::TournamentStarted);
                    }
                    if t.entrants.len() < 2 {
                        return Err(ServiceError::NotEnoughEntrants);
                    }
                    // Started now: the sweeper's step of `starts_at`.
                    t.starts_at = Some(now);
                    Ok(((), Vec::new()))
                },
                None,
                None,
            )
            .await?;
        Ok(t)
    }

    /// Deletes a tournament that has not started: its creator only.
    ///
    /// # Errors
    /// `PlayerRequired`, `NotTournamentCreator`, `TournamentStarted`,
    /// `TournamentNotFound`, store errors.
    pub async fn delete_tournament(&self, bearer: Option<&str>, id: Uuid) -> Result<()> {
        let caller = self.tournament_player(bearer).await?;
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    let t = tx
                        .tournament(id)
                        .await?
                        .ok_or(ServiceError::TournamentNotFound)?;
                    if caller.player.id != t.creator {
                        return Err(ServiceError::NotTournamentCreator);
                    }
                    if !matches!(
                        t.status,
                        TournamentStatus::Open | TournamentStatus::Cancelled
                    ) {
                        return Err(ServiceError::TournamentStarted);
                    }
                    tx.delete_tournament(id).await?;
                    Ok(())
                })
            }),
        )
        .await?;
        self.publish(id);
        Ok(())
    }

    /// Takes every step due in tournament `t` at `now` (start, pair, finish;
    /// a few in a row: a start pairs the first round at once), recording
    /// the changes; returns the games it started.
    async fn take_steps(
        &self,
        tx: &mut WriteTx,
        t: &mut TournamentRecord,
        now: DateTime<Utc>,
        changes: &mut Vec<Change>,
        mut paired: Option<Paired>,
    ) -> Result<Vec<GameRecord>> {
        let mut started = Vec::new();
        for _ in 0..4 {
            let Some(step) = t.step(now) else {
                break;
            };
            match step {
                Step::Cancel => {
                    t.status = TournamentStatus::Cancelled;
                    t.finished_at = Some(now);
                    changes.push(("finished", json!({"status": "cancelled"})));
                }
                Step::Start => {
                    changes.push(("started", json!({})));
                    let kind = t.setup.kind();
                    for e in &mut t.entrants {
                        if e.level.is_none() {
                            e.rating = tx
                                .rating(&e.player, kind)
                                .await?
                                .map_or(UNRATED, |r| r.rating.rating);
                        }
                    }
                    t.start(now);
                }
                Step::PairRound(round) => {
                    let pairing = match paired.take() {
                        Some((r, seen, pairing)) if r == round && seen == t.version => pairing,
                        _ if t.entrants.len() <= INLINE_PAIRING => t.pair_round(round),
                        // Paired by the sweeper, outside its write.
                        _ => break,
                    };
                    let Ok(boards) = pairing else {
                        // No pairing satisfies the absolute criteria: the
                        // tournament ends with the rounds it has played.
                        finish(t, now, changes);
                        continue;
                    };
                    t.round = round;
                    t.round_ended_at = None;
                    let games = self.start_boards(tx, t, &boards, now).await?;
                    let pairings: Vec<Value> = t
                        .boards
                        .iter()
                        .filter(|b| b.round == round)
                        .map(|b| board_json(t, b))
                        .collect();
                    changes.push(("round", json!({"round": round, "pairings": pairings})));
                    if t.round_over() {
                        t.round_ended_at = Some(now);
                    }
                    started.extend(games);
                }
                Step::PairFree => {
                    let boards = t.pair_free();
                    if boards.is_empty() {
                        break;
                    }
                    t.round = boards.iter().map(|b| b.round).max().unwrap_or(t.round);
                    let games = self.start_boards(tx, t, &boards, now).await?;
                    for g in &games {
                        if let Some(b) = t.board_of(g.id) {
                            changes.push(("game_start", board_json(t, &t.boards[b])));
                        }
                    }
                    started.extend(games);
                }
                Step::Finish => finish(t, now, changes),
            }
        }
        Ok(started)
    }

    /// Adds `boards` to `t`, starting a game for each without a result.
    async fn start_boards(
        &self,
        tx: &mut WriteTx,
        t: &mut TournamentRecord,
        boards: &[NewBoard],
        now: DateTime<Utc>,
    ) -> Result<Vec<GameRecord>> {
        let mut games = Vec::new();
        for nb in boards {
            let mut board = Board {
                round: nb.round,
                white: nb.white,
                black: nb.black,
                game: None,
                result: nb.result,
                ended_at: nb.result.map(|_| now),
            };
            if let (None, Some(black)) = (nb.result, nb.black) {
                let mut game = self.board_game(t, [nb.white, black], nb.round, now);
                players::count_rated_round(tx, &mut game, now).await?;
                tx.insert_game(&game);
                tx.insert_event(game.id, &event(&game, EventType::Create));
                for (i, seat) in [(nb.white, Player::X), (black, Player::O)] {
                    let entrant = &t.entrants[i];
                    tx.player_game(&entrant.player, game.id).await?;
                    if entrant.level.is_none() {
                        Self::tell_paired(tx, t.id, nb.round, &entrant.player, Some(game.id), now)
                            .await?;
                        super::challenges::tell_game_start(tx, &entrant.player, game.id, seat, now)
                            .await?;
                    }
                }
                board.game = Some(game.id);
                games.push(game);
            } else if t.entrants[nb.white].level.is_none() {
                // A bye, or a result decided without a game.
                Self::tell_paired(tx, t.id, nb.round, &t.entrants[nb.white].player, None, now)
                    .await?;
            }
            t.boards.push(board);
        }
        Ok(games)
    }

    /// Tells `player`'s stream that a tournament paired them (`game`: none for
    /// a bye).
    async fn tell_paired(
        tx: &mut WriteTx,
        tournament: Uuid,
        round: u32,
        player: &str,
        game: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let data = json!({"tournament": tournament, "round": round, "game": game}).to_string();
        tx.insert_player_event(
            player,
            super::challenges::kinds::TOURNAMENT_PAIRED,
            &data,
            now,
        )
        .await?;
        Ok(())
    }

    /// A tournament game between entrants `[white, black]` (X, O).
    fn board_game(
        &self,
        t: &TournamentRecord,
        sides: [usize; 2],
        round: u32,
        now: DateTime<Utc>,
    ) -> GameRecord {
        let entrants = sides.map(|i| &t.entrants[i]);
        let seats = entrants.map(|e| match e.level {
            Some(level) => Seat::Bot {
                level,
                seed: rand::rng().next_u64(),
            },
            None => Seat::Human {
                token: Some(e.credential),
            },
        });
        let mut game = GameRecord {
            id: Uuid::now_v7(),
            position: AnyGame::new(t.setup),
            seats,
            created_at: now,
            updated_at: now,
            names: entrants.map(|e| Some(e.name.clone())),
            clock: Some(self.new_clock(t.clock)),
            as_of: now,
            assistance: Assistance {
                forbidden: true,
                used: [0, 0],
            },
            claim_after_ms: self.claim_after_ms,
            tournament: Some((t.id, round)),
            ..GameRecord::blank(t.setup)
        };
        game.players.seats = entrants.map(|e| {
            Some(SeatPlayer {
                id: e.player.clone(),
                credential: e.credential,
                rating: None,
            })
        });
        game.players.rated = t.rated && entrants.iter().all(|e| e.level.is_none());
        game.sync_clock(now);
        game.mark_turn(now);
        game
    }

    /// Takes the steps due in tournament `id` now; true if it did any.
    ///
    /// # Errors
    /// Store errors.
    pub async fn advance_tournament(&self, id: Uuid) -> Result<bool> {
        // A large round is paired first, off the async workers and outside
        // the write; the write takes it if the tournament is as it was.
        let Some(seen) = self.store.tournament(id).await? else {
            return Ok(false);
        };
        let paired = match seen.step(self.clock.now()) {
            Some(Step::PairRound(round)) if seen.entrants.len() > INLINE_PAIRING => {
                let version = seen.version;
                let pairing =
                    crate::telemetry::spawn_blocking_with_tracing(move || seen.pair_round(round))
                        .await
                        .map_err(|e| ServiceError::Internal(format!("pairing failed: {e}")))?;
                Some((round, version, pairing))
            }
            _ => None,
        };
        let (_, moved) = self
            .tournament_write(
                id,
                |t, now, _| Ok((t.step(now).is_some(), Vec::new())),
                None,
                paired,
            )
            .await?;
        Ok(moved)
    }

    /// Advances every tournament due now; how many it looked at.
    ///
    /// # Errors
    /// Store errors.
    pub async fn advance_tournaments(&self) -> Result<usize> {
        let due = self.store.tournaments_due(self.clock.now(), 64).await?;
        for id in &due {
            match self.advance_tournament(*id).await {
                Ok(_) | Err(ServiceError::TournamentNotFound) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(due.len())
    }

    /// Runs [`Service::advance_tournaments`] every `every` until the store
    /// closes; a failure is logged once until it works again.
    pub async fn sweep_tournaments(self, every: std::time::Duration) {
        let mut failing = false;
        loop {
            tokio::time::sleep(every).await;
            if self.store.is_closed() {
                return;
            }
            match self.advance_tournaments().await {
                Err(_) if self.store.is_closed() => return,
                Err(e) => {
                    if !failing {
                        tracing::warn!(error = %e, "advancing tournaments failed; retrying quietly");
                    }
                    failing = true;
                }
                Ok(_) => failing = false,
            }
        }
    }
}

/// Ends the tournament at `now`.
fn finish(t: &mut TournamentRecord, now: DateTime<Utc>, changes: &mut Vec<Change>) {
    t.status = TournamentStatus::Finished;
    t.finished_at = Some(now);
    changes.push(("standings", json!({})));
    changes.push(("finished", json!({"status": "finished"})));
}

/// Saves `t` (read at version `expected`), one version past each change,
/// each recorded with its version.
async fn save_tournament(
    tx: &mut WriteTx,
    t: &mut TournamentRecord,
    expected: i64,
    changes: Vec<Change>,
    now: DateTime<Utc>,
) -> Result<()> {
    let id = t.id;
    // A write with nothing to tell still gives a new version.
    if changes.is_empty() {
        t.version += 1;
    }
    let kinds: Vec<&'static str> = changes.iter().map(|(kind, _)| *kind).collect();
    for (kind, mut data) in changes {
        t.version += 1;
        if let Value::Object(map) = &mut data {
            map.insert("type".into(), json!(kind));
            map.insert("version".into(), json!(t.version));
        }
        tx.insert_tournament_event(
            id,
            &TournamentEvent {
                version: t.version,
                kind: kind.into(),
                data: data.to_string(),
            },
        )
        .await?;
    }
    let updated = tx.update_tournament(t, expected, t.due_at(now)).await?;
    // Webhooks: a start, a round paired, an end, as the write left it.
    for kind in kinds {
        let event = match kind {
            "started" => WebhookEvent::TournamentStarted,
            "round" => WebhookEvent::TournamentRoundStarted,
            "finished" => WebhookEvent::TournamentFinished,
            _ => continue,
        };
        tx.record_tournament_webhook(event, t, now).await?;
    }
    if updated {
        Ok(())
    } else {
        Err(ServiceError::Internal(
            "the tournament changed during a write".into(),
        ))
    }
}

/// An entrant as events show it.
fn entrant_json(t: &TournamentRecord, i: usize) -> Value {
    let e = &t.entrants[i];
    json!({
        "player": {"id": e.player, "name": e.name, "bot": e.level.is_some()},
        "rank": (e.number > 0).then_some(e.number),
        "withdrawn": e.withdrawn,
    })
}

/// A board as events show it.
fn board_json(t: &TournamentRecord, b: &Board) -> Value {
    let player = |i: usize| t.entrants[i].player.clone();
    json!({
        "round": b.round,
        "white": player(b.white),
        "black": b.black.map(player),
        "game": b.game,
        "result": b.result.map(BoardResult::as_str),
    })
}

/// Records the end of a tournament game (inside the write that ends it):
/// its board's result, a forfeiting side withdrawn, the changes
/// `game_end` (and `standings` when it ends a round, or in an arena). A
/// game already recorded, or not a tournament's, changes nothing.
///
/// # Errors
/// Store errors.
pub(super) async fn record_game_end(
    tx: &mut WriteTx,
    game: &GameRecord,
    now: DateTime<Utc>,
) -> Result<()> {
    let Some((id, _)) = game.tournament else {
        return Ok(());
    };
    if !game.is_over() {
        return Ok(());
    }
    let result = match game.outcome() {
        (GameStatus::Won, Some(winner), Some(crate::domain::EndReason::Forfeit)) => {
            if winner == Player::X {
                BoardResult::WhiteByForfeit
            } else {
                BoardResult::BlackByForfeit
            }
        }
        (GameStatus::Won, Some(Player::X), _) => BoardResult::WhiteWins,
        (GameStatus::Won, Some(Player::O), _) => BoardResult::BlackWins,
        (GameStatus::Draw, _, _) => BoardResult::Draw,
        _ => return Ok(()),
    };
    let Some(mut t) = tx.tournament(id).await? else {
        return Ok(());
    };
    let expected = t.version;
    let Some(b) = t.record(game.id, result, now) else {
        return Ok(());
    };
    let mut changes = vec![("game_end", board_json(&t, &t.boards[b]))];
    let board = &t.boards[b];
    let absent = match result {
        BoardResult::WhiteByForfeit => board.black,
        BoardResult::BlackByForfeit => Some(board.white),
        _ => None,
    };
    if let Some(i) = absent {
        changes.push(("withdrawn", json!({"player": t.entrants[i].player})));
    }
    if t.system == System::Arena || t.round_over() {
        changes.push(("standings", json!({"round": t.round})));
    }
    save_tournament(tx, &mut t, expected, changes, now).await
}
