//! Notation: export, and set-up at create from a line (a game's analysis of
//! every move, and the levels each kind lists: `analysis.rs`).

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Seat, TestApp, assert_problem, spawn_app};

pub(crate) async fn notation(app: &TestApp, id: &str) -> Value {
    app.get_json(&format!("/v1/games/{id}/notation")).await
}

/// Creates a game from a set-up line; the whole create answer.
pub(crate) async fn create_from(app: &TestApp, body: Value) -> Value {
    let res = app.post("/v1/games", None, &body).await;
    let status = res.status();
    let answer: Value = res.json().await.unwrap();
    assert_eq!(status, 201, "{body}: {answer}");
    answer
}

pub(crate) fn seat(answer: &Value) -> Seat {
    crate::helpers::seat_of(answer)
}

pub(crate) async fn analysis(
    app: &TestApp,
    id: &str,
    level: &str,
    token: Option<&str>,
) -> reqwest::Response {
    let mut req = app.request(
        Method::GET,
        &format!("/v1/games/{id}/analysis?level={level}"),
    );
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap()
}

pub(crate) async fn game_count(app: &TestApp) -> usize {
    app.get_json("/v1/games?limit=100").await["items"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn each_kind_exports_its_moves_in_its_notation() {
    let app = spawn_app().await;
    let cases = [
        (
            json!({"kind": "connect_four"}),
            vec![
                json!({"column": 3}),
                json!({"column": 3}),
                json!({"column": 4}),
                json!({"column": 2}),
            ],
            "4453",
        ),
        (
            json!({"kind": "tic_tac_toe"}),
            vec![
                json!({"row": 1, "col": 1}),
                json!({"row": 0, "col": 0}),
                json!({"row": 2, "col": 2}),
            ],
            "519",
        ),
        (
            json!({"kind": "gomoku"}),
            vec![
                json!({"row": 7, "col": 7}),
                json!({"row": 6, "col": 8}),
                json!({"row": 14, "col": 0}),
            ],
            "h8 i9 a1",
        ),
        (
            json!({"kind": "gomoku", "options": {"size": 25}}),
            vec![json!({"row": 0, "col": 24}), json!({"row": 24, "col": 0})],
            "y25 a1",
        ),
        (
            json!({"kind": "ultimate_tic_tac_toe"}),
            vec![
                json!({"board": 4, "cell": 4}),
                json!({"board": 4, "cell": 0}),
            ],
            "55 51",
        ),
    ];
    for (mut create, moves, text) in cases {
        create["hotseat"] = json!(true);
        let seat = app.create(create.clone()).await;
        let empty = notation(&app, &seat.id).await;
        assert_eq!(empty["moves"], "", "{create}");
        for mv in moves {
            app.play_ok(&seat, mv).await;
        }
        let exported = notation(&app, &seat.id).await;
        assert_eq!(exported["moves"], text, "{create}");
        assert_eq!(exported["kind"], create["kind"]);
        assert_eq!(exported["round"], 1);
        assert_eq!(exported["result"], Value::Null);
        let game = app.game(&seat.id).await;
        assert_eq!(exported["options"], game["options"]);
    }
}

#[tokio::test]
async fn a_game_set_up_from_a_line_holds_its_moves_and_exports_the_same_line() {
    let app = spawn_app().await;
    let cases = [
        (json!({"kind": "connect_four"}), "4453", 4),
        (json!({"kind": "tic_tac_toe"}), "519", 3),
        (json!({"kind": "gomoku"}), "h8 i9 a1", 3),
        (
            json!({"kind": "gomoku", "options": {"size": 9, "rule": "standard"}}),
            "e5 i9",
            2,
        ),
        (json!({"kind": "ultimate_tic_tac_toe"}), "55 51 15", 3),
    ];
    for (mut body, line, n) in cases {
        body["moves"] = json!(line);
        body["hotseat"] = json!(true);
        let created = create_from(&app, body.clone()).await;
        let game = &created["game"];
        assert_eq!(game["ply"], n, "{body}");
        // The create is version 1, the moves versions 2..=n+1.
        assert_eq!(game["version"], n + 1, "{body}");
        assert_eq!(game["turn"], if n % 2 == 0 { "X" } else { "O" });
        assert_eq!(game["status"], "in_progress");
        let id = game["id"].as_str().unwrap();
        assert_eq!(notation(&app, id).await["moves"], line, "{body}");
        let history = app.get_json(&format!("/v1/games/{id}/moves")).await;
        let items = history["items"].as_array().unwrap();
        assert_eq!(items.len(), n as usize);
        for (i, item) in items.iter().enumerate() {
            assert_eq!(item["ply"], i + 1);
            assert_eq!(item["round"], 1);
            assert_eq!(item["player"], if i % 2 == 0 { "X" } else { "O" });
        }
        // The last position of the history is the game.
        let last = app.get_json(&format!("/v1/games/{id}/positions/{n}")).await;
        assert_eq!(last["board"], game["board"]);
        let start = app.get_json(&format!("/v1/games/{id}/positions/0")).await;
        assert_eq!(start["ply"], 0);
        // It plays on like any game.
        let seat = seat(&created);
        let next = &game["legal_moves"][0];
        let played = app.play_ok(&seat, next.clone()).await;
        assert_eq!(played["game"]["version"], n + 2);
        assert_eq!(played["move"]["ply"], n + 1);
    }
}

#[tokio::test]
async fn the_squares_of_a_set_up_line_are_where_the_notation_says() {
    let app = spawn_app().await;
    let created = create_from(
        &app,
        json!({"kind": "gomoku", "moves": "h8 a1 o15", "hotseat": true}),
    )
    .await;
    let board = created["game"]["board"].as_array().unwrap();
    let cell = |row: usize, col: usize| board[row].as_str().unwrap().as_bytes()[col] as char;
    assert_eq!(cell(7, 7), 'X', "h8 is the centre");
    assert_eq!(cell(14, 0), 'O', "a1 is the bottom left");
    assert_eq!(cell(0, 14), 'X', "o15 is the top right");
    let created = create_from(
        &app,
        json!({"kind": "ultimate_tic_tac_toe", "moves": "55 51", "hotseat": true}),
    )
    .await;
    assert_eq!(created["game"]["ultimate"]["active_board"], 0);
    let c4 = create_from(
        &app,
        json!({"kind": "connect_four", "moves": "17", "hotseat": true}),
    )
    .await;
    let rows = c4["game"]["board"].as_array().unwrap();
    assert_eq!(rows[5], "X.....O", "{c4}");
}

#[tokio::test]
async fn an_illegal_move_of_a_line_is_refused_with_its_index_and_reason_and_nothing_is_created() {
    let app = spawn_app().await;
    let cases = [
        ("connect_four", "4444444", 6, "column_full"),
        ("connect_four", "48", 1, "out_of_bounds"),
        ("tic_tac_toe", "5125", 3, "occupied"),
        ("tic_tac_toe", "142536", 5, "game_over"),
        ("gomoku", "h8 h8", 1, "occupied"),
        ("gomoku", "h8 p1", 1, "out_of_bounds"),
        ("ultimate_tic_tac_toe", "55 51 55", 2, "wrong_board"),
    ];
    for (kind, line, index, reason) in cases {
        let res = app
            .post("/v1/games", None, &json!({"kind": kind, "moves": line}))
            .await;
        let body = assert_problem(res, 422, "illegal_move").await;
        assert_eq!(body["index"], index, "{kind} {line}: {body}");
        assert_eq!(body["reason"], reason, "{kind} {line}: {body}");
        assert!(body["legal_moves"].is_array(), "{body}");
        // `index` counts from 0; the text, for people, from 1.
        let told = format!("move {} (", index + 1);
        assert!(
            body["detail"].as_str().unwrap().starts_with(&told),
            "{body}"
        );
    }
    // The legal moves are those where the bad move was tried.
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "connect_four", "moves": "4444444"}),
        )
        .await;
    let body = assert_problem(res, 422, "illegal_move").await;
    assert_eq!(body["legal_moves"].as_array().unwrap().len(), 6);
    assert!(
        !body["legal_moves"]
            .as_array()
            .unwrap()
            .contains(&json!({"column": 3}))
    );
    assert_eq!(game_count(&app).await, 0);
}

#[tokio::test]
async fn text_that_is_not_a_move_is_refused_as_unreadable() {
    let app = spawn_app().await;
    let cases = [
        ("connect_four", "44 5", 2),
        ("connect_four", "4x", 1),
        ("tic_tac_toe", "5,1", 1),
        ("gomoku", "h8  i9", 1),
        ("gomoku", " h8", 0),
        ("gomoku", "h8 i9 ", 2),
        ("gomoku", "H8", 0),
        ("gomoku", "h08", 0),
        ("ultimate_tic_tac_toe", "55,51", 0),
        ("ultimate_tic_tac_toe", "55 5", 1),
    ];
    for (kind, line, index) in cases {
        let res = app
            .post("/v1/games", None, &json!({"kind": kind, "moves": line}))
            .await;
        let body = assert_problem(res, 422, "illegal_move").await;
        assert_eq!(body["reason"], "unreadable", "{kind} {line:?}: {body}");
        assert_eq!(body["index"], index, "{kind} {line:?}: {body}");
    }
    // A move that is not a string is a malformed body.
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "connect_four", "moves": 4453}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
    assert_eq!(game_count(&app).await, 0);
}

#[tokio::test]
async fn the_empty_line_starts_from_the_empty_board() {
    let app = spawn_app().await;
    let created = create_from(&app, json!({"kind": "gomoku", "moves": ""})).await;
    assert_eq!(created["game"]["ply"], 0);
    assert_eq!(created["game"]["version"], 1);
}

#[tokio::test]
async fn a_line_that_ends_the_game_is_taken_and_the_game_is_over() {
    let app = spawn_app().await;
    let created = create_from(
        &app,
        json!({"kind": "tic_tac_toe", "moves": "14253", "hotseat": true}),
    )
    .await;
    let game = &created["game"];
    assert_eq!(game["status"], "won");
    assert_eq!(game["winner"], "X");
    assert_eq!(game["end_reason"], "line");
    assert_eq!(game["legal_moves"], json!([]));
    let id = game["id"].as_str().unwrap();
    let exported = notation(&app, id).await;
    assert_eq!(exported["moves"], "14253");
    assert_eq!(exported["result"], "X");
    let seat = seat(&created);
    let res = app.play(&seat, json!({"row": 2, "col": 2})).await;
    assert_problem(res, 409, "game_over").await;
    // A full board without a line is a draw.
    let drawn = create_from(&app, json!({"kind": "tic_tac_toe", "moves": "512346789"})).await;
    assert_eq!(drawn["game"]["status"], "draw", "{drawn}");
    let id = drawn["game"]["id"].as_str().unwrap();
    assert_eq!(notation(&app, id).await["result"], "draw");
}

#[tokio::test]
async fn a_bot_to_move_after_the_line_replies_at_once() {
    let app = spawn_app().await;
    let bot = json!({"type": "bot", "level": "random", "seed": 7});
    // After one move O, the bot, is to move.
    let created = create_from(
        &app,
        json!({"kind": "connect_four", "moves": "4", "opponent": bot}),
    )
    .await;
    assert_eq!(created["game"]["ply"], 2, "{created}");
    assert_eq!(created["game"]["turn"], "X");
    let id = created["game"]["id"].as_str().unwrap();
    let text = notation(&app, id).await["moves"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.starts_with('4') && text.len() == 2, "{text}");
    // After two moves it is the creator's turn: no reply.
    let created = create_from(
        &app,
        json!({"kind": "connect_four", "moves": "44", "opponent": bot}),
    )
    .await;
    assert_eq!(created["game"]["ply"], 2);
    assert_eq!(created["game"]["version"], 3);
    // The creator holds O and the line leaves X, the bot, to move.
    let created = create_from(
        &app,
        json!({"kind": "tic_tac_toe", "moves": "5", "seat": "O", "opponent": bot}),
    )
    .await;
    assert_eq!(created["game"]["ply"], 1, "O is to move: {created}");
    let created = create_from(
        &app,
        json!({"kind": "tic_tac_toe", "moves": "51", "seat": "O", "opponent": bot}),
    )
    .await;
    assert_eq!(created["game"]["ply"], 3, "the bot replied as X: {created}");
}

#[tokio::test]
async fn an_event_stream_resumed_from_the_create_replays_the_line() {
    let app = spawn_app().await;
    let created = create_from(
        &app,
        json!({"kind": "connect_four", "moves": "445", "hotseat": true}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap();
    let mut res = app
        .request(Method::GET, &format!("/v1/games/{id}/events"))
        .header("Last-Event-ID", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut text = String::new();
    while text.matches("event: move").count() < 3 {
        let chunk = tokio::time::timeout(Duration::from_secs(10), res.chunk())
            .await
            .expect("events within 10 s")
            .unwrap()
            .expect("the stream goes on");
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    for (version, column) in [(2, 3), (3, 3), (4, 4)] {
        assert!(text.contains(&format!("id: {version}\n")), "{text}");
        assert!(
            text.contains(&format!(r#""move":{{"column":{column}}}"#)),
            "{text}"
        );
    }
}

#[tokio::test]
async fn the_result_follows_the_round_and_earlier_rounds_stay_readable() {
    let app = spawn_app().await;
    let created = create_from(
        &app,
        json!({"kind": "connect_four", "moves": "44", "hotseat": true}),
    )
    .await;
    let seat = seat(&created);
    let id = seat.id.clone();
    // X resigns: O wins round 1.
    let res = app
        .post(
            &format!("/v1/games/{id}/resign"),
            Some(&seat.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(notation(&app, &id).await["result"], "O");
    let res = app
        .post(
            &format!("/v1/games/{id}/restart"),
            Some(&seat.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    app.play_ok(&seat, json!({"column": 0})).await;
    let now = notation(&app, &id).await;
    assert_eq!(
        (now["round"].clone(), now["moves"].clone()),
        (json!(2), json!("1"))
    );
    assert_eq!(now["result"], Value::Null);
    let first = app
        .get_json(&format!("/v1/games/{id}/notation?round=1"))
        .await;
    assert_eq!(first["moves"], "44");
    assert_eq!(first["round"], 1);
    assert_eq!(first["result"], "O", "a resignation gives the other side");
    // A round left unfinished by a restart has no result.
    let res = app
        .post(
            &format!("/v1/games/{id}/restart"),
            Some(&seat.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let second = app
        .get_json(&format!("/v1/games/{id}/notation?round=2"))
        .await;
    assert_eq!(
        (second["moves"].clone(), second["result"].clone()),
        (json!("1"), Value::Null)
    );
    // A round won by a line, then restarted.
    for column in [0, 1, 0, 1, 0, 1, 0] {
        app.play_ok(&seat, json!({"column": column})).await;
    }
    let res = app
        .post(
            &format!("/v1/games/{id}/restart"),
            Some(&seat.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let third = app
        .get_json(&format!("/v1/games/{id}/notation?round=3"))
        .await;
    assert_eq!(
        (third["moves"].clone(), third["result"].clone()),
        (json!("1212121"), json!("X"))
    );
}

#[tokio::test]
async fn unknown_rounds_and_games_are_not_found() {
    let app = spawn_app().await;
    let seat = app.create_kind("connect_four").await;
    let res = app
        .get(&format!("/v1/games/{}/notation?round=2", seat.id))
        .await;
    assert_problem(res, 404, "position_not_found").await;
    let res = app
        .get(&format!("/v1/games/{}/notation?round=0", seat.id))
        .await;
    let problem = assert_problem(res, 404, "position_not_found").await;
    assert_eq!(problem["detail"], "no round 0: this game has only round 1");
    let res = app
        .get("/v1/games/3f0c8a56-7a4e-4f7e-9d55-2b8f0c1d9e10/notation")
        .await;
    assert_problem(res, 404, "game_not_found").await;
    let res = app
        .get("/v1/games/3f0c8a56-7a4e-4f7e-9d55-2b8f0c1d9e10/analysis")
        .await;
    assert_problem(res, 404, "game_not_found").await;
    let res = app
        .get(&format!("/v1/games/{}/notation?round=x", seat.id))
        .await;
    assert_problem(res, 400, "malformed_request").await;
}
