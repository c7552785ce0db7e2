//! Gomoku: perft against a naive oracle, properties checked against the same
//! oracle, and hand-made edge cases.
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
use tabula::rules::gomoku::{DEFAULT_SIZE, Gomoku, GomokuOptions, GomokuRule, MAX_SIZE, MIN_SIZE};
use tabula::rules::{Coord, DecodeError, Game, PlayError, Player, Refusal, Status, Threat};

// ---------------------------------------------------------------- oracle --

/// Five cells in a line (row-major indices) and the cells just beyond both
/// ends, when on the board.
#[derive(Clone, Debug)]
struct Window {
    cells: [usize; 5],
    flanks: [Option<usize>; 2],
}

/// Every five-cell window of a `size` x `size` board, in the four directions.
fn windows(size: usize) -> Vec<Window> {
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
struct Naive {
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

    fn status(&self) -> Status {
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

    fn place(&mut self, r: usize, c: usize) {
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
struct Tally {
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
fn engine_perft(game: &Gomoku, depth: u32, tally: &mut Tally) {
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

fn both_perfts(game: &Gomoku, naive: &mut Naive, depth: u32) -> Tally {
    let mut engine = Tally::default();
    engine_perft(game, depth, &mut engine);
    let mut oracle = Tally::default();
    naive.perft(depth, &mut oracle);
    assert_eq!(engine, oracle, "perft to depth {depth}");
    engine
}

// --------------------------------------------------------------- helpers --

fn options(size: i64, rule: GomokuRule) -> GomokuOptions {
    GomokuOptions::new(size, rule).expect("size in range")
}

fn coords(cells: &[(u8, u8)]) -> Vec<Coord> {
    cells.iter().map(|&(r, c)| Coord::new(r, c)).collect()
}

/// Plays `(row, col)`, which must be legal.
fn play(game: &mut Gomoku, row: i64, col: i64) {
    let p = game.point(row, col).expect("on the board");
    game.try_play(p).expect("legal move");
}

/// A position drawn as rows of `X`, `O` and `.`, reached by playing X's and
/// O's stones alternately (each row-major), together with the oracle's copy.
/// The drawing must not be finished.
fn position(rule: GomokuRule, art: &[&str]) -> (Gomoku, Naive) {
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
const MIDGAME_5X5: [&str; 5] = ["XX.X.", "O.OO.", ".X...", "....O", "X..O."];

/// O to move, eight cells left: fillings give fives for either side or a draw.
const ENDGAME_5X5: [&str; 5] = ["XX..X", ".O..O", "XXOOX", ".O..O", "XXOOX"];

/// X to move: (0, 2) makes a pure overline, (4, 3) exactly five; for O,
/// (2, 2) makes a pure overline.
const OVERLINES_7X7: [&str; 7] = [
    "XX.XXX.", "..O....", "OO.OOO.", ".......", ".XX.XX.", "......O", "O....O.",
];

/// Engine and oracle agree at every depth up to `depth`; gives the tallies
/// by depth.
fn perft_from(rule: GomokuRule, art: &[&str], depth: u32) -> Vec<Tally> {
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

// --------------------------------------------------------------- options --

#[test]
fn sizes_outside_5_to_25_are_refused_with_a_message_naming_the_range() {
    for size in [4, 26, -1, 0, 30, 256, 261, i64::MAX, i64::MIN] {
        for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
            let err = GomokuOptions::new(size, rule).expect_err("out of range");
            assert_eq!(
                err.to_string(),
                format!("size must be between 5 and 25, got {size}")
            );
        }
    }
    let err = GomokuOptions::new(30, GomokuRule::Freestyle).expect_err("30 is too big");
    assert_eq!(err.to_string(), "size must be between 5 and 25, got 30");
}

#[test]
fn sizes_5_to_25_give_square_boards_of_that_size() {
    for size in 5..=25 {
        for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
            let opts = options(size, rule);
            assert_eq!((i64::from(opts.size()), opts.rule()), (size, rule));
            let game = Gomoku::new(opts);
            assert_eq!(game.options(), opts);
            let side = u8::try_from(size).expect("small");
            assert_eq!(game.dims(), (side, side));
            assert_eq!(game.size(), side);
            assert_eq!(game.rows(Player::X).len(), usize::from(side));
            assert_eq!(
                game.legal_moves().len(),
                usize::from(side) * usize::from(side)
            );
            assert_eq!(game.status(), Status::InProgress { to_move: Player::X });
            assert_eq!(game.last_move(), None);
        }
    }
}

#[test]
fn the_default_is_an_empty_15x15_freestyle_board() {
    assert_eq!((MIN_SIZE, DEFAULT_SIZE, MAX_SIZE), (5, 15, 25));
    let opts = GomokuOptions::default();
    assert_eq!((opts.size(), opts.rule()), (15, GomokuRule::Freestyle));
    assert_eq!(GomokuRule::default(), GomokuRule::Freestyle);
    assert_eq!(Gomoku::default(), Gomoku::new(opts));
}

#[test]
fn rules_round_trip_through_their_api_names_and_nothing_else_parses() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        assert_eq!(GomokuRule::parse(rule.as_str()), Some(rule));
        assert_eq!(rule.to_string(), rule.as_str());
    }
    assert_eq!(GomokuRule::Standard.as_str(), "standard");
    for bad in ["", "Freestyle", "renju", "standard "] {
        assert_eq!(GomokuRule::parse(bad), None);
    }
}

// ---------------------------------------------------------------- points --

#[test]
fn points_off_the_board_are_refused_with_out_of_bounds() {
    let game = Gomoku::new(options(15, GomokuRule::Freestyle));
    for (r, c) in [
        (-1, 0),
        (0, -1),
        (15, 0),
        (0, 15),
        (25, 25),
        (256, 0),
        (i64::MAX, 0),
        (0, i64::MIN),
    ] {
        assert_eq!(game.point(r, c), Err(Refusal::OutOfBounds), "({r}, {c})");
    }
    let p = game.point(14, 3).expect("on the board");
    assert_eq!((p.row(), p.col()), (14, 3));
    assert_eq!(Coord::from(p), Coord::new(14, 3));
}

#[test]
fn a_point_of_a_larger_board_is_refused_as_out_of_bounds_and_changes_nothing() {
    let big = Gomoku::new(options(25, GomokuRule::Freestyle));
    let mut small = Gomoku::new(options(15, GomokuRule::Freestyle));
    play(&mut small, 7, 7);
    for (r, c) in [(20, 3), (3, 20), (15, 15)] {
        let p = big.point(r, c).expect("on the big board");
        assert_eq!(small.check(p), Err(Refusal::OutOfBounds));
        assert_eq!(small.stone(p), None);
        let before = small.clone();
        assert_eq!(
            small.clone().play(p),
            Err(PlayError {
                refusal: Refusal::OutOfBounds,
                position: before.clone()
            })
        );
        assert_eq!(small.try_play(p), Err(Refusal::OutOfBounds));
        assert_eq!(small, before);
    }
}

// ------------------------------------------------------------------ wins --

/// Plays the last move at `(row, col)` on `art` and returns the position.
fn finish(rule: GomokuRule, art: &[&str], row: i64, col: i64) -> Gomoku {
    let (mut game, mut naive) = position(rule, art);
    play(&mut game, row, col);
    naive.place(row as usize, col as usize);
    assert_eq!(game.status(), naive.status(), "engine and oracle");
    assert_eq!(Gomoku::decode(&game.encode()), Ok(game.clone()));
    game
}

fn assert_won(game: &Gomoku, winner: Player, line: &[(u8, u8)]) {
    assert_eq!(
        game.status(),
        Status::Won {
            winner,
            line: coords(line)
        }
    );
    assert_eq!(game.winner(), Some(winner));
    assert!(game.is_over());
    assert!(game.legal_moves().is_empty());
    assert!(game.threats().is_empty());
}

#[test]
fn a_stone_dropped_into_the_middle_of_xx_xx_makes_five_under_both_rules() {
    let art = [
        "O.O......",
        ".........",
        ".........",
        ".........",
        "..XX.XX..",
        ".........",
        ".........",
        ".........",
        "O.O......",
    ];
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let game = finish(rule, &art, 4, 4);
        assert_won(&game, Player::X, &[(4, 2), (4, 3), (4, 4), (4, 5), (4, 6)]);
        assert_eq!(game.winning_line().len(), 5);
    }
}

#[test]
fn a_stone_in_the_middle_of_a_column_makes_five_for_o() {
    let art = [
        "X.X.X....",
        "....O....",
        "....O....",
        ".........",
        "....O....",
        "....O....",
        "X........",
        ".........",
        ".........",
    ];
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let (mut game, _) = position(rule, &art);
        play(&mut game, 8, 8); // X elsewhere
        play(&mut game, 3, 4);
        assert_won(&game, Player::O, &[(1, 4), (2, 4), (3, 4), (4, 4), (5, 4)]);
    }
}

#[test]
fn an_overline_does_not_win_under_standard_and_the_game_goes_on() {
    let art = [
        "O.O......",
        ".........",
        ".........",
        ".........",
        "XXX.XX...",
        ".........",
        ".........",
        ".........",
        "O.O.O....",
    ];
    let (before, _) = position(GomokuRule::Standard, &art);
    let gap = before.point(4, 3).expect("on the board");
    assert!(
        !before.threats().iter().any(|t| t.mv == gap),
        "an overline is no threat"
    );
    let game = finish(GomokuRule::Standard, &art, 4, 3);
    assert_eq!(game.winner(), None);
    assert!(!game.is_over());
    assert!(game.winning_line().is_empty());
    assert_eq!(game.status(), Status::InProgress { to_move: Player::O });
    assert_eq!(game.ply(), 11);
    let next = game
        .clone()
        .play(game.point(0, 8).expect("on board"))
        .expect("O may still move");
    assert_eq!(next.to_move(), Player::X);
}

#[test]
fn an_overline_wins_under_freestyle_with_the_whole_run_as_the_line() {
    let art = [
        "O.O......",
        ".........",
        ".........",
        ".........",
        "XXX.XX...",
        ".........",
        ".........",
        ".........",
        "O.O.O....",
    ];
    let (before, _) = position(GomokuRule::Freestyle, &art);
    let gap = before.point(4, 3).expect("on the board");
    assert!(before.threats().contains(&Threat {
        player: Player::X,
        mv: gap
    }));
    let game = finish(GomokuRule::Freestyle, &art, 4, 3);
    assert_won(
        &game,
        Player::X,
        &[(4, 0), (4, 1), (4, 2), (4, 3), (4, 4), (4, 5)],
    );
}

/// X at (4, 3) makes six along row 4 and exactly five down column 3.
const OVERLINE_AND_FIVE: [&str; 11] = [
    "...X.......",
    "...X.......",
    "...X.......",
    "...X.......",
    "XXX.XX.....",
    "...........",
    "...........",
    "...........",
    "O.O.O......",
    "...........",
    "O.O.O.O.O.O",
];

#[test]
fn an_overline_together_with_exactly_five_wins_under_standard_by_the_five() {
    let game = finish(GomokuRule::Standard, &OVERLINE_AND_FIVE, 4, 3);
    assert_won(&game, Player::X, &[(0, 3), (1, 3), (2, 3), (3, 3), (4, 3)]);
}

#[test]
fn a_move_completing_two_lines_lists_both_in_row_major_order_once() {
    let game = finish(GomokuRule::Freestyle, &OVERLINE_AND_FIVE, 4, 3);
    assert_won(
        &game,
        Player::X,
        &[
            (0, 3),
            (1, 3),
            (2, 3),
            (3, 3),
            (4, 0),
            (4, 1),
            (4, 2),
            (4, 3),
            (4, 4),
            (4, 5),
        ],
    );
}

#[test]
fn exactly_five_next_to_a_gap_and_an_own_stone_wins_under_standard() {
    let art = [
        "O.O....", ".......", ".XXX.X.", ".......", ".......", ".......", "O.....O",
    ];
    // X at (2, 4) joins 1..=3 and 5 into exactly five; (2, 0) would too, from the end.
    let game = finish(GomokuRule::Standard, &art, 2, 4);
    assert_won(&game, Player::X, &[(2, 1), (2, 2), (2, 3), (2, 4), (2, 5)]);
    let (before, _) = position(GomokuRule::Standard, &art);
    let listed: Vec<(u8, u8)> = before
        .threats()
        .iter()
        .map(|t| (t.mv.row(), t.mv.col()))
        .collect();
    assert_eq!(listed, [(2, 4)], "(2, 0) makes only four: 0..=3");
}

#[test]
fn the_down_right_diagonal_wins_through_a_middle_stone() {
    let art = [
        "O.....O..",
        ".X.......",
        "..X......",
        ".........",
        "....X....",
        ".....X...",
        ".........",
        ".........",
        "O.....O..",
    ];
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let game = finish(rule, &art, 3, 3);
        assert_won(&game, Player::X, &[(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]);
    }
}

#[test]
fn the_down_left_diagonal_from_corner_to_corner_of_a_5x5_board_wins() {
    let art = ["O...X", "...X.", "..X..", ".X...", "..OOO"];
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let game = finish(rule, &art, 4, 0);
        assert_won(&game, Player::X, &[(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)]);
    }
}

#[test]
fn the_bottom_row_and_right_column_of_a_5x5_board_win() {
    let bottom = ["O.O.O", ".....", "O....", ".....", "XXXX."];
    let game = finish(GomokuRule::Standard, &bottom, 4, 4);
    assert_won(&game, Player::X, &[(4, 0), (4, 1), (4, 2), (4, 3), (4, 4)]);
    let right = ["O.O.X", "....X", "O...X", "....X", "O...."];
    let game = finish(GomokuRule::Freestyle, &right, 4, 4);
    assert_won(&game, Player::X, &[(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]);
}

#[test]
fn a_long_diagonal_wins_at_the_corner_of_a_25x25_board() {
    let mut game = Gomoku::new(options(25, GomokuRule::Standard));
    for k in 0..4 {
        play(&mut game, 20 + k, 20 + k);
        play(&mut game, k, 24 - k - 1);
    }
    play(&mut game, 24, 24);
    assert_won(
        &game,
        Player::X,
        &[(20, 20), (21, 21), (22, 22), (23, 23), (24, 24)],
    );
}

// ------------------------------------------------------------- refusals --

#[test]
fn an_occupied_intersection_is_refused_with_occupied_and_nothing_changes() {
    let mut game = Gomoku::new(options(9, GomokuRule::Freestyle));
    play(&mut game, 4, 4);
    let p = game.point(4, 4).expect("on the board");
    let before = game.clone();
    assert_eq!(game.check(p), Err(Refusal::Occupied));
    assert_eq!(
        game.clone().play(p),
        Err(PlayError {
            refusal: Refusal::Occupied,
            position: before.clone()
        })
    );
    assert_eq!(game.try_play(p), Err(Refusal::Occupied));
    assert_eq!(game, before);
    assert_eq!(game.stone(p), Some(Player::X));
    assert_eq!(game.last_move(), Some(p));
}

#[test]
fn every_move_after_a_win_is_refused_with_game_over_before_any_other_reason() {
    let art = ["XX.XO", "OOOO.", "X....", ".....", "X...."];
    let (mut game, _) = position(GomokuRule::Freestyle, &art);
    play(&mut game, 2, 2); // X somewhere harmless
    play(&mut game, 1, 4);
    assert_won(&game, Player::O, &[(1, 0), (1, 1), (1, 2), (1, 3), (1, 4)]);
    let before = game.clone();
    let foreign = Gomoku::new(options(25, GomokuRule::Freestyle))
        .point(20, 20)
        .expect("big");
    for p in [
        game.point(4, 4).expect("empty"),
        game.point(0, 0).expect("taken"),
        foreign,
    ] {
        assert_eq!(game.check(p), Err(Refusal::GameOver));
        assert_eq!(game.try_play(p), Err(Refusal::GameOver));
        assert_eq!(game, before);
    }
}

/// A filling of the 5x5 board with no five for anyone (13 X, 12 O).
const FULL_5X5: [&str; 5] = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOOX"];

#[test]
fn a_full_5x5_board_without_five_is_a_draw_under_both_rules() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        let mut art = FULL_5X5.map(String::from);
        art[4].replace_range(4..5, "."); // X's last stone, played below
        let art: Vec<&str> = art.iter().map(String::as_str).collect();
        let game = finish(rule, &art, 4, 4);
        assert_eq!(game.status(), Status::Draw);
        assert_eq!(game.ply(), 25);
        assert_eq!(game.winner(), None);
        assert!(game.winning_line().is_empty());
        assert!(game.legal_moves().is_empty());
        assert!(game.threats().is_empty());
        let p = game.point(0, 0).expect("on the board");
        assert_eq!(game.check(p), Err(Refusal::GameOver));
        let back = Gomoku::decode(&game.encode()).expect("valid");
        assert_eq!(back.status(), Status::Draw);
    }
}

// --------------------------------------------------------------- threats --

#[test]
fn threats_list_the_side_to_moves_wins_first_then_the_opponents() {
    let art = [
        ".XXXX....",
        ".........",
        "........O",
        "........O",
        "........O",
        "........O",
        ".........",
        ".........",
        ".........",
    ];
    let (mut game, _) = position(GomokuRule::Freestyle, &art);
    let threat = |player, r, c| Threat {
        player,
        mv: game.point(r, c).expect("on board"),
    };
    let x_first = vec![
        threat(Player::X, 0, 0),
        threat(Player::X, 0, 5),
        threat(Player::O, 1, 8),
        threat(Player::O, 6, 8),
    ];
    assert_eq!(game.threats(), x_first);
    play(&mut game, 8, 0);
    let o_first = vec![x_first[2], x_first[3], x_first[0], x_first[1]];
    assert_eq!(game.threats(), o_first);
    // The bot-facing bitboards say the same.
    assert_eq!(game.winning_cells(Player::X)[0], 0b10_0001);
    assert_eq!(game.winning_cells(Player::O)[1], 1 << 8);
}

// ------------------------------------------------------------- snapshots --

/// Snapshot bytes in the documented layout: size, rule, last move (255, 255
/// for none), then X's rows and O's rows, `ceil(size / 8)` little-endian bytes
/// each.
fn snapshot(size: u8, rule: u8, last: (u8, u8), cells: &[Option<Player>]) -> Vec<u8> {
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

fn cells_of(art: &[&str]) -> Vec<Option<Player>> {
    art.iter()
        .flat_map(|line| line.chars())
        .map(|ch| match ch {
            'X' => Some(Player::X),
            'O' => Some(Player::O),
            _ => None,
        })
        .collect()
}

fn decode_art(rule: u8, last: (u8, u8), art: &[&str]) -> Result<Gomoku, DecodeError> {
    Gomoku::decode(&snapshot(art.len() as u8, rule, last, &cells_of(art)))
}

#[test]
fn snapshots_follow_the_documented_layout() {
    let (game, _) = position(GomokuRule::Standard, &OVERLINES_7X7);
    let last = game.last_move().expect("stones");
    let art: Vec<&str> = OVERLINES_7X7.to_vec();
    assert_eq!(
        game.encode(),
        snapshot(7, 1, (last.row(), last.col()), &cells_of(&art))
    );
    let empty = Gomoku::new(options(25, GomokuRule::Freestyle));
    assert_eq!(empty.encode(), snapshot(25, 0, (255, 255), &[]));
    assert_eq!(empty.encode().len(), 4 + 2 * 25 * 4);
}

#[test]
fn a_finished_game_decodes_with_its_winner_and_line() {
    let won = finish(GomokuRule::Freestyle, &OVERLINE_AND_FIVE, 4, 3);
    let back = Gomoku::decode(&won.encode()).expect("valid");
    assert_eq!(back, won);
    assert_eq!(back.status(), won.status());
    let five = finish(GomokuRule::Standard, &OVERLINE_AND_FIVE, 4, 3);
    assert_eq!(
        Gomoku::decode(&five.encode())
            .expect("valid")
            .winning_line()
            .len(),
        5
    );
}

#[test]
fn a_standard_overline_decodes_as_a_game_in_progress() {
    let art = [
        "XXXXXX.", "OOO.OO.", ".......", ".......", ".......", ".......", ".......",
    ];
    let game = decode_art(1, (0, 2), &art).expect("X's (0, 2) joined 2 + 3 into six");
    assert_eq!(game.status(), Status::InProgress { to_move: Player::O });
    assert_eq!(
        decode_art(0, (0, 2), &art).expect("valid").winner(),
        Some(Player::X)
    );
}

#[test]
fn snapshots_that_do_not_describe_a_position_are_refused() {
    let empty: [&str; 5] = ["....."; 5];
    let none = (255, 255);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("no bytes", vec![]),
        ("header only", vec![5, 0, 255]),
        ("size 4", snapshot(4, 0, none, &[])),
        ("size 26", snapshot(26, 0, none, &[])),
        ("size 0", snapshot(0, 0, none, &[])),
        ("rule 2", snapshot(5, 2, none, &[])),
        (
            "a byte too many",
            [snapshot(5, 0, none, &[]), vec![0]].concat(),
        ),
        ("a byte too few", snapshot(5, 0, none, &[])[..13].to_vec()),
        ("half a last move", snapshot(5, 0, (255, 0), &[])),
        ("a last move on an empty board", snapshot(5, 0, (0, 0), &[])),
        ("a stone beyond the last column", {
            let mut b = snapshot(
                5,
                0,
                (0, 0),
                &cells_of(&["X....", "O....", ".....", ".....", "X...."]),
            );
            b[4 + 4] = 0; // X's (4, 0) ...
            b[4] |= 1 << 5; // ... moved to (0, 5)
            b
        }),
        ("X and O on one cell", {
            let mut b = snapshot(
                5,
                0,
                (2, 2),
                &cells_of(&["X....", ".....", "..X..", ".....", "....."]),
            );
            b[4 + 5] = 1; // O's row 0 also has (0, 0)
            b
        }),
        ("a stone beyond the last column of a 9x9 board", {
            let mut b = snapshot(
                9,
                0,
                (0, 0),
                &cells_of(&[".........", "O........", "X........"]),
            );
            b[4 + 4] = 0; // X's (2, 0) ...
            b[5] = 0b10; // ... moved to bit 9 of row 0
            b[4] = 1; // with (0, 0) kept
            b
        }),
    ];
    for (what, bytes) in cases {
        assert!(Gomoku::decode(&bytes).is_err(), "{what}");
    }
    let art_cases = [
        (
            "two X, no O",
            0,
            (0, 1),
            ["XX...", ".....", ".....", ".....", "....."],
        ),
        (
            "more O than X",
            0,
            (1, 0),
            ["O....", "O....", ".....", ".....", "X...."],
        ),
        (
            "stones but no last move",
            0,
            none,
            ["X....", ".....", ".....", ".....", "....."],
        ),
        (
            "last move on an empty cell",
            0,
            (4, 4),
            ["X....", ".....", ".....", ".....", "....."],
        ),
        (
            "last move on the wrong player's stone",
            0,
            (1, 0),
            ["X....", "O....", "X....", ".....", "....."],
        ),
        (
            "last move off the board",
            0,
            (5, 0),
            ["X....", ".....", ".....", ".....", "....."],
        ),
        (
            "a five not through the last move",
            0,
            (4, 4),
            ["XXXXX", "OOOO.", "O....", ".....", "....X"],
        ),
        (
            "fives for both players",
            0,
            (1, 4),
            ["XXXXX", "OOOOO", ".....", ".....", "....."],
        ),
        (
            "a five for the player who did not move last",
            0,
            (2, 0),
            ["OOOOO", "XXXX.", "X....", ".....", "....X"],
        ),
        (
            "a five that was already there",
            1,
            (4, 0),
            ["XXXXX", "OOOO.", "O....", ".....", "X...."],
        ),
        (
            "nothing wrong",
            0,
            (4, 4),
            ["XX...", "OO...", ".....", ".....", "....X"],
        ),
    ];
    for (what, rule, last, art) in art_cases {
        let result = decode_art(rule, last, &art);
        assert_eq!(
            result.is_ok(),
            what == "nothing wrong",
            "{what}: {result:?}"
        );
    }
    assert!(decode_art(0, none, &empty).is_ok());
    // The message says what is wrong.
    let err =
        decode_art(0, (4, 4), &["XXXXX", "OOOO.", "O....", ".....", "....X"]).expect_err("invalid");
    assert!(err.to_string().starts_with("invalid snapshot: "), "{err}");
}

#[test]
fn a_run_that_was_already_winning_before_the_last_move_is_refused() {
    // Freestyle: seven with the last stone at an end means six stood before.
    let seven = [
        "XXXXXXX", "OOO.OOO", ".......", ".......", ".......", ".......", ".......",
    ];
    assert!(decode_art(0, (0, 0), &seven).is_err());
    // ... but with the last stone joining three and three it is a win.
    assert_eq!(
        decode_art(0, (0, 3), &seven).expect("valid").winner(),
        Some(Player::X)
    );
    // Standard: six with the last stone at an end means exactly five stood before.
    let six = [
        "XXXXXX.", "OOO.OO.", ".......", ".......", ".......", ".......", ".......",
    ];
    assert!(decode_art(1, (0, 0), &six).is_err());
    assert_eq!(decode_art(1, (0, 1), &six).expect("valid").winner(), None);
}

// ------------------------------------------------------------ properties --

/// Everything the engine says about `game` agrees with the oracle's `naive`.
/// With `full`, also every move's check, the legal moves and the threats.
fn agree(game: &Gomoku, naive: &mut Naive, full: bool) {
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
struct Area {
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
fn pick(naive: &Naive, area: Area, (kind, a, b): (u8, u8, u8)) -> (u8, u8) {
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
fn random_game(
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
fn oracle_game(size: u8, rule: GomokuRule, area: Area, choices: &[(u8, u8, u8)]) -> Naive {
    let mut naive = Naive::new(usize::from(size), rule);
    for &choice in choices {
        let (r, c) = pick(&naive, area, choice);
        if naive.expected_check(usize::from(r), usize::from(c)).is_ok() {
            naive.place(usize::from(r), usize::from(c));
        }
    }
    naive
}

fn rule() -> impl Strategy<Value = GomokuRule> {
    prop_oneof![Just(GomokuRule::Freestyle), Just(GomokuRule::Standard)]
}

/// A snapshot's parts: a random oracle game's final board (often won),
/// sometimes spoilt by a few random edits of cells, rule or last move.
fn board() -> impl Strategy<Value = (u8, u8, (u8, u8), Vec<Option<Player>>)> {
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
fn oracle_decode(size: u8, rule: u8, last: (u8, u8), cells: &[Option<Player>]) -> Option<Naive> {
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
