//! A game's life between two people: claims when the side to move is gone,
//! help that the other side sees (or that the game forbids), and quick
//! match by clock.

use std::time::Duration;

use serde_json::{Value, json};

use crate::events::Stream;
use crate::helpers::{Seat, TestApp, assert_problem, spawn_app};
use crate::players::app_on_manual_clock;

async fn claim(app: &TestApp, seat: &Seat, result: &str) -> reqwest::Response {
    app.post(
        &format!("/v1/games/{}/claim", seat.id),
        Some(&seat.token),
        &json!({"result": result}),
    )
    .await
}

#[tokio::test]
async fn the_seat_that_stayed_claims_the_round_once_the_other_has_been_gone_five_minutes() {
    let (app, clock) = app_on_manual_clock("2026-12-03T10:00:00Z").await;
    let (x, o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;
    clock.advance(Duration::from_secs(10));
    app.play_ok(&o, json!({"column": 3})).await;
    // X is to move since 10:00:10; both seats see when a claim opens.
    let g = app.game(&x.id).await;
    assert_eq!(g["claimable_at"], "2026-12-03T10:05:10Z");
    let mut stream = Stream::open(&app, &x.id, None).await;
    clock.advance(Duration::from_secs(299));
    let body = assert_problem(claim(&app, &o, "win").await, 409, "claim_not_allowed").await;
    assert_eq!(body["claimable_at"], "2026-12-03T10:05:10Z");
    clock.advance(Duration::from_secs(1));
    // Not by the side to move, whose turn it is.
    let body = assert_problem(claim(&app, &x, "win").await, 409, "claim_not_allowed").await;
    assert!(body.get("claimable_at").is_none(), "{body}");
    assert_eq!(
        app.game(&x.id).await["version"],
        g["version"],
        "refusals change nothing"
    );
    let res = claim(&app, &o, "win").await;
    assert_eq!(res.status(), 200);
    let g: Value = res.json().await.unwrap();
    assert_eq!(g["status"], "won");
    assert_eq!(g["winner"], "O");
    assert_eq!(g["end_reason"], "abandoned");
    assert_eq!(g["claimable_at"], Value::Null);
    let e = stream.next().await.unwrap();
    assert_eq!((e.name.as_str(), &e.data["seat"]), ("claim", &json!("O")));
    assert_eq!(e.data["game"]["end_reason"], "abandoned");
    assert_problem(claim(&app, &o, "win").await, 409, "game_over").await;
}

#[tokio::test]
async fn a_claim_may_ask_a_draw_and_before_each_side_moved_it_aborts() {
    let (app, clock) = app_on_manual_clock("2026-12-03T10:00:00Z").await;
    let (x, o) = app.pair("tic_tac_toe").await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    app.play_ok(&o, json!({"row": 0, "col": 0})).await;
    clock.advance(Duration::from_mins(5));
    let res = claim(&app, &o, "draw").await;
    assert_eq!(res.status(), 200);
    let g: Value = res.json().await.unwrap();
    assert_eq!(
        (&g["status"], &g["end_reason"]),
        (&json!("draw"), &json!("abandoned"))
    );
    // O never came: X, who moved, ends it, and it counts for nothing.
    let (x, _o) = app.pair("tic_tac_toe").await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    clock.advance(Duration::from_mins(5));
    let res = claim(&app, &x, "win").await;
    let g: Value = res.json().await.unwrap();
    assert_eq!(
        (&g["status"], &g["end_reason"]),
        (&json!("draw"), &json!("aborted"))
    );
    assert_eq!(g["winner"], Value::Null);
}

#[tokio::test]
async fn no_claim_with_a_clock_against_a_bot_or_while_waiting() {
    let (app, clock) = app_on_manual_clock("2026-12-03T10:00:00Z").await;
    let (x, o) = app
        .pair_with(json!({"kind": "tic_tac_toe", "clock": {"per_move_ms": 86_400_000}}))
        .await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    clock.advance(Duration::from_mins(10));
    assert_eq!(app.game(&x.id).await["claimable_at"], Value::Null);
    let body = assert_problem(claim(&app, &x, "win").await, 409, "claim_not_allowed").await;
    assert!(body["detail"].as_str().unwrap().contains("clock"), "{body}");
    let _ = o;
    let waiting = app.create_kind("tic_tac_toe").await;
    assert_problem(
        claim(&app, &waiting, "win").await,
        409,
        "waiting_for_opponent",
    )
    .await;
    let bot = app
        .create(json!({"kind": "tic_tac_toe", "opponent": {"type": "bot", "level": "random"}}))
        .await;
    assert_eq!(app.game(&bot.id).await["claimable_at"], Value::Null);
    let res = app
        .post(
            &format!("/v1/games/{}/claim", x.id),
            Some(&x.token),
            &json!({"result": "lose"}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
}

#[tokio::test]
async fn help_in_a_casual_game_is_counted_for_the_other_side_to_see() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    let g = app.game(&x.id).await;
    assert_eq!(g["assistance"], "allowed");
    assert_eq!(g["assistance_used"], json!({"X": 0, "O": 0}));
    let mut stream = Stream::open(&app, &x.id, None).await;
    let res = app
        .request(
            reqwest::Method::GET,
            &format!("/v1/games/{}/hint?level=easy", x.id),
        )
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // The other side is told, by the stream and in the game.
    let e = stream.next().await.unwrap();
    assert_eq!(
        (e.name.as_str(), &e.data["seat"]),
        ("assistance", &json!("X"))
    );
    assert_eq!(e.data["game"]["assistance_used"], json!({"X": 1, "O": 0}));
    app.play_ok(&x, json!({"column": 3})).await;
    let res = app
        .post(
            &format!("/v1/games/{}/bot-move", o.id),
            Some(&o.token),
            &json!({"level": "easy"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let moved: Value = res.json().await.unwrap();
    assert_eq!(moved["game"]["assistance_used"], json!({"X": 1, "O": 1}));
    let res = app
        .request(
            reqwest::Method::GET,
            &format!("/v1/games/{}/analysis?level=easy", x.id),
        )
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        app.game(&x.id).await["assistance_used"],
        json!({"X": 2, "O": 1})
    );
    // A new round counts afresh.
    let g = app.new_round(&x, &o).await;
    assert_eq!(g["assistance_used"], json!({"X": 0, "O": 0}));
}

#[tokio::test]
async fn a_game_created_without_assistance_refuses_help_until_the_round_is_over() {
    let app = spawn_app().await;
    let (x, o) = app
        .pair_with(json!({"kind": "tic_tac_toe", "assistance": "forbidden"}))
        .await;
    assert_eq!(app.game(&x.id).await["assistance"], "forbidden");
    let path = format!("/v1/games/{}", x.id);
    for (method, url) in [
        (reqwest::Method::GET, format!("{path}/hint")),
        (reqwest::Method::GET, format!("{path}/analysis")),
        (reqwest::Method::POST, format!("{path}/bot-move")),
    ] {
        let res = app
            .request(method, &url)
            .bearer_auth(&x.token)
            .send()
            .await
            .unwrap();
        assert_problem(res, 403, "assistance_forbidden").await;
    }
    assert_eq!(app.game(&x.id).await["version"], 2, "nothing changed");
    app.resign(&o).await;
    let res = app
        .request(
            reqwest::Method::GET,
            &format!("{path}/analysis?round=1&ply=0"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "a finished round is open to all");
    // Rated games never allow it.
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "tic_tac_toe", "rated": true, "assistance": "allowed",
                    "clock": {"per_move_ms": 60000}}),
        )
        .await;
    assert_problem(res, 422, "invalid_option").await;
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "tic_tac_toe", "assistance": "sometimes"}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
}

#[tokio::test]
async fn quick_match_pairs_unrated_games_of_the_same_clock_only() {
    let app = spawn_app().await;
    let blitz = json!({"initial_ms": 180_000, "increment_ms": 2000});
    let matched = |body: Value| {
        let app = &app;
        async move {
            let res = app.post("/v1/matches", None, &body).await;
            assert!(res.status().is_success(), "{body}");
            res.json::<Value>().await.unwrap()
        }
    };
    let first = matched(json!({"kind": "connect_four", "clock": blitz})).await;
    assert_eq!(first["game"]["status"], "waiting");
    assert_eq!(first["game"]["clock"]["initial_ms"], 180_000);
    // Without a clock, and with another one: not that game.
    let none = matched(json!({"kind": "connect_four"})).await;
    assert_ne!(none["game"]["id"], first["game"]["id"]);
    assert_eq!(none["game"]["clock"], Value::Null);
    let other = matched(json!({"kind": "connect_four", "clock": {"per_move_ms": 60000}})).await;
    assert_ne!(other["game"]["id"], first["game"]["id"]);
    let same = matched(json!({"kind": "connect_four", "clock": blitz})).await;
    assert_eq!(same["game"]["id"], first["game"]["id"]);
    assert_eq!(same["game"]["status"], "in_progress");
    assert_eq!(same["game"]["rated"], false);
}
