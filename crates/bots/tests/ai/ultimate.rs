//! Ultimate tic-tac-toe: immediate wins taken and immediate losses avoided,
//! in hand-made and random positions.

use tabula_bots::{Level, Outcome};
use tabula_rules::ultimate::Move;
use tabula_rules::{AnyGame, AnyMove, GameKind, Player, Setup};

use crate::{after, hint_levels, random_positions, suggest, wins_of};

/// A position from each player's stones, as (board, cells) lists, and the
/// active board.
fn position(x: &[(u8, &[u8])], o: &[(u8, &[u8])], active: Option<u8>) -> AnyGame {
    let mut bytes = vec![0u8; 37];
    for (offset, stones) in [(0, x), (18, o)] {
        for &(board, cells) in stones {
            let mask = cells.iter().fold(0u16, |m, &c| m | 1 << c);
            let at = offset + 2 * usize::from(board);
            bytes[at..at + 2].copy_from_slice(&mask.to_le_bytes());
        }
    }
    bytes[36] = active.unwrap_or(u8::MAX);
    AnyGame::decode(GameKind::UltimateTicTacToe, &bytes).expect("a valid position")
}

fn mv(board: u8, cell: u8) -> AnyMove {
    AnyMove::UltimateTicTacToe(Move::new(board.into(), cell.into()).expect("in range"))
}

/// Whether, after `m`, the opponent can win at once.
fn loses_at_once(game: &AnyGame, m: AnyMove) -> bool {
    let next = after(game, m);
    !wins_of(&next, next.to_move()).is_empty()
}

#[test]
fn every_level_wins_at_once() {
    // X owns boards 0 and 1 and has cells 0 and 1 of board 2, where it must
    // play: cell 2 wins board 2 and the game.
    let game = position(
        &[(0, &[0, 1, 2]), (1, &[3, 4, 5]), (2, &[0, 1])],
        &[(3, &[0, 2, 5, 7]), (4, &[0, 1, 5, 6])],
        Some(2),
    );
    assert_eq!(game.to_move(), Player::X);
    for level in hint_levels(&game) {
        let s = suggest(&game, level, 1);
        assert_eq!(s.mv, mv(2, 2), "{level}");
        assert_eq!(s.evaluation.proven, Some((Outcome::Win, 1)), "{level}");
    }
}

#[test]
fn every_level_blocks_the_only_way_not_to_lose() {
    // O owns boards 0 and 1 and threatens cell 2 of board 2, where X must
    // play. Board 2's other empty cell, 6, would send O to board 6, which
    // is finished, so O could play anywhere and win.
    let game = position(
        &[(2, &[3, 4, 7]), (3, &[1, 5]), (4, &[0, 8]), (6, &[0, 1, 2])],
        &[(0, &[0, 1, 2]), (1, &[3, 4, 5]), (2, &[0, 1, 5, 8])],
        Some(2),
    );
    assert_eq!(game.to_move(), Player::X);
    assert!(loses_at_once(&game, mv(2, 6)));
    assert!(!loses_at_once(&game, mv(2, 2)));
    for level in hint_levels(&game) {
        for seed in 0..3 {
            assert_eq!(
                suggest(&game, level, seed).mv,
                mv(2, 2),
                "{level} seed {seed}"
            );
        }
    }
}

#[test]
fn medium_and_hard_take_wins_and_avoid_losses_in_random_positions() {
    let mut avoided = 0;
    for game in random_positions(Setup::UltimateTicTacToe, 150, 4) {
        let me = game.to_move();
        let mine = wins_of(&game, me);
        let safe: Vec<AnyMove> = game
            .legal_moves()
            .into_iter()
            .filter(|&m| !loses_at_once(&game, m))
            .collect();
        for level in [Level::Medium, Level::Hard] {
            let s = suggest(&game, level, 2);
            if !mine.is_empty() {
                assert!(mine.contains(&s.mv), "{level} missed a win in {game:?}");
                assert_eq!(s.evaluation.proven, Some((Outcome::Win, 1)));
            } else if !safe.is_empty() {
                assert!(safe.contains(&s.mv), "{level} lost at once in {game:?}");
                if safe.len() < game.legal_moves().len() {
                    avoided += 1;
                }
            } else {
                assert_eq!(s.evaluation.proven, Some((Outcome::Loss, 2)), "{level}");
            }
        }
    }
    assert!(avoided > 10, "too few losing moves to avoid: {avoided}");
}
