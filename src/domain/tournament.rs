//! Tournaments as pure values (the contract's "Tournaments"): a tournament,
//! its entrants and its boards, and what follows from them: the next step
//! (start, pair a round, pair free arena entrants, finish), the pairings
//! (the `tabula-pairing` crate: FIDE's Dutch system, Berger tables, the
//! arena's pass), the standings and the TRF16 file. No I/O, no clock: the
//! caller passes "now"; the store keeps the record, the service runs it.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use tabula_pairing::standings::{self, ArenaResult};
use tabula_pairing::trf::{self, Colour, Entry, Outcome};
use tabula_pairing::{arena, berger, dutch};
use uuid::Uuid;

use super::{Level, TimeControl, TokenHash};
use crate::rules::Setup;

/// How a tournament pairs its entrants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum System {
    Swiss,
    RoundRobin,
    Arena,
}

impl System {
    /// The API (and database) name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            System::Swiss => "swiss",
            System::RoundRobin => "round_robin",
            System::Arena => "arena",
        }
    }
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    Open,
    Running,
    Finished,
    Cancelled,
}

impl TournamentStatus {
    /// The API (and database) name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Open => "open",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Cancelled => "cancelled",
        }
    }

    /// The status named `s`, if any.
    #[must_use]
    pub fn parse(s: &str) -> Option<TournamentStatus> {
        [
            TournamentStatus::Open,
            TournamentStatus::Running,
            TournamentStatus::Finished,
            TournamentStatus::Cancelled,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }
}

/// The most rounds a swiss may have.
pub const MAX_SWISS_ROUNDS: u32 = 30;
/// The most entrants a tournament may take.
pub const MAX_ENTRANTS: u32 = 1000;
/// The most entrants a round robin may take.
pub const MAX_ROUND_ROBIN: u32 = 30;
/// An arena's shortest and longest duration.
pub const ARENA_MS: (i64, i64) = (60_000, 24 * 3600 * 1000);
/// The rating of an entrant without one in the kind.
pub const UNRATED: f64 = 1500.0;

/// One entrant: a player (a person, a flagged bot, or one of the service's
/// bots entered by level, then a player of its own).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entrant {
    /// The player's id.
    pub player: String,
    pub name: String,
    /// The service's bot that plays for it, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "level_name")]
    pub level: Option<Level>,
    /// What plays its seats: the hash of its player's key or sign-in.
    #[serde(with = "hash_hex")]
    pub credential: TokenHash,
    /// Its rating in the kind when it entered or the tournament started
    /// (whichever came later); [`UNRATED`] without one.
    pub rating: f64,
    /// The starting rank (the pairing number), from 1; 0 before the start.
    #[serde(default)]
    pub number: u32,
    /// Never paired again (its results stay).
    #[serde(default)]
    pub withdrawn: bool,
    /// The first round it may be paired in (a swiss entered late).
    #[serde(default = "one")]
    pub from_round: u32,
    /// A bot: one of the service's (`level`) or a player flagged `bot`.
    #[serde(default)]
    pub bot: bool,
}

const fn one() -> u32 {
    1
}

/// How a board ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// Black missed its first move: white wins by forfeit.
    WhiteByForfeit,
    /// White missed its first move: black wins by forfeit.
    BlackByForfeit,
    /// Neither was there: 0 each.
    DoubleForfeit,
    /// The pairing-allocated bye (swiss): a full point, no game.
    Bye,
    /// A round robin's odd entrant sitting the round out: no point.
    SitOut,
}

impl BoardResult {
    /// White's and black's points, in halves.
    #[must_use]
    pub const fn halves(self) -> (u32, u32) {
        match self {
            BoardResult::WhiteWins | BoardResult::WhiteByForfeit | BoardResult::Bye => (2, 0),
            BoardResult::BlackWins | BoardResult::BlackByForfeit => (0, 2),
            BoardResult::Draw => (1, 1),
            BoardResult::DoubleForfeit | BoardResult::SitOut => (0, 0),
        }
    }

    /// The result as people write it: `1-0`, `0-1`, `½-½`, `+-`, `-+`,
    /// `--`, `bye`, `-`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardResult::WhiteWins => "1-0",
            BoardResult::BlackWins => "0-1",
            BoardResult::Draw => "1/2-1/2",
            BoardResult::WhiteByForfeit => "+-",
            BoardResult::BlackByForfeit => "-+",
            BoardResult::DoubleForfeit => "--",
            BoardResult::Bye => "bye",
            BoardResult::SitOut => "none",
        }
    }

    /// Whether the game was played over the board.
    #[must_use]
    pub const fn played(self) -> bool {
        matches!(
            self,
            BoardResult::WhiteWins | BoardResult::BlackWins | BoardResult::Draw
        )
    }
}

/// One board of a round (an arena's game: its own "round", counted from 1):
/// entrants by their index in [`TournamentRecord::entrants`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub round: u32,
    pub white: usize,
    /// `None`: `white` has the bye (or sits out).
    pub black: Option<usize>,
    /// The game played, if one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<BoardResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
}

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentRecord {
    pub id: Uuid,
    pub name: String,
    #[serde(with = "setup_text")]
    pub setup: Setup,
    pub system: System,
    #[serde(with = "clock_ms")]
    pub clock: TimeControl,
    pub rated: bool,
    /// Swiss: how many rounds; round robin: set at the start.
    #[serde(default)]
    pub rounds: Option<u32>,
    #[serde(default)]
    pub double: bool,
    #[serde(default)]
    pub duration_ms: Option<i64>,
    pub max_entrants: u32,
    #[serde(default)]
    pub starts_at: Option<DateTime<Utc>>,
    pub private: bool,
    #[serde(default, with = "option_hash_hex")]
    pub invite: Option<TokenHash>,
    pub status: TournamentStatus,
    /// Swiss and round robin: the current round (0 before the first);
    /// arena: the games paired so far.
    pub round: u32,
    /// The creator's player id.
    pub creator: String,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub ends_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub finished_at: Option<DateTime<Utc>>,
    /// When the current round's last game ended.
    #[serde(default)]
    pub round_ended_at: Option<DateTime<Utc>>,
    /// How long a swiss or round robin rests between rounds, in
    /// milliseconds (the service's `--round-pause` when it was created).
    #[serde(default)]
    pub pause_ms: i64,
    pub version: i64,
    pub entrants: Vec<Entrant>,
    pub boards: Vec<Board>,
}

/// What a tournament does next, at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Start it (its `starts_at` has come), or cancel it: fewer than two.
    Start,
    Cancel,
    /// Pair this round (swiss, round robin).
    PairRound(u32),
    /// Pair the arena's free entrants.
    PairFree,
    Finish,
}

/// Why an entrant cannot enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryRefused {
    Full,
    Already,
    Closed,
}

/// A board to start: entrants by index, and the round it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewBoard {
    pub round: u32,
    pub white: usize,
    pub black: Option<usize>,
    /// The result it starts with (a bye, a sit-out, a withdrawn
    /// opponent's forfeit), or `None`: a game is played.
    pub result: Option<BoardResult>,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub rank: u32,
    /// The entrant's index.
    pub entrant: usize,
    /// Points in halves (arena: whole points, doubled too).
    pub halves: u32,
    pub played: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub byes: u32,
    pub tiebreaks: Tiebreaks,
    pub on_fire: bool,
}

/// The tie-breaks of a standings line, as its system orders them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tiebreaks {
    /// In halves; Sonneborn-Berger in quarters.
    Swiss {
        buchholz_cut1: u32,
        buchholz: u32,
        sonneborn_berger: u32,
    },
    /// Sonneborn-Berger in quarters.
    RoundRobin {
        sonneborn_berger: u32,
        wins: u32,
    },
    Arena {
        performance: Option<f64>,
    },
}

impl TournamentRecord {
    /// Whether the tournament pairs in rounds (swiss, round robin).
    #[must_use]
    pub fn has_rounds(&self) -> bool {
        self.system != System::Arena
    }

    /// The entrant whose player is `player`.
    #[must_use]
    pub fn entrant_of(&self, player: &str) -> Option<usize> {
        self.entrants.iter().position(|e| e.player == player)
    }

    /// The board of game `game`.
    #[must_use]
    pub fn board_of(&self, game: Uuid) -> Option<usize> {
        self.boards.iter().position(|b| b.game == Some(game))
    }

    /// Whether `player` may enter now.
    ///
    /// # Errors
    /// Why not.
    pub fn check_entry(&self, player: &str) -> Result<(), EntryRefused> {
        let open = match self.status {
            TournamentStatus::Open => true,
            TournamentStatus::Running => self.system != System::RoundRobin,
            _ => false,
        };
        if !open {
            return Err(EntryRefused::Closed);
        }
        if let Some(i) = self.entrant_of(player) {
            return if self.entrants[i].withdrawn {
                Ok(())
            } else {
                Err(EntryRefused::Already)
            };
        }
        let active = self.entrants.iter().filter(|e| !e.withdrawn).count();
        if active >= self.max_entrants as usize {
            return Err(EntryRefused::Full);
        }
        Ok(())
    }

    /// Adds `entrant` (checked by [`TournamentRecord::check_entry`]): before
    /// the start as is; after it with the next starting rank, paired from
    /// the next round; a withdrawn entrant entering again comes back so.
    /// Returns its index.
    pub fn enter(&mut self, mut entrant: Entrant) -> usize {
        let next_round = self.round + 1;
        if let Some(i) = self.entrant_of(&entrant.player) {
            let e = &mut self.entrants[i];
            e.withdrawn = false;
            e.from_round = e.from_round.max(next_round);
            return i;
        }
        if self.status == TournamentStatus::Running {
            entrant.number = self.entrants.iter().map(|e| e.number).max().unwrap_or(0) + 1;
            entrant.from_round = next_round;
        }
        self.entrants.push(entrant);
        self.entrants.len() - 1
    }

    /// Takes entrant `i` out: removed before the start, withdrawn after it.
    pub fn leave(&mut self, i: usize) {
        if self.status == TournamentStatus::Open {
            self.entrants.remove(i);
        } else {
            self.entrants[i].withdrawn = true;
        }
    }

    /// Starts it at `now`: the starting ranks by rating (highest first, ties
    /// by order of entry), the arena's end, the round robin's rounds.
    pub fn start(&mut self, now: DateTime<Utc>) {
        let mut order: Vec<usize> = (0..self.entrants.len()).collect();
        order.sort_by(|&a, &b| {
            self.entrants[b]
                .rating
                .total_cmp(&self.entrants[a].rating)
                .then(a.cmp(&b))
        });
        for (rank, i) in order.into_iter().enumerate() {
            self.entrants[i].number = u32::try_from(rank + 1).unwrap_or(u32::MAX);
        }
        self.status = TournamentStatus::Running;
        self.started_at = Some(now);
        self.round_ended_at = Some(now);
        if let Some(ms) = self.duration_ms {
            self.ends_at = Some(now + TimeDelta::milliseconds(ms));
        }
        if self.system == System::RoundRobin {
            let n = u32::try_from(self.entrants.len()).unwrap_or(u32::MAX);
            self.rounds = Some(berger::rounds(n, self.double));
        }
    }

    /// Whether every board of the current round has a result.
    #[must_use]
    pub fn round_over(&self) -> bool {
        self.boards
            .iter()
            .filter(|b| b.round == self.round)
            .all(|b| b.result.is_some())
    }

    /// Whether some game is still being played.
    #[must_use]
    pub fn games_in_progress(&self) -> bool {
        self.boards.iter().any(|b| b.result.is_none())
    }

    /// The entrants free to be paired in an arena now: not withdrawn, no
    /// game in progress.
    #[must_use]
    pub fn free(&self) -> Vec<usize> {
        let mut busy = vec![false; self.entrants.len()];
        for b in self.boards.iter().filter(|b| b.result.is_none()) {
            busy[b.white] = true;
            if let Some(black) = b.black {
                busy[black] = true;
            }
        }
        (0..self.entrants.len())
            .filter(|&i| !busy[i] && !self.entrants[i].withdrawn)
            .collect()
    }

    /// What to do at `now`, if anything.
    #[must_use]
    pub fn step(&self, now: DateTime<Utc>) -> Option<Step> {
        let pause = TimeDelta::milliseconds(self.pause_ms);
        match self.status {
            TournamentStatus::Open => {
                let due = self.starts_at.is_some_and(|at| at <= now);
                let enough = self.entrants.len() >= 2;
                due.then_some(if enough { Step::Start } else { Step::Cancel })
            }
            TournamentStatus::Running if self.system == System::Arena => {
                let ended = self.ends_at.is_some_and(|at| at <= now);
                if ended {
                    return (!self.games_in_progress()).then_some(Step::Finish);
                }
                (self.free().len() >= 2).then_some(Step::PairFree)
            }
            TournamentStatus::Running => {
                if !self.round_over() {
                    return None;
                }
                let rested = self.round_ended_at.is_none_or(|at| at + pause <= now);
                let last = self.rounds.unwrap_or(0);
                let active = self.entrants.iter().filter(|e| !e.withdrawn).count();
                if self.round >= last || (self.round > 0 && active < 2) {
                    Some(Step::Finish)
                } else if self.round == 0 || rested {
                    Some(Step::PairRound(self.round + 1))
                } else {
                    None
                }
            }
            TournamentStatus::Finished | TournamentStatus::Cancelled => None,
        }
    }

    /// When [`TournamentRecord::step`] next has something to do, as far as
    /// the record tells (a game's end changes the record, and so this);
    /// `None` while it waits for games to end.
    #[must_use]
    pub fn due_at(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self.status {
            TournamentStatus::Open => self.starts_at,
            TournamentStatus::Running if self.system == System::Arena => {
                let ended = self.ends_at.is_some_and(|at| at <= now);
                if ended {
                    (!self.games_in_progress()).then_some(now)
                } else if self.free().len() >= 2 {
                    Some(now)
                } else {
                    self.ends_at
                }
            }
            TournamentStatus::Running => {
                if !self.round_over() {
                    None
                } else if self.round == 0 {
                    Some(now)
                } else {
                    let pause = TimeDelta::milliseconds(self.pause_ms);
                    Some(self.round_ended_at.map_or(now, |at| at + pause))
                }
            }
            TournamentStatus::Finished | TournamentStatus::Cancelled => None,
        }
    }

    /// The TRF16 tournament before round `round` is paired: every round
    /// played so far, and round `round` already holding `0000 - Z` for the
    /// withdrawn and those who enter later (the file pairs exactly the
    /// entrants the service pairs). Players in starting-rank order.
    #[must_use]
    pub fn trf(&self, round: u32) -> trf::Tournament {
        let played = round.saturating_sub(1);
        let mut order: Vec<usize> = (0..self.entrants.len()).collect();
        order.sort_by_key(|&i| self.entrants[i].number);
        let mut rounds: Vec<Vec<Option<Entry>>> =
            vec![vec![None; played as usize]; self.entrants.len()];
        for b in &self.boards {
            let Some(r) = (b.round as usize)
                .checked_sub(1)
                .filter(|&r| r < played as usize)
            else {
                continue;
            };
            let Some(result) = b.result else {
                continue;
            };
            match b.black {
                None => {
                    let outcome = if result == BoardResult::Bye {
                        Outcome::Bye
                    } else {
                        Outcome::Absent
                    };
                    rounds[b.white][r] = Some(Entry {
                        opponent: None,
                        colour: None,
                        outcome,
                    });
                }
                Some(black) => {
                    let (w, bl) = outcomes(result);
                    let (wn, bn) = (self.entrants[b.white].number, self.entrants[black].number);
                    rounds[b.white][r] = Some(Entry {
                        opponent: Some(bn),
                        colour: Some(Colour::White),
                        outcome: w,
                    });
                    rounds[black][r] = Some(Entry {
                        opponent: Some(wn),
                        colour: Some(Colour::Black),
                        outcome: bl,
                    });
                }
            }
        }
        let absent = Entry {
            opponent: None,
            colour: None,
            outcome: Outcome::Absent,
        };
        let players = order
            .iter()
            .map(|&i| {
                let e = &self.entrants[i];
                let mut line: Vec<Entry> = rounds[i].iter().map(|r| r.unwrap_or(absent)).collect();
                let next_missed = e.withdrawn || e.from_round > round;
                if next_missed && round > 0 && self.system == System::Swiss {
                    line.push(absent);
                }
                let mut p = trf::Player {
                    number: e.number,
                    name: e.name.clone(),
                    rating: rating_u32(e.rating),
                    points: 0,
                    rounds: line,
                };
                p.points = p.scored();
                p
            })
            .collect();
        trf::Tournament {
            name: Some(self.name.clone()),
            rounds: self.rounds,
            white1: true,
            players,
        }
    }

    /// The TRF16 file as it stands: between rounds with the coming round's
    /// `0000 - Z` for the withdrawn (so that it pairs exactly the entrants
    /// the service will), else the rounds played (a game in progress is
    /// left out until it ends).
    #[must_use]
    pub fn trf_text(&self) -> String {
        let between = self.status == TournamentStatus::Running
            && self.round_over()
            && self.round < self.rounds.unwrap_or(0);
        let t = if between {
            self.trf(self.round + 1)
        } else {
            self.trf_through(self.round)
        };
        trf::write(&t)
    }

    /// The TRF tournament with rounds `1..=last` (a round in progress shows
    /// its pairings, results not yet known written as played so far).
    fn trf_through(&self, last: u32) -> trf::Tournament {
        let mut t = self.trf(last + 1);
        // `trf(last + 1)` adds the next round's absences: not wanted here.
        for p in &mut t.players {
            p.rounds.truncate(last as usize);
            p.points = p.scored();
        }
        t
    }

    /// Pairs round `round` (swiss or round robin). Swiss: the Dutch system
    /// on this tournament's own TRF; round robin: the Berger table, with
    /// a withdrawn entrant's games forfeited to the other side.
    ///
    /// # Errors
    /// When no pairing satisfies the absolute criteria.
    pub fn pair_round(&self, round: u32) -> Result<Vec<NewBoard>, dutch::DutchError> {
        let by_number = |n: u32| self.entrants.iter().position(|e| e.number == n);
        let mut out = Vec::new();
        match self.system {
            System::Swiss => {
                let pairing = dutch::pair(&self.trf(round))?;
                for (w, b) in pairing.boards {
                    if let (Some(white), Some(black)) = (by_number(w), by_number(b)) {
                        out.push(NewBoard {
                            round,
                            white,
                            black: Some(black),
                            result: None,
                        });
                    }
                }
                if let Some(white) = pairing.bye.and_then(by_number) {
                    out.push(NewBoard {
                        round,
                        white,
                        black: None,
                        result: Some(BoardResult::Bye),
                    });
                }
            }
            System::RoundRobin => {
                let n = u32::try_from(self.entrants.len()).unwrap_or(u32::MAX);
                let Some(table) = berger::round(n, round, self.double) else {
                    return Ok(out);
                };
                for (w, b) in table.boards {
                    let (Some(white), Some(black)) = (by_number(w), by_number(b)) else {
                        continue;
                    };
                    let gone = (
                        self.entrants[white].withdrawn,
                        self.entrants[black].withdrawn,
                    );
                    let result = match gone {
                        (false, false) => None,
                        (true, false) => Some(BoardResult::BlackByForfeit),
                        (false, true) => Some(BoardResult::WhiteByForfeit),
                        (true, true) => Some(BoardResult::DoubleForfeit),
                    };
                    out.push(NewBoard {
                        round,
                        white,
                        black: Some(black),
                        result,
                    });
                }
                if let Some(white) = table.bye.and_then(by_number) {
                    out.push(NewBoard {
                        round,
                        white,
                        black: None,
                        result: Some(BoardResult::SitOut),
                    });
                }
            }
            System::Arena => {}
        }
        Ok(out)
    }

    /// Pairs the arena's free entrants: neighbours in the standings first,
    /// never the last opponent while anyone else is free; X to the side
    /// that had O last (the better placed when equal).
    #[must_use]
    pub fn pair_free(&self) -> Vec<NewBoard> {
        let table = self.standings();
        let mut place = vec![0u32; self.entrants.len()];
        for line in &table {
            place[line.entrant] = line.rank;
        }
        let last = |i: usize| {
            self.boards
                .iter()
                .rev()
                .find(|b| b.white == i || b.black == Some(i))
                .map(|b| {
                    (
                        b.white == i,
                        if b.white == i { b.black } else { Some(b.white) },
                    )
                })
        };
        let free: Vec<arena::Free> = self
            .free()
            .into_iter()
            .map(|i| arena::Free {
                id: u32::try_from(i).unwrap_or(u32::MAX),
                place: place[i],
                last_opponent: last(i)
                    .and_then(|(_, o)| o)
                    .and_then(|o| u32::try_from(o).ok()),
            })
            .collect();
        let mut next = self.round;
        arena::pair(&free)
            .into_iter()
            .map(|(a, b)| {
                let (a, b) = (a as usize, b as usize);
                let a_was_white = last(a).is_some_and(|(white, _)| white);
                let b_was_white = last(b).is_some_and(|(white, _)| white);
                let (white, black) = if a_was_white && !b_was_white {
                    (b, a)
                } else {
                    (a, b)
                };
                next += 1;
                NewBoard {
                    round: next,
                    white,
                    black: Some(black),
                    result: None,
                }
            })
            .collect()
    }

    /// Records the end of game `game` at `now`; returns the board's index,
    /// or `None` when the game is not one of this tournament's or its
    /// result is recorded already. A side that lost by forfeit is withdrawn.
    pub fn record(&mut self, game: Uuid, result: BoardResult, now: DateTime<Utc>) -> Option<usize> {
        let i = self.board_of(game)?;
        if self.boards[i].result.is_some() {
            return None;
        }
        let board = &mut self.boards[i];
        board.result = Some(result);
        board.ended_at = Some(now);
        let (white, black) = (board.white, board.black);
        match result {
            BoardResult::WhiteByForfeit => {
                if let Some(b) = black {
                    self.entrants[b].withdrawn = true;
                }
            }
            BoardResult::BlackByForfeit => self.entrants[white].withdrawn = true,
            BoardResult::DoubleForfeit => {
                self.entrants[white].withdrawn = true;
                if let Some(b) = black {
                    self.entrants[b].withdrawn = true;
                }
            }
            _ => {}
        }
        if self.has_rounds() && self.boards[i].round == self.round && self.round_over() {
            self.round_ended_at = Some(now);
        }
        Some(i)
    }

    /// The standings: swiss and round robin from the TRF of the rounds
    /// played (a round in progress counts what has ended), arena from each
    /// entrant's results in the order their games ended.
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        if self.status == TournamentStatus::Open || self.started_at.is_none() {
            return (0..self.entrants.len())
                .map(|i| Standing {
                    rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    entrant: i,
                    halves: 0,
                    played: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    byes: 0,
                    tiebreaks: match self.system {
                        System::Swiss => Tiebreaks::Swiss {
                            buchholz_cut1: 0,
                            buchholz: 0,
                            sonneborn_berger: 0,
                        },
                        System::RoundRobin => Tiebreaks::RoundRobin {
                            sonneborn_berger: 0,
                            wins: 0,
                        },
                        System::Arena => Tiebreaks::Arena { performance: None },
                    },
                    on_fire: false,
                })
                .collect();
        }
        if self.system == System::Arena {
            return self.arena_standings();
        }
        let t = self.trf_through(self.round);
        let system = if self.system == System::Swiss {
            standings::System::Swiss
        } else {
            standings::System::RoundRobin
        };
        standings::table(&t, system)
            .into_iter()
            .filter_map(|l| {
                let entrant = self.entrants.iter().position(|e| e.number == l.number)?;
                Some(Standing {
                    rank: l.rank,
                    entrant,
                    halves: l.points,
                    played: l.played,
                    wins: l.wins,
                    draws: l.draws,
                    losses: l.losses,
                    byes: l.byes,
                    tiebreaks: if self.system == System::Swiss {
                        Tiebreaks::Swiss {
                            buchholz_cut1: l.buchholz_cut1,
                            buchholz: l.buchholz,
                            sonneborn_berger: l.sonneborn_berger,
                        }
                    } else {
                        Tiebreaks::RoundRobin {
                            sonneborn_berger: l.sonneborn_berger,
                            wins: l.wins,
                        }
                    },
                    on_fire: false,
                })
            })
            .collect()
    }

    fn arena_standings(&self) -> Vec<Standing> {
        let n = self.entrants.len();
        let mut results: Vec<Vec<ArenaResult>> = vec![Vec::new(); n];
        let mut met: Vec<Vec<(Option<f64>, ArenaResult)>> = vec![Vec::new(); n];
        let mut ended: Vec<&Board> = self.boards.iter().filter(|b| b.result.is_some()).collect();
        ended.sort_by_key(|b| (b.ended_at, b.round));
        for b in ended {
            let (Some(black), Some(result)) = (b.black, b.result) else {
                continue;
            };
            let (w, bl) = match result.halves() {
                (2, 0) => (ArenaResult::Win, ArenaResult::Loss),
                (0, 2) => (ArenaResult::Loss, ArenaResult::Win),
                (1, 1) => (ArenaResult::Draw, ArenaResult::Draw),
                _ => (ArenaResult::Loss, ArenaResult::Loss),
            };
            results[b.white].push(w);
            results[black].push(bl);
            if result.played() {
                met[b.white].push((Some(self.entrants[black].rating), w));
                met[black].push((Some(self.entrants[b.white].rating), bl));
            }
        }
        let mut lines: Vec<Standing> = (0..n)
            .map(|i| {
                let (points, on_fire) = standings::arena_points(&results[i]);
                let count = |r: ArenaResult| {
                    u32::try_from(met[i].iter().filter(|(_, x)| *x == r).count()).unwrap_or(0)
                };
                Standing {
                    rank: 0,
                    entrant: i,
                    halves: 2 * points,
                    played: u32::try_from(met[i].len()).unwrap_or(0),
                    wins: count(ArenaResult::Win),
                    draws: count(ArenaResult::Draw),
                    losses: count(ArenaResult::Loss),
                    byes: 0,
                    tiebreaks: Tiebreaks::Arena {
                        performance: standings::arena_performance(&met[i]),
                    },
                    on_fire,
                }
            })
            .collect();
        let perf = |s: &Standing| match s.tiebreaks {
            Tiebreaks::Arena { performance } => performance.unwrap_or(f64::MIN),
            _ => f64::MIN,
        };
        lines.sort_by(|a, b| {
            b.halves
                .cmp(&a.halves)
                .then(perf(b).total_cmp(&perf(a)))
                .then(
                    self.entrants[a.entrant]
                        .number
                        .cmp(&self.entrants[b.entrant].number),
                )
        });
        for (i, line) in lines.iter_mut().enumerate() {
            line.rank = u32::try_from(i + 1).unwrap_or(u32::MAX);
        }
        lines
    }
}

/// White's and black's TRF outcomes of a board's result.
fn outcomes(result: BoardResult) -> (Outcome, Outcome) {
    match result {
        BoardResult::WhiteWins => (Outcome::Win, Outcome::Loss),
        BoardResult::BlackWins => (Outcome::Loss, Outcome::Win),
        BoardResult::Draw => (Outcome::Draw, Outcome::Draw),
        BoardResult::WhiteByForfeit => (Outcome::ForfeitWin, Outcome::ForfeitLoss),
        BoardResult::BlackByForfeit => (Outcome::ForfeitLoss, Outcome::ForfeitWin),
        BoardResult::DoubleForfeit | BoardResult::Bye | BoardResult::SitOut => {
            (Outcome::ForfeitLoss, Outcome::ForfeitLoss)
        }
    }
}

/// A rating as TRF writes it: whole, 0 for none, at most 9999.
fn rating_u32(r: f64) -> u32 {
    if r.is_finite() && r > 0.0 {
        // Bounded above and below: the cast cannot wrap.
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = r.round().min(9999.0) as u32;
        whole
    } else {
        0
    }
}

mod hash_hex {
    use super::TokenHash;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &TokenHash, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(h.as_bytes()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TokenHash, D::Error> {
        parse(&String::deserialize(d)?)
    }

    pub(super) fn parse<E: serde::de::Error>(text: &str) -> Result<TokenHash, E> {
        hex::decode(text)
            .ok()
            .and_then(|b| TokenHash::from_slice(&b))
            .ok_or_else(|| E::custom("a hash is 64 hex digits"))
    }
}

mod option_hash_hex {
    use super::TokenHash;
    use serde::{Deserialize, Deserializer, Serializer};

    #[expect(clippy::ref_option, reason = "serde's `with` passes a reference")]
    pub fn serialize<S: Serializer>(h: &Option<TokenHash>, s: S) -> Result<S::Ok, S::Error> {
        match h {
            Some(h) => s.serialize_some(&hex::encode(h.as_bytes())),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TokenHash>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|t| super::hash_hex::parse(&t))
            .transpose()
    }
}

mod level_name {
    use super::Level;
    use serde::{Deserialize, Deserializer, Serializer};

    #[expect(
        clippy::trivially_copy_pass_by_ref,
        clippy::ref_option,
        reason = "serde's `with` passes a reference"
    )]
    pub fn serialize<S: Serializer>(l: &Option<Level>, s: S) -> Result<S::Ok, S::Error> {
        match l {
            Some(l) => s.serialize_some(l.as_str()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Level>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|t| t.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// A setup as text: the kind, and Gomoku's `size/rule` after a `/`.
pub(super) mod setup_text {
    use crate::rules::{GameKind, GomokuOptions, GomokuRule, Setup};
    use serde::{Deserialize, Deserializer, Serializer};

    #[expect(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's `with` passes a reference"
    )]
    pub fn serialize<S: Serializer>(setup: &Setup, s: S) -> Result<S::Ok, S::Error> {
        match setup {
            Setup::Gomoku(o) => {
                s.serialize_str(&format!("gomoku/{}/{}", o.size(), o.rule().as_str()))
            }
            other => s.serialize_str(other.kind().as_str()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Setup, D::Error> {
        let text = String::deserialize(d)?;
        let bad = || serde::de::Error::custom(format!("setup {text:?}"));
        let mut parts = text.split('/');
        let kind: GameKind = parts.next().unwrap_or("").parse().map_err(|_| bad())?;
        if kind != GameKind::Gomoku {
            return Ok(Setup::default_for(kind));
        }
        let size: i64 = parts.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        let rule = parts.next().and_then(GomokuRule::parse).ok_or_else(bad)?;
        GomokuOptions::new(size, rule)
            .map(Setup::Gomoku)
            .map_err(|_| bad())
    }
}

/// A time control as `{"initial_ms", "increment_ms"}` or `{"per_move_ms"}`.
pub(super) mod clock_ms {
    use super::TimeControl;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[expect(clippy::struct_field_names, reason = "the API's names for a clock")]
    struct Wire {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        initial_ms: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        increment_ms: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_move_ms: Option<i64>,
    }

    pub fn serialize<S: Serializer>(c: &TimeControl, s: S) -> Result<S::Ok, S::Error> {
        match *c {
            TimeControl::Fischer {
                initial_ms,
                increment_ms,
            } => Wire {
                initial_ms: Some(initial_ms),
                increment_ms: Some(increment_ms),
                per_move_ms: None,
            },
            TimeControl::PerMove { per_move_ms } => Wire {
                initial_ms: None,
                increment_ms: None,
                per_move_ms: Some(per_move_ms),
            },
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let w = Wire::deserialize(d)?;
        match (w.initial_ms, w.per_move_ms) {
            (Some(initial_ms), None) => Ok(TimeControl::Fischer {
                initial_ms,
                increment_ms: w.increment_ms.unwrap_or(0),
            }),
            (None, Some(per_move_ms)) => Ok(TimeControl::PerMove { per_move_ms }),
            _ => Err(serde::de::Error::custom("a clock is Fischer or per move")),
        }
    }
}

#[cfg(test)]
mod tests;
