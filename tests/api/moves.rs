//! Moves: history, positions, idempotent retries, `If-Match`, bots and hints.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn a_move_returns_201_with_the_record_and_the_new_game() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = app.play(&x, json!({"column": 3})).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.headers()["etag"], "\"3\"");
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["move"]["round"], 1);
    assert_eq!(v["move"]["ply"], 1);
    assert_eq!(v["move"]["player"], "X");
    assert_eq!(v["move"]["move"], json!({"column": 3}));
    assert!(v["move"]["at"].is_string());
    assert_eq!(v["game"]["board"][5], "...X...");
    assert_eq!(v["game"]["turn"], "O");
    assert_eq!(v["game"]["version"], 3);
    assert_eq!(v["replies"], json!([]));
}

/// A move's answer is written by hand for speed (`Game::write_json`); its
/// stored copy, replayed for the same `Idempotency-Key`, by serde: the two
/// are the same bytes, for a game with names to escape and bot replies.
#[tokio::test]
async fn a_fresh_answer_and_its_replay_are_the_same_bytes() {
    let app = spawn_app().await;
    let x = app
        .create(json!({"kind": "tic_tac_toe", "name": "Ann \"Q\" \\ \u{e9}", "opponent": {"type": "bot", "level": "easy"}}))
        .await;
    let mv = json!({"row": 1, "col": 1});
    let first = keyed(&app, &x, "moves", "same", &mv).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first = first.bytes().await.unwrap();
    let again = keyed(&app, &x, "moves", "same", &mv).await;
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again = again.bytes().await.unwrap();
    let v: Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(v["replies"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["game"]["seats"]["X"]["name"], "Ann \"Q\" \\ \u{e9}");
    assert_eq!(
        String::from_utf8_lossy(&first),
        String::from_utf8_lossy(&again)
    );
}

#[tokio::test]
async fn under_prefer_return_minimal_a_move_is_answered_204_with_its_etag_and_no_body() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    let send = |seat: &crate::helpers::Seat, prefer: &str, key: &str, body: Value| {
        app.request(Method::POST, &format!("/v1/games/{}/moves", seat.id))
            .bearer_auth(&seat.token)
            .header("Prefer", prefer)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
    };
    let res = send(&x, "return=minimal", "m1", json!({"column": 3}))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(res.headers()["etag"], "\"3\"");
    assert_eq!(res.headers()["preference-applied"], "return=minimal");
    assert!(res.headers().get("idempotent-replayed").is_none());
    assert!(res.bytes().await.unwrap().is_empty());
    // Played and stored all the same.
    let game = app.game(&x.id).await;
    assert_eq!(game["board"][5], "...X...");
    assert_eq!(game["version"], 3);
    // A retry under the same key is the first answer, minimal too, and
    // plays nothing; asked without the preference it is the stored body.
    let again = send(&x, "return=minimal", "m1", json!({"column": 3}))
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NO_CONTENT);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.headers()["etag"], "\"3\"");
    let full = send(&x, "respond-async", "m1", json!({"column": 3}))
        .await
        .unwrap();
    assert_eq!(full.status(), StatusCode::CREATED);
    assert_eq!(full.headers()["idempotent-replayed"], "true");
    let full: Value = full.json().await.unwrap();
    assert_eq!(full["game"]["version"], 3);
    assert_eq!(app.game(&x.id).await["version"], 3);
    // Among other preferences, in any case, quoted: still minimal.
    let res = send(
        &o,
        "wait=5, RETURN=\"Minimal\"; foo=bar",
        "m2",
        json!({"column": 3}),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(res.headers()["etag"], "\"4\"");
    // Another value, or none: the usual answer, no Preference-Applied.
    let res = send(&x, "return=representation", "m3", json!({"column": 0}))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert!(res.headers().get("preference-applied").is_none());
    // A refused move is refused as always (a problem body).
    let res = send(&x, "return=minimal", "m4", json!({"column": 0}))
        .await
        .unwrap();
    assert_problem(res, 409, "not_your_turn").await;
    // The server's move for a seat answers the same way.
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/bot-move", o.id))
        .bearer_auth(&o.token)
        .header("Prefer", "return=minimal")
        .json(&json!({"level": "random"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(res.headers()["etag"], "\"6\"");
    assert!(res.bytes().await.unwrap().is_empty());
    assert_eq!(app.game(&x.id).await["ply"], 4);
}

#[tokio::test]
async fn positions_replay_the_history_ply_by_ply() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;
    app.play_ok(&o, json!({"column": 3})).await;
    let p0 = app
        .get_json(&format!("/v1/games/{}/positions/0", x.id))
        .await;
    assert_eq!(p0["ply"], 0);
    assert_eq!(p0["board"][5], ".......");
    let p1 = app
        .get_json(&format!("/v1/games/{}/positions/1", x.id))
        .await;
    assert_eq!(p1["board"][5], "...X...");
    assert_eq!(p1["turn"], "O");
    let p2 = app
        .get_json(&format!("/v1/games/{}/positions/2", x.id))
        .await;
    assert_eq!(p2["board"][4], "...O...");
    let beyond = app.get(&format!("/v1/games/{}/positions/3", x.id)).await;
    let problem = assert_problem(beyond, 404, "position_not_found").await;
    assert_eq!(
        problem["detail"],
        "no position after move 3: round 1 has 2 moves (positions 0 to 2)"
    );
    let garbage = app.get(&format!("/v1/games/{}/positions/abc", x.id)).await;
    assert_problem(garbage, 400, "malformed_request").await;
}

#[tokio::test]
async fn a_retry_with_the_same_idempotency_key_returns_the_first_answer_once() {
    let app = spawn_app().await;
    let (x, o) = app.pair("tic_tac_toe").await;
    let send = || {
        app.request(Method::POST, &format!("/v1/games/{}/moves", x.id))
            .bearer_auth(&x.token)
            .header("Idempotency-Key", "move-1")
            .json(&json!({"row": 0, "col": 0}))
            .send()
    };
    let first = send().await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    assert_eq!(first.headers()["etag"], "\"3\"");
    let first: Value = first.json().await.unwrap();
    let second = send().await.unwrap();
    assert_eq!(second.status(), StatusCode::CREATED);
    assert_eq!(second.headers()["idempotent-replayed"], "true");
    // The replay is the first answer, ETag included.
    assert_eq!(second.headers()["etag"], "\"3\"");
    let second: Value = second.json().await.unwrap();
    assert_eq!(first, second);
    let history = app.get_json(&format!("/v1/games/{}/moves", x.id)).await;
    assert_eq!(
        history["items"].as_array().unwrap().len(),
        1,
        "applied once"
    );
    assert_eq!(app.game(&x.id).await["version"], 3);
    // The same body spelled otherwise is the same request.
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("Idempotency-Key", "move-1")
        .header("content-type", "application/json")
        .body("{ \"col\": 0,\n  \"row\": 0 }")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.headers()["idempotent-replayed"], "true");
    // Another key is another request (refused here: it is O's turn).
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("Idempotency-Key", "move-2")
        .json(&json!({"row": 0, "col": 0}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 409, "not_your_turn").await;
    let _ = o;
}

/// Sends a move with an `Idempotency-Key`.
async fn keyed(
    app: &crate::helpers::TestApp,
    seat: &crate::helpers::Seat,
    path: &str,
    key: &str,
    body: &Value,
) -> reqwest::Response {
    app.request(Method::POST, &format!("/v1/games/{}/{path}", seat.id))
        .bearer_auth(&seat.token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_idempotency_key_reused_for_another_request_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let (x, o) = app.pair("tic_tac_toe").await;
    let first = keyed(&app, &x, "moves", "k", &json!({"row": 0, "col": 0})).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let game = app.game(&x.id).await;
    // Another body from the same seat, the same body from the other seat
    // (on its turn), or the same key on bot-move: each is another request.
    let refused = [
        keyed(&app, &x, "moves", "k", &json!({"row": 2, "col": 2})).await,
        keyed(&app, &o, "moves", "k", &json!({"row": 0, "col": 0})).await,
        keyed(&app, &o, "moves", "k", &json!({"row": 1, "col": 1})).await,
        keyed(&app, &o, "bot-move", "k", &json!({"level": "random"})).await,
    ];
    for res in refused {
        assert!(res.headers().get("idempotent-replayed").is_none());
        let problem = assert_problem(res, 422, "idempotency_key_reused").await;
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("Idempotency-Key"),
            "{problem}"
        );
    }
    assert_eq!(app.game(&x.id).await, game, "nothing changed");
    // The first request is still answered as the first time.
    let retry = keyed(&app, &x, "moves", "k", &json!({"row": 0, "col": 0})).await;
    assert_eq!(retry.status(), StatusCode::CREATED);
    assert_eq!(retry.headers()["idempotent-replayed"], "true");
    // And O plays on with a key of its own.
    let res = keyed(&app, &o, "moves", "k2", &json!({"row": 1, "col": 1})).await;
    assert_eq!(res.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_bot_move_retried_with_its_key_returns_the_first_answer() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let body = json!({"level": "random"});
    let first = keyed(&app, &x, "bot-move", "b", &body).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    // It is O's turn now: the retry must not be taken for a new request.
    let retry = keyed(&app, &x, "bot-move", "b", &body).await;
    assert_eq!(retry.status(), StatusCode::CREATED);
    assert_eq!(retry.headers()["idempotent-replayed"], "true");
    assert_eq!(retry.json::<Value>().await.unwrap(), first);
    assert_eq!(app.game(&x.id).await["ply"], 1, "played once");
    // The default level and an explicit one are the same request.
    let (y, _) = app.pair("connect_four").await;
    let first = keyed(&app, &y, "bot-move", "d", &json!({})).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let retry = keyed(&app, &y, "bot-move", "d", &json!({"level": "medium"})).await;
    assert_eq!(retry.headers()["idempotent-replayed"], "true");
}

#[tokio::test]
async fn a_retry_in_a_hotseat_game_replays_although_the_turn_has_passed() {
    let app = spawn_app().await;
    let seat = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    let send = || {
        app.request(Method::POST, &format!("/v1/games/{}/moves", seat.id))
            .bearer_auth(&seat.token)
            .header("Idempotency-Key", "hot-1")
            .json(&json!({"row": 0, "col": 0}))
            .send()
    };
    let first = send().await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    // The hotseat token now plays O; the retry is still the same request.
    let second = send().await.unwrap();
    assert_eq!(second.status(), StatusCode::CREATED);
    assert_eq!(second.headers()["idempotent-replayed"], "true");
    assert_eq!(second.json::<Value>().await.unwrap(), first);
    assert_eq!(app.game(&seat.id).await["ply"], 1, "applied once");
}

#[tokio::test]
async fn if_match_with_the_current_version_is_accepted_and_a_stale_one_is_refused() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    let ok = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("If-Match", "\"2\"")
        .json(&json!({"column": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::CREATED);
    let stale = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&o.token)
        .header("If-Match", "\"2\"")
        .json(&json!({"column": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.headers()["etag"], "\"3\"");
    let body = assert_problem(stale, 412, "version_mismatch").await;
    assert_eq!(body["game"]["version"], 3);
    assert_eq!(app.game(&x.id).await["ply"], 1, "nothing changed");
}

#[tokio::test]
async fn a_bot_opponent_replies_within_the_same_request() {
    let app = spawn_app().await;
    let me = app
        .create(json!({"kind": "connect_four", "opponent": {"type": "bot", "level": "random", "seed": 7}}))
        .await;
    let g = app.game(&me.id).await;
    assert_eq!(g["status"], "in_progress");
    assert_eq!(
        g["seats"]["O"],
        json!({"type": "bot", "taken": true, "level": "random", "name": null, "player": null})
    );
    let v = app.play_ok(&me, json!({"column": 3})).await;
    let replies = v["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0]["player"], "O");
    assert_eq!(replies[0]["ply"], 2);
    assert_eq!(v["game"]["ply"], 2);
    assert_eq!(v["game"]["turn"], "X");
    assert_eq!(v["game"]["version"], 3);
}

#[tokio::test]
async fn a_bot_holding_x_opens_at_creation() {
    let app = spawn_app().await;
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "tic_tac_toe", "seat": "O", "opponent": {"type": "bot", "level": "easy", "seed": 1}}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["seat"], "O");
    assert_eq!(v["game"]["ply"], 1);
    assert_eq!(v["game"]["turn"], "O");
    let history = app
        .get_json(&format!(
            "/v1/games/{}/moves",
            v["game"]["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(history["items"][0]["player"], "X");
}

#[tokio::test]
async fn the_same_bot_seed_plays_the_same_game() {
    let app = spawn_app().await;
    let mut boards = Vec::new();
    for _ in 0..2 {
        let me = app
            .create(json!({"kind": "gomoku", "options": {"size": 9}, "opponent": {"type": "bot", "level": "random", "seed": 99}}))
            .await;
        app.play_ok(&me, json!({"row": 4, "col": 4})).await;
        let v = app.play_ok(&me, json!({"row": 0, "col": 0})).await;
        boards.push(v["game"]["board"].clone());
    }
    assert_eq!(boards[0], boards[1]);
}

#[tokio::test]
async fn a_hint_finds_the_immediate_win() {
    let app = spawn_app().await;
    let (x, o) = app.pair("tic_tac_toe").await;
    for (seat, r, c) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 2, 2)] {
        app.play_ok(seat, json!({"row": r, "col": c})).await;
    }
    let res = app
        .request(Method::GET, &format!("/v1/games/{}/hint?level=easy", x.id))
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["move"], json!({"row": 0, "col": 2}));
    assert_eq!(v["level"], "easy");
    assert_eq!(v["evaluation"]["outcome"], "win");
    assert_eq!(v["evaluation"]["plies"], 1);
    let not_yours = app
        .request(Method::GET, &format!("/v1/games/{}/hint", x.id))
        .bearer_auth(&o.token)
        .send()
        .await
        .unwrap();
    assert_problem(not_yours, 409, "not_your_turn").await;
    assert_eq!(app.game(&x.id).await["ply"], 4, "a hint plays nothing");
}

#[tokio::test]
async fn a_hint_blocks_the_opponents_immediate_win() {
    let app = spawn_app().await;
    let seat = app
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    for c in [0, 6, 0, 6, 0] {
        app.play_ok(&seat, json!({"column": c})).await;
    }
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{}/hint?level=easy", seat.id),
        )
        .bearer_auth(&seat.token)
        .send()
        .await
        .unwrap();
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["move"], json!({"column": 0}), "O must block X's column");
}

#[tokio::test]
async fn connect_four_at_perfect_is_served_with_an_exact_evaluation() {
    let app = spawn_app().await;
    let bot = app
        .create(json!({"kind": "connect_four", "opponent": {"type": "bot", "level": "perfect"}}))
        .await;
    let v = app.play_ok(&bot, json!({"column": 3})).await;
    assert_eq!(v["replies"].as_array().map(Vec::len), Some(1), "{v}");
    // A middle position of the standard test set Test_L2_R1, score 4: O to
    // move wins with its 18th stone, 11 plies from now.
    let seat = app
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    for c in "5554224333234511764415115".bytes() {
        app.play_ok(&seat, json!({"column": c - b'1'})).await;
    }
    let v = app
        .get_json_as(
            &format!("/v1/games/{}/hint?level=perfect", seat.id),
            &seat.token,
        )
        .await;
    assert_eq!(v["level"], "perfect");
    assert_eq!(v["evaluation"]["outcome"], "win", "{v}");
    assert_eq!(v["evaluation"]["plies"], 11, "{v}");
    let res = app
        .post(
            &format!("/v1/games/{}/bot-move", seat.id),
            Some(&seat.token),
            &json!({"level": "perfect"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn connect_four_perfect_opens_in_the_centre_and_knows_every_first_move() {
    let app = spawn_app().await;
    // The bot holds X: its opening (from the book) is on the board.
    let o = app
        .create(json!({"kind": "connect_four", "seat": "O", "opponent": {"type": "bot", "level": "perfect"}}))
        .await;
    let line = app.get_json(&format!("/v1/games/{}/notation", o.id)).await;
    assert_eq!(line["moves"], "4", "{line}");
    // Every first move, proven: the centre wins with X's 21st stone (the
    // 41st ply), the columns beside it draw, the others lose.
    let seat = app
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    let v = app
        .get_json_as(
            &format!("/v1/games/{}/analysis?level=perfect", seat.id),
            &seat.token,
        )
        .await;
    assert_eq!(v["exact"], true, "{v}");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7);
    assert_eq!(moves[0]["move"], json!({"column": 3}));
    assert_eq!(moves[0]["evaluation"]["outcome"], "win");
    assert_eq!(moves[0]["evaluation"]["plies"], 41);
    let outcome = |col: u64| {
        moves
            .iter()
            .find(|m| m["move"]["column"] == col)
            .map(|m| m["evaluation"]["outcome"].clone())
            .unwrap()
    };
    assert_eq!(
        (0..7).map(outcome).collect::<Vec<_>>(),
        ["loss", "loss", "draw", "win", "draw", "loss", "loss"].map(|o| json!(o))
    );
}

#[tokio::test]
async fn bot_move_plays_for_the_side_to_move() {
    let app = spawn_app().await;
    let seat = app
        .create(json!({"kind": "ultimate_tic_tac_toe", "hotseat": true}))
        .await;
    let res = app
        .post(
            &format!("/v1/games/{}/bot-move", seat.id),
            Some(&seat.token),
            &json!({"level": "random"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["move"]["player"], "X");
    assert_eq!(v["game"]["ply"], 1);
    let no_token = app
        .post(&format!("/v1/games/{}/bot-move", seat.id), None, &json!({}))
        .await;
    assert_problem(no_token, 401, "missing_token").await;
}
