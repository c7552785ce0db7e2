//! Gomoku: perft against a naive oracle (properties checked against the same
//! oracle: `gomoku_properties.rs`; the hand-made edge cases: `gomoku_cases.rs`).
//!
//! The oracle below shares no code or idea with the engine beyond the rules
//! text: it keeps a plain array of cells and, to decide a position, scans
//! every five-cell window of the whole board (freestyle: a window full of one
//! player's stones; standard: such a window whose two flanking cells are not
//! that player's). The engine instead keeps bit rows and walks the four lines
//! through the last stone.

use tabula_rules::gomoku::{Gomoku, GomokuOptions, GomokuRule};
use tabula_rules::{Coord, Game, Player, Refusal, Status};

// ---------------------------------------------------------------- oracle --

/// Five cells in a line (row-major indices) and the cells just beyond both
/// ends, when on the board.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    cells: [usize; 5],
    flanks: [Option<usize>; 2],
}

/// Every five-cell window of a `size` x `size` board, in the four directions.
pub(crate) fn windows(size: usize) -> Vec<Window> {
    let n = size as i64;
    let at =
        |r: i64, c: i64| ((0..n).contains(&r) && (0..n).contains(&c)).then(|| (r * n + c) as usize);
    let mut out = Vec::new();
    for r in 0..n {
        for c in 0..n {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let cells: Vec<usize> = (0..5).filter_map(|k| at(r + k * dr, c + k * dc)).collect();
                if let Ok(cells) = <[usize; 5]>::try_from(cells) {
                    out.push(Window {
                        cells,
                        flanks: [at(r - dr, c - dc), at(r + 5 * dr, c + 5 * dc)],
                    });
                }
            }
        }
    }
    out
}

/// The naive oracle: a plain board, full scans, nothing incremental.
#[derive(Clone, Debug)]
pub(crate) struct Naive {
    pub(crate) size: usize,
    pub(crate) rule: GomokuRule,
    pub(crate) cells: Vec<Option<Player>>,
    pub(crate) ply: u32,
    pub(crate) counts: [u32; 2],
    pub(crate) last: Option<(u8, u8)>,
    /// Each player's latest two stones, newest first (for the random-game
    /// driver).
    pub(crate) latest: [[Option<(u8, u8)>; 2]; 2],
    pub(crate) windows: Vec<Window>,
}

impl Naive {
    pub(crate) fn new(size: usize, rule: GomokuRule) -> Naive {
        Naive {
            size,
            rule,
            cells: vec![None; size * size],
            ply: 0,
            counts: [0, 0],
            last: None,
            latest: [[None; 2]; 2],
            windows: windows(size),
        }
    }

    pub(crate) fn cell(&self, r: usize, c: usize) -> Option<Player> {
        self.cells[r * self.size + c]
    }

    /// Puts a stone of `p` on cell `i` (ply unchanged).
    pub(crate) fn put(&mut self, i: usize, p: Player) {
        assert!(self.cells[i].is_none());
        self.cells[i] = Some(p);
        self.counts[p.index()] += 1;
    }

    /// Takes the stone off cell `i` (ply unchanged).
    pub(crate) fn take(&mut self, i: usize) {
        let p = self.cells[i].take().expect("a stone");
        self.counts[p.index()] -= 1;
    }

    pub(crate) fn to_move(&self) -> Player {
        if self.ply.is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }

    /// Whether `w` is a winning window for `p`.
    pub(crate) fn wins_in(&self, w: &Window, p: Player) -> bool {
        w.cells.iter().all(|&i| self.cells[i] == Some(p))
            && match self.rule {
                GomokuRule::Freestyle => true,
                GomokuRule::Standard => w
                    .flanks
                    .iter()
                    .all(|f| f.is_none_or(|i| self.cells[i] != Some(p))),
            }
    }

    pub(crate) fn has_win(&self, p: Player) -> bool {
        // Fewer than five stones cannot fill a window (this only keeps the
        // scans of the 9x9 perft affordable in a debug build).
        self.counts[p.index()] >= 5 && self.windows.iter().any(|w| self.wins_in(w, p))
    }

    /// Every cell of every winning window of `p`, row-major.
    pub(crate) fn winning_cells(&self, p: Player) -> Vec<Coord> {
        let mut idx: Vec<usize> = self
            .windows
            .iter()
            .filter(|w| self.wins_in(w, p))
            .flat_map(|w| w.cells)
            .collect();
        idx.sort_unstable();
        idx.dedup();
        idx.into_iter()
            .map(|i| Coord::new((i / self.size) as u8, (i % self.size) as u8))
            .collect()
    }

    pub(crate) fn status(&self) -> Status {
        let x = self.has_win(Player::X);
        let o = self.has_win(Player::O);
        assert!(!(x && o), "oracle: both players have a line");
        if x || o {
            let winner = if x { Player::X } else { Player::O };
            Status::Won {
                winner,
                line: self.winning_cells(winner),
            }
        } else if self.ply as usize == self.cells.len() {
            Status::Draw
        } else {
            Status::InProgress {
                to_move: self.to_move(),
            }
        }
    }

    pub(crate) fn is_over(&self) -> bool {
        self.status().is_over()
    }

    /// What the engine should answer to a move at `(r, c)` (on the board).
    pub(crate) fn expected_check(&self, r: usize, c: usize) -> Result<(), Refusal> {
        if self.is_over() {
            Err(Refusal::GameOver)
        } else if self.cell(r, c).is_some() {
            Err(Refusal::Occupied)
        } else {
            Ok(())
        }
    }

    pub(crate) fn place(&mut self, r: usize, c: usize) {
        let mover = self.to_move();
        self.put(r * self.size + c, mover);
        self.ply += 1;
        self.last = Some((r as u8, c as u8));
        let mine = &mut self.latest[mover.index()];
        *mine = [self.last, mine[0]];
    }

    pub(crate) fn empties(&self) -> Vec<(u8, u8)> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i].is_none())
            .map(|i| ((i / self.size) as u8, (i % self.size) as u8))
            .collect()
    }

    /// rules.md "Threats", by trying every empty cell for both players.
    pub(crate) fn threats(&mut self) -> Vec<(Player, (u8, u8))> {
        if self.is_over() {
            return Vec::new();
        }
        let me = self.to_move();
        let mut out = Vec::new();
        for p in [me, me.other()] {
            for (r, c) in self.empties() {
                let i = usize::from(r) * self.size + usize::from(c);
                self.put(i, p);
                if self.has_win(p) {
                    out.push((p, (r, c)));
                }
                self.take(i);
            }
        }
        out
    }

    /// Counts the move tree to `depth`, classifying every node.
    pub(crate) fn perft(&mut self, depth: u32, tally: &mut Tally) {
        let status = self.status();
        tally.record(&status);
        if depth == 0 {
            tally.leaves += 1;
            return;
        }
        if status.is_over() {
            return;
        }
        let me = self.to_move();
        for i in 0..self.cells.len() {
            if self.cells[i].is_none() {
                self.put(i, me);
                self.ply += 1;
                self.perft(depth - 1, tally);
                self.ply -= 1;
                self.take(i);
            }
        }
    }
}

/// Counts of a move tree: positions at the full depth, and over all depths
/// the finished positions by outcome, with a checksum of their winning lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    leaves: u64,
    x_wins: u64,
    o_wins: u64,
    draws: u64,
    line_sum: u64,
}

impl Tally {
    fn record(&mut self, status: &Status) {
        match status {
            Status::Won { winner, line } => {
                match winner {
                    Player::X => self.x_wins += 1,
                    Player::O => self.o_wins += 1,
                }
                self.line_sum += line
                    .iter()
                    .map(|c| u64::from(c.row) * 32 + u64::from(c.col) + 1)
                    .sum::<u64>();
            }
            Status::Draw => self.draws += 1,
            Status::InProgress { .. } => {}
        }
    }
}

/// The same count with the engine (checked `play`, its own `legal_moves`).
pub(crate) fn engine_perft(game: &Gomoku, depth: u32, tally: &mut Tally) {
    tally.record(&game.status());
    if depth == 0 {
        tally.leaves += 1;
        return;
    }
    for m in game.legal_moves() {
        let child = game.clone().play(m).expect("a listed move is legal");
        engine_perft(&child, depth - 1, tally);
    }
}

pub(crate) fn both_perfts(game: &Gomoku, naive: &mut Naive, depth: u32) -> Tally {
    let mut engine = Tally::default();
    engine_perft(game, depth, &mut engine);
    let mut oracle = Tally::default();
    naive.perft(depth, &mut oracle);
    assert_eq!(engine, oracle, "perft to depth {depth}");
    engine
}

// --------------------------------------------------------------- helpers --

pub(crate) fn options(size: i64, rule: GomokuRule) -> GomokuOptions {
    GomokuOptions::new(size, rule).expect("size in range")
}

pub(crate) fn coords(cells: &[(u8, u8)]) -> Vec<Coord> {
    cells.iter().map(|&(r, c)| Coord::new(r, c)).collect()
}

/// Plays `(row, col)`, which must be legal.
pub(crate) fn play(game: &mut Gomoku, row: i64, col: i64) {
    let p = game.point(row, col).expect("on the board");
    game.try_play(p).expect("legal move");
}

/// A position drawn as rows of `X`, `O` and `.`, reached by playing X's and
/// O's stones alternately (each row-major), together with the oracle's copy.
/// The drawing must not be finished.
pub(crate) fn position(rule: GomokuRule, art: &[&str]) -> (Gomoku, Naive) {
    let size = art.len();
    let mut stones = [Vec::new(), Vec::new()];
    for (r, line) in art.iter().enumerate() {
        assert_eq!(line.len(), size, "square drawing");
        for (c, ch) in line.chars().enumerate() {
            match ch {
                'X' => stones[0].push((r, c)),
                'O' => stones[1].push((r, c)),
                '.' => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    let [xs, os] = stones;
    assert!(
        xs.len() == os.len() || xs.len() == os.len() + 1,
        "turn order"
    );
    let mut game = Gomoku::new(options(size as i64, rule));
    let mut naive = Naive::new(size, rule);
    let mut order = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        order.push(x);
        if let Some(&o) = os.get(i) {
            order.push(o);
        }
    }
    for (r, c) in order {
        assert!(!game.is_over(), "drawing finished early");
        play(&mut game, r as i64, c as i64);
        naive.place(r, c);
    }
    assert!(!game.is_over(), "drawing is finished");
    assert_eq!(game.status(), naive.status());
    (game, naive)
}

// ----------------------------------------------------------------- perft --

#[test]
fn perft_on_an_empty_9x9_board_matches_the_oracle_to_depth_3() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let game = Gomoku::new(options(9, rule));
        let mut naive = Naive::new(9, rule);
        let expected = [1, 81, 81 * 80, 81 * 80 * 79];
        for depth in 0..=3 {
            let tally = both_perfts(&game, &mut naive, depth);
            assert_eq!(tally.leaves, expected[depth as usize]);
            assert_eq!(tally.x_wins + tally.o_wins + tally.draws, 0);
        }
    }
}

/// X to move; X can close row 0 in two moves, O row 1 in two moves.
pub(crate) const MIDGAME_5X5: [&str; 5] = ["XX.X.", "O.OO.", ".X...", "....O", "X..O."];

/// O to move, eight cells left: fillings give fives for either side or a draw.
pub(crate) const ENDGAME_5X5: [&str; 5] = ["XX..X", ".O..O", "XXOOX", ".O..O", "XXOOX"];

/// X to move: (0, 2) makes a pure overline, (4, 3) exactly five; for O,
/// (2, 2) makes a pure overline.
pub(crate) const OVERLINES_7X7: [&str; 7] = [
    "XX.XXX.", "..O....", "OO.OOO.", ".......", ".XX.XX.", "......O", "O....O.",
];

/// Engine and oracle agree at every depth up to `depth`; gives the tallies
/// by depth.
pub(crate) fn perft_from(rule: GomokuRule, art: &[&str], depth: u32) -> Vec<Tally> {
    let (game, mut naive) = position(rule, art);
    (0..=depth)
        .map(|d| both_perfts(&game, &mut naive, d))
        .collect()
}

impl Tally {
    fn finished(self) -> u64 {
        self.x_wins + self.o_wins + self.draws
    }
}

#[test]
fn perft_from_a_5x5_midgame_matches_the_oracle_to_depth_5_with_wins_for_both() {
    let free = perft_from(GomokuRule::Freestyle, &MIDGAME_5X5, 5);
    // No run can exceed five on a 5x5 board, so the rules agree there.
    assert_eq!(free, perft_from(GomokuRule::Standard, &MIDGAME_5X5, 5));
    let leaves: Vec<u64> = free.iter().map(|t| t.leaves).collect();
    assert_eq!(leaves, [1, 15, 210, 2_730, 32_448, 353_540]);
    // X can win from ply 3, O from ply 4.
    assert_eq!(free[2].finished(), 0);
    assert!(free[3].x_wins > 0 && free[3].o_wins == 0, "{:?}", free[3]);
    assert!(free[4].o_wins > 0, "{:?}", free[4]);
}

#[test]
fn perft_of_a_5x5_endgame_to_the_end_matches_the_oracle_with_wins_and_draws() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let t = perft_from(rule, &ENDGAME_5X5, 8);
        let leaves: Vec<u64> = t.iter().map(|t| t.leaves).collect();
        assert_eq!(
            leaves,
            [1, 8, 56, 336, 1_680, 6_240, 17_424, 29_664, 23_616]
        );
        assert!(
            t[8].x_wins > 0 && t[8].o_wins > 0 && t[8].draws > 0,
            "{:?}",
            t[8]
        );
        // The eighth move fills the board, so every position at depth 8 is finished.
        assert_eq!(t[8].finished() - t[7].finished(), t[8].leaves);
    }
}

#[test]
fn perft_on_7x7_with_overlines_matches_the_oracle_and_the_rules_differ() {
    let free = perft_from(GomokuRule::Freestyle, &OVERLINES_7X7, 3);
    let standard = perft_from(GomokuRule::Standard, &OVERLINES_7X7, 3);
    // X's overline at (0, 2) wins only under freestyle; so does O's at (2, 2).
    assert_eq!((free[1].x_wins, standard[1].x_wins), (2, 1));
    assert!(free[2].o_wins > 0 && standard[2].o_wins == 0);
    assert_eq!(free[1].leaves, 31);
    assert_eq!(standard[2].leaves, 30 * 30);
    assert!(free[2].leaves < standard[2].leaves);
}

/// Snapshot bytes in the documented layout: size, rule, last move (255, 255
/// for none), then X's rows and O's rows, `ceil(size / 8)` little-endian bytes
/// each.
pub(crate) fn snapshot(size: u8, rule: u8, last: (u8, u8), cells: &[Option<Player>]) -> Vec<u8> {
    let n = usize::from(size);
    let width = n.div_ceil(8);
    let mut out = vec![size, rule, last.0, last.1];
    for p in Player::BOTH {
        for r in 0..n {
            let mut row = 0u32;
            for c in 0..n {
                if cells.get(r * n + c).copied().flatten() == Some(p) {
                    row |= 1 << c;
                }
            }
            out.extend_from_slice(&row.to_le_bytes()[..width]);
        }
    }
    out
}
