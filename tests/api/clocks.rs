//! Clocks, on a manual time source: Fischer and per-move, time running only
//! for the side to move once both seats are taken, games lost on time found
//! by a read, by a late move and by the sweeper (on two instances too).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tabula::clock::Clock;

use crate::events::Stream;
use crate::helpers::{TestApp, assert_problem, spawn_app_with};

fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-23T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

async fn app_at(clock: &Clock) -> TestApp {
    let clock = clock.clone();
    spawn_app_with(move |s| s.clock = clock).await
}

fn remaining(g: &Value, side: &str) -> i64 {
    g["clock"][side]["remaining_ms"].as_i64().unwrap()
}

#[tokio::test]
async fn a_fischer_clock_runs_for_the_side_to_move_from_each_sides_first_move() {
    let clock = Clock::manual(start());
    let app = app_at(&clock).await;
    let x = app
        .create(
            json!({"kind": "connect_four", "clock": {"initial_ms": 60000, "increment_ms": 2000}}),
        )
        .await;
    clock.advance(Duration::from_secs(30));
    let g = app.game(&x.id).await;
    assert_eq!(g["clock"]["running"], Value::Null, "waiting: not running");
    assert_eq!(g["clock"]["deadline"], Value::Null);
    assert_eq!(g["clock"]["first_move_deadline"], Value::Null);
    assert_eq!((remaining(&g, "X"), remaining(&g, "O")), (60000, 60000));
    assert_eq!(g["clock"]["initial_ms"], 60000);
    let o = app.join(&x.id).await;
    // A join starts nobody's clock: X has the first-move window (30 s).
    let g = app.game(&x.id).await;
    assert_eq!(g["clock"]["running"], Value::Null);
    assert_eq!(g["clock"]["first_move_deadline"], "2026-11-23T10:01:00Z");
    assert_eq!(g["clock"]["deadline"], "2026-11-23T10:01:00Z");
    clock.advance(Duration::from_secs(10));
    let g = app.game(&x.id).await;
    assert_eq!(
        remaining(&g, "X"),
        60000,
        "X's time does not run before its first move"
    );
    let played = app.play_ok(&x, json!({"column": 3})).await;
    let g = &played["game"];
    assert_eq!(remaining(g, "X"), 60000, "a first move costs nothing");
    assert_eq!(g["clock"]["running"], Value::Null);
    assert_eq!(
        g["clock"]["first_move_deadline"], "2026-11-23T10:01:10Z",
        "O's own window"
    );
    clock.advance(Duration::from_millis(1500));
    let played = app.play_ok(&o, json!({"column": 3})).await;
    let g = &played["game"];
    assert_eq!((remaining(g, "X"), remaining(g, "O")), (60000, 60000));
    assert_eq!(
        g["clock"]["running"], "X",
        "from O's first move on, time runs"
    );
    assert_eq!(g["clock"]["first_move_deadline"], Value::Null);
    assert_eq!(g["clock"]["deadline"], "2026-11-23T10:01:41.500Z");
    clock.advance(Duration::from_secs(10));
    let played = app.play_ok(&x, json!({"column": 4})).await;
    let g = &played["game"];
    assert_eq!(remaining(g, "X"), 52000, "charged 10 s, plus the increment");
    assert_eq!(g["clock"]["running"], "O");
    // A new round (agreed) resets both clocks and the first moves.
    let g = app.new_round(&x, &o).await;
    assert_eq!((remaining(&g, "X"), remaining(&g, "O")), (60000, 60000));
    assert_eq!(g["clock"]["running"], Value::Null);
    assert_eq!(
        g["clock"]["first_move_deadline"],
        "2026-11-23T10:01:21.500Z"
    );
}

#[tokio::test]
async fn a_side_that_misses_its_first_move_aborts_the_round_nobody_wins() {
    let clock = Clock::manual(start());
    let app = spawn_app_with({
        let clock = clock.clone();
        move |s| {
            s.clock = clock;
            s.first_move_window = Duration::from_secs(20);
        }
    })
    .await;
    let (x, o) = app
        .pair_with(json!({"kind": "connect_four", "clock": {"initial_ms": 600_000}}))
        .await;
    app.play_ok(&x, json!({"column": 3})).await;
    let mut stream = Stream::open(&app, &x.id, None).await;
    let g = stream.state.as_ref().unwrap().data.clone();
    assert_eq!(g["clock"]["first_move_deadline"], "2026-11-23T10:00:20Z");
    clock.advance(Duration::from_secs(20));
    // Recorded by the sweeper, under the version reads show it with.
    let e = stream.next().await.unwrap();
    assert_eq!(e.name, "timeout");
    assert_eq!(e.data["seat"], "O");
    let g = &e.data["game"];
    assert_eq!(g["status"], "draw");
    assert_eq!(g["end_reason"], "aborted");
    assert_eq!(g["winner"], Value::Null);
    assert_eq!(remaining(g, "O"), 600_000, "O's own time never ran");
    let res = app.play(&o, json!({"column": 3})).await;
    assert_problem(res, 409, "game_over").await;
}

#[tokio::test]
async fn a_game_lost_on_time_is_over_for_reads_and_refuses_late_moves() {
    let clock = Clock::manual(start());
    let app = app_at(&clock).await;
    let (x, o) = app
        .pair_with(json!({"kind": "tic_tac_toe", "clock": {"per_move_ms": 5000}}))
        .await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    app.play_ok(&o, json!({"row": 2, "col": 2})).await;
    app.play_ok(&x, json!({"row": 1, "col": 0})).await;
    clock.advance(Duration::from_millis(4999));
    let g = app.game(&x.id).await;
    assert_eq!(g["status"], "in_progress");
    assert_eq!(remaining(&g, "O"), 1);
    assert_eq!(
        remaining(&g, "X"),
        5000,
        "per move: the full time for the next one"
    );
    clock.advance(Duration::from_millis(1));
    let g = app.game(&x.id).await;
    assert_eq!(g["status"], "won");
    assert_eq!(g["winner"], "X");
    assert_eq!(g["end_reason"], "timeout");
    assert_eq!(remaining(&g, "O"), 0);
    let listed = app.get_json("/v1/games").await;
    assert_eq!(listed["items"][0]["end_reason"], "timeout");
    let res = app.play(&o, json!({"row": 0, "col": 0})).await;
    assert_problem(res, 409, "game_over").await;
    let res = app
        .post(
            &format!("/v1/games/{}/offers", x.id),
            Some(&o.token),
            &json!({"type": "draw"}),
        )
        .await;
    assert_problem(res, 409, "game_over").await;
    assert_eq!(
        app.get_json(&format!("/v1/games/{}/moves", x.id)).await["items"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn a_timeout_found_at_read_time_has_its_own_etag_the_one_the_sweeper_records() {
    let clock = Clock::manual(start());
    let app = app_at(&clock).await;
    let (x, o) = app
        .pair_with(json!({"kind": "tic_tac_toe", "clock": {"per_move_ms": 5000}}))
        .await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    app.play_ok(&o, json!({"row": 2, "col": 2})).await;
    app.play_ok(&x, json!({"row": 1, "col": 0})).await;
    let path = format!("/v1/games/{}", x.id);
    let etag = |res: &reqwest::Response| res.headers()["etag"].to_str().unwrap().to_owned();
    let before = app.get(&path).await;
    let seen = etag(&before);
    let g: Value = before.json().await.unwrap();
    assert_eq!(
        (g["status"].as_str(), g["version"].as_i64()),
        (Some("in_progress"), Some(5))
    );
    assert_eq!(seen, "\"5\"");
    // The flag falls; whether or not the sweeper has written it yet, the
    // state read is another one, under another validator.
    clock.advance(Duration::from_secs(6));
    let after = app.get(&path).await;
    let tag = etag(&after);
    let g: Value = after.json().await.unwrap();
    assert_eq!(g["end_reason"], "timeout");
    assert_ne!(tag, seen, "in_progress and timeout under one ETag");
    assert_eq!(
        tag,
        format!("\"{}\"", g["version"]),
        "the ETag is the body's version"
    );
    assert_eq!(g["version"], 6);
    // A write conditioned on the state seen before is refused.
    let res = app
        .request(reqwest::Method::POST, &format!("{path}/offers"))
        .json(&json!({"type": "restart"}))
        .bearer_auth(&o.token)
        .header("If-Match", seen.as_str())
        .send()
        .await
        .unwrap();
    assert_problem(res, 412, "version_mismatch").await;
    // Recorded by the sweeper (or found again): the same version and state.
    app.service.end_overdue().await.unwrap();
    let recorded = app.get(&path).await;
    assert_eq!(etag(&recorded), tag);
    let r: Value = recorded.json().await.unwrap();
    assert_eq!((&r["status"], &r["winner"]), (&g["status"], &g["winner"]));
    // A write conditioned on the timeout's tag goes through, past it.
    let res = app
        .request(reqwest::Method::POST, &format!("{path}/offers"))
        .json(&json!({"type": "restart"}))
        .bearer_auth(&o.token)
        .header("If-Match", tag.as_str())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(etag(&res), "\"7\"");
}

#[tokio::test]
async fn the_sweeper_ends_overdue_games_with_a_timeout_event() {
    let clock = Clock::manual(start());
    let app = app_at(&clock).await;
    let (x, o) = app
        .pair_with(json!({"kind": "connect_four", "clock": {"initial_ms": 10000}}))
        .await;
    app.play_ok(&x, json!({"column": 3})).await;
    app.play_ok(&o, json!({"column": 3})).await;
    let mut stream = Stream::open(&app, &x.id, None).await;
    clock.advance(Duration::from_secs(11));
    // The sweeper runs four times a second on its own.
    let e = stream.next().await.unwrap();
    assert_eq!(e.name, "timeout");
    assert_eq!(e.data["seat"], "X");
    assert_eq!(e.id, 5);
    assert_eq!(e.data["game"]["winner"], "O");
    assert_eq!(e.data["game"]["end_reason"], "timeout");
    let g = app.game(&x.id).await;
    assert_eq!(g["version"], 5, "recorded once");
}

#[tokio::test]
async fn a_bot_adapts_its_budget_to_its_clock() {
    // The system clock: the bot's thinking really counts. With a budget of
    // 5 s per move and a clock of 3 s, a bot that ignored its clock would
    // lose on its first move.
    let app = spawn_app_with(|s| s.bot_budget_ms = 5000).await;
    let me = app
        .create(json!({"kind": "connect_four", "opponent": {"type": "bot", "level": "hard", "seed": 5}, "clock": {"initial_ms": 3000, "increment_ms": 100}}))
        .await;
    for column in [3, 3, 2] {
        let played = app.play_ok(&me, json!({"column": column})).await;
        let g = &played["game"];
        assert_eq!(g["status"], "in_progress", "{g}");
        let left = remaining(g, "O");
        assert!(left > 1500, "the bot kept most of its time: {left} ms");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_two_instances_exactly_one_ends_an_overdue_game() {
    if crate::helpers::postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    let clock = Clock::manual(start());
    let db = crate::helpers::fresh_db().await;
    let (ca, cb) = (clock.clone(), clock.clone());
    let a = crate::helpers::spawn_app_on(db.clone(), move |s| s.clock = ca).await;
    let b = crate::helpers::spawn_app_on(db, move |s| s.clock = cb).await;
    let mut games = Vec::new();
    for _ in 0..10 {
        let (x, _) = a
            .pair_with(json!({"kind": "connect_four", "clock": {"per_move_ms": 2000}}))
            .await;
        games.push(Stream::open(&b, &x.id, None).await);
    }
    clock.advance(Duration::from_secs(3));
    for mut stream in games {
        let e = stream.next().await.unwrap();
        assert_eq!((e.name.as_str(), e.id), ("timeout", 3));
        let id = e.data["game"]["id"].as_str().unwrap().to_owned();
        // Both instances swept; one change only.
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(a.game(&id).await["version"], 3);
        assert_eq!(b.game(&id).await["version"], 3);
    }
}

#[tokio::test]
async fn clocks_are_checked() {
    let clock = Clock::manual(start());
    let app = app_at(&clock).await;
    for bad in [
        json!({"initial_ms": 10}),
        json!({"per_move_ms": 0}),
        json!({"initial_ms": 60000, "increment_ms": -1}),
        json!({"initial_ms": 60000, "per_move_ms": 1000}),
        json!({}),
    ] {
        let res = app
            .post(
                "/v1/games",
                None,
                &json!({"kind": "tic_tac_toe", "clock": bad}),
            )
            .await;
        assert_problem(res, 422, "invalid_option").await;
    }
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "tic_tac_toe", "clock": {"minutes": 5}}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
    // An empty clock is told what it lacks, not that it mixes two forms.
    for (bad, says) in [
        (json!({}), "needs a time control"),
        (json!({"increment_ms": 1000}), "without `initial_ms`"),
        (
            json!({"initial_ms": 60000, "per_move_ms": 1000}),
            "not a mix",
        ),
    ] {
        let res = app
            .post(
                "/v1/games",
                None,
                &json!({"kind": "tic_tac_toe", "clock": bad}),
            )
            .await;
        let body = assert_problem(res, 422, "invalid_option").await;
        assert!(
            body["detail"].as_str().unwrap().contains(says),
            "{bad}: {body}"
        );
    }
    let g = app.create_kind("tic_tac_toe").await;
    assert_eq!(app.game(&g.id).await["clock"], Value::Null);
}
