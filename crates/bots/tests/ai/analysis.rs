//! An analysis bounded by work: the time is only an overall cap. Within it,
//! the answer is the same every time; past it, the answer says so.

use std::time::Duration;

use tabula_bots::{self as ai, Budget, Level};
use tabula_rules::{AnyGame, GameKind, Setup};

use crate::{TIME_CAP, work};

fn positions() -> Vec<(AnyGame, Level)> {
    vec![
        (AnyGame::new(Setup::UltimateTicTacToe), Level::Hard),
        (
            AnyGame::new(Setup::default_for(GameKind::Gomoku)),
            Level::Hard,
        ),
        (AnyGame::new(Setup::ConnectFour), Level::Hard),
    ]
}

#[test]
fn within_the_cap_an_analysis_bounded_by_work_repeats_and_says_it_did_not_stop_on_time() {
    for (game, level) in positions() {
        let w = work(game.kind()) * 20;
        let budget = Budget { time: TIME_CAP };
        let first = ai::analyze_with_work(&game, level, 7, budget, w).unwrap();
        let again = ai::analyze_with_work(&game, level, 7, budget, w).unwrap();
        assert!(!first.stopped_on_time, "{:?}", game.kind());
        assert_eq!(first, again, "{:?}", game.kind());
    }
}

#[test]
fn an_analysis_that_reaches_its_cap_says_so_and_leaves_the_rest_unknown() {
    for (game, level) in positions() {
        // A cap already reached when the analysis begins: the first move's
        // search ends on time, and no other is started.
        let budget = Budget {
            time: Duration::ZERO,
        };
        let cut = ai::analyze_with_work(&game, level, 7, budget, 10_000_000).unwrap();
        assert!(cut.stopped_on_time, "{:?}", game.kind());
        let unknown = cut
            .moves
            .iter()
            .filter(|m| m.evaluation == ai::Evaluation::UNKNOWN)
            .count();
        assert!(
            unknown >= cut.moves.len() - 1,
            "{:?}: {unknown}",
            game.kind()
        );
        // Bounded by time alone, an analysis never says it stopped on time.
        let timed = ai::analyze(&game, level, 7, Budget::from_millis(1)).unwrap();
        assert!(!timed.stopped_on_time);
    }
}

#[test]
fn a_search_whose_stop_is_pulled_ends_as_at_its_cap() {
    for (game, level) in positions() {
        // Nobody waits any more: a search of a work that would take far
        // longer than the test (and a cap of a minute) ends at once.
        let stop = ai::Stop::new();
        stop.stop();
        let budget = Budget { time: TIME_CAP };
        let cut = stop
            .run(|| ai::analyze_with_work(&game, level, 7, budget, u64::MAX / 2))
            .unwrap();
        assert!(cut.stopped_on_time, "{:?}", game.kind());
        let hint = stop.run(|| ai::choose_with_work(&game, level, 7, budget, u64::MAX / 2));
        assert!(
            hint.unwrap().is_some(),
            "{:?}: a move all the same",
            game.kind()
        );
    }
    // Connect Four's solver, too.
    let stop = ai::Stop::new();
    stop.stop();
    let game = AnyGame::new(Setup::ConnectFour);
    let budget = Budget { time: TIME_CAP };
    let cut = stop
        .run(|| ai::analyze_with_work(&game, Level::Perfect, 7, budget, u64::MAX / 2))
        .unwrap();
    assert!(cut.stopped_on_time);
}
