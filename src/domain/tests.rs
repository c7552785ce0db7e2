use super::*;

#[test]
fn a_bots_clock_runs_only_from_its_search_not_while_its_reply_waits() {
    let t0 = DateTime::parse_from_rfc3339("2026-11-24T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let at = |ms: i64| t0 + chrono::TimeDelta::milliseconds(ms);
    let mut game = GameRecord {
        id: Uuid::nil(),
        position: AnyGame::new(crate::rules::Setup::default_for(
            crate::rules::GameKind::ConnectFour,
        )),
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x")),
            },
            Seat::Bot {
                level: Level::Hard,
                seed: 1,
            },
        ],
        hotseat: false,
        round: 1,
        ending: None,
        version: 1,
        derived: false,
        names: [None, None],
        private: false,
        invite: None,
        offer: None,
        clock: Some(GameClock::new(TimeControl::Fischer {
            initial_ms: 3000,
            increment_ms: 0,
        })),
        as_of: t0,
        players: crate::domain::player::Players::default(),
        rematch_of: None,
        rematch: None,
        created_at: t0,
        updated_at: t0,
    };
    game.sync_clock(t0);
    assert_eq!(game.deadline(), Some(at(3000)), "the person's clock runs");
    let mv = crate::rules::MoveInput::Column { column: 3 };
    game.position.play_input(mv).unwrap();
    game.charge_move(Player::X, at(1000));
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
    game.charge_move(Player::O, at(60_200));
    game.sync_clock(at(60_200));
    let clock = game.clock.unwrap();
    assert_eq!(clock.remaining_ms, [2000, 2800]);
    assert_eq!(
        game.deadline(),
        Some(at(62_200)),
        "the person's clock runs again"
    );
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
