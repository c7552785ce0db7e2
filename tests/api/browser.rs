//! Browsers: CORS for pages on other origins (`--cors-origins`).

use reqwest::{Method, StatusCode};
use serde_json::json;
use tabula::web::CorsOrigins;

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_with};

const VITE: &str = "http://localhost:5173";

async fn app_allowing(origins: &str) -> TestApp {
    let origins: CorsOrigins = origins.parse().unwrap();
    spawn_app_with(|s| s.cors_origins = origins).await
}

fn header<'a>(res: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    res.headers().get(name).map(|v| v.to_str().unwrap())
}

fn names(list: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = list
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_answered_with_the_contracts_headers() {
    let app = app_allowing(VITE).await;
    let x = app.create_kind("connect_four").await;

    let res = app
        .request(Method::OPTIONS, &format!("/v1/games/{}/moves", x.id))
        .header("origin", VITE)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type, if-match, idempotency-key",
        )
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "access-control-allow-origin"), Some(VITE));
    assert_eq!(
        names(header(&res, "access-control-allow-headers")),
        [
            "authorization",
            "content-type",
            "idempotency-key",
            "if-match",
            "last-event-id"
        ]
    );
    assert!(names(header(&res, "access-control-allow-methods")).contains(&"post".to_owned()));
    assert_eq!(header(&res, "access-control-max-age"), Some("7200"));
}

#[tokio::test]
async fn an_answer_to_an_allowed_origin_exposes_etag_location_and_retry_after() {
    let app = app_allowing(&format!("https://other.example, {VITE}")).await;

    let res = app
        .request(Method::POST, "/v1/games")
        .header("origin", VITE)
        .json(&json!({"kind": "tic_tac_toe"}))
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(header(&res, "access-control-allow-origin"), Some(VITE));
    assert_eq!(
        names(header(&res, "access-control-expose-headers")),
        ["etag", "location", "retry-after"]
    );
    assert!(header(&res, "vary").unwrap().contains("Origin"));
}

#[tokio::test]
async fn an_error_answer_carries_the_cors_headers_so_a_page_can_read_its_code() {
    let app = app_allowing(VITE).await;
    let (x, _o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;

    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
        .header("origin", VITE)
        .bearer_auth(&x.token)
        .json(&json!({"column": 3}))
        .send()
        .await
        .unwrap();

    assert_eq!(header(&res, "access-control-allow-origin"), Some(VITE));
    assert_problem(res, 409, "not_your_turn").await;
    let res = app
        .request(Method::GET, "/nowhere")
        .header("origin", VITE)
        .send()
        .await
        .unwrap();
    assert_eq!(header(&res, "access-control-allow-origin"), Some(VITE));
    assert_problem(res, 404, "not_found").await;
}

#[tokio::test]
async fn a_rate_limited_answer_carries_the_cors_headers_and_exposes_retry_after() {
    let origins: CorsOrigins = VITE.parse().unwrap();
    let app = spawn_app_with(|s| {
        s.cors_origins = origins;
        s.rate_limit = 1;
        s.rate_burst = 1;
    })
    .await;

    let mut last = None;
    for _ in 0..3 {
        last = Some(
            app.request(Method::GET, "/v1/kinds")
                .header("origin", VITE)
                .send()
                .await
                .unwrap(),
        );
    }
    let res = last.unwrap();

    assert_eq!(header(&res, "access-control-allow-origin"), Some(VITE));
    assert!(header(&res, "retry-after").is_some());
    assert_problem(res, 429, "rate_limited").await;
}

#[tokio::test]
async fn the_event_stream_carries_the_cors_headers() {
    let app = app_allowing(VITE).await;
    let x = app.create_kind("tic_tac_toe").await;

    let res = app
        .request(Method::GET, &format!("/v1/games/{}/events", x.id))
        .header("origin", VITE)
        .header("last-event-id", "1")
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "content-type"), Some("text/event-stream"));
    assert_eq!(header(&res, "access-control-allow-origin"), Some(VITE));
}

#[tokio::test]
async fn any_origin_is_answered_with_a_wildcard() {
    let app = app_allowing("*").await;

    let res = app
        .request(Method::GET, "/v1/kinds")
        .header("origin", "https://anywhere.example")
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "access-control-allow-origin"), Some("*"));
}

#[tokio::test]
async fn an_unknown_origin_gets_no_cors_headers_and_its_preflight_is_refused_as_a_problem() {
    let app = app_allowing(VITE).await;

    let res = app
        .request(Method::GET, "/v1/kinds")
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "access-control-allow-origin"), None);

    let res = app
        .request(Method::OPTIONS, "/v1/games")
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&res, "access-control-allow-origin"), None);
    let body = assert_problem(res, 400, "malformed_request").await;
    assert!(
        body["detail"].as_str().unwrap().contains("Origin"),
        "{body}"
    );
}

#[tokio::test]
async fn without_cors_origins_no_answer_carries_cors_headers() {
    let app = spawn_app().await;

    let res = app
        .request(Method::GET, "/v1/kinds")
        .header("origin", VITE)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "access-control-allow-origin"), None);
    assert!(
        !header(&res, "vary").unwrap_or_default().contains("Origin"),
        "no Vary: Origin when CORS is off"
    );

    let res = app
        .request(Method::OPTIONS, "/v1/games")
        .header("origin", VITE)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&res, "access-control-allow-origin"), None);
    assert_problem(res, 405, "method_not_allowed").await;
}

#[tokio::test]
async fn the_root_redirects_to_the_play_page() {
    let app = spawn_app().await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    let res = client.get(app.url("/")).send().await.unwrap();

    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(header(&res, "location"), Some("/play"));
}

#[tokio::test]
async fn every_address_of_the_play_page_serves_the_page() {
    let app = spawn_app().await;
    let game = app.create_kind("connect_four").await;

    for path in [
        "/play",
        "/play/",
        "/play/new?kind=gomoku&size=9&opponent=bot&level=easy",
        &format!("/play/games/{}", game.id),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&res, "content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(
            header(&res, "content-security-policy")
                .unwrap()
                .contains("default-src 'self'")
        );
        let html = res.text().await.unwrap();
        assert!(
            html.contains(r#"<script defer src="/play/play.js">"#),
            "{path}"
        );
        assert!(html.contains(r#"role="status""#));
    }
}

#[tokio::test]
async fn the_play_assets_are_revalidated_by_etag_and_compressed() {
    let app = spawn_app().await;

    let res = app
        .request(Method::GET, "/play/play.js")
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        header(&res, "content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(header(&res, "content-encoding"), Some("gzip"));
    assert_eq!(header(&res, "cache-control"), Some("no-cache"));
    let etag = header(&res, "etag").unwrap().to_owned();

    let res = app
        .request(Method::GET, "/play/play.js")
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);

    let res = app.get("/play/play.css").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        header(&res, "content-type"),
        Some("text/css; charset=utf-8")
    );
}

#[tokio::test]
async fn the_play_page_answers_other_methods_with_405_and_is_not_in_the_api_document() {
    let app = spawn_app().await;

    let res = app.post("/play", None, &json!({})).await;
    assert_eq!(header(&res, "allow"), Some("GET, HEAD"));
    assert_problem(res, 405, "method_not_allowed").await;

    let doc = app.get_json("/openapi.json").await;
    let paths = doc["paths"].as_object().unwrap();
    assert!(!paths.keys().any(|p| p == "/" || p.starts_with("/play")));
}

#[tokio::test]
async fn a_request_without_origin_gets_no_cors_headers_even_when_cors_is_on() {
    for origins in [VITE, "*"] {
        let app = app_allowing(origins).await;
        for path in ["/v1/kinds", "/v1/games/nope"] {
            let res = app.request(Method::GET, path).send().await.unwrap();
            let cors: Vec<&str> = res
                .headers()
                .keys()
                .map(reqwest::header::HeaderName::as_str)
                .filter(|h| h.starts_with("access-control-"))
                .collect();
            assert_eq!(cors, Vec::<&str>::new(), "{origins} {path}");
        }
        // With an Origin, still exposed.
        let res = app
            .request(Method::GET, "/v1/kinds")
            .header("origin", VITE)
            .send()
            .await
            .unwrap();
        assert!(
            header(&res, "access-control-expose-headers").is_some(),
            "{origins}"
        );
    }
}

#[tokio::test]
async fn the_api_page_sends_a_content_security_policy_and_nosniff() {
    let app = spawn_app().await;
    for path in [
        "/docs/",
        "/docs/swagger-initializer.js",
        "/docs/swagger-ui.css",
    ] {
        let res = app.request(Method::GET, path).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&res, "x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        let csp = header(&res, "content-security-policy").unwrap_or_default();
        for directive in [
            "default-src 'self'",
            "object-src 'none'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert!(
            !csp.contains("script-src") || !csp.contains("unsafe"),
            "{csp}"
        );
    }
}

#[tokio::test]
async fn other_play_addresses_answer_an_html_404_with_the_way_back_and_the_icon_is_served() {
    let app = spawn_app().await;
    for path in [
        "/play/typo",
        "/play/games",
        "/play/games/x/y",
        "/play/new/again",
        "/play/games/0190d2a4-0000-7000-8000-000000000000",
        "/play/games/not-an-id",
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            header(&res, "content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        let html = res.text().await.unwrap();
        assert!(
            html.contains(r#"<a href="/play">Lobby</a>"#),
            "{path}: {html}"
        );
    }
    // A game's address: the page itself (its script says which is missing).
    let html = app
        .get("/play/games/0190d2a4-0000-7000-8000-000000000000")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(r#"<script defer src="/play/play.js">"#),
        "{html}"
    );
    // Elsewhere a browser gets the page too, a program the problem; the
    // API's own 404s stay problem+json.
    let browser = |path: &str| {
        app.client
            .get(format!("{}{path}", app.base))
            .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            .send()
    };
    let res = browser("/nope").await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        header(&res, "content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(
        res.text()
            .await
            .unwrap()
            .contains(r#"<a href="/play">Lobby</a>"#)
    );
    assert_problem(app.get("/nope").await, 404, "not_found").await;
    assert_problem(browser("/v1/nothing").await.unwrap(), 404, "not_found").await;
    assert_problem(app.get("/v1/nothing").await, 404, "not_found").await;
    let res = app.get("/favicon.ico").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "content-type"), Some("image/svg+xml"));
    assert!(res.text().await.unwrap().starts_with("<svg"));
}
