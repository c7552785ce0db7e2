//! Ultimate tic-tac-toe's hand-made games for the special rules (the oracle
//! and the checks made against it: `ultimate.rs`).

use tabula_rules::ultimate::{InnerStatus, Move, Ultimate};
use tabula_rules::{Coord, Game, Player, Refusal, Status};

use crate::ultimate::*;

// --------------------------------------------------------- hand-made games --

/// X fills board 4 in the pattern X O X / X O O / O X X without a line: first
/// X's five stones (O answering each with cell 4), then O's four (X
/// answering with cell 4), O's last stone being the centre, which sends X to
/// the now drawn board 4.
const BOARD_4_DRAWN: [(usize, usize); 18] = [
    (4, 0),
    (0, 4),
    (4, 2),
    (2, 4),
    (4, 3),
    (3, 4),
    (4, 7),
    (7, 4),
    (4, 8),
    (8, 8),
    (8, 4),
    (4, 1),
    (1, 4),
    (4, 5),
    (5, 4),
    (4, 6),
    (6, 4),
    (4, 4),
];

#[test]
fn sent_to_a_won_board_the_opponent_may_play_in_any_unfinished_board() {
    let game = play(&X_WINS_BOARD_0);
    assert_eq!(game.board_status(0), InnerStatus::Won(Player::X));
    assert_eq!(game.active_board(), None);
    assert_eq!(game.status(), Status::InProgress { to_move: Player::O });
    let legal = game.legal_moves();
    // 72 cells outside board 0, two of them taken by O.
    assert_eq!(legal.len(), 70);
    assert!(legal.iter().all(|m| m.board() != 0));
    for b in 1..9 {
        assert!(legal.iter().any(|m| m.board() == b), "board {b} playable");
    }
}

#[test]
fn an_empty_cell_of_a_won_board_is_refused_as_board_finished() {
    let game = play(&X_WINS_BOARD_0);
    for c in 3..9 {
        let err = game.clone().play(mv(0, c)).unwrap_err();
        assert_eq!(err.refusal, Refusal::BoardFinished);
        assert_eq!(err.position, game);
    }
    assert_eq!(Refusal::BoardFinished.reason(), "board_finished");
}

#[test]
fn a_move_outside_the_active_board_is_refused_as_wrong_board() {
    let game = play(&[(0, 1)]);
    assert_eq!(game.active_board(), Some(1));
    let err = game.clone().play(mv(2, 0)).unwrap_err();
    assert_eq!(err.refusal, Refusal::WrongBoard);
    assert_eq!(err.refusal.reason(), "wrong_board");
    assert_eq!(err.position, game);
    assert_eq!(
        game.legal_moves(),
        (0..9).map(|c| mv(1, c)).collect::<Vec<_>>()
    );
}

#[test]
fn wrong_board_is_reported_before_board_finished() {
    // X owns board 0; O then sends X to board 4. Board 0 is both finished
    // and not the active board: the active board comes first.
    let mut moves = X_WINS_BOARD_0.to_vec();
    moves.push((1, 4));
    let game = play(&moves);
    assert_eq!(game.active_board(), Some(4));
    assert_eq!(game.check(mv(0, 5)), Err(Refusal::WrongBoard));
    assert_eq!(game.check(mv(0, 0)), Err(Refusal::WrongBoard));
}

#[test]
fn a_taken_cell_in_the_active_board_is_refused_as_occupied() {
    let game = play(&[(4, 4)]);
    assert_eq!(game.active_board(), Some(4));
    let err = game.clone().play(mv(4, 4)).unwrap_err();
    assert_eq!(err.refusal, Refusal::Occupied);
    assert_eq!(err.position, game);
    assert!(game.check(mv(4, 0)).is_ok());
}

#[test]
fn numbers_outside_zero_to_eight_are_refused_as_out_of_bounds() {
    for (b, c) in [
        (-1, 0),
        (0, -1),
        (9, 0),
        (0, 9),
        (9, 9),
        (i64::MIN, 0),
        (0, i64::MAX),
        (256, 0),
    ] {
        assert_eq!(Move::new(b, c), Err(Refusal::OutOfBounds), "({b}, {c})");
    }
    assert_eq!(Move::new(8, 8).map(|m| (m.board(), m.cell())), Ok((8, 8)));
    assert_eq!(Move::new(0, 0).map(|m| (m.board(), m.cell())), Ok((0, 0)));
}

#[test]
fn sent_to_a_drawn_board_the_opponent_may_play_in_any_unfinished_board() {
    let game = play(&BOARD_4_DRAWN);
    assert_eq!(game.board_status(4), InnerStatus::Drawn);
    assert_eq!(game.to_move(), Player::X);
    assert_eq!(game.active_board(), None);
    let legal = game.legal_moves();
    // 72 cells outside board 4, nine of them taken.
    assert_eq!(legal.len(), 63);
    assert!(legal.iter().all(|m| m.board() != 4));
    // The drawn board belongs to nobody; every other board is still open.
    for b in (0..9).filter(|&b| b != 4) {
        assert_eq!(game.board_status(b), InnerStatus::Open, "board {b}");
    }
    // Its cells are all taken, but the board being finished is the reason.
    assert_eq!(game.check(mv(4, 0)), Err(Refusal::BoardFinished));
}

#[test]
fn three_won_boards_on_the_outer_diagonal_win_the_game() {
    let game = play(&X_WINS_THE_DIAGONAL);
    assert_eq!(
        game.status(),
        Status::Won {
            winner: Player::X,
            line: vec![Coord::new(0, 0), Coord::new(1, 1), Coord::new(2, 2)],
        }
    );
    assert_eq!(game.active_board(), None);
    assert!(game.legal_moves().is_empty());
    assert!(game.threats().is_empty());
    // Game over comes before every other reason.
    for (b, c) in [(0, 5), (8, 8), (3, 3), (2, 1)] {
        assert_eq!(game.check(mv(b, c)), Err(Refusal::GameOver), "({b}, {c})");
    }
}

#[test]
fn a_board_completing_two_outer_lines_lists_both() {
    // X wins boards 1, 2, 3 and 6 (no line yet), then board 0, which
    // completes the top row and the left column of the outer board at once.
    let moves = [
        // Board 1: middle row.
        (1, 3),
        (3, 1),
        (1, 4),
        (4, 1),
        (1, 5),
        // Board 2: middle row.
        (5, 2),
        (2, 3),
        (3, 2),
        (2, 4),
        (4, 2),
        (2, 5),
        // Board 3: bottom row.
        (5, 3),
        (3, 6),
        (6, 3),
        (3, 7),
        (7, 3),
        (3, 8),
        // Board 6: top row (O is free once, sent to won board 1).
        (8, 6),
        (6, 0),
        (0, 6),
        (6, 1),
        (7, 6),
        (6, 2),
        // Board 0: top row.
        (5, 0),
        (0, 0),
        (0, 3),
        (0, 1),
        (8, 0),
        (0, 2),
    ];
    let game = play(&moves);
    let expected: Vec<Coord> = [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)]
        .iter()
        .map(|&(r, c)| Coord::new(r, c))
        .collect();
    assert_eq!(
        game.status(),
        Status::Won {
            winner: Player::X,
            line: expected,
        }
    );
    assert_eq!(game.board_status(4), InnerStatus::Open);
}

#[test]
fn every_board_finished_without_an_outer_line_is_a_draw() {
    // Outer board at the end (D = drawn):  X X D / O O X / X O O.
    // Every row, column and diagonal mixes owners or holds the drawn board.
    // Found once by a seeded search for a short game with this property,
    // then frozen; the oracle checks every step.
    let moves = [
        (0, 4),
        (4, 0),
        (0, 1),
        (1, 6),
        (6, 4),
        (4, 1),
        (1, 4),
        (4, 2),
        (2, 8),
        (8, 6),
        (6, 2),
        (2, 4),
        (6, 6),
        (3, 0),
        (0, 7),
        (7, 5),
        (5, 8),
        (8, 4),
        (5, 2),
        (2, 6),
        (5, 5),
        (3, 2),
        (2, 3),
        (3, 1),
        (1, 8),
        (8, 2),
        (2, 2),
        (2, 5),
        (1, 0),
        (7, 2),
        (2, 1),
        (7, 8),
        (2, 7),
        (2, 0),
    ];
    let (game, naive) = replay(&moves);
    assert_eq!(naive.status(), Status::Draw);
    assert_eq!(game.status(), Status::Draw);
    assert!(game.winning_line().is_empty());
    let (x, o, d) = (
        InnerStatus::Won(Player::X),
        InnerStatus::Won(Player::O),
        InnerStatus::Drawn,
    );
    let outer: Vec<InnerStatus> = (0..9).map(|b| game.board_status(b)).collect();
    assert_eq!(outer, [x, x, d, o, o, x, x, o, o]);
    assert_eq!(game.active_board(), None);
    assert!(game.legal_moves().is_empty());
    assert!(game.threats().is_empty());
    assert_eq!(game.check(mv(4, 8)), Err(Refusal::GameOver));
    // The board was not full before the last move: the draw comes from the
    // last inner board finishing.
    let (before, _) = replay(&moves[..moves.len() - 1]);
    assert_eq!(before.board_status(2), InnerStatus::Open);
    assert_eq!(Ultimate::decode(&game.encode()), Ok(game));
}

#[test]
fn threats_of_the_other_player_ignore_the_active_board() {
    // Up to X's second stone in board 8: X owns boards 0 and 4 and needs
    // (8, 8); O is to move in board 7 and has no threat.
    let game = play(&X_WINS_THE_DIAGONAL[..15]);
    assert_eq!(game.to_move(), Player::O);
    assert_eq!(game.active_board(), Some(7));
    assert_eq!(game.threats(), vec![threat(Player::X, 8, 8)]);
}

#[test]
fn threats_of_the_side_to_move_are_its_legal_winning_moves_only() {
    // O sends X to board 8: (8, 8) is a legal winning move.
    let game = play(&X_WINS_THE_DIAGONAL[..16]);
    assert_eq!(game.active_board(), Some(8));
    assert_eq!(game.threats(), vec![threat(Player::X, 8, 8)]);
    // O sends X to board 2 instead: X cannot play (8, 8) now, and O has no
    // winning move, so nothing is listed.
    let mut moves = X_WINS_THE_DIAGONAL[..15].to_vec();
    moves.push((7, 2));
    let game = play(&moves);
    assert_eq!(game.active_board(), Some(2));
    assert!(game.threats().is_empty());
}

#[test]
fn threats_list_the_movers_wins_before_the_other_players() {
    let moves = [
        (4, 0),
        (0, 4),
        (4, 2),
        (2, 5),
        (5, 2),
        (2, 4),
        (4, 1), // X wins board 4 (top row)
        (1, 3),
        (3, 0),
        (0, 5),
        (5, 0),
        (0, 3), // O wins board 0 (middle row)
        (3, 6),
        (6, 5),
        (5, 1), // X wins board 5 (top row)
        (1, 6),
        (6, 2),
        (2, 3), // O wins board 2 (middle row), sends X to board 3
    ];
    let game = play(&moves);
    assert_eq!(game.to_move(), Player::X);
    assert_eq!(game.active_board(), Some(3));
    // X: (3, 3) completes the left column of board 3, and boards 3, 4, 5
    // make the outer middle row. O: (1, 0) completes the left column of
    // board 1, and boards 0, 1, 2 make the outer top row; board 1 is not
    // the active board, which does not matter for the player not to move.
    assert_eq!(
        game.threats(),
        vec![threat(Player::X, 3, 3), threat(Player::O, 1, 0)]
    );
}

#[test]
fn the_empty_board_and_the_display_grid() {
    let game = Ultimate::new();
    assert_eq!(game.status(), Status::InProgress { to_move: Player::X });
    assert_eq!(game.active_board(), None);
    assert_eq!(game.legal_moves().len(), 81);
    assert!(game.threats().is_empty());
    assert_eq!(game.board_status(9), InnerStatus::Open);
    // Board 2, cell 3 is grid row 1, column 6; board 3, cell 8 is grid
    // row 5, column 2.
    let game = play(&[(2, 3), (3, 8)]);
    assert_eq!(game.dims(), (9, 9));
    assert_eq!(game.cell_at(1, 6), Some(Player::X));
    assert_eq!(game.cell_at(5, 2), Some(Player::O));
    assert_eq!(game.cell_at(6, 1), None);
    assert_eq!(game.cell_at(9, 0), None);
    assert_eq!(game.cell_at(0, 200), None);
    let marked: usize = (0..9)
        .flat_map(|r| (0..9).map(move |c| (r, c)))
        .filter(|&(r, c)| game.cell_at(r, c).is_some())
        .count();
    assert_eq!(marked, 2);
    assert_eq!(game.active_board(), Some(8));
}
