//! Requests a hostile or careless client sends: a batch of hostile bodies
//! (none answers 500), game ids in other spellings, arrays and duplicate
//! keys, moves of the wrong shape, errors that say how to fix the request,
//! weak `If-Match`.

use crate::errors::version;
use crate::helpers::{TestApp, assert_problem, spawn_app};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

#[tokio::test]
async fn no_request_in_a_hostile_batch_answers_500() {
    let app = spawn_app().await;
    let (x, _) = app.pair("gomoku").await;
    let bodies = [
        "null",
        "0",
        "\"\"",
        "{\"row\": null, \"col\": 1}",
        "{\"row\": 9223372036854775807, \"col\": -9223372036854775808}",
        "{\"row\": 1, \"col\": 1, \"row\": 2}",
        "\u{0}",
        "{\"board\": 1}",
        "{\"cell\": 1}",
    ];
    for body in bodies {
        let res = app
            .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
            .bearer_auth(&x.token)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert!(
            res.status().is_client_error() || res.status() == StatusCode::CREATED,
            "{body}: {}",
            res.status()
        );
        let _: Value = res.json().await.unwrap();
    }
}

#[tokio::test]
async fn game_ids_in_other_spellings_are_404_and_any_case_is_the_game() {
    let app = spawn_app().await;
    let x = app.create_kind("connect_four").await;
    let simple = x.id.replace('-', "");
    for id in [
        format!("urn:uuid:{}", x.id),
        format!("%7B{}%7D", x.id),
        simple.clone(),
        simple.to_uppercase(),
        format!(" {}", x.id),
    ] {
        let res = app.get(&format!("/v1/games/{id}")).await;
        assert_problem(res, 404, "game_not_found").await;
        let res = app.get(&format!("/v1/games/{id}/moves")).await;
        assert_problem(res, 404, "game_not_found").await;
    }
    let upper = app
        .get_json(&format!("/v1/games/{}", x.id.to_uppercase()))
        .await;
    assert_eq!(upper["id"], x.id);
}

/// Sends `body` as JSON, byte for byte (`json!` cannot repeat a key).
async fn post_raw(app: &TestApp, path: &str, token: Option<&str>, body: &str) -> reqwest::Response {
    let mut req = app
        .request(Method::POST, path)
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn a_json_array_where_an_object_is_required_is_400() {
    let app = spawn_app().await;
    let res = post_raw(&app, "/v1/games", None, r#"["tic_tac_toe"]"#).await;
    let body = assert_problem(res, 400, "malformed_request").await;
    assert!(
        body["detail"].as_str().unwrap().contains("object"),
        "{body}"
    );
    let x = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    for path in ["bot-move", "restart", "resign"] {
        let res = post_raw(
            &app,
            &format!("/v1/games/{}/{path}", x.id),
            Some(&x.token),
            "[]",
        )
        .await;
        assert_problem(res, 400, "malformed_request").await;
    }
    assert_eq!(version(&app, &x.id).await, 1);
    let listed = app.get_json("/v1/games").await;
    assert_eq!(
        listed["items"].as_array().unwrap().len(),
        1,
        "no game from the array"
    );
}

#[tokio::test]
async fn duplicate_keys_are_400_at_any_depth() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = post_raw(
        &app,
        &format!("/v1/games/{}/moves", x.id),
        Some(&x.token),
        r#"{"column": 99, "column": 2}"#,
    )
    .await;
    let body = assert_problem(res, 400, "malformed_request").await;
    assert!(
        body["detail"].as_str().unwrap().contains("duplicate"),
        "{body}"
    );
    assert_eq!(version(&app, &x.id).await, 2, "nothing was played");
    for create in [
        r#"{"kind": "gomoku", "kind": "tic_tac_toe"}"#,
        r#"{"kind": "gomoku", "options": {"size": 9, "size": 11}}"#,
        r#"{"kind": "gomoku", "opponent": {"type": "bot", "level": "easy", "level": "hard"}}"#,
    ] {
        let res = post_raw(&app, "/v1/games", None, create).await;
        assert_problem(res, 400, "malformed_request").await;
    }
    let res = post_raw(
        &app,
        &format!("/v1/games/{}/join", x.id),
        None,
        r#"{"a": 1, "a": 2}"#,
    )
    .await;
    assert_problem(res, 400, "malformed_request").await;
}

/// The `detail` of a refused move.
async fn move_detail(app: &TestApp, seat: &crate::helpers::Seat, mv: Value) -> String {
    let res = app.play(seat, mv).await;
    let body = assert_problem(res, 400, "malformed_request").await;
    body["detail"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_move_of_the_wrong_shape_says_the_kinds_shape() {
    let app = spawn_app().await;
    let (t, _) = app.pair("tic_tac_toe").await;
    for mv in [
        json!({"cell": 4}),
        json!({"row": 1, "column": 1}),
        json!({"column": 1}),
        json!({"row": 1}),
        json!({}),
        json!({"board": "a", "cell": 1}),
    ] {
        let detail = move_detail(&app, &t, mv.clone()).await;
        assert!(detail.contains(r#"{"row": r, "col": c}"#), "{mv}: {detail}");
    }
    let (c, _) = app.pair("connect_four").await;
    for mv in [
        json!({"column": 3, "row": 1}),
        json!({"row": 1, "col": 2}),
        json!({"col": 2}),
    ] {
        let detail = move_detail(&app, &c, mv.clone()).await;
        assert!(detail.contains(r#"{"column": c}"#), "{mv}: {detail}");
    }
    let (u, _) = app.pair("ultimate_tic_tac_toe").await;
    for mv in [json!({"cell": 4}), json!({"board": 4, "cell": 0, "row": 1})] {
        let detail = move_detail(&app, &u, mv.clone()).await;
        assert!(
            detail.contains(r#"{"board": b, "cell": c}"#),
            "{mv}: {detail}"
        );
    }
    // A value of the right shape but the wrong type is named as such.
    let detail = move_detail(&app, &c, json!({"column": "3"})).await;
    assert!(detail.contains("integer"), "{detail}");
}

#[tokio::test]
async fn errors_say_how_to_fix_the_request() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    // 415 names the media type to send.
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("content-type", "text/plain")
        .body("{\"column\": 0}")
        .send()
        .await
        .unwrap();
    let body = assert_problem(res, 415, "unsupported_media_type").await;
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("application/json"),
        "{body}"
    );
    // A token without its scheme: the expected form.
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .header("authorization", &x.token)
        .json(&json!({"column": 0}))
        .send()
        .await
        .unwrap();
    let body = assert_problem(res, 401, "missing_token").await;
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("Bearer <token>"), "{body}");
    assert!(
        !detail.contains(&x.token),
        "the token is not echoed: {body}"
    );
    // An opponent that is not an object: what is expected, in the API's words.
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "connect_four", "opponent": "bot"}),
        )
        .await;
    let body = assert_problem(res, 400, "malformed_request").await;
    let detail = body["detail"].as_str().unwrap();
    assert!(!detail.contains("internally tagged"), "{body}");
    assert!(detail.contains(r#"{"type": "bot""#), "{body}");
    assert_eq!(version(&app, &x.id).await, 2);
}

#[tokio::test]
async fn a_weak_if_match_never_matches() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .bearer_auth(&x.token)
        .header("If-Match", "W/\"2\"")
        .json(&json!({"column": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["etag"], "\"2\"");
    let body = assert_problem(res, 412, "version_mismatch").await;
    assert!(body["detail"].as_str().unwrap().contains("weak"), "{body}");
    assert_eq!(body["game"]["version"], 2);
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/restart", x.id))
        .bearer_auth(&x.token)
        .header("If-Match", "W/\"2\"")
        .send()
        .await
        .unwrap();
    assert_problem(res, 412, "version_mismatch").await;
    assert_eq!(version(&app, &x.id).await, 2, "nothing was changed");
}
