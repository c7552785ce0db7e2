use super::*;
use tabula_rules::gomoku::{GomokuOptions, GomokuRule};

fn game(size: u8, rule: GomokuRule, moves: &[(i64, i64)]) -> Gomoku {
    let mut g = Gomoku::new(GomokuOptions::new(size.into(), rule).unwrap());
    for &(r, c) in moves {
        g.try_play(g.point(r, c).unwrap()).unwrap();
    }
    g
}

/// Everything incremental equals a board built afresh.
fn same(a: &Lines, b: &Lines) {
    assert_eq!(a.totals, b.totals);
    for &s in &a.frame.on_board {
        let s = usize::from(s);
        if a.cells[s] == 0 {
            assert_eq!(a.per[s], b.per[s]);
            assert_eq!(a.weights_of[s], b.weights_of[s]);
        }
    }
    assert_eq!(a.near, b.near);
    assert_eq!(a.open, b.open);
    assert_eq!(a.keys, b.keys);
    assert_eq!(a.key, b.key);
}

#[test]
fn play_and_undo_match_a_fresh_board() {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        for size in [5u8, 15, 25] {
            let mut rng = 7u64;
            let mut moves = Vec::new();
            let mut g = game(size, rule, &[]);
            let mut lines = Lines::new(&g);
            for _ in 0..(usize::from(size) * usize::from(size) / 2).min(60) {
                rng = mix(rng);
                let r = i64::try_from(rng % u64::from(size)).unwrap();
                let c = i64::try_from((rng >> 20) % u64::from(size)).unwrap();
                let Ok(point) = g.point(r, c) else { continue };
                if g.try_play(point).is_err() {
                    continue;
                }
                let spot = Spot::try_from(lines.spot(r as usize, c as usize)).unwrap();
                let peeked = lines.peek(spot);
                lines.play(spot);
                assert_eq!(peeked, (lines.totals, lines.key()));
                moves.push(spot);
                same(&lines, &Lines::new(&g));
                assert_eq!(lines.winner(), g.winner().map(Player::index));
                if g.winner().is_some() {
                    break;
                }
            }
            let fresh = Lines::new(&game(size, rule, &[]));
            while let Some(m) = moves.pop() {
                lines.undo(m);
            }
            same(&lines, &fresh);
        }
    }
}

#[test]
fn the_learned_evaluation_favours_the_side_with_the_shapes() {
    // X: two open twos crossing near the centre; O's stones apart on
    // the edges. Good for X whoever is to move.
    let f = GomokuRule::Freestyle;
    let moves = [(7, 6), (0, 0), (7, 7), (0, 14), (6, 8), (14, 0), (5, 8)];
    let x_to_move = Lines::new(&game(15, f, &moves[..6]));
    let o_to_move = Lines::new(&game(15, f, &moves));
    assert!(x_to_move.pattern_eval() > 0, "{}", x_to_move.pattern_eval());
    assert!(o_to_move.pattern_eval() < 0, "{}", o_to_move.pattern_eval());
    // The network's vectors are summed, and it moves the evaluation.
    assert_ne!(x_to_move.totals.vectors, [[0; 2 * net::D]; 2]);
    assert_ne!(x_to_move.pattern_eval(), x_to_move.linear_eval());
}

#[test]
fn classes_of_threats() {
    let f = GomokuRule::Freestyle;
    // X: (7,5) (7,6) (7,7); O elsewhere.
    let g = game(15, f, &[(7, 5), (14, 0), (7, 6), (14, 7), (7, 7), (14, 14)]);
    let lines = Lines::new(&g);
    let at = |r, c| Spot::try_from(lines.spot(r, c)).unwrap();
    assert_eq!(lines.class(at(7, 4), 0), Class::OpenFour);
    assert_eq!(lines.class(at(7, 8), 0), Class::OpenFour);
    assert_eq!(lines.class(at(7, 3), 0), Class::Four);
    assert_eq!(lines.class(at(14, 3), 1), Class::None);
    assert!(lines.has(0, Class::OpenFour));
    assert!(!lines.has(1, Class::Four));
}
