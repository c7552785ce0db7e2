//! Analysis: every legal move of a position with its evaluation, best first.
//!
//! Each move is judged by the position it leads to: a move that ends the
//! game is a proven win (or draw) in one; otherwise the level's bot searches
//! the position after the move for the opponent, and the opponent's view of
//! it, turned round and one ply further away, is the move's evaluation. So a
//! move the search shows to lose at once is a proven loss in two, and at the
//! exact levels every evaluation is exact.
//!
//! The budget is the one of a single bot move, shared between the moves: the
//! work allowance is split evenly (so the analysis stays deterministic), and
//! each move may use the time left divided by the moves left (so time one
//! move does not need goes to the next). Bounded by work instead, the time
//! is only an overall cap: each move's search may use all that is left, so
//! on a busy machine the searches take longer but end on their work, the
//! same; should the cap be reached, the analysis says so
//! ([`Analysis::stopped_on_time`]) and the moves not searched by then are
//! left unknown. Connect Four's `perfect` level
//! solves the moves with one solver (its table is shared between the
//! moves): within three quarters of the time, as for a hint, and the moves
//! it has not solved by then are evaluated at `hard` in what is left, not
//! marked proven.

use std::time::{Duration, Instant};

use super::{Budget, Evaluation, Level, Outcome, Unavailable, check_available, choose_with_work};
use tabula_rules::{AnyGame, AnyMove};

/// A legal move and what the analysis found about it, from the view of the
/// side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub mv: AnyMove,
    pub evaluation: Evaluation,
}

/// Every legal move of a position, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The moves, best first; empty when the game is over.
    pub moves: Vec<ScoredMove>,
    /// Whether every evaluation is proven (true, too, for a finished game:
    /// there is nothing left to know).
    pub exact: bool,
    /// Bounded by work ([`analyze_with_work`]): whether the time cap was
    /// reached before the work was done, so that the answer may differ from
    /// another run's. Always false for an analysis bounded by time.
    pub stopped_on_time: bool,
}

/// Analyzes every legal move of `game` at `level` within `budget` (the time
/// of one bot move, shared between the moves; see the module docs).
///
/// The moves come best first: by score, then a quicker win before a slower
/// one, a slower loss before a quicker one, a proven draw before an unproven
/// even score, then in the order of [`AnyGame::legal_moves`].
///
/// # Errors
/// [`Unavailable`] as [`check_available`].
///
/// # Examples
///
/// ```
/// use tabula_bots::{self as ai, Budget, Level, Outcome};
/// use tabula_rules::{GameKind, Setup, notation};
///
/// // X (1, 2) to move and win with 3 (the top row).
/// let line = notation::parse_line(Setup::default_for(GameKind::TicTacToe), "1425").unwrap();
/// let analysis = ai::analyze(line.position(), Level::Perfect, 0, Budget::from_millis(100))?;
/// assert_eq!(analysis.moves.len(), 5);
/// assert!(analysis.exact);
/// assert_eq!(analysis.moves[0].evaluation.proven, Some((Outcome::Win, 1)));
/// # Ok::<(), ai::Unavailable>(())
/// ```
pub fn analyze(
    game: &AnyGame,
    level: Level,
    seed: u64,
    budget: Budget,
) -> Result<Analysis, Unavailable> {
    analyze_within(game, level, seed, budget, None)
}

/// Like [`analyze`], bounded by `work` (see [`Budget::work`] for its unit)
/// rather than by the time: the moves share `work`, and Connect Four's
/// `perfect` solver may count `work` nodes too, on a table of its own, before
/// the moves it has not solved share `work` at `hard`. `budget.time` is an
/// overall cap only: the answer is the same every time the cap is not
/// reached, and says when it was ([`Analysis::stopped_on_time`]).
///
/// # Errors
/// [`Unavailable`] as [`check_available`].
pub fn analyze_with_work(
    game: &AnyGame,
    level: Level,
    seed: u64,
    budget: Budget,
    work: u64,
) -> Result<Analysis, Unavailable> {
    analyze_within(game, level, seed, budget, Some(work))
}

/// [`analyze`] with the work given, or else derived from the time.
fn analyze_within(
    game: &AnyGame,
    level: Level,
    seed: u64,
    budget: Budget,
    work: Option<u64>,
) -> Result<Analysis, Unavailable> {
    check_available(game, level)?;
    let legal = game.legal_moves();
    if legal.is_empty() {
        return Ok(Analysis {
            moves: Vec::new(),
            exact: true,
            stopped_on_time: false,
        });
    }
    let start = Instant::now();
    let deadline = start.checked_add(budget.time);
    // Bounded by work, whether the cap has been reached (or the caller
    // stopped the analysis: nobody waits for it).
    let stop = super::Stop::current();
    let past_cap = || {
        work.is_some()
            && (deadline.is_some_and(|d| Instant::now() >= d)
                || stop.as_ref().is_some_and(super::Stop::is_stopped))
    };
    let mut stopped_on_time = false;
    let mut found: Vec<Option<Evaluation>> = vec![None; legal.len()];
    let mut level = level;
    if let (AnyGame::ConnectFour(g), Level::Perfect) = (game, level) {
        // Bounded by time, the solver leaves a quarter of it to `hard`.
        let solver_deadline = match work {
            None => start.checked_add(budget.time * 3 / 4),
            Some(_) => deadline,
        };
        found = super::connect_four::exact_move_evaluations(g, solver_deadline, work);
        stopped_on_time |= past_cap();
        // What the solver did not finish, `hard` evaluates (as for a hint).
        level = Level::Hard;
    }
    let bounded_by_work = work.is_some();
    let open = found.iter().filter(|e| e.is_none()).count();
    let work =
        work.unwrap_or_else(|| budget.work(game.kind())) / u64::try_from(open.max(1)).unwrap_or(1);
    let mut left = open;
    for (slot, &mv) in found.iter_mut().zip(&legal) {
        if slot.is_some() || stopped_on_time {
            continue;
        }
        let now = Instant::now();
        let time_left = deadline.map_or(budget.time, |d| d.saturating_duration_since(now));
        let time = if bounded_by_work {
            time_left
        } else {
            time_left / u32::try_from(left.max(1)).unwrap_or(u32::MAX)
        };
        *slot = Some(evaluate_move(game, mv, level, seed, time, work.max(1)));
        stopped_on_time |= past_cap();
        left -= 1;
    }
    let mut moves: Vec<ScoredMove> = legal
        .into_iter()
        .zip(found)
        .map(|(mv, evaluation)| ScoredMove {
            mv,
            evaluation: evaluation.unwrap_or(Evaluation::UNKNOWN),
        })
        .collect();
    moves.sort_by_key(|m| rank(m.evaluation));
    let exact = moves.iter().all(|m| m.evaluation.proven.is_some());
    Ok(Analysis {
        moves,
        exact,
        stopped_on_time,
    })
}

/// The evaluation of playing `mv` (legal) in `game`, for `game`'s side to
/// move: the end of the game it makes, or the opponent's search of the
/// position after it, turned round.
fn evaluate_move(
    game: &AnyGame,
    mv: AnyMove,
    level: Level,
    seed: u64,
    time: Duration,
    work: u64,
) -> Evaluation {
    let mut next = game.clone();
    if next.try_play(mv).is_err() {
        return Evaluation::UNKNOWN;
    }
    if let Some(winner) = next.winner() {
        let outcome = if winner == game.to_move() {
            Outcome::Win
        } else {
            Outcome::Loss
        };
        return Evaluation::proven(outcome, 1);
    }
    if next.is_over() {
        return Evaluation::proven(Outcome::Draw, 1);
    }
    match choose_with_work(&next, level, seed, Budget { time }, work) {
        Ok(Some(reply)) => one_ply_back(reply.evaluation),
        _ => Evaluation::UNKNOWN,
    }
}

/// The opponent's evaluation of the position after a move, from the view
/// of the side that made the move, counting the move as the first ply.
fn one_ply_back(e: Evaluation) -> Evaluation {
    match e.proven {
        Some((outcome, plies)) => {
            let turned = match outcome {
                Outcome::Win => Outcome::Loss,
                Outcome::Loss => Outcome::Win,
                Outcome::Draw => Outcome::Draw,
            };
            Evaluation::proven(turned, plies + 1)
        }
        None => Evaluation::heuristic(-e.score),
    }
}

/// The sort key of an evaluation, smallest best: the higher score first;
/// among equal scores a quicker win, a slower loss, a proven draw before an
/// unproven even score.
fn rank(e: Evaluation) -> (i32, i64) {
    let tie = match e.proven {
        Some((Outcome::Win, plies)) => i64::from(plies),
        Some((Outcome::Loss, plies)) => -i64::from(plies),
        Some((Outcome::Draw, _)) => 0,
        None => i64::MAX,
    };
    (-e.score, tie)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_rules::{GameKind, Setup, notation};

    fn position(kind: GameKind, line: &str) -> AnyGame {
        notation::parse_line(Setup::default_for(kind), line)
            .unwrap()
            .position()
            .clone()
    }

    #[test]
    fn every_legal_move_is_listed_once_at_every_level() {
        for kind in GameKind::ALL {
            let game = AnyGame::new(Setup::default_for(kind));
            for level in Level::ALL {
                let Ok(analysis) = analyze(&game, level, 0, Budget::from_millis(30)) else {
                    assert!(check_available(&game, level).is_err(), "{kind} {level}");
                    continue;
                };
                let mut listed: Vec<AnyMove> = analysis.moves.iter().map(|m| m.mv).collect();
                let mut legal = game.legal_moves();
                listed.sort_by_key(|m| format!("{m:?}"));
                legal.sort_by_key(|m| format!("{m:?}"));
                assert_eq!(listed, legal, "{kind} {level}");
            }
        }
    }

    #[test]
    fn a_finished_game_has_nothing_to_analyze() {
        let game = position(GameKind::TicTacToe, "14253");
        let analysis = analyze(&game, Level::Hard, 0, Budget::from_millis(10)).unwrap();
        assert_eq!(analysis.moves, []);
        assert!(analysis.exact);
    }

    #[test]
    fn tic_tac_toe_is_analyzed_exactly_best_first() {
        // X: 1, 5; O: 4, 9 (ply 4, X to move). 3 makes two threats (2 and
        // 7) and wins.
        let game = position(GameKind::TicTacToe, "1459");
        let analysis = analyze(&game, Level::Perfect, 0, Budget::from_millis(50)).unwrap();
        assert!(analysis.exact);
        let first = analysis.moves[0].evaluation;
        assert_eq!(first.proven.map(|(o, _)| o), Some(Outcome::Win));
        let ranks: Vec<_> = analysis.moves.iter().map(|m| rank(m.evaluation)).collect();
        assert!(ranks.is_sorted(), "{analysis:?}");
    }

    #[test]
    fn a_winning_move_comes_first_and_a_move_that_lets_the_opponent_win_last() {
        // X: 1, 2; O: 4, 5. X wins with 3; any other move but 6 lets O win
        // with 6 at once.
        let game = position(GameKind::TicTacToe, "1425");
        for level in [Level::Easy, Level::Medium, Level::Hard, Level::Perfect] {
            let analysis = analyze(&game, level, 0, Budget::from_millis(20)).unwrap();
            let first = analysis.moves[0];
            assert_eq!(
                first.mv.input(),
                tabula_rules::MoveInput::Cell { row: 0, col: 2 },
                "{level}"
            );
            assert_eq!(first.evaluation, Evaluation::proven(Outcome::Win, 1));
            let last = analysis.moves.last().unwrap().evaluation;
            assert_eq!(last.proven, Some((Outcome::Loss, 2)), "{level}");
        }
    }

    /// A Connect Four game `stones` moves in, not over, played at random
    /// from `seed` (the next seed when a game ends early).
    fn late_connect_four(mut seed: u64, stones: u32) -> AnyGame {
        loop {
            let mut game = AnyGame::new(Setup::ConnectFour);
            while game.ply() < stones && !game.is_over() {
                let m = super::super::choose(&game, Level::Random, seed, Budget::from_millis(1))
                    .unwrap()
                    .unwrap();
                game.try_play(m.mv).unwrap();
            }
            if !game.is_over() {
                return game;
            }
            seed += 1;
        }
    }

    #[test]
    fn connect_four_perfect_proves_every_move_of_a_late_position() {
        // 26 stones in: the solver finishes well within the budget.
        let game = late_connect_four(3, 26);
        let analysis = analyze(&game, Level::Perfect, 0, Budget::from_millis(4000)).unwrap();
        assert!(analysis.exact, "{analysis:?}");
        assert_eq!(analysis.moves.len(), game.legal_moves().len());
        let ranks: Vec<_> = analysis.moves.iter().map(|m| rank(m.evaluation)).collect();
        assert!(ranks.is_sorted());
        // The best move's evaluation is the solver's of the position itself.
        let hint = super::super::choose(&game, Level::Perfect, 0, Budget::from_millis(4000))
            .unwrap()
            .unwrap();
        assert_eq!(analysis.moves[0].evaluation, hint.evaluation);
        // Each move agrees with the solver's view of the position after it.
        for m in &analysis.moves {
            let mut next = game.clone();
            next.try_play(m.mv).unwrap();
            if next.is_over() {
                continue;
            }
            let reply = super::super::choose(&next, Level::Perfect, 0, Budget::from_millis(4000))
                .unwrap()
                .unwrap();
            assert_eq!(m.evaluation, one_ply_back(reply.evaluation), "{m:?}");
        }
    }

    #[test]
    fn connect_four_perfect_falls_back_when_the_solver_runs_out_of_time() {
        // Both players in the first column: off the book (which follows the
        // perfect bot's own lines, and its reply is not there), and each
        // move after it is far beyond a few milliseconds of solving.
        use super::super::connect_four::{book::Book, solver};
        use tabula_rules::connect_four::Column;
        let mut game = AnyGame::new(Setup::ConnectFour);
        for _ in 0..2 {
            game.try_play(AnyMove::ConnectFour(Column::ALL[0])).unwrap();
        }
        let position = solver::Position::from_moves("11").unwrap();
        for col in 0..solver::WIDTH {
            assert_eq!(
                solver::known_move_score(Book::embedded(), &position, col),
                None
            );
        }
        let analysis = analyze(&game, Level::Perfect, 0, Budget::from_millis(4)).unwrap();
        assert!(!analysis.exact);
        assert_eq!(analysis.moves.len(), 7);
        assert!(analysis.moves.iter().any(|m| m.evaluation.proven.is_none()));
    }

    #[test]
    fn bounded_by_work_the_perfect_solver_stops_at_the_same_node_every_time() {
        // Off the book, early: the solver cannot finish in 20,000 nodes,
        // and what it leaves is evaluated at `hard`. Searches in between
        // (which warm the kept tables) change nothing.
        let game = position(GameKind::ConnectFour, "11");
        let budget = Budget::from_millis(10_000);
        let first = analyze_with_work(&game, Level::Perfect, 0, budget, 20_000).unwrap();
        assert!(!first.exact, "not solved within 20,000 nodes");
        let _ = analyze(&game, Level::Perfect, 0, Budget::from_millis(200)).unwrap();
        for _ in 0..2 {
            let again = analyze_with_work(&game, Level::Perfect, 0, budget, 20_000).unwrap();
            assert_eq!(again, first);
        }
        // With enough work every move is proven.
        let late = position(GameKind::ConnectFour, "5554224333234511764415115");
        let solved = analyze_with_work(&late, Level::Perfect, 0, budget, 2_000_000).unwrap();
        assert!(solved.exact);
    }

    #[test]
    fn turning_an_evaluation_round_adds_the_move() {
        assert_eq!(
            one_ply_back(Evaluation::proven(Outcome::Win, 1)),
            Evaluation::proven(Outcome::Loss, 2)
        );
        assert_eq!(
            one_ply_back(Evaluation::proven(Outcome::Draw, 4)),
            Evaluation::proven(Outcome::Draw, 5)
        );
        assert_eq!(
            one_ply_back(Evaluation::heuristic(120)),
            Evaluation::heuristic(-120)
        );
    }
}
