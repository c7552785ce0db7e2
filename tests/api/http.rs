//! HTTP semantics a client may rely on beyond the contract's table.

use reqwest::{Method, StatusCode};

use crate::helpers::{TestApp, assert_problem, spawn_app};

/// Bodiless POSTs, each with the media type some clients send by default
/// (`curl -X POST -d ''` sends `application/x-www-form-urlencoded`).
async fn post_empty(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    media: &str,
) -> reqwest::Response {
    let mut req = app
        .request(Method::POST, path)
        .header("content-type", media)
        .body("");
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn bodiless_posts_are_accepted_whatever_their_media_type() {
    let app = spawn_app().await;
    let x = app.create_kind("tic_tac_toe").await;
    let res = post_empty(
        &app,
        &format!("/v1/games/{}/join", x.id),
        None,
        "text/plain",
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK, "join");
    let form = "application/x-www-form-urlencoded";
    let res = post_empty(
        &app,
        &format!("/v1/games/{}/resign", x.id),
        Some(&x.token),
        form,
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK, "resign");
    let res = post_empty(
        &app,
        &format!("/v1/games/{}/restart", x.id),
        Some(&x.token),
        form,
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK, "restart");
    let res = post_empty(
        &app,
        &format!("/v1/games/{}/bot-move", x.id),
        Some(&x.token),
        "text/plain",
    )
    .await;
    assert_eq!(res.status(), StatusCode::CREATED, "bot-move");
    // A body that is there must still be JSON.
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/restart", x.id))
        .bearer_auth(&x.token)
        .header("content-type", form)
        .body("a=1")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415, "unsupported_media_type").await;
    // An empty create is still no game.
    let res = post_empty(&app, "/v1/games", None, "text/plain").await;
    assert_problem(res, 400, "malformed_request").await;
}
