//! Two instances on one PostgreSQL database behave as one service. These
//! tests run when `TABULA_TEST_POSTGRES` names a server (CI starts one).

use std::time::Duration;

use futures_util::future::join_all;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, fresh_db, postgres_server, spawn_app_on};

async fn two_instances() -> Option<(TestApp, TestApp)> {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return None;
    }
    let db = fresh_db().await;
    let a = spawn_app_on(db.clone(), |_| {}).await;
    let b = spawn_app_on(db, |_| {}).await;
    Some((a, b))
}

/// Plays one hotseat game to its end, alternating instances move by move.
async fn play_across(apps: [&TestApp; 2], seed: u64) -> (String, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let seat = apps[(seed % 2) as usize]
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    let mut game = apps[0].game(&seat.id).await;
    let mut n = 0;
    while game["status"] == "in_progress" {
        let legal = game["legal_moves"].as_array().unwrap();
        let mv = legal[rng.random_range(0..legal.len())].clone();
        let v = apps[n % 2].play_ok(&seat, mv).await;
        game = v["game"].clone();
        n += 1;
        assert_eq!(game["ply"], n);
    }
    (seat.id, n)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_games_through_two_instances_keep_consistent_histories() {
    let Some((a, b)) = two_instances().await else {
        return;
    };
    let results = join_all((0..12).map(|seed| play_across([&a, &b], seed))).await;
    for (id, plies) in results {
        for app in [&a, &b] {
            let history = app.get_json(&format!("/v1/games/{id}/moves")).await;
            let items = history["items"].as_array().unwrap();
            assert_eq!(items.len(), plies, "no move lost or doubled");
            for (i, m) in items.iter().enumerate() {
                assert_eq!(m["ply"], i + 1);
            }
            let game = app.game(&id).await;
            let replayed = app
                .get_json(&format!("/v1/games/{id}/positions/{plies}"))
                .await;
            assert_eq!(game["board"], replayed["board"]);
            assert_eq!(game["status"], replayed["status"]);
            assert_eq!(game["version"], plies + 1);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_made_through_one_instance_is_seen_at_once_through_the_other() {
    let Some((a, b)) = two_instances().await else {
        return;
    };
    let (x, o) = a.pair("tic_tac_toe").await;
    b.play_ok(&x, json!({"row": 1, "col": 1})).await;
    let seen = a.game(&x.id).await;
    assert_eq!(seen["board"][1], ".X.");
    assert_eq!(seen["turn"], "O");
    // The other seat may not play twice, whichever instance it asks.
    a.play_ok(&o, json!({"row": 0, "col": 0})).await;
    let res = b.play(&o, json!({"row": 2, "col": 2})).await;
    assert_eq!(res.status(), 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_concurrent_submissions_through_two_instances_exactly_one_is_accepted() {
    let Some((a, b)) = two_instances().await else {
        return;
    };
    for round in 0..3 {
        let (x, _) = a.pair("connect_four").await;
        let attempts = (0..16).map(|i| {
            let app = if i % 2 == 0 { &a } else { &b };
            app.play(&x, json!({"column": (i + round) % 7}))
        });
        let statuses: Vec<u16> = join_all(attempts)
            .await
            .iter()
            .map(|r| r.status().as_u16())
            .collect();
        assert_eq!(
            statuses.iter().filter(|&&s| s == 201).count(),
            1,
            "{statuses:?}"
        );
        assert!(
            statuses.iter().all(|&s| s == 201 || s == 409),
            "{statuses:?}"
        );
        let history = b.get_json(&format!("/v1/games/{}/moves", x.id)).await;
        assert_eq!(history["items"].as_array().unwrap().len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_is_honoured_across_instances() {
    let Some((a, b)) = two_instances().await else {
        return;
    };
    let (x, _) = a.pair("connect_four").await;
    let mut answers = Vec::new();
    for app in [&a, &b, &a] {
        let res = app
            .request(Method::POST, &format!("/v1/games/{}/moves", x.id))
            .bearer_auth(&x.token)
            .header("Idempotency-Key", "once")
            .json(&json!({"column": 2}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        answers.push(res.json::<Value>().await.unwrap());
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
    let history = b.get_json(&format!("/v1/games/{}/moves", x.id)).await;
    assert_eq!(history["items"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_on_one_instance_sees_every_move_made_on_the_other() {
    let Some((a, b)) = two_instances().await else {
        return;
    };
    let seat = b
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    let mut res = a
        .request(Method::GET, &format!("/v1/games/{}/events", seat.id))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut moves = Vec::new();
    for c in [3, 3, 4, 2, 5] {
        b.play_ok(&seat, json!({"column": c})).await;
        moves.push(c);
    }
    let mut text = String::new();
    let mut seen = Vec::new();
    while seen.len() < moves.len() {
        let chunk = tokio::time::timeout(Duration::from_secs(10), res.chunk())
            .await
            .expect("events from the other instance within 10 s")
            .unwrap()
            .expect("the stream stays open");
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            // The stream starts with the state (the game, not a change).
            if block.starts_with("event: state") {
                continue;
            }
            if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) {
                let event: Value = serde_json::from_str(data).unwrap();
                assert_eq!(event["type"], "move");
                seen.push((
                    event["version"].as_i64().unwrap(),
                    event["move"]["move"]["column"].as_i64().unwrap(),
                ));
            }
        }
    }
    let expected: Vec<(i64, i64)> = moves
        .iter()
        .enumerate()
        .map(|(i, &c)| (i as i64 + 2, c))
        .collect();
    assert_eq!(seen, expected, "every move, once, in order");
}

/// Ends every connection of the test's database, as a PostgreSQL restart
/// does (`terminating connection due to administrator command`).
async fn terminate_connections(db_url: &str) {
    use sqlx::Connection;
    let name = db_url.rsplit('/').next().unwrap().to_owned();
    let server = postgres_server().unwrap();
    let mut admin = sqlx::PgConnection::connect(&server).await.unwrap();
    let ended: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(&name)
    .fetch_all(&mut admin)
    .await
    .unwrap();
    assert!(!ended.is_empty(), "no connection of {name} to end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_succeed_first_time_after_the_servers_connections_are_ended() {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run it");
        return;
    }
    let db = fresh_db().await;
    let app = spawn_app_on(db.clone(), |_| {}).await;
    let seat = app
        .create(json!({"kind": "connect_four", "hotseat": true}))
        .await;
    app.play_ok(&seat, json!({"column": 3})).await;
    // At once (the writer's held connection is the one that died: the batch
    // begins again on a new one) and after a pause (the idle connection is
    // checked first), a move succeeds the first time; a creation (its own
    // statement, never sent twice) after any pause a restart takes.
    for (round, pause) in [(0, 0), (1, 1500), (2, 0), (3, 300)] {
        tokio::time::sleep(Duration::from_millis(pause)).await;
        terminate_connections(&db.url).await;
        let res = app
            .post(
                &format!("/v1/games/{}/moves", seat.id),
                Some(&seat.token),
                &json!({"column": round}),
            )
            .await;
        let status = res.status();
        assert_eq!(
            status,
            201,
            "move after ending connections #{round}: {}",
            res.text().await.unwrap()
        );
        terminate_connections(&db.url).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let res = app
            .post("/v1/games", None, &json!({"kind": "tic_tac_toe"}))
            .await;
        assert_eq!(
            res.status(),
            201,
            "create after ending connections #{round}"
        );
        terminate_connections(&db.url).await;
        assert_eq!(
            app.get(&format!("/v1/games/{}", seat.id)).await.status(),
            200
        );
    }
    assert_eq!(app.game(&seat.id).await["ply"], 5);
}
