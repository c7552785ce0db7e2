//! Gomoku bots: threat-aware alpha-beta over the cells near the stones.
//!
//! Candidate moves are the empty cells within two steps of a stone along
//! the eight lines (any move that makes or stops a four is one of them),
//! ordered by what they add to the mover's windows and take from the
//! opponent's (see [`board`]), and only the best few are searched. The
//! shared alpha-beta rules make the search threat-aware: a five is always
//! made, a single five-threat of the opponent is always blocked (without
//! using up depth, so a run of fours is followed to its end), and two at
//! once count as lost. So an open three that is not answered shows up as a
//! loss two plies after the opponent's open four.
//!
//! `medium` searches 2 plies over the 8 best candidates. `hard` first looks
//! for a victory by continuous fours ([`vcf`]) and plays it if there is one;
//! if the opponent would have one were it their turn, it keeps to the moves
//! after which they have none; else it looks for a victory by continuous
//! threats ([`vct`]: open threes and fours) and plays it, and if the
//! opponent would have one, keeps to the moves that stop it; then its main
//! search ([`engine`]) deepens iteratively until its budget is spent, with
//! moves generated from the line shapes of every empty cell ([`lines`],
//! [`shapes`]), ordered by scores per quad of shapes learned from a
//! stronger engine's moves ([`policy`]), only the moves that can stop an
//! open three when the opponent has one.
//!
//! The candidate pruning makes the main search's wins and losses
//! unproven; the evaluations it reports as proven are the immediate ones
//! and VCF wins.

mod board;
mod engine;
mod lines;
mod net;
mod patterns;
mod policy;
mod shapes;
#[cfg(any(test, feature = "tuning"))]
pub(super) mod tuning;
mod vcf;
mod vct;

use rand::Rng;

use super::alpha_beta::{self, Position, Settings, Terminal};
use super::limits::Meter;
use super::{Evaluation, Level, Outcome, Suggestion};
use board::{Board, Cell};
use tabula_rules::AnyMove;
use tabula_rules::gomoku::{Gomoku, Point};

/// Search nodes per millisecond of budget (see [`super::Budget::work`]):
/// set so that an ordinary machine spends about half the budget on a
/// `hard` move (raised as nodes got cheaper, lowered when the evaluation's
/// network, [`net`], made them dearer, so that a move keeps its time). A
/// host much slower than that reaches the wall-clock cap on a move that
/// spends its whole allowance; it then searches what the clock lets.
pub(super) const NODES_PER_MILLI: u64 = 2_100;

/// Heuristic scores are divided by this for the public evaluation.
const SCORE_SCALE: i32 = 4;
/// The longest VCF looked for (fours by the mover).
const VCF_FOURS: u32 = 10;
/// The share of the work each VCF search (ours, then the opponent's) may
/// use (1 / this).
const VCF_SHARE: u64 = 8;
/// How many candidates are checked against the opponent's VCF.
const DEFENCE_WIDTH: usize = 24;
/// The most quiet threats (open threes and the like) a VCT may use before
/// its closing VCF.
const VCT_THREATS: u32 = 3;
/// The share of the work the VCT searches may use: ours (1 / this), then
/// the defence against the opponent's (twice that).
const VCT_SHARE: u64 = 6;
/// The main search's leaf jitter (see [`engine`]).
const STRONG_JITTER: i32 = 4;
/// The main search's scores are divided by this for the public evaluation.
const STRONG_SCALE: i32 = 8;
/// The evaluation of a VCT found: a strong but unproven win (see [`vct`]).
const VCT_SCORE: i32 = 900;

/// The search's position: the board, how many candidates to keep, and the
/// root moves when they are restricted.
struct Search {
    board: Board,
    width: usize,
    scored: Vec<(i32, Cell)>,
    /// The only moves to search at the root (which holds this many stones).
    root: Option<(usize, Vec<Cell>)>,
}

impl Search {
    /// The candidates in order, at most `width`.
    fn ordered(&mut self, width: usize, out: &mut Vec<Cell>) {
        self.board.candidates(out);
        let me = self.board.to_move();
        self.scored.clear();
        self.scored.extend(out.iter().map(|&c| {
            let (attack, defence) = self.board.gains(c, me);
            (attack + defence, c)
        }));
        // Best first; ties by cell, so the order is stable.
        self.scored.sort_unstable_by_key(|&(score, c)| (-score, c));
        out.clear();
        out.extend(self.scored.iter().take(width).map(|&(_, c)| c));
    }

    /// When the opponent, were it their turn, would have a VCF: the
    /// candidates after which they have none (see [`Search::stopping`]).
    fn safe_moves(&mut self, meter: &mut Meter) -> Option<Vec<Cell>> {
        self.stopping(meter, |board, meter| {
            vcf::find(board, VCF_FOURS, meter).is_some()
        })
    }

    /// When the opponent, were it their turn, would have a VCT: the
    /// candidates after which they have none (see [`Search::stopping`]).
    fn vct_safe_moves(&mut self, meter: &mut Meter) -> Option<Vec<Cell>> {
        self.stopping(meter, |board, meter| {
            vct::find(board, VCT_THREATS, VCF_FOURS, meter).is_some()
        })
    }

    /// When the opponent, were it their turn, would `win` (a forcing win
    /// found for the side to move): the best candidates after which they
    /// would not, those checked before the meter stopped (a search cut
    /// short proves nothing). `None` when there is no such win or no
    /// candidate is known to stop it.
    fn stopping(
        &mut self,
        meter: &mut Meter,
        win: impl Fn(&mut Board, &mut Meter) -> bool,
    ) -> Option<Vec<Cell>> {
        self.board.pass();
        let threat = win(&mut self.board, meter);
        self.board.pass();
        if !threat {
            return None;
        }
        let mut candidates = Vec::new();
        self.ordered(DEFENCE_WIDTH, &mut candidates);
        let mut safe = Vec::new();
        for c in candidates {
            self.board.play(c);
            let stopped = !win(&mut self.board, meter);
            self.board.undo(c);
            if meter.stopped() {
                break;
            }
            if stopped {
                safe.push(c);
            }
        }
        (!safe.is_empty()).then_some(safe)
    }
}

impl Position for Search {
    type Move = Cell;

    const COMPLETE: bool = false;

    fn key(&self) -> u64 {
        self.board.key()
    }

    fn terminal(&self) -> Option<Terminal> {
        if self.board.winner().is_some() {
            Some(Terminal::Lost)
        } else if self.board.empties() == 0 {
            Some(Terminal::Drawn)
        } else {
            None
        }
    }

    fn plies_left(&self) -> u32 {
        u32::try_from(self.board.empties()).unwrap_or(u32::MAX)
    }

    fn winning_move(&self) -> Option<Cell> {
        self.board.first_win(self.board.to_move())
    }

    fn opponent_wins(&self, out: &mut Vec<Cell>) {
        self.board.wins(1 - self.board.to_move(), out);
    }

    fn moves(&mut self, out: &mut Vec<Cell>) {
        if let Some((stones, cells)) = &self.root
            && *stones == self.board.stones()
        {
            out.clone_from(cells);
            return;
        }
        self.ordered(self.width, out);
    }

    fn play(&mut self, m: Cell) {
        self.board.play(m);
    }

    fn undo(&mut self, m: Cell) {
        self.board.undo(m);
    }

    /// The mover's window score, with a quarter more for the tempo, less the
    /// opponent's.
    fn evaluate(&self) -> i32 {
        let me = self.board.to_move();
        self.board.score(me) * 5 / 4 - self.board.score(1 - me)
    }
}

/// The rules' point for a search cell of `game`'s board.
fn point(game: &Gomoku, cell: Cell) -> Option<Point> {
    let size = u16::from(game.size());
    game.point(i64::from(cell / size), i64::from(cell % size))
        .ok()
}

/// A move for the side to move of `game` (not over) at `level`.
pub(super) fn choose(
    game: &Gomoku,
    level: Level,
    rng: &mut impl Rng,
    meter: &mut Meter,
) -> Option<Suggestion> {
    let mut search = Search {
        board: Board::new(game),
        width: 8,
        scored: Vec::new(),
        root: None,
    };
    let seed = rng.random();
    let settings = if level == Level::Medium {
        Settings {
            max_depth: 2,
            jitter: 40,
            seed,
        }
    } else {
        let mut share = meter.child(meter.allowance() / VCF_SHARE);
        let vcf = vcf::find(&mut search.board, VCF_FOURS, &mut share);
        meter.absorb(&share);
        if let Some((cell, plies)) = vcf {
            return Some(Suggestion {
                mv: AnyMove::Gomoku(point(game, cell)?),
                evaluation: Evaluation::proven(Outcome::Win, plies),
            });
        }
        let mut share = meter.child(meter.allowance() / VCF_SHARE);
        let mut safe = search.safe_moves(&mut share);
        meter.absorb(&share);
        if safe.is_none() {
            // No fours to fear: a win by threats of ours, else keep to the
            // moves that stop the opponent's.
            let mut share = meter.child(meter.allowance() / VCT_SHARE);
            let vct = vct::find(&mut search.board, VCT_THREATS, VCF_FOURS, &mut share);
            meter.absorb(&share);
            if let Some((cell, _)) = vct {
                return Some(Suggestion {
                    mv: AnyMove::Gomoku(point(game, cell)?),
                    evaluation: Evaluation::heuristic(VCT_SCORE),
                });
            }
            let mut share = meter.child((meter.allowance() / VCT_SHARE).saturating_mul(2));
            safe = search.vct_safe_moves(&mut share);
            meter.absorb(&share);
        }
        return strong(game, safe.as_deref(), seed, meter);
    };
    let found = alpha_beta::search(&mut search, settings, meter)?;
    Some(Suggestion {
        mv: AnyMove::Gomoku(point(game, found.mv)?),
        evaluation: found.evaluation(SCORE_SCALE),
    })
}

/// `hard`'s main search ([`engine`]) over the root moves `only` when given.
fn strong(
    game: &Gomoku,
    only: Option<&[Cell]>,
    seed: u64,
    meter: &mut Meter,
) -> Option<Suggestion> {
    let lines = lines::Lines::new(game);
    let size = usize::from(game.size());
    let only: Option<Vec<lines::Spot>> = only.map(|cells| {
        cells
            .iter()
            .filter_map(|&c| {
                let c = usize::from(c);
                lines::Spot::try_from(lines.spot(c / size, c % size)).ok()
            })
            .collect()
    });
    let max_depth = u32::try_from(lines.empties()).unwrap_or(u32::MAX);
    let mut engine = engine::Engine::new(lines, meter, seed, STRONG_JITTER);
    let found = engine.search(only.as_deref(), max_depth)?;
    let (row, col) = engine.lines.row_col(found.mv);
    let mv = game
        .point(i64::try_from(row).ok()?, i64::try_from(col).ok()?)
        .ok()?;
    let evaluation = found.evaluation(STRONG_SCALE);
    Some(Suggestion {
        mv: AnyMove::Gomoku(mv),
        evaluation,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use tabula_rules::Game;
    use tabula_rules::gomoku::{GomokuOptions, GomokuRule};

    #[test]
    fn only_moves_that_stop_the_opponents_vcf_are_kept() {
        // O's (7, 7) would make a four on row 7 and an open three down
        // column 7; X is to move.
        let xs = [(7, 3), (0, 0), (0, 14), (14, 0), (14, 14)];
        let os = [(7, 4), (7, 5), (7, 6), (5, 7), (6, 7)];
        let mut game = Gomoku::new(GomokuOptions::new(15, GomokuRule::Freestyle).unwrap());
        for (x, o) in xs.iter().zip(&os) {
            game.try_play(game.point(x.0, x.1).unwrap()).unwrap();
            game.try_play(game.point(o.0, o.1).unwrap()).unwrap();
        }
        let mut search = Search {
            board: Board::new(&game),
            width: 12,
            scored: Vec::new(),
            root: None,
        };
        let mut meter = Meter::new(1_000_000, Duration::from_mins(1));
        let safe = search.safe_moves(&mut meter).expect("O has a VCF");
        let cell = |r: u16, c: u16| r * 15 + c;
        let mut sorted = safe.clone();
        sorted.sort_unstable();
        let mut expected = vec![cell(4, 7), cell(7, 7), cell(7, 8), cell(8, 7)];
        expected.sort_unstable();
        assert_eq!(sorted, expected);
        // The root searches only those.
        search.root = Some((search.board.stones(), safe.clone()));
        let mut out = Vec::new();
        search.moves(&mut out);
        assert_eq!(out, safe);
    }
}
