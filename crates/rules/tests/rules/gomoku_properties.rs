//! Gomoku's properties, checked against the oracle of `gomoku.rs` on random
//! games and random boards of both rules.

use proptest::collection::vec;
use proptest::prelude::*;
use tabula_rules::gomoku::{Gomoku, GomokuOptions, GomokuRule};
use tabula_rules::{Game, PlayError, Player, Refusal};

use crate::gomoku::*;

// ------------------------------------------------------------ properties --

/// Everything the engine says about `game` agrees with the oracle's `naive`.
/// With `full`, also every move's check, the legal moves and the threats.
pub(crate) fn agree(game: &Gomoku, naive: &mut Naive, full: bool) {
    let status = naive.status();
    assert_eq!(game.status(), status);
    assert_eq!(game.is_over(), status.is_over());
    assert_eq!(game.ply(), naive.ply);
    assert_eq!(game.to_move(), naive.to_move());
    assert_eq!(game.last_move().map(|p| (p.row(), p.col())), naive.last);
    let size = naive.size;
    let side = size as u8;
    assert_eq!(game.dims(), (side, side));
    for p in Player::BOTH {
        assert_eq!(game.rows(p).len(), size);
    }
    for r in 0..size {
        let mut bits = [0u32; 2];
        for c in 0..size {
            let cell = naive.cell(r, c);
            assert_eq!(game.cell_at(r as u8, c as u8), cell, "({r}, {c})");
            if let Some(p) = cell {
                bits[p.index()] |= 1 << c;
            }
        }
        for p in Player::BOTH {
            assert_eq!(game.rows(p)[r], bits[p.index()], "row {r} of {p}");
        }
    }
    assert_eq!(Gomoku::decode(&game.encode()), Ok(game.clone()));
    if !full {
        return;
    }
    let n = size as i64;
    for (r, c) in [(-1, 0), (0, -1), (n, 0), (0, n), (n, n)] {
        assert_eq!(game.point(r, c), Err(Refusal::OutOfBounds));
    }
    let mut listed = vec![game.point(0, 0).expect("on board")]; // stale content is cleared
    game.legal_moves_into(&mut listed);
    let listed: Vec<(u8, u8)> = listed.iter().map(|p| (p.row(), p.col())).collect();
    let expected = if status.is_over() {
        Vec::new()
    } else {
        naive.empties()
    };
    assert_eq!(listed, expected);
    for r in 0..size {
        for c in 0..size {
            let p = game.point(r as i64, c as i64).expect("on board");
            assert_eq!(game.stone(p), naive.cell(r, c));
            assert_eq!(game.check(p), naive.expected_check(r, c), "({r}, {c})");
        }
    }
    let threats: Vec<(Player, (u8, u8))> = game
        .threats()
        .iter()
        .map(|t| (t.player, (t.mv.row(), t.mv.col())))
        .collect();
    assert_eq!(threats, naive.threats());
}

/// The square of the board random games are played in (small, so that
/// lines form).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Area {
    top: u8,
    left: u8,
    span: u8,
}

impl Area {
    fn new(size: u8, span: u8, offset: (u8, u8)) -> Area {
        let span = span.min(size);
        let room = size - span + 1;
        Area {
            top: offset.0 % room,
            left: offset.1 % room,
            span,
        }
    }

    fn cell(self, a: u8, b: u8) -> (u8, u8) {
        (self.top + a % self.span, self.left + b % self.span)
    }

    fn contains(self, r: i32, c: i32) -> bool {
        let (top, left, span) = (
            i32::from(self.top),
            i32::from(self.left),
            i32::from(self.span),
        );
        (top..top + span).contains(&r) && (left..left + span).contains(&c)
    }
}

/// The cell the side to move tries next, from the oracle's state. Mostly it
/// carries on along the line through the mover's last two stones (beyond
/// either end, sometimes leaving a gap), so that runs, fives, gaps filled
/// in the middle and overlines all happen; sometimes it steps off in a new
/// direction; sometimes it is any cell of the area, taken or not.
pub(crate) fn pick(naive: &Naive, area: Area, (kind, a, b): (u8, u8, u8)) -> (u8, u8) {
    const STEPS: [(i32, i32); 8] = [
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ];
    let free =
        |(r, c): (i32, i32)| area.contains(r, c) && naive.cell(r as usize, c as usize).is_none();
    let at = |(r, c): (u8, u8)| (i32::from(r), i32::from(c));
    let gap = 1 + i32::from(b % 3 == 0);
    let [newest, previous] = naive.latest[naive.to_move().index()];
    let mut tries = Vec::new();
    match (kind % 8, newest, previous) {
        (0, _, _) | (_, None, _) => {}
        (1, Some(n), _) | (_, Some(n), None) => {
            let (dr, dc) = STEPS[usize::from(a % 8)];
            tries.push((at(n).0 + gap * dr, at(n).1 + gap * dc));
        }
        (_, Some(n), Some(p)) => {
            let (n, p) = (at(n), at(p));
            let (dr, dc) = ((n.0 - p.0).signum(), (n.1 - p.1).signum());
            let aligned =
                n.0 - p.0 == 0 || n.1 - p.1 == 0 || (n.0 - p.0).abs() == (n.1 - p.1).abs();
            if aligned {
                tries.push((n.0 + gap * dr, n.1 + gap * dc));
                tries.push((p.0 - gap * dr, p.1 - gap * dc));
                tries.push((n.0 - dr, n.1 - dc)); // between them, if apart
            }
            let (dr, dc) = STEPS[usize::from(a % 8)];
            tries.push((n.0 + dr, n.1 + dc));
        }
    }
    match tries.into_iter().find(|&t| free(t)) {
        Some((r, c)) => (r as u8, c as u8),
        None => area.cell(a, b),
    }
}

/// Plays a random game in `area`, checking each answer and the position
/// after it against the oracle; gives the oracle's final position.
pub(crate) fn random_game(
    opts: GomokuOptions,
    area: Area,
    choices: &[(u8, u8, u8)],
    full_each_step: bool,
) -> Naive {
    let mut game = Gomoku::new(opts);
    let mut naive = Naive::new(usize::from(opts.size()), opts.rule());
    agree(&game, &mut naive, full_each_step);
    for &choice in choices {
        let (r, c) = pick(&naive, area, choice);
        let p = game.point(i64::from(r), i64::from(c)).expect("on board");
        let expected = naive.expected_check(usize::from(r), usize::from(c));
        let before = game.clone();
        match game.clone().play(p) {
            Ok(next) => {
                assert_eq!(expected, Ok(()));
                naive.place(usize::from(r), usize::from(c));
                game = next;
            }
            Err(PlayError { refusal, position }) => {
                assert_eq!(Err(refusal), expected);
                assert_eq!(position, before);
                assert_eq!(game.try_play(p), Err(refusal));
                assert_eq!(game, before);
            }
        }
        agree(&game, &mut naive, full_each_step);
    }
    agree(&game, &mut naive, true);
    naive
}

/// The same kind of game played by the oracle alone (no engine involved).
pub(crate) fn oracle_game(
    size: u8,
    rule: GomokuRule,
    area: Area,
    choices: &[(u8, u8, u8)],
) -> Naive {
    let mut naive = Naive::new(usize::from(size), rule);
    for &choice in choices {
        let (r, c) = pick(&naive, area, choice);
        if naive.expected_check(usize::from(r), usize::from(c)).is_ok() {
            naive.place(usize::from(r), usize::from(c));
        }
    }
    naive
}

pub(crate) fn rule() -> impl Strategy<Value = GomokuRule> {
    prop_oneof![Just(GomokuRule::Freestyle), Just(GomokuRule::Standard)]
}

/// A snapshot's parts: a random oracle game's final board (often won),
/// sometimes spoilt by a few random edits of cells, rule or last move.
pub(crate) fn board() -> impl Strategy<Value = (u8, u8, (u8, u8), Vec<Option<Player>>)> {
    (
        5u8..=8,
        rule(),
        any::<(u8, u8)>(),
        vec(any::<(u8, u8, u8)>(), 0..60),
        vec((any::<u8>(), any::<u16>(), any::<u8>()), 0..3),
    )
        .prop_map(|(size, rule, offset, choices, edits)| {
            let naive = oracle_game(size, rule, Area::new(size, 6, offset), &choices);
            let mut rule = match rule {
                GomokuRule::Freestyle => 0,
                GomokuRule::Standard => 1,
            };
            let mut last = naive.last.unwrap_or((255, 255));
            let mut cells = naive.cells;
            let n = usize::from(size);
            for (what, at, value) in edits {
                let i = usize::from(at) % cells.len();
                let j = usize::from(value) % cells.len();
                match what % 8 {
                    0 => rule = value % 3,
                    1 => last = (value % 9, (at % 9) as u8),
                    2 => last = (255, 255),
                    3 | 6 => {
                        // Another stone of the last mover as the last move.
                        if let Some(k) =
                            (0..cells.len()).map(|k| (i + k) % cells.len()).find(|&k| {
                                last.0 < 9
                                    && cells[k].is_some()
                                    && cells[k]
                                        == cells
                                            .get(usize::from(last.0) * n + usize::from(last.1))
                                            .copied()
                                            .flatten()
                            })
                        {
                            last = ((k / n) as u8, (k % n) as u8);
                        }
                    }
                    4 | 5 => cells.swap(i, j), // moves a stone (counts kept)
                    _ => {
                        cells[i] = [None, Some(Player::X), Some(Player::O)][usize::from(value % 3)];
                    }
                }
            }
            (size, rule, last, cells)
        })
}

/// The oracle's verdict on a snapshot: the position, or `None` if invalid.
pub(crate) fn oracle_decode(
    size: u8,
    rule: u8,
    last: (u8, u8),
    cells: &[Option<Player>],
) -> Option<Naive> {
    let rule = match rule {
        0 => GomokuRule::Freestyle,
        1 => GomokuRule::Standard,
        _ => return None,
    };
    let n = usize::from(size);
    let mut naive = Naive::new(n, rule);
    for (i, &cell) in cells.iter().enumerate() {
        if let Some(p) = cell {
            naive.put(i, p);
        }
    }
    let [xs, os] = naive.counts;
    if xs != os && xs != os + 1 {
        return None;
    }
    naive.ply = xs + os;
    if naive.ply == 0 {
        return (last == (255, 255)).then_some(naive);
    }
    let (r, c) = (usize::from(last.0), usize::from(last.1));
    let mover = if naive.ply % 2 == 1 {
        Player::X
    } else {
        Player::O
    };
    if r >= n || c >= n || naive.cell(r, c) != Some(mover) {
        return None;
    }
    // The game stops at the first line: none may stand without the last stone.
    naive.take(r * n + c);
    if naive.has_win(Player::X) || naive.has_win(Player::O) {
        return None;
    }
    naive.put(r * n + c, mover);
    naive.last = Some(last);
    Some(naive)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_games_on_small_boards_agree_with_the_oracle_at_every_step(
        size in 5i64..=9,
        rule in rule(),
        span in 5u8..=9,
        offset in any::<(u8, u8)>(),
        choices in vec(any::<(u8, u8, u8)>(), 0..60),
    ) {
        let opts = options(size, rule);
        random_game(opts, Area::new(opts.size(), span, offset), &choices, true);
    }

    #[test]
    fn random_games_on_large_boards_agree_with_the_oracle(
        size in 10i64..=25,
        rule in rule(),
        span in 5u8..=10,
        offset in any::<(u8, u8)>(),
        choices in vec(any::<(u8, u8, u8)>(), 0..80),
    ) {
        let opts = options(size, rule);
        random_game(opts, Area::new(opts.size(), span, offset), &choices, false);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decode_never_panics_and_what_it_accepts_encodes_back_to_the_same_bytes(
        bytes in prop_oneof![
            vec(any::<u8>(), 0..220),
            // Right header and length for small boards, random stones.
            (5u8..=9, 0u8..=1, vec(any::<u8>(), 2 * 9 * 2)).prop_map(|(size, rule, body)| {
                let len = 2 * usize::from(size) * usize::from(size).div_ceil(8);
                let mut b = vec![size, rule, 255, 255];
                b.extend(body.iter().take(len).map(|x| x & x.rotate_left(3)));
                b
            }),
        ],
    ) {
        if let Ok(game) = Gomoku::decode(&bytes) {
            prop_assert_eq!(game.encode(), bytes);
        }
    }

    #[test]
    fn decode_accepts_exactly_the_boards_the_oracle_finds_consistent(board in board()) {
        let (size, rule, last, cells) = board;
        let bytes = snapshot(size, rule, last, &cells);
        match (Gomoku::decode(&bytes), oracle_decode(size, rule, last, &cells)) {
            (Ok(game), Some(mut naive)) => {
                agree(&game, &mut naive, true);
                prop_assert_eq!(game.encode(), bytes);
            }
            (Err(_), None) => {}
            (got, want) => prop_assert!(false, "engine {:?}, oracle valid: {}", got, want.is_some()),
        }
    }
}
