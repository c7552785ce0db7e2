//! What one client (or many) can hold of the server: a body that never
//! arrives, event streams, the rate limit behind a proxy, and query
//! parameters a route does not read.

use std::time::{Duration, Instant};

use reqwest::{Method, Response, StatusCode};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_with};

/// Reads what the server sends until it closes the connection (or 10 s).
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) | Err(_) => break,
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Sends `head` (a request whose body stops arriving) and checks that it is
/// answered 408 and its connection closed well before the read gives up,
/// and that nothing was created.
async fn a_stalled_body_is_answered_408_and_closed(head: &[u8]) {
    let app = spawn_app_with(|s| s.body_timeout_secs = 1).await;
    let addr = app.base.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let started = Instant::now();
    stream.write_all(head).await.unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"request_timeout\""), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the connection was held {:?} after the 408",
        started.elapsed()
    );
    let page = app.get_json("/v1/games").await;
    assert_eq!(page["items"], json!([]));
}

#[tokio::test]
async fn a_body_that_stops_arriving_gets_408_and_the_connection_is_closed() {
    a_stalled_body_is_answered_408_and_closed(
        b"POST /v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
          Content-Length: 40\r\n\r\n{",
    )
    .await;
}

#[tokio::test]
async fn a_chunked_body_that_stops_arriving_gets_408_and_the_connection_is_closed() {
    // actix-http drains the rest of a chunked body it was not asked for
    // before closing: without the fix the socket stayed open for minutes.
    a_stalled_body_is_answered_408_and_closed(
        b"POST /v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
          Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
    )
    .await;
}

#[tokio::test]
async fn event_streams_past_the_cap_get_503_busy_until_one_closes() {
    let app = spawn_app_with(|s| {
        s.max_streams = 2;
        // A client gone away is noticed when the next write fails.
        s.sse_heartbeat_secs = 1;
    })
    .await;
    let x = app.create_kind("tic_tac_toe").await;
    let path = format!("/v1/games/{}/events", x.id);
    let first = app.get(&path).await;
    let second = app.get(&path).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(second.status(), StatusCode::OK);
    let refused = app.get(&path).await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key("retry-after"));
    let body = assert_problem(refused, 503, "busy").await;
    assert!(
        body["detail"].as_str().unwrap().contains("event streams"),
        "{body}"
    );
    // Other requests are served meanwhile.
    app.join(&x.id).await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    // A client going away frees its slot (at the next heartbeat at most).
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let res = app.get(&path).await;
        if res.status() == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "the slot was never freed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(second);
}

/// An app allowing one request per second and client, trusting `proxies`.
async fn one_per_second(proxies: &str) -> TestApp {
    let proxies = proxies.parse().unwrap();
    spawn_app_with(|s| {
        s.rate_limit = 1;
        s.rate_burst = 1;
        s.trusted_proxies = proxies;
    })
    .await
}

/// `GET /v1/kinds` with `X-Forwarded-For: client`.
async fn kinds_from(app: &TestApp, client: &str) -> Response {
    app.request(Method::GET, "/v1/kinds")
        .header("x-forwarded-for", client)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_rate_limit_keys_on_the_forwarded_client() {
    let app = one_per_second("127.0.0.0/8").await;
    assert_eq!(kinds_from(&app, "203.0.113.1").await.status(), 200);
    // The same client again: over its limit.
    let res = kinds_from(&app, "203.0.113.1").await;
    assert_problem(res, 429, "rate_limited").await;
    // Another client behind the same proxy has its own bucket; a forged
    // entry to the left of the proxy's does not make a new client.
    assert_eq!(kinds_from(&app, "203.0.113.2").await.status(), 200);
    let res = kinds_from(&app, "198.51.100.9, 203.0.113.2").await;
    assert_problem(res, 429, "rate_limited").await;
}

#[tokio::test]
async fn without_trusted_proxies_x_forwarded_for_is_ignored() {
    let app = one_per_second("").await;
    assert_eq!(kinds_from(&app, "203.0.113.1").await.status(), 200);
    // A new address in the header is no new client.
    let res = kinds_from(&app, "203.0.113.2").await;
    assert_problem(res, 429, "rate_limited").await;
}

#[tokio::test]
async fn query_parameters_a_route_does_not_read_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let (x, _) = app.pair("tic_tac_toe").await;
    let res = app.get(&format!("/v1/games/{}?round=1", x.id)).await;
    let body = assert_problem(res, 400, "malformed_request").await;
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("`round`"), "{detail}");
    assert!(detail.contains("/moves?round=N"), "{detail}");
    let res = app.get("/v1/kinds?verbose=1").await;
    assert_problem(res, 400, "malformed_request").await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{}/moves?force=1", x.id))
        .bearer_auth(&x.token)
        .json(&json!({"row": 1, "col": 1}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    let game = app.game(&x.id).await;
    assert_eq!(game["version"], 2, "{game}");
    // The routes that take parameters still do.
    let res = app.get(&format!("/v1/games/{}/moves?round=1", x.id)).await;
    assert_eq!(res.status(), 200);
}

/// Opens event streams on `path` until one is refused or `deadline`; the
/// streams opened, and whether the last try was refused.
async fn open_stream_before(app: &TestApp, path: &str, deadline: Instant) -> Option<Response> {
    loop {
        let res = app.get(path).await;
        if res.status() == StatusCode::OK {
            return Some(res);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_closed_event_stream_frees_its_place_at_once_not_at_the_next_heartbeat() {
    let app = spawn_app_with(|s| {
        s.max_streams = 3;
        s.sse_heartbeat_secs = 60;
    })
    .await;
    let x = app.create_kind("tic_tac_toe").await;
    let path = format!("/v1/games/{}/events", x.id);
    let mut open = Vec::new();
    for _ in 0..3 {
        let res = app.get(&path).await;
        assert_eq!(res.status(), StatusCode::OK);
        open.push(res);
    }
    assert_eq!(
        app.get(&path).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    // The clients go away; the heartbeat is a minute off, so only noticing
    // the close itself frees the places in time.
    drop(open);
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut again = Vec::new();
    for _ in 0..3 {
        let res = open_stream_before(&app, &path, deadline).await;
        again.push(res.expect("a closed stream's place was still held"));
    }
}

#[tokio::test]
async fn one_client_may_hold_only_its_share_of_event_streams() {
    let app = spawn_app_with(|s| s.max_streams_per_client = 2).await;
    let x = app.create_kind("tic_tac_toe").await;
    let path = format!("/v1/games/{}/events", x.id);
    let first = app.get(&path).await;
    let second = app.get(&path).await;
    assert_eq!(
        (first.status(), second.status()),
        (StatusCode::OK, StatusCode::OK)
    );
    let refused = app.get(&path).await;
    assert!(refused.headers().contains_key("retry-after"));
    let body = assert_problem(refused, 503, "busy").await;
    assert!(
        body["detail"].as_str().unwrap().contains("client"),
        "{body}"
    );
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    assert!(open_stream_before(&app, &path, deadline).await.is_some());
}
