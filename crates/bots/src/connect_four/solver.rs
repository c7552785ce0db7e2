//! The exact Connect Four solver: the score of a position with best play by
//! both sides, after Pascal Pons' "Solving Connect 4" (the ideas, not the
//! code).
//!
//! # Scores
//!
//! On the scale of the standard test protocol: 0 for a draw; a positive
//! score when the side to move wins, `22 - n` where `n` is the number of its
//! own stones on the board when it completes four (so a quicker win scores
//! more, up to 21 for a win with one's first stone); a negative score when it
//! loses, with the same count for the opponent. With `p` stones played, the
//! side to move can score at most `(43 - p) / 2` (winning with its next
//! stone) and at least `-(42 - p) / 2` (losing to the opponent's next stone).
//!
//! # Search
//!
//! Negamax with alpha-beta over the position of [`Position`].
//!
//! - [`Solver::solve`] narrows the score with null-window searches ("is the
//!   score above `m`?"), splitting the interval towards 0 first, where most
//!   scores lie.
//! - Every node first drops the moves that lose at once: a forced block when
//!   the opponent threatens to win (two threats lose outright), and never a
//!   stone just below an opponent's winning cell.
//! - Where every column has an even number of empty cells, the opponent
//!   can answer each move in the same column ("claimeven") and so take
//!   every empty cell at an odd height: if the side to move's stones and
//!   the empty cells at even heights hold no four, it cannot win (score at
//!   most 0), and if the opponent's with the odd ones do, it loses (at most
//!   -1). A bound from the position alone, checked at every node.
//! - A transposition table of a fixed size (`table.rs`, about 48 MiB) keeps
//!   a bound on the score of each position searched, and the move that
//!   refuted it, if one did.
//! - Before searching the moves, a child whose stored bound already refutes
//!   the position ends the search (an "enhanced transposition cutoff").
//! - Moves are tried by the move that refuted the position before, then by
//!   the number of winning cells they create, most first, centre columns
//!   first among equals.
//! - Positions of the opening book ([`Openings`]) return their exact score
//!   at once; the book is looked up by a key shared by a position and its
//!   mirror image.
//!
//! A search may be given a deadline or a node limit; past it,
//! [`Solver::solve`] gives up with [`TimeUp`] rather than answer inexactly.

use std::fmt;
use std::time::Instant;

use super::position::{CELLS, CENTRE_FIRST, column_mask, mirror};
use super::table::{BUCKETS, Entry, Table, lower_bound, upper_bound};

pub use super::position::{
    HEIGHT, MAX_SCORE, MIN_SCORE, MovesError, Position, WIDTH, winning_cells,
};
pub use super::table::{HUGE_BUCKETS, LARGE_BUCKETS, table_bytes};

/// Exact scores of some positions, looked up by [`Position::book_key`]: an
/// opening book.
pub trait Openings {
    /// The most stones of a position in the book: deeper positions are not
    /// looked up.
    fn depth(&self) -> u32;

    /// The exact score of the position whose [`Position::book_key`] is
    /// `key`, if the book has it.
    fn score(&self, key: u64) -> Option<i32>;
}

/// The exact score of `p` when it is known without a search: the side to
/// move wins at once or loses at once, or `book` holds the position.
#[must_use]
pub fn known_score(book: &dyn Openings, p: &Position) -> Option<i32> {
    if p.can_win_next() {
        Some(p.win_next_score())
    } else if p.loses_next() {
        Some(-(CELLS - i32::try_from(p.moves()).unwrap_or(CELLS)) / 2)
    } else if p.moves() <= book.depth() {
        book.score(p.book_key())
    } else {
        None
    }
}

/// The exact score of playing `col` (a column with room) in `p`, for `p`'s
/// side to move, when it is known without a search: the move wins, or the
/// [`known_score`] of the position after it.
#[must_use]
pub fn known_move_score(book: &dyn Openings, p: &Position, col: usize) -> Option<i32> {
    if p.is_winning_move(col) {
        return Some(p.win_next_score());
    }
    let mut child = *p;
    child.play(col);
    known_score(book, &child).map(|s| -s)
}

/// The deadline passed before the search finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeUp;

impl fmt::Display for TimeUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the solver ran out of time or nodes")
    }
}

impl std::error::Error for TimeUp {}

/// The clock is read once per this many nodes (a power of two).
const CLOCK_EVERY: u64 = 1 << 12;

/// The exact solver: a transposition table, an optional opening book, a
/// node counter and an optional deadline.
///
/// `B` is the number of buckets of the table: by default the service's
/// (about 48 MiB, see [`table_bytes`]); offline tools may take
/// [`LARGE_BUCKETS`].
pub struct Solver<'b, const B: usize = BUCKETS> {
    table: Table<B>,
    book: Option<&'b dyn Openings>,
    nodes: u64,
    deadline: Option<Instant>,
    /// Gives up past this many nodes (read with the clock).
    node_limit: Option<u64>,
    /// The caller's stop (see [`crate::Stop`]), read with the clock.
    stop: Option<crate::Stop>,
    timed_out: bool,
}

impl<const B: usize> fmt::Debug for Solver<'_, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("book_depth", &self.book.map(Openings::depth))
            .field("nodes", &self.nodes)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl<'b> Solver<'b> {
    /// A solver with an empty table of the default size that looks
    /// positions up in `book`, if any.
    #[must_use]
    pub fn new(book: Option<&'b dyn Openings>) -> Solver<'b> {
        Solver::with_table(book)
    }
}

impl<'b, const B: usize> Solver<'b, B> {
    /// A solver with an empty table of `B` buckets that looks positions up
    /// in `book`, if any.
    #[must_use]
    pub fn with_table(book: Option<&'b dyn Openings>) -> Solver<'b, B> {
        Solver::with_given_table(book, Table::new())
    }

    /// A solver that searches on `table`, as another solver left it: its
    /// bounds stay true whatever search stored them, so what one search
    /// learned serves the next (see [`Solver::into_table`]).
    #[must_use]
    pub(super) fn with_given_table(
        book: Option<&'b dyn Openings>,
        table: Table<B>,
    ) -> Solver<'b, B> {
        Solver {
            table,
            book,
            nodes: 0,
            deadline: None,
            node_limit: None,
            stop: None,
            timed_out: false,
        }
    }

    /// The solver's table, to search on again: a search stores only what it
    /// finished, so even one cut short by its deadline leaves true bounds.
    #[must_use]
    pub(super) fn into_table(self) -> Table<B> {
        self.table
    }

    /// Gives up searching once it has counted about `limit` nodes in all
    /// (checked when the clock is read, so the same search on the same
    /// table always stops at the same node), or never, with `None`.
    pub fn set_node_limit(&mut self, limit: Option<u64>) {
        self.node_limit = limit;
        self.timed_out = false;
    }

    /// Gives up searching at `deadline` (or never, with `None`).
    /// The caller's stop, if its search runs under one ([`crate::Stop::run`]),
    /// ends the search too.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
        self.stop = crate::limits::Stop::current();
        self.timed_out = false;
    }

    /// Positions searched since the last [`Solver::reset`].
    #[must_use]
    pub const fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Zeroes the node counter, keeping the table.
    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.timed_out = false;
    }

    /// Empties the table and zeroes the node counter.
    pub fn reset(&mut self) {
        self.table.clear();
        self.reset_nodes();
    }

    /// The exact score of `p`.
    ///
    /// # Errors
    /// [`TimeUp`] when the deadline passes first.
    pub fn solve(&mut self, p: &Position) -> Result<i32, TimeUp> {
        if p.can_win_next() {
            return Ok(p.win_next_score());
        }
        let moves = i32::try_from(p.moves()).unwrap_or(CELLS);
        let mut min = -(CELLS - moves) / 2;
        let mut max = (CELLS + 1 - moves) / 2;
        while min < max {
            // Probe the middle, moved towards 0 where scores gather.
            let mut probe = min + (max - min) / 2;
            if probe <= 0 && min / 2 < probe {
                probe = min / 2;
            } else if probe >= 0 && max / 2 > probe {
                probe = max / 2;
            }
            let r = self.negamax(p, probe, probe + 1);
            if self.timed_out {
                return Err(TimeUp);
            }
            if r <= probe {
                max = r;
            } else {
                min = r;
            }
        }
        Ok(min)
    }

    /// The exact score of each move of `p`, column by column from the left,
    /// from `p`'s side to move's view; `None` for a full column.
    ///
    /// # Errors
    /// [`TimeUp`] when the deadline passes first.
    pub fn analyze(&mut self, p: &Position) -> Result<[Option<i32>; WIDTH], TimeUp> {
        let mut scores = [None; WIDTH];
        let symmetric = p.key() == mirror(p.key());
        for col in 0..WIDTH {
            if !p.can_play(col) {
                continue;
            }
            if symmetric && col > WIDTH / 2 {
                scores[col] = scores[WIDTH - 1 - col];
                continue;
            }
            scores[col] = Some(self.move_score_exact(p, col)?);
        }
        Ok(scores)
    }

    /// The exact score of playing `col` in `p`, for `p`'s side to move.
    fn move_score_exact(&mut self, p: &Position, col: usize) -> Result<i32, TimeUp> {
        if p.is_winning_move(col) {
            return Ok(p.win_next_score());
        }
        let mut next = *p;
        next.play(col);
        Ok(-self.solve(&next)?)
    }

    /// Whether playing `col` in `p` (whose exact score is `score`) keeps
    /// that score: one null-window search instead of a full solve.
    ///
    /// # Errors
    /// [`TimeUp`] when the deadline passes first.
    pub fn keeps_score(&mut self, p: &Position, col: usize, score: i32) -> Result<bool, TimeUp> {
        if p.is_winning_move(col) {
            return Ok(p.win_next_score() == score);
        }
        let mut next = *p;
        next.play(col);
        if next.can_win_next() {
            return Ok(-next.win_next_score() == score);
        }
        // The move's score is at most `score`; it is `score` exactly when
        // the opponent's is at most `-score`.
        let r = self.negamax(&next, -score, -score + 1);
        if self.timed_out {
            return Err(TimeUp);
        }
        Ok(r <= -score)
    }

    /// Counts a node; reads the clock now and then. False once out of time.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_EVERY)
            && (self.deadline.is_some_and(|d| Instant::now() >= d)
                || self.node_limit.is_some_and(|l| self.nodes >= l)
                || self.stop.as_ref().is_some_and(crate::Stop::is_stopped))
        {
            self.timed_out = true;
        }
        !self.timed_out
    }

    /// The score of `p` if it lies within `(alpha, beta)`; otherwise a bound
    /// on the same side: at most `alpha` when the score is, at least `beta`
    /// when the score is. Requires `alpha < beta` and that the side to move
    /// cannot win at once. Meaningless once timed out.
    fn negamax(&mut self, p: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta && !p.can_win_next());
        if !self.tick() {
            return 0;
        }
        let moves = i32::try_from(p.moves()).unwrap_or(CELLS);
        let next = p.non_losing_moves();
        if next == 0 {
            // Every move lets the opponent win with its next stone.
            return -(CELLS - moves) / 2;
        }
        if moves >= CELLS - 2 {
            // Two cells left and neither side can win in them.
            return 0;
        }
        // The opponent cannot win with its next stone.
        let min = -(CELLS - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        // Nor can the side to move.
        let max = (CELLS - 1 - moves) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        // When the opponent can answer every move in the same column, the
        // side to move gets only the cells at even heights.
        if let Some(bound) = p.claimeven_bound()
            && beta > bound
        {
            beta = bound;
            if alpha >= beta {
                return beta;
            }
        }
        let key = p.key();
        let entry = self.table.get(key);
        let stored = i32::from(entry.bound());
        if stored > MAX_SCORE - MIN_SCORE + 1 {
            let min = stored + 2 * MIN_SCORE - MAX_SCORE - 2;
            if alpha < min {
                alpha = min;
                if alpha >= beta {
                    return alpha;
                }
            }
        } else if stored > 0 {
            let max = stored + MIN_SCORE - 1;
            if beta > max {
                beta = max;
                if alpha >= beta {
                    return beta;
                }
            }
        }
        if let Some(book) = self.book
            && p.moves() <= book.depth()
            && let Some(score) = book.score(p.book_key())
        {
            return score;
        }
        // A child whose stored bound already refutes it ends the search.
        let mut col_cells = next;
        while col_cells != 0 {
            let cell = col_cells & col_cells.wrapping_neg();
            col_cells ^= cell;
            let mut child = *p;
            child.play_cell(cell);
            let bound = i32::from(self.table.get(child.key()).bound());
            if bound > 0 && bound <= MAX_SCORE - MIN_SCORE + 1 {
                let score = -(bound + MIN_SCORE - 1);
                if score >= beta {
                    return score;
                }
            }
        }
        let start = self.nodes;
        let mut order = MoveOrder::new();
        let hint = entry.best();
        for col in CENTRE_FIRST {
            let cell = next & column_mask(col);
            if cell != 0 {
                // The move that refuted this position before goes first.
                let score = if hint == Some(col) {
                    u32::MAX
                } else {
                    p.move_score(cell)
                };
                order.add(col, cell, score);
            }
        }
        for (col, cell) in order.moves() {
            let mut child = *p;
            child.play_cell(cell);
            let score = -self.negamax(&child, -beta, -alpha);
            if self.timed_out {
                return 0;
            }
            if score >= beta {
                let entry = Entry::new(lower_bound(score), Some(col), self.nodes - start);
                self.table.put(key, entry);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        let entry = Entry::new(upper_bound(alpha), None, self.nodes - start);
        self.table.put(key, entry);
        alpha
    }
}

/// Up to seven moves sorted by score, highest first; among equal scores the
/// one added first comes first.
struct MoveOrder {
    cols: [u8; WIDTH],
    cells: [u64; WIDTH],
    scores: [u32; WIDTH],
    len: usize,
}

impl MoveOrder {
    #[inline]
    const fn new() -> MoveOrder {
        MoveOrder {
            cols: [0; WIDTH],
            cells: [0; WIDTH],
            scores: [0; WIDTH],
            len: 0,
        }
    }

    #[inline]
    fn add(&mut self, col: usize, cell: u64, score: u32) {
        let mut i = self.len;
        while i > 0 && self.scores[i - 1] < score {
            self.cols[i] = self.cols[i - 1];
            self.cells[i] = self.cells[i - 1];
            self.scores[i] = self.scores[i - 1];
            i -= 1;
        }
        // Below WIDTH, so it fits.
        self.cols[i] = col as u8;
        self.cells[i] = cell;
        self.scores[i] = score;
        self.len += 1;
    }

    /// The (column, cell) of each move, in order.
    #[inline]
    fn moves(&self) -> impl Iterator<Item = (usize, u64)> + use<> {
        let (cols, cells) = (self.cols, self.cells);
        (0..self.len).map(move |i| (usize::from(cols[i]), cells[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claimeven_bound_holds_wherever_it_is_given() {
        // Exact scores from the standard test sets, which the bound must
        // not cut below.
        let sets = [
            include_str!("../../../../tests/data/connect-four/Test_L3_R1"),
            include_str!("../../../../tests/data/connect-four/Test_L2_R1"),
            include_str!("../../../../tests/data/connect-four/Test_L2_R2"),
        ];
        let (mut draws, mut losses) = (0, 0);
        for line in sets.iter().flat_map(|set| set.lines()) {
            let (moves, score) = line.split_once(' ').unwrap();
            let score: i32 = score.parse().unwrap();
            let p = Position::from_moves(moves).unwrap();
            match p.claimeven_bound() {
                Some(0) => {
                    assert!(score <= 0, "{line}: claimeven says no win");
                    draws += 1;
                }
                Some(bound) => {
                    assert!(score <= bound, "{line}: claimeven says a loss");
                    losses += 1;
                }
                None => {}
            }
        }
        // Both bounds were put to the test.
        assert!(draws > 10 && losses > 10, "{draws} and {losses}");
    }

    #[test]
    fn a_table_left_by_other_searches_gives_the_same_scores() {
        let set = include_str!("../../../../tests/data/connect-four/Test_L2_R2");
        let cases: Vec<(Position, i32)> = set
            .lines()
            .step_by(50)
            .map(|line| {
                let (moves, score) = line.split_once(' ').unwrap();
                (Position::from_moves(moves).unwrap(), score.parse().unwrap())
            })
            .collect();
        // Searches cut short by their deadline store only what they
        // finished: the table they leave still gives exact scores.
        let mut solver = Solver::new(None);
        for (p, _) in &cases {
            solver.set_deadline(Some(Instant::now()));
            let _ = solver.solve(p);
        }
        for (p, expected) in &cases {
            let table = solver.into_table();
            solver = Solver::with_given_table(None, table);
            assert_eq!(solver.solve(p), Ok(*expected));
        }
        // A position searched before costs next to nothing the second time.
        let mut fresh = Solver::new(None);
        let (p, expected) = cases
            .iter()
            .max_by_key(|(p, _)| {
                fresh.reset();
                let _ = fresh.solve(p);
                fresh.nodes()
            })
            .copied()
            .unwrap();
        fresh.reset();
        assert_eq!(fresh.solve(&p), Ok(expected));
        let first = fresh.nodes();
        let mut again = Solver::with_given_table(None, fresh.into_table());
        assert_eq!(again.solve(&p), Ok(expected));
        assert!(
            again.nodes() * 10 < first,
            "{} then {}",
            first,
            again.nodes()
        );
    }

    #[test]
    fn a_win_next_scores_by_the_stones_used() {
        // X has three in column 1 and plays its fourth stone: 22 - 4.
        let p = Position::from_moves("121212").unwrap();
        let mut solver = Solver::new(None);
        assert_eq!(solver.solve(&p), Ok(18));
        // O to move cannot stop both of X's threats on the bottom row.
        let p = Position::from_moves("2737").unwrap();
        assert_eq!(p.moves(), 4);
        let p = Position::from_moves("27374").unwrap();
        // X: 2, 3, 4 on the bottom; O must block one side, X wins the other
        // with its fourth stone.
        assert_eq!(solver.solve(&p), Ok(-18));
    }
}
