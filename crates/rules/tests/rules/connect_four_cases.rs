//! Connect Four's hand-made edge cases: refusals, draws, wins in every
//! direction, threats, the bitboards' layout and keys (the oracle and the
//! checks made against it: `connect_four.rs`).

use std::collections::HashSet;
use tabula_rules::connect_four::{BOARD_MASK, BOTTOM_MASK, Column, ConnectFour};
use tabula_rules::{Coord, Game, Player, Refusal, Status, Threat};

use crate::connect_four::*;

/// A full board without four: X and O fill all 42 cells.
const DRAW: [u8; 42] = [
    4, 1, 6, 2, 1, 0, 1, 4, 4, 2, 4, 1, 3, 6, 3, 3, 1, 0, 4, 6, 6, 1, 2, 3, 6, 0, 6, 4, 2, 5, 5, 3,
    3, 2, 5, 5, 0, 2, 0, 5, 5, 0,
];

/// 41 discs without four, then O's 42nd disc makes four in column 5.
const LAST_DISC_WINS: [u8; 42] = [
    4, 1, 6, 2, 1, 0, 1, 4, 4, 2, 4, 1, 3, 6, 3, 3, 1, 0, 4, 6, 6, 1, 2, 3, 6, 0, 6, 4, 2, 5, 5, 3,
    3, 2, 0, 5, 0, 5, 0, 5, 2, 5,
];

#[test]
fn a_new_game_is_empty_with_x_to_move_and_every_column_open() {
    let game = ConnectFour::new();
    assert_eq!(game, ConnectFour::default());
    assert_eq!(game.ply(), 0);
    assert_eq!(game.status(), Status::InProgress { to_move: Player::X });
    assert_eq!(game.legal_moves(), Column::ALL.to_vec());
    assert_eq!(game.dims(), (6, 7));
    assert!(game.threats().is_empty());
    assert_agrees(&game, &Naive::new());
}

#[test]
fn columns_outside_zero_to_six_are_refused_as_out_of_bounds() {
    for bad in [-1, 7, 8, 100, i64::MAX, i64::MIN, -7, 256, 263] {
        assert_eq!(Column::new(bad), Err(Refusal::OutOfBounds), "column {bad}");
    }
    for good in 0..7 {
        assert_eq!(Column::new(good).map(Column::index), Ok(good as u8));
    }
}

#[test]
fn a_full_column_is_refused_with_column_full_and_the_position_kept() {
    let game = play_all(&[2, 2, 2, 2, 2, 2]);
    assert_eq!(game.height(col(2)), 6);
    assert!(!game.can_play(col(2)));
    assert_eq!(game.check(col(2)), Err(Refusal::ColumnFull));
    let err = game.clone().play(col(2)).unwrap_err();
    assert_eq!(err.refusal, Refusal::ColumnFull);
    assert_eq!(err.position, game);
    let mut tried = game.clone();
    assert_eq!(tried.try_play(col(2)), Err(Refusal::ColumnFull));
    assert_eq!(tried, game);
    assert!(!game.legal_moves().contains(&col(2)));
    assert_eq!(game.legal_moves().len(), 6);
    assert!(game.check(col(1)).is_ok());
}

#[test]
fn a_won_game_refuses_every_column_with_game_over() {
    let game = play_all(&[0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(game.winner(), Some(Player::X));
    assert!(game.is_over());
    for m in Column::ALL {
        assert_eq!(game.check(m), Err(Refusal::GameOver));
        assert_eq!(game.clone().play(m).unwrap_err().position, game);
    }
    assert!(game.legal_moves().is_empty());
    assert!(game.threats().is_empty());
    // O would move next, and the round trip keeps the winner.
    assert_eq!(game.to_move(), Player::O);
    assert_eq!(ConnectFour::decode(&game.encode()), Ok(game));
}

#[test]
fn a_full_board_without_four_is_a_draw_at_ply_42() {
    let mut game = ConnectFour::new();
    let mut naive = Naive::new();
    for (i, &c) in DRAW.iter().enumerate() {
        assert!(!game.is_over(), "over before move {i}");
        game.try_play(col(c.into())).expect("legal");
        naive.drop_disc(c.into());
        assert_eq!(
            naive.winner(),
            None,
            "the oracle sees a four after move {i}"
        );
        assert_agrees(&game, &naive);
    }
    assert_eq!(game.ply(), 42);
    assert_eq!(game.status(), Status::Draw);
    assert_eq!(game.winner(), None);
    assert!(game.winning_line().is_empty());
    assert!(game.legal_moves().is_empty());
    assert!(game.threats().is_empty());
    assert_eq!(game.check(col(0)), Err(Refusal::GameOver));
    assert_eq!(game.mask(), BOARD_MASK);
    assert_eq!(game.playable(), 0);
}

#[test]
fn four_made_by_the_42nd_disc_is_a_win_not_a_draw() {
    let before = play_all(&LAST_DISC_WINS[..41]);
    assert!(!before.is_over());
    assert_eq!(before.legal_moves(), vec![col(5)]);
    assert_eq!(
        before.threats(),
        vec![Threat {
            player: Player::O,
            mv: col(5)
        }]
    );
    let game = play_all(&LAST_DISC_WINS);
    assert_eq!(game.ply(), 42);
    let line = coords(&[(0, 5), (1, 5), (2, 5), (3, 5)]);
    assert_eq!(
        game.status(),
        Status::Won {
            winner: Player::O,
            line: line.clone()
        }
    );
    assert_eq!(naive_play_all(&LAST_DISC_WINS).line(), line);
    assert_eq!(ConnectFour::decode(&game.encode()), Ok(game));
}

#[test]
fn four_stacked_in_a_column_wins_vertically() {
    let game = play_all(&[0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(
        game.status(),
        Status::Won {
            winner: Player::X,
            line: coords(&[(2, 0), (3, 0), (4, 0), (5, 0)]),
        }
    );
}

#[test]
fn four_along_the_bottom_row_wins_horizontally() {
    let game = play_all(&[0, 0, 1, 1, 2, 2, 3]);
    assert_eq!(game.winner(), Some(Player::X));
    assert_eq!(
        game.winning_line(),
        coords(&[(5, 0), (5, 1), (5, 2), (5, 3)])
    );
}

#[test]
fn four_rising_to_the_right_wins_on_the_diagonal() {
    let game = play_all(&[0, 1, 1, 2, 3, 2, 2, 3, 6, 3, 3]);
    assert_eq!(game.winner(), Some(Player::X));
    assert_eq!(
        game.winning_line(),
        coords(&[(2, 3), (3, 2), (4, 1), (5, 0)])
    );
}

#[test]
fn four_falling_to_the_right_wins_on_the_other_diagonal() {
    let game = play_all(&[6, 5, 5, 4, 3, 4, 4, 3, 0, 3, 3]);
    assert_eq!(game.winner(), Some(Player::X));
    assert_eq!(
        game.winning_line(),
        coords(&[(2, 3), (3, 4), (4, 5), (5, 6)])
    );
}

#[test]
fn a_drop_that_completes_two_lines_lists_both() {
    // O's last disc at (2, 3) tops a column of four and a falling diagonal.
    let moves = [4, 6, 6, 4, 5, 5, 2, 3, 1, 4, 1, 3, 2, 3, 4, 3];
    let before = play_all(&moves[..15]);
    assert!(!before.is_over());
    let game = play_all(&moves);
    let line = coords(&[(2, 3), (3, 3), (3, 4), (4, 3), (4, 5), (5, 3), (5, 6)]);
    assert_eq!(
        game.status(),
        Status::Won {
            winner: Player::O,
            line: line.clone()
        }
    );
    assert_eq!(naive_play_all(&moves).line(), line);
}

#[test]
fn a_run_of_seven_lists_all_seven_cells() {
    // X fills the bottom row 0, 1, 2 and 4, 5, 6, then closes the gap.
    let game = play_all(&[0, 0, 1, 1, 2, 2, 4, 4, 5, 5, 6, 6, 3]);
    assert_eq!(game.winner(), Some(Player::X));
    let line: Vec<Coord> = (0..7).map(|c| Coord::new(5, c)).collect();
    assert_eq!(game.winning_line(), line);
}

#[test]
fn a_disc_dropped_into_the_middle_of_a_gap_makes_five() {
    // X: bottom row 0, 1 and 3, 4; O stacks on top; X drops 2: five in a row.
    let game = play_all(&[0, 0, 1, 1, 3, 3, 4, 4, 2]);
    assert_eq!(game.winner(), Some(Player::X));
    let line: Vec<Coord> = (0..5).map(|c| Coord::new(5, c)).collect();
    assert_eq!(game.winning_line(), line);
}

#[test]
fn threats_list_the_movers_wins_first_then_the_opponents() {
    // X: bottom row 1, 2, 3 (open at 0 and 4); O: three stacked in column 6.
    let game = play_all(&[1, 6, 2, 6, 3, 6]);
    let t = |player, c| Threat { player, mv: col(c) };
    assert_eq!(
        game.threats(),
        vec![t(Player::X, 0), t(Player::X, 4), t(Player::O, 6)]
    );
    // After a quiet X move it is O's turn: O's win first, then X's.
    let game = play_all(&[1, 6, 2, 6, 3, 6, 5]);
    assert_eq!(
        game.threats(),
        vec![t(Player::O, 6), t(Player::X, 0), t(Player::X, 4)]
    );
    assert_eq!(
        naive_play_all(&[1, 6, 2, 6, 3, 6, 5]).threats(),
        vec![(Player::O, 6), (Player::X, 0), (Player::X, 4)]
    );
}

#[test]
fn a_winning_cell_above_the_landing_cell_is_not_a_threat() {
    // O has three on the second row; the cell that would make four, (col 3,
    // height 1), is not where a disc in column 3 lands.
    let game = play_all(&[0, 0, 1, 1, 2, 2]);
    let t = |player, c| Threat { player, mv: col(c) };
    assert_eq!(game.threats(), vec![t(Player::X, 3)]);
    let o_cell = 1u64 << (7 * 3 + 1);
    assert_eq!(game.winning_cells(Player::O), o_cell);
    assert_eq!(game.winning_cells(Player::X), 1 << (7 * 3));
    assert_eq!(game.playable() & o_cell, 0);
}

#[test]
fn the_bitboards_follow_the_documented_layout() {
    let game = play_all(&[3, 3, 0]);
    assert_eq!(game.discs(Player::X), 1 << 21 | 1);
    assert_eq!(game.discs(Player::O), 1 << 22);
    assert_eq!(game.mask(), 1 << 21 | 1 << 22 | 1);
    // O to move: (O's discs, mask).
    assert_eq!(game.bitboards(), (1 << 22, 1 << 21 | 1 << 22 | 1));
    assert_eq!(game.height(col(3)), 2);
    assert_eq!(game.height(col(0)), 1);
    assert_eq!(game.height(col(6)), 0);
    assert_eq!(
        game.playable(),
        (BOTTOM_MASK & !(1 << 21 | 1)) | 1 << 23 | 1 << 1
    );
    assert_eq!(game.cell_at(5, 3), Some(Player::X));
    assert_eq!(game.cell_at(4, 3), Some(Player::O));
    assert_eq!(game.cell_at(5, 0), Some(Player::X));
    assert_eq!(game.cell_at(3, 3), None);
    assert_eq!(BOTTOM_MASK.count_ones(), 7);
    assert_eq!(BOARD_MASK.count_ones(), 42);
    assert_eq!(
        BOARD_MASK & (BOTTOM_MASK << 6),
        0,
        "sentinel row is off the board"
    );
}

#[test]
fn keys_tell_apart_every_position_to_depth_five() {
    fn walk(
        game: &ConnectFour,
        depth: u32,
        seen: &mut HashSet<u64>,
        boards: &mut HashSet<Vec<u8>>,
    ) {
        let key = game.key();
        assert!(key < 1 << 49);
        assert_eq!(seen.insert(key), boards.insert(game.encode()), "key clash");
        if depth > 0 {
            for m in game.legal_moves() {
                walk(&game.clone().play(m).unwrap(), depth - 1, seen, boards);
            }
        }
    }
    let (mut seen, mut boards) = (HashSet::new(), HashSet::new());
    walk(&ConnectFour::new(), 5, &mut seen, &mut boards);
    assert_eq!(seen.len(), boards.len());
}

#[test]
fn an_unchecked_drop_into_a_full_column_changes_nothing() {
    let mut game = play_all(&[2, 2, 2, 2, 2, 2]);
    let before = game.clone();
    game.play_unchecked(col(2));
    assert_eq!(game, before);
}

/* ---------------------------- snapshots ---------------------------------- */
