//! `hard`'s main search: principal-variation alpha-beta over [`Lines`],
//! with a transposition table, iterative deepening, threat-driven move
//! generation and a search of continuous fours at the leaves.
//!
//! At every node, before any move is searched:
//! - a side that can make five wins; one facing two fives has lost; one
//!   facing a single five blocks it, and that forced move costs no depth;
//! - a side that can make an open four (or two fours at once) wins in three;
//! - a side whose opponent could make an open four next keeps to the moves
//!   that can stop it: its own fours, and the cells where the opponent would
//!   make a four (which include every cell of the threatened line);
//! - else the moves are the empty cells near the stones, ordered by what
//!   they make for the mover and take from the opponent (scores per quad of
//!   shapes learned from a stronger engine's moves, `policy.rs`), the best
//!   few; the others only when each of those loses by force, as a loss
//!   found over a few moves kept proves nothing (and would make the
//!   opponent's move before it look like a win).
//!
//! The root deepens one ply an iteration while the work left is enough for
//! the next one at [`GROWTH`] times the cost of the last: an iteration cut
//! short by the meter had taken over a third of the work and nearly never
//! changed the move.
//!
//! Late moves that make no threat are searched one ply shallower first
//! (and again at full depth if they look better). At the horizon the
//! evaluation is the learned one over line patterns ([`Lines::pattern_eval`],
//! `patterns.rs`: weights fitted to a stronger engine's evaluations, kept
//! up to date with the shapes, and a small network over the cells' quads
//! of shapes and the threat counts, `net.rs`), plus a small seeded jitter. A leaf is
//! scored from the totals its move would leave, without playing it, and a
//! position whose table entry settles it is not played either: the same
//! scores as playing them, for less.
//!
//! Measured against Rapfi (docs/benchmarks.md), the learned evaluation did
//! better than the window board's (a weight per row of five cells that
//! holds stones of one colour only, the mover's counted half again), which
//! did better than one summing the cells' shape values; a search of
//! continuous fours at the leaves and one more ply for a horizon facing an
//! open three did not help. The learned move ordering did better than a
//! hand-set one by classes and shape values.

use super::super::Outcome;
use super::super::alpha_beta::{Bound, Entry, Found, MATE, Table, WIN, from_table, to_table};
use super::super::limits::Meter;
use super::super::mix;
use super::lines::{Lines, Spot};
use super::shapes::{Class, Shape};

/// The deepest ply searched.
const MAX_PLY: usize = 128;
/// Moves searched at an inner node that is not a defence.
const WIDTH: usize = 10;
/// Moves searched at the root.
const ROOT_WIDTH: usize = 28;
/// What an iteration is expected to cost at most, as a multiple of the one
/// before it (a little above the measured median): the next one starts
/// only when that much work is left.
const GROWTH: (u64, u64) = (5, 2);
/// The evaluation's scale: the learned evaluation's thousandths of a logit
/// to the search's units (300 a logit, as the window evaluation had).
const EVAL_NUM: i32 = 3;
const EVAL_DEN: i32 = 10;

pub(super) struct Engine<'m> {
    pub lines: Lines,
    meter: &'m mut Meter,
    table: Table<Spot>,
    seed: u64,
    jitter: i32,
    /// Move lists by ply, reused.
    lists: Vec<Vec<(i32, Spot)>>,
    spots: Vec<Spot>,
    killers: Vec<[Spot; 2]>,
    /// Moves searched at an inner node that is not a defence, unless each
    /// of them loses ([`WIDTH`]; smaller in tests).
    width: usize,
}

/// The order of generated moves: best first, ties by cell (a total order,
/// so sorting in parts gives the same order as sorting at once).
#[allow(clippy::trivially_copy_pass_by_ref)] // a sort key takes a reference
fn by_score(&(score, s): &(i32, Spot)) -> (std::cmp::Reverse<i32>, Spot) {
    (std::cmp::Reverse(score), s)
}

/// The move-ordering score of the empty cell `s` for the mover `me`, in
/// thousandths of a logit ([`policy`](super::policy)): what it makes for
/// the mover and takes from the opponent.
pub(super) fn order_score(lines: &Lines, s: Spot, me: usize) -> i32 {
    lines.policy(s, me)[0] + lines.policy(s, 1 - me)[1]
}

/// A node's table entry, when its parent has read it already.
#[derive(Clone, Copy)]
enum Probe {
    Unread,
    Read(Option<Entry<Spot>>),
}

/// The score a table entry gives a node searched `depth` deep with the
/// window (`alpha`, `beta`) at `ply`, when it settles it.
fn settled(e: &Entry<Spot>, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    if i32::from(e.depth) < depth {
        return None;
    }
    let score = from_table(e.score, u32::try_from(ply).unwrap_or(0));
    match e.bound {
        Bound::Exact => Some(score),
        Bound::Lower if score >= beta => Some(score),
        Bound::Upper if score <= alpha => Some(score),
        _ => None,
    }
}

impl<'m> Engine<'m> {
    pub(super) fn new(lines: Lines, meter: &'m mut Meter, seed: u64, jitter: i32) -> Engine<'m> {
        // About two slots per unit of work, within half the memory cap.
        let table = Table::new(meter.allowance().saturating_mul(2));
        Engine {
            lines,
            meter,
            table,
            seed,
            jitter,
            lists: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            spots: Vec::new(),
            killers: vec![[0; 2]; MAX_PLY + 1],
            width: WIDTH,
        }
    }

    /// Searches the position for the side to move, over `only` when given,
    /// deepening until the meter stops it. `None` when there is no move.
    pub(super) fn search(&mut self, only: Option<&[Spot]>, max_depth: u32) -> Option<Found<Spot>> {
        if self.lines.winner().is_some() || self.lines.empties() == 0 {
            return None;
        }
        let me = self.lines.to_move();
        let opp = 1 - me;
        let mut spots = Vec::new();
        if self.lines.has(me, Class::Five) {
            self.lines.cells_of(me, Class::Five, &mut spots);
            return Some(Found {
                mv: spots[0],
                score: WIN - 1,
                proven: Some((Outcome::Win, 1)),
            });
        }
        let mut root: Vec<(i32, Spot)> = Vec::new();
        if self.lines.has(opp, Class::Five) {
            self.lines.cells_of(opp, Class::Five, &mut spots);
            let forced = spots[0];
            if spots.len() > 1 {
                return Some(Found {
                    mv: forced,
                    score: -(WIN - 2),
                    proven: Some((Outcome::Loss, 2)),
                });
            }
            root.push((0, forced));
        } else if self.lines.has(me, Class::OpenFour) {
            self.lines.cells_of(me, Class::OpenFour, &mut spots);
            return Some(Found {
                mv: spots[0],
                score: WIN - 3,
                proven: None,
            });
        } else {
            let defending = self.generate(0, None, usize::MAX);
            root = std::mem::take(&mut self.lists[0]);
            if !defending {
                root.truncate(ROOT_WIDTH);
            }
            if let Some(only) = only {
                // Kept to those moves, unless none of them is worth a search
                // (the restriction comes from a search that sees less).
                let kept: Vec<(i32, Spot)> = root
                    .iter()
                    .copied()
                    .filter(|(_, s)| only.contains(s))
                    .collect();
                if !kept.is_empty() {
                    root = kept;
                }
            }
        }
        if root.is_empty() {
            return None;
        }
        let mut best = Found {
            mv: root[0].1,
            score: 0,
            proven: None,
        };
        for depth in 1..=max_depth.max(1) {
            let before = self.meter.left();
            let Some((mv, score)) = self.root(&mut root, i32::try_from(depth).unwrap_or(1)) else {
                break;
            };
            best = Found {
                mv,
                score,
                proven: None,
            };
            if score.abs() >= MATE || root.len() == 1 && depth >= 4 {
                break;
            }
            // Not deeper when what is left would not pay for the next
            // iteration: one cut short nearly never changes the move.
            let cost = before.saturating_sub(self.meter.left());
            if self.meter.left().saturating_mul(GROWTH.1) < cost.saturating_mul(GROWTH.0) {
                break;
            }
        }
        Some(best)
    }

    /// One iteration at the root; puts the best move first. `None` when the
    /// meter stopped it before the first move was searched.
    fn root(&mut self, moves: &mut [(i32, Spot)], depth: i32) -> Option<(Spot, i32)> {
        let mut alpha = -WIN - 1;
        let beta = WIN + 1;
        let mut best = 0;
        for i in 0..moves.len() {
            let m = moves[i].1;
            let score = if i == 0 {
                -self.child(m, depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.child(m, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.meter.stopped() {
                    -self.child(m, depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            if self.meter.stopped() {
                // A move that beat the best so far at full depth stands.
                return (i > 0).then(|| {
                    moves[..=best].rotate_right(1);
                    (moves[0].1, alpha)
                });
            }
            moves[i].0 = score;
            if score > alpha {
                alpha = score;
                best = i;
            }
        }
        // The best first, the rest by their scores (bounds, for most).
        moves[..=best].rotate_right(1);
        moves[1..].sort_by_key(by_score);
        Some((moves[0].1, alpha))
    }

    /// The score of the position after `m` (played by the side to move),
    /// searched `depth` deep, for its side to move: [`Engine::node`]
    /// after playing `m`. A leaf is scored from [`Lines::peek`] without
    /// playing `m` when the position needs nothing more (most leaves):
    /// the same score, the same nodes counted.
    ///
    /// An inner position whose table entry settles it is not played
    /// either: a position is stored only by a node past the checks that
    /// come before the table, so the same position passes them again.
    fn child(&mut self, m: Spot, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
        if !self.meter.tick() {
            return 0;
        }
        let mut probed = Probe::Unread;
        if depth <= 0 {
            if let Some(score) = self.leaf(m, ply) {
                return score;
            }
        } else if ply < MAX_PLY {
            let entry = self.table.get(self.lines.key_after(m));
            if let Some(score) = entry.and_then(|e| settled(&e, depth, alpha, beta, ply)) {
                return score;
            }
            probed = Probe::Read(entry);
        }
        self.lines.play(m);
        let score = self.node(depth, alpha, beta, ply, probed);
        self.lines.undo(m);
        score
    }

    /// What [`Engine::node`] would score the position after `m` at the
    /// horizon, read from [`Lines::peek`]: `None` when it would go on (a
    /// five to block) or the position is over (left to `node`).
    fn leaf(&self, m: Spot, ply: usize) -> Option<i32> {
        let p = self.lines.to_move();
        let q = 1 - p;
        if self.lines.class(m, p) == Class::Five || self.lines.empties() <= 1 {
            return None;
        }
        let (totals, key) = self.lines.peek(m);
        let ply_score = i32::try_from(ply).unwrap_or(0);
        if totals.has(q, Class::Five) {
            return Some(WIN - ply_score - 1);
        }
        if totals.has(p, Class::Five) {
            return None;
        }
        if totals.has(q, Class::OpenFour) {
            return Some(WIN - ply_score - 3);
        }
        Some(self.jittered(self.lines.eval_of(&totals, q), key))
    }

    /// The score of the position for its side to move, searched `depth`
    /// deep (a principal-variation alpha-beta), once its node is counted;
    /// with its table entry when [`Engine::child`] has read it (`probed`).
    fn node(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: usize, probed: Probe) -> i32 {
        let ply_score = i32::try_from(ply).unwrap_or(0);
        let ply_u32 = u32::try_from(ply).unwrap_or(0);
        if self.lines.winner().is_some() {
            return -(WIN - ply_score);
        }
        if self.lines.empties() == 0 {
            return 0;
        }
        let me = self.lines.to_move();
        let opp = 1 - me;
        if self.lines.has(me, Class::Five) {
            return WIN - ply_score - 1;
        }
        if self.lines.has(opp, Class::Five) {
            self.lines.cells_of(opp, Class::Five, &mut self.spots);
            if self.spots.len() > 1 {
                return -(WIN - ply_score - 2);
            }
            let forced = self.spots[0];
            return -self.child(forced, depth, -beta, -alpha, ply + 1);
        }
        if self.lines.has(me, Class::OpenFour) {
            return WIN - ply_score - 3;
        }
        if depth <= 0 || ply >= MAX_PLY {
            return self.evaluate();
        }
        let key = self.lines.key();
        let mut hint = None;
        let entry = match probed {
            Probe::Read(entry) => entry,
            Probe::Unread => self.table.get(key),
        };
        if let Some(e) = entry {
            if let Some(score) = settled(&e, depth, alpha, beta, ply) {
                return score;
            }
            hint = e.mv;
        }
        // Every candidate, in order: past the first few only while each of
        // those loses.
        let defending = self.generate(ply, hint, self.width);
        let mut moves = std::mem::take(&mut self.lists[ply]);
        let alpha0 = alpha;
        let mut best = -WIN - 1;
        let mut best_move = moves.first().map_or(0, |&(_, s)| s);
        for i in 0..moves.len() {
            if !defending && i >= self.width {
                if best > -MATE {
                    break;
                }
                if i == self.width {
                    // Each of the first few lost: the rest, in order.
                    moves[i..].sort_unstable_by_key(by_score);
                }
            }
            let m = moves[i].1;
            let quiet = !defending
                && self.lines.class(m, me) < Class::Three
                && self.lines.class(m, opp) < Class::Three;
            let score = if i == 0 {
                -self.child(m, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let reduce = if quiet && depth >= 3 && i >= 3 {
                    if i >= 8 { 2 } else { 1 }
                } else {
                    0
                };
                let mut s = -self.child(m, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1);
                if s > alpha && reduce > 0 {
                    s = -self.child(m, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta {
                    s = -self.child(m, depth - 1, -beta, -alpha, ply + 1);
                }
                s
            };
            if self.meter.stopped() {
                self.lists[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if quiet && self.killers[ply][0] != m {
                    self.killers[ply] = [m, self.killers[ply][0]];
                }
                break;
            }
        }
        self.lists[ply] = moves;
        if best == -WIN - 1 {
            // No move to search (cannot happen with empty cells near).
            return self.evaluate();
        }
        self.table.put(Entry {
            key,
            mv: Some(best_move),
            score: to_table(best, ply_u32),
            depth: u16::try_from(depth).unwrap_or(u16::MAX),
            bound: Bound::of(best, alpha0, beta),
        });
        best
    }

    /// Fills `self.lists[ply]` with the moves to search, best first, the
    /// table's move (`hint`) before all: every candidate, or only the
    /// defences when there is an open four to come (then true). Unless
    /// defending, only the first `sorted` are in order, the rest after them
    /// (most nodes search no more).
    fn generate(&mut self, ply: usize, hint: Option<Spot>, sorted: usize) -> bool {
        let me = self.lines.to_move();
        let opp = 1 - me;
        let defending = self.lines.has(opp, Class::OpenFour);
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        self.lines.candidates(&mut self.spots);
        let killers = self.killers[ply];
        for &s in &self.spots {
            let mine = self.lines.class(s, me);
            if defending && mine < Class::Four && self.lines.best_shape(s, opp) < Shape::B4 {
                continue;
            }
            let mut score = order_score(&self.lines, s, me);
            if Some(s) == hint {
                score = i32::MAX;
            } else if s == killers[0] || s == killers[1] {
                score += 300;
            }
            list.push((score, s));
        }
        if !defending && sorted < list.len() {
            list.select_nth_unstable_by_key(sorted, by_score);
            list[..sorted].sort_unstable_by_key(by_score);
        } else {
            list.sort_unstable_by_key(by_score);
        }
        self.lists[ply] = list;
        defending
    }

    /// The static evaluation for the side to move: the learned evaluation
    /// ([`Lines::pattern_eval`]) plus the seeded jitter.
    fn evaluate(&self) -> i32 {
        self.jittered(self.lines.pattern_eval(), self.lines.key())
    }

    /// A learned evaluation in the search's units, with the jitter of the
    /// position `key`.
    fn jittered(&self, eval: i32, key: u64) -> i32 {
        let mut score = eval * EVAL_NUM / EVAL_DEN;
        if self.jitter > 0 {
            let span = 2 * self.jitter.unsigned_abs() + 1;
            let j = mix(key ^ self.seed) % u64::from(span);
            score += i32::try_from(j).unwrap_or(0) - self.jitter;
        }
        score
    }
}

#[cfg(test)]
mod tests;
