use super::*;

#[test]
fn a_bots_clock_runs_only_from_its_search_not_while_its_reply_waits() {
    let t0 = DateTime::parse_from_rfc3339("2026-11-24T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let at = |ms: i64| t0 + chrono::TimeDelta::milliseconds(ms);
    let mut game = GameRecord {
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x")),
            },
            Seat::Bot {
                level: Level::Hard,
                seed: 1,
            },
        ],
        clock: Some(GameClock::new(
            TimeControl::Fischer {
                initial_ms: 3000,
                increment_ms: 0,
            },
            DEFAULT_FIRST_MOVE_MS,
        )),
        as_of: t0,
        created_at: t0,
        updated_at: t0,
        ..GameRecord::blank(connect_four())
    };
    game.sync_clock(t0);
    assert_eq!(game.deadline(), Some(at(3000)), "the person's clock runs");
    let mv = crate::rules::MoveInput::Column { column: 3 };
    game.position.play_input(mv).unwrap();
    game.charge_move(Player::X, false, at(1000));
    game.sync_clock(at(1000));
    // The bot is to move: its reply may wait in a queue for as long as
    // the server is busy, and its time does not run meanwhile.
    assert_eq!(game.deadline(), None);
    assert!(!game.settle(at(60_000)), "no timeout while the reply waits");
    // Its search starts at 60 s and is recorded 200 ms later.
    if let Some(clock) = &mut game.clock {
        clock.since = Some(at(60_000));
    }
    game.position.play_input(mv).unwrap();
    game.charge_move(Player::O, false, at(60_200));
    game.sync_clock(at(60_200));
    let clock = game.clock.unwrap();
    assert_eq!(clock.remaining_ms, [2000, 2800]);
    assert_eq!(
        game.deadline(),
        Some(at(62_200)),
        "the person's clock runs again"
    );
}

fn connect_four() -> crate::rules::Setup {
    crate::rules::Setup::default_for(crate::rules::GameKind::ConnectFour)
}

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-03T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn ms(ms: i64) -> DateTime<Utc> {
    t0() + chrono::TimeDelta::milliseconds(ms)
}

/// Two people seated in a game of Connect Four with `clock`, at t0.
fn between_people(clock: Option<TimeControl>) -> GameRecord {
    let mut game = GameRecord {
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x")),
            },
            Seat::Human {
                token: Some(TokenHash::of("o")),
            },
        ],
        clock: clock.map(|c| GameClock::new(c, 20_000)),
        ..GameRecord::blank(connect_four())
    };
    game.sync_clock(t0());
    game.mark_turn(t0());
    game
}

/// Plays `column` at `now` as the service does.
fn play(game: &mut GameRecord, column: i64, now: DateTime<Utc>) {
    let side = game.position.to_move();
    let first = game.first_move_pending();
    game.position
        .play_input(crate::rules::MoveInput::Column { column })
        .unwrap();
    game.charge_move(side, first, now);
    game.sync_clock(now);
    game.mark_turn(now);
}

#[test]
fn between_people_each_first_move_runs_against_a_deadline_not_the_clock() {
    let blitz = TimeControl::Fischer {
        initial_ms: 60_000,
        increment_ms: 1000,
    };
    let mut game = between_people(Some(blitz));
    assert!(game.first_move_pending());
    assert_eq!(game.time_running(), None, "X's own time does not run");
    assert_eq!(game.first_move_deadline(), Some(ms(20_000)));
    assert_eq!(game.deadline(), Some(ms(20_000)));
    // X moves at 15 s: nothing charged, no increment.
    play(&mut game, 3, ms(15_000));
    assert_eq!(game.clock.unwrap().remaining_ms, [60_000, 60_000]);
    assert_eq!(
        game.first_move_deadline(),
        Some(ms(35_000)),
        "O's own window"
    );
    play(&mut game, 3, ms(16_000));
    assert!(!game.first_move_pending());
    assert_eq!(game.first_move_deadline(), None);
    assert_eq!(game.time_running(), Some(Player::X));
    assert_eq!(
        game.deadline(),
        Some(ms(76_000)),
        "from O's first move on, X's time runs"
    );
    play(&mut game, 4, ms(26_000));
    assert_eq!(game.clock.unwrap().remaining_ms, [51_000, 60_000]);
}

#[test]
fn a_missed_first_move_aborts_the_round_with_no_winner() {
    let per_move = TimeControl::PerMove { per_move_ms: 5000 };
    let mut game = between_people(Some(per_move));
    play(&mut game, 3, ms(1000));
    // O's first move: one move's time (a per-move clock's window).
    assert_eq!(game.first_move_deadline(), Some(ms(6000)));
    assert!(!game.settle(ms(5999)));
    assert!(game.settle(ms(6000)));
    assert_eq!(game.ending, Some(Ending::NoFirstMove(Player::O)));
    assert_eq!(
        game.outcome(),
        (GameStatus::Draw, None, Some(EndReason::Aborted))
    );
    assert_eq!(game.x_score(), None, "counts for nothing");
}

#[test]
fn a_bot_game_keeps_its_clock_from_the_start() {
    let blitz = TimeControl::Fischer {
        initial_ms: 60_000,
        increment_ms: 0,
    };
    let mut game = between_people(Some(blitz));
    game.seats[1] = Seat::Bot {
        level: Level::Easy,
        seed: 1,
    };
    assert!(!game.first_move_pending());
    assert_eq!(game.deadline(), Some(ms(60_000)));
}

#[test]
fn a_claim_opens_to_the_seat_not_to_move_after_the_delay_without_a_clock() {
    let mut game = between_people(None);
    game.claim_after_ms = 300_000;
    play(&mut game, 3, ms(1000));
    play(&mut game, 3, ms(2000));
    // X is to move since 2 s.
    assert_eq!(game.claimable_at(), Some(ms(302_000)));
    let early = game.clone().claim(Player::O, ClaimResult::Win, ms(301_999));
    assert_eq!(early, Err(Some(ms(302_000))));
    assert_eq!(
        game.clone().claim(Player::X, ClaimResult::Win, ms(400_000)),
        Err(None),
        "not the side to move"
    );
    let mut drawn = game.clone();
    drawn
        .claim(Player::O, ClaimResult::Draw, ms(302_000))
        .unwrap();
    assert_eq!(
        drawn.outcome(),
        (GameStatus::Draw, None, Some(EndReason::Abandoned))
    );
    game.claim(Player::O, ClaimResult::Win, ms(302_000))
        .unwrap();
    assert_eq!(
        game.outcome(),
        (GameStatus::Won, Some(Player::O), Some(EndReason::Abandoned))
    );
    assert_eq!(game.claimable_at(), None, "over");
}

#[test]
fn a_claim_before_each_side_moved_aborts_and_a_clock_means_no_claim() {
    let mut game = between_people(None);
    play(&mut game, 3, ms(1000));
    game.claim(
        Player::X,
        ClaimResult::Win,
        ms(1000 + DEFAULT_CLAIM_AFTER_MS),
    )
    .unwrap();
    assert_eq!(game.outcome().2, Some(EndReason::Aborted));
    let timed = between_people(Some(TimeControl::PerMove { per_move_ms: 5000 }));
    assert_eq!(timed.claimable_at(), None);
}

#[test]
fn a_game_written_before_turns_were_kept_counts_a_claim_from_its_last_change() {
    let mut game = between_people(None);
    game.turn = None;
    game.updated_at = ms(7000);
    assert_eq!(game.claimable_at(), Some(ms(7000 + DEFAULT_CLAIM_AFTER_MS)));
    game.seats[1] = Seat::Human { token: None };
    assert_eq!(game.claimable_at(), None, "waiting: nobody to claim from");
}

#[test]
fn a_turn_is_kept_across_other_changes_and_restarted_by_a_move() {
    let mut game = between_people(None);
    let since = game.turn.unwrap().since;
    game.mark_turn(ms(50_000));
    assert_eq!(
        game.turn.unwrap().since,
        since,
        "an offer or a read is no move"
    );
    play(&mut game, 0, ms(60_000));
    assert_eq!(game.turn.unwrap().since, ms(60_000));
}

#[test]
fn levels_round_trip_through_their_names() {
    for level in Level::ALL {
        assert_eq!(level.as_str().parse::<Level>(), Ok(level));
    }
    assert!("godlike".parse::<Level>().is_err());
}

#[test]
fn statuses_round_trip_through_their_names() {
    for status in GameStatus::ALL {
        assert_eq!(GameStatus::parse(status.as_str()), Some(status));
    }
    assert_eq!(GameStatus::parse("over"), None);
}

#[test]
fn a_token_hash_is_32_bytes_and_does_not_show_itself() {
    let hash = TokenHash::of("secret");
    assert_eq!(TokenHash::from_slice(hash.as_bytes()), Some(hash));
    assert_eq!(TokenHash::from_slice(&[0; 31]), None);
    assert!(!format!("{hash:?}").contains("secret"));
    assert_ne!(TokenHash::of("other"), hash);
}

#[test]
fn a_request_hash_tells_operation_body_and_token_apart_and_round_trips() {
    let t = TokenHash::of("t");
    let h = RequestHash::of("play", r#"{"column":3}"#, &t);
    assert_eq!(RequestHash::from_hex(&h.to_hex()), Some(h));
    assert_eq!(RequestHash::from_hex("00"), None);
    assert_ne!(RequestHash::of("bot_move", r#"{"column":3}"#, &t), h);
    assert_ne!(RequestHash::of("play", r#"{"column":4}"#, &t), h);
    assert_ne!(
        RequestHash::of("play", r#"{"column":3}"#, &TokenHash::of("u")),
        h
    );
    // Parts cannot slide into each other.
    assert_ne!(
        RequestHash::of("ab", "c", &t),
        RequestHash::of("a", "bc", &t)
    );
}
