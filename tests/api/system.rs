//! Health, readiness, metrics and the docs page.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn healthz_and_readyz_answer_200() {
    let app = spawn_app().await;
    let res = app.get("/healthz").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().contains_key("x-request-id"));
    assert_eq!(app.get("/readyz").await.status(), StatusCode::OK);
}

#[tokio::test]
async fn metrics_count_requests_and_moves() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 0})).await;
    let _ = app.play(&x, json!({"column": 0})).await;
    let _ = app.play(&o, json!({"column": 9})).await;
    let text = app.get("/metrics").await.text().await.unwrap();
    assert!(
        text.contains("tabula_moves_total{kind=\"connect_four\",result=\"accepted\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("tabula_moves_total{kind=\"connect_four\",result=\"refused\"} 2"),
        "{text}"
    );
    assert!(text.contains("tabula_http_requests_total{method=\"POST\",route=\"/v1/games/{id}/moves\",status=\"201\"} 1"), "{text}");
    assert!(text.contains("tabula_http_request_duration_seconds_bucket"));
}

#[tokio::test]
async fn docs_serve_swagger_ui_from_the_binary() {
    let app = spawn_app().await;
    let res = app.get("/docs/").await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.text().await.unwrap();
    assert!(html.contains("swagger"), "{html}");
    let redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(app.url("/docs"))
        .send()
        .await
        .unwrap();
    assert!(redirect.status().is_redirection());
}

#[tokio::test]
async fn clients_over_the_rate_limit_get_429_with_retry_after() {
    let app = crate::helpers::spawn_app_with(|s| {
        s.rate_limit = 1;
        s.rate_burst = 3;
    })
    .await;
    for _ in 0..3 {
        assert_eq!(app.get("/v1/kinds").await.status(), StatusCode::OK);
    }
    let res = app.get("/v1/kinds").await;
    let retry_after: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry_after), "{retry_after}");
    crate::helpers::assert_problem(res, 429, "rate_limited").await;
    assert_eq!(
        app.get("/healthz").await.status(),
        StatusCode::OK,
        "health is never limited"
    );
}

#[tokio::test]
async fn without_a_rate_limit_bursts_are_served() {
    let app = spawn_app().await;
    for _ in 0..50 {
        assert_eq!(app.get("/v1/kinds").await.status(), StatusCode::OK);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_while_several_hard_bots_think() {
    // Each hint from a client of its own (one client holds fewer searches
    // than there are search threads).
    let app = crate::helpers::spawn_app_with(|s| {
        s.bot_budget_ms = 600;
        s.trusted_proxies = "127.0.0.1".parse().unwrap();
    })
    .await;
    let mut hints = Vec::new();
    for n in 0..4 {
        let seat = app.create(json!({"kind": "gomoku", "hotseat": true})).await;
        app.play_ok(&seat, json!({"row": 7, "col": 7})).await;
        let client = app.client.clone();
        let url = app.url(&format!("/v1/games/{}/hint?level=hard", seat.id));
        let token = seat.token.clone();
        hints.push(tokio::spawn(async move {
            client
                .get(url)
                .bearer_auth(token)
                .header("x-forwarded-for", format!("198.51.100.{n}"))
                .send()
                .await
                .unwrap()
                .status()
        }));
    }
    // Let the searches start, then ask for health while they run.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let health = app.get("/healthz").await;
    assert_eq!(health.status(), StatusCode::OK);
    assert!(
        hints.iter().any(|h| !h.is_finished()),
        "health answered only after every search had finished"
    );
    for h in hints {
        assert_eq!(h.await.unwrap(), StatusCode::OK);
    }
}
