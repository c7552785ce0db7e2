//! Connect Four bots: alpha-beta on the rules' bitboards, and an exact
//! solver.
//!
//! `medium` searches 4 plies, `hard` deepens iteratively until its budget is
//! spent or the game is decided. Moves are ordered by the transposition
//! table's best move, then by the number of winning cells they create, then
//! centre first; moves that let the opponent win on top of them are dropped
//! (they lose at once). The evaluation counts each side's weighted cells
//! (how many fours run through them) and winning cells, favouring those on
//! the rows the side can hope to fill last (odd rows for X, even for O).
//!
//! `perfect` solves the position exactly ([`solver`], with the opening book
//! of [`book`]) and plays a move that keeps the best score: the quickest
//! win, else a draw, else the slowest loss; among equal moves it picks with
//! the seeded generator. Where the book holds the position and one of its
//! best moves it plays from the book without a search; the book holds the
//! bot's own games to 14 stones, as X and as O, against any replies. It
//! spends no work allowance, only time: past three quarters of the time cap
//! it gives up the proof and plays `hard`'s move in what is left, with an
//! evaluation that is not marked proven. That happens on early positions
//! off the book (two people's games, set-up lines): below about 14 stones a
//! solve takes from a tenth of a second to minutes (`docs/benchmarks.md`).
//! The solver's tables are kept between searches ([`with_solver`]).
//!
//! The bit layout is the one documented in `rules::connect_four`.

pub(super) mod book;
mod position;
pub(super) mod solver;
mod table;

use std::sync::Mutex;
use std::time::Instant;

use rand::Rng;

use rand::seq::IndexedRandom;

use self::book::Book;
use self::solver::{Solver, known_move_score, known_score, winning_cells};
use self::table::Table;
use super::alpha_beta::{self, Position, Settings, Terminal};
use super::limits::Meter;
use super::{Evaluation, Level, Outcome, Suggestion};
use tabula_rules::AnyMove;
use tabula_rules::connect_four::{
    BOARD_MASK, BOTTOM_MASK, COLUMNS, Column, ConnectFour, ROWS, has_four,
};

/// Search nodes per millisecond of budget (see [`super::Budget::work`]).
pub(super) const NODES_PER_MILLI: u64 = 1_500;

/// Bits per column (six rows and a sentinel).
const STRIDE: u32 = ROWS as u32 + 1;
/// Columns searched first: centre out.
const CENTRE_FIRST: [usize; COLUMNS as usize] = [3, 2, 4, 1, 5, 0, 6];
/// The rows (from the bottom, 1-based) 1, 3 and 5 of every column.
const ODD_ROWS: u64 = BOTTOM_MASK * 0b01_0101;
/// The rows 2, 4 and 6 of every column.
const EVEN_ROWS: u64 = BOTTOM_MASK * 0b10_1010;
/// Weight of a winning cell (a "threat").
const THREAT: i32 = 12;
/// Extra weight of a threat on the rows that favour its owner.
const GOOD_PARITY: i32 = 10;

/// The six cells of column `col`.
const fn column_mask(col: usize) -> u64 {
    ((1 << ROWS) - 1) << (col as u32 * STRIDE)
}

/// For each bit, the number of fours that run through the cell (0 for the
/// sentinels): 3 in the corners up to 13 in the middle.
const WEIGHTS: [i32; 64] = weights();

const fn weights() -> [i32; 64] {
    let mut out = [0; 64];
    let mut col = 0;
    while col < COLUMNS as usize {
        let mut height = 0;
        while height < ROWS as usize {
            let bit = col * STRIDE as usize + height;
            let mut count = 0;
            let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
            let mut d = 0;
            while d < 4 {
                let (dc, dh) = dirs[d];
                // Fours through the cell start 0..3 steps behind it.
                let mut back = 0;
                while back < 4 {
                    let c0 = col as i32 - back * dc;
                    let h0 = height as i32 - back * dh;
                    let c3 = c0 + 3 * dc;
                    let h3 = h0 + 3 * dh;
                    if inside(c0, h0) && inside(c3, h3) {
                        count += 1;
                    }
                    back += 1;
                }
                d += 1;
            }
            out[bit] = count;
            height += 1;
        }
        col += 1;
    }
    out
}

/// Whether column `c`, height `h` is on the board.
const fn inside(c: i32, h: i32) -> bool {
    c >= 0 && c < COLUMNS as i32 && h >= 0 && h < ROWS as i32
}

/// The sum of the weights of `discs`.
fn weight(mut discs: u64) -> i32 {
    let mut sum = 0;
    while discs != 0 {
        sum += WEIGHTS[discs.trailing_zeros() as usize];
        discs &= discs - 1;
    }
    sum
}

/// The search's view of a position: the side to move's discs and all discs.
#[derive(Clone, Copy, Debug)]
struct Board {
    own: u64,
    mask: u64,
}

impl Board {
    const fn playable(self) -> u64 {
        (self.mask + BOTTOM_MASK) & BOARD_MASK
    }

    const fn opponent(self) -> u64 {
        self.own ^ self.mask
    }

    /// The columns whose next free cell is in `cells`, centre first.
    fn columns(cells: u64) -> impl Iterator<Item = Column> {
        CENTRE_FIRST
            .into_iter()
            .filter(move |&c| cells & column_mask(c) != 0)
            .map(|c| Column::ALL[c])
    }
}

impl Position for Board {
    type Move = Column;

    const COMPLETE: bool = true;

    fn key(&self) -> u64 {
        self.own + self.mask + BOTTOM_MASK
    }

    fn terminal(&self) -> Option<Terminal> {
        if has_four(self.opponent()) {
            Some(Terminal::Lost)
        } else if self.mask == BOARD_MASK {
            Some(Terminal::Drawn)
        } else {
            None
        }
    }

    fn plies_left(&self) -> u32 {
        BOARD_MASK.count_ones() - self.mask.count_ones()
    }

    fn winning_move(&self) -> Option<Column> {
        Board::columns(winning_cells(self.own, self.mask) & self.playable()).next()
    }

    fn opponent_wins(&self, out: &mut Vec<Column>) {
        out.clear();
        out.extend(Board::columns(
            winning_cells(self.opponent(), self.mask) & self.playable(),
        ));
    }

    fn moves(&mut self, out: &mut Vec<Column>) {
        out.clear();
        let playable = self.playable();
        let threats = winning_cells(self.opponent(), self.mask);
        // Playing below an opponent's winning cell hands it over.
        let safe = playable & !(threats >> 1);
        let candidates = if safe == 0 { playable } else { safe };
        let mut scored: Vec<(i32, Column)> = Board::columns(candidates)
            .map(|c| {
                let bit = playable & column_mask(usize::from(c.index()));
                let created = winning_cells(self.own | bit, self.mask | bit).count_ones();
                (i32::try_from(created).unwrap_or(0), c)
            })
            .collect();
        // Stable: ties keep the centre-first order.
        scored.sort_by_key(|&(created, _)| -created);
        out.extend(scored.into_iter().map(|(_, c)| c));
    }

    fn play(&mut self, m: Column) {
        let bit = self.playable() & column_mask(usize::from(m.index()));
        self.own ^= self.mask;
        self.mask |= bit;
    }

    fn undo(&mut self, m: Column) {
        let column = self.mask & column_mask(usize::from(m.index()));
        let top = 1 << column.ilog2();
        self.mask ^= top;
        self.own ^= self.mask;
    }

    fn evaluate(&self) -> i32 {
        let opp = self.opponent();
        let mine = winning_cells(self.own, self.mask);
        let theirs = winning_cells(opp, self.mask);
        // X moves on even plies and hopes for odd rows; O the other way.
        let (my_rows, their_rows) = if self.mask.count_ones().is_multiple_of(2) {
            (ODD_ROWS, EVEN_ROWS)
        } else {
            (EVEN_ROWS, ODD_ROWS)
        };
        let count = |cells: u64| i32::try_from(cells.count_ones()).unwrap_or(0);
        weight(self.own) - weight(opp)
            + THREAT * (count(mine) - count(theirs))
            + GOOD_PARITY * (count(mine & my_rows) - count(theirs & their_rows))
    }
}

/// A move for the side to move of `game` (not over) at `level`.
pub(super) fn choose(
    game: &ConnectFour,
    level: Level,
    rng: &mut impl Rng,
    meter: &mut Meter,
) -> Option<Suggestion> {
    if level == Level::Perfect
        && let Some(found) = perfect(game, rng, meter)
    {
        return Some(found);
    }
    let (own, mask) = game.bitboards();
    let mut board = Board { own, mask };
    let seed = rng.random();
    let settings = match level {
        Level::Medium => Settings {
            max_depth: 4,
            jitter: 6,
            seed,
        },
        _ => Settings {
            max_depth: board.plies_left(),
            jitter: 1,
            seed,
        },
    };
    let found = alpha_beta::search(&mut board, settings, meter)?;
    Some(Suggestion {
        mv: AnyMove::ConnectFour(found.mv),
        evaluation: found.evaluation(1),
    })
}

/// A move that keeps the exact score of `game`, picked with `rng` among
/// those that do; `None` when the game is over or the solver runs out of
/// its share of the time.
fn perfect(game: &ConnectFour, rng: &mut impl Rng, meter: &Meter) -> Option<Suggestion> {
    let position = solver::Position::from_game(game)?;
    let book = Book::embedded();
    if let Some(found) = from_book(book, &position, rng) {
        return Some(found);
    }
    let deadline = meter.deadline().map(|end| {
        let now = Instant::now();
        now + end.saturating_duration_since(now) * 3 / 4
    });
    let (score, best) = with_solver(book, deadline, |solver| {
        let score = solver.solve(&position).ok()?;
        let mut best = Vec::new();
        for col in CENTRE_FIRST {
            if position.can_play(col) && solver.keeps_score(&position, col, score).ok()? {
                best.push(col);
            }
        }
        Some((score, best))
    })?;
    let &col = prefer_block(&position, best).choose(rng)?;
    Some(Suggestion {
        mv: AnyMove::ConnectFour(Column::ALL[col]),
        evaluation: proven(position.moves(), score),
    })
}

/// The exact evaluation of each legal move of `game`, in the order of its
/// legal moves, for the analysis: from the book where it holds the position
/// after the move, else from one solver shared by all the moves (so what it
/// learns on one move serves the next). `None` for the moves it has not
/// solved by `deadline`, and for all of them when the game is over.
///
/// With `nodes`, the solver also stops after that many nodes and starts on
/// a fresh table (a kept one would solve more or less within the same
/// nodes, depending on what was asked before): the answer is then the same
/// every time the deadline is not reached.
pub(super) fn exact_move_evaluations(
    game: &ConnectFour,
    deadline: Option<Instant>,
    nodes: Option<u64>,
) -> Vec<Option<Evaluation>> {
    use tabula_rules::Game as _;
    let legal = game.legal_moves();
    let mut out = vec![None; legal.len()];
    let Some(position) = solver::Position::from_game(game) else {
        return out;
    };
    let book = Book::embedded();
    for (slot, col) in out.iter_mut().zip(&legal) {
        let col = usize::from(col.index());
        *slot = known_move_score(book, &position, col).map(|s| proven(position.moves(), s));
    }
    if out.iter().all(Option::is_some) {
        return out;
    }
    let mut solve = |solver: &mut Solver<'_>| {
        for (slot, col) in out.iter_mut().zip(&legal) {
            if slot.is_some() {
                continue;
            }
            let mut next = position;
            next.play(usize::from(col.index()));
            match solver.solve(&next) {
                Ok(score) => *slot = Some(proven(position.moves(), -score)),
                // The deadline has passed: the rest stay unsolved too.
                Err(_) => break,
            }
        }
    };
    match nodes {
        None => with_solver(book, deadline, solve),
        Some(limit) => {
            let mut solver = Solver::with_given_table(Some(book), Table::default());
            solver.set_deadline(deadline);
            solver.set_node_limit(Some(limit));
            solve(&mut solver);
        }
    }
    out
}

/// Tables of finished searches, kept for the next ones: a bound a search
/// stored is true whatever search reads it, and a bot's next move (or the
/// hint that follows a move) is mostly searched already.
static TABLES: Mutex<Vec<Table>> = Mutex::new(Vec::new());

/// The most tables kept between searches (each [`solver::table_bytes`] of
/// [`table::BUCKETS`]): one per search running at once, up to this many;
/// more searches at once take fresh tables, dropped after.
const KEPT_TABLES: usize = 2;

/// Runs `f` with a solver on a kept table (the one used last) or a fresh
/// one, which it keeps afterwards.
fn with_solver<R>(
    book: &dyn solver::Openings,
    deadline: Option<Instant>,
    f: impl FnOnce(&mut Solver<'_>) -> R,
) -> R {
    let kept = TABLES.lock().ok().and_then(|mut t| t.pop());
    let mut solver = Solver::with_given_table(Some(book), kept.unwrap_or_default());
    solver.set_deadline(deadline);
    let result = f(&mut solver);
    if let Ok(mut tables) = TABLES.lock()
        && tables.len() < KEPT_TABLES
    {
        tables.push(solver.into_table());
    }
    result
}

/// Among moves of the same best score, the block of the opponent's
/// immediate win if it is one of them: when every move loses as fast (the
/// opponent has a second threat), blocking is the natural move.
fn prefer_block(position: &solver::Position, best: Vec<usize>) -> Vec<usize> {
    match position.threatened_column() {
        Some(col) if best.contains(&col) => vec![col],
        _ => best,
    }
}

/// A move of the best score read from `book` without a search, when the
/// book holds `position` and at least one of its best moves (a book built
/// along the bot's own lines holds some positions but not all their
/// children); picked with `rng` among those after which the book knows the
/// most replies. The bot's own move in the book is followed by every reply;
/// another move of the same score may be in the book for another reason
/// (the other side's line passes there) with one reply at most, and after
/// it the bot would leave the book.
fn from_book(
    book: &Book<'_>,
    position: &solver::Position,
    rng: &mut impl Rng,
) -> Option<Suggestion> {
    let score = known_score(book, position)?;
    let best: Vec<usize> = CENTRE_FIRST
        .into_iter()
        .filter(|&col| {
            position.can_play(col) && known_move_score(book, position, col) == Some(score)
        })
        .collect();
    let best = prefer_block(position, best);
    let replies_known = |col: usize| {
        let mut child = *position;
        if child.is_winning_move(col) {
            return solver::WIDTH;
        }
        child.play(col);
        (0..solver::WIDTH)
            .filter(|&reply| child.can_play(reply))
            .filter(|&reply| known_move_score(book, &child, reply).is_some())
            .count()
    };
    let most = best.iter().map(|&col| replies_known(col)).max()?;
    let covered: Vec<usize> = best
        .into_iter()
        .filter(|&col| replies_known(col) == most)
        .collect();
    let &col = covered.choose(rng)?;
    Some(Suggestion {
        mv: AnyMove::ConnectFour(Column::ALL[col]),
        evaluation: proven(position.moves(), score),
    })
}

/// The evaluation of the exact `score` of a position with `stones` on the
/// board (see [`solver`] for the scale), with the plies counted from the
/// suggested move, included.
fn proven(stones: u32, score: i32) -> Evaluation {
    let cells = BOARD_MASK.count_ones();
    // The side to move has played stones / 2, the opponent the rest.
    let (mine, theirs) = (stones / 2, stones - stones / 2);
    match score {
        0 => Evaluation::proven(Outcome::Draw, cells - stones),
        // The winner completes four with its `22 - |score|`-th stone.
        s if s > 0 => Evaluation::proven(Outcome::Win, 2 * (22 - s.unsigned_abs() - mine) - 1),
        s => Evaluation::proven(Outcome::Loss, 2 * (22 - s.unsigned_abs() - theirs)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_rules::Game;

    #[test]
    fn weights_count_the_fours_through_each_cell() {
        let bit = |col: u32, height: u32| (col * STRIDE + height) as usize;
        assert_eq!(WEIGHTS[bit(0, 0)], 3);
        assert_eq!(WEIGHTS[bit(3, 2)], 13);
        assert_eq!(WEIGHTS[bit(3, 0)], 7);
        assert_eq!(WEIGHTS[6], 0, "sentinel");
        let total: i32 = WEIGHTS.iter().sum();
        // 69 fours of four cells each.
        assert_eq!(total, 69 * 4);
    }

    #[test]
    fn exact_scores_become_plies_from_the_suggested_move() {
        // X wins with its 21st stone, the 41st ply of the game.
        assert_eq!(proven(0, 1), Evaluation::proven(Outcome::Win, 41));
        // X to move after 3 stones each wins with its 4th: at once.
        assert_eq!(proven(6, 18), Evaluation::proven(Outcome::Win, 1));
        // O to move after one stone loses to X's 4th, the 7th ply.
        assert_eq!(proven(1, -18), Evaluation::proven(Outcome::Loss, 6));
        // O to move after 3 stones of X loses to X's next one.
        assert_eq!(proven(5, -18), Evaluation::proven(Outcome::Loss, 2));
        assert_eq!(proven(10, 0), Evaluation::proven(Outcome::Draw, 32));
    }

    #[test]
    fn play_and_undo_agree_with_the_rules() {
        let mut game = ConnectFour::new();
        let (own, mask) = game.bitboards();
        let mut board = Board { own, mask };
        for col in [3, 3, 2, 4, 4, 0, 6, 6, 6, 1] {
            let m = Column::ALL[col];
            let before = (board.own, board.mask);
            board.play(m);
            game.play_unchecked(m);
            assert_eq!((board.own, board.mask), game.bitboards());
            assert_eq!(board.key(), game.key());
            board.undo(m);
            assert_eq!((board.own, board.mask), before);
            board.play(m);
        }
    }
}
