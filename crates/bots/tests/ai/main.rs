//! Bot tests: hand-made positions for every game (immediate wins, blocks,
//! forced wins, gomoku threats), an exhaustive walk proving that the
//! tic-tac-toe solvers never lose, the Connect Four solver against the
//! standard test sets, seeded level-against-level matches, and determinism
//! and time-cap checks.
//!
//! Bots run with a fixed work allowance ([`work`]) and a generous time cap,
//! so every test is deterministic.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers as well as tests may unwrap: the panic is the failure message"
)]

mod analysis;
mod connect_four;
mod gomoku;
mod levels;
mod solver;
mod tic_tac_toe;
mod ultimate;

use std::time::Duration;

use tabula_bots::{self as ai, Budget, Level, Suggestion};
use tabula_rules::{AnyGame, AnyMove, GameKind, Player, Setup};

/// The time cap of test searches: far above what their work takes.
pub const TIME_CAP: Duration = Duration::from_mins(1);

/// The work allowance of test searches, per kind.
#[must_use]
pub fn work(kind: GameKind) -> u64 {
    match kind {
        GameKind::TicTacToe => 1_000,
        GameKind::ConnectFour => 20_000,
        GameKind::Gomoku => 4_000,
        GameKind::UltimateTicTacToe => 2_000,
    }
}

/// The levels from `easy` up that can play `game` and answer quickly (see
/// [`answers_quickly`]).
#[must_use]
pub fn hint_levels(game: &AnyGame) -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|&l| {
            l >= Level::Easy && ai::check_available(game, l).is_ok() && answers_quickly(game, l)
        })
        .collect()
}

/// Whether `level` answers `game` within a test's patience. All do but
/// `perfect` at Connect Four, which solves the position exactly: from 16
/// stones on that takes milliseconds, before seconds to hours
/// (`docs/benchmarks.md`).
/// `solver.rs` tests it on positions chosen for that.
#[must_use]
pub fn answers_quickly(game: &AnyGame, level: Level) -> bool {
    level != Level::Perfect || game.kind() != GameKind::ConnectFour || game.ply() >= 16
}

/// The suggestion of `level` with the test allowance.
///
/// # Panics
/// When the level is unavailable or the game is over.
#[must_use]
pub fn suggest(game: &AnyGame, level: Level, seed: u64) -> Suggestion {
    suggest_with(game, level, seed, work(game.kind()))
}

/// The suggestion of `level` with `work`.
///
/// # Panics
/// When the level is unavailable or the game is over.
#[must_use]
pub fn suggest_with(game: &AnyGame, level: Level, seed: u64, work: u64) -> Suggestion {
    let budget = Budget { time: TIME_CAP };
    ai::choose_with_work(game, level, seed, budget, work)
        .expect("level available")
        .expect("game not over")
}

/// `game` after `m`.
///
/// # Panics
/// When `m` is illegal.
#[must_use]
pub fn after(game: &AnyGame, m: AnyMove) -> AnyGame {
    let mut next = game.clone();
    next.try_play(m).expect("a legal move");
    next
}

/// The moves by which `player` wins at once in `game` (`player` to move:
/// their legal winning moves).
#[must_use]
pub fn wins_of(game: &AnyGame, player: Player) -> Vec<AnyMove> {
    game.threats()
        .into_iter()
        .filter(|t| t.player == player)
        .map(|t| t.mv)
        .collect()
}

/// Positions reached by random play from the start of `setup`, `count` of
/// them, seeded; none is over.
///
/// # Panics
/// When the random bot plays an illegal move.
#[must_use]
pub fn random_positions(setup: Setup, count: usize, seed: u64) -> Vec<AnyGame> {
    let mut out = Vec::new();
    let mut game_seed = seed;
    while out.len() < count {
        let mut game = AnyGame::new(setup);
        game_seed += 1;
        let mut ply = 0;
        while !game.is_over() && out.len() < count {
            let m = suggest(&game, Level::Random, game_seed ^ ply).mv;
            game.try_play(m).expect("random plays legal moves");
            ply += 1;
            if !game.is_over() {
                out.push(game.clone());
            }
        }
    }
    out
}

/// Every level from `easy` up, in each of `positions`, takes an immediate
/// win when it has one and otherwise blocks the opponent's only one. Returns
/// how many blocks were checked, so a caller can insist there were enough.
///
/// # Panics
/// When a level misses a win or a block.
#[must_use]
pub fn assert_wins_and_blocks(positions: &[AnyGame]) -> usize {
    let mut blocks = 0;
    for game in positions {
        let me = game.to_move();
        let mine = wins_of(game, me);
        let theirs = wins_of(game, me.other());
        for level in hint_levels(game) {
            let mv = suggest(game, level, 5).mv;
            if !mine.is_empty() {
                assert!(mine.contains(&mv), "{level} missed a win in {game:?}");
            } else if theirs.len() == 1 {
                assert_eq!(mv, theirs[0], "{level} missed a block in {game:?}");
                blocks += 1;
            }
        }
    }
    blocks
}

/// Every level from `easy` up, with any seed, plays `block` in `game`.
///
/// # Panics
/// When one does not.
pub fn assert_every_level_plays(game: &AnyGame, block: AnyMove) {
    for level in hint_levels(game) {
        for seed in 0..5 {
            assert_eq!(suggest(game, level, seed).mv, block, "{level} seed {seed}");
        }
    }
}
