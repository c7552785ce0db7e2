//! Tic-tac-toe bots.
//!
//! `hard` and `perfect` solve the game exactly: negamax over every position
//! reachable from the current one (at most 5,478), memoised. Both play only
//! optimal moves (the quickest win, else a draw, else the slowest loss), so
//! neither ever loses. `hard` picks among the optimal moves at random;
//! `perfect` picks the one that leaves the opponent the most losing replies.
//! `medium` looks 2 plies ahead with a line-counting evaluation: it takes
//! wins and blocks, but sees no fork coming.

use std::collections::HashMap;

use rand::Rng;
use rand::seq::IndexedRandom;

use super::alpha_beta::{self, Position, Settings, Terminal, WIN};
use super::limits::Meter;
use super::{Evaluation, Level, Outcome, Suggestion};
use tabula_rules::lines3::LINES;
use tabula_rules::tic_tac_toe::{Cell, TicTacToe};
use tabula_rules::{AnyMove, Game, Player};

/// Cells in the order `medium` tries them: centre, corners, edges.
const PREFERENCE: [u8; 9] = [4, 0, 2, 6, 8, 1, 3, 5, 7];

/// A move for the side to move of `game` (not over) at `level`.
pub(super) fn choose(
    game: &TicTacToe,
    level: Level,
    rng: &mut impl Rng,
    meter: &mut Meter,
) -> Option<Suggestion> {
    match level {
        Level::Medium => medium(game, rng, meter),
        Level::Perfect => solved(game, rng, true),
        _ => solved(game, rng, false),
    }
}

/// The exact value of `game` for the side to move: `WIN - n` for a win in
/// `n` plies, `-(WIN - n)` for a loss in `n`, 0 for a draw.
fn value(game: &TicTacToe, memo: &mut HashMap<TicTacToe, i32>) -> i32 {
    if game.winner().is_some() {
        return -WIN;
    }
    if game.is_over() {
        return 0;
    }
    if let Some(&v) = memo.get(game) {
        return v;
    }
    let best = game
        .legal_moves()
        .into_iter()
        .map(|m| child_value(game, m, memo))
        .max()
        .unwrap_or(0);
    memo.insert(game.clone(), best);
    best
}

/// The exact value of playing `m` in `game`, for the side to move of `game`.
fn child_value(game: &TicTacToe, m: Cell, memo: &mut HashMap<TicTacToe, i32>) -> i32 {
    let mut next = game.clone();
    next.play_unchecked(m);
    // One ply further away than from the child.
    match -value(&next, memo) {
        v if v > 0 => v - 1,
        v if v < 0 => v + 1,
        _ => 0,
    }
}

/// The evaluation of an exact value.
fn proven(game: &TicTacToe, value: i32) -> Evaluation {
    match value {
        v if v > 0 => Evaluation::proven(Outcome::Win, (WIN - v).unsigned_abs()),
        v if v < 0 => Evaluation::proven(Outcome::Loss, (WIN + v).unsigned_abs()),
        _ => Evaluation::proven(Outcome::Draw, 9 - game.ply()),
    }
}

/// An optimal move; with `traps`, the optimal move that leaves the opponent
/// the most replies that are worse for them than their best.
fn solved(game: &TicTacToe, rng: &mut impl Rng, traps: bool) -> Option<Suggestion> {
    let mut memo = HashMap::new();
    let scored: Vec<(Cell, i32)> = game
        .legal_moves()
        .into_iter()
        .map(|m| (m, child_value(game, m, &mut memo)))
        .collect();
    let best = scored.iter().map(|&(_, v)| v).max()?;
    let optimal: Vec<Cell> = scored
        .iter()
        .filter(|&&(_, v)| v == best)
        .map(|&(m, _)| m)
        .collect();
    let candidates = if traps {
        let mut mistakes = |m: Cell| {
            let mut next = game.clone();
            next.play_unchecked(m);
            let replies: Vec<i32> = next
                .legal_moves()
                .into_iter()
                .map(|r| child_value(&next, r, &mut memo))
                .collect();
            let their_best = replies.iter().copied().max().unwrap_or(0);
            replies.iter().filter(|&&v| v < their_best).count()
        };
        let counted: Vec<(Cell, usize)> = optimal.iter().map(|&m| (m, mistakes(m))).collect();
        let most = counted.iter().map(|&(_, n)| n).max().unwrap_or(0);
        counted
            .into_iter()
            .filter(|&(_, n)| n == most)
            .map(|(m, _)| m)
            .collect()
    } else {
        optimal
    };
    let &mv = candidates.choose(rng)?;
    Some(Suggestion {
        mv: AnyMove::TicTacToe(mv),
        evaluation: proven(game, best),
    })
}

/// A 2-ply alpha-beta search.
fn medium(game: &TicTacToe, rng: &mut impl Rng, meter: &mut Meter) -> Option<Suggestion> {
    let mut pos = Search {
        game: game.clone(),
        history: Vec::new(),
    };
    let settings = Settings {
        max_depth: 2,
        jitter: 2,
        seed: rng.random(),
    };
    let found = alpha_beta::search(&mut pos, settings, meter)?;
    Some(Suggestion {
        mv: AnyMove::TicTacToe(found.mv),
        evaluation: found.evaluation(1),
    })
}

/// The search's view of a position, with the positions before it for undo.
struct Search {
    game: TicTacToe,
    history: Vec<TicTacToe>,
}

impl Search {
    /// Each player's stones as a 9-bit mask.
    fn masks(&self) -> [u16; 2] {
        let mut masks = [0; 2];
        for i in 0..9 {
            if let Some(p) = Cell::from_index(i).and_then(|c| self.game.stone(c)) {
                masks[p.index()] |= 1 << i;
            }
        }
        masks
    }
}

impl Position for Search {
    type Move = Cell;

    const COMPLETE: bool = true;

    fn key(&self) -> u64 {
        let [x, o] = self.masks();
        u64::from(x) | u64::from(o) << 16
    }

    fn terminal(&self) -> Option<Terminal> {
        if self.game.winner().is_some() {
            Some(Terminal::Lost)
        } else if self.game.is_over() {
            Some(Terminal::Drawn)
        } else {
            None
        }
    }

    fn plies_left(&self) -> u32 {
        9 - self.game.ply()
    }

    fn winning_move(&self) -> Option<Cell> {
        let me = self.game.to_move();
        self.game
            .threats()
            .into_iter()
            .find(|t| t.player == me)
            .map(|t| t.mv)
    }

    fn opponent_wins(&self, out: &mut Vec<Cell>) {
        let me = self.game.to_move();
        out.clear();
        out.extend(
            self.game
                .threats()
                .into_iter()
                .filter(|t| t.player != me)
                .map(|t| t.mv),
        );
    }

    fn moves(&mut self, out: &mut Vec<Cell>) {
        out.clear();
        out.extend(
            PREFERENCE
                .iter()
                .filter_map(|&i| Cell::from_index(i))
                .filter(|&c| self.game.stone(c).is_none()),
        );
    }

    fn play(&mut self, m: Cell) {
        self.history.push(self.game.clone());
        self.game.play_unchecked(m);
    }

    fn undo(&mut self, _: Cell) {
        if let Some(before) = self.history.pop() {
            self.game = before;
        }
    }

    /// Open lines: 1 for one stone, 4 for two, per side.
    fn evaluate(&self) -> i32 {
        let masks = self.masks();
        let me = self.game.to_move();
        let score = |p: Player| -> i32 {
            let (own, other) = (masks[p.index()], masks[p.other().index()]);
            LINES
                .iter()
                .filter(|&&l| l & other == 0)
                .map(|&l| match (l & own).count_ones() {
                    1 => 1,
                    2 => 4,
                    _ => 0,
                })
                .sum()
        };
        score(me) - score(me.other())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rand::SeedableRng;

    use super::*;

    /// Every position up to `plies` moves in, not over.
    fn positions(game: &TicTacToe, plies: u32, out: &mut Vec<TicTacToe>) {
        if game.is_over() {
            return;
        }
        out.push(game.clone());
        if plies > 0 {
            for m in game.legal_moves() {
                let mut next = game.clone();
                next.play_unchecked(m);
                positions(&next, plies - 1, out);
            }
        }
    }

    #[test]
    fn alpha_beta_agrees_with_the_solver() {
        let mut all = Vec::new();
        positions(&TicTacToe::new(), 4, &mut all);
        let mut memo = HashMap::new();
        for game in all {
            let mut pos = Search {
                game: game.clone(),
                history: Vec::new(),
            };
            let settings = Settings {
                max_depth: 9,
                jitter: 0,
                seed: 0,
            };
            let mut meter = Meter::new(50_000, Duration::from_mins(1));
            let found = alpha_beta::search(&mut pos, settings, &mut meter).unwrap();
            let exact = value(&game, &mut memo);
            assert_eq!(found.score, exact, "{game:?}");
            assert_eq!(child_value(&game, found.mv, &mut memo), exact, "{game:?}");
            assert_eq!(found.evaluation(1), proven(&game, exact), "{game:?}");
        }
    }

    #[test]
    fn monte_carlo_proves_endgames_like_the_solver() {
        let mut all = Vec::new();
        positions(&TicTacToe::new(), 9, &mut all);
        all.retain(|g| g.ply() >= 5);
        let mut memo = HashMap::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let settings = super::super::mcts::Settings {
            exploration: 1.0,
            memory: 1 << 20,
        };
        for game in all {
            let mut meter = Meter::new(100_000, Duration::from_mins(1));
            let found = super::super::mcts::search(&game, settings, &mut rng, &mut meter).unwrap();
            let exact = value(&game, &mut memo);
            assert_eq!(found.evaluation, proven(&game, exact), "{game:?}");
            assert_eq!(child_value(&game, found.mv, &mut memo), exact, "{game:?}");
        }
    }

    #[test]
    fn the_empty_board_is_a_draw() {
        let mut memo = HashMap::new();
        assert_eq!(value(&TicTacToe::new(), &mut memo), 0);
        // Every position reachable from the start, over but not memoised.
        assert!(memo.len() < 5_478);
    }

    #[test]
    fn a_fork_is_a_win_in_three() {
        // X: 0, 4; O: 8, 1. X forks with 6 (threatening 2 and 3) or 3.
        let mut game = TicTacToe::new();
        for i in [0, 8, 4, 1] {
            game.play_unchecked(Cell::from_index(i).unwrap());
        }
        let mut memo = HashMap::new();
        assert_eq!(value(&game, &mut memo), WIN - 3);
    }
}
