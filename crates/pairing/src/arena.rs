//! An arena's pairing pass: the entrants free now (their last game ended)
//! paired with each other, as the contract says: as many pairs as can be,
//! never the opponent of one's last game while anyone else is free, then
//! entrants as near each other in the standings as can be.
//!
//! One maximum-weight matching over the free entrants: each pair's weight is
//! a constant large enough that every extra pair outweighs any cost, less a
//! rematch's penalty (larger than any sum of distances), less the square of
//! the distance between the two places in the standings. With an odd count, the entrant
//! whose absence costs least waits for the next pass.

use integer_blossom::max_weight_matching;

/// An entrant free to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Free {
    /// Whoever the caller means by it (an index, a player).
    pub id: u32,
    /// Its place in the standings now (1 the top; ties may share one).
    pub place: u32,
    /// The entrant its last game was against, if any.
    pub last_opponent: Option<u32>,
}

/// The pairs to start now, by id, the better placed first in each and the
/// best placed pairs first; an entrant left out waits for the next pass (one
/// at most, with an odd count).
#[must_use]
pub fn pair(free: &[Free]) -> Vec<(u32, u32)> {
    let n = free.len();
    if n < 2 {
        return Vec::new();
    }
    let places: Vec<i64> = free.iter().map(|f| i64::from(f.place)).collect();
    let gap = places.iter().max().unwrap_or(&0) - places.iter().min().unwrap_or(&0);
    // A distance costs its square: two moderate gaps beat a large and a small.
    let spread = gap * gap + 1;
    let pairs = (n / 2) as i64 + 1;
    // Every sum of distances stays under one rematch's penalty, and every
    // sum of costs under one pair's worth.
    let rematch = pairs * spread + 1;
    let worth = pairs * (rematch + spread) + 1;
    let mut weight = vec![0i64; n * n];
    for a in 0..n {
        for b in a + 1..n {
            let again = free[a].last_opponent == Some(free[b].id)
                || free[b].last_opponent == Some(free[a].id);
            let distance = (places[a] - places[b]).pow(2);
            weight[a * n + b] = worth - distance - if again { rematch } else { 0 };
        }
    }
    let mates = max_weight_matching(&weight, n);
    let mut out: Vec<(usize, usize)> = mates
        .iter()
        .enumerate()
        .filter_map(|(a, m)| m.filter(|&b| a < b).map(|b| (a, b)))
        .map(|(a, b)| {
            if (free[a].place, a) <= (free[b].place, b) {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect();
    out.sort_unstable_by_key(|&(a, _)| (free[a].place, a));
    out.into_iter()
        .map(|(a, b)| (free[a].id, free[b].id))
        .collect()
}
