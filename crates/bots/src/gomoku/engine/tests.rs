use std::time::Duration;

use super::*;
use tabula_rules::Game;
use tabula_rules::gomoku::{Gomoku, GomokuOptions, GomokuRule};

/// X's and O's stones played alternately (X first).
fn game(rule: GomokuRule, xs: &[(i64, i64)], os: &[(i64, i64)]) -> Gomoku {
    let mut g = Gomoku::new(GomokuOptions::new(15, rule).unwrap());
    for i in 0..xs.len().max(os.len()) {
        for list in [xs, os] {
            if let Some(&(r, c)) = list.get(i) {
                g.try_play(g.point(r, c).unwrap()).unwrap();
            }
        }
    }
    g
}

/// The engine's move (row, col) and score for the side to move.
fn search(g: &Gomoku, work: u64) -> ((usize, usize), i32) {
    let mut meter = Meter::new(work, Duration::from_mins(1));
    let mut engine = Engine::new(Lines::new(g), &mut meter, 1, 0);
    let found = engine.search(None, 64).expect("a move");
    (engine.lines.row_col(found.mv), found.score)
}

/// O stones far apart on the edges: they make nothing.
const FAR: [(i64, i64); 4] = [(0, 0), (0, 14), (14, 0), (14, 14)];

#[test]
fn a_five_is_made_whatever_else_there_is() {
    // X has a four on row 7; O an open four on row 10.
    let xs = [(7, 3), (7, 4), (7, 5), (7, 6), (12, 12)];
    let os = [(10, 2), (10, 3), (10, 4), (10, 5), (1, 14)];
    let (mv, score) = search(&game(GomokuRule::Freestyle, &xs, &os), 10_000);
    assert!(mv == (7, 2) || mv == (7, 7), "{mv:?}");
    assert_eq!(score, WIN - 1);
}

#[test]
fn a_four_is_blocked() {
    let xs = [(7, 3), (7, 4), (7, 5), (7, 6), (12, 12)];
    let os = [(7, 2), (3, 3), (3, 11), (11, 3)];
    // O to move: X's only five is (7, 7).
    let (mv, _) = search(&game(GomokuRule::Freestyle, &xs, &os), 10_000);
    assert_eq!(mv, (7, 7));
}

#[test]
fn an_open_three_is_answered_on_its_line() {
    // X: an open three on row 7; O to move, with nothing of its own.
    let xs = [(7, 5), (7, 6), (7, 7), (12, 2)];
    let os = [(0, 0), (0, 14), (14, 14)];
    let g = game(GomokuRule::Freestyle, &xs, &os);
    let (mv, score) = search(&g, 50_000);
    assert!(
        [(7, 3), (7, 4), (7, 8), (7, 9)].contains(&mv),
        "{mv:?} {score}"
    );
}

#[test]
fn a_double_three_is_found_and_scored_as_a_win() {
    // X: (7,6) (7,7) on row 7 and (5,8) (6,8) down column 8: (7,8)
    // makes two open threes at once.
    let xs = [(7, 6), (7, 7), (5, 8), (6, 8)];
    let (mv, score) = search(&game(GomokuRule::Freestyle, &xs, &FAR), 50_000);
    assert_eq!(mv, (7, 8));
    assert!(score >= MATE, "{score}");
}

#[test]
fn an_overline_is_no_five_under_standard() {
    // X on row 7 at 2, 3, 5, 6, 7: (7,4) makes six.
    let xs = [(7, 2), (7, 3), (7, 5), (7, 6), (7, 7)];
    let os = [(0, 0), (0, 14), (14, 0), (14, 14), (14, 7)];
    let free = search(&game(GomokuRule::Freestyle, &xs, &os), 10_000);
    assert_eq!(free, ((7, 4), WIN - 1));
    let (mv, score) = search(&game(GomokuRule::Standard, &xs, &os), 10_000);
    assert!(score < MATE || mv != (7, 4), "{mv:?} {score}");
}

#[test]
fn a_loss_over_the_first_moves_sends_the_search_to_the_others() {
    // X, far up on row 1, has two four-threes to make: (1,12) (a four
    // on row 1 and an open three down column 12) and (1,2) (the same on
    // the left). O, to move, can take one, and X makes the other. But
    // O wins by fours: (10,5) is a four on row 10 (X blocks at (10,6)),
    // after which (11,5) makes two (row 11 and column 5). (X at (9,2)
    // keeps O's diagonal through (11,4) from an open three.)
    let xs = [
        (1, 9),
        (1, 10),
        (1, 11),
        (2, 12),
        (3, 12),
        (1, 3),
        (1, 4),
        (1, 5),
        (2, 2),
        (3, 2),
        (10, 1),
        (14, 5),
        (11, 9),
        (9, 2),
    ];
    let os = [
        (1, 8),
        (1, 6),
        (10, 2),
        (10, 3),
        (10, 4),
        (12, 5),
        (13, 5),
        (11, 6),
        (11, 7),
        (11, 8),
        (7, 14),
        (14, 14),
        (14, 0),
    ];
    let g = game(GomokuRule::Freestyle, &xs, &os);
    let mut meter = Meter::new(1_000_000, Duration::from_mins(1));
    let mut engine = Engine::new(Lines::new(&g), &mut meter, 1, 0);
    // One move searched unless it loses, and the table's move, first:
    // taking (1,2), which loses.
    engine.width = 1;
    let take = Spot::try_from(engine.lines.spot(1, 2)).unwrap();
    engine.table.put(Entry {
        key: engine.lines.key(),
        mv: Some(take),
        score: 0,
        depth: 0,
        bound: Bound::Upper,
    });
    assert!(!engine.generate(1, Some(take), 1));
    assert_eq!(engine.lists[1][0].1, take);
    let score = engine.node(3, -WIN - 1, WIN + 1, 1, Probe::Unread);
    assert!(score >= MATE, "{score}");
    // Taking (1,2) does lose: X, to move after it, wins.
    engine.lines.play(take);
    let after = engine.node(2, -WIN - 1, WIN + 1, 2, Probe::Unread);
    engine.lines.undo(take);
    assert!(after >= MATE, "X wins after O takes (1,2): {after}");
}

#[test]
fn a_leaf_scored_without_playing_scores_as_played() {
    // Every candidate of positions with fours and threes about: the
    // score read from the totals a move would leave is the score of
    // the node after playing it.
    let xs = [(7, 5), (7, 6), (7, 7), (6, 6), (5, 5), (9, 9)];
    let os = [(8, 8), (6, 7), (7, 8), (8, 6), (4, 4), (10, 10)];
    let (mut decided, mut left) = (0, 0);
    for stones in 4..=xs.len() + os.len() {
        let (x, o) = (stones.div_ceil(2), stones / 2);
        let g = game(GomokuRule::Freestyle, &xs[..x], &os[..o]);
        let mut meter = Meter::new(1_000_000, Duration::from_mins(1));
        let mut engine = Engine::new(Lines::new(&g), &mut meter, 5, 4);
        let mut spots = Vec::new();
        engine.lines.candidates(&mut spots);
        let mut peeked = 0;
        for m in spots {
            let leaf = engine.leaf(m, 3);
            engine.lines.play(m);
            let played = engine.node(0, -WIN - 1, WIN + 1, 3, Probe::Unread);
            engine.lines.undo(m);
            if let Some(score) = leaf {
                assert_eq!(score, played, "{:?}", engine.lines.row_col(m));
                peeked += 1;
                decided += i32::from(score.abs() >= MATE);
            } else {
                left += 1;
            }
        }
        assert!(peeked > 10, "{peeked}");
    }
    // Some leaves were won on the totals, some left to the node (a four
    // to block).
    assert!(decided > 0 && left > 0, "{decided} {left}");
}

#[test]
fn the_search_stops_with_its_meter_and_still_moves() {
    let xs = [(7, 6), (7, 7), (6, 6)];
    let os = [(8, 8), (6, 7)];
    let g = game(GomokuRule::Freestyle, &xs, &os);
    // Less work than the first iteration's moves: it is cut short.
    let mut meter = Meter::new(20, Duration::from_mins(1));
    let mut engine = Engine::new(Lines::new(&g), &mut meter, 1, 0);
    assert!(engine.search(None, 64).is_some());
    assert!(meter.stopped());
}

#[test]
fn no_iteration_starts_that_the_work_left_cannot_pay_for() {
    let xs = [(7, 6), (7, 7), (6, 6), (9, 9)];
    let os = [(8, 8), (6, 7), (5, 5)];
    let g = game(GomokuRule::Freestyle, &xs, &os);
    let mut meter = Meter::new(100_000, Duration::from_mins(1));
    let mut engine = Engine::new(Lines::new(&g), &mut meter, 1, 0);
    let found = engine.search(None, 64).expect("a move");
    // Not ended by a forced result: it stopped deepening, before the
    // meter cut an iteration short, with work left.
    assert!(found.score.abs() < MATE && found.proven.is_none());
    assert!(!meter.stopped());
    assert!(meter.left() > 0);
}

#[test]
fn the_same_seed_and_work_give_the_same_move() {
    let xs = [(7, 6), (7, 7), (6, 6), (9, 9)];
    let os = [(8, 8), (6, 7), (5, 5)];
    let g = game(GomokuRule::Freestyle, &xs, &os);
    let run = |seed| {
        let mut meter = Meter::new(20_000, Duration::from_mins(1));
        let mut engine = Engine::new(Lines::new(&g), &mut meter, seed, 4);
        engine.search(None, 64).map(|f| (f.mv, f.score))
    };
    assert_eq!(run(3), run(3));
}
