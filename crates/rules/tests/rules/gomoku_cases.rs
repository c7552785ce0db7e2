//! Gomoku's hand-made edge cases: options, points, wins under both rules,
//! refusals, threats and snapshots (the oracle and its checks: `gomoku.rs`).

use tabula_rules::gomoku::{DEFAULT_SIZE, Gomoku, GomokuOptions, GomokuRule, MAX_SIZE, MIN_SIZE};
use tabula_rules::{Coord, DecodeError, Game, PlayError, Player, Refusal, Status, Threat};

use crate::gomoku::*;

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
