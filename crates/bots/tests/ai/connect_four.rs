//! Connect Four: immediate wins and blocks in hand-made and random
//! positions, a forced win in 3, and the search's proven wins checked
//! against a plain negamax oracle.

use tabula_bots::{Level, Outcome};
use tabula_rules::connect_four::Column;
use tabula_rules::{AnyGame, AnyMove, Player, Setup};

use crate::{after, hint_levels, random_positions, suggest, wins_of};

/// The position after dropping discs in `columns`, X first.
fn columns(seq: &[u8]) -> AnyGame {
    let mut game = AnyGame::new(Setup::ConnectFour);
    for &c in seq {
        game.try_play(col(c)).expect("a legal sequence");
    }
    game
}

fn col(c: u8) -> AnyMove {
    AnyMove::ConnectFour(Column::ALL[usize::from(c)])
}

/// Whether the side to move can force a win within `plies` plies (odd).
fn wins_within(game: &AnyGame, plies: u32) -> bool {
    let me = game.to_move();
    game.legal_moves().into_iter().any(|m| {
        let next = after(game, m);
        if next.winner() == Some(me) {
            return true;
        }
        plies >= 3
            && !next.is_over()
            && next.legal_moves().into_iter().all(|r| {
                let reply = after(&next, r);
                !reply.is_over() && wins_within(&reply, plies - 2)
            })
    })
}

/// The plies of the quickest forced win within `limit`, if any.
fn quickest_win(game: &AnyGame, limit: u32) -> Option<u32> {
    (1..=limit).step_by(2).find(|&k| wins_within(game, k))
}

#[test]
fn every_level_wins_at_once_rather_than_block() {
    // X has 0, 1, 2 on the bottom row; O has three up column 6.
    let game = columns(&[0, 6, 1, 6, 2, 6]);
    for level in hint_levels(&game) {
        let s = suggest(&game, level, 1);
        assert_eq!(s.mv, col(3), "{level}");
        assert_eq!(s.evaluation.proven, Some((Outcome::Win, 1)), "{level}");
    }
}

#[test]
fn every_level_blocks_an_immediate_win() {
    // O has three up column 6; X's bottom discs 0, 2, 4 threaten nothing.
    let game = columns(&[0, 6, 2, 6, 4, 6]);
    assert!(wins_of(&game, Player::X).is_empty());
    crate::assert_every_level_plays(&game, col(6));
}

#[test]
fn medium_and_hard_find_a_forced_win_in_three() {
    // X: 2 and 3 on the bottom row, O on top of them. Dropping in 1 or 4
    // makes three with both ends open: O can block only one.
    let game = columns(&[2, 2, 3, 3]);
    for level in [Level::Medium, Level::Hard] {
        let s = suggest(&game, level, 9);
        assert!([col(1), col(4)].contains(&s.mv), "{level}: {:?}", s.mv);
        assert_eq!(s.evaluation.proven, Some((Outcome::Win, 3)), "{level}");
        // Whatever O replies, X then wins at once.
        let next = after(&game, s.mv);
        for reply in next.legal_moves() {
            let answer = after(&next, reply);
            assert!(
                !wins_of(&answer, Player::X).is_empty(),
                "{level}: {reply:?}"
            );
        }
    }
}

#[test]
fn no_level_misses_a_win_or_a_block_in_random_positions() {
    let blocks = crate::assert_wins_and_blocks(&random_positions(Setup::ConnectFour, 400, 1));
    assert!(blocks > 20, "too few blocks tried: {blocks}");
}

#[test]
fn hard_finds_every_forced_win_within_five_plies() {
    let mut found = 0;
    for game in random_positions(Setup::ConnectFour, 150, 2) {
        let oracle = quickest_win(&game, 5);
        let s = suggest(&game, Level::Hard, 3);
        match oracle {
            Some(k) => {
                assert_eq!(s.evaluation.proven, Some((Outcome::Win, k)), "{game:?}");
                // The move itself keeps the win.
                let next = after(&game, s.mv);
                let keeps = next.winner() == Some(game.to_move())
                    || next
                        .legal_moves()
                        .into_iter()
                        .all(|r| quickest_win(&after(&next, r), k.saturating_sub(2)).is_some());
                assert!(keeps, "{:?} does not keep the win in {game:?}", s.mv);
                found += 1;
            }
            None => {
                if let Some((Outcome::Win, k)) = s.evaluation.proven {
                    assert!(k > 5, "claimed a win in {k} the oracle denies: {game:?}");
                }
            }
        }
    }
    assert!(found > 10, "too few forced wins tried: {found}");
}
