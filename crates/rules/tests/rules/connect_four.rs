//! Connect Four: perft and random play against a naive oracle (plain arrays,
//! full-board scans) and snapshot validation (the hand-made edge cases:
//! `connect_four_cases.rs`).

use std::collections::HashSet;

use proptest::prelude::*;
use tabula_rules::connect_four::{COLUMNS, Column, ConnectFour, ROWS};
use tabula_rules::{Coord, Game, Player, Refusal, Status};

pub(crate) const R: usize = 6;
pub(crate) const C: usize = 7;

/// Row 0 at the top, as in the API.
pub(crate) type Grid = [[Option<Player>; C]; R];

/// The four line directions as (row step, column step).
pub(crate) const DIRS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/* ------------------------------------------------------------------------ */
/* The naive oracle                                                          */
/* ------------------------------------------------------------------------ */

/// A deliberately simple Connect Four: a grid of cells, full scans for fours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Naive {
    grid: Grid,
    ply: u32,
}

impl Naive {
    pub(crate) fn new() -> Self {
        Naive {
            grid: [[None; C]; R],
            ply: 0,
        }
    }

    fn to_move(&self) -> Player {
        if self.ply.is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }

    /// The row a disc dropped into `col` lands on, if the column has room.
    fn landing_row(&self, col: usize) -> Option<usize> {
        (0..R).rev().find(|&r| self.grid[r][col].is_none())
    }

    fn at(grid: &Grid, r: isize, c: isize) -> Option<Player> {
        if (0..R as isize).contains(&r) && (0..C as isize).contains(&c) {
            grid[r as usize][c as usize]
        } else {
            None
        }
    }

    /// Every window of four cells of one player, scanning the whole grid.
    fn fours(grid: &Grid) -> Vec<(Player, [Coord; 4])> {
        let mut out = Vec::new();
        for r in 0..R as isize {
            for c in 0..C as isize {
                let Some(p) = Self::at(grid, r, c) else {
                    continue;
                };
                for (dr, dc) in DIRS {
                    if (1..4).all(|k| Self::at(grid, r + k * dr, c + k * dc) == Some(p)) {
                        let cell = |k: isize| Coord::new((r + k * dr) as u8, (c + k * dc) as u8);
                        out.push((p, [cell(0), cell(1), cell(2), cell(3)]));
                    }
                }
            }
        }
        out
    }

    /// Whether `p` has four in a row anywhere (full scan, no allocation).
    fn has_four(grid: &Grid, p: Player) -> bool {
        let p = Some(p);
        for r in 0..R {
            for c in 0..C {
                if grid[r][c] != p {
                    continue;
                }
                let right = c + 3 < C;
                let down = r + 3 < R;
                let left = c >= 3;
                if right && (1..4).all(|k| grid[r][c + k] == p)
                    || down && (1..4).all(|k| grid[r + k][c] == p)
                    || down && right && (1..4).all(|k| grid[r + k][c + k] == p)
                    || down && left && (1..4).all(|k| grid[r + k][c - k] == p)
                {
                    return true;
                }
            }
        }
        false
    }

    pub(crate) fn winner(&self) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|&p| Self::has_four(&self.grid, p))
    }

    fn full(&self) -> bool {
        self.grid[0].iter().all(Option::is_some)
    }

    fn over(&self) -> bool {
        self.full() || self.winner().is_some()
    }

    /// Why the wire input `column` is refused, in the order the service
    /// checks: range first (when the move is built), then the position.
    fn refusal(&self, column: i64) -> Option<Refusal> {
        if !(0..C as i64).contains(&column) {
            Some(Refusal::OutOfBounds)
        } else if self.over() {
            Some(Refusal::GameOver)
        } else if self.landing_row(column as usize).is_none() {
            Some(Refusal::ColumnFull)
        } else {
            None
        }
    }

    pub(crate) fn drop_disc(&mut self, col: usize) {
        let r = self.landing_row(col).expect("oracle: column has room");
        self.grid[r][col] = Some(self.to_move());
        self.ply += 1;
    }

    fn legal(&self) -> Vec<usize> {
        (0..C)
            .filter(|&c| self.refusal(c as i64).is_none())
            .collect()
    }

    /// Every cell of every four, row-major, no duplicates.
    pub(crate) fn line(&self) -> Vec<Coord> {
        let mut cells: Vec<Coord> = Self::fours(&self.grid)
            .into_iter()
            .flat_map(|(_, cells)| cells)
            .collect();
        cells.sort();
        cells.dedup();
        cells
    }

    pub(crate) fn status(&self) -> Status {
        match self.winner() {
            Some(winner) => Status::Won {
                winner,
                line: self.line(),
            },
            None if self.full() => Status::Draw,
            None => Status::InProgress {
                to_move: self.to_move(),
            },
        }
    }

    /// rules.md "Threats", by trying every column for both players.
    pub(crate) fn threats(&self) -> Vec<(Player, usize)> {
        if self.over() {
            return Vec::new();
        }
        let me = self.to_move();
        let mut out = Vec::new();
        for p in [me, me.other()] {
            for col in 0..C {
                if let Some(r) = self.landing_row(col) {
                    let mut grid = self.grid;
                    grid[r][col] = Some(p);
                    if Self::has_four(&grid, p) {
                        out.push((p, col));
                    }
                }
            }
        }
        out
    }

    /// Adds to `counts[d]` the sequences of exactly `d` moves from the
    /// empty board that pass through this position (reached after `ply`
    /// moves), for every `d` up to `counts.len() - 1`. A finished position has
    /// no children; children at the last depth are counted, not played.
    fn perft(&self, counts: &mut [u64]) {
        let ply = self.ply as usize;
        counts[ply] += 1;
        let last = counts.len() - 1;
        // In play only the player who moved last can have four.
        let mover = self.to_move().other();
        if ply == last || self.full() || Self::has_four(&self.grid, mover) {
            return;
        }
        let open = (0..C).filter(|&c| self.grid[0][c].is_none());
        if ply + 1 == last {
            counts[last] += open.count() as u64;
            return;
        }
        for c in open {
            let mut child = self.clone();
            child.drop_disc(c);
            child.perft(counts);
        }
    }
}

/// Some order of play that builds `target` (X first, nobody having four
/// before the last disc), found with the oracle by taking discs back from the
/// top, the last mover's first, so that every earlier position is unfinished;
/// then checked by playing it forwards.
pub(crate) fn naive_order(target: &Grid) -> Option<Vec<usize>> {
    fn back(n: &Naive, seq: &mut Vec<usize>, dead: &mut HashSet<Grid>) -> bool {
        if n.ply == 0 {
            return true;
        }
        if dead.contains(&n.grid) {
            return false;
        }
        let mover = Player::at_ply(n.ply - 1);
        for col in 0..C {
            let Some(r) = (0..R).find(|&r| n.grid[r][col].is_some()) else {
                continue;
            };
            if n.grid[r][col] != Some(mover) {
                continue;
            }
            let mut before = n.clone();
            before.grid[r][col] = None;
            before.ply -= 1;
            if before.over() {
                continue;
            }
            seq.push(col);
            if back(&before, seq, dead) {
                return true;
            }
            seq.pop();
        }
        dead.insert(n.grid);
        false
    }
    let count = |p| target.iter().flatten().filter(|&&c| c == Some(p)).count();
    let (xs, os) = (count(Player::X), count(Player::O));
    if xs != os && xs != os + 1 {
        return None;
    }
    let start = Naive {
        grid: *target,
        ply: (xs + os) as u32,
    };
    let mut seq = Vec::new();
    if !back(&start, &mut seq, &mut HashSet::new()) {
        return None;
    }
    seq.reverse();
    // Forwards: legal at every step, and exactly the target at the end (a
    // floating disc in the target fails here).
    let mut n = Naive::new();
    for &c in &seq {
        if n.refusal(c as i64).is_some() {
            return None;
        }
        n.drop_disc(c);
    }
    (n.grid == *target).then_some(seq)
}

/// Snapshot bytes of a grid, in the documented layout: bit `7 * col + height`
/// (height from the bottom), X's `u64` then O's, little-endian.
pub(crate) fn snapshot_of(grid: &Grid) -> Vec<u8> {
    let mut boards = [0u64; 2];
    for (r, row) in grid.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if let Some(p) = cell {
                boards[p.index()] |= 1 << (7 * c + (R - 1 - r));
            }
        }
    }
    boards.iter().flat_map(|b| b.to_le_bytes()).collect()
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

pub(crate) fn col(i: i64) -> Column {
    Column::new(i).expect("column in range")
}

/// Plays `cols` from the empty board, checking each move.
pub(crate) fn play_all(cols: &[u8]) -> ConnectFour {
    let mut game = ConnectFour::new();
    for (i, &c) in cols.iter().enumerate() {
        if let Err(r) = game.try_play(col(c.into())) {
            panic!("move {i} (column {c}) refused: {r:?}");
        }
    }
    game
}

pub(crate) fn naive_play_all(cols: &[u8]) -> Naive {
    let mut n = Naive::new();
    for &c in cols {
        n.drop_disc(c.into());
    }
    n
}

pub(crate) fn coords(cells: &[(u8, u8)]) -> Vec<Coord> {
    cells.iter().map(|&(r, c)| Coord::new(r, c)).collect()
}

pub(crate) fn grid_of(game: &ConnectFour) -> Grid {
    let mut grid = [[None; C]; R];
    for (r, row) in grid.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = game.cell_at(r as u8, c as u8);
        }
    }
    grid
}

/// Everything observable about `game` agrees with the oracle.
pub(crate) fn assert_agrees(game: &ConnectFour, naive: &Naive) {
    assert_eq!(grid_of(game), naive.grid, "cells");
    assert_eq!(game.ply(), naive.ply, "ply");
    assert_eq!(game.to_move(), naive.to_move(), "to_move");
    assert_eq!(game.winner(), naive.winner(), "winner");
    assert_eq!(game.is_over(), naive.over(), "is_over");
    assert_eq!(game.status(), naive.status(), "status");
    let line = if naive.winner().is_some() {
        naive.line()
    } else {
        Vec::new()
    };
    assert_eq!(game.winning_line(), line, "winning_line");
    assert_eq!(game.dims(), (ROWS, COLUMNS));
    assert_eq!(game.cell_at(ROWS, 0), None);
    assert_eq!(game.cell_at(0, COLUMNS), None);
    assert_eq!(game.cell_at(u8::MAX, u8::MAX), None);

    let legal: Vec<u8> = game.legal_moves().iter().map(|m| m.index()).collect();
    let expected: Vec<u8> = naive.legal().iter().map(|&c| c as u8).collect();
    assert_eq!(legal, expected, "legal moves");
    let mut reused = vec![col(3); 9];
    game.legal_moves_into(&mut reused);
    assert_eq!(reused, game.legal_moves(), "legal_moves_into clears");

    for column in -2..=8i64 {
        let got = Column::new(column).and_then(|m| game.check(m)).err();
        assert_eq!(got, naive.refusal(column), "refusal of column {column}");
    }

    let threats: Vec<(Player, usize)> = game
        .threats()
        .into_iter()
        .map(|t| (t.player, usize::from(t.mv.index())))
        .collect();
    assert_eq!(threats, naive.threats(), "threats");

    // Accessors: heights, room, and the bitboards in the documented layout.
    for c in Column::ALL {
        let ci = usize::from(c.index());
        let height = (0..R).filter(|&r| naive.grid[r][ci].is_some()).count();
        assert_eq!(usize::from(game.height(c)), height, "height of {ci}");
        assert_eq!(game.can_play(c), height < R, "can_play {ci}");
    }
    let bytes = snapshot_of(&naive.grid);
    let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap());
    assert_eq!(game.discs(Player::X), word(0));
    assert_eq!(game.discs(Player::O), word(1));
    assert_eq!(game.mask(), word(0) | word(1));
    assert_eq!(
        game.bitboards(),
        (word(naive.to_move().index()), word(0) | word(1))
    );

    assert_eq!(game.encode(), bytes, "snapshot layout");
    assert_eq!(
        ConnectFour::decode(&game.encode()).as_ref(),
        Ok(game),
        "round trip"
    );
}

/* ------------------------------------------------------------------------ */
/* Perft                                                                     */
/* ------------------------------------------------------------------------ */

/// The engine's side of [`Naive::perft`]: `counts[d]` gets the sequences of
/// exactly `d` moves through `game`; `moves[ply]` is a reused buffer.
pub(crate) fn perft(game: &ConnectFour, counts: &mut [u64], moves: &mut [Vec<Column>]) {
    let ply = game.ply() as usize;
    counts[ply] += 1;
    let last = counts.len() - 1;
    if ply == last {
        return;
    }
    let mut mine = std::mem::take(&mut moves[ply]);
    game.legal_moves_into(&mut mine);
    if ply + 1 == last {
        counts[last] += mine.len() as u64;
    } else {
        for &m in &mine {
            let mut child = game.clone();
            child.play_unchecked(m);
            perft(&child, counts, moves);
        }
    }
    moves[ply] = mine;
}

/// Sequences of exactly `d` moves from the empty board, for `d` in `0..=depth`.
pub(crate) fn engine_perft(depth: usize) -> Vec<u64> {
    let mut counts = vec![0; depth + 1];
    let mut moves = vec![Vec::new(); depth + 1];
    perft(&ConnectFour::new(), &mut counts, &mut moves);
    counts
}

/// The oracle's counts, the seven first moves walked on their own threads.
pub(crate) fn naive_perft(depth: usize) -> Vec<u64> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..C)
            .map(|c| {
                s.spawn(move || {
                    let mut counts = vec![0; depth + 1];
                    let mut n = Naive::new();
                    n.drop_disc(c);
                    n.perft(&mut counts);
                    counts
                })
            })
            .collect();
        let mut total = vec![0; depth + 1];
        total[0] = 1;
        for h in handles {
            for (t, n) in total
                .iter_mut()
                .zip(h.join().expect("oracle thread"))
                .skip(1)
            {
                *t += n;
            }
        }
        total
    })
}

#[test]
fn perft_matches_the_naive_oracle_to_depth_eight() {
    let naive = naive_perft(8);
    // No column fills before 6 discs and no four exists before ply 7, so
    // the oracle must count every sequence up to depth 6; at depth 7 the 7
    // sequences that fill one column leave 6 moves instead of 7.
    assert_eq!(
        naive[..8],
        [1, 7, 49, 343, 2401, 16_807, 117_649, 823_543 - 7]
    );
    // Depth 8 is the first where finished games (a four at ply 7) prune the
    // tree; the published Connect Four perft(8) as an outside cross-check.
    assert_eq!(naive[8], 5_673_234);
    assert_eq!(engine_perft(8), naive);
}

/* ------------------------------------------------------------------------ */
/* Properties                                                                */
/* ------------------------------------------------------------------------ */

/// Wire columns, mostly in range, sometimes not.
pub(crate) fn inputs() -> impl Strategy<Value = Vec<i64>> {
    let column = prop_oneof![
        8 => 0i64..7,
        1 => prop_oneof![Just(-1i64), Just(7), Just(i64::MIN), Just(i64::MAX), -100i64..100],
    ];
    prop::collection::vec(column, 0..70)
}

/// A board of random heights (up to `max_height`) and colours in the first
/// `columns` columns (mostly unreachable).
pub(crate) fn random_grid(columns: usize, max_height: usize) -> impl Strategy<Value = Grid> {
    (
        prop::collection::vec(0..=max_height, columns),
        prop::collection::vec(any::<bool>(), R * C),
    )
        .prop_map(|(heights, colours)| {
            let mut grid = [[None; C]; R];
            for (c, &h) in heights.iter().enumerate() {
                for k in 0..h {
                    let p = if colours[c * R + k] {
                        Player::X
                    } else {
                        Player::O
                    };
                    grid[R - 1 - k][c] = Some(p);
                }
            }
            grid
        })
}

/// A board from random play, then some X and O discs swapped (so the
/// counts stay right but the order of play may no longer exist).
pub(crate) fn shuffled_grid() -> impl Strategy<Value = Grid> {
    (
        prop::collection::vec(0usize..C, 0..45),
        prop::collection::vec((0..R * C, 0..R * C), 0..3),
    )
        .prop_map(|(cols, swaps)| {
            let mut n = Naive::new();
            for c in cols {
                if n.refusal(c as i64).is_none() {
                    n.drop_disc(c);
                }
            }
            let mut grid = n.grid;
            for (a, b) in swaps {
                let (ra, ca, rb, cb) = (a / C, a % C, b / C, b % C);
                if let (Some(pa), Some(pb)) = (grid[ra][ca], grid[rb][cb]) {
                    grid[ra][ca] = Some(pb);
                    grid[rb][cb] = Some(pa);
                }
            }
            grid
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_play_agrees_with_the_oracle_at_every_step(inputs in inputs()) {
        let mut game = ConnectFour::new();
        let mut naive = Naive::new();
        for input in inputs {
            assert_agrees(&game, &naive);
            for m in game.legal_moves() {
                prop_assert!(game.clone().play(m).is_ok(), "listed move {m:?} refused");
            }
            let expected = naive.refusal(input);
            match Column::new(input) {
                Err(refusal) => prop_assert_eq!(Some(refusal), expected),
                Ok(m) => match game.clone().play(m) {
                    Ok(next) => {
                        prop_assert_eq!(expected, None);
                        game = next;
                        naive.drop_disc(m.index().into());
                    }
                    Err(e) => {
                        prop_assert_eq!(Some(e.refusal), expected);
                        prop_assert_eq!(&e.position, &game);
                        let mut tried = game.clone();
                        prop_assert_eq!(tried.try_play(m), Err(e.refusal));
                        prop_assert_eq!(&tried, &game);
                    }
                },
            }
        }
        assert_agrees(&game, &naive);
    }

    #[test]
    fn decode_never_panics_and_accepts_only_canonical_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..20)
    ) {
        if let Ok(game) = ConnectFour::decode(&bytes) {
            prop_assert_eq!(game.encode(), bytes);
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn decode_accepts_exactly_the_boards_some_game_reaches(
        grid in prop_oneof![random_grid(7, 6), random_grid(3, 4), shuffled_grid()]
    ) {
        let decoded = ConnectFour::decode(&snapshot_of(&grid));
        match naive_order(&grid) {
            Some(order) => {
                let cols: Vec<u8> = order.iter().map(|&c| c as u8).collect();
                let played = play_all(&cols);
                prop_assert_eq!(decoded, Ok(played));
            }
            None => prop_assert!(decoded.is_err(), "unreachable board accepted: {grid:?}"),
        }
    }
}

pub(crate) fn snapshot(x: u64, o: u64) -> Vec<u8> {
    [x.to_le_bytes(), o.to_le_bytes()].concat()
}

#[test]
fn snapshots_of_the_wrong_length_are_refused() {
    let good = play_all(&[3, 4]).encode();
    assert_eq!(good.len(), 16);
    assert!(ConnectFour::decode(&good).is_ok());
    for len in [0, 1, 8, 15, 17, 32] {
        let mut bytes = good.clone();
        bytes.resize(len, 0);
        assert!(ConnectFour::decode(&bytes).is_err(), "length {len}");
    }
}

#[test]
fn snapshots_with_discs_off_the_board_are_refused() {
    // The sentinel bit above column 0, and a bit past the last column.
    assert!(ConnectFour::decode(&snapshot(0x3f | 1 << 6, 0)).is_err());
    assert!(ConnectFour::decode(&snapshot(1 << 49, 0)).is_err());
    assert!(ConnectFour::decode(&snapshot(1, 1 << 63)).is_err());
}

#[test]
fn snapshots_with_two_discs_in_one_cell_are_refused() {
    assert!(ConnectFour::decode(&snapshot(1, 1)).is_err());
}

#[test]
fn snapshots_with_a_floating_disc_are_refused() {
    // X at height 1 of column 0 with nothing below; O at the bottom of column 1.
    assert!(ConnectFour::decode(&snapshot(1 << 1, 1 << 7)).is_err());
}

#[test]
fn snapshots_whose_counts_do_not_match_the_turn_are_refused() {
    assert!(ConnectFour::decode(&snapshot(0, 1)).is_err(), "O first");
    assert!(
        ConnectFour::decode(&snapshot(1 | 1 << 7, 0)).is_err(),
        "two X, no O"
    );
}

#[test]
fn snapshots_with_two_winners_or_a_winner_out_of_turn_are_refused() {
    let x = 1 | 1 << 7 | 1 << 14 | 1 << 21;
    // X four on the bottom row, O four on the row above.
    assert!(ConnectFour::decode(&snapshot(x, x << 1)).is_err());
    // X four on the bottom row and three O discs on top: X moved last.
    let o = 1 << 1 | 1 << 8 | 1 << 15;
    assert!(ConnectFour::decode(&snapshot(x, o)).is_ok());
    // One more O disc: O moved last, yet X has the four.
    assert!(ConnectFour::decode(&snapshot(x, o | 1 << 42)).is_err());
}

#[test]
fn snapshots_with_discs_after_the_winning_move_are_refused() {
    // X's vertical four in column 0 is buried under an O disc: play went on.
    let game = play_all(&[0, 1, 0, 1, 0, 1, 0]);
    let x = game.discs(Player::X);
    let o = game.discs(Player::O);
    assert!(ConnectFour::decode(&snapshot(x | 1 << 28, o | 1 << 4)).is_err());
    // Two separate fours of X cannot both go through the last disc.
    let x = 0b1111 | 0b1111 << 14;
    let o = 0b111 << 7 | 0b111 << 21 | 1 << 28;
    assert!(ConnectFour::decode(&snapshot(x, o)).is_err());
}

#[test]
fn snapshots_that_no_order_of_play_builds_are_refused() {
    // Column 0: O at the bottom, X on top. X's first disc would be at the bottom.
    assert!(ConnectFour::decode(&snapshot(1 << 1, 1)).is_err());
    // Column 0: O, X; column 1: X. Reachable (X 1, O 0, X 0), though taking
    // back the X of column 1 first leads nowhere.
    let decoded = ConnectFour::decode(&snapshot(1 << 1 | 1 << 7, 1));
    assert_eq!(decoded, Ok(play_all(&[1, 0, 0])));
}

#[test]
fn a_decoded_snapshot_keeps_the_winner_and_line() {
    let game = play_all(&[0, 0, 1, 1, 2, 2, 4, 4, 5, 5, 6, 6, 3]);
    let back = ConnectFour::decode(&game.encode()).expect("valid");
    assert_eq!(back.winner(), Some(Player::X));
    assert_eq!(back.winning_line(), game.winning_line());
    assert_eq!(back, game);
}
