//! Webhook bots: bot players the service asks for their moves at their
//! `move_url`, signed, under their clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::challenges::{challenge, new_bot};
use crate::helpers::{TestApp, assert_problem};
use crate::players::new_player;
use crate::receiver::{Got, Receiver};
use crate::webhooks::{expected_signature, with_webhooks};

async fn patch_me(app: &TestApp, key: &str, body: Value) -> reqwest::Response {
    app.request(Method::PATCH, "/v1/players/me")
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// A bot with `receiver` as its move URL: its id, key and signing secret.
async fn hooked_bot(app: &TestApp, receiver: &Receiver) -> (String, String, String) {
    let (bot, key) = new_bot(app, "Hooked").await;
    let res = patch_me(app, &key, json!({"move_url": receiver.url})).await;
    assert_eq!(res.status(), 200);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["move_url"], receiver.url.as_str());
    let secret = v["move_secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{secret}");
    (bot, key, secret)
}

async fn play_as(app: &TestApp, key: &str, game: &str, mv: Value) {
    let res = app
        .post(&format!("/v1/games/{game}/moves"), Some(key), &mv)
        .await;
    let status = res.status();
    assert_eq!(status, 201, "{mv}: {}", res.text().await.unwrap());
}

/// Waits (up to `within`) until the game's `ply` is `ply` or it is over.
async fn wait_ply(app: &TestApp, game: &str, ply: u64, within: Duration) -> Value {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let g = app.game(game).await;
        if g["ply"] == ply || g["status"] != "in_progress" {
            return g;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "ply {ply} not reached: {g}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn first_legal(body: &Value) -> (u16, String) {
    let mv = &body["position"]["legal_moves"][0];
    (200, json!({"move": mv}).to_string())
}

#[tokio::test]
async fn a_webhook_bot_is_asked_for_each_move_signed_and_takes_timed_challenges_by_itself() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    receiver.respond(first_legal);
    let (ann, ann_key) = new_player(&app, "Ann").await;

    // A person has no move URL; a URL must be http(s); nothing is stored.
    let res = patch_me(&app, &ann_key, json!({"move_url": receiver.url})).await;
    assert_problem(res, 422, "invalid_option").await;
    let (bot, bot_key, secret) = hooked_bot(&app, &receiver).await;
    let res = patch_me(&app, &bot_key, json!({"move_url": "ftp://bot.example/"})).await;
    assert_problem(res, 422, "webhook_url_refused").await;
    let me = app.get_json_as("/v1/players/me", &bot_key).await;
    assert_eq!(me["move_url"], receiver.url.as_str(), "unchanged: {me}");
    assert!(me.get("move_secret").is_none(), "the secret is shown once");
    let public = app.get_json(&format!("/v1/players/{bot}")).await;
    assert!(public.get("move_url").is_none(), "{public}");

    // Untimed: declined at once; timed: accepted at once.
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "seat": "X"}),
    )
    .await;
    assert_eq!(
        (&c["status"], &c["reason"]),
        (&json!("declined"), &json!("time_control"))
    );
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "seat": "X", "clock": {"initial_ms": 60000, "increment_ms": 0}}),
    )
    .await;
    assert_eq!(c["status"], "accepted", "{c}");
    let game = c["game"].as_str().unwrap().to_owned();

    for (turn, column) in [3, 3, 4].into_iter().enumerate() {
        play_as(&app, &ann_key, &game, json!({"column": column})).await;
        let g = wait_ply(&app, &game, 2 * turn as u64 + 2, Duration::from_secs(10)).await;
        assert_eq!(g["turn"], "X", "{g}");
    }
    let g = app.game(&game).await;
    // The bot played the first legal move each time: column 0.
    assert_eq!(g["board"][5], "O..XX..", "{g}");
    assert_eq!(g["board"][4], "O..X...", "{g}");
    assert_eq!(g["board"][3], "O......", "{g}");

    let got = receiver.got();
    assert_eq!(got.len(), 3, "one request a turn");
    let mut ids = std::collections::HashSet::new();
    for (i, request) in got.iter().enumerate() {
        assert_eq!(
            request.header("webhook-signature"),
            expected_signature(&secret, request)
        );
        assert!(ids.insert(request.header("webhook-id").to_owned()));
        let body = request.json();
        assert_eq!(body["type"], "move.requested");
        assert_eq!(body["seat"], "O");
        assert_eq!(body["game"]["id"], game.as_str());
        assert_eq!(body["game"]["turn"], "O");
        assert_eq!(body["position"]["ply"], 2 * i + 1);
        assert_eq!(
            body["position"]["moves"].as_str().unwrap().len(),
            2 * i + 1,
            "{body}"
        );
        assert!(
            chrono::DateTime::parse_from_rfc3339(body["deadline"].as_str().unwrap()).is_ok(),
            "{body}"
        );
    }
    // Each seat is bound to its player.
    assert_eq!(g["seats"]["O"]["player"], bot.as_str(), "{g}");
    assert_eq!(g["seats"]["X"]["player"], ann.as_str(), "{g}");

    // Removed: the next challenge waits for an answer like any bot's.
    let res = patch_me(&app, &bot_key, json!({"move_url": null})).await;
    assert_eq!(res.status(), 200);
    let v: Value = res.json().await.unwrap();
    assert!(v.get("move_url").is_none(), "{v}");
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "clock": {"initial_ms": 60000, "increment_ms": 0}}),
    )
    .await;
    assert_eq!(c["status"], "pending");
}

#[tokio::test]
async fn a_failed_or_illegal_answer_is_asked_again_and_a_late_bot_loses_on_time() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    // A failure, an illegal move, then a move in notation (column 2).
    receiver.respond(move |_| match count.fetch_add(1, Ordering::SeqCst) {
        0 => (500, String::new()),
        1 => (200, json!({"move": {"column": 9}}).to_string()),
        _ => (200, json!({"move": "2"}).to_string()),
    });
    let (_, ann_key) = new_player(&app, "Ann").await;
    let (bot, _, _) = hooked_bot(&app, &receiver).await;
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "seat": "X", "clock": {"per_move_ms": 30000}}),
    )
    .await;
    let game = c["game"].as_str().unwrap().to_owned();
    play_as(&app, &ann_key, &game, json!({"column": 3})).await;
    let g = wait_ply(&app, &game, 2, Duration::from_secs(15)).await;
    assert_eq!(g["board"][5], ".O.X...", "{g}");
    let got: Vec<Got> = receiver.got();
    assert_eq!(got.len(), 3, "asked three times");
    assert!(
        got.iter()
            .all(|g| g.header("webhook-id") == got[0].header("webhook-id")),
        "one turn, one id"
    );
    let gap = |a: &Got, b: &Got| b.at.duration_since(a.at).unwrap();
    assert!(gap(&got[0], &got[1]) >= Duration::from_millis(900));
    assert!(gap(&got[1], &got[2]) >= Duration::from_millis(1900));

    // A bot that answers after its clock ran out loses on time (once it
    // made its first move: a round whose first moves are missing is
    // aborted).
    receiver.respond(first_legal);
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "seat": "X", "clock": {"per_move_ms": 2000}}),
    )
    .await;
    let game = c["game"].as_str().unwrap().to_owned();
    play_as(&app, &ann_key, &game, json!({"column": 3})).await;
    wait_ply(&app, &game, 2, Duration::from_secs(15)).await;
    receiver.delay(Duration::from_secs(6));
    play_as(&app, &ann_key, &game, json!({"column": 3})).await;
    let g = wait_ply(&app, &game, 4, Duration::from_secs(15)).await;
    assert_eq!(g["status"], "won", "{g}");
    assert_eq!(g["winner"], "X");
    assert_eq!(g["end_reason"], "timeout");
    assert_eq!(g["ply"], 3, "the late move was not played");
}

#[tokio::test]
async fn a_slow_webhook_bot_delays_no_other_games_moves() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    receiver.respond(first_legal);
    receiver.delay(Duration::from_secs(5));
    let (_, ann_key) = new_player(&app, "Ann").await;
    let (bot, _, _) = hooked_bot(&app, &receiver).await;
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "seat": "X", "clock": {"initial_ms": 60000, "increment_ms": 0}}),
    )
    .await;
    let game = c["game"].as_str().unwrap().to_owned();
    play_as(&app, &ann_key, &game, json!({"column": 3})).await;
    let other = app
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    for column in [0, 1, 0, 1, 0, 1] {
        app.play_ok(&other, json!({"column": column})).await;
    }
    // Every move of the other game was answered while the bot's answer is
    // still on its way.
    assert!(receiver.got().is_empty(), "the bot has not answered yet");
    assert_eq!(app.game(&game).await["ply"], 1);
    let g = wait_ply(&app, &game, 2, Duration::from_secs(15)).await;
    assert_eq!(g["ply"], 2, "{g}");
}

#[tokio::test]
async fn two_webhook_bots_play_a_game_to_its_end_with_no_client_moving() {
    let app = with_webhooks("1s").await;
    let receiver = Receiver::start().await;
    // Each bot plays the first legal move: X fills column 0, O column 1…
    receiver.respond(first_legal);
    let (a, a_key, _) = hooked_bot(&app, &receiver).await;
    let (b, _, _) = hooked_bot(&app, &receiver).await;
    let c = challenge(
        &app,
        &a_key,
        json!({"to": b, "kind": "connect_four", "seat": "X", "clock": {"initial_ms": 60000, "increment_ms": 0}}),
    )
    .await;
    assert_eq!(c["status"], "accepted", "{c}");
    let game = c["game"].as_str().unwrap().to_owned();
    let g = wait_ply(&app, &game, 1000, Duration::from_secs(20)).await;
    // Nobody but the two bots moved, and the board decided the game.
    assert_ne!(g["status"], "in_progress", "{g}");
    assert!(
        g["end_reason"] == "line" || g["end_reason"] == "full_board",
        "{g}"
    );
    assert_eq!(
        receiver.got().len(),
        g["ply"].as_u64().unwrap() as usize,
        "one request a move"
    );
    assert_eq!(g["seats"]["X"]["player"], a.as_str());
}
