//! Round robin: the Berger tables as FIDE prints them (Handbook C.05,
//! Annex 1) for 4, 6, 8, 10, 12 and 14 entrants (14: the rounds printed in the
//! copy at hand), and for 3 to 16 entrants, single and double, what every
//! table must be.

use std::collections::HashSet;

use tabula_pairing::berger::{Round, round, rounds};

/// The table for `n`, round by round: its boards (white, black).
fn table(n: u32) -> Vec<Vec<(u32, u32)>> {
    (1..=rounds(n, false))
        .map(|r| round(n, r, false).unwrap().boards)
        .collect()
}

#[test]
fn four_six_and_eight_entrants_pair_as_fides_tables_print() {
    assert_eq!(
        table(4),
        vec![
            vec![(1, 4), (2, 3)],
            vec![(4, 3), (1, 2)],
            vec![(2, 4), (3, 1)]
        ]
    );
    assert_eq!(
        table(6),
        vec![
            vec![(1, 6), (2, 5), (3, 4)],
            vec![(6, 4), (5, 3), (1, 2)],
            vec![(2, 6), (3, 1), (4, 5)],
            vec![(6, 5), (1, 4), (2, 3)],
            vec![(3, 6), (4, 2), (5, 1)],
        ]
    );
    assert_eq!(
        table(8),
        vec![
            vec![(1, 8), (2, 7), (3, 6), (4, 5)],
            vec![(8, 5), (6, 4), (7, 3), (1, 2)],
            vec![(2, 8), (3, 1), (4, 7), (5, 6)],
            vec![(8, 6), (7, 5), (1, 4), (2, 3)],
            vec![(3, 8), (4, 2), (5, 1), (6, 7)],
            vec![(8, 7), (1, 6), (2, 5), (3, 4)],
            vec![(4, 8), (5, 3), (6, 2), (7, 1)],
        ]
    );
}

/// A table as printed: one round a line, boards `white-black`.
fn printed(text: &str) -> Vec<Vec<(u32, u32)>> {
    text.lines()
        .map(|line| {
            line.split(", ")
                .map(|board| {
                    let (w, b) = board.split_once('-').unwrap();
                    (w.parse().unwrap(), b.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

#[test]
fn ten_twelve_and_fourteen_entrants_pair_as_the_printed_tables() {
    assert_eq!(
        table(10),
        printed(
            "1-10, 2-9, 3-8, 4-7, 5-6
10-6, 7-5, 8-4, 9-3, 1-2
2-10, 3-1, 4-9, 5-8, 6-7
10-7, 8-6, 9-5, 1-4, 2-3
3-10, 4-2, 5-1, 6-9, 7-8
10-8, 9-7, 1-6, 2-5, 3-4
4-10, 5-3, 6-2, 7-1, 8-9
10-9, 1-8, 2-7, 3-6, 4-5
5-10, 6-4, 7-3, 8-2, 9-1"
        )
    );
    assert_eq!(
        table(12),
        printed(
            "1-12, 2-11, 3-10, 4-9, 5-8, 6-7
12-7, 8-6, 9-5, 10-4, 11-3, 1-2
2-12, 3-1, 4-11, 5-10, 6-9, 7-8
12-8, 9-7, 10-6, 11-5, 1-4, 2-3
3-12, 4-2, 5-1, 6-11, 7-10, 8-9
12-9, 10-8, 11-7, 1-6, 2-5, 3-4
4-12, 5-3, 6-2, 7-1, 8-11, 9-10
12-10, 11-9, 1-8, 2-7, 3-6, 4-5
5-12, 6-4, 7-3, 8-2, 9-1, 10-11
12-11, 1-10, 2-9, 3-8, 4-7, 5-6
6-12, 7-5, 8-4, 9-3, 10-2, 11-1"
        )
    );
    // Fourteen: the rounds the copy at hand prints (1 to 6).
    assert_eq!(
        table(14)[..6],
        printed(
            "1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8
14-8, 9-7, 10-6, 11-5, 12-4, 13-3, 1-2
2-14, 3-1, 4-13, 5-12, 6-11, 7-10, 8-9
14-9, 10-8, 11-7, 12-6, 13-5, 1-4, 2-3
3-14, 4-2, 5-1, 6-13, 7-12, 8-11, 9-10
14-10, 11-9, 12-8, 13-7, 1-6, 2-5, 3-4"
        )[..]
    );
}

#[test]
fn an_odd_count_plays_the_next_even_table_the_last_number_a_bye() {
    // Five entrants: the table of six, entrant 6's opponent sitting out.
    let five: Vec<Round> = (1..=5).map(|r| round(5, r, false).unwrap()).collect();
    assert_eq!(five[0].boards, vec![(2, 5), (3, 4)]);
    assert_eq!(five[0].bye, Some(1));
    assert_eq!(
        five.iter().map(|r| r.bye.unwrap()).collect::<Vec<_>>(),
        vec![1, 4, 2, 5, 3]
    );
    assert_eq!(round(5, 6, false), None);
}

#[test]
fn every_table_from_3_to_16_entrants_single_and_double_is_a_round_robin() {
    for n in 3..=16 {
        for double in [false, true] {
            let total = rounds(n, double);
            let cycle = n + n % 2 - 1;
            assert_eq!(total, if double { 2 * cycle } else { cycle });
            let mut met = std::collections::HashMap::new();
            let mut colours: Vec<Vec<bool>> = vec![Vec::new(); n as usize + 1];
            for r in 1..=total {
                let Round { boards, bye } = round(n, r, double).unwrap();
                // Everyone once a round: on a board, or the bye when n is odd.
                let mut seen: HashSet<u32> = bye.into_iter().collect();
                assert_eq!(bye.is_some(), n % 2 == 1, "n {n} round {r}");
                for &(w, b) in &boards {
                    assert!(w != b && (1..=n).contains(&w) && (1..=n).contains(&b));
                    assert!(seen.insert(w) && seen.insert(b), "n {n} round {r}: twice");
                    *met.entry((w.min(b), w.max(b))).or_insert(0) += 1;
                    colours[w as usize].push(true);
                    colours[b as usize].push(false);
                    // The second cycle reverses the first's colours, board for board.
                    if r > cycle {
                        let first = round(n, r - cycle, double).unwrap();
                        assert!(first.boards.contains(&(b, w)), "n {n} round {r}");
                    }
                }
                assert_eq!(seen.len() as u32, n, "n {n} round {r}");
            }
            // Each pair meets once a cycle.
            assert_eq!(met.len() as u32, n * (n - 1) / 2, "n {n}");
            assert!(
                met.values().all(|&c| c == if double { 2 } else { 1 }),
                "n {n}"
            );
            // Colours stay balanced: within a cycle whites and blacks differ
            // by one at most.
            for (entrant, c) in colours.iter().enumerate().skip(1) {
                let cut = if double { c.len() / 2 } else { c.len() };
                let whites = c[..cut].iter().filter(|&&w| w).count();
                assert!(
                    whites.abs_diff(cut - whites) <= 1,
                    "n {n} entrant {entrant}: {c:?}"
                );
            }
        }
    }
    assert_eq!(rounds(1, false), 0);
    assert_eq!(round(1, 1, false), None);
    assert_eq!(round(6, 0, false), None);
}
