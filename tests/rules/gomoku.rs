//! Gomoku: perft against a naive oracle and properties checked against the
//! same oracle (the hand-made edge cases: `gomoku_cases.rs`).
//!
//! The oracle below shares no code or idea with the engine beyond the rules
//! text: it keeps a plain array of cells and, to decide a position, scans
//! every five-cell window of the whole board (freestyle: a window full of one
//! player's stones; standard: such a window whose two flanking cells are not
//! that player's). The engine instead keeps bit rows and walks the four lines
//! through the last stone.
//!
//! Over 700 lines, on purpose: the oracle and the checks made against it
//! belong together, for both rules and every size the edge cases need.

use proptest::collection::vec;
use proptest::prelude::*;
use tabula::rules::gomoku::{Gomoku, GomokuOptions, GomokuRule};
use tabula::rules::{Coord, Game, PlayError, Player, Refusal, Status};

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
    size: usize,
    rule: GomokuRule,
    cells: Vec<Option<Player>>,
    ply: u32,
    counts: [u32; 2],
    last: Option<(u8, u8)>,
    /// Each player's latest two stones, newest first (for the random-game
    /// driver).
    latest: [[Option<(u8, u8)>; 2]; 2],
    windows: Vec<Window>,
}

impl Naive {
    fn new(size: usize, rule: GomokuRule) -> Naive {
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

    fn cell(&self, r: usize, c: usize) -> Option<Player> {
        self.cells[r * self.size + c]
    }

    /// Puts a stone of `p` on cell `i` (ply unchanged).
    fn put(&mut self, i: usize, p: Player) {
        assert!(self.cells[i].is_none());
        self.cells[i] = Some(p);
        self.counts[p.index()] += 1;
    }

    /// Takes the stone off cell `i` (ply unchanged).
    fn take(&mut self, i: usize) {
        let p = self.cells[i].take().expect("a stone");
        self.counts[p.index()] -= 1;
    }

    fn to_move(&self) -> Player {
        if self.ply.is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }

    /// Whether `w` is a winning window for `p`.
    fn wins_in(&self, w: &Window, p: Player) -> bool {
        w.cells.iter().all(|&i| self.cells[i] == Some(p))
            && match self.rule {
                GomokuRule::Freestyle => true,
                GomokuRule::Standard => w
                    .flanks
                    .iter()
                    .all(|f| f.is_none_or(|i| self.cells[i] != Some(p))),
            }
    }

    fn has_win(&self, p: Player) -> bool {
        // Fewer than five stones cannot fill a window (this only keeps the
        // scans of the 9x9 perft affordable in a debug build).
        self.counts[p.index()] >= 5 && self.windows.iter().any(|w| self.wins_in(w, p))
    }

    /// Every cell of every winning window of `p`, row-major.
    fn winning_cells(&self, p: Player) -> Vec<Coord> {
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

    fn is_over(&self) -> bool {
        self.status().is_over()
    }

    /// What the engine should answer to a move at `(r, c)` (on the board).
    fn expected_check(&self, r: usize, c: usize) -> Result<(), Refusal> {
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

    fn empties(&self) -> Vec<(u8, u8)> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i].is_none())
            .map(|i| ((i / self.size) as u8, (i % self.size) as u8))
            .collect()
    }

    /// rules.md "Threats", by trying every empty cell for both players.
    fn threats(&mut self) -> Vec<(Player, (u8, u8))> {
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
    fn perft(&mut self, depth: u32, tally: &mut Tally) {
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

// ------------------------------------------------------------ properties --

/// Everything the engine says about `game` agrees with the oracle's `naive`.
/// With `full`, also every move's check, the legal moves and the threats.
pub(crate) fn agree(game: &Gomoku, naive: &mut Naive, full: bool) {
    let status = naive.status();
    assert_eq!(game.status(), status);
    assert_eq!(game.is_over(), status.is_over());
    assert_eq!(game.ply(), naive.ply);
    assert_eq!(game.to_move(), naive.to_move());
    assert_eq!(game.last_move().map(|p| (p.row(), p.col())), naive.last);
    let size = naive.size;
    let side = size as u8;
    assert_eq!(game.dims(), (side, side));
    for p in Player::BOTH {
        assert_eq!(game.rows(p).len(), size);
    }
    for r in 0..size {
        let mut bits = [0u32; 2];
        for c in 0..size {
            let cell = naive.cell(r, c);
            assert_eq!(game.cell_at(r as u8, c as u8), cell, "({r}, {c})");
            if let Some(p) = cell {
                bits[p.index()] |= 1 << c;
            }
        }
        for p in Player::BOTH {
            assert_eq!(game.rows(p)[r], bits[p.index()], "row {r} of {p}");
        }
    }
    assert_eq!(Gomoku::decode(&game.encode()), Ok(game.clone()));
    if !full {
        return;
    }
    let n = size as i64;
    for (r, c) in [(-1, 0), (0, -1), (n, 0), (0, n), (n, n)] {
        assert_eq!(game.point(r, c), Err(Refusal::OutOfBounds));
    }
    let mut listed = vec![game.point(0, 0).expect("on board")]; // stale content is cleared
    game.legal_moves_into(&mut listed);
    let listed: Vec<(u8, u8)> = listed.iter().map(|p| (p.row(), p.col())).collect();
    let expected = if status.is_over() {
        Vec::new()
    } else {
        naive.empties()
    };
    assert_eq!(listed, expected);
    for r in 0..size {
        for c in 0..size {
            let p = game.point(r as i64, c as i64).expect("on board");
            assert_eq!(game.stone(p), naive.cell(r, c));
            assert_eq!(game.check(p), naive.expected_check(r, c), "({r}, {c})");
        }
    }
    let threats: Vec<(Player, (u8, u8))> = game
        .threats()
        .iter()
        .map(|t| (t.player, (t.mv.row(), t.mv.col())))
        .collect();
    assert_eq!(threats, naive.threats());
}

/// The square of the board random games are played in (small, so that
/// lines form).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Area {
    top: u8,
    left: u8,
    span: u8,
}

impl Area {
    fn new(size: u8, span: u8, offset: (u8, u8)) -> Area {
        let span = span.min(size);
        let room = size - span + 1;
        Area {
            top: offset.0 % room,
            left: offset.1 % room,
            span,
        }
    }

    fn cell(self, a: u8, b: u8) -> (u8, u8) {
        (self.top + a % self.span, self.left + b % self.span)
    }

    fn contains(self, r: i32, c: i32) -> bool {
        let (top, left, span) = (
            i32::from(self.top),
            i32::from(self.left),
            i32::from(self.span),
        );
        (top..top + span).contains(&r) && (left..left + span).contains(&c)
    }
}

/// The cell the side to move tries next, from the oracle's state. Mostly it
/// carries on along the line through the mover's last two stones (beyond
/// either end, sometimes leaving a gap), so that runs, fives, gaps filled
/// in the middle and overlines all happen; sometimes it steps off in a new
/// direction; sometimes it is any cell of the area, taken or not.
pub(crate) fn pick(naive: &Naive, area: Area, (kind, a, b): (u8, u8, u8)) -> (u8, u8) {
    const STEPS: [(i32, i32); 8] = [
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ];
    let free =
        |(r, c): (i32, i32)| area.contains(r, c) && naive.cell(r as usize, c as usize).is_none();
    let at = |(r, c): (u8, u8)| (i32::from(r), i32::from(c));
    let gap = 1 + i32::from(b % 3 == 0);
    let [newest, previous] = naive.latest[naive.to_move().index()];
    let mut tries = Vec::new();
    match (kind % 8, newest, previous) {
        (0, _, _) | (_, None, _) => {}
        (1, Some(n), _) | (_, Some(n), None) => {
            let (dr, dc) = STEPS[usize::from(a % 8)];
            tries.push((at(n).0 + gap * dr, at(n).1 + gap * dc));
        }
        (_, Some(n), Some(p)) => {
            let (n, p) = (at(n), at(p));
            let (dr, dc) = ((n.0 - p.0).signum(), (n.1 - p.1).signum());
            let aligned =
                n.0 - p.0 == 0 || n.1 - p.1 == 0 || (n.0 - p.0).abs() == (n.1 - p.1).abs();
            if aligned {
                tries.push((n.0 + gap * dr, n.1 + gap * dc));
                tries.push((p.0 - gap * dr, p.1 - gap * dc));
                tries.push((n.0 - dr, n.1 - dc)); // between them, if apart
            }
            let (dr, dc) = STEPS[usize::from(a % 8)];
            tries.push((n.0 + dr, n.1 + dc));
        }
    }
    match tries.into_iter().find(|&t| free(t)) {
        Some((r, c)) => (r as u8, c as u8),
        None => area.cell(a, b),
    }
}

/// Plays a random game in `area`, checking each answer and the position
/// after it against the oracle; gives the oracle's final position.
pub(crate) fn random_game(
    opts: GomokuOptions,
    area: Area,
    choices: &[(u8, u8, u8)],
    full_each_step: bool,
) -> Naive {
    let mut game = Gomoku::new(opts);
    let mut naive = Naive::new(usize::from(opts.size()), opts.rule());
    agree(&game, &mut naive, full_each_step);
    for &choice in choices {
        let (r, c) = pick(&naive, area, choice);
        let p = game.point(i64::from(r), i64::from(c)).expect("on board");
        let expected = naive.expected_check(usize::from(r), usize::from(c));
        let before = game.clone();
        match game.clone().play(p) {
            Ok(next) => {
                assert_eq!(expected, Ok(()));
                naive.place(usize::from(r), usize::from(c));
                game = next;
            }
            Err(PlayError { refusal, position }) => {
                assert_eq!(Err(refusal), expected);
                assert_eq!(position, before);
                assert_eq!(game.try_play(p), Err(refusal));
                assert_eq!(game, before);
            }
        }
        agree(&game, &mut naive, full_each_step);
    }
    agree(&game, &mut naive, true);
    naive
}

/// The same kind of game played by the oracle alone (no engine involved).
pub(crate) fn oracle_game(
    size: u8,
    rule: GomokuRule,
    area: Area,
    choices: &[(u8, u8, u8)],
) -> Naive {
    let mut naive = Naive::new(usize::from(size), rule);
    for &choice in choices {
        let (r, c) = pick(&naive, area, choice);
        if naive.expected_check(usize::from(r), usize::from(c)).is_ok() {
            naive.place(usize::from(r), usize::from(c));
        }
    }
    naive
}

pub(crate) fn rule() -> impl Strategy<Value = GomokuRule> {
    prop_oneof![Just(GomokuRule::Freestyle), Just(GomokuRule::Standard)]
}

/// A snapshot's parts: a random oracle game's final board (often won),
/// sometimes spoilt by a few random edits of cells, rule or last move.
pub(crate) fn board() -> impl Strategy<Value = (u8, u8, (u8, u8), Vec<Option<Player>>)> {
    (
        5u8..=8,
        rule(),
        any::<(u8, u8)>(),
        vec(any::<(u8, u8, u8)>(), 0..60),
        vec((any::<u8>(), any::<u16>(), any::<u8>()), 0..3),
    )
        .prop_map(|(size, rule, offset, choices, edits)| {
            let naive = oracle_game(size, rule, Area::new(size, 6, offset), &choices);
            let mut rule = match rule {
                GomokuRule::Freestyle => 0,
                GomokuRule::Standard => 1,
            };
            let mut last = naive.last.unwrap_or((255, 255));
            let mut cells = naive.cells;
            let n = usize::from(size);
            for (what, at, value) in edits {
                let i = usize::from(at) % cells.len();
                let j = usize::from(value) % cells.len();
                match what % 8 {
                    0 => rule = value % 3,
                    1 => last = (value % 9, (at % 9) as u8),
                    2 => last = (255, 255),
                    3 | 6 => {
                        // Another stone of the last mover as the last move.
                        if let Some(k) =
                            (0..cells.len()).map(|k| (i + k) % cells.len()).find(|&k| {
                                last.0 < 9
                                    && cells[k].is_some()
                                    && cells[k]
                                        == cells
                                            .get(usize::from(last.0) * n + usize::from(last.1))
                                            .copied()
                                            .flatten()
                            })
                        {
                            last = ((k / n) as u8, (k % n) as u8);
                        }
                    }
                    4 | 5 => cells.swap(i, j), // moves a stone (counts kept)
                    _ => {
                        cells[i] = [None, Some(Player::X), Some(Player::O)][usize::from(value % 3)];
                    }
                }
            }
            (size, rule, last, cells)
        })
}

/// The oracle's verdict on a snapshot: the position, or `None` if invalid.
pub(crate) fn oracle_decode(
    size: u8,
    rule: u8,
    last: (u8, u8),
    cells: &[Option<Player>],
) -> Option<Naive> {
    let rule = match rule {
        0 => GomokuRule::Freestyle,
        1 => GomokuRule::Standard,
        _ => return None,
    };
    let n = usize::from(size);
    let mut naive = Naive::new(n, rule);
    for (i, &cell) in cells.iter().enumerate() {
        if let Some(p) = cell {
            naive.put(i, p);
        }
    }
    let [xs, os] = naive.counts;
    if xs != os && xs != os + 1 {
        return None;
    }
    naive.ply = xs + os;
    if naive.ply == 0 {
        return (last == (255, 255)).then_some(naive);
    }
    let (r, c) = (usize::from(last.0), usize::from(last.1));
    let mover = if naive.ply % 2 == 1 {
        Player::X
    } else {
        Player::O
    };
    if r >= n || c >= n || naive.cell(r, c) != Some(mover) {
        return None;
    }
    // The game stops at the first line: none may stand without the last stone.
    naive.take(r * n + c);
    if naive.has_win(Player::X) || naive.has_win(Player::O) {
        return None;
    }
    naive.put(r * n + c, mover);
    naive.last = Some(last);
    Some(naive)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_games_on_small_boards_agree_with_the_oracle_at_every_step(
        size in 5i64..=9,
        rule in rule(),
        span in 5u8..=9,
        offset in any::<(u8, u8)>(),
        choices in vec(any::<(u8, u8, u8)>(), 0..60),
    ) {
        let opts = options(size, rule);
        random_game(opts, Area::new(opts.size(), span, offset), &choices, true);
    }

    #[test]
    fn random_games_on_large_boards_agree_with_the_oracle(
        size in 10i64..=25,
        rule in rule(),
        span in 5u8..=10,
        offset in any::<(u8, u8)>(),
        choices in vec(any::<(u8, u8, u8)>(), 0..80),
    ) {
        let opts = options(size, rule);
        random_game(opts, Area::new(opts.size(), span, offset), &choices, false);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decode_never_panics_and_what_it_accepts_encodes_back_to_the_same_bytes(
        bytes in prop_oneof![
            vec(any::<u8>(), 0..220),
            // Right header and length for small boards, random stones.
            (5u8..=9, 0u8..=1, vec(any::<u8>(), 2 * 9 * 2)).prop_map(|(size, rule, body)| {
                let len = 2 * usize::from(size) * usize::from(size).div_ceil(8);
                let mut b = vec![size, rule, 255, 255];
                b.extend(body.iter().take(len).map(|x| x & x.rotate_left(3)));
                b
            }),
        ],
    ) {
        if let Ok(game) = Gomoku::decode(&bytes) {
            prop_assert_eq!(game.encode(), bytes);
        }
    }

    #[test]
    fn decode_accepts_exactly_the_boards_the_oracle_finds_consistent(board in board()) {
        let (size, rule, last, cells) = board;
        let bytes = snapshot(size, rule, last, &cells);
        match (Gomoku::decode(&bytes), oracle_decode(size, rule, last, &cells)) {
            (Ok(game), Some(mut naive)) => {
                agree(&game, &mut naive, true);
                prop_assert_eq!(game.encode(), bytes);
            }
            (Err(_), None) => {}
            (got, want) => prop_assert!(false, "engine {:?}, oracle valid: {}", got, want.is_some()),
        }
    }
}
