//! Webhook deliveries that fail and are retried, endpoints that are slow or
//! deleted, the clock's sweeper, and two instances delivering at once.

use crate::helpers::{postgres_server, spawn_app_on, spawn_app_with};
use crate::receiver::{Got, Receiver};
use crate::webhooks::*;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test]
async fn a_receiver_that_fails_then_recovers_gets_every_event_in_order_per_game() {
    let app = with_webhooks(&quick_then_patient(20)).await;
    let receiver = Receiver::start().await;
    receiver.answer(0);
    register(&app, &receiver.url, &["move.played"]).await;
    let (a, b) = app.pair("connect_four").await;
    let (c, d) = app.pair("connect_four").await;
    for column in 0..3 {
        app.play_ok(&a, json!({"column": column})).await;
        app.play_ok(&c, json!({"column": column})).await;
        app.play_ok(&b, json!({"column": column})).await;
        app.play_ok(&d, json!({"column": column})).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    receiver.answer(500);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(receiver.delivered().is_empty());
    receiver.answer(200);
    let delivered = receiver.wait_delivered(12, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.delivered().len(), 12, "each event delivered once");
    for game in [&a.id, &c.id] {
        let plies: Vec<Value> = delivered
            .iter()
            .map(Got::json)
            .filter(|b| b["data"]["game"]["id"] == game.as_str())
            .map(|b| b["data"]["move"]["ply"].clone())
            .collect();
        assert_eq!(plies, [1, 2, 3, 4, 5, 6].map(|p| json!(p)), "game {game}");
    }
    // Retries carry the first attempt's id: every failed attempt's id is
    // one of the delivered ones.
    let ids: std::collections::HashSet<String> = delivered
        .iter()
        .map(|g| g.header("webhook-id").to_owned())
        .collect();
    let failed = receiver.got().into_iter().filter(|g| g.answered != 200);
    let mut retried = 0;
    for got in failed {
        assert!(ids.contains(got.header("webhook-id")));
        retried += 1;
    }
    assert!(retried >= 2, "the receiver was tried while it failed");
}

/// Many games at once keep the writer's batches large (busy: the deliverer
/// then claims once a round and holds its outcomes until the round): every
/// event still arrives once, in order per game.
#[tokio::test]
async fn under_many_concurrent_moves_every_event_arrives_once_in_order_per_game() {
    const GAMES: usize = 48;
    const PLIES: usize = 15;
    let app = with_webhooks("100ms,100ms,100ms").await;
    let receiver = Receiver::start().await;
    receiver.answer(200);
    register(&app, &receiver.url, &["move.played"]).await;
    let mut games = Vec::new();
    for _ in 0..GAMES {
        games.push(app.create(json!({"kind": "gomoku", "hotseat": true})).await);
    }
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for seat in games.clone() {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            // One stone a row, the columns scattered: no five.
            for ply in 0..PLIES {
                app.play_ok(&seat, json!({"row": ply, "col": (ply * 7) % 15}))
                    .await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let delivered = receiver
        .wait_delivered(GAMES * PLIES, Duration::from_secs(30))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.delivered().len(), GAMES * PLIES, "each event once");
    let ids: std::collections::HashSet<&str> =
        delivered.iter().map(|g| g.header("webhook-id")).collect();
    assert_eq!(ids.len(), GAMES * PLIES, "no event twice");
    for seat in &games {
        let plies: Vec<Value> = delivered
            .iter()
            .map(Got::json)
            .filter(|b| b["data"]["game"]["id"] == seat.id.as_str())
            .map(|b| b["data"]["move"]["ply"].clone())
            .collect();
        let expected: Vec<Value> = (1..=PLIES).map(|p| json!(p)).collect();
        assert_eq!(plies, expected, "game {}", seat.id);
    }
    // Every outcome was recorded: none is left pending (the depth is read
    // every second).
    let delivered = format!(
        "tabula_webhook_deliveries_total{{result=\"delivered\"}} {}",
        GAMES * PLIES
    );
    assert_metrics(&app, &[&delivered, "tabula_webhook_outbox_depth 0"]).await;
}

#[tokio::test]
async fn after_the_last_retry_a_delivery_is_failed_and_the_games_later_events_still_go_out() {
    let app = with_webhooks("50ms,50ms").await;
    let receiver = Receiver::start().await;
    receiver.answer(500);
    let grant = register(&app, &receiver.url, &["game.created", "game.joined"]).await;
    let x = app.create_kind("connect_four").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while receiver.got().len() < 3 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        receiver.got().len(),
        3,
        "the first try and two retries, no more"
    );
    let log: Value = admin_get(
        &app,
        &format!(
            "/v1/webhooks/{}/deliveries",
            grant["webhook"]["id"].as_str().unwrap()
        ),
    )
    .await;
    let attempts: Vec<(Value, Value, bool)> = log["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["attempt"].clone(),
                a["status"].clone(),
                a["next_attempt_at"].is_null(),
            )
        })
        .collect();
    assert_eq!(
        attempts,
        [
            (json!(3), json!(500), true),
            (json!(2), json!(500), false),
            (json!(1), json!(500), false),
        ]
    );
    assert_eq!(log["items"][0]["error"], "the endpoint answered 500");
    receiver.answer(204);
    app.join(&x.id).await;
    let delivered = receiver.wait_delivered(1, Duration::from_secs(10)).await;
    assert_eq!(types(&delivered), ["game.joined"]);
    assert_metrics(
        &app,
        &[
            "tabula_webhook_deliveries_total{result=\"failed\"} 1",
            "tabula_webhook_deliveries_total{result=\"retry\"} 2",
            "tabula_webhook_deliveries_total{result=\"delivered\"} 1",
        ],
    )
    .await;
}

#[tokio::test]
async fn a_slow_endpoint_does_not_delay_another() {
    let app = with_webhooks("1s").await;
    let slow = Receiver::start().await;
    slow.delay(Duration::from_secs(4));
    let quick = Receiver::start().await;
    register(&app, &slow.url, &["game.created"]).await;
    register(&app, &quick.url, &["game.created"]).await;
    for _ in 0..20 {
        app.create_kind("tic_tac_toe").await;
    }
    let started = tokio::time::Instant::now();
    let delivered = quick.wait_delivered(20, Duration::from_secs(3)).await;
    assert_eq!(delivered.len(), 20, "all 20 within {:?}", started.elapsed());
    assert!(
        slow.delivered().is_empty(),
        "the slow one has not answered yet"
    );
}

#[tokio::test]
async fn deleting_an_endpoint_stops_its_deliveries() {
    // Retried every 100 ms for 4 s: retries that outlived the deletion
    // would show.
    let app = with_webhooks(&["100ms"; 40].join(",")).await;
    let receiver = Receiver::start().await;
    receiver.answer(0);
    let grant = register(&app, &receiver.url, &["game.created"]).await;
    app.create_kind("tic_tac_toe").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let id = grant["webhook"]["id"].as_str().unwrap();
    let delete = || {
        app.request(Method::DELETE, &format!("/v1/webhooks/{id}"))
            .bearer_auth(KEY)
            .send()
    };
    let mut res = delete().await.unwrap();
    // 503 `storage_unavailable` means "nothing changed, retry later": a
    // loaded CI host answered it once here (the cause did not show again in
    // 24 overloaded runs), so this client does what the contract says.
    if res.status() == 503 {
        eprintln!("DELETE answered 503: {}", res.text().await.unwrap());
        tokio::time::sleep(Duration::from_millis(500)).await;
        res = delete().await.unwrap();
    }
    assert_eq!(res.status(), 204);
    // An attempt claimed before the deletion committed may still arrive
    // after the 204 (under load in CI, one did); the deletion took the
    // pending deliveries, so the count then holds.
    let mut tried = receiver.got().len();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let now = receiver.got().len();
        if now == tried {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the deleted endpoint was still sent to: {now} requests"
        );
        tried = now;
    }
    app.create_kind("tic_tac_toe").await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(receiver.got().len(), tried, "nothing more was sent");
}

#[tokio::test]
async fn a_round_the_clock_sweeper_ends_is_one_game_ended() {
    let clock = tabula::clock::Clock::manual(chrono::Utc::now());
    let app = {
        let clock = clock.clone();
        spawn_app_with(move |s| {
            s.admin_key = Some(KEY.into());
            s.webhook_allow_private = true;
            s.clock = clock;
        })
        .await
    };
    let receiver = Receiver::start().await;
    register(&app, &receiver.url, &["game.ended"]).await;
    let (x, o) = app
        .pair_with(json!({"kind": "connect_four", "clock": {"initial_ms": 10000}}))
        .await;
    // Past the first moves, which run against their own deadlines.
    app.play_ok(&x, json!({"column": 3})).await;
    app.play_ok(&o, json!({"column": 3})).await;
    clock.advance(Duration::from_secs(11));
    let delivered = receiver.wait_delivered(1, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.delivered().len(), 1, "ended once");
    let body = delivered[0].json();
    assert_eq!(body["data"]["game"]["id"], x.id.as_str());
    assert_eq!(body["data"]["end_reason"], "timeout");
    assert_eq!(body["data"]["result"], "O");
    // Reading the game (which sees the flag fall) records nothing more.
    app.game(&x.id).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(receiver.delivered().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_two_instances_every_event_is_delivered_and_duplicates_are_only_retries() {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    // Quick retries (duplicates across instances show), then patient ones.
    let retry = quick_then_patient(10);
    let one = with_webhooks(&retry).await;
    let two = spawn_app_on(one.db.clone(), webhooks_on(&retry)).await;
    let receiver = Receiver::start().await;
    // Unanswered at first: the first attempts fail and are retried.
    receiver.answer(0);
    register(&one, &receiver.url, &ALL).await;
    // The other instance reads the endpoints every second.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut games = Vec::new();
    for i in 0..10 {
        let (a, b) = if i % 2 == 0 {
            (&one, &two)
        } else {
            (&two, &one)
        };
        let x = a.create_kind("connect_four").await;
        let o = b.join(&x.id).await;
        for column in 0..3 {
            a.play_ok(&x, json!({"column": column})).await;
            b.play_ok(&o, json!({"column": column})).await;
        }
        games.push(x.id);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    receiver.answer(204);
    let expected = games.len() * 8;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let distinct = |got: &[Got]| {
        got.iter()
            .map(|g| g.header("webhook-id").to_owned())
            .collect::<std::collections::HashSet<_>>()
    };
    while distinct(&receiver.delivered()).len() < expected && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let delivered = receiver.delivered();
    assert_eq!(
        distinct(&delivered).len(),
        expected,
        "every event delivered"
    );
    // A duplicate is the same event again (same id and body): a retry.
    let mut bodies = std::collections::HashMap::new();
    for g in &receiver.got() {
        let first = bodies
            .entry(g.header("webhook-id").to_owned())
            .or_insert(g.body.clone());
        assert_eq!(*first, g.body, "one id, one event");
    }
    for id in &games {
        let mut seen = std::collections::HashSet::new();
        let order: Vec<Value> = delivered
            .iter()
            .filter(|g| seen.insert(g.header("webhook-id").to_owned()))
            .map(Got::json)
            .filter(|b| b["data"]["game"]["id"] == id.as_str())
            .map(|b| b["data"]["game"]["version"].clone())
            .collect();
        assert_eq!(
            order,
            (1..=8).map(|v| json!(v)).collect::<Vec<_>>(),
            "game {id}"
        );
    }
}
