//! Victory by continuous threats (VCT): a sequence of threats (fours, and
//! quiet threats such as open threes: moves after which the attacker, were
//! it their turn again, would win by fours) that the defender cannot stop,
//! ending in a victory by continuous fours ([`vcf`]).
//!
//! A threat-space search: after each threat, the defender's replies tried
//! are the cells of the winning line it threatens (each four, each forced
//! block, the final five) and the defender's own fours; a reply anywhere
//! else leaves that line standing. Each reply must leave the attacker a
//! continuing VCT, and a threat that gives the defender a VCF of their own
//! is no threat. So a VCT found wins against those replies, which in
//! practice are all that matter; a reply elsewhere that makes a defender's
//! four in the middle of the line is not tried, so a VCT counts as a strong
//! evaluation, not a proof (unlike a VCF).

use super::super::limits::Meter;
use super::board::{Board, Cell};
use super::vcf;

/// The fours a quiet threat may take to win if it is not answered: an open
/// three needs one (the open four), a broken or split one as many, a
/// three-and-four two.
const THREAT_FOURS: u32 = 2;
/// Threats tried at each step of the attacker, the most promising first.
const WIDTH: usize = 14;

/// A first move of a VCT for the side to move with at most `max_threats`
/// threats before a VCF of at most `vcf_fours` fours, and the plies it
/// takes against the best defence tried. Deepens one threat at a time, so
/// the first found is one of the shortest. `None` when there is none
/// within the bounds, or the meter stops first.
pub(super) fn find(
    board: &mut Board,
    max_threats: u32,
    vcf_fours: u32,
    meter: &mut Meter,
) -> Option<(Cell, u32)> {
    (1..=max_threats).find_map(|threats| {
        if meter.stopped() {
            return None;
        }
        attack(board, threats, vcf_fours, meter)
    })
}

fn attack(
    board: &mut Board,
    threats_left: u32,
    vcf_fours: u32,
    meter: &mut Meter,
) -> Option<(Cell, u32)> {
    if !meter.tick() {
        return None;
    }
    if let Some(win) = vcf::find(board, vcf_fours, meter) {
        return Some(win);
    }
    let me = board.to_move();
    let opp = 1 - me;
    let mut fives = Vec::new();
    board.wins(opp, &mut fives);
    if threats_left == 0 || meter.stopped() || !fives.is_empty() {
        // A five to stop first: only fours keep the initiative, and the
        // VCF above has tried them.
        return None;
    }
    let mut candidates = Vec::new();
    board.candidates(&mut candidates);
    let mut scored: Vec<(i32, Cell)> = candidates
        .iter()
        .map(|&c| (board.gains(c, me).0, c))
        .collect();
    scored.sort_unstable_by_key(|&(score, c)| (-score, c));
    scored.truncate(WIDTH);
    let mut line = Vec::new();
    let mut defences = Vec::new();
    for (_, threat) in scored {
        board.play(threat);
        let result = threatens(board, &mut line, meter)
            .then(|| {
                // The defender to move: a VCF of theirs refutes the threat.
                if vcf::find(board, vcf_fours, meter).is_some() {
                    return None;
                }
                defences.clear();
                defences.extend(line.iter().copied().filter(|&c| board.is_empty(c)));
                board.four_makers(opp, &mut candidates);
                defences.extend_from_slice(&candidates);
                defences.sort_unstable();
                defences.dedup();
                let mut longest = 0;
                for &reply in &defences {
                    board.play(reply);
                    let deeper = attack(board, threats_left - 1, vcf_fours, meter);
                    board.undo(reply);
                    longest = longest.max(deeper?.1);
                }
                Some(longest + 2)
            })
            .flatten();
        board.undo(threat);
        if let Some(plies) = result {
            return Some((threat, plies));
        }
        if meter.stopped() {
            return None;
        }
    }
    None
}

/// Whether the attacker (who just moved; the defender is to move) would
/// win by fours if it were their turn again; the winning line in `line`.
fn threatens(board: &mut Board, line: &mut Vec<Cell>, meter: &mut Meter) -> bool {
    board.pass();
    let found = vcf::line_of(board, THREAT_FOURS, meter, line).is_some();
    board.pass();
    found
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::board::from_stones as board;
    use super::*;

    fn cell(r: u16, c: u16) -> Cell {
        r * 15 + c
    }

    fn meter() -> Meter {
        Meter::new(2_000_000, Duration::from_mins(1))
    }

    #[test]
    fn two_open_twos_crossing_make_a_three_three_win_by_threats() {
        // X: (7,6) (7,7) on row 7 and (5,8) (6,8) down column 8: (7,8)
        // makes two open threes at once; no VCF (no four can be made).
        let xs = [(7, 6), (7, 7), (5, 8), (6, 8)];
        let os = [(0, 0), (0, 14), (14, 0), (14, 14)];
        let mut b = board(&xs, &os);
        assert_eq!(vcf::find(&mut b, 10, &mut meter()), None);
        let (first, plies) = find(&mut b, 2, 10, &mut meter()).expect("a VCT");
        assert_eq!(first, cell(7, 8), "{first}");
        // The double three, a reply, the open four, a block, the five.
        assert_eq!(plies, 5);
    }

    #[test]
    fn a_lone_open_two_is_no_win() {
        let xs = [(7, 6), (7, 7), (0, 7), (14, 7)];
        let os = [(0, 0), (0, 14), (14, 0), (14, 14)];
        assert_eq!(find(&mut board(&xs, &os), 3, 10, &mut meter()), None);
    }

    #[test]
    fn a_threat_answered_by_the_defenders_own_fours_is_no_win() {
        // As the three-three above, but O has an open three of its own on
        // row 2: after X's double three, O wins by fours first.
        let xs = [(7, 6), (7, 7), (5, 8), (6, 8), (14, 14)];
        let os = [(2, 3), (2, 4), (2, 5), (0, 0), (14, 0)];
        let mut b = board(&xs, &os);
        // X to move; O's open three means X's quiet threat is too slow,
        // and X has no four to make.
        assert_eq!(find(&mut b, 2, 10, &mut meter()), None);
    }

    #[test]
    fn the_cross_point_breaks_the_three_three_and_a_far_reply_does_not() {
        let xs = [(7, 6), (7, 7), (5, 8), (6, 8)];
        let os = [(0, 0), (0, 14), (14, 0), (14, 14)];
        // O (given the move) takes the crossing cell: the one-threat win is
        // gone (with O's stones far away X has longer ones still).
        let mut b = board(&xs, &os);
        b.pass();
        b.play(cell(7, 8));
        assert_eq!(find(&mut b, 1, 10, &mut meter()), None);
        assert!(find(&mut b, 3, 10, &mut meter()).is_some());
        // O plays far away: the three-three still wins in one threat.
        let mut b = board(&xs, &os);
        b.pass();
        b.play(cell(0, 7));
        assert_eq!(
            find(&mut b, 1, 10, &mut meter()).map(|(c, _)| c),
            Some(cell(7, 8))
        );
    }

    #[test]
    fn the_search_stops_with_its_meter() {
        let xs = [(7, 6), (7, 7), (5, 8), (6, 8)];
        let os = [(0, 0), (0, 14), (14, 0), (14, 14)];
        let mut b = board(&xs, &os);
        let mut small = Meter::new(5, Duration::from_mins(1));
        assert_eq!(find(&mut b, 3, 10, &mut small), None);
        assert!(small.stopped());
    }
}
