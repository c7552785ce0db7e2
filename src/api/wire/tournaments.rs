//! Tournaments on the wire: create, the tournament, an entrant, the
//! standings, a round's pairings, and the list's query.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::create::{ClockRequest, CreateOptions, setup_of};
use super::game::{GameOptions, Visibility, options_of};
use super::{BotLevel, Kind};
use crate::domain::TimeControl;
use crate::domain::tournament::{
    Board, BoardResult, Standing, System, Tiebreaks, TournamentRecord, TournamentStatus,
};
use crate::rules::AnyGame;
use crate::service::{NewTournament, ServiceError};

/// How a tournament pairs its entrants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentSystem {
    /// FIDE's Dutch system, as bbpPairings pairs it.
    Swiss,
    /// FIDE's Berger tables.
    RoundRobin,
    /// Entrants paired again as soon as they are free, for `duration_ms`.
    Arena,
}

impl From<TournamentSystem> for System {
    fn from(s: TournamentSystem) -> System {
        match s {
            TournamentSystem::Swiss => System::Swiss,
            TournamentSystem::RoundRobin => System::RoundRobin,
            TournamentSystem::Arena => System::Arena,
        }
    }
}

impl From<System> for TournamentSystem {
    fn from(s: System) -> TournamentSystem {
        match s {
            System::Swiss => TournamentSystem::Swiss,
            System::RoundRobin => TournamentSystem::RoundRobin,
            System::Arena => TournamentSystem::Arena,
        }
    }
}

/// Where a tournament stands: `open` (taking entrants) → `running` →
/// `finished`; or `cancelled` (fewer than 2 entrants at `starts_at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentState {
    Open,
    Running,
    Finished,
    Cancelled,
}

impl From<TournamentStatus> for TournamentState {
    fn from(s: TournamentStatus) -> TournamentState {
        match s {
            TournamentStatus::Open => TournamentState::Open,
            TournamentStatus::Running => TournamentState::Running,
            TournamentStatus::Finished => TournamentState::Finished,
            TournamentStatus::Cancelled => TournamentState::Cancelled,
        }
    }
}

impl From<TournamentState> for TournamentStatus {
    fn from(s: TournamentState) -> TournamentStatus {
        match s {
            TournamentState::Open => TournamentStatus::Open,
            TournamentState::Running => TournamentStatus::Running,
            TournamentState::Finished => TournamentStatus::Finished,
            TournamentState::Cancelled => TournamentStatus::Cancelled,
        }
    }
}

/// A new tournament.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Friday swiss", "kind": "connect_four", "system": "swiss", "rounds": 5, "clock": {"initial_ms": 180_000, "increment_ms": 2000}}))]
pub struct CreateTournament {
    /// 1 to 32 printable characters.
    #[schema(min_length = 1, max_length = 32, example = "Friday swiss")]
    pub name: String,
    pub kind: Kind,
    /// Gomoku: `{"size": 15, "rule": "freestyle"}`; other kinds take none.
    #[serde(default)]
    pub options: Option<CreateOptions>,
    pub system: TournamentSystem,
    /// Every game's clock (required: 422 `clock_required` without).
    pub clock: Option<ClockRequest>,
    /// Games between people (and flagged bots) move their ratings. Default false.
    #[serde(default)]
    pub rated: bool,
    /// Swiss only, required: 1 to 30.
    #[serde(default, deserialize_with = "super::integral::option_u32")]
    #[schema(minimum = 1, maximum = 30)]
    pub rounds: Option<u32>,
    /// Round robin only: each pair plays twice, colours reversed.
    #[serde(default)]
    pub double: bool,
    /// Arena only, required: 60000 (1 min) to 86400000 (24 h).
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    #[schema(minimum = 60_000, maximum = 86_400_000)]
    pub duration_ms: Option<i64>,
    /// 2 to 1000 (round robin: 30); default the most.
    #[serde(default, deserialize_with = "super::integral::option_u32")]
    #[schema(minimum = 2, maximum = 1000)]
    pub max_entrants: Option<u32>,
    /// When it starts by itself (RFC 3339); without it, the creator starts it.
    pub starts_at: Option<DateTime<Utc>>,
    /// `public` (default: listed) or `private`: entry needs the `invite` code
    /// the creation answers with (once).
    pub visibility: Option<Visibility>,
}

impl CreateTournament {
    /// The tournament asked for.
    ///
    /// # Errors
    /// `InvalidOption` for options out of range or not of this kind, or a
    /// malformed clock.
    pub fn into_new(self) -> Result<NewTournament, ServiceError> {
        Ok(NewTournament {
            name: self.name,
            setup: setup_of(self.kind, self.options)?,
            system: self.system.into(),
            clock: self.clock.map(ClockRequest::control).transpose()?,
            rated: self.rated,
            rounds: self.rounds,
            double: self.double,
            duration_ms: self.duration_ms,
            max_entrants: self.max_entrants,
            starts_at: self.starts_at,
            private: self.visibility == Some(Visibility::Private),
        })
    }
}

/// A tournament's clock: Fischer (`initial_ms`, `increment_ms`) or per move.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct TournamentClock {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub initial_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub increment_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub per_move_ms: Option<i64>,
}

impl From<TimeControl> for TournamentClock {
    fn from(c: TimeControl) -> TournamentClock {
        match c {
            TimeControl::Fischer {
                initial_ms,
                increment_ms,
            } => TournamentClock {
                initial_ms: Some(initial_ms),
                increment_ms: Some(increment_ms),
                per_move_ms: None,
            },
            TimeControl::PerMove { per_move_ms } => TournamentClock {
                initial_ms: None,
                increment_ms: None,
                per_move_ms: Some(per_move_ms),
            },
        }
    }
}

/// A tournament.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a10", "name": "Friday swiss", "kind": "connect_four", "options": {"rows": 6, "columns": 7}, "system": "swiss", "clock": {"initial_ms": 180_000, "increment_ms": 2000}, "rated": false, "rounds": 5, "double": false, "duration_ms": null, "max_entrants": 1000, "starts_at": null, "visibility": "public", "status": "running", "round": 2, "entrants": 12, "creator": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "created_at": "2026-12-04T18:00:00.000Z", "started_at": "2026-12-04T19:00:00.000Z", "ends_at": null, "finished_at": null, "version": 31}))]
pub struct Tournament {
    pub id: Uuid,
    pub name: String,
    pub kind: Kind,
    pub options: GameOptions,
    pub system: TournamentSystem,
    pub clock: TournamentClock,
    pub rated: bool,
    /// Swiss: as created; round robin: known from the start.
    pub rounds: Option<u32>,
    pub double: bool,
    pub duration_ms: Option<i64>,
    pub max_entrants: u32,
    pub starts_at: Option<DateTime<Utc>>,
    pub visibility: Visibility,
    pub status: TournamentState,
    /// Swiss and round robin: the current round (0 before the first);
    /// arena: the games paired so far.
    pub round: u32,
    /// Entrants not withdrawn.
    pub entrants: u32,
    /// The creator's player id.
    pub creator: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    /// Arena: when pairing stops.
    pub ends_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Bumped by every change (the tournament's `ETag`, and its events' ids).
    pub version: i64,
    /// A private tournament's invite code, shown once: in the answer to its
    /// creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub invite: Option<String>,
}

impl From<&TournamentRecord> for Tournament {
    fn from(t: &TournamentRecord) -> Tournament {
        Tournament {
            id: t.id,
            name: t.name.clone(),
            kind: t.setup.kind().into(),
            options: options_of(t.setup, &AnyGame::new(t.setup)),
            system: t.system.into(),
            clock: t.clock.into(),
            rated: t.rated,
            rounds: t.rounds,
            double: t.double,
            duration_ms: t.duration_ms,
            max_entrants: t.max_entrants,
            starts_at: t.starts_at,
            visibility: if t.private {
                Visibility::Private
            } else {
                Visibility::Public
            },
            status: t.status.into(),
            round: t.round,
            entrants: u32::try_from(t.entrants.iter().filter(|e| !e.withdrawn).count())
                .unwrap_or(u32::MAX),
            creator: t.creator.clone(),
            created_at: t.created_at,
            started_at: t.started_at,
            ends_at: t.ends_at,
            finished_at: t.finished_at,
            version: t.version,
            invite: None,
        }
    }
}

/// A page of tournaments.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [{"id": "0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a10", "name": "Friday swiss", "kind": "connect_four", "options": {"rows": 6, "columns": 7}, "system": "swiss", "clock": {"initial_ms": 180_000, "increment_ms": 2000}, "rated": false, "rounds": 5, "double": false, "duration_ms": null, "max_entrants": 1000, "starts_at": null, "visibility": "public", "status": "open", "round": 0, "entrants": 3, "creator": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "created_at": "2026-12-04T18:00:00.000Z", "started_at": null, "ends_at": null, "finished_at": null, "version": 4}], "next_cursor": null}))]
pub struct TournamentPage {
    pub items: Vec<Tournament>,
    /// Pass as `cursor` for the next page; null on the last one.
    pub next_cursor: Option<String>,
}

/// The list's filters.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TournamentListQuery {
    pub status: Option<TournamentState>,
    pub kind: Option<Kind>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
}

/// Who enters: nothing (the caller's player), or (the creator only) one of
/// the service's bots by level; `invite` for a private tournament.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"bot": {"level": "medium"}}))]
pub struct EnterTournament {
    pub bot: Option<BotEntrant>,
    pub invite: Option<String>,
}

/// One of the service's bots as an entrant.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BotEntrant {
    pub level: BotLevel,
}

/// A player as a tournament shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantPlayer {
    pub id: String,
    pub name: String,
    /// One of the service's bots (or a player flagged `bot`).
    pub bot: bool,
}

/// An entrant.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"player": {"id": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "name": "Bot (medium)", "bot": true}, "rank": null, "rating": 1500.0, "withdrawn": false}))]
pub struct Entrant {
    pub player: EntrantPlayer,
    /// The starting rank (the pairing number); null before the start.
    pub rank: Option<u32>,
    /// Its rating in the kind when ranked (1500 without one).
    pub rating: f64,
    pub withdrawn: bool,
}

impl Entrant {
    #[must_use]
    pub fn of(t: &TournamentRecord, i: usize) -> Entrant {
        let e = &t.entrants[i];
        Entrant {
            player: player(t, i),
            rank: (e.number > 0).then_some(e.number),
            rating: e.rating,
            withdrawn: e.withdrawn,
        }
    }
}

fn player(t: &TournamentRecord, i: usize) -> EntrantPlayer {
    let e = &t.entrants[i];
    EntrantPlayer {
        id: e.player.clone(),
        name: e.name.clone(),
        bot: e.bot || e.level.is_some(),
    }
}

/// The tie-breaks of a line, as its system orders them (points in halves
/// written as numbers: 7.5).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TiebreaksView {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub buchholz_cut1: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub buchholz: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub sonneborn_berger: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub wins: Option<u32>,
    /// Arena: the mean rating of the opponents met plus 400 × (wins −
    /// losses) ÷ games; absent before a first game.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub performance: Option<f64>,
}

/// One line of the standings.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StandingLine {
    pub rank: u32,
    pub player: EntrantPlayer,
    pub points: f64,
    pub tiebreaks: TiebreaksView,
    pub played: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub byes: u32,
    pub withdrawn: bool,
    /// Arena: two wins in a row or more (the next win scores double).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub on_fire: Option<bool>,
}

/// The standings, best first.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [{"rank": 1, "player": {"id": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "name": "Ann", "bot": false}, "points": 2.5, "tiebreaks": {"buchholz_cut1": 2.0, "buchholz": 3.0, "sonneborn_berger": 2.25}, "played": 3, "wins": 2, "draws": 1, "losses": 0, "byes": 0, "withdrawn": false}]}))]
pub struct Standings {
    pub items: Vec<StandingLine>,
}

fn halves(h: u32) -> f64 {
    f64::from(h) / 2.0
}

impl Standings {
    /// The standings of `t` (before the start: the entrants in order of entry).
    #[must_use]
    pub fn of(t: &TournamentRecord, lines: &[Standing]) -> Standings {
        let arena = t.system == System::Arena;
        let items = lines
            .iter()
            .map(|l| StandingLine {
                rank: l.rank,
                player: player(t, l.entrant),
                points: if arena {
                    f64::from(l.halves / 2)
                } else {
                    halves(l.halves)
                },
                tiebreaks: match l.tiebreaks {
                    Tiebreaks::Swiss {
                        buchholz_cut1,
                        buchholz,
                        sonneborn_berger,
                    } => TiebreaksView {
                        buchholz_cut1: Some(halves(buchholz_cut1)),
                        buchholz: Some(halves(buchholz)),
                        sonneborn_berger: Some(f64::from(sonneborn_berger) / 4.0),
                        wins: None,
                        performance: None,
                    },
                    Tiebreaks::RoundRobin {
                        sonneborn_berger,
                        wins,
                    } => TiebreaksView {
                        buchholz_cut1: None,
                        buchholz: None,
                        sonneborn_berger: Some(f64::from(sonneborn_berger) / 4.0),
                        wins: Some(wins),
                        performance: None,
                    },
                    Tiebreaks::Arena { performance } => TiebreaksView {
                        buchholz_cut1: None,
                        buchholz: None,
                        sonneborn_berger: None,
                        wins: None,
                        performance: performance.map(f64::round),
                    },
                },
                played: l.played,
                wins: l.wins,
                draws: l.draws,
                losses: l.losses,
                byes: l.byes,
                withdrawn: t.entrants[l.entrant].withdrawn,
                on_fire: arena.then_some(l.on_fire),
            })
            .collect();
        Standings { items }
    }
}

/// One board of a round.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Pairing {
    /// From 1, in the order of publication.
    pub board: u32,
    /// X.
    pub white: EntrantPlayer,
    /// O; null: `white` has the bye (swiss: a point) or sits the round out
    /// (round robin).
    pub black: Option<EntrantPlayer>,
    /// The game, if one is played.
    pub game: Option<Uuid>,
    /// `1-0`, `0-1`, `1/2-1/2`, `+-` / `-+` (a forfeit), `--` (both absent),
    /// `bye`, `none` (sat out); null while the game is played.
    #[schema(example = "1-0")]
    pub result: Option<String>,
}

/// A round's pairings.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"round": 2, "pairings": [{"board": 1, "white": {"id": "0192f0c4-11aa-7c00-8e2e-5b7d0c4e9f01", "name": "Ann", "bot": false}, "black": {"id": "0192f0c4-22bb-7c00-8e2e-5b7d0c4e9f02", "name": "Bot (easy)", "bot": true}, "game": "0192f0c4-6c1e-7f53-a4a8-3c1b9e2d5a11", "result": "1-0"}, {"board": 2, "white": {"id": "0192f0c4-33cc-7c00-8e2e-5b7d0c4e9f03", "name": "Bob", "bot": false}, "black": null, "game": null, "result": "bye"}]}))]
pub struct Round {
    pub round: u32,
    pub pairings: Vec<Pairing>,
}

impl Round {
    #[must_use]
    pub fn of(t: &TournamentRecord, round: u32) -> Round {
        let boards: Vec<&Board> = t.boards.iter().filter(|b| b.round == round).collect();
        Round {
            round,
            pairings: boards
                .iter()
                .zip(1..)
                .map(|(b, n)| Pairing {
                    board: n,
                    white: player(t, b.white),
                    black: b.black.map(|i| player(t, i)),
                    game: b.game,
                    result: b.result.map(|r| BoardResult::as_str(r).to_owned()),
                })
                .collect(),
        }
    }
}

/// The query of a tournament's games.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TournamentGamesQuery {
    /// Only this player's games.
    pub player: Option<String>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
}
