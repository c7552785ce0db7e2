//! The search's gomoku board: stones in a flat array, and the counts of each
//! player's stones in every "window" (five cells in a row) kept up to date
//! move by move.
//!
//! A window that holds stones of one player only is that player's potential
//! five; the evaluation sums a weight per such window by its number of
//! stones ([`WEIGHTS`]), and a window with four stones and one empty cell is
//! a threat to make five there. Only the at most 20 windows through the
//! played cell change with a move, so playing, taking back, evaluating and
//! finding the fives to make or block are all cheap.

use tabula_rules::gomoku::{Gomoku, GomokuRule};
use tabula_rules::{Game, Player};

use super::super::mix;

/// The score of a window by the number of its owner's stones (a window that
/// holds both colours scores nothing).
pub(super) const WEIGHTS: [i32; 6] = [0, 1, 12, 120, 1_200, 1_200];

/// Sets (`on`) or clears window `w`'s bit in one player's [`Board::threes`].
fn mark(threes: &mut [u64], w: u16, on: bool) {
    let (word, bit) = (usize::from(w / 64), 1u64 << (w % 64));
    if on {
        threes[word] |= bit;
    } else {
        threes[word] &= !bit;
    }
}

/// The line directions as (row step, column step).
const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// A cell, row-major: `row * size + col`.
pub(super) type Cell = u16;

/// The fixed shapes of a board side: its windows and neighbourhoods.
#[derive(Clone, Debug)]
struct Geometry {
    size: usize,
    /// The five cells of each window.
    windows: Vec<[Cell; 5]>,
    /// The windows through each cell (up to 20).
    through: Vec<Vec<u16>>,
    /// The cells within two steps along the eight lines of each cell.
    near: Vec<Vec<Cell>>,
    /// A random number per cell and player.
    zobrist: Vec<[u64; 2]>,
}

impl Geometry {
    fn new(size: usize) -> Geometry {
        let cells = size * size;
        let side = size.cast_signed();
        let at = |r: isize, c: isize| -> Option<Cell> {
            if (0..side).contains(&r) && (0..side).contains(&c) {
                Cell::try_from(r * side + c).ok()
            } else {
                None
            }
        };
        let mut windows = Vec::new();
        let mut through = vec![Vec::new(); cells];
        let mut near = vec![Vec::new(); cells];
        for r in 0..side {
            for c in 0..side {
                for (dr, dc) in DIRECTIONS {
                    let cells: Option<Vec<Cell>> =
                        (0..5).map(|k| at(r + k * dr, c + k * dc)).collect();
                    if let Some(cells) = cells {
                        let id = u16::try_from(windows.len()).unwrap_or(u16::MAX);
                        for &cell in &cells {
                            through[usize::from(cell)].push(id);
                        }
                        windows.push([cells[0], cells[1], cells[2], cells[3], cells[4]]);
                    }
                    for sign in [-1, 1] {
                        for k in 1..=2 {
                            if let Some(n) = at(r + sign * k * dr, c + sign * k * dc) {
                                near[r.unsigned_abs() * size + c.unsigned_abs()].push(n);
                            }
                        }
                    }
                }
            }
        }
        let zobrist = (0..cells as u64)
            .map(|i| [mix(i * 2 + 0x5eed), mix(i * 2 + 0x5eee)])
            .collect();
        Geometry {
            size,
            windows,
            through,
            near,
            zobrist,
        }
    }
}

/// A gomoku position for the search (see the module docs).
#[derive(Clone, Debug)]
pub(super) struct Board {
    geo: Geometry,
    rule: GomokuRule,
    /// 0 empty, 1 X, 2 O.
    cells: Vec<u8>,
    /// Stones of X and of O per window.
    counts: Vec<[u8; 2]>,
    /// Per player, the sum of [`WEIGHTS`] over the windows they alone hold.
    score: [i32; 2],
    /// Per player, the windows with four of their stones and an empty cell.
    fours: [Vec<u16>; 2],
    /// Per player, a bit per window that holds three of their stones and
    /// none of the opponent's ([`Board::four_makers`]).
    threes: [Vec<u64>; 2],
    /// Per cell, the stones within two steps along its lines.
    near: Vec<u8>,
    /// 0 when X is to move, 1 for O.
    to_move: usize,
    stones: usize,
    key: u64,
    /// Whoever made five (or exactly five, under `standard`).
    winner: Option<usize>,
}

impl Board {
    /// The search's copy of `game`.
    pub(super) fn new(game: &Gomoku) -> Board {
        let size = usize::from(game.size());
        let geo = Geometry::new(size);
        let windows = geo.windows.len();
        let mut board = Board {
            geo,
            rule: game.rule(),
            cells: vec![0; size * size],
            counts: vec![[0; 2]; windows],
            score: [0; 2],
            fours: [Vec::new(), Vec::new()],
            threes: [vec![0; windows.div_ceil(64)], vec![0; windows.div_ceil(64)]],
            near: vec![0; size * size],
            to_move: game.to_move().index(),
            stones: 0,
            key: 0,
            winner: game.winner().map(Player::index),
        };
        for player in Player::BOTH {
            for (r, &bits) in game.rows(player).iter().enumerate() {
                for c in 0..size {
                    if bits >> c & 1 == 1 {
                        board.put(r * size + c, player.index());
                    }
                }
            }
        }
        board
    }

    /// The board side.
    pub(super) fn size(&self) -> usize {
        self.geo.size
    }

    /// The side to move, as a player index.
    pub(super) fn to_move(&self) -> usize {
        self.to_move
    }

    /// The position's hash (the side to move follows from the stones).
    pub(super) fn key(&self) -> u64 {
        self.key
    }

    /// The winner, if the last move won.
    pub(super) fn winner(&self) -> Option<usize> {
        self.winner
    }

    /// Stones on the board.
    pub(super) fn stones(&self) -> usize {
        self.stones
    }

    /// Gives the move to the other side without playing (for asking what
    /// the opponent could do if it were their turn).
    pub(super) fn pass(&mut self) {
        self.to_move = 1 - self.to_move;
    }

    /// Empty cells.
    pub(super) fn empties(&self) -> usize {
        self.cells.len() - self.stones
    }

    /// Per player, how many windows they alone hold with each number of
    /// their stones (index 0 unused), counted afresh (for tuning, not the
    /// search).
    #[cfg(any(test, feature = "tuning"))]
    pub(super) fn held(&self) -> [[i32; 6]; 2] {
        let mut held = [[0; 6]; 2];
        for c in &self.counts {
            let (x, o) = (usize::from(c[0]), usize::from(c[1]));
            if o == 0 && x > 0 {
                held[0][x] += 1;
            } else if x == 0 && o > 0 {
                held[1][o] += 1;
            }
        }
        held
    }

    /// Per player, the window score.
    pub(super) fn score(&self, player: usize) -> i32 {
        self.score[player]
    }

    /// Whether `cell` is empty.
    pub(super) fn is_empty(&self, cell: Cell) -> bool {
        self.cells[usize::from(cell)] == 0
    }

    /// The empty cells near a stone; the centre on an empty board, and
    /// every empty cell when none is near a stone.
    pub(super) fn candidates(&self, out: &mut Vec<Cell>) {
        out.clear();
        if self.stones == 0 {
            let mid = self.size() / 2;
            out.push(Cell::try_from(mid * self.size() + mid).unwrap_or(0));
            return;
        }
        let cells = self.cells.iter().zip(&self.near).enumerate();
        for (i, (&cell, &near)) in cells {
            if cell == 0 && near > 0 {
                out.push(Cell::try_from(i).unwrap_or(0));
            }
        }
        if out.is_empty() {
            let empty = (0..self.cells.len()).filter(|&i| self.cells[i] == 0);
            out.extend(empty.filter_map(|i| Cell::try_from(i).ok()));
        }
    }

    /// How much a stone of `player` on `cell` adds to their windows
    /// (attack) and takes from the opponent's (defence).
    pub(super) fn gains(&self, cell: Cell, player: usize) -> (i32, i32) {
        let mut attack = 0;
        let mut defence = 0;
        for &w in &self.geo.through[usize::from(cell)] {
            let counts = self.counts[usize::from(w)];
            let (a, b) = (usize::from(counts[player]), usize::from(counts[1 - player]));
            if b == 0 {
                attack += WEIGHTS[a + 1] - WEIGHTS[a];
            }
            if a == 0 {
                defence += WEIGHTS[b];
            }
        }
        (attack, defence)
    }

    /// The cells where `player` would make a winning line at once, without
    /// repeats, in a stable order.
    pub(super) fn wins(&self, player: usize, out: &mut Vec<Cell>) {
        out.clear();
        for &w in &self.fours[player] {
            let Some(&cell) = self.geo.windows[usize::from(w)]
                .iter()
                .find(|&&c| self.is_empty(c))
            else {
                continue;
            };
            if !out.contains(&cell) && self.would_win(cell, player) {
                out.push(cell);
            }
        }
    }

    /// The first cell where `player` would make a winning line at once.
    pub(super) fn first_win(&self, player: usize) -> Option<Cell> {
        self.fours[player].iter().find_map(|&w| {
            let cell = *self.geo.windows[usize::from(w)]
                .iter()
                .find(|&&c| self.is_empty(c))?;
            self.would_win(cell, player).then_some(cell)
        })
    }

    /// The empty cells where a stone of `player` makes four in some window
    /// (a threat to make five), without repeats.
    pub(super) fn four_makers(&self, player: usize, out: &mut Vec<Cell>) {
        out.clear();
        for (i, &bits) in self.threes[player].iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let w = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                for &cell in &self.geo.windows[w] {
                    if self.is_empty(cell) && !out.contains(&cell) {
                        out.push(cell);
                    }
                }
            }
        }
    }

    /// Plays `cell` for the side to move.
    pub(super) fn play(&mut self, cell: Cell) {
        let player = self.to_move;
        if self.put(usize::from(cell), player) && self.makes_win(cell, player) {
            self.winner = Some(player);
        }
        self.to_move = 1 - player;
    }

    /// Takes back `cell`, the last move played.
    pub(super) fn undo(&mut self, cell: Cell) {
        self.to_move = 1 - self.to_move;
        self.winner = None;
        self.take(usize::from(cell), self.to_move);
    }

    /// Places a stone and updates the windows; whether a window is now full.
    fn put(&mut self, cell: usize, p: usize) -> bool {
        let q = 1 - p;
        self.cells[cell] = u8::try_from(p + 1).unwrap_or(1);
        self.key ^= self.geo.zobrist[cell][p];
        let mut five = false;
        for &w in &self.geo.through[cell] {
            let counts = &mut self.counts[usize::from(w)];
            let (a, b) = (usize::from(counts[p]), usize::from(counts[q]));
            if b == 0 {
                self.score[p] += WEIGHTS[a + 1] - WEIGHTS[a];
                match a {
                    2 => mark(&mut self.threes[p], w, true),
                    3 => {
                        mark(&mut self.threes[p], w, false);
                        self.fours[p].push(w);
                    }
                    4 => {
                        remove(&mut self.fours[p], w);
                        five = true;
                    }
                    _ => {}
                }
            } else if a == 0 {
                self.score[q] -= WEIGHTS[b];
                match b {
                    3 => mark(&mut self.threes[q], w, false),
                    4 => remove(&mut self.fours[q], w),
                    _ => {}
                }
            }
            counts[p] += 1;
        }
        for &n in &self.geo.near[cell] {
            self.near[usize::from(n)] += 1;
        }
        self.stones += 1;
        five
    }

    /// Removes a stone and updates the windows.
    fn take(&mut self, cell: usize, p: usize) {
        let q = 1 - p;
        self.cells[cell] = 0;
        self.key ^= self.geo.zobrist[cell][p];
        for &w in &self.geo.through[cell] {
            let counts = &mut self.counts[usize::from(w)];
            let (a, b) = (usize::from(counts[p]), usize::from(counts[q]));
            if b == 0 {
                self.score[p] -= WEIGHTS[a] - WEIGHTS[a - 1];
                match a {
                    3 => mark(&mut self.threes[p], w, false),
                    4 => {
                        remove(&mut self.fours[p], w);
                        mark(&mut self.threes[p], w, true);
                    }
                    5 => self.fours[p].push(w),
                    _ => {}
                }
            } else if a == 1 {
                self.score[q] += WEIGHTS[b];
                match b {
                    3 => mark(&mut self.threes[q], w, true),
                    4 => self.fours[q].push(w),
                    _ => {}
                }
            }
            counts[p] -= 1;
        }
        for &n in &self.geo.near[cell] {
            self.near[usize::from(n)] -= 1;
        }
        self.stones -= 1;
    }

    /// Whether `player`'s stone on `cell` (there or not yet) makes a
    /// winning run under the rule.
    fn would_win(&self, cell: Cell, player: usize) -> bool {
        self.rule == GomokuRule::Freestyle || self.makes_win(cell, player)
    }

    /// Whether the run of `player` through `cell`, counting `cell` as
    /// theirs, wins under the rule in some direction.
    fn makes_win(&self, cell: Cell, player: usize) -> bool {
        let size = self.size().cast_signed();
        let cell = usize::from(cell).cast_signed();
        let (row, col) = (cell / size, cell % size);
        let mine = |r: isize, c: isize| {
            (0..size).contains(&r)
                && (0..size).contains(&c)
                && usize::from(self.cells[(r * size + c).unsigned_abs()]) == player + 1
        };
        DIRECTIONS.iter().any(|&(dr, dc)| {
            let mut len = 1;
            for sign in [-1, 1] {
                let (mut r, mut c) = (row + sign * dr, col + sign * dc);
                while mine(r, c) {
                    len += 1;
                    r += sign * dr;
                    c += sign * dc;
                }
            }
            match self.rule {
                GomokuRule::Freestyle => len >= 5,
                GomokuRule::Standard => len == 5,
            }
        })
    }
}

/// Removes one `w` from `list` (order is not kept).
fn remove(list: &mut Vec<u16>, w: u16) {
    if let Some(i) = list.iter().position(|&x| x == w) {
        list.swap_remove(i);
    }
}

/// A 15x15 freestyle board from X's and O's stones (row, column), played
/// alternately from X's; X to move when both lists are as long.
#[cfg(test)]
pub(super) fn from_stones(xs: &[(i64, i64)], os: &[(i64, i64)]) -> Board {
    let options = tabula_rules::gomoku::GomokuOptions::new(15, GomokuRule::Freestyle).unwrap();
    let mut g = Gomoku::new(options);
    for (x, o) in xs.iter().zip(os) {
        g.try_play(g.point(x.0, x.1).unwrap()).unwrap();
        g.try_play(g.point(o.0, o.1).unwrap()).unwrap();
    }
    Board::new(&g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_rules::gomoku::GomokuOptions;

    fn game(size: i64, rule: GomokuRule, moves: &[(i64, i64)]) -> Gomoku {
        let mut g = Gomoku::new(GomokuOptions::new(size, rule).unwrap());
        for &(r, c) in moves {
            let p = g.point(r, c).unwrap();
            g.try_play(p).unwrap();
        }
        g
    }

    #[test]
    fn window_counts_match_a_fresh_board_after_play_and_undo() {
        let g = game(9, GomokuRule::Freestyle, &[(4, 4), (3, 3), (4, 5), (0, 0)]);
        let mut board = Board::new(&g);
        let fresh = board.clone();
        // The windows of three, kept up to date, against the counts.
        let threes_match = |board: &Board| {
            for (w, c) in board.counts.iter().enumerate() {
                for p in 0..2 {
                    let bit = board.threes[p][w / 64] >> (w % 64) & 1 == 1;
                    assert_eq!(bit, c[p] == 3 && c[1 - p] == 0, "window {w}");
                }
            }
        };
        for cell in [42, 43, 8, 80, 44, 31, 22, 49] {
            board.play(cell);
            for (held, score) in board.held().iter().zip(board.score) {
                let by_count: i32 = (1..=5).map(|k| held[k] * WEIGHTS[k]).sum();
                assert_eq!(by_count, score);
            }
            threes_match(&board);
        }
        assert!(board.threes[0].iter().any(|&b| b != 0));
        for cell in [49, 22, 31, 44, 80, 8, 43, 42] {
            board.undo(cell);
            threes_match(&board);
        }
        assert_eq!(board.counts, fresh.counts);
        assert_eq!(board.score, fresh.score);
        assert_eq!(board.key, fresh.key);
        assert_eq!(board.near, fresh.near);
        let mut a = board.fours.clone();
        let mut b = fresh.fours.clone();
        a.iter_mut()
            .chain(b.iter_mut())
            .for_each(|l| l.sort_unstable());
        assert_eq!(a, b);
    }

    #[test]
    fn far_empty_cells_are_candidates_when_nothing_is_near() {
        // Late in a game on a small board every empty cell can be more
        // than two steps from any stone; simulate it by clearing the counts.
        let g = game(5, GomokuRule::Freestyle, &[(0, 0)]);
        let mut board = Board::new(&g);
        board.near.iter_mut().for_each(|n| *n = 0);
        let mut out = Vec::new();
        board.candidates(&mut out);
        assert_eq!(out.len(), 24);
    }

    #[test]
    fn wins_respect_the_overline_rule() {
        // X: row 7, columns 2..=4 and 6..=7: a stone on 5 makes six.
        let moves = [
            (7, 2),
            (0, 0),
            (7, 3),
            (0, 2),
            (7, 4),
            (0, 4),
            (7, 6),
            (0, 6),
            (7, 7),
            (2, 0),
        ];
        for (rule, wins) in [(GomokuRule::Freestyle, true), (GomokuRule::Standard, false)] {
            let g = game(15, rule, &moves);
            let board = Board::new(&g);
            let mut out = Vec::new();
            board.wins(0, &mut out);
            assert_eq!(out.contains(&(7 * 15 + 5)), wins, "{rule}");
            let mut played = board.clone();
            played.play(7 * 15 + 5);
            assert_eq!(played.winner() == Some(0), wins, "{rule}");
        }
    }
}
