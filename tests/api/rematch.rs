//! Rematch: a new game of the same terms, the seats swapped, once per game;
//! between two people an offer the other seat accepts.

use serde_json::{Value, json};

use crate::events::Stream;
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

    // Between two people, Bob's ask is an offer: no game, no clock yet.
    let mut stream = Stream::open(&app, &x.id, None).await;
    let res = rematch(&app, &o).await;
    assert_eq!(res.status(), 202);
    let offered: Value = res.json().await.unwrap();
    assert_eq!(offered["offer"]["type"], "rematch");
    assert_eq!(offered["offer"]["by"], "O");
    assert_eq!(offered["rematch"], Value::Null);
    let e = stream.next().await.unwrap();
    assert_eq!(
        (e.name.as_str(), &e.data["offer_type"]),
        ("offer", &json!("rematch"))
    );
    // Asked again, the offer stands as it is.
    let again = rematch(&app, &o).await;
    assert_eq!(again.status(), 202);
    assert_eq!(
        again.json::<Value>().await.unwrap()["version"],
        offered["version"]
    );
    // A restart beside it is refused: one or the other.
    let res = app
        .post(
            &format!("/v1/games/{}/offers", x.id),
            Some(&x.token),
            &json!({"type": "restart"}),
        )
        .await;
    assert_problem(res, 409, "offer_pending").await;

    // Ann accepts by asking too.
    let res = rematch(&app, &x).await;
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
    // Whoever was X is O: Ann (the caller) holds O now, Bob opens.
    assert_eq!(grant["seat"], "O");
    assert_eq!(grant["token"], x.token.as_str());
    assert_eq!(new["seats"]["X"]["name"], "Bob");
    assert_eq!(new["seats"]["O"]["name"], "Ann");
    assert_eq!(new["clock"]["X"]["remaining_ms"], 60000);
    assert_eq!(
        new["clock"]["running"],
        Value::Null,
        "Bob's clock waits for his first move"
    );
    assert!(new["clock"]["first_move_deadline"].is_string());
    let e = stream.next().await.unwrap();
    assert_eq!(e.name, "rematch");
    assert_eq!(e.data["game"]["rematch"], new["id"]);
    let old = app.game(&x.id).await;
    assert_eq!(old["rematch"], new["id"]);
    assert_eq!(old["offer"], Value::Null);
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
    // A second rematch of the same game: 409 with the first one's id; a
    // restart of it neither (no second game beside the rematch).
    let body = assert_problem(rematch(&app, &x).await, 409, "rematch_exists").await;
    assert_eq!(body["rematch"], new["id"]);
    let res = app
        .post(
            &format!("/v1/games/{}/offers", x.id),
            Some(&x.token),
            &json!({"type": "restart"}),
        )
        .await;
    assert_problem(res, 409, "rematch_exists").await;
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
async fn a_rematch_offer_is_answered_as_every_offer() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    x_wins(&app, &x, &o).await;
    let offers = format!("/v1/games/{}/offers", x.id);
    // Declined: nothing is made, and it may be asked again.
    assert_eq!(rematch(&app, &x).await.status(), 202);
    let res = app
        .post(&format!("{offers}/decline"), Some(&o.token), &json!({}))
        .await;
    assert_eq!(res.status(), 200);
    let g: Value = res.json().await.unwrap();
    assert_eq!((&g["offer"], &g["rematch"]), (&Value::Null, &Value::Null));
    // Withdrawn by the one who asked.
    assert_eq!(rematch(&app, &x).await.status(), 202);
    let res = app
        .request(reqwest::Method::DELETE, &offers)
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Offered through /offers, accepted through /offers/accept: the new
    // game and the accepting seat in it, as `POST /rematch` answers.
    let res = app
        .post(&offers, Some(&o.token), &json!({"type": "rematch"}))
        .await;
    assert_eq!(res.status(), 201);
    assert_eq!(
        res.json::<Value>().await.unwrap()["offer"]["type"],
        "rematch"
    );
    let res = app
        .post(&format!("{offers}/accept"), Some(&x.token), &json!({}))
        .await;
    assert_eq!(res.status(), 201);
    let grant: Value = res.json().await.unwrap();
    assert_eq!(grant["seat"], "O");
    assert_eq!(grant["token"], x.token.as_str());
    assert_eq!(grant["game"]["rematch_of"], x.id.as_str());
    assert_eq!(app.game(&x.id).await["rematch"], grant["game"]["id"]);
}

#[tokio::test]
async fn a_hotseat_rematch_is_made_at_once() {
    let app = spawn_app().await;
    let me = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    app.resign(&me).await;
    let res = rematch(&app, &me).await;
    assert_eq!(res.status(), 201);
    let grant: Value = res.json().await.unwrap();
    assert_eq!(grant["game"]["rematch_of"], me.id.as_str());
}

#[tokio::test]
async fn against_a_bot_the_bot_takes_the_other_seat_and_opens_as_x() {
    let app = spawn_app().await;
    let me = app
        .create(json!({"kind": "tic_tac_toe", "opponent": {"type": "bot", "level": "random"}}))
        .await;
    app.resign(&me).await;
    let res = rematch(&app, &me).await;
    assert_eq!(res.status(), 201);
    let grant: Value = res.json().await.unwrap();
    assert_eq!(grant["seat"], "O");
    assert_eq!(grant["game"]["seats"]["X"]["type"], "bot");
    // The bot opened before the answer.
    assert_eq!(grant["game"]["ply"], 1);
    assert_eq!(grant["game"]["turn"], "O");
}
