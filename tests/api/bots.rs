//! The bots' capacity: client searches are bounded and one per game, and a
//! bot opponent's reply never waits behind clients' hints.

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app_with};

/// An app with one search slot and a bot budget long enough that hard
/// searches are still running while the test sends its other requests.
async fn one_slot() -> TestApp {
    spawn_app_with(|s| {
        s.bot_threads = 1;
        s.bot_budget_ms = 400;
    })
    .await
}

fn hard_hint(app: &TestApp, id: &str, token: &str) -> reqwest::RequestBuilder {
    app.request(Method::GET, &format!("/v1/games/{id}/hint?level=hard"))
        .bearer_auth(token)
}

#[tokio::test]
async fn a_second_search_for_the_same_game_is_refused_as_busy() {
    let app = one_slot().await;
    let seat = app.create(json!({"kind": "gomoku", "hotseat": true})).await;
    let answers = join_all((0..6).map(|_| hard_hint(&app, &seat.id, &seat.token).send())).await;
    let (mut ok, mut busy) = (0, 0);
    for res in answers {
        let res = res.unwrap();
        if res.status() == 200 {
            ok += 1;
        } else {
            assert_eq!(res.headers()["retry-after"], "1");
            assert_problem(res, 503, "busy").await;
            busy += 1;
        }
    }
    assert!(ok >= 1, "no hint was answered");
    assert!(busy >= 1, "six hard hints on one game all searched");
}

#[tokio::test]
async fn client_searches_past_the_queue_are_refused_and_cheap_levels_still_answer() {
    let app = one_slot().await;
    let mut games = Vec::new();
    for _ in 0..20 {
        games.push(app.create(json!({"kind": "gomoku", "hotseat": true})).await);
    }
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let hints = join_all(games.iter().map(|g| async {
        let res = hard_hint(&app, &g.id, &g.token).send().await;
        let done = finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        (done, res)
    }));
    // While the hard hints queue, a random hint on one of the games and a
    // move against a random bot are answered.
    let cheap = async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let bot_game = app
            .create(json!({"kind": "connect_four", "opponent": {"type": "bot", "level": "random"}}))
            .await;
        let played = app.play(&bot_game, json!({"column": 3})).await;
        let status = played.status();
        let body: Value = played.json().await.unwrap();
        let hints_done = finished.load(std::sync::atomic::Ordering::SeqCst);
        (status, body, hints_done)
    };
    let (answers, (status, body, hints_done)) = tokio::join!(hints, cheap);
    assert_eq!(status, 201, "{body}");
    let refused = 20 - tabula::service::QUEUE_PER_SLOT;
    // The bot's reply came while hard hints were still searching or waiting.
    assert!(
        hints_done < 20,
        "the random bot answered only after all hard hints"
    );
    assert!(
        hints_done >= refused,
        "{hints_done} hints done, {refused} refused at once"
    );
    assert_eq!(body["replies"].as_array().map(Vec::len), Some(1), "{body}");
    let mut busy = 0;
    for (_, res) in answers {
        let res = res.unwrap();
        if res.status() != 200 {
            assert_problem(res, 503, "busy").await;
            busy += 1;
        }
    }
    // One slot: eight may run or wait, the rest are refused at once. Fewer
    // are refused when a hint finished before the last requests arrived (a
    // loaded machine): their places were free again. The exact bound, which
    // no timing can blur, is the service's unit test
    // `client_searches_take_one_place_per_game_up_to_the_queue_limit`.
    assert!((1..=refused).contains(&busy), "{busy} refused");
}
