//! HTTP semantics a client may rely on beyond the contract's table: HEAD
//! wherever GET, `Allow` on every served path, and bodiless POSTs whatever
//! their media type.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{TestApp, assert_problem, spawn_app};

/// The headers a HEAD answer must share with the GET answer.
const SAME_HEADERS: &[&str] = &["content-type", "etag", "allow", "content-length"];

#[tokio::test]
async fn head_answers_wherever_get_does_with_the_same_status_and_headers() {
    let app = spawn_app().await;
    let (x, _) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;
    let paths = [
        "/v1/kinds".to_owned(),
        "/v1/games".to_owned(),
        format!("/v1/games/{}", x.id),
        format!("/v1/games/{}/moves", x.id),
        format!("/v1/games/{}/positions/1", x.id),
        format!("/v1/games/{}/positions/9", x.id),
        "/v1/games/00000000-0000-4000-8000-000000000000".to_owned(),
        "/healthz".to_owned(),
        "/readyz".to_owned(),
        "/openapi.json".to_owned(),
        "/docs/".to_owned(),
        "/v2/nothing".to_owned(),
    ];
    for path in paths {
        let get = app.get(&path).await;
        let head = app.request(Method::HEAD, &path).send().await.unwrap();
        assert_eq!(head.status(), get.status(), "HEAD {path}");
        for name in SAME_HEADERS {
            assert_eq!(
                head.headers().get(*name),
                get.headers().get(*name),
                "HEAD {path}: {name}"
            );
        }
        assert!(
            head.bytes().await.unwrap().is_empty(),
            "HEAD {path}: a body"
        );
    }
    // /metrics changes between two reads: the status and type are the same.
    let head = app.request(Method::HEAD, "/metrics").send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert!(
        head.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
}

#[tokio::test]
async fn head_on_the_event_stream_answers_its_headers_and_ends() {
    let app = spawn_app().await;
    let x = app.create_kind("connect_four").await;
    let res = tokio::time::timeout(Duration::from_secs(5), async {
        let res = app
            .request(Method::HEAD, &format!("/v1/games/{}/events", x.id))
            .send()
            .await
            .unwrap();
        let status = res.status();
        let content_type = res.headers()["content-type"].clone();
        let body = res.bytes().await.unwrap();
        (status, content_type, body)
    })
    .await
    .expect("HEAD on the stream answers within 5 s");
    assert_eq!(res.0, StatusCode::OK);
    assert_eq!(res.1, "text/event-stream");
    assert!(res.2.is_empty());
    let res = app
        .request(
            Method::HEAD,
            "/v1/games/00000000-0000-4000-8000-000000000000/events",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_document_and_the_docs_page_answer_other_methods_405_with_allow() {
    let app = spawn_app().await;
    for path in ["/openapi.json", "/docs/", "/docs/index.html"] {
        for method in [Method::PUT, Method::OPTIONS, Method::DELETE, Method::POST] {
            let res = app.request(method.clone(), path).send().await.unwrap();
            assert_eq!(
                res.headers().get("allow").map(|v| v.to_str().unwrap()),
                Some("GET, HEAD"),
                "{method} {path}"
            );
            assert_problem(res, 405, "method_not_allowed").await;
        }
    }
}

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
    let o = crate::helpers::seat_of(&res.json().await.unwrap());
    let form = "application/x-www-form-urlencoded";
    let res = post_empty(
        &app,
        &format!("/v1/games/{}/resign", x.id),
        Some(&x.token),
        form,
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK, "resign");
    // Between two people a new round is an offer; its answer has no body.
    let res = app
        .post(
            &format!("/v1/games/{}/offers", x.id),
            Some(&x.token),
            &serde_json::json!({"type": "restart"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED, "offer");
    let res = post_empty(
        &app,
        &format!("/v1/games/{}/offers/accept", x.id),
        Some(&o.token),
        form,
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK, "accept");
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

#[tokio::test]
async fn a_header_the_service_reads_sent_twice_is_refused() {
    let app = spawn_app().await;
    let x = app.create_kind("connect_four").await;
    let before = app.game(&x.id).await;
    for (name, first, second) in [
        (
            "authorization",
            format!("Bearer {}", x.token),
            "Bearer wrong".to_owned(),
        ),
        ("idempotency-key", "a".to_owned(), "b".to_owned()),
        ("if-match", "\"1\"".to_owned(), "\"2\"".to_owned()),
    ] {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.append(name, first.parse().unwrap());
        headers.append(name, second.parse().unwrap());
        let res = app
            .request(reqwest::Method::POST, &format!("/v1/games/{}/moves", x.id))
            .headers(headers)
            .json(&json!({"column": 3}))
            .send()
            .await
            .unwrap();
        let body = assert_problem(res, 400, "duplicate_header").await;
        assert!(body["detail"].as_str().unwrap().contains(name), "{body}");
    }
    assert_eq!(app.game(&x.id).await, before, "nothing changed");
}

#[tokio::test]
async fn a_get_whose_if_none_match_names_the_current_etag_is_answered_304() {
    let app = spawn_app().await;
    let x = app.create_kind("tic_tac_toe").await;
    let path = format!("/v1/games/{}", x.id);
    let first = app.get(&path).await;
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    for sent in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"99\", {etag}"),
        "*".into(),
    ] {
        let res = app
            .request(reqwest::Method::GET, &path)
            .header("if-none-match", &sent)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 304, "{sent}");
        assert_eq!(res.headers()["etag"], etag.as_str());
        assert!(res.bytes().await.unwrap().is_empty());
    }
    // Another version: the game, in full.
    app.join(&x.id).await;
    let res = app
        .request(reqwest::Method::GET, &path)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_ne!(res.headers()["etag"], etag.as_str());
}
