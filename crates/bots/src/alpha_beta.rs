//! The alpha-beta strategy: iterative-deepening negamax with a bounded
//! transposition table, over any [`Position`].
//!
//! The game-specific parts live with each game: the move generator and its
//! ordering, and the static evaluation (the "evaluator" in the sense of
//! minimax-rs). Here are only the rules every k-in-a-row game shares:
//!
//! - a side that can win at once does (the node is scored as a win without
//!   searching further);
//! - a side facing two or more immediate wins of the opponent has lost;
//! - a side facing exactly one must block it: that is the only move searched,
//!   and it does not use up depth (forced moves are free, also below the
//!   horizon, which keeps the leaves quiet).
//!
//! Scores are from the side to move's view. A win `n` plies from the root
//! scores `WIN - n`; heuristic scores stay far below [`MATE`].
//!
//! Determinism: the search is a function of the position, the settings and
//! the work allowance; the seed enters only through a small "jitter" added to
//! each leaf score (a hash of the position and the seed), which varies the
//! choice between nearly equal moves.

use std::fmt::Debug;

use super::limits::Meter;
use super::{Evaluation, MAX_SEARCH_MEMORY, Outcome, mix};

/// The score of a win at the root; a win `n` plies away scores `WIN - n`.
pub(super) const WIN: i32 = 1_000_000;
/// Scores at least this large (in absolute value) are forced wins or losses.
pub(super) const MATE: i32 = WIN - 10_000;
/// Evaluations are clamped below this.
const EVAL_CAP: i32 = MATE / 2;
/// Deepest ply (from the root) a search goes, forced moves included.
const MAX_PLY: u32 = 512;
/// A root with a single move to search (a forced block) spends this share
/// (1 / this) of the work: the search is only for its evaluation.
const FORCED_SHARE: u64 = 8;
/// The smallest transposition table (slots).
const MIN_TABLE: usize = 1 << 10;

/// How a game ended, from the view of the side that would move next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Terminal {
    /// The last move won.
    Lost,
    /// The board is full.
    Drawn,
}

/// A position the search can walk: the rules as the search needs them, with
/// the game's heuristics.
pub(super) trait Position {
    /// A move, playable in the position it was generated for.
    type Move: Copy + Eq + Debug;

    /// Whether `moves` (with the forced-move rules above) never leaves out a
    /// move that could change the value of a position: then wins, losses
    /// and draws found are proofs.
    const COMPLETE: bool;

    /// A hash of the position, side to move included.
    fn key(&self) -> u64;
    /// Whether the game is over.
    fn terminal(&self) -> Option<Terminal>;
    /// An upper bound on the plies left in the game (empty cells).
    fn plies_left(&self) -> u32;
    /// A move that wins at once for the side to move.
    fn winning_move(&self) -> Option<Self::Move>;
    /// Fills `out` with the distinct moves by which the opponent would win
    /// at once if it were their turn (the side to move blocks one by playing
    /// it).
    fn opponent_wins(&self, out: &mut Vec<Self::Move>);
    /// Fills `out` with the moves worth searching, best first.
    fn moves(&mut self, out: &mut Vec<Self::Move>);
    /// Plays a move from `moves`, `winning_move` or `opponent_wins`.
    fn play(&mut self, m: Self::Move);
    /// Takes back `m`, the last move played.
    fn undo(&mut self, m: Self::Move);
    /// A heuristic score from the side to move's view.
    fn evaluate(&self) -> i32;
}

/// How a search is run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settings {
    /// The deepest iteration (plies, forced moves not counted).
    pub max_depth: u32,
    /// Leaf scores move by up to this much either way (seeded).
    pub jitter: i32,
    /// The seed of the jitter.
    pub seed: u64,
}

/// The result of a search.
#[derive(Clone, Copy, Debug)]
pub(super) struct Found<M> {
    /// The move to play.
    pub mv: M,
    /// Its score from the mover's view (see [`WIN`]).
    pub score: i32,
    /// A proven outcome and its distance, when the search proved one.
    pub proven: Option<(Outcome, u32)>,
}

impl<M> Found<M> {
    /// The public evaluation, heuristic scores divided by `scale`.
    pub(super) fn evaluation(&self, scale: i32) -> Evaluation {
        match self.proven {
            Some((outcome, plies)) => Evaluation::proven(outcome, plies),
            None if self.score >= MATE => Evaluation::heuristic(999),
            None if self.score <= -MATE => Evaluation::heuristic(-999),
            None => Evaluation::heuristic(self.score / scale.max(1)),
        }
    }
}

/// Searches `pos` for the side to move. `None` when the game is over.
pub(super) fn search<P: Position>(
    pos: &mut P,
    settings: Settings,
    meter: &mut Meter,
) -> Option<Found<P::Move>> {
    if pos.terminal().is_some() {
        return None;
    }
    if let Some(mv) = pos.winning_move() {
        return Some(Found {
            mv,
            score: WIN - 1,
            proven: Some((Outcome::Win, 1)),
        });
    }
    let mut root = Vec::new();
    pos.opponent_wins(&mut root);
    match root.len() {
        0 => pos.moves(&mut root),
        1 => {}
        _ => {
            // Whatever is played, one of the opponent's wins stays open.
            return Some(Found {
                mv: root[0],
                score: -(WIN - 2),
                proven: Some((Outcome::Loss, 2)),
            });
        }
    }
    if root.is_empty() {
        return None;
    }
    if root.len() == 1 {
        // The move is forced; the search is only for its evaluation.
        let mut share = meter.child(meter.allowance() / FORCED_SHARE);
        let found = deepen(pos, root, settings, &mut share);
        meter.absorb(&share);
        return Some(found);
    }
    Some(deepen(pos, root, settings, meter))
}

/// Iterative deepening over the root moves `root` (not empty).
fn deepen<P: Position>(
    pos: &mut P,
    mut root: Vec<P::Move>,
    settings: Settings,
    meter: &mut Meter,
) -> Found<P::Move> {
    let max_depth = settings.max_depth.max(1);
    // A shallow search needs no more slots than it has nodes near the root.
    let shallow = 1u64 << (2 * max_depth.min(24) + 6);
    let mut searcher = Searcher {
        table: Table::new(meter.allowance().min(shallow)),
        meter,
        jitter: settings.jitter,
        seed: settings.seed,
        lists: Vec::new(),
    };
    let mut best = Found {
        mv: root[0],
        score: 0,
        proven: None,
    };
    let plies_left = pos.plies_left();
    for depth in 1..=max_depth {
        let Some((mv, score)) = searcher.root(pos, &mut root, depth) else {
            break;
        };
        best = Found {
            mv,
            score,
            proven: None,
        };
        if P::COMPLETE {
            if score >= MATE {
                best.proven = Some((Outcome::Win, (WIN - score).unsigned_abs()));
            } else if score <= -MATE {
                best.proven = Some((Outcome::Loss, (WIN + score).unsigned_abs()));
            } else if depth >= plies_left {
                best.proven = Some((Outcome::Draw, plies_left));
            }
        }
        if score.abs() >= MATE || depth >= plies_left {
            break;
        }
    }
    best
}

/// A bound of a stored score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    /// The score is at least this (a cut-off).
    Lower,
    /// The score is at most this (no move reached alpha).
    Upper,
}

impl Bound {
    /// The bound of `best`, a node's best score from a search of the
    /// window (`alpha`, `beta`) it was entered with.
    pub(super) fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// One slot of the transposition table.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry<M> {
    pub key: u64,
    pub mv: Option<M>,
    pub score: i32,
    pub depth: u16,
    pub bound: Bound,
}

/// A fixed-size, always-replace transposition table.
pub(super) struct Table<M> {
    slots: Vec<Option<Entry<M>>>,
}

impl<M: Copy> Table<M> {
    /// A table with about one slot per unit of `work`, within half the
    /// memory cap.
    pub(super) fn new(work: u64) -> Table<M> {
        let slot = std::mem::size_of::<Option<Entry<M>>>().max(1);
        let fit = (MAX_SEARCH_MEMORY / 2 / slot).max(2);
        let most = 1 << (usize::BITS - 1 - fit.leading_zeros());
        let wanted = usize::try_from(work)
            .unwrap_or(usize::MAX)
            .min(most)
            .next_power_of_two();
        Table {
            slots: vec![None; wanted.clamp(MIN_TABLE.min(most), most)],
        }
    }

    fn index(&self, key: u64) -> usize {
        // The length is a power of two that fits in usize, so the masked
        // value does too.
        usize::try_from(mix(key) & (self.slots.len() as u64 - 1)).unwrap_or(0)
    }

    pub(super) fn get(&self, key: u64) -> Option<Entry<M>> {
        self.slots[self.index(key)].filter(|e| e.key == key)
    }

    pub(super) fn put(&mut self, entry: Entry<M>) {
        let i = self.index(entry.key);
        self.slots[i] = Some(entry);
    }
}

/// Stores a score relative to the node (mate distances from the node), so
/// that it is valid wherever the position recurs.
pub(super) fn to_table(score: i32, ply: u32) -> i32 {
    let ply = i32::try_from(ply).unwrap_or(0);
    if score >= MATE {
        score + ply
    } else if score <= -MATE {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`to_table`].
pub(super) fn from_table(score: i32, ply: u32) -> i32 {
    let ply = i32::try_from(ply).unwrap_or(0);
    if score >= MATE {
        score - ply
    } else if score <= -MATE {
        score + ply
    } else {
        score
    }
}

/// `WIN - ply`, the score of a win at `ply`.
fn win_at(ply: u32) -> i32 {
    WIN - i32::try_from(ply).unwrap_or(MAX_PLY as i32)
}

struct Searcher<'m, P: Position> {
    table: Table<P::Move>,
    meter: &'m mut Meter,
    jitter: i32,
    seed: u64,
    /// Move lists, one per ply, reused.
    lists: Vec<Vec<P::Move>>,
}

impl<P: Position> Searcher<'_, P> {
    /// One iteration at the root over `moves`; puts the best move first.
    /// `None` when the meter stopped it.
    fn root(&mut self, pos: &mut P, moves: &mut [P::Move], depth: u32) -> Option<(P::Move, i32)> {
        let forced = moves.len() == 1;
        let child_depth = if forced { depth } else { depth - 1 };
        let mut alpha = -WIN - 1;
        let mut best = 0;
        for (i, &m) in moves.iter().enumerate() {
            pos.play(m);
            let score = -self.negamax(pos, child_depth, -WIN - 1, -alpha, 1);
            pos.undo(m);
            if self.meter.stopped() {
                return None;
            }
            if score > alpha {
                alpha = score;
                best = i;
            }
        }
        moves[..=best].rotate_right(1);
        Some((moves[0], alpha))
    }

    fn negamax(&mut self, pos: &mut P, depth: u32, mut alpha: i32, beta: i32, ply: u32) -> i32 {
        if !self.meter.tick() {
            return 0;
        }
        match pos.terminal() {
            Some(Terminal::Lost) => return -win_at(ply),
            Some(Terminal::Drawn) => return 0,
            None => {}
        }
        if pos.winning_move().is_some() {
            return win_at(ply + 1);
        }
        if ply >= MAX_PLY {
            return self.leaf(pos);
        }
        let key = pos.key();
        let mut hint = None;
        if let Some(e) = self.table.get(key) {
            hint = e.mv;
            if u32::from(e.depth) >= depth {
                let s = from_table(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        let mut moves = self.take_list(ply);
        pos.opponent_wins(&mut moves);
        let child_depth = match moves.len() {
            0 if depth == 0 => {
                self.give_list(ply, moves);
                return self.leaf(pos);
            }
            0 => {
                pos.moves(&mut moves);
                if let Some(h) = hint
                    && let Some(i) = moves.iter().position(|&m| m == h)
                {
                    moves[..=i].rotate_right(1);
                }
                depth - 1
            }
            1 => depth,
            _ => {
                self.give_list(ply, moves);
                return -win_at(ply + 2);
            }
        };
        let alpha_in = alpha;
        let mut best = -WIN - 1;
        let mut best_move = None;
        for &m in &moves {
            pos.play(m);
            let score = -self.negamax(pos, child_depth, -beta, -alpha, ply + 1);
            pos.undo(m);
            if self.meter.stopped() {
                self.give_list(ply, moves);
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.give_list(ply, moves);
        if best_move.is_none() {
            // No move to search (cannot happen in a game that is not over).
            return self.leaf(pos);
        }
        let bound = Bound::of(best, alpha_in, beta);
        self.table.put(Entry {
            key,
            mv: best_move,
            score: to_table(best, ply),
            depth: u16::try_from(depth).unwrap_or(u16::MAX),
            bound,
        });
        best
    }

    /// The static score of a quiet position, with the seeded jitter.
    fn leaf(&self, pos: &P) -> i32 {
        let eval = pos.evaluate().clamp(-EVAL_CAP, EVAL_CAP);
        if self.jitter <= 0 {
            return eval;
        }
        let span = u64::from(self.jitter.unsigned_abs()) * 2 + 1;
        let noise = i32::try_from(mix(pos.key() ^ self.seed) % span).unwrap_or(0) - self.jitter;
        eval + noise
    }

    fn take_list(&mut self, ply: u32) -> Vec<P::Move> {
        let i = usize::try_from(ply).unwrap_or(0);
        self.lists
            .get_mut(i)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn give_list(&mut self, ply: u32, mut list: Vec<P::Move>) {
        let i = usize::try_from(ply).unwrap_or(0);
        if self.lists.len() <= i {
            self.lists.resize_with(i + 1, Vec::new);
        }
        list.clear();
        self.lists[i] = list;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_stay_within_half_the_memory_cap() {
        let slot = std::mem::size_of::<Option<Entry<u16>>>();
        let big = Table::<u16>::new(u64::MAX);
        assert!(big.slots.len() * slot <= MAX_SEARCH_MEMORY / 2);
        assert!(big.slots.len() * slot > MAX_SEARCH_MEMORY / 4);
        assert_eq!(Table::<u16>::new(10).slots.len(), MIN_TABLE);
        assert_eq!(Table::<u16>::new(5_000).slots.len(), 8_192);
    }

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        for ply in [0, 3, 17] {
            for score in [WIN - 20, -(WIN - 20), 1_234, 0] {
                assert_eq!(from_table(to_table(score, ply), ply), score);
            }
        }
        // A win 5 plies from the root found at ply 3 is a win in 2 there.
        assert_eq!(to_table(WIN - 5, 3), WIN - 2);
    }
}
