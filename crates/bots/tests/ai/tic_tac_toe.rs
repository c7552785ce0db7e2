//! Tic-tac-toe: the solvers never lose, and every level from `easy` up wins
//! at once and blocks.

use tabula_bots::{Level, Outcome};
use tabula_rules::tic_tac_toe::Cell;
use tabula_rules::{AnyGame, AnyMove, Player, Setup};

use crate::{after, hint_levels, suggest};

/// A position from a picture: rows top first, `X`, `O` or `.`; X moved
/// first and the moves alternate, so X has as many stones as O or one more.
fn board(picture: &str) -> AnyGame {
    let cells: Vec<char> = picture.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(cells.len(), 9, "{picture}");
    let of = |p: char| -> Vec<u8> { (0..9u8).filter(|&i| cells[usize::from(i)] == p).collect() };
    let (xs, os) = (of('X'), of('O'));
    let mut game = AnyGame::new(Setup::TicTacToe);
    for i in 0..xs.len().max(os.len()) {
        for cells in [&xs, &os] {
            if let Some(&c) = cells.get(i) {
                game.try_play(cell(c)).expect("a legal picture");
            }
        }
    }
    game
}

fn cell(index: u8) -> AnyMove {
    AnyMove::TicTacToe(Cell::from_index(index).expect("a cell"))
}

/// Walks every game in which `bot` plays `level` (seed `seed`) and the
/// opponent plays every legal move: (games finished, games the bot lost).
fn walk(game: &AnyGame, bot: Player, level: Level, seed: u64) -> (usize, usize) {
    if game.is_over() {
        return (1, usize::from(game.winner() == Some(bot.other())));
    }
    if game.to_move() == bot {
        let s = suggest(game, level, seed);
        walk(&after(game, s.mv), bot, level, seed)
    } else {
        game.legal_moves()
            .into_iter()
            .map(|m| walk(&after(game, m), bot, level, seed))
            .fold((0, 0), |(g, l), (g2, l2)| (g + g2, l + l2))
    }
}

#[test]
fn hard_and_perfect_never_lose_against_any_replies() {
    let start = AnyGame::new(Setup::TicTacToe);
    for level in [Level::Hard, Level::Perfect] {
        for seed in 0..3 {
            for bot in Player::BOTH {
                let (games, lost) = walk(&start, bot, level, seed);
                assert_eq!(
                    lost, 0,
                    "{level} as {bot}, seed {seed}: lost {lost} of {games}"
                );
                // Every reply was tried: at least 8 first replies as X.
                assert!(games >= 8, "{level} as {bot}: {games} games");
            }
        }
    }
}

#[test]
fn medium_can_be_beaten() {
    let start = AnyGame::new(Setup::TicTacToe);
    let lost: usize = Player::BOTH
        .into_iter()
        .map(|bot| walk(&start, bot, Level::Medium, 0).1)
        .sum();
    assert!(lost > 0, "medium should not play perfectly");
}

#[test]
fn the_solvers_prove_the_empty_board_a_draw() {
    let start = AnyGame::new(Setup::TicTacToe);
    for level in [Level::Hard, Level::Perfect] {
        let e = suggest(&start, level, 7).evaluation;
        assert_eq!(e.proven, Some((Outcome::Draw, 9)), "{level}");
        assert_eq!(e.score, 0);
    }
}

#[test]
fn every_level_wins_at_once_when_it_can() {
    // X to move wins on cell 2; O threatens cell 5 too.
    let game = board("XX. OO. ...");
    for level in hint_levels(&game) {
        let s = suggest(&game, level, 1);
        assert_eq!(s.mv, cell(2), "{level}");
        assert_eq!(s.evaluation.proven, Some((Outcome::Win, 1)), "{level}");
        assert_eq!(s.evaluation.score, 1000, "{level}");
    }
}

#[test]
fn every_level_blocks_an_immediate_win() {
    // O threatens cell 5 (3-4-5); X has no win.
    let game = board("X.. OO. .X.");
    assert_eq!(game.to_move(), Player::X);
    crate::assert_every_level_plays(&game, cell(5));
}

#[test]
fn the_solvers_find_a_fork() {
    // X: 0, 4; O: 8, 1. Cells 3 and 6 fork: a win in 3.
    let game = board("XO. .X. ..O");
    for level in [Level::Hard, Level::Perfect] {
        let s = suggest(&game, level, 3);
        assert_eq!(s.evaluation.proven, Some((Outcome::Win, 3)), "{level}");
        assert!([cell(3), cell(6)].contains(&s.mv), "{level}: {:?}", s.mv);
    }
}

#[test]
fn a_lost_position_is_proven_lost() {
    // X threatens 1 and 3; O (to move) has no win.
    let game = board("X.X .O. X.O");
    assert_eq!(game.to_move(), Player::O);
    for level in [Level::Medium, Level::Hard, Level::Perfect] {
        let s = suggest(&game, level, 0);
        assert_eq!(s.evaluation.proven, Some((Outcome::Loss, 2)), "{level}");
        assert_eq!(s.evaluation.score, -1000);
    }
}
