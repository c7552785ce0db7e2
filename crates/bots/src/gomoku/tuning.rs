//! What `hard`'s move ordering sees of a position, for fitting its weights
//! from games (`crates/tools/examples/gomoku-tune.rs`): the candidate cells of the main
//! search's move generation with their line shapes and classes for both
//! colours. Pure; no part of the service uses it.

use tabula_rules::Game;
use tabula_rules::gomoku::Gomoku;

use super::board::Board;
use super::engine::order_score;
use super::lines::Lines;
use super::shapes::{Class, SHAPES, Shape};

/// One candidate cell of the side to move.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub row: usize,
    pub col: usize,
    /// The mover's shape on each of the four lines (0 none … 9 five).
    pub mine: [u8; 4],
    /// The mover's class (0 none, 1 three, 2 double three, 3 four,
    /// 4 four-three, 5 open four, 6 five).
    pub mine_class: u8,
    /// The same for the opponent.
    pub theirs: [u8; 4],
    pub theirs_class: u8,
    /// The ordering score `hard` gives it now.
    pub score: i32,
}

/// The candidates `hard`'s main search orders in `game` (not over), as its
/// move generation builds them (only the defences when the opponent can
/// make an open four next); `None` when the position is settled before any
/// ordering (a five to make or block, an open four to make).
#[must_use]
pub fn candidates(game: &Gomoku) -> Option<Vec<Candidate>> {
    let lines = Lines::new(game);
    let me = lines.to_move();
    let opp = 1 - me;
    if game.winner().is_some() || lines.has(me, Class::OpenFour) || lines.has(opp, Class::Five) {
        return None;
    }
    let defending = lines.has(opp, Class::OpenFour);
    let mut spots = Vec::new();
    lines.candidates(&mut spots);
    let shapes = |s, p| lines.shapes(s, p).map(|x: Shape| x as u8);
    Some(
        spots
            .into_iter()
            .filter(|&s| {
                !defending
                    || lines.class(s, me) >= Class::Four
                    || lines.best_shape(s, opp) >= Shape::B4
            })
            .map(|s| {
                let (row, col) = lines.row_col(s);
                Candidate {
                    row,
                    col,
                    mine: shapes(s, me),
                    mine_class: lines.class(s, me) as u8,
                    theirs: shapes(s, opp),
                    theirs_class: lines.class(s, opp) as u8,
                    score: order_score(&lines, s, me),
                }
            })
            .collect(),
    )
}

/// The quad of four shapes (each 0..=9, as [`Candidate::mine`]): sorted,
/// best first, as a number in base 10 (the index of the evaluation's quad
/// weights and of the move ordering's scores).
#[must_use]
pub fn quad(shapes: [u8; 4]) -> usize {
    super::patterns::quad(shapes)
}

/// The class (as [`Candidate::mine_class`]) of a cell with these four
/// shapes.
#[must_use]
pub fn class_of(shapes: [u8; 4]) -> u8 {
    super::lines::class_of(shapes.map(|s| SHAPES[usize::from(s.min(9))])) as u8
}

/// The quads the move ordering's table holds (`policy.bin`: those whose
/// digits do not increase), and whether a quad is one of them.
pub const POLICY_SORTED: usize = super::policy::SORTED;
pub use super::policy::is_sorted;

/// The number of [`evaluation_terms`].
pub const EVAL_TERMS: usize = 31;

/// The classes whose cells the evaluation terms count, for the mover (who
/// can make no open four, else the search has stopped before) and for the
/// opponent.
const MINE_COUNTED: [Class; 4] = [
    Class::Three,
    Class::DoubleThree,
    Class::Four,
    Class::FourThree,
];
const THEIRS_COUNTED: [Class; 5] = [
    Class::Three,
    Class::DoubleThree,
    Class::Four,
    Class::FourThree,
    Class::OpenFour,
];

/// Terms for a static evaluation of `game` for the side to move, to fit
/// one as a weighted sum of them, when it is a position `hard`'s search
/// evaluates (no five to make or block, no open four to make): 1; the
/// windows (five cells in a row) the mover alone holds by their number of
/// stones (1..=4; `hard`'s evaluation weighs these now), the same for the
/// opponent; the mover's empty cells of each class in [`MINE_COUNTED`]
/// (three, double three, four, four-three), the opponent's in
/// [`THEIRS_COUNTED`] (those and open four); whether there is one, for each
/// of those; the mover's cells that prepare threats (where a stone makes
/// two open twos; a closed three with an open two or a second closed
/// three), the same for the opponent. Counted afresh: slow, for tuning.
#[must_use]
pub fn evaluation_terms(game: &Gomoku) -> Option<[i32; EVAL_TERMS]> {
    let lines = Lines::new(game);
    let me = lines.to_move();
    if game.winner().is_some() || lines.has(me, Class::OpenFour) || lines.has(1 - me, Class::Five) {
        return None;
    }
    let held = Board::new(game).held();
    let opp = 1 - me;
    let mut t = [0; EVAL_TERMS];
    t[0] = 1;
    t[1..=4].copy_from_slice(&held[me][1..=4]);
    t[5..=8].copy_from_slice(&held[opp][1..=4]);
    for (i, &c) in MINE_COUNTED.iter().enumerate() {
        t[9 + i] = lines.count(me, c);
        t[18 + i] = i32::from(t[9 + i] > 0);
    }
    for (i, &c) in THEIRS_COUNTED.iter().enumerate() {
        t[13 + i] = lines.count(opp, c);
        t[22 + i] = i32::from(t[13 + i] > 0);
    }
    // Cells that prepare threats: where a stone makes no three or four
    // but two open twos (kind 1), or a closed three with an open two or a
    // second closed three (kind 2).
    let mut empties = Vec::new();
    lines.cells_of(me, Class::None, &mut empties);
    for &s in &empties {
        for (p, base) in [(me, 26), (opp, 28)] {
            if lines.class(s, p) != Class::None {
                continue;
            }
            let mut shapes = lines.shapes(s, p);
            shapes.sort_unstable_by(|a, b| b.cmp(a));
            if shapes[0] == Shape::B3 && shapes[1] >= Shape::F2 {
                t[base + 2] += 1;
            } else if shapes[0] == Shape::F2 && shapes[1] == Shape::F2 {
                t[base + 1] += 1;
            }
        }
    }
    Some(t)
}

/// What the learned pattern evaluation (`patterns.rs`) reads of a
/// position, for fitting its weights: the side to move's view.
#[derive(Clone, Debug)]
pub struct PatternTerms {
    /// The canonical pattern key of every line of every empty cell that
    /// holds a stone within four cells (seen from the mover, the lesser of
    /// its two readings).
    pub keys: Vec<u16>,
    /// Per empty cell, the quad of the mover's shapes (the four sorted,
    /// best first, in base 10), and of the opponent's.
    pub mine_quads: Vec<u16>,
    pub theirs_quads: Vec<u16>,
    /// The scalar terms: 1, then per class the mover can make (three,
    /// double three, four, four-three) its count, then the same for the
    /// opponent (those and open four).
    pub scalars: Vec<i32>,
    /// The threat mask: a bit per class of those, the mover's first, set
    /// when there is a cell of it.
    pub mask: usize,
    /// The evaluation with the embedded weights (thousandths of a logit).
    pub embedded: i32,
    /// Its linear part: the pattern weights without the network
    /// (`net.rs`).
    pub linear: i32,
}

/// The number of pattern keys, shape quads, scalar terms and threat masks.
pub const PATTERN_KEYS: usize = super::patterns::KEYS;
pub const PATTERN_QUADS: usize = super::patterns::QUADS;
pub const PATTERN_SCALARS: usize = super::patterns::SCALARS;
pub const PATTERN_MASKS: usize = super::patterns::MASKS;

/// The network's vector length and hidden units (`net.rs`), its inputs, the integer
/// unit of its vectors, and the scale of the counts in its inputs.
pub const NET_D: usize = super::net::D;
pub const NET_H: usize = super::net::H;
/// The network's inputs: the summed vector, 1 and the threat counts.
pub const NET_INPUTS: usize = super::net::INPUTS;
pub const NET_SCALE: f32 = super::net::SCALE;
pub const NET_COUNT_SCALE: f32 = super::net::COUNT_SCALE;

/// [`PatternTerms`] of `game` when `hard`'s search would evaluate it (as
/// [`evaluation_terms`]).
#[must_use]
pub fn pattern_terms(game: &Gomoku) -> Option<PatternTerms> {
    use super::patterns::{MINE_COUNTED, THEIRS_COUNTED, canonical, has_stone};
    let lines = Lines::new(game);
    let me = lines.to_move();
    let opp = 1 - me;
    if game.winner().is_some() || lines.has(me, Class::OpenFour) || lines.has(opp, Class::Five) {
        return None;
    }
    let mut empties = Vec::new();
    lines.cells_of(me, Class::None, &mut empties);
    let mut keys = Vec::new();
    let (mut mine_quads, mut theirs_quads) = (Vec::new(), Vec::new());
    for &s in &empties {
        for d in 0..4 {
            let k = lines.pattern_key(s, d);
            if has_stone(k) {
                keys.push(canonical(k, me));
            }
        }
        mine_quads.push(u16::try_from(lines.quad(s, me)).unwrap_or(0));
        theirs_quads.push(u16::try_from(lines.quad(s, opp)).unwrap_or(0));
    }
    let mut scalars = vec![1];
    let counted = MINE_COUNTED
        .iter()
        .map(|&c| lines.count(me, c))
        .chain(THEIRS_COUNTED.iter().map(|&c| lines.count(opp, c)));
    let mut mask = 0;
    for (bit, n) in counted.enumerate() {
        scalars.push(n);
        mask |= usize::from(n > 0) << bit;
    }
    Some(PatternTerms {
        keys,
        mine_quads,
        theirs_quads,
        scalars,
        mask,
        embedded: lines.pattern_eval(),
        linear: lines.linear_eval(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_rules::gomoku::{GomokuOptions, GomokuRule};

    fn game(moves: &[(i64, i64)]) -> Gomoku {
        let mut g = Gomoku::new(GomokuOptions::new(15, GomokuRule::Freestyle).unwrap());
        for &(r, c) in moves {
            g.try_play(g.point(r, c).unwrap()).unwrap();
        }
        g
    }

    #[test]
    fn candidates_and_terms_of_a_position() {
        // X: (7,5) (7,6) on row 7; O in two corners; X to move.
        let g = game(&[(7, 5), (0, 0), (7, 6), (0, 14)]);
        let cands = candidates(&g).expect("nothing settled");
        // X to move: (7,7) makes an open three on row 7.
        let c = cands.iter().find(|c| (c.row, c.col) == (7, 7)).unwrap();
        assert_eq!(c.mine_class, Class::Three as u8);
        assert!(cands.iter().all(|d| d.score <= c.score || d.mine_class > 0));
        let t = evaluation_terms(&g).expect("nothing settled");
        assert_eq!(t[0], 1);
        // X alone holds windows of two stones on row 7 (four of them).
        assert!(t[2] >= 3, "{t:?}");
        // X can make an open three, O cannot.
        assert!(t[9] > 0 && t[18] == 1 && t[13] == 0);
        // X to move with an open three: it makes an open four, settled.
        let open_four = game(&[(7, 4), (0, 0), (7, 5), (0, 14), (7, 6), (14, 0)]);
        assert!(candidates(&open_four).is_none());
        assert!(evaluation_terms(&open_four).is_none());
    }
}
