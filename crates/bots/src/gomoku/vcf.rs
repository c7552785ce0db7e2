//! Victory by continuous fours (VCF): a sequence of moves that each make
//! four (so the opponent's only defence is the one cell that stops five),
//! ending in a five or in two threats of five at once.
//!
//! The search is sound: each of the opponent's replies is forced (they are
//! checked not to have a five of their own), so a sequence found is a
//! proven win. It is also narrow, which makes it cheap enough to run before
//! the main search.

use super::super::limits::Meter;
use super::board::{Board, Cell};

/// A first move of a shortest VCF for the side to move, and the plies until
/// five, looking at most `max_fours` fours deep (deepening one four at a
/// time, so the first found is a shortest).
pub(super) fn find(board: &mut Board, max_fours: u32, meter: &mut Meter) -> Option<(Cell, u32)> {
    let mut line = Vec::new();
    line_of(board, max_fours, meter, &mut line)
}

/// As [`find`], and the cells of the sequence in `line`: each four, the
/// reply it forces, and the cells of the final five (both, for a double
/// threat). A defender can only stop this sequence on one of them (or by
/// a four of their own): the defences a threat-space search tries.
pub(super) fn line_of(
    board: &mut Board,
    max_fours: u32,
    meter: &mut Meter,
    line: &mut Vec<Cell>,
) -> Option<(Cell, u32)> {
    (0..=max_fours).find_map(|fours| {
        if meter.stopped() {
            return None;
        }
        line.clear();
        attack(board, fours, meter, line)
    })
}

fn attack(
    board: &mut Board,
    fours_left: u32,
    meter: &mut Meter,
    line: &mut Vec<Cell>,
) -> Option<(Cell, u32)> {
    if !meter.tick() {
        return None;
    }
    let me = board.to_move();
    let opp = 1 - me;
    if let Some(cell) = board.first_win(me) {
        line.push(cell);
        return Some((cell, 1));
    }
    if fours_left == 0 {
        return None;
    }
    let mut threats = Vec::new();
    board.wins(opp, &mut threats);
    if threats.len() >= 2 {
        return None;
    }
    let mut makers = Vec::new();
    board.four_makers(me, &mut makers);
    if let Some(&threat) = threats.first() {
        // A four elsewhere would be answered by the opponent's five.
        makers.retain(|&c| c == threat);
    }
    makers.sort_by_key(|&c| (-board.gains(c, me).0, c));
    let mut fives = Vec::new();
    let depth = line.len();
    for cell in makers {
        board.play(cell);
        board.wins(me, &mut fives);
        let result = if fives.is_empty() || board.first_win(opp).is_some() {
            // Not a real four (an overline), or the opponent wins first.
            None
        } else if fives.len() >= 2 {
            line.push(cell);
            line.extend_from_slice(&fives);
            Some(3)
        } else {
            let block = fives[0];
            line.push(cell);
            line.push(block);
            board.play(block);
            let deeper = attack(board, fours_left - 1, meter, line);
            board.undo(block);
            deeper.map(|(_, plies)| plies + 2)
        };
        board.undo(cell);
        if let Some(plies) = result {
            return Some((cell, plies));
        }
        line.truncate(depth);
        if meter.stopped() {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::board::from_stones as board;
    use super::*;

    #[test]
    fn an_open_three_is_a_win_by_fours() {
        // X has an open three down column 11: the open four wins in 3.
        let xs = [(7, 7), (9, 11), (10, 11), (11, 11)];
        let os = [(7, 6), (0, 0), (0, 3), (14, 14)];
        let mut meter = Meter::new(100_000, Duration::from_mins(1));
        let (cell, plies) = find(&mut board(&xs, &os), 8, &mut meter).expect("a VCF");
        assert_eq!(plies, 3);
        assert!([8 * 15 + 11, 12 * 15 + 11].contains(&cell), "{cell}");
    }

    #[test]
    fn a_lone_closed_three_is_no_win() {
        let xs = [(7, 7), (7, 8), (7, 9), (3, 3)];
        let os = [(7, 6), (0, 0), (0, 3), (14, 14)];
        let mut meter = Meter::new(100_000, Duration::from_mins(1));
        assert_eq!(find(&mut board(&xs, &os), 8, &mut meter), None);
    }
}
