//! Webhooks: the operators' endpoints, the address guard, and deliveries
//! (signed, in order, retried, given up) to a receiver on 127.0.0.1
//! (retries, slow and deleted endpoints, two instances: `webhooks_retries.rs`;
//! endpoints disabled and enabled again: `webhooks_disabling.rs`).

use std::time::Duration;

use base64::Engine as _;
use hmac::Mac as _;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Seat, TestApp, assert_problem, spawn_app, spawn_app_with};
use crate::receiver::{Got, Receiver};

pub(crate) const KEY: &str = "operators-only";

pub(crate) async fn with_webhooks(retry: &str) -> TestApp {
    spawn_app_with(webhooks_on(retry)).await
}

/// Settings with the admin key, private addresses allowed and `retry`.
pub(crate) fn webhooks_on(retry: &str) -> impl FnOnce(&mut tabula::Settings) {
    let retry = tabula::config::parse_schedule(retry).unwrap();
    move |s| {
        s.admin_key = Some(KEY.into());
        s.webhook_allow_private = true;
        s.webhook_retry = tabula::config::RetrySchedule(retry);
    }
}

/// A schedule of `quick` retries 100 ms apart, then one a second for a
/// minute: for tests that play while the receiver fails, where no event
/// may run out of retries however slow the host (with quick ones only, a
/// game's first events were given up on a loaded CI, and never arrived).
pub(crate) fn quick_then_patient(quick: usize) -> String {
    let mut waits = vec!["100ms"; quick];
    waits.extend(["1s"; 60]);
    waits.join(",")
}

pub(crate) async fn register(app: &TestApp, url: &str, events: &[&str]) -> Value {
    let res = app
        .request(Method::POST, "/v1/webhooks")
        .bearer_auth(KEY)
        .json(&json!({"url": url, "events": events}))
        .send()
        .await
        .unwrap();
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body
}

/// An operator's GET of `path`: its JSON answer.
pub(crate) async fn admin_get(app: &TestApp, path: &str) -> Value {
    let res = app
        .request(Method::GET, path)
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "GET {path}");
    res.json().await.unwrap()
}

pub(crate) const ALL: [&str; 5] = [
    "game.created",
    "game.joined",
    "move.played",
    "game.ended",
    "game.deleted",
];

/// The signature as the Standard Webhooks specification defines it,
/// computed here from the secret.
pub(crate) fn expected_signature(secret: &str, got: &Got) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = b64.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(
        format!(
            "{}.{}.{}",
            got.header("webhook-id"),
            got.header("webhook-timestamp"),
            got.body
        )
        .as_bytes(),
    );
    format!("v1,{}", b64.encode(mac.finalize().into_bytes()))
}

/// Waits (up to 5 s) until `/metrics` holds every line of `lines`. Asked
/// on a new connection each time: after a test's load the server may close
/// its idle connections just as the client's pool hands one out.
pub(crate) async fn assert_metrics(app: &TestApp, lines: &[&str]) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let metrics = reqwest::Client::new()
            .get(app.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let missing: Vec<&&str> = lines.iter().filter(|l| !metrics.contains(**l)).collect();
        if missing.is_empty() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{missing:?} not in {metrics}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn types(got: &[Got]) -> Vec<String> {
    got.iter()
        .map(|g| g.json()["type"].as_str().unwrap().to_owned())
        .collect()
}

pub(crate) async fn play_column_win(app: &TestApp, x: &Seat, o: &Seat) {
    for i in 0..7 {
        let (seat, column) = if i % 2 == 0 { (x, 0) } else { (o, 1) };
        app.play_ok(seat, json!({"column": column})).await;
    }
}

#[tokio::test]
async fn operators_paths_need_the_admin_key_and_do_not_exist_without_one() {
    let plain = spawn_app().await;
    for (method, path) in [
        (Method::GET, "/v1/webhooks"),
        (Method::POST, "/v1/webhooks"),
        (
            Method::GET,
            "/v1/webhooks/01a2d0a0-0000-7000-8000-000000000000/deliveries",
        ),
        (
            Method::DELETE,
            "/v1/webhooks/01a2d0a0-0000-7000-8000-000000000000",
        ),
    ] {
        let res = plain
            .request(method, path)
            .bearer_auth(KEY)
            .json(&json!({"url": "https://example.com/", "events": ["game.created"]}))
            .send()
            .await
            .unwrap();
        assert_problem(res, 404, "not_found").await;
    }
    let app = with_webhooks("1s").await;
    let res = app.get("/v1/webhooks").await;
    assert_problem(res, 401, "missing_token").await;
    let res = app
        .request(Method::GET, "/v1/webhooks")
        .bearer_auth("guess")
        .send()
        .await
        .unwrap();
    assert_problem(res, 403, "invalid_token").await;
    let res = app
        .request(Method::POST, "/v1/webhooks")
        .bearer_auth("guess")
        .json(&json!({"url": "http://127.0.0.1:9/", "events": ["game.created"]}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 403, "invalid_token").await;
    let list: Value = admin_get(&app, "/v1/webhooks").await;
    assert_eq!(
        list,
        json!({"items": []}),
        "a refused request registered nothing"
    );
}

#[tokio::test]
async fn urls_on_private_addresses_and_bad_event_lists_are_refused_and_nothing_is_stored() {
    let app = spawn_app_with(|s| s.admin_key = Some(KEY.into())).await;
    let post = |body: Value| {
        app.request(Method::POST, "/v1/webhooks")
            .bearer_auth(KEY)
            .json(&body)
            .send()
    };
    for url in [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://10.0.0.7/hook",
        "http://192.168.1.20/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[fd00::1]/hook",
        "http://0.0.0.0/hook",
        "http://[::ffff:127.0.0.1]/hook",
        // Every spelling of a non-global address (issue 67's probe).
        "http://[::127.0.0.1]/hook",
        "http://[::ffff:0:127.0.0.1]/hook",
        "http://[64:ff9b::169.254.169.254]/hook",
        "http://[2002:a9fe:a9fe::]/hook",
        "http://[fec0::1]/hook",
        "http://[ff02::1]/hook",
        "http://224.0.0.1/hook",
        "http://240.0.0.1/hook",
        "http://198.18.0.1/hook",
        "http://192.0.0.170/hook",
        "http://192.0.2.1/hook",
        "http://2130706433/hook",
        "http://0x7f.1/hook",
        "ftp://example.com/hook",
        "not a url",
    ] {
        let res = post(json!({"url": url, "events": ["game.created"]}))
            .await
            .unwrap();
        let problem = assert_problem(res, 422, "webhook_url_refused").await;
        assert!(!problem["detail"].as_str().unwrap().is_empty(), "{url}");
    }
    for events in [json!([]), json!(["game.started"])] {
        let res = post(json!({"url": "http://93.184.216.34/hook", "events": events}))
            .await
            .unwrap();
        assert_problem(res, 422, "invalid_option").await;
    }
    let res =
        post(json!({"url": "http://93.184.216.34/hook", "events": ["game.created"], "extra": 1}))
            .await
            .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    let list: Value = admin_get(&app, "/v1/webhooks").await;
    assert_eq!(list["items"], json!([]));
    // A public address is accepted; listed without its secret; deleted once.
    let res =
        post(json!({"url": "http://93.184.216.34/hook", "events": ["game.ended", "game.ended"]}))
            .await
            .unwrap();
    assert_eq!(res.status(), 201);
    let grant: Value = res.json().await.unwrap();
    assert_eq!(grant["webhook"]["events"], json!(["game.ended"]));
    assert_eq!(grant["webhook"]["disabled"], false);
    let secret = grant["secret"].as_str().unwrap();
    assert!(
        secret.starts_with("whsec_") && secret.len() > 40,
        "{secret}"
    );
    let id = grant["webhook"]["id"].as_str().unwrap();
    let list: Value = admin_get(&app, "/v1/webhooks").await;
    assert_eq!(list["items"], json!([grant["webhook"]]));
    let delete = || {
        app.request(Method::DELETE, &format!("/v1/webhooks/{id}"))
            .bearer_auth(KEY)
            .send()
    };
    assert_eq!(delete().await.unwrap().status(), 204);
    assert_problem(delete().await.unwrap(), 404, "webhook_not_found").await;
    let res = app
        .request(Method::GET, &format!("/v1/webhooks/{id}/deliveries"))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_problem(res, 404, "webhook_not_found").await;
}

#[tokio::test]
async fn events_arrive_signed_in_order_each_with_the_game_as_it_was() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    let grant = register(&app, &receiver.url, &ALL).await;
    let secret = grant["secret"].as_str().unwrap();
    let (x, o) = app.pair("connect_four").await;
    play_column_win(&app, &x, &o).await;
    let delivered = receiver.wait_delivered(10, Duration::from_secs(10)).await;
    let mut expected = vec!["game.created", "game.joined"];
    expected.extend(["move.played"; 7]);
    expected.push("game.ended");
    assert_eq!(types(&delivered), expected);
    let mut ids = std::collections::HashSet::new();
    let mut version = 0;
    for got in &delivered {
        assert_eq!(
            got.header("webhook-signature"),
            expected_signature(secret, got)
        );
        assert_eq!(got.header("content-type"), "application/json");
        let sent: i64 = got.header("webhook-timestamp").parse().unwrap();
        assert!((sent - chrono::Utc::now().timestamp()).abs() < 60);
        assert!(
            ids.insert(got.header("webhook-id").to_owned()),
            "one id per event"
        );
        let body = got.json();
        assert_eq!(body["data"]["game"]["id"], x.id.as_str());
        let now = body["data"]["game"]["version"].as_i64().unwrap();
        // The round's end is the last move's change: the same version.
        let ended = body["type"] == "game.ended";
        assert!(
            now > version || ended && now == version,
            "each event shows the game after its change"
        );
        version = now;
        chrono::DateTime::parse_from_rfc3339(body["timestamp"].as_str().unwrap()).unwrap();
    }
    let moves: Vec<&Got> = delivered
        .iter()
        .filter(|g| g.json()["type"] == "move.played")
        .collect();
    for (i, got) in moves.iter().enumerate() {
        let body = got.json();
        assert_eq!(body["data"]["move"]["ply"], i + 1);
        assert_eq!(body["data"]["game"]["ply"], i + 1);
        assert_eq!(
            body["data"]["move"]["player"],
            if i % 2 == 0 { "X" } else { "O" }
        );
    }
    let ended = delivered.last().unwrap().json();
    assert_eq!(ended["data"]["result"], "X");
    assert_eq!(ended["data"]["end_reason"], "line");
    assert_eq!(ended["data"]["rating_change"], Value::Null);
    assert_eq!(ended["data"]["game"]["status"], "won");
    // The log (once every outcome is recorded): one attempt per event,
    // newest first, all answered 204.
    assert_metrics(
        &app,
        &["tabula_webhook_deliveries_total{result=\"delivered\"} 10"],
    )
    .await;
    let log = admin_get(
        &app,
        &format!(
            "/v1/webhooks/{}/deliveries?limit=3",
            grant["webhook"]["id"].as_str().unwrap()
        ),
    )
    .await;
    let items = log["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["type"], "game.ended");
    assert_eq!(items[0]["event_id"], delivered[9].header("webhook-id"));
    assert_eq!(items[0]["status"], 204);
    assert_eq!(items[0]["attempt"], 1);
    assert_eq!(items[0]["error"], Value::Null);
    assert_eq!(items[0]["next_attempt_at"], Value::Null);
}

#[tokio::test]
async fn with_an_endpoint_a_moves_answer_shows_the_game_as_its_event_and_a_read_do() {
    // The event, rendered when it is sent from what was recorded with the
    // move, shows the game as the answer did.
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    register(&app, &receiver.url, &["move.played"]).await;
    let (x, o) = app.pair("connect_four").await;
    let mut answers = Vec::new();
    for (i, column) in [3, 3, 4, 2].into_iter().enumerate() {
        let seat = if i % 2 == 0 { &x } else { &o };
        let answer = app.play_ok(seat, json!({"column": column})).await;
        assert_eq!(answer["game"], app.game(&x.id).await, "move {i}");
        assert_eq!(answer["move"]["ply"], i + 1);
        assert_eq!(answer["replies"], json!([]));
        answers.push(answer);
    }
    let delivered = receiver.wait_delivered(4, Duration::from_secs(10)).await;
    for (got, answer) in delivered.iter().zip(&answers) {
        let body = got.json();
        assert_eq!(body["data"]["game"], answer["game"]);
        assert_eq!(body["data"]["move"], answer["move"]);
    }
}

#[tokio::test]
async fn every_way_a_round_ends_is_one_game_ended_and_filters_are_kept() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    register(&app, &receiver.url, &["game.ended", "game.deleted"]).await;
    // A line, then a restart (not an ending) and a resignation.
    let (x, o) = app.pair("connect_four").await;
    play_column_win(&app, &x, &o).await;
    app.new_round(&x, &o).await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&o.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    // A draw by agreement.
    let (x2, o2) = app.pair("connect_four").await;
    app.play_ok(&x2, json!({"column": 3})).await;
    let res = app
        .post(
            &format!("/v1/games/{}/offers", x2.id),
            Some(&x2.token),
            &json!({"type": "draw"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let res = app
        .post(
            &format!("/v1/games/{}/offers/accept", x2.id),
            Some(&o2.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    // A full board, then the game deleted.
    let (x3, o3) = app.pair("tic_tac_toe").await;
    for (i, (row, col)) in [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 1),
        (1, 0),
        (1, 2),
        (2, 1),
        (2, 0),
        (2, 2),
    ]
    .into_iter()
    .enumerate()
    {
        let seat = if i % 2 == 0 { &x3 } else { &o3 };
        app.play_ok(seat, json!({"row": row, "col": col})).await;
    }
    let res = app
        .request(Method::DELETE, &format!("/v1/games/{}", x3.id))
        .bearer_auth(&x3.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    receiver.wait_delivered(5, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let delivered: Vec<Value> = receiver.delivered().iter().map(Got::json).collect();
    // In order per game; the three games' events may interleave.
    let mut seen: Vec<(String, Value, Value)> = delivered
        .iter()
        .map(|b| {
            (
                b["type"].as_str().unwrap().to_owned(),
                b["data"]["end_reason"].clone(),
                b["data"]["result"].clone(),
            )
        })
        .collect();
    let mut expected: Vec<(String, Value, Value)> = vec![
        ("game.ended".into(), json!("line"), json!("X")),
        ("game.ended".into(), json!("resignation"), json!("X")),
        ("game.ended".into(), json!("agreement"), json!("draw")),
        ("game.ended".into(), json!("full_board"), json!("draw")),
        ("game.deleted".into(), Value::Null, Value::Null),
    ];
    let by_text = |a: &(String, Value, Value), b: &(String, Value, Value)| {
        format!("{a:?}").cmp(&format!("{b:?}"))
    };
    seen.sort_by(by_text);
    expected.sort_by(by_text);
    assert_eq!(seen, expected);
    let third: Vec<&str> = delivered
        .iter()
        .filter(|b| b["data"]["game"]["id"] == x3.id.as_str())
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(third, ["game.ended", "game.deleted"]);
    let resigned = delivered
        .iter()
        .find(|b| b["data"]["end_reason"] == "resignation")
        .unwrap();
    assert_eq!(resigned["data"]["game"]["round"], 2);
}

#[tokio::test]
async fn two_endpoints_get_the_same_events_each_with_its_own_body() {
    let app = with_webhooks("1s").await;
    let one = Receiver::start().await;
    let two = Receiver::start().await;
    register(&app, &one.url, &["game.created", "move.played"]).await;
    register(&app, &two.url, &["move.played"]).await;
    // Games played at once: their events share batches.
    let games = futures_util::future::join_all((0..6).map(|_| async {
        let (x, o) = app.pair("connect_four").await;
        for column in 0..3 {
            app.play_ok(&x, json!({"column": column})).await;
            app.play_ok(&o, json!({"column": column})).await;
        }
        x.id
    }))
    .await;
    let first = one.wait_delivered(6 + 36, Duration::from_secs(10)).await;
    let second = two.wait_delivered(36, Duration::from_secs(10)).await;
    assert_eq!((first.len(), second.len()), (42, 36));
    // Each delivery carries its own event: no body twice, every move once.
    let distinct: std::collections::HashSet<&str> = first.iter().map(|g| g.body.as_str()).collect();
    assert_eq!(distinct.len(), 42);
    let mut moves: Vec<(String, i64)> = second
        .iter()
        .map(|g| {
            let b = g.json();
            (
                b["data"]["game"]["id"].as_str().unwrap().to_owned(),
                b["data"]["move"]["ply"].as_i64().unwrap(),
            )
        })
        .collect();
    moves.sort();
    moves.dedup();
    assert_eq!(moves.len(), 36);
    let bodies: std::collections::HashMap<String, String> = first
        .iter()
        .map(|g| (g.header("webhook-id").to_owned(), g.body.clone()))
        .collect();
    for got in &second {
        assert_eq!(
            bodies[got.header("webhook-id")],
            got.body,
            "one event, one body"
        );
        let body = got.json();
        assert_eq!(body["data"]["move"]["ply"], body["data"]["game"]["ply"]);
        assert!(
            games
                .iter()
                .any(|id| body["data"]["game"]["id"] == id.as_str())
        );
    }
}

#[tokio::test]
async fn a_rated_rounds_game_ended_carries_its_rating_change() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    register(&app, &receiver.url, &["game.ended"]).await;
    let mut keys = Vec::new();
    for name in ["Ann", "Bob"] {
        let res = app.post("/v1/players", None, &json!({"name": name})).await;
        let v: Value = res.json().await.unwrap();
        keys.push(v["key"].as_str().unwrap().to_owned());
    }
    let res = app
        .post(
            "/v1/games",
            Some(&keys[0]),
            &json!({"kind": "tic_tac_toe", "rated": true, "clock": {"per_move_ms": 86_400_000}}),
        )
        .await;
    let id = res.json::<Value>().await.unwrap()["game"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = app
        .post(&format!("/v1/games/{id}/join"), Some(&keys[1]), &json!({}))
        .await;
    assert_eq!(res.status(), 200);
    let seat = |i: usize| Seat {
        id: id.clone(),
        seat: String::new(),
        token: keys[i].clone(),
    };
    for (i, (row, col)) in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
        .into_iter()
        .enumerate()
    {
        app.play_ok(&seat(i % 2), json!({"row": row, "col": col}))
            .await;
    }
    receiver.wait_delivered(1, Duration::from_secs(10)).await;
    let body = receiver.delivered()[0].json();
    assert_eq!(body["type"], "game.ended");
    let change = &body["data"]["rating_change"];
    assert_eq!(change["X"]["before"], 1500.0);
    assert!(change["X"]["after"].as_f64().unwrap() > 1500.0, "{change}");
    assert!(change["O"]["after"].as_f64().unwrap() < 1500.0, "{change}");
    assert_eq!(body["data"]["game"]["rating_change"], *change);
}
