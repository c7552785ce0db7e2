//! Gomoku: fives made, fours blocked, open threes answered, on hand-made
//! 15x15 positions, under both rules; wins and blocks in random positions
//! of a small board; and a board of every size.

use tabula_bots::{Level, Outcome};
use tabula_rules::gomoku::{Gomoku, GomokuOptions, GomokuRule};
use tabula_rules::{AnyGame, AnyMove, Game, Player, Setup};

use crate::{after, hint_levels, random_positions, suggest, wins_of};

/// A position with X's and O's stones, played alternately (X first), so
/// `xs` has as many stones as `os` or one more.
fn stones(size: i64, rule: GomokuRule, xs: &[(i64, i64)], os: &[(i64, i64)]) -> AnyGame {
    assert!(xs.len() == os.len() || xs.len() == os.len() + 1);
    let mut g = Gomoku::new(GomokuOptions::new(size, rule).expect("a size"));
    for i in 0..xs.len() {
        for list in [xs, os] {
            if let Some(&(r, c)) = list.get(i) {
                let p = g.point(r, c).expect("on the board");
                g.try_play(p).expect("a legal picture");
            }
        }
    }
    AnyGame::Gomoku(g)
}

fn at(game: &AnyGame, r: i64, c: i64) -> AnyMove {
    let AnyGame::Gomoku(g) = game else {
        panic!("not gomoku")
    };
    AnyMove::Gomoku(g.point(r, c).expect("on the board"))
}

/// O stones far from everything, one per row along the top edge, spaced so
/// they make nothing.
const FAR: [(i64, i64); 6] = [(0, 0), (0, 3), (0, 6), (0, 9), (0, 12), (2, 1)];

#[test]
fn every_level_completes_an_open_four() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        // X: row 7, columns 5..=8, open at both ends; O has a four too.
        let xs = [(7, 5), (7, 6), (7, 7), (7, 8), (12, 12)];
        let os = [(10, 2), (10, 3), (10, 4), (10, 5), (0, 14)];
        let game = stones(15, rule, &xs, &os);
        assert_eq!(game.to_move(), Player::X);
        for level in hint_levels(&game) {
            let s = suggest(&game, level, 1);
            assert!(
                [at(&game, 7, 4), at(&game, 7, 9)].contains(&s.mv),
                "{rule} {level}: {:?}",
                s.mv
            );
            assert_eq!(
                s.evaluation.proven,
                Some((Outcome::Win, 1)),
                "{rule} {level}"
            );
        }
    }
}

#[test]
fn every_level_blocks_a_four() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        // O: row 7, columns 5..=8, X already at (7, 4): O threatens (7, 9).
        let xs = [(7, 4), (9, 9), (3, 12), (12, 3)];
        let os = [(7, 5), (7, 6), (7, 7), (7, 8)];
        let game = stones(15, rule, &xs, &os);
        for level in hint_levels(&game) {
            for seed in 0..3 {
                let mv = suggest(&game, level, seed).mv;
                assert_eq!(mv, at(&game, 7, 9), "{rule} {level} seed {seed}");
            }
        }
        // A broken four: O at (3, 3), (4, 4), (6, 6), (7, 7) needs (5, 5).
        let os = [(3, 3), (4, 4), (6, 6), (7, 7)];
        let xs = [(0, 14), (14, 0), (9, 13), (13, 9)];
        let game = stones(15, rule, &xs, &os);
        for level in hint_levels(&game) {
            assert_eq!(
                suggest(&game, level, 0).mv,
                at(&game, 5, 5),
                "{rule} {level}"
            );
        }
    }
}

#[test]
fn medium_and_hard_answer_an_open_three() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        // O: row 7, columns 6..=8, both sides open; X's stones are scattered.
        let xs = [(1, 13), (12, 1), (13, 13)];
        let os = [(7, 6), (7, 7), (7, 8)];
        let game = stones(15, rule, &xs, &os);
        for level in [Level::Medium, Level::Hard] {
            for seed in 0..3 {
                let mv = suggest(&game, level, seed).mv;
                assert!(
                    [at(&game, 7, 5), at(&game, 7, 9)].contains(&mv),
                    "{rule} {level} seed {seed}: {mv:?}"
                );
            }
        }
        // A broken three, O at 6, 7 and 9: the gap and both ends stop it.
        let os = [(7, 6), (7, 7), (7, 9)];
        let game = stones(15, rule, &xs, &os);
        let answers = [at(&game, 7, 5), at(&game, 7, 8), at(&game, 7, 10)];
        for level in [Level::Medium, Level::Hard] {
            let mv = suggest(&game, level, 0).mv;
            assert!(answers.contains(&mv), "{rule} {level}: {mv:?}");
        }
    }
}

#[test]
fn hard_wins_by_continuous_fours() {
    // X: an open three down column 11 and a closed three on row 7: the open
    // four wins in 3 plies.
    let xs = [(7, 7), (7, 8), (7, 9), (9, 11), (10, 11), (11, 11)];
    let os = [(7, 6), FAR[0], FAR[1], FAR[2], FAR[3], FAR[4]];
    let game = stones(15, GomokuRule::Freestyle, &xs, &os);
    let s = suggest(&game, Level::Hard, 0);
    assert_eq!(s.evaluation.proven, Some((Outcome::Win, 3)));
    let next = after(&game, s.mv);
    for reply in next.legal_moves() {
        let answer = after(&next, reply);
        assert!(!wins_of(&answer, Player::X).is_empty(), "{reply:?}");
    }
}

#[test]
fn hard_stops_a_four_three() {
    // O's stone on (7, 7) would make a four on row 7 (X holds (7, 3)) and an
    // open three down column 7: a win by continuous fours. X must take
    // (7, 7), spoil the four at (7, 8), or close the three at (4, 7) or
    // (8, 7).
    let xs = [(7, 3), (0, 0), (0, 14), (14, 0), (14, 14)];
    let os = [(7, 4), (7, 5), (7, 6), (5, 7), (6, 7)];
    let game = stones(15, GomokuRule::Freestyle, &xs, &os);
    let defences = [(7, 7), (7, 8), (4, 7), (8, 7)].map(|(r, c)| at(&game, r, c));
    for seed in 0..3 {
        let mv = suggest(&game, Level::Hard, seed).mv;
        assert!(defences.contains(&mv), "seed {seed}: {mv:?}");
    }
}

#[test]
fn no_level_misses_a_win_or_a_block_in_random_positions() {
    let setup = Setup::Gomoku(GomokuOptions::new(7, GomokuRule::Freestyle).expect("7x7"));
    let blocks = crate::assert_wins_and_blocks(&random_positions(setup, 200, 3));
    assert!(blocks > 20, "too few blocks tried: {blocks}");
}

#[test]
fn every_size_gets_legal_moves() {
    for size in 5..=25 {
        let setup = Setup::Gomoku(GomokuOptions::new(size, GomokuRule::Standard).expect("size"));
        let mut game = AnyGame::new(setup);
        for ply in 0..6 {
            let level = if ply % 2 == 0 {
                Level::Hard
            } else {
                Level::Medium
            };
            let s = suggest(&game, level, 0);
            game.try_play(s.mv).expect("a legal move");
        }
        assert_eq!(game.ply(), 6);
    }
}
