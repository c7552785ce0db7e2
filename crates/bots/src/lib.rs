//! Bots and hints over the rules: levels, seeded strategies and budgets.
//!
//! Strategies are deterministic: the same seed, the same position and the
//! same work allowance give the same move. Each search is bounded twice:
//!
//! - by **work** (alpha-beta nodes or Monte-Carlo playouts), which decides
//!   how far it looks and keeps it deterministic, and
//! - by **time**, a hard safety cap on the wall clock. When the clock cuts a
//!   search short (a slow or loaded machine), the bot plays the best move of
//!   the last finished iteration, which may differ from the move a finished
//!   search would have chosen.
//!
//! [`choose`] derives the work from the time budget ([`Budget::work`]), at a
//! rate calibrated so that a release build finishes well inside the time;
//! [`choose_with_work`] takes an explicit allowance (tests, the arena).
//!
//! They are synchronous and CPU-bound; the service runs them off the async
//! workers. Memory is bounded too: no search holds more than
//! [`MAX_SEARCH_MEMORY`] bytes of tables or trees.
//!
//! | kind | `medium` | `hard` | `perfect` |
//! |------|----------|--------|-----------|
//! | tic-tac-toe | 2-ply search | exact solver | exact solver that sets traps |
//! | connect four | 4-ply alpha-beta | iterative-deepening alpha-beta | exact solver, `hard` past its time |
//! | gomoku | 2-ply threat-aware alpha-beta | VCF and VCT, then a PVS search over line shapes | unavailable |
//! | ultimate | small Monte-Carlo tree search | Monte-Carlo tree search | unavailable |
//!
//! [`analyze`] evaluates every legal move at a level (the analysis of
//! `GET /v1/games/{id}/analysis`), within the budget of one move.

mod alpha_beta;
mod analysis;
mod connect_four;
mod easy;
mod gomoku;
mod level;
mod limits;
mod mcts;
mod random;
mod tic_tac_toe;
mod ultimate;

use std::time::Duration;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use tabula_rules::{AnyGame, AnyMove, GameKind};

/// The strength a bot is asked to play at: a domain record (seats and
/// requests carry it), re-exported here for the bots' callers.
pub use level::{Level, UnknownLevel};

use limits::Meter;
pub use limits::Stop;

pub use analysis::{Analysis, ScoredMove, analyze, analyze_with_work};

/// The exact Connect Four solver behind `perfect` and its opening book, for
/// the tools in `examples/` (`c4solve`, `c4book`).
pub mod connect_four_solver {
    pub use super::connect_four::book::{Book, BookError, MAX_DEPTH, write as write_book};
    pub use super::connect_four::solver::{
        HEIGHT, HUGE_BUCKETS, LARGE_BUCKETS, MAX_SCORE, MIN_SCORE, MovesError, Openings, Position,
        Solver, TimeUp, WIDTH, known_move_score, known_score, table_bytes,
    };
}

/// What `hard`'s Gomoku move ordering sees of a position, for fitting its
/// weights from games (`crates/tools/examples/gomoku-tune.rs`).
#[cfg(any(test, feature = "tuning"))]
pub mod gomoku_tuning {
    pub use super::gomoku::tuning::{
        Candidate, NET_COUNT_SCALE, NET_D, NET_H, NET_INPUTS, NET_SCALE, PATTERN_KEYS,
        PATTERN_MASKS, PATTERN_QUADS, PATTERN_SCALARS, POLICY_SORTED, PatternTerms, candidates,
        class_of, evaluation_terms, is_sorted, pattern_terms, quad,
    };
}

/// The most memory (bytes) one search may hold in tables and trees.
pub const MAX_SEARCH_MEMORY: usize = 64 << 20;

/// A level that this build cannot play for a kind, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("level `{level}` is not available for {kind}: {reason}")]
pub struct Unavailable {
    /// The level asked for.
    pub level: Level,
    /// The game kind's API name.
    pub kind: &'static str,
    /// Why, for the user.
    pub reason: &'static str,
}

/// What the search proved about the position, from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The mover wins whatever the opponent does.
    Win,
    /// The opponent wins whatever the mover does.
    Loss,
    /// Neither side can force a win.
    Draw,
}

/// How good the position is for the side to move.
///
/// `score` runs from -1000 (lost) to 1000 (won), positive good for the mover;
/// ±1000 is given only with a proof. `proven` holds what the search proved,
/// if anything: the outcome with best play by both sides and in how many
/// plies it comes, counting the suggested move as the first ply (a draw
/// "comes" when the board is full).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// -1000 (lost) to 1000 (won), from the mover's view.
    pub score: i32,
    /// The proven outcome and its distance in plies, if proven.
    pub proven: Option<(Outcome, u32)>,
}

impl Evaluation {
    /// Nothing known.
    pub const UNKNOWN: Evaluation = Evaluation {
        score: 0,
        proven: None,
    };

    /// The evaluation of a proven outcome `plies` away.
    #[must_use]
    pub const fn proven(outcome: Outcome, plies: u32) -> Evaluation {
        let score = match outcome {
            Outcome::Win => SCORE_MAX,
            Outcome::Loss => -SCORE_MAX,
            Outcome::Draw => 0,
        };
        Evaluation {
            score,
            proven: Some((outcome, plies)),
        }
    }

    /// An unproven evaluation, squeezed into -999..=999.
    #[must_use]
    pub fn heuristic(score: i32) -> Evaluation {
        Evaluation {
            score: score.clamp(-SCORE_MAX + 1, SCORE_MAX - 1),
            proven: None,
        }
    }
}

/// The score of a proven win.
const SCORE_MAX: i32 = 1000;

/// A move chosen by a bot, with its evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The move to play.
    pub mv: AnyMove,
    /// The position as the bot sees it, from the mover's view.
    pub evaluation: Evaluation,
}

/// What a search may spend: a hard cap on the wall clock.
///
/// [`choose`] turns it into a deterministic work allowance with
/// [`Budget::work`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The wall-clock cap of one move.
    pub time: Duration,
}

impl Budget {
    /// A budget of `millis` milliseconds.
    #[must_use]
    pub const fn from_millis(millis: u64) -> Budget {
        Budget {
            time: Duration::from_millis(millis),
        }
    }

    /// The work [`choose`] allows a search of `kind` within this budget:
    /// alpha-beta nodes (connect four, gomoku) or Monte-Carlo playouts
    /// (ultimate tic-tac-toe); tic-tac-toe is solved outright and ignores it.
    ///
    /// The rates are calibrated so that a release build on one core of an
    /// ordinary machine spends about half its time budget, leaving the rest
    /// as slack before the hard cap.
    #[must_use]
    pub fn work(self, kind: GameKind) -> u64 {
        let per_milli: u64 = match kind {
            GameKind::TicTacToe => 1_000,
            GameKind::ConnectFour => connect_four::NODES_PER_MILLI,
            GameKind::Gomoku => gomoku::NODES_PER_MILLI,
            GameKind::UltimateTicTacToe => ultimate::PLAYOUTS_PER_MILLI,
        };
        let millis = u64::try_from(self.time.as_millis()).unwrap_or(u64::MAX);
        millis.saturating_mul(per_milli).max(1)
    }
}

/// Whether `level` can be played for the game of `game`.
///
/// # Errors
/// [`Unavailable`] for `perfect` outside tic-tac-toe and Connect Four:
/// those games are not solved within a move's budget.
pub fn check_available(game: &AnyGame, level: Level) -> Result<(), Unavailable> {
    let kind = game.kind();
    let reason = match (kind, level) {
        (_, Level::Random | Level::Easy | Level::Medium | Level::Hard)
        | (GameKind::TicTacToe | GameKind::ConnectFour, Level::Perfect) => return Ok(()),
        (GameKind::Gomoku, Level::Perfect) => {
            "gomoku is not solved on these boards; `hard` is the strongest level"
        }
        (GameKind::UltimateTicTacToe, Level::Perfect) => {
            "ultimate tic-tac-toe is not solved; `hard` is the strongest level"
        }
    };
    Err(Unavailable {
        level,
        kind: kind.as_str(),
        reason,
    })
}

/// Chooses a move for the side to move. `None` when the game is over.
///
/// The work allowance is [`Budget::work`] of the budget; `budget.time` is the
/// hard cap.
///
/// # Errors
/// [`Unavailable`] as [`check_available`].
///
/// # Examples
///
/// ```
/// use tabula_bots::{self as ai, Budget, Level, Outcome};
/// use tabula_rules::{AnyGame, Setup};
///
/// let game = AnyGame::new(Setup::TicTacToe);
/// let hint = ai::choose(&game, Level::Perfect, 7, Budget::from_millis(100))?
///     .expect("the game is not over");
/// assert_eq!(hint.evaluation.proven, Some((Outcome::Draw, 9)));
/// assert!(game.check(hint.mv).is_ok());
/// # Ok::<(), ai::Unavailable>(())
/// ```
pub fn choose(
    game: &AnyGame,
    level: Level,
    seed: u64,
    budget: Budget,
) -> Result<Option<Suggestion>, Unavailable> {
    choose_with_work(game, level, seed, budget, budget.work(game.kind()))
}

/// Like [`choose`], with an explicit work allowance (see [`Budget::work`]
/// for its unit); `budget.time` stays the hard cap. Deterministic in
/// (`game`, `level`, `seed`, `work`) as long as the time cap is not hit.
///
/// # Errors
/// [`Unavailable`] as [`check_available`].
pub fn choose_with_work(
    game: &AnyGame,
    level: Level,
    seed: u64,
    budget: Budget,
    work: u64,
) -> Result<Option<Suggestion>, Unavailable> {
    check_available(game, level)?;
    if game.is_over() {
        return Ok(None);
    }
    let mut rng = rng_for(game, seed);
    let mut meter = Meter::new(work, budget.time);
    Ok(match (game, level) {
        (_, Level::Random) => random::choose(game, &mut rng),
        (_, Level::Easy) => easy::choose(game, &mut rng),
        (AnyGame::TicTacToe(g), _) => tic_tac_toe::choose(g, level, &mut rng, &mut meter),
        (AnyGame::ConnectFour(g), _) => connect_four::choose(g, level, &mut rng, &mut meter),
        (AnyGame::Gomoku(g), _) => gomoku::choose(g, level, &mut rng, &mut meter),
        (AnyGame::UltimateTicTacToe(g), _) => ultimate::choose(g, level, &mut rng, &mut meter),
    })
}

/// A generator that depends only on the seed and the position.
fn rng_for(game: &AnyGame, seed: u64) -> ChaCha8Rng {
    // FNV-1a over the snapshot: stable across runs and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in game.encode() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(seed ^ hash)
}

/// A well-mixed 64-bit hash of `x` (splitmix64's finaliser).
const fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_rules::{GameKind, Setup};

    #[test]
    fn the_same_seed_and_position_give_the_same_move() {
        for kind in GameKind::ALL {
            let game = AnyGame::new(Setup::default_for(kind));
            let budget = Budget {
                time: Duration::from_millis(10),
            };
            let a = choose(&game, Level::Random, 42, budget).unwrap().unwrap();
            let b = choose(&game, Level::Random, 42, budget).unwrap().unwrap();
            assert_eq!(a, b);
            let many: std::collections::HashSet<_> = (0..20)
                .map(|s| choose(&game, Level::Random, s, budget).unwrap().unwrap().mv)
                .collect();
            assert!(many.len() > 1, "different seeds should vary the move");
        }
    }

    #[test]
    fn perfect_is_available_for_the_solved_games_only() {
        for kind in GameKind::ALL {
            let game = AnyGame::new(Setup::default_for(kind));
            let available = check_available(&game, Level::Perfect).is_ok();
            let solved = matches!(kind, GameKind::TicTacToe | GameKind::ConnectFour);
            assert_eq!(available, solved, "{kind}");
            for level in [Level::Random, Level::Easy, Level::Medium, Level::Hard] {
                assert!(check_available(&game, level).is_ok(), "{kind} {level}");
            }
        }
        let err = check_available(
            &AnyGame::new(Setup::default_for(GameKind::Gomoku)),
            Level::Perfect,
        )
        .unwrap_err();
        assert!(err.to_string().contains("hard"), "{err}");
    }

    #[test]
    fn work_grows_with_the_time_budget() {
        for kind in GameKind::ALL {
            let small = Budget::from_millis(10).work(kind);
            let large = Budget::from_millis(1000).work(kind);
            assert!(small >= 1 && large > small, "{kind}");
        }
        assert_eq!(Budget::from_millis(0).work(GameKind::ConnectFour), 1);
    }
}
