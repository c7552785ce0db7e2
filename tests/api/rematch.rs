//! Rematch: a new game of the same terms, the seats swapped, once per game.

use serde_json::{Value, json};

use crate::helpers::{Seat, TestApp, assert_problem, seat_of, spawn_app};

async fn rematch(app: &TestApp, seat: &Seat) -> reqwest::Response {
    app.post(
        &format!("/v1/games/{}/rematch", seat.id),
        Some(&seat.token),
        &json!({}),
    )
    .await
}

/// X wins down column 0 (Connect Four).
async fn x_wins(app: &TestApp, x: &Seat, o: &Seat) {
    for _ in 0..3 {
        app.play_ok(x, json!({"column": 0})).await;
        app.play_ok(o, json!({"column": 1})).await;
    }
    app.play_ok(x, json!({"column": 0})).await;
}

#[tokio::test]
async fn a_rematch_swaps_the_seats_keeps_the_terms_and_is_made_once() {
    let app = spawn_app().await;
    let x = app
        .create(json!({"kind": "connect_four", "name": "Ann", "clock": {"initial_ms": 60000, "increment_ms": 1000}}))
        .await;
    let res = app
        .post(
            &format!("/v1/games/{}/join", x.id),
            None,
            &json!({"name": "Bob"}),
        )
        .await;
    let o = seat_of(&res.json().await.unwrap());
    // Not while the round is in progress.
    let before = app.game(&x.id).await;
    assert_problem(rematch(&app, &o).await, 409, "round_in_progress").await;
    assert_eq!(app.game(&x.id).await["version"], before["version"]);
    x_wins(&app, &x, &o).await;

    let res = rematch(&app, &o).await;
    assert_eq!(res.status(), 201);
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    let grant: Value = res.json().await.unwrap();
    let new = &grant["game"];
    assert_eq!(
        location,
        format!("/v1/games/{}", new["id"].as_str().unwrap())
    );
    assert_eq!(new["rematch_of"], x.id.as_str());
    assert_eq!(new["kind"], "connect_four");
    assert_eq!(new["status"], "in_progress");
    assert_eq!(new["ply"], 0);
    // Whoever was X is O: Bob (the caller) opens now.
    assert_eq!(grant["seat"], "X");
    assert_eq!(grant["token"], o.token.as_str());
    assert_eq!(new["seats"]["X"]["name"], "Bob");
    assert_eq!(new["seats"]["O"]["name"], "Ann");
    assert_eq!(new["clock"]["X"]["remaining_ms"], 60000);
    let old = app.game(&x.id).await;
    assert_eq!(old["rematch"], new["id"]);
    assert_eq!(old["status"], "won", "the old game's result stays");
    // Each side's token plays its seat of the new game.
    let id = new["id"].as_str().unwrap().to_owned();
    let bob = Seat {
        id: id.clone(),
        seat: "X".into(),
        token: o.token.clone(),
    };
    let ann = Seat {
        id,
        seat: "O".into(),
        token: x.token.clone(),
    };
    app.play_ok(&bob, json!({"column": 3})).await;
    app.play_ok(&ann, json!({"column": 3})).await;
    // A second rematch of the same game: 409 with the first one's id.
    let body = assert_problem(rematch(&app, &x).await, 409, "rematch_exists").await;
    assert_eq!(body["rematch"], new["id"]);
    // Only a seat asks.
    let res = app
        .post(
            &format!("/v1/games/{}/rematch", ann.id),
            Some("not-a-seat"),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 403);
}

#[tokio::test]
async fn against_a_bot_the_bot_takes_the_other_seat_and_opens_as_x() {
    let app = spawn_app().await;
    let me = app
        .create(json!({"kind": "tic_tac_toe", "opponent": {"type": "bot", "level": "random"}}))
        .await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", me.id),
            Some(&me.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let res = rematch(&app, &me).await;
    assert_eq!(res.status(), 201);
    let grant: Value = res.json().await.unwrap();
    assert_eq!(grant["seat"], "O");
    assert_eq!(grant["game"]["seats"]["X"]["type"], "bot");
    // The bot opened before the answer.
    assert_eq!(grant["game"]["ply"], 1);
    assert_eq!(grant["game"]["turn"], "O");
}
