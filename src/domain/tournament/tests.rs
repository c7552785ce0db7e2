use chrono::{TimeZone, Utc};

use super::*;

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_800_000_000 + secs, 0).unwrap()
}

fn entrant(name: &str, rating: f64) -> Entrant {
    Entrant {
        player: name.to_lowercase(),
        name: name.into(),
        level: None,
        credential: TokenHash::of(name),
        rating,
        number: 0,
        withdrawn: false,
        from_round: 1,
        bot: false,
    }
}

fn tournament(system: System, names: &[(&str, f64)]) -> TournamentRecord {
    TournamentRecord {
        id: Uuid::nil(),
        name: "Test".into(),
        setup: Setup::ConnectFour,
        system,
        clock: TimeControl::Fischer {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        rated: false,
        rounds: (system == System::Swiss).then_some(3),
        double: false,
        duration_ms: (system == System::Arena).then_some(3_600_000),
        max_entrants: 100,
        starts_at: None,
        private: false,
        invite: None,
        status: TournamentStatus::Open,
        round: 0,
        creator: "ann".into(),
        created_at: at(0),
        started_at: None,
        ends_at: None,
        finished_at: None,
        round_ended_at: None,
        pause_ms: 10_000,
        version: 1,
        entrants: names.iter().map(|(n, r)| entrant(n, *r)).collect(),
        boards: Vec::new(),
    }
}

/// Pairs and starts round `round`, a game id per board from `next`.
fn pair(t: &mut TournamentRecord, round: u32, next: &mut u128) -> Vec<Uuid> {
    let boards = t.pair_round(round).unwrap();
    t.round = round;
    t.round_ended_at = None;
    let mut games = Vec::new();
    for nb in boards {
        let game = nb.result.is_none().then(|| {
            *next += 1;
            Uuid::from_u128(*next)
        });
        games.extend(game);
        t.boards.push(Board {
            round,
            white: nb.white,
            black: nb.black,
            game,
            result: nb.result,
            ended_at: nb.result.map(|_| at(0)),
        });
    }
    games
}

#[test]
fn the_start_ranks_by_rating_then_entry_and_the_first_round_is_due_at_once() {
    let mut t = tournament(
        System::Swiss,
        &[
            ("Ann", 1500.0),
            ("Bob", 1700.0),
            ("Cid", 1500.0),
            ("Dee", 1600.0),
        ],
    );
    assert_eq!(t.step(at(0)), None, "no start time: the creator starts it");
    t.starts_at = Some(at(5));
    assert_eq!(t.step(at(4)), None);
    assert_eq!(t.step(at(5)), Some(Step::Start));
    t.start(at(5));
    let ranks: Vec<u32> = t.entrants.iter().map(|e| e.number).collect();
    assert_eq!(ranks, [3, 1, 4, 2]);
    assert_eq!(t.step(at(5)), Some(Step::PairRound(1)));
    assert_eq!(t.due_at(at(5)), Some(at(5)));
}

#[test]
fn a_round_is_due_a_pause_after_its_last_game_and_the_last_round_finishes() {
    let mut t = tournament(
        System::Swiss,
        &[("Ann", 0.0), ("Bob", 0.0), ("Cid", 0.0), ("Dee", 0.0)],
    );
    t.rounds = Some(2);
    t.start(at(0));
    let mut next = 0;
    let games = pair(&mut t, 1, &mut next);
    assert_eq!(t.due_at(at(1)), None, "waiting for the games");
    t.record(games[0], BoardResult::Draw, at(15));
    assert_eq!(t.step(at(16)), None, "a game of the round is still played");
    assert!(t.record(games[1], BoardResult::Draw, at(20)).is_some());
    assert!(
        t.record(games[1], BoardResult::WhiteWins, at(21)).is_none(),
        "a result is recorded once"
    );
    assert_eq!(t.due_at(at(20)), Some(at(30)));
    assert_eq!(t.step(at(29)), None);
    assert_eq!(t.step(at(30)), Some(Step::PairRound(2)));
    for g in pair(&mut t, 2, &mut next) {
        t.record(g, BoardResult::BlackWins, at(40));
    }
    assert_eq!(t.step(at(40)), Some(Step::Finish));
    // Two players who have met cannot meet again: no pairing.
    let mut two = tournament(System::Swiss, &[("Ann", 0.0), ("Bob", 0.0)]);
    two.start(at(0));
    let g = pair(&mut two, 1, &mut next);
    two.record(g[0], BoardResult::Draw, at(5));
    assert_eq!(two.pair_round(2), Err(dutch::DutchError::NoPairing));
}

#[test]
fn the_trf_gives_the_withdrawn_and_late_entrants_the_coming_round_as_z() {
    let mut t = tournament(
        System::Swiss,
        &[("Ann", 1800.0), ("Bob", 1700.0), ("Cid", 1600.0)],
    );
    t.start(at(0));
    let mut next = 0;
    let games = pair(&mut t, 1, &mut next);
    t.record(games[0], BoardResult::WhiteWins, at(10));
    t.leave(1);
    let late = t.enter(entrant("Dee", 1500.0));
    assert_eq!(
        (t.entrants[late].number, t.entrants[late].from_round),
        (4, 2)
    );
    let file = t.trf(2);
    let z = trf::Entry {
        opponent: None,
        colour: None,
        outcome: Outcome::Absent,
    };
    assert_eq!(
        file.players[1].rounds,
        [file.players[1].rounds[0], z],
        "Bob withdrawn"
    );
    assert_eq!(
        file.players[3].rounds,
        [z],
        "Dee missed round 1 and is paired from 2"
    );
    let text = t.trf_text();
    assert!(text.contains("0000 - Z"), "{text}");
    // Round 2 pairs the two still in and the newcomer: one game and a bye.
    let boards = t.pair_round(2).unwrap();
    assert_eq!(boards.len(), 2);
    assert!(boards.iter().all(|b| b.white != 1 && b.black != Some(1)));
}

#[test]
fn a_forfeit_withdraws_the_absent_side_and_counts_as_not_played() {
    let mut t = tournament(System::Swiss, &[("Ann", 1800.0), ("Bob", 1700.0)]);
    t.start(at(0));
    let mut next = 0;
    let games = pair(&mut t, 1, &mut next);
    t.record(games[0], BoardResult::BlackByForfeit, at(31));
    assert!(t.entrants[0].withdrawn);
    let table = t.standings();
    assert_eq!(
        (table[0].entrant, table[0].halves, table[0].played),
        (1, 2, 0)
    );
    assert_eq!(t.trf(2).players[0].rounds[0].outcome, Outcome::ForfeitLoss);
}

#[test]
fn a_round_robin_forfeits_a_withdrawn_entrants_boards_to_the_other_side() {
    let mut t = tournament(System::RoundRobin, &[("A", 0.0), ("B", 0.0), ("C", 0.0)]);
    t.start(at(0));
    assert_eq!(t.rounds, Some(3));
    t.entrants[2].withdrawn = true;
    let boards = t.pair_round(1).unwrap();
    // Berger for 3 (4 with the bye): round 1 is 4-1 (the bye: 1 sits out), 2-3.
    assert!(boards.contains(&NewBoard {
        round: 1,
        white: 1,
        black: Some(2),
        result: Some(BoardResult::WhiteByForfeit),
    }));
    assert!(boards.contains(&NewBoard {
        round: 1,
        white: 0,
        black: None,
        result: Some(BoardResult::SitOut),
    }));
}

#[test]
fn an_arena_pairs_free_entrants_and_scores_streaks_in_the_order_games_ended() {
    let mut t = tournament(
        System::Arena,
        &[("A", 1500.0), ("B", 1500.0), ("C", 1500.0), ("D", 1500.0)],
    );
    t.start(at(0));
    assert_eq!(t.ends_at, Some(at(3600)));
    assert_eq!(t.step(at(1)), Some(Step::PairFree));
    let mut game = 0u128;
    let mut start = |t: &mut TournamentRecord| {
        for nb in t.pair_free() {
            game += 1;
            t.round = nb.round;
            t.boards.push(Board {
                round: nb.round,
                white: nb.white,
                black: nb.black,
                game: Some(Uuid::from_u128(game)),
                result: None,
                ended_at: None,
            });
        }
    };
    start(&mut t);
    assert_eq!(t.boards.len(), 2);
    assert!(t.free().is_empty());
    // A beats its opponent three times running: 2 + 2 + 4.
    for k in 0..3 {
        let board = t
            .boards
            .iter()
            .rposition(|b| (b.white == 0 || b.black == Some(0)) && b.result.is_none())
            .unwrap();
        let result = if t.boards[board].white == 0 {
            BoardResult::WhiteWins
        } else {
            BoardResult::BlackWins
        };
        let id = t.boards[board].game.unwrap();
        t.record(id, result, at(10 * (k + 1)));
        start(&mut t);
    }
    let table = t.standings();
    assert_eq!(
        (table[0].entrant, table[0].halves, table[0].on_fire),
        (0, 16, true)
    );
    // Never the last opponent while someone else is free: the other board
    // is still in progress, so A met the only free one, B or its partner.
    assert_eq!(t.step(at(3600)), None, "games in progress finish first");
    for b in &mut t.boards {
        if b.result.is_none() {
            b.result = Some(BoardResult::Draw);
        }
    }
    assert_eq!(t.step(at(3600)), Some(Step::Finish));
}

#[test]
fn a_record_survives_its_json() {
    let mut t = tournament(System::Swiss, &[("Ann", 1800.0)]);
    t.entrants[0].level = Some(Level::Medium);
    t.invite = Some(TokenHash::of("code"));
    t.setup = Setup::default_for(crate::rules::GameKind::Gomoku);
    let text = serde_json::to_string(&t).unwrap();
    let back: TournamentRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, t);
}
