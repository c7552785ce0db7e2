//! The bots' capacity: client searches are bounded and one per game, and a
//! bot opponent's reply never waits behind clients' hints.

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Seat, TestApp, assert_problem, spawn_app_on, spawn_app_with};

/// An app with one search slot and a bot budget long enough that hard
/// searches are still running while the test sends its other requests.
async fn one_slot() -> TestApp {
    spawn_app_with(|s| {
        s.bot_threads = 1;
        s.bot_budget_ms = 400;
    })
    .await
}

/// A hard hint. The tests' Gomoku games start with a stone (`"moves":
/// "h8"`): on the empty board the only candidate is the centre and a hard
/// search ends at once, so nothing would ever queue.
fn hard_hint(app: &TestApp, id: &str, token: &str) -> reqwest::RequestBuilder {
    app.request(Method::GET, &format!("/v1/games/{id}/hint?level=hard"))
        .bearer_auth(token)
}

#[tokio::test]
async fn a_second_search_for_the_same_game_is_refused_as_busy() {
    let app = one_slot().await;
    let seat = app
        .create(json!({"kind": "gomoku", "hotseat": true, "moves": "h8"}))
        .await;
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

/// One search slot, behind a proxy on 127.0.0.1 whose `X-Forwarded-For`
/// names the client: so a test can speak as many clients.
async fn one_slot_behind_a_proxy() -> TestApp {
    spawn_app_with(|s| {
        s.bot_threads = 1;
        s.bot_budget_ms = 400;
        s.trusted_proxies = "127.0.0.1".parse().unwrap();
    })
    .await
}

#[tokio::test]
async fn client_searches_past_the_queue_are_refused_and_cheap_levels_still_answer() {
    let app = one_slot_behind_a_proxy().await;
    let mut games = Vec::new();
    for _ in 0..20 {
        games.push(
            app.create(json!({"kind": "gomoku", "hotseat": true, "moves": "h8"}))
                .await,
        );
    }
    let finished = std::sync::atomic::AtomicUsize::new(0);
    // Each hint from a client of its own: the queue's bound, not a client's
    // share, is what refuses them.
    let (app, finished) = (&app, &finished);
    let hints = join_all(games.iter().enumerate().map(|(n, g)| async move {
        let res = hard_hint(app, &g.id, &g.token)
            .header("x-forwarded-for", format!("10.0.0.{n}"))
            .send()
            .await;
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

/// `n` Gomoku games against hard bots, and the answers to a move in each,
/// all sent at once.
async fn moves_against_hard_bots(app: &TestApp, n: usize) -> (Vec<Seat>, Vec<reqwest::Response>) {
    let mut games = Vec::new();
    for _ in 0..n {
        games.push(
            app.create(json!({"kind": "gomoku", "opponent": {"type": "bot", "level": "hard"}}))
                .await,
        );
    }
    let answers = join_all(
        games
            .iter()
            .map(|g| app.play(g, json!({"row": 7, "col": 7}))),
    )
    .await;
    (games, answers)
}

#[tokio::test]
async fn a_persons_move_is_never_refused_for_bot_load_and_every_reply_comes() {
    let app = spawn_app_with(|s| {
        s.bot_threads = 1;
        s.bot_budget_ms = 300;
    })
    .await;
    let (games, answers) = moves_against_hard_bots(&app, 24).await;
    let (mut with_reply, mut later) = (0, 0);
    for res in answers {
        // Played, whatever the bots' load.
        assert_eq!(res.status(), 201);
        let body: Value = res.json().await.unwrap();
        match body["replies"].as_array().map(Vec::len) {
            Some(1) => with_reply += 1,
            Some(0) => later += 1,
            other => panic!("replies {other:?}: {body}"),
        }
    }
    // One slot: eight replies may run or wait with their moves' answers;
    // the others come later, each made once a slot is free.
    assert!(
        with_reply >= tabula::service::QUEUE_PER_SLOT,
        "{with_reply}"
    );
    assert!(
        later >= 1,
        "24 moves against hard bots on one slot all answered in time"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(1);
    for game in &games {
        loop {
            let g = app.game(&game.id).await;
            if g["ply"] == 2 {
                assert_eq!(g["turn"], "X", "{g}");
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no reply: {g}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn a_bot_reply_a_stopped_server_did_not_make_is_made_after_the_restart() {
    let slow = |s: &mut tabula::config::Settings| {
        s.bot_threads = 1;
        s.bot_budget_ms = 400;
    };
    let app = spawn_app_with(slow).await;
    let (games, answers) = moves_against_hard_bots(&app, 16).await;
    assert!(answers.iter().all(|r| r.status() == 201));
    let db = app.stop().await;
    let app = spawn_app_on(db, slow).await;
    let mut waiting = 0;
    for game in &games {
        waiting += usize::from(app.game(&game.id).await["ply"] == 1);
    }
    assert!(waiting >= 1, "every reply was made before the stop");
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(1);
    for game in &games {
        while app.game(&game.id).await["ply"] != 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "{} never replied",
                game.id
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn a_bot_does_not_lose_on_time_while_its_reply_waits_for_a_busy_slot() {
    let app = spawn_app_with(|s| {
        s.bot_threads = 1;
        s.bot_budget_ms = 2000;
    })
    .await;
    // A long search (Monte Carlo: it takes its whole budget) takes the one
    // reply slot…
    let busy = app
        .create(
            json!({"kind": "ultimate_tic_tac_toe", "opponent": {"type": "bot", "level": "hard"}}),
        )
        .await;
    // …while a Connect Four bot on a one-second clock per move must answer.
    let timed = app
        .create(json!({
            "kind": "connect_four",
            "opponent": {"type": "bot", "level": "hard"},
            "clock": {"per_move_ms": 1000}
        }))
        .await;
    let long = app.play(&busy, json!({"board": 4, "cell": 4}));
    let short = async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        app.play(&timed, json!({"column": 3})).await
    };
    let (long, short) = tokio::join!(long, short);
    assert_eq!(long.status(), 201);
    let body: Value = short.json().await.unwrap();
    assert_eq!(
        body["replies"].as_array().map(Vec::len),
        Some(1),
        "the bot's reply was lost: {body}"
    );
    let g = app.game(&timed.id).await;
    assert_eq!(g["status"], "in_progress", "{g}");
    assert_eq!(g["ply"], 2);
    assert_eq!(g["clock"]["running"], "X", "the person's clock runs again");
}

#[tokio::test]
async fn one_clients_flood_of_searches_leaves_the_others_served() {
    let app = one_slot_behind_a_proxy().await;
    let mut flood = Vec::new();
    for _ in 0..20 {
        flood.push(
            app.create(json!({"kind": "gomoku", "hotseat": true, "moves": "h8"}))
                .await,
        );
    }
    let mut others = Vec::new();
    for _ in 0..3 {
        others.push(
            app.create(json!({"kind": "gomoku", "hotseat": true, "moves": "h8"}))
                .await,
        );
    }
    let analyses = join_all(flood.iter().map(|g| {
        app.request(
            Method::GET,
            &format!("/v1/games/{}/analysis?level=hard", g.id),
        )
        .bearer_auth(&g.token)
        .header("x-forwarded-for", "203.0.113.7")
        .send()
    }));
    let hints = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        join_all(others.iter().enumerate().map(|(n, g)| {
            hard_hint(&app, &g.id, &g.token)
                .header("x-forwarded-for", format!("198.51.100.{n}"))
                .send()
        }))
        .await
    };
    let (analyses, hints) = tokio::join!(analyses, hints);
    let share = tabula::service::client_share(1);
    let served = analyses
        .into_iter()
        .filter(|r| r.as_ref().unwrap().status() == 200)
        .count();
    // The flooding client holds at most its share at a time (more were
    // served only if some finished while its requests arrived).
    assert!(served >= share && served < 20, "{served} analyses served");
    for res in hints {
        let res = res.unwrap();
        assert_eq!(res.status(), 200, "another client's hint was refused");
    }
}

#[tokio::test]
async fn a_finished_rounds_position_analysed_again_reads_the_same() {
    // A budget so short that Connect Four's solver proves some moves one
    // time and others another (its deadline, not its work, ends it).
    let app = spawn_app_with(|s| s.bot_budget_ms = 4).await;
    let seat = app
        .create(json!({"kind": "connect_four", "hotseat": true, "moves": "4453432"}))
        .await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", seat.id),
            Some(&seat.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    for ply in [3, 5] {
        let path = format!("/v1/games/{}/analysis?level=perfect&ply={ply}", seat.id);
        let first = app.get_json(&path).await;
        assert!(!first["moves"].as_array().unwrap().is_empty(), "{first}");
        for _ in 0..5 {
            assert_eq!(app.get_json(&path).await, first, "ply {ply}");
        }
    }
}

/// A search whose client went away stops: the thread it held serves the
/// next client at once (an abandoned analysis kept it to its end, up to
/// the minute's cap, while another client's trivial one waited).
#[tokio::test]
async fn a_search_nobody_waits_for_gives_its_thread_to_the_next() {
    let app = spawn_app_with(|s| {
        s.bot_threads = 1;
        s.max_analysis_work = 2_000_000_000;
        s.trusted_proxies = "127.0.0.1".parse().unwrap();
    })
    .await;
    let client = reqwest::Client::new();
    // Far more work than a minute searches: only its cap or its client
    // going away would end it.
    let gone = client
        .get(format!(
            "{}/v1/rules/ultimate_tic_tac_toe/analysis?level=hard&work=2000000000",
            app.base
        ))
        .header("x-forwarded-for", "203.0.113.7")
        .timeout(std::time::Duration::from_millis(800))
        .send()
        .await;
    assert!(gone.is_err(), "the abandoned analysis answered");
    let next = client
        .get(format!(
            "{}/v1/rules/tic_tac_toe/analysis?level=hard&moves=5",
            app.base
        ))
        // Another client: the first one's place in the queue is given back
        // only once the server has seen it go, which a loaded host may not
        // have yet.
        .header("x-forwarded-for", "198.51.100.1")
        .timeout(std::time::Duration::from_secs(30))
        .send()
        .await
        .expect("the next client's analysis is served before the first one's cap");
    assert_eq!(next.status(), 200);
}
