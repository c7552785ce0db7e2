//! Every row of the contract's error table, and that a refused request
//! changes nothing.
//! (Hostile and malformed bodies, odd ids and headers: `errors_requests.rs`.)

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_with};

pub(crate) async fn version(app: &TestApp, id: &str) -> i64 {
    app.game(id).await["version"].as_i64().unwrap()
}

#[tokio::test]
async fn malformed_json_is_400() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("content-type", "application/json")
        .body("{\"column\": ")
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    let res = app
        .request(Method::POST, "/v1/games")
        .header("content-type", "application/json")
        .body("[1, 2")
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn unknown_fields_and_wrong_types_are_400() {
    let app = spawn_app().await;
    for body in [
        json!({"kind": "connect_four", "colour": "red"}),
        json!({"kind": "chess"}),
        json!({"kind": "connect_four", "hotseat": "yes"}),
        json!({"kind": "gomoku", "options": {"size": "big"}}),
        json!({"kind": "gomoku", "options": {"sides": 3}}),
        json!({"kind": "tic_tac_toe", "opponent": {"type": "alien"}}),
        json!({}),
    ] {
        let res = app.post("/v1/games", None, &body).await;
        assert_problem(res, 400, "malformed_request").await;
    }
    let (x, _) = app.pair("connect_four").await;
    for mv in [
        json!({"column": 3, "row": 1}),
        json!({"column": "3"}),
        json!({"column": 3.5}),
        json!({"column": 1e30}),
        json!([3]),
        json!({}),
    ] {
        assert_problem(app.play(&x, mv).await, 400, "malformed_request").await;
    }
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn a_body_error_names_the_field_it_is_about() {
    let app = spawn_app().await;
    for (body, detail) in [
        (
            json!({"kind": "connect_four", "opponent": {"bot": "hard"}}),
            "invalid body at `opponent`: missing field `type`",
        ),
        (
            json!({"kind": "gomoku", "options": {"size": 9, "sides": 3}}),
            "invalid body at `options`: unknown field `sides`, expected one of",
        ),
        (
            json!({"kind": "gomoku", "options": {"size": "big"}}),
            "invalid body at `options.size`: ",
        ),
        (
            json!({"kind": "connect_four", "colour": "red"}),
            "invalid body: unknown field `colour`, expected one of",
        ),
    ] {
        let res = app.post("/v1/games", None, &body).await;
        let problem = assert_problem(res, 400, "malformed_request").await;
        let got = problem["detail"].as_str().unwrap_or_default();
        assert!(got.starts_with(detail), "{body}: {got}");
    }
}

#[tokio::test]
async fn a_move_of_another_kinds_shape_is_400() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let body = assert_problem(
        app.play(&x, json!({"row": 0, "col": 3})).await,
        400,
        "malformed_request",
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("column"));
    let (u, _) = app.pair("ultimate_tic_tac_toe").await;
    assert_problem(
        app.play(&u, json!({"column": 3})).await,
        400,
        "malformed_request",
    )
    .await;
    let (t, _) = app.pair("tic_tac_toe").await;
    assert_problem(
        app.play(&t, json!({"board": 0, "cell": 0})).await,
        400,
        "malformed_request",
    )
    .await;
}

#[tokio::test]
async fn no_token_is_401_and_a_token_of_another_game_is_403() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let (other, _) = app.pair("connect_four").await;
    let res = app
        .post(
            &format!("/v1/games/{}/moves", x.id),
            None,
            &json!({"column": 0}),
        )
        .await;
    assert_problem(res, 401, "missing_token").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .header("authorization", "Basic Zm9vOmJhcg==")
        .json(&json!({"column": 0}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 401, "missing_token").await;
    let res = app
        .post(
            &format!("/v1/games/{}/moves", x.id),
            Some(&other.token),
            &json!({"column": 0}),
        )
        .await;
    assert_problem(res, 403, "invalid_token").await;
    let res = app
        .request(Method::DELETE, &format!("/v1/games/{}", x.id))
        .bearer_auth("not-a-real-token")
        .send()
        .await
        .unwrap();
    assert_problem(res, 403, "invalid_token").await;
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn unknown_games_and_non_uuid_ids_are_404() {
    let app = spawn_app().await;
    for path in [
        "/v1/games/00000000-0000-4000-8000-000000000000",
        "/v1/games/not-a-uuid",
        "/v1/games/not-a-uuid/moves",
        "/v1/games/00000000-0000-4000-8000-000000000000/positions/0",
    ] {
        assert_problem(app.get(path).await, 404, "game_not_found").await;
    }
    let res = app
        .post(
            "/v1/games/00000000-0000-4000-8000-000000000000/join",
            None,
            &json!({}),
        )
        .await;
    assert_problem(res, 404, "game_not_found").await;
}

#[tokio::test]
async fn not_your_turn_is_409_and_names_the_turn() {
    let app = spawn_app().await;
    let (_, o) = app.pair("connect_four").await;
    let body = assert_problem(
        app.play(&o, json!({"column": 0})).await,
        409,
        "not_your_turn",
    )
    .await;
    assert_eq!(body["turn"], "X");
    assert_eq!(version(&app, &o.id).await, 2);
}

#[tokio::test]
async fn moves_after_the_end_are_409_game_over() {
    let app = spawn_app().await;
    let (x, o) = app.pair("tic_tac_toe").await;
    for (seat, r, c) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1), (&x, 0, 2)] {
        app.play_ok(seat, json!({"row": r, "col": c})).await;
    }
    let v = version(&app, &x.id).await;
    assert_problem(
        app.play(&o, json!({"row": 2, "col": 2})).await,
        409,
        "game_over",
    )
    .await;
    assert_eq!(version(&app, &x.id).await, v);
}

#[tokio::test]
async fn moves_before_the_opponent_joins_are_409_waiting_for_opponent() {
    let app = spawn_app().await;
    let x = app.create_kind("connect_four").await;
    assert_problem(
        app.play(&x, json!({"column": 0})).await,
        409,
        "waiting_for_opponent",
    )
    .await;
    assert_eq!(version(&app, &x.id).await, 1);
}

#[tokio::test]
async fn joining_a_full_game_is_409_no_open_seat() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = app
        .post(&format!("/v1/games/{}/join", x.id), None, &json!({}))
        .await;
    assert_problem(res, 409, "no_open_seat").await;
    let hot = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    let res = app
        .post(&format!("/v1/games/{}/join", hot.id), None, &json!({}))
        .await;
    assert_problem(res, 409, "no_open_seat").await;
}

#[tokio::test]
async fn a_stale_if_match_is_412_and_a_garbage_one_is_400() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/restart", x.id))
        .bearer_auth(&x.token)
        .header("If-Match", "\"1\"")
        .send()
        .await
        .unwrap();
    assert_problem(res, 412, "version_mismatch").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("If-Match", "yesterday")
        .json(&json!({"column": 0}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn an_oversized_body_is_413() {
    let app = spawn_app_with(|s| s.body_limit = 1024).await;
    let (x, _) = app.pair("connect_four").await;
    let big = json!({"column": 0, "padding": "x".repeat(2000)});
    assert_problem(app.play(&x, big).await, 413, "payload_too_large").await;
    let res = app
        .request(Method::POST, "/v1/games")
        .header("content-type", "application/json")
        .body(format!(
            "{{\"kind\": \"gomoku\", \"x\": \"{}\"}}",
            "y".repeat(5000)
        ))
        .send()
        .await
        .unwrap();
    assert_problem(res, 413, "payload_too_large").await;
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("content-type", "text/plain")
        .body("{\"column\": 0}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415, "unsupported_media_type").await;
    let res = app
        .request(Method::POST, "/v1/games")
        .body("{\"kind\": \"gomoku\"}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415, "unsupported_media_type").await;
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn illegal_moves_are_422_with_reason_and_legal_moves() {
    let app = spawn_app().await;
    // occupied
    let (t, to) = app.pair("tic_tac_toe").await;
    app.play_ok(&t, json!({"row": 1, "col": 1})).await;
    let body = assert_problem(
        app.play(&to, json!({"row": 1, "col": 1})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "occupied");
    assert_eq!(body["legal_moves"].as_array().unwrap().len(), 8);
    // out of bounds
    let body = assert_problem(
        app.play(&to, json!({"row": 3, "col": 0})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "out_of_bounds");
    let body = assert_problem(
        app.play(&to, json!({"row": -1, "col": 0})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "out_of_bounds");
    // column full
    let c = app
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    for _ in 0..6 {
        app.play_ok(&c, json!({"column": 3})).await;
    }
    let before = version(&app, &c.id).await;
    let body = assert_problem(
        app.play(&c, json!({"column": 3})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "column_full");
    assert_eq!(body["detail"], "column 3 is full");
    assert!(
        !body["legal_moves"]
            .as_array()
            .unwrap()
            .contains(&json!({"column": 3}))
    );
    assert_eq!(body["legal_moves"].as_array().unwrap().len(), 6);
    let body = assert_problem(
        app.play(&c, json!({"column": 7})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "out_of_bounds");
    assert_eq!(
        version(&app, &c.id).await,
        before,
        "refused moves change nothing"
    );
    let history = app.get_json(&format!("/v1/games/{}/moves", c.id)).await;
    assert_eq!(history["items"].as_array().unwrap().len(), 6);
}

#[tokio::test]
async fn ultimate_refusals_are_wrong_board_and_board_finished() {
    let app = spawn_app().await;
    let u = app
        .create(json!({"kind": "ultimate_tic_tac_toe", "hotseat": true}))
        .await;
    let v = app.play_ok(&u, json!({"board": 4, "cell": 0})).await;
    assert_eq!(v["game"]["ultimate"]["active_board"], 0);
    let body = assert_problem(
        app.play(&u, json!({"board": 1, "cell": 0})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "wrong_board");
    assert_eq!(body["legal_moves"].as_array().unwrap().len(), 9);
    // X takes cells 0, 1, 2 of board 4; O is sent back there and then to the won board.
    for (b, c) in [(0, 4), (4, 1), (1, 4), (4, 2), (2, 4)] {
        app.play_ok(&u, json!({"board": b, "cell": c})).await;
    }
    let g = app.game(&u.id).await;
    assert_eq!(g["ultimate"]["boards"][4], "X", "{}", g["board"]);
    assert!(
        g["ultimate"]["active_board"].is_null(),
        "sent to a won board: free choice"
    );
    let body = assert_problem(
        app.play(&u, json!({"board": 4, "cell": 8})).await,
        422,
        "illegal_move",
    )
    .await;
    assert_eq!(body["reason"], "board_finished");
}

#[tokio::test]
async fn invalid_options_are_422() {
    let app = spawn_app().await;
    for body in [
        json!({"kind": "gomoku", "options": {"size": 4}}),
        json!({"kind": "gomoku", "options": {"size": 26}}),
        json!({"kind": "gomoku", "options": {"rule": "renju"}}),
        json!({"kind": "connect_four", "options": {"size": 9}}),
        json!({"kind": "connect_four", "options": {"rows": 8}}),
        json!({"kind": "tic_tac_toe", "hotseat": true, "opponent": {"type": "bot", "level": "easy"}}),
    ] {
        let res = app.post("/v1/games", None, &body).await;
        assert_problem(res, 422, "invalid_option").await;
    }
    let listed = app.get_json("/v1/games").await;
    assert_eq!(listed["items"], json!([]), "nothing was created");
}

#[tokio::test]
async fn bad_query_parameters_are_400() {
    let app = spawn_app().await;
    for path in [
        "/v1/games?kind=chess",
        "/v1/games?status=sleeping",
        "/v1/games?limit=0",
        "/v1/games?limit=1000",
        "/v1/games?cursor=abc",
        "/v1/games?open=maybe",
        "/v1/games?colour=red",
    ] {
        assert_problem(app.get(path).await, 400, "malformed_request").await;
    }
}

#[tokio::test]
async fn a_query_error_names_the_parameter() {
    let app = spawn_app().await;
    for (path, detail) in [
        ("/v1/games?limit=abc", "invalid query at `limit`: "),
        ("/v1/games?open=maybe", "invalid query at `open`: "),
        (
            "/v1/games?kind=chess",
            "invalid query at `kind`: unknown variant `chess`, expected one of",
        ),
        (
            "/v1/games?colour=red",
            "invalid query: unknown field `colour`, expected one of",
        ),
        (
            "/v1/kinds/gomoku/leaderboard?limit=-1",
            "invalid query at `limit`: ",
        ),
    ] {
        let problem = assert_problem(app.get(path).await, 400, "malformed_request").await;
        let got = problem["detail"].as_str().unwrap_or_default();
        assert!(got.starts_with(detail), "{path}: {got}");
    }
}

#[tokio::test]
async fn unknown_paths_are_404_problems() {
    let app = spawn_app().await;
    let res = app.get("/v2/nothing").await;
    assert_problem(res, 404, "not_found").await;
}

#[tokio::test]
async fn integers_written_as_integral_floats_are_integers() {
    // JSON Schema's `integer` includes 3.0; so does the server.
    let app = spawn_app().await;
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "gomoku", "options": {"size": 9.0},
                    "opponent": {"type": "bot", "level": "random", "seed": 7.0}}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["game"]["options"]["size"], 9);
    let (x, _) = app.pair("connect_four").await;
    let played = app.play_ok(&x, json!({"column": 3.0})).await;
    assert_eq!(played["move"]["move"], json!({"column": 3}));
    // A fraction is still no integer.
    let res = app.play(&x, json!({"column": 3.5})).await;
    assert_problem(res, 400, "malformed_request").await;
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "gomoku", "options": {"size": 9.5}}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
}

#[tokio::test]
async fn unknown_fields_in_the_opponent_are_400() {
    let app = spawn_app().await;
    for opponent in [
        json!({"type": "human", "level": "easy"}),
        json!({"type": "bot", "level": "easy", "colour": "red"}),
    ] {
        let res = app
            .post(
                "/v1/games",
                None,
                &json!({"kind": "connect_four", "opponent": opponent}),
            )
            .await;
        assert_problem(res, 400, "malformed_request").await;
    }
}

#[tokio::test]
async fn a_known_path_with_another_method_is_405_with_allow() {
    let app = spawn_app().await;
    let x = app.create_kind("connect_four").await;
    // HEAD is served wherever GET is.
    let cases = [
        (Method::PUT, "/v1/games".to_owned(), "GET, HEAD, POST"),
        (
            Method::PATCH,
            format!("/v1/games/{}", x.id),
            "GET, HEAD, DELETE",
        ),
        (Method::GET, format!("/v1/games/{}/join", x.id), "POST"),
        (Method::HEAD, format!("/v1/games/{}/join", x.id), "POST"),
        (Method::DELETE, "/v1/kinds".to_owned(), "GET, HEAD"),
        (Method::POST, "/healthz".to_owned(), "GET, HEAD"),
    ];
    for (method, path, allow) in cases {
        let res = app.request(method.clone(), &path).send().await.unwrap();
        assert_eq!(res.headers()["allow"], allow, "{method} {path}");
        if method == Method::HEAD {
            assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
            continue;
        }
        assert_problem(res, 405, "method_not_allowed").await;
    }
    // A path that is not the API's stays 404, whatever the method.
    let res = app
        .request(Method::PUT, "/v1/games/x/y")
        .send()
        .await
        .unwrap();
    assert_problem(res, 404, "not_found").await;
}
