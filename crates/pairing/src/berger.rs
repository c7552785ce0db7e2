//! Round robin on FIDE's Berger tables (Handbook C.05, Annex 1).
//!
//! With `n` entrants (one more, a bye, when `n` is odd) the table has `m - 1`
//! rounds, `m` the even count. Entrant `m` meets entrant `p` in the round `r`
//! where `2p - 2 ≡ r - 1 (mod m - 1)`, with white in even rounds; any other
//! two, `i` and `j`, meet in the round where `i + j - 2 ≡ r - 1`, the lower
//! number with white when `i + j` is odd, the higher when it is even. Board 1
//! is entrant `m`'s; the boards after it pair `p + k` with `p - k` (numbers
//! taken round `1..m - 1`). A double round robin plays the cycle twice, the
//! second time with every board's colours reversed.

/// One round of a round robin: its boards in table order (white first) and
/// the entrant who sits out, when the count is odd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub boards: Vec<(u32, u32)>,
    pub bye: Option<u32>,
}

/// How many rounds a round robin of `n` entrants has (`double`: each pair
/// twice); 0 for fewer than 2.
#[must_use]
pub fn rounds(n: u32, double: bool) -> u32 {
    if n < 2 {
        return 0;
    }
    let cycle = n + n % 2 - 1;
    if double { 2 * cycle } else { cycle }
}

/// Round `round` (from 1) of a round robin of `n` entrants, by starting
/// number; `None` past the last round or for fewer than 2 entrants.
#[must_use]
pub fn round(n: u32, round: u32, double: bool) -> Option<Round> {
    if round == 0 || round > rounds(n, double) {
        return None;
    }
    let even = n + n % 2;
    let cycle = even - 1;
    let second = round > cycle;
    let within = if second { round - cycle } else { round };
    // The last entrant's opponent: 2p - 2 ≡ r - 1 (mod m - 1), p in 1..m-1.
    let pivot = (1..even)
        .find(|&p| (2 * p - 2) % cycle == (within - 1) % cycle)
        .unwrap_or(1);
    // A number taken round 1..m-1.
    let wrap = |x: i64| -> u32 {
        let c = i64::from(cycle);
        u32::try_from((x - 1).rem_euclid(c) + 1).unwrap_or(1)
    };
    let mut boards = Vec::with_capacity(even as usize / 2);
    boards.push(if within % 2 == 0 {
        (even, pivot)
    } else {
        (pivot, even)
    });
    for step in 1..even / 2 {
        let up = wrap(i64::from(pivot) + i64::from(step));
        let down = wrap(i64::from(pivot) - i64::from(step));
        let (low, high) = (up.min(down), up.max(down));
        boards.push(if (up + down) % 2 == 1 {
            (low, high)
        } else {
            (high, low)
        });
    }
    if second {
        for board in &mut boards {
            *board = (board.1, board.0);
        }
    }
    // With an odd count, the last number is the bye: whoever meets it sits out.
    let mut bye = None;
    if n % 2 == 1 {
        boards.retain(|&(white, black)| {
            if white == even || black == even {
                bye = Some(if white == even { black } else { white });
                false
            } else {
                true
            }
        });
    }
    Some(Round { boards, bye })
}
