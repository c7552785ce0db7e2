//! Level against level: seeded matches in which each level beats the one
//! below; determinism; the time cap.

use std::time::{Duration, Instant};

use tabula_bots::{self as ai, Budget, Level};
use tabula_rules::{AnyGame, GameKind, GomokuOptions, GomokuRule, Player, Setup};

use crate::{answers_quickly, random_positions, suggest};

/// Results of a match, from the stronger level's side.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    stronger: u32,
    weaker: u32,
    draws: u32,
}

/// Plays `games` games, the stronger level taking X in even games.
fn play_match(setup: Setup, stronger: Level, weaker: Level, games: u32) -> Tally {
    let mut tally = Tally::default();
    for g in 0..games {
        let seed = 1_000 + u64::from(g);
        let stronger_side = if g % 2 == 0 { Player::X } else { Player::O };
        let mut game = AnyGame::new(setup);
        while !game.is_over() {
            let level = if game.to_move() == stronger_side {
                stronger
            } else {
                weaker
            };
            let s = suggest(&game, level, seed);
            game.try_play(s.mv).expect("bots play legal moves");
        }
        match game.winner() {
            Some(w) if w == stronger_side => tally.stronger += 1,
            Some(_) => tally.weaker += 1,
            None => tally.draws += 1,
        }
    }
    tally
}

/// The stronger level wins at least 60% of the decisive games, and more
/// games than it loses.
fn assert_beats(setup: Setup, stronger: Level, weaker: Level, games: u32) {
    let t = play_match(setup, stronger, weaker, games);
    let decisive = t.stronger + t.weaker;
    assert!(
        decisive > 0 && t.stronger * 10 >= decisive * 6 && t.stronger > t.weaker,
        "{:?}: {stronger} against {weaker}: {t:?}",
        setup.kind()
    );
}

#[test]
fn tic_tac_toe_levels_beat_the_level_below() {
    let setup = Setup::TicTacToe;
    assert_beats(setup, Level::Easy, Level::Random, 40);
    assert_beats(setup, Level::Medium, Level::Easy, 40);
    assert_beats(setup, Level::Hard, Level::Medium, 60);
    // Two perfect players: every game is drawn.
    let t = play_match(setup, Level::Perfect, Level::Hard, 20);
    assert_eq!((t.stronger, t.weaker, t.draws), (0, 0, 20));
}

#[test]
fn perfect_sets_more_traps_than_hard() {
    let medium = |level| play_match(Setup::TicTacToe, level, Level::Medium, 60);
    let (hard, perfect) = (medium(Level::Hard), medium(Level::Perfect));
    assert_eq!(hard.weaker + perfect.weaker, 0);
    assert!(perfect.stronger > hard.stronger, "{perfect:?} vs {hard:?}");
}

#[test]
fn connect_four_levels_beat_the_level_below() {
    let setup = Setup::ConnectFour;
    assert_beats(setup, Level::Easy, Level::Random, 20);
    assert_beats(setup, Level::Medium, Level::Easy, 20);
    assert_beats(setup, Level::Hard, Level::Medium, 20);
}

#[test]
fn gomoku_levels_beat_the_level_below() {
    let setup = Setup::Gomoku(GomokuOptions::default());
    assert_beats(setup, Level::Easy, Level::Random, 10);
    assert_beats(setup, Level::Medium, Level::Easy, 10);
    assert_beats(setup, Level::Hard, Level::Medium, 10);
}

#[test]
fn gomoku_hard_beats_medium_under_the_standard_rule_on_a_small_board() {
    let options = GomokuOptions::new(9, GomokuRule::Standard).expect("9x9");
    assert_beats(Setup::Gomoku(options), Level::Hard, Level::Medium, 10);
}

#[test]
fn ultimate_levels_beat_the_level_below() {
    let setup = Setup::UltimateTicTacToe;
    assert_beats(setup, Level::Easy, Level::Random, 20);
    assert_beats(setup, Level::Medium, Level::Easy, 20);
    assert_beats(setup, Level::Hard, Level::Medium, 20);
}

/// Some positions of every kind: the start and a few from random play.
fn positions() -> Vec<AnyGame> {
    GameKind::ALL
        .into_iter()
        .flat_map(|kind| {
            let setup = Setup::default_for(kind);
            let mut some = random_positions(setup, 12, 7);
            some.retain(|g| g.ply() % 4 == 1);
            some.push(AnyGame::new(setup));
            some
        })
        .collect()
}

#[test]
fn the_same_seed_and_position_give_the_same_suggestion() {
    for game in positions() {
        for level in Level::ALL {
            if ai::check_available(&game, level).is_err() || !answers_quickly(&game, level) {
                continue;
            }
            for seed in [0, 99] {
                let a = suggest(&game, level, seed);
                let b = suggest(&game, level, seed);
                assert_eq!(a, b, "{:?} {level} seed {seed}", game.kind());
            }
        }
    }
}

#[test]
fn seeds_vary_the_play_of_the_search_levels() {
    for kind in GameKind::ALL {
        for level in [Level::Medium, Level::Hard] {
            // The first three plies of medium against itself (gomoku always
            // opens in the centre).
            let openings: std::collections::HashSet<_> = (0..16)
                .map(|seed| {
                    let mut game = AnyGame::new(Setup::default_for(kind));
                    (0..3)
                        .map(|_| {
                            let mv = suggest(&game, level, seed).mv;
                            game.try_play(mv).expect("a legal move");
                            mv
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            assert!(
                openings.len() > 1,
                "{kind} {level}: always the same opening"
            );
        }
    }
}

#[test]
fn the_time_cap_cuts_an_unbounded_search() {
    for kind in GameKind::ALL {
        let game = AnyGame::new(Setup::default_for(kind));
        let budget = Budget {
            time: Duration::from_millis(30),
        };
        let start = Instant::now();
        let s = ai::choose_with_work(&game, Level::Hard, 1, budget, u64::MAX)
            .expect("available")
            .expect("a move");
        let spent = start.elapsed();
        assert!(game.check(s.mv).is_ok());
        assert!(spent < Duration::from_secs(2), "{kind}: {spent:?}");
    }
}

#[test]
fn choose_derives_its_work_from_the_time_budget() {
    for kind in GameKind::ALL {
        let game = AnyGame::new(Setup::default_for(kind));
        let budget = Budget::from_millis(20);
        let start = Instant::now();
        let s = ai::choose(&game, Level::Hard, 5, budget)
            .expect("available")
            .expect("a move");
        assert!(game.check(s.mv).is_ok());
        assert!(start.elapsed() < Duration::from_secs(2), "{kind}");
    }
}
