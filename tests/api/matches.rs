//! Quick match (`POST /v1/matches`): the first caller waits in a new game,
//! the next one of the same kind and options takes its open seat; ordinary
//! public waiting games are matched too, oldest first; concurrent callers,
//! on one instance or two, never share a seat and leave at most one waiting
//! game per kind and options.

use std::collections::{BTreeMap, HashSet};

use futures_util::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::events::Stream;
use crate::helpers::{
    Seat, TestApp, assert_problem, fresh_db, postgres_server, seat_of, spawn_app, spawn_app_on,
};

/// A quick match that must succeed: the answer's body.
async fn matched(app: &TestApp, body: Value) -> Value {
    let res = app.post("/v1/matches", None, &body).await;
    let status = res.status();
    let etag = res.headers().get("etag").cloned();
    let answer: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "match {body}: {answer}");
    let version = answer["game"]["version"].as_i64().unwrap();
    assert_eq!(
        etag.unwrap().to_str().unwrap(),
        format!("\"{version}\""),
        "ETag"
    );
    answer
}

/// Every game of the service (listings hide none of these: all public).
async fn all_games(app: &TestApp) -> Vec<Value> {
    let page = app.get_json("/v1/games?limit=100").await;
    assert!(page["next_cursor"].is_null(), "more than 100 games");
    page["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn the_first_caller_waits_and_the_next_takes_the_open_seat() {
    let app = spawn_app().await;
    let first = matched(&app, json!({"kind": "connect_four", "name": "Ann"})).await;
    assert_eq!(first["seat"], "X");
    assert_eq!(first["game"]["status"], "waiting");
    assert_eq!(first["game"]["seats"]["X"]["name"], "Ann");
    assert_eq!(first["game"]["seats"]["O"]["taken"], false);
    assert_eq!(first["game"]["visibility"], "public");
    assert!(first.get("invite").is_none_or(Value::is_null));
    let x = seat_of(&first);
    let mut stream = Stream::open(&app, &x.id, None).await;

    let second = matched(&app, json!({"kind": "connect_four", "name": "Bob"})).await;
    let o = seat_of(&second);
    assert_eq!((o.id.as_str(), o.seat.as_str()), (x.id.as_str(), "O"));
    assert_ne!(o.token, x.token);
    let game = &second["game"];
    assert_eq!(game["status"], "in_progress");
    assert_eq!(game["version"], 2);
    assert_eq!(game["seats"]["X"]["name"], "Ann");
    assert_eq!(game["seats"]["O"]["name"], "Bob");
    let e = stream.next().await.unwrap();
    assert_eq!((e.name.as_str(), e.id), ("join", 2));
    assert_eq!(e.data["seat"], "O");
    assert_eq!(e.data["game"]["seats"]["O"]["name"], "Bob");

    // The tokens hold their seats: X opens, O answers.
    app.play_ok(&x, json!({"column": 3})).await;
    app.play_ok(&o, json!({"column": 3})).await;
    // A third caller waits in a game of its own.
    let third = matched(&app, json!({"kind": "connect_four"})).await;
    assert_ne!(third["game"]["id"], first["game"]["id"]);
    assert_eq!(third["seat"], "X");
    assert_eq!(third["game"]["status"], "waiting");
    assert_eq!(third["game"]["seats"]["X"]["name"], Value::Null);
}

#[tokio::test]
async fn only_games_of_the_same_kind_and_options_are_matched() {
    let app = spawn_app().await;
    let gomoku = matched(&app, json!({"kind": "gomoku"})).await;
    let small = matched(&app, json!({"kind": "gomoku", "options": {"size": 9}})).await;
    let standard = matched(
        &app,
        json!({"kind": "gomoku", "options": {"rule": "standard"}}),
    )
    .await;
    let connect = matched(&app, json!({"kind": "connect_four"})).await;
    let tic = matched(&app, json!({"kind": "tic_tac_toe", "options": {}})).await;
    let ids: HashSet<&Value> = [&gomoku, &small, &standard, &connect, &tic]
        .iter()
        .map(|a| &a["game"]["id"])
        .collect();
    assert_eq!(ids.len(), 5, "five terms, five waiting games");
    // The defaults spelled out are the same terms.
    let same = matched(
        &app,
        json!({"kind": "gomoku", "options": {"size": 15, "rule": "freestyle", "rows": 15}}),
    )
    .await;
    assert_eq!(same["game"]["id"], gomoku["game"]["id"]);
    assert_eq!(same["seat"], "O");
    let nine = matched(
        &app,
        json!({"kind": "gomoku", "options": {"size": 9, "rule": "freestyle"}}),
    )
    .await;
    assert_eq!(nine["game"]["id"], small["game"]["id"]);
    assert_eq!(nine["game"]["options"]["size"], 9);
    let c = matched(
        &app,
        json!({"kind": "connect_four", "options": {"rows": 6, "columns": 7}}),
    )
    .await;
    assert_eq!(c["game"]["id"], connect["game"]["id"]);
}

#[tokio::test]
async fn public_waiting_games_are_matched_oldest_first_and_no_other_game_is() {
    let app = spawn_app().await;
    // Not for quick match: private, against a bot, hotseat, with a clock,
    // already full.
    app.post(
        "/v1/games",
        None,
        &json!({"kind": "tic_tac_toe", "visibility": "private"}),
    )
    .await;
    app.create(json!({"kind": "tic_tac_toe", "opponent": {"type": "bot", "level": "random"}}))
        .await;
    app.create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    app.create(json!({"kind": "tic_tac_toe", "clock": {"per_move_ms": 60_000}}))
        .await;
    app.pair("tic_tac_toe").await;
    // Two public games waiting, the older one's creator in seat O.
    let older = app
        .create(json!({"kind": "tic_tac_toe", "seat": "O", "name": "Olga"}))
        .await;
    let newer = app.create_kind("tic_tac_toe").await;
    let before = all_games(&app).await.len();

    let a = matched(&app, json!({"kind": "tic_tac_toe", "name": "Max"})).await;
    assert_eq!(a["game"]["id"], older.id.as_str());
    assert_eq!(a["seat"], "X", "the open seat, whichever it is");
    assert_eq!(a["game"]["seats"]["O"]["name"], "Olga");
    assert_eq!(a["game"]["seats"]["X"]["name"], "Max");
    assert_eq!(a["game"]["status"], "in_progress");
    let b = matched(&app, json!({"kind": "tic_tac_toe"})).await;
    assert_eq!(b["game"]["id"], newer.id.as_str());
    assert_eq!(b["seat"], "O");
    assert_eq!(all_games(&app).await.len(), before, "nothing created yet");
    let c = matched(&app, json!({"kind": "tic_tac_toe"})).await;
    assert_eq!(c["game"]["status"], "waiting");
    assert_eq!(all_games(&app).await.len(), before + 1);
    // The older creator's token plays O, the matched caller's X.
    let x = seat_of(&a);
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    let res = app
        .play(
            &Seat {
                id: older.id.clone(),
                seat: "O".into(),
                token: older.token.clone(),
            },
            json!({"row": 0, "col": 0}),
        )
        .await;
    assert_eq!(res.status(), 201);
}

#[tokio::test]
async fn a_refused_match_is_problem_json_and_changes_nothing() {
    let app = spawn_app().await;
    let bad_requests = [
        json!({}),
        json!({"kind": "chess"}),
        json!({"kind": 4}),
        json!({"kind": "connect_four", "seat": "O"}),
        json!({"kind": "connect_four", "options": {"depth": 3}}),
        json!({"kind": "connect_four", "options": []}),
        json!({"kind": "connect_four", "name": 7}),
        json!([]),
    ];
    for body in bad_requests {
        let res = app.post("/v1/matches", None, &body).await;
        assert_problem(res, 400, "malformed_request").await;
    }
    let invalid = [
        json!({"kind": "gomoku", "options": {"size": 30}}),
        json!({"kind": "gomoku", "options": {"rule": "renju"}}),
        json!({"kind": "connect_four", "options": {"size": 9}}),
        json!({"kind": "connect_four", "options": {"rows": 5}}),
    ];
    for body in invalid {
        let res = app.post("/v1/matches", None, &body).await;
        assert_problem(res, 422, "invalid_option").await;
    }
    for name in ["", &"a".repeat(33), "zero\u{200B}width", "F\u{0430}rm"] {
        let body = json!({"kind": "tic_tac_toe", "name": name});
        let res = app.post("/v1/matches", None, &body).await;
        assert_problem(res, 422, "invalid_name").await;
    }
    let res = app
        .request(Method::POST, "/v1/matches")
        .header("content-type", "text/plain")
        .body(r#"{"kind": "connect_four"}"#)
        .send()
        .await
        .unwrap();
    assert_problem(res, 415, "unsupported_media_type").await;
    let res = app
        .request(Method::POST, "/v1/matches")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    let res = app
        .post(
            "/v1/matches?kind=connect_four",
            None,
            &json!({"kind": "connect_four"}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
    let res = app.get("/v1/matches").await;
    assert_problem(res, 405, "method_not_allowed").await;
    assert!(all_games(&app).await.is_empty(), "a refusal created a game");
}

/// The terms of the concurrent tests: Connect Four, 9x9 Gomoku and
/// tic-tac-toe, for 11, 11 and 10 callers.
fn concurrent_bodies() -> Vec<Value> {
    (0..32)
        .map(|i| match i % 3 {
            0 => json!({"kind": "connect_four", "name": format!("c{i}")}),
            1 => json!({"kind": "gomoku", "options": {"size": 9}, "name": format!("g{i}")}),
            _ => json!({"kind": "tic_tac_toe", "name": format!("t{i}")}),
        })
        .collect()
}

/// Checks the answers of concurrent quick matches: every caller holds a
/// seat of its own in a game of the kind it asked for, under its name; each
/// game is full but at most one per kind (and then its only caller waits).
async fn check_pairs(app: &TestApp, bodies: &[Value], answers: &[Value]) {
    let mut seats = HashSet::new();
    let mut callers: BTreeMap<String, Vec<(&Value, &Value)>> = BTreeMap::new();
    for (body, answer) in bodies.iter().zip(answers) {
        let seat = seat_of(answer);
        assert!(
            seats.insert((seat.id.clone(), seat.seat.clone())),
            "seat {} of {} given twice",
            seat.seat,
            seat.id
        );
        assert_eq!(answer["game"]["kind"], body["kind"]);
        callers.entry(seat.id).or_default().push((body, answer));
    }
    let mut waiting_kinds = Vec::new();
    for (id, those) in &callers {
        let game = app.game(id).await;
        assert_eq!(game["kind"], those[0].0["kind"]);
        match those.len() {
            2 => {
                assert_eq!(game["status"], "in_progress", "{game}");
                for (body, answer) in those {
                    let seat = answer["seat"].as_str().unwrap();
                    assert_eq!(game["seats"][seat]["name"], body["name"]);
                }
            }
            1 => {
                assert_eq!(game["status"], "waiting", "{game}");
                waiting_kinds.push(game["kind"].as_str().unwrap().to_owned());
            }
            n => panic!("{n} callers in game {id}"),
        }
    }
    waiting_kinds.sort();
    assert_eq!(
        waiting_kinds,
        ["connect_four", "gomoku"],
        "11 and 11 callers leave one waiting each, 10 none"
    );
    let listed = app.get_json("/v1/games?status=waiting&limit=100").await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(all_games(app).await.len(), callers.len(), "no stray game");
    // A token holds its seat: X of each full game may move, O may not.
    for answer in answers {
        let seat = seat_of(answer);
        if callers[&seat.id].len() == 2 && seat.seat == "O" {
            let res = app
                .post(
                    &format!("/v1/games/{}/resign", seat.id),
                    Some(&seat.token),
                    &json!({}),
                )
                .await;
            assert_eq!(res.status(), 200, "O's token resigns its game");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_callers_are_paired_and_no_seat_is_given_twice() {
    let app = spawn_app().await;
    let bodies = concurrent_bodies();
    let answers = join_all(bodies.iter().map(|b| matched(&app, b.clone()))).await;
    check_pairs(&app, &bodies, &answers).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_callers_through_two_instances_are_paired_once() {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    for round in 0..3 {
        let db = fresh_db().await;
        let a = spawn_app_on(db.clone(), |_| {}).await;
        let b = spawn_app_on(db, |_| {}).await;
        let bodies = concurrent_bodies();
        let answers = join_all(
            bodies
                .iter()
                .enumerate()
                .map(|(i, body)| matched([&a, &b][(i + round) % 2], body.clone())),
        )
        .await;
        check_pairs(&a, &bodies, &answers).await;
    }
}

/// A quick match with headers: the answer's status, `Idempotent-Replayed`
/// and body.
async fn match_with(
    app: &TestApp,
    token: Option<&str>,
    key: Option<&str>,
    body: &Value,
) -> (u16, bool, Value) {
    let mut req = app.request(Method::POST, "/v1/matches").json(body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let replayed = res.headers().get("idempotent-replayed").is_some();
    (status, replayed, res.json().await.unwrap())
}

#[tokio::test]
async fn games_waiting_longer_than_the_match_wait_are_passed_over() {
    let clock = tabula::clock::Clock::manual(chrono::Utc::now());
    let app = crate::helpers::spawn_app_with(|s| {
        s.clock = clock.clone();
        s.match_wait = std::time::Duration::from_mins(1);
    })
    .await;
    let stale = matched(&app, json!({"kind": "tic_tac_toe"})).await;
    clock.advance(std::time::Duration::from_secs(61));
    // Two people asking now meet each other, not the abandoned game.
    let ann = matched(&app, json!({"kind": "tic_tac_toe", "name": "Ann"})).await;
    let bob = matched(&app, json!({"kind": "tic_tac_toe", "name": "Bob"})).await;
    assert_ne!(ann["game"]["id"], stale["game"]["id"]);
    assert_eq!(ann["game"]["id"], bob["game"]["id"], "{ann} {bob}");
    assert_eq!(bob["game"]["status"], "in_progress");
    assert_eq!(
        app.game(stale["game"]["id"].as_str().unwrap()).await["status"],
        "waiting"
    );
    // Within the wait, a waiting game is still found.
    let carol = matched(&app, json!({"kind": "tic_tac_toe"})).await;
    clock.advance(std::time::Duration::from_secs(59));
    let dan = matched(&app, json!({"kind": "tic_tac_toe"})).await;
    assert_eq!(carol["game"]["id"], dan["game"]["id"]);
}

#[tokio::test]
async fn a_caller_is_never_matched_with_their_own_waiting_game() {
    let app = spawn_app().await;
    let body = json!({"kind": "connect_four", "name": "Ann"});
    let first = matched(&app, body.clone()).await;
    let token = first["token"].as_str().unwrap();
    // Asking again with the seat's token gives the same game back.
    let (status, _, again) = match_with(&app, Some(token), None, &body).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["game"]["id"], first["game"]["id"]);
    assert_eq!(again["seat"], "X");
    assert_eq!(again["token"], token);
    assert_eq!(again["game"]["status"], "waiting");
    assert_eq!(again["game"]["version"], 1, "nothing written");
    // Someone else takes the open seat.
    let bob = matched(&app, json!({"kind": "connect_four"})).await;
    assert_eq!(bob["game"]["id"], first["game"]["id"]);
    assert_eq!(bob["seat"], "O");
}

#[tokio::test]
async fn a_retried_quick_match_with_its_idempotency_key_gets_the_first_answer() {
    let app = spawn_app().await;
    let body = json!({"kind": "gomoku", "name": "Ann"});
    let (status, replayed, first) = match_with(&app, None, Some("k-1"), &body).await;
    assert_eq!((status, replayed), (200, false), "{first}");
    let (status, replayed, retry) = match_with(&app, None, Some("k-1"), &body).await;
    assert_eq!((status, replayed), (200, true), "{retry}");
    assert_eq!(retry, first, "the same seat, game and token");
    assert_eq!(
        all_games(&app).await.len(),
        1,
        "one entry, not a game against itself"
    );
    // The token works.
    let x = seat_of(&retry);
    assert_eq!(app.game(&x.id).await["seats"]["X"]["name"], "Ann");
    // The same key with another body: refused, nothing changed.
    let (status, _, problem) = match_with(
        &app,
        None,
        Some("k-1"),
        &json!({"kind": "gomoku", "name": "Eve"}),
    )
    .await;
    assert_eq!(status, 422, "{problem}");
    assert_eq!(problem["code"], "idempotency_key_reused");
    // Another caller with another key takes the open seat; a retry of the
    // first still answers as it did.
    let (_, _, bob) = match_with(&app, None, Some("k-2"), &json!({"kind": "gomoku"})).await;
    assert_eq!(bob["game"]["id"], first["game"]["id"]);
    assert_eq!(bob["seat"], "O");
    let (_, replayed, late) = match_with(&app, None, Some("k-1"), &body).await;
    assert!(replayed);
    assert_eq!(late["token"], first["token"]);
    assert_eq!(all_games(&app).await.len(), 1);
}
