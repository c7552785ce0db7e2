//! The exact Connect Four solver: the standard test sets (`tests/data/
//! connect-four`, see its README) scored exactly with and without the
//! opening book, the book against the bare solver, the analysis against
//! single solves, and the `perfect` bot: it keeps the score, its evaluation
//! comes true move for move, it never loses to `hard` and wins as X.

use std::time::{Duration, Instant};
use tabula_bots::connect_four_solver::{
    Book, Openings, Position, Solver, WIDTH, known_move_score, known_score,
};

use tabula_bots::{self as ai, Budget, Evaluation, Level, Outcome};
use tabula_rules::connect_four::Column;
use tabula_rules::{AnyGame, AnyMove, Player, Setup};

use crate::{suggest, suggest_with, work};

const L3_R1: &str = include_str!("../../../../tests/data/connect-four/Test_L3_R1");
const L2_R1: &str = include_str!("../../../../tests/data/connect-four/Test_L2_R1");
const L2_R2: &str = include_str!("../../../../tests/data/connect-four/Test_L2_R2");
const L1_R1: &str = include_str!("../../../../tests/data/connect-four/Test_L1_R1");
const L1_R2: &str = include_str!("../../../../tests/data/connect-four/Test_L1_R2");
const L1_R3: &str = include_str!("../../../../tests/data/connect-four/Test_L1_R3");

/// The (moves, position, score) of every `every`-th line of a test set.
fn cases(set: &str, every: usize) -> Vec<(&str, Position, i32)> {
    set.lines()
        .step_by(every)
        .map(|line| {
            let (moves, score) = line.split_once(' ').expect("`MOVES SCORE`");
            let position = Position::from_moves(moves).expect("a valid position");
            (moves, position, score.parse().expect("a score"))
        })
        .collect()
}

/// The lines of `set` (one in `every`) whose score `solver` gets wrong.
fn wrong_scores(solver: &mut Solver<'_>, set: &str, every: usize) -> Vec<String> {
    let cases = cases(set, every);
    assert!(cases.len() >= 1000 / every, "the whole sample is read");
    cases
        .into_iter()
        .filter_map(|(moves, p, expected)| {
            let got = solver.solve(&p).expect("no deadline");
            (got != expected).then(|| format!("{moves}: {got}, expected {expected}"))
        })
        .collect()
}

/// The embedded opening book, as the solver takes it.
fn book() -> &'static dyn Openings {
    Book::embedded()
}

/// The game of the rules after `moves` (1-based columns).
fn game_after(moves: &str) -> AnyGame {
    let mut game = AnyGame::new(Setup::ConnectFour);
    for c in moves.bytes() {
        game.try_play(column(usize::from(c - b'1')))
            .expect("a legal sequence");
    }
    game
}

fn column(col: usize) -> AnyMove {
    AnyMove::ConnectFour(Column::ALL[col])
}

fn column_of(mv: AnyMove) -> usize {
    match mv {
        AnyMove::ConnectFour(c) => usize::from(c.index()),
        other => panic!("not a connect four move: {other:?}"),
    }
}

#[test]
fn every_end_position_is_scored_exactly() {
    for book in [Some(book()), None] {
        let mut solver = Solver::new(book);
        assert_eq!(wrong_scores(&mut solver, L3_R1, 1), Vec::<String>::new());
    }
}

#[test]
fn every_easy_middle_position_is_scored_exactly() {
    for book in [Some(book()), None] {
        let mut solver = Solver::new(book);
        assert_eq!(wrong_scores(&mut solver, L2_R1, 1), Vec::<String>::new());
    }
}

#[test]
fn every_easy_beginning_position_is_scored_exactly() {
    for book in [Some(book()), None] {
        let mut solver = Solver::new(book);
        assert_eq!(wrong_scores(&mut solver, L1_R1, 1), Vec::<String>::new());
    }
}

#[test]
fn a_sample_of_medium_middle_positions_is_scored_exactly() {
    let mut solver = Solver::new(Some(book()));
    assert_eq!(wrong_scores(&mut solver, L2_R2, 10), Vec::<String>::new());
    let mut bare = Solver::new(None);
    assert_eq!(wrong_scores(&mut bare, L2_R2, 20), Vec::<String>::new());
}

#[test]
fn a_sample_of_medium_beginning_positions_is_scored_exactly() {
    // About 0.3 s a position on one core (`docs/benchmarks.md`).
    let mut solver = Solver::new(Some(book()));
    assert_eq!(wrong_scores(&mut solver, L1_R2, 25), Vec::<String>::new());
    let mut bare = Solver::new(None);
    assert_eq!(wrong_scores(&mut bare, L1_R2, 100), Vec::<String>::new());
}

#[test]
fn the_book_agrees_with_every_test_position_it_holds() {
    let book = Book::embedded();
    for set in [L1_R3, L1_R2, L1_R1] {
        for (moves, p, expected) in cases(set, 1) {
            if let Some(score) = known_score(book, &p) {
                assert_eq!(score, expected, "{moves}");
            }
        }
    }
}

#[test]
fn the_book_knows_the_centre_wins_and_only_the_centre() {
    // Connect Four is a first-player win, by the centre only: X wins with
    // its 21st stone (score 1); the columns beside it draw, the others lose.
    let book = Book::embedded();
    let empty = Position::new();
    assert_eq!(known_score(book, &empty), Some(1));
    assert_eq!(known_move_score(book, &empty, WIDTH / 2), Some(1));
    // After X's other first moves (O to move), O's scores.
    let mut scores = Vec::new();
    for col in 0..WIDTH {
        let mut p = empty;
        p.play(col);
        scores.push(known_score(book, &p).map(|s| -s));
    }
    let outcome = |s: Option<i32>| s.map(i32::signum);
    assert_eq!(
        scores.iter().map(|&s| outcome(s)).collect::<Vec<_>>(),
        [-1, -1, 0, 1, 0, -1, -1].map(Some),
        "{scores:?}"
    );
}

#[test]
fn the_book_agrees_with_the_bare_solver_on_its_deepest_positions() {
    // Positions of the book one and two stones short of its depth, reached
    // through book positions, solved again without the book.
    let book = Book::embedded();
    let mut deep = Vec::new();
    let mut todo = vec![Position::new()];
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = todo.pop() {
        if !seen.insert(p.book_key()) || book.score(p.book_key()).is_none() {
            continue;
        }
        if p.moves() + 2 >= book.depth() {
            deep.push(p);
        }
        for c in (0..WIDTH).filter(|&c| p.can_play(c) && !p.is_winning_move(c)) {
            let mut child = p;
            child.play(c);
            if child.moves() <= book.depth() {
                todo.push(child);
            }
        }
    }
    assert!(deep.len() >= 100, "{}", deep.len());
    let mut solver = Solver::new(None);
    for p in deep.iter().step_by(deep.len() / 6) {
        assert_eq!(
            solver.solve(p).ok(),
            book.score(p.book_key()),
            "{p:?} with {} stones",
            p.moves()
        );
    }
}

#[test]
fn each_book_score_is_the_best_of_its_moves_it_knows() {
    // The book holds positions along the perfect bot's lines (see
    // `crates/tools/examples/c4book.rs`), reached from the empty board through book
    // positions. Each move whose score is known one stone deeper scores at
    // most the position, and when all are known the best is the position's
    // score. Where the bot is to move the book holds a move of that score.
    let book = Book::embedded();
    let mut todo = vec![Position::new()];
    let (mut checked, mut with_best) = (0, 0);
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = todo.pop() {
        let Some(score) = book.score(p.book_key()) else {
            continue;
        };
        if !seen.insert(p.book_key()) {
            continue;
        }
        let known: Vec<Option<i32>> = (0..WIDTH)
            .filter(|&c| p.can_play(c))
            .map(|c| known_move_score(book, &p, c))
            .collect();
        let best = known.iter().flatten().max().copied();
        assert!(best.is_none_or(|b| b <= score), "{p:?}: {known:?} {score}");
        if known.iter().all(Option::is_some) {
            assert_eq!(best, Some(score), "{p:?}");
        }
        checked += 1;
        with_best += usize::from(best == Some(score));
        for c in (0..WIDTH).filter(|&c| p.can_play(c) && !p.is_winning_move(c)) {
            let mut child = p;
            child.play(c);
            if child.moves() <= book.depth() {
                todo.push(child);
            }
        }
    }
    assert!(checked <= book.len(), "{checked}");
    // The bot's positions (about half, below the depth) have their move.
    assert!(with_best * 3 > checked, "{with_best} of {checked}");
}

#[test]
fn the_analysis_agrees_with_single_solves() {
    let mut analysis = Solver::new(Some(book()));
    let mut single = Solver::new(None);
    // Every move is solved, the bad ones too: a few beginning positions
    // cost seconds.
    let sample = cases(L3_R1, 50)
        .into_iter()
        .chain(cases(L2_R1, 50))
        .chain(cases(L1_R1, 250));
    for (moves, p, expected) in sample {
        let scores = analysis.analyze(&p).expect("no deadline");
        assert_eq!(scores.iter().flatten().max(), Some(&expected), "{moves}");
        for (col, score) in scores.iter().enumerate() {
            assert_eq!(score.is_some(), p.can_play(col), "{moves} column {col}");
            let Some(score) = *score else { continue };
            let single = if p.is_winning_move(col) {
                p.win_next_score()
            } else {
                let mut next = p;
                next.play(col);
                single.reset();
                -single.solve(&next).expect("no deadline")
            };
            assert_eq!(score, single, "{moves} column {}", col + 1);
        }
    }
}

#[test]
fn perfect_plays_a_move_of_the_best_score_and_so_the_quickest_win_or_slowest_loss() {
    let mut solver = Solver::new(Some(book()));
    let (mut wins, mut losses) = (0, 0);
    for (moves, p, expected) in cases(L3_R1, 4).into_iter().chain(cases(L2_R1, 10)) {
        let scores = solver.analyze(&p).expect("no deadline");
        let distinct: std::collections::HashSet<_> = scores.iter().flatten().collect();
        // Only positions where the choice matters.
        if distinct.len() < 2 {
            continue;
        }
        let s = suggest(&game_after(moves), Level::Perfect, 3);
        assert_eq!(scores[column_of(s.mv)], Some(expected), "{moves}");
        match expected {
            e if e > 0 && distinct.iter().any(|&&v| v > 0 && v < e) => wins += 1,
            e if e < 0 && distinct.iter().any(|&&v| v < e) => losses += 1,
            _ => {}
        }
    }
    // Positions with a slower win, or a quicker loss, on offer.
    assert!(wins >= 20 && losses >= 20, "{wins} {losses}");
}

/// Plays `perfect` against itself from `moves` and checks that the game
/// ends as the first evaluation says, in as many plies.
fn assert_evaluation_comes_true(moves: &str) {
    let mut game = game_after(moves);
    let mover = game.to_move();
    let first = suggest(&game, Level::Perfect, 1).evaluation;
    let Evaluation {
        proven: Some((outcome, plies)),
        ..
    } = first
    else {
        panic!("{moves}: no proof in {first:?}");
    };
    let mut played = 0;
    while !game.is_over() {
        let s = suggest(&game, Level::Perfect, played);
        game.try_play(s.mv).expect("a legal move");
        played += 1;
    }
    let actual = match game.winner() {
        None => Outcome::Draw,
        Some(w) if w == mover => Outcome::Win,
        Some(_) => Outcome::Loss,
    };
    assert_eq!((actual, u64::from(plies)), (outcome, played), "{moves}");
}

#[test]
fn the_perfect_evaluation_comes_true_in_self_play() {
    for (moves, _, _) in cases(L3_R1, 20).into_iter().chain(cases(L2_R1, 50)) {
        assert_evaluation_comes_true(moves);
    }
}

/// Plays `perfect` (as `side`) against `hard` from `moves`; the winner.
fn perfect_against_hard(moves: &str, side: Player, seed: u64) -> Option<Player> {
    let mut game = game_after(moves);
    while !game.is_over() {
        let s = if game.to_move() == side {
            suggest(&game, Level::Perfect, seed)
        } else {
            suggest_with(&game, Level::Hard, seed, work(game.kind()))
        };
        game.try_play(s.mv).expect("bots play legal moves");
    }
    game.winner()
}

#[test]
fn perfect_never_loses_to_hard_from_openings_it_does_not_lose() {
    // Openings of 12 to 14 stones from the beginning sets: deeper than the
    // book, so the solver searches every move of the game.
    let openings: Vec<(&str, i32)> = cases(L1_R1, 1)
        .into_iter()
        .filter(|(moves, _, _)| moves.len() >= 12)
        .step_by(40)
        .chain(
            cases(L1_R2, 1)
                .into_iter()
                .filter(|(moves, _, _)| moves.len() >= 13)
                .step_by(80),
        )
        .map(|(moves, _, score)| (moves, score))
        .collect();
    assert!(openings.len() >= 8, "{}", openings.len());
    let (mut won, mut drawn) = (0, 0);
    for (i, (moves, score)) in openings.into_iter().enumerate() {
        // Perfect takes the side to move when that side does not lose,
        // else the other side.
        let to_move = game_after(moves).to_move();
        let side = if score >= 0 { to_move } else { to_move.other() };
        let winner = perfect_against_hard(moves, side, i as u64);
        assert_ne!(
            winner,
            Some(side.other()),
            "{moves}: perfect lost as {side:?}"
        );
        if score != 0 {
            assert_eq!(winner, Some(side), "{moves}: a won position not won");
            won += 1;
        } else if winner.is_none() {
            drawn += 1;
        }
    }
    assert!(won >= 4, "{won} won, {drawn} drawn");
}

/// Plays `perfect` as `side` from the empty board against `other` (with
/// `seed`); checks that the book holds every position where `perfect` is to
/// move before the book's depth, and the move it plays there; the winner.
fn perfect_from_the_start(side: Player, other: Level, seed: u64) -> Option<Player> {
    let book = Book::embedded();
    let mut game = AnyGame::new(Setup::ConnectFour);
    let mut moves = String::new();
    while !game.is_over() {
        let s = if game.to_move() == side {
            let s = suggest(&game, Level::Perfect, seed);
            let AnyGame::ConnectFour(g) = &game else {
                unreachable!()
            };
            let p = Position::from_game(g).expect("not over");
            if p.moves() < book.depth() {
                let score = known_score(book, &p);
                assert!(score.is_some(), "{moves}: not in the book");
                assert_eq!(
                    known_move_score(book, &p, column_of(s.mv)),
                    score,
                    "{moves}: a move of the book's score"
                );
            }
            s
        } else {
            suggest_with(&game, other, seed, work(game.kind()))
        };
        moves.push(char::from(b'1' + u8::try_from(column_of(s.mv)).unwrap()));
        game.try_play(s.mv).expect("bots play legal moves");
    }
    game.winner()
}

#[test]
fn perfect_as_x_wins_from_the_empty_board_and_plays_from_the_book() {
    // Connect Four is a first-player win: perfect as X wins against any
    // replies, and the book (its lines as X and O, see `crates/tools/examples/c4book.rs`)
    // holds every position it meets before the book's depth.
    assert!(Book::embedded().depth() >= 10, "the committed book");
    for seed in 0..4 {
        assert_eq!(
            perfect_from_the_start(Player::X, Level::Random, seed),
            Some(Player::X)
        );
    }
    for seed in 0..2 {
        assert_eq!(
            perfect_from_the_start(Player::X, Level::Hard, seed),
            Some(Player::X)
        );
    }
}

#[test]
fn perfect_as_o_plays_from_the_book_and_punishes_random_play() {
    // As O it loses to perfect play; a random X gives the win away, and
    // perfect takes it.
    for seed in 0..4 {
        assert_eq!(
            perfect_from_the_start(Player::O, Level::Random, seed),
            Some(Player::O)
        );
    }
}

#[test]
fn perfect_answers_the_empty_board_from_the_book() {
    // A solve of the empty board takes minutes: the bot plays from the
    // opening book, the centre, a win with X's 21st stone (the 41st ply).
    let game = AnyGame::new(Setup::ConnectFour);
    let s = ai::choose(&game, Level::Perfect, 0, Budget::from_millis(300))
        .expect("available")
        .expect("a move");
    assert_eq!(s.mv, column(WIDTH / 2));
    assert_eq!(s.evaluation.proven, Some((Outcome::Win, 41)));
}

#[test]
fn perfect_out_of_time_plays_the_move_of_hard() {
    // A drawn position of 10 stones: seconds for the solver, far more than
    // a budget of 50 ms.
    let game = game_after("2773315563");
    let start = Instant::now();
    let s = ai::choose_with_work(&game, Level::Perfect, 1, Budget::from_millis(50), 20_000)
        .expect("available")
        .expect("a move");
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert!(game.check(s.mv).is_ok());
    assert_eq!(s.evaluation.proven, None);
    // With time, it is proven.
    let s = suggest(&game, Level::Perfect, 1);
    assert_eq!(s.evaluation.proven, Some((Outcome::Draw, 32)));
}
