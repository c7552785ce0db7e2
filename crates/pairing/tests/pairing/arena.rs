//! An arena's pairing pass: neighbours in the standings meet, the last
//! opponent only when nobody else is free, and an odd entrant out waits.

use tabula_pairing::arena::{Free, pair};

fn free(id: u32, place: u32, last: Option<u32>) -> Free {
    Free {
        id,
        place,
        last_opponent: last,
    }
}

#[test]
fn neighbours_in_the_standings_meet() {
    let all: Vec<Free> = (1..=6).map(|i| free(i * 10, i, None)).collect();
    assert_eq!(pair(&all), vec![(10, 20), (30, 40), (50, 60)]);
    // The order they come in does not matter.
    let mut shuffled = all.clone();
    shuffled.reverse();
    shuffled.swap(1, 4);
    assert_eq!(pair(&shuffled), vec![(10, 20), (30, 40), (50, 60)]);
}

#[test]
fn the_last_opponent_only_when_nobody_else_is_free() {
    // 1 and 2 have just played each other: each meets its next neighbour.
    let four = [
        free(1, 1, Some(2)),
        free(2, 2, Some(1)),
        free(3, 3, None),
        free(4, 4, None),
    ];
    let pairs = pair(&four);
    assert_eq!(pairs.len(), 2);
    assert!(!pairs.contains(&(1, 2)), "{pairs:?}");
    assert_eq!(pairs, vec![(1, 3), (2, 4)]);
    // Alone together: they play again rather than wait.
    assert_eq!(pair(&four[..2]), vec![(1, 2)]);
    // A rematch is avoided even at the cost of distance: 1 just played 2,
    // and 3 is far down the table.
    let far = [
        free(1, 1, Some(2)),
        free(2, 2, Some(1)),
        free(3, 90, None),
        free(4, 91, Some(5)),
    ];
    assert!(!pair(&far).contains(&(1, 2)));
}

#[test]
fn an_odd_entrant_out_waits_and_nobody_is_paired_twice() {
    let five: Vec<Free> = (1..=5).map(|i| free(i, i, None)).collect();
    let pairs = pair(&five);
    assert_eq!(pairs.len(), 2);
    let mut seen: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 4);
    assert!(pair(&five[..1]).is_empty());
    assert!(pair(&[]).is_empty());
    // 500 free entrants, every one paired with a neighbour two places away
    // at most, none with its last opponent.
    let many: Vec<Free> = (1..=500)
        .map(|i| free(i, i, Some(if i % 2 == 1 { i + 1 } else { i - 1 })))
        .collect();
    let pairs = pair(&many);
    assert_eq!(pairs.len(), 250);
    for &(a, b) in &pairs {
        assert!(b.abs_diff(a) <= 3 && b.abs_diff(a) != 0, "{a} {b}");
        assert_ne!(many[a as usize - 1].last_opponent, Some(b));
    }
}
