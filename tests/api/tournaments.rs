//! Tournaments through the API: a swiss paired round by round as the Dutch
//! system pairs its own TRF export, a round robin on the Berger table, an
//! arena's points with streaks, forfeits from the first-move deadline,
//! entry and its refusals, and a round paired once across a restart.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tabula_pairing::{berger, dutch, trf};

use crate::helpers::{TestApp, assert_problem, spawn_app_on, spawn_app_with};
use crate::players::{app_on_manual_clock, new_player};

const CLOCK: &str = r#"{"initial_ms": 600000, "increment_ms": 0}"#;

async fn create(app: &TestApp, key: &str, body: Value) -> Value {
    let mut body = body;
    if body.get("clock").is_none() {
        body["clock"] = serde_json::from_str(CLOCK).unwrap();
    }
    let res = app.post("/v1/tournaments", Some(key), &body).await;
    assert_eq!(res.status(), 201, "create tournament");
    res.json().await.unwrap()
}

async fn enter_bot(app: &TestApp, key: &str, id: &str, level: &str) -> Value {
    let res = app
        .post(
            &format!("/v1/tournaments/{id}/entrants"),
            Some(key),
            &json!({"bot": {"level": level}}),
        )
        .await;
    assert_eq!(res.status(), 201, "enter a bot");
    res.json().await.unwrap()
}

async fn enter(app: &TestApp, key: &str, id: &str) -> reqwest::Response {
    app.post(
        &format!("/v1/tournaments/{id}/entrants"),
        Some(key),
        &json!({}),
    )
    .await
}

async fn start(app: &TestApp, key: &str, id: &str) -> reqwest::Response {
    app.post(
        &format!("/v1/tournaments/{id}/start"),
        Some(key),
        &json!({}),
    )
    .await
}

/// Waits until the tournament's status is `status` (at most a minute).
async fn wait_for(app: &TestApp, id: &str, status: &str) -> Value {
    for _ in 0..600 {
        let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
        if t["status"] == status {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("tournament {id} never became {status}");
}

#[tokio::test]
async fn a_swiss_of_bots_pairs_each_round_as_the_dutch_system_pairs_its_own_trf() {
    let app = spawn_app_with(|s| s.round_pause = Duration::ZERO).await;
    let (_, key) = new_player(&app, "Organiser").await;
    let t = create(
        &app,
        &key,
        json!({"name": "Bots swiss", "kind": "tic_tac_toe", "system": "swiss", "rounds": 4}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (t["status"].as_str(), t["round"].as_u64()),
        (Some("open"), Some(0))
    );
    let mut ids = Vec::new();
    for level in [
        "random", "easy", "random", "easy", "random", "easy", "random",
    ] {
        let e = enter_bot(&app, &key, &id, level).await;
        assert_eq!(e["player"]["bot"], true);
        ids.push(e["player"]["id"].as_str().unwrap().to_owned());
    }
    let res = start(&app, &key, &id).await;
    assert_eq!(res.status(), 200);
    let done = wait_for(&app, &id, "finished").await;
    assert_eq!(done["round"], 4);
    // The whole file, then each round's pairings against the engine on the
    // file as it stood before that round (its first rounds).
    let text = app.get(&format!("/v1/tournaments/{id}/trf")).await;
    assert_eq!(text.status(), 200);
    let whole = trf::parse(&text.text().await.unwrap()).unwrap();
    assert_eq!(whole.players.len(), 7);
    let name_of = |n: u32| whole.players[n as usize - 1].name.clone();
    for round in 1..=4u32 {
        let mut before = whole.clone();
        for p in &mut before.players {
            p.rounds.truncate(round as usize - 1);
            p.points = p.scored();
        }
        let expected = dutch::pair(&before).unwrap();
        let got = app
            .get_json(&format!("/v1/tournaments/{id}/rounds/{round}"))
            .await;
        let pairings = got["pairings"].as_array().unwrap();
        let boards: Vec<(String, String)> = pairings
            .iter()
            .filter(|p| !p["black"].is_null())
            .map(|p| {
                (
                    p["white"]["name"].as_str().unwrap().to_owned(),
                    p["black"]["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = expected
            .boards
            .iter()
            .map(|&(w, b)| (name_of(w), name_of(b)))
            .collect();
        assert_eq!(boards, want, "round {round}");
        let bye: Vec<&Value> = pairings.iter().filter(|p| p["black"].is_null()).collect();
        assert_eq!(bye.len(), 1, "seven entrants: one bye");
        assert_eq!(
            bye[0]["white"]["name"],
            name_of(expected.bye.unwrap()).as_str()
        );
        assert_eq!(bye[0]["result"], "bye");
    }
    // The standings: everyone's points add up to the games' and byes'.
    let standings = app
        .get_json(&format!("/v1/tournaments/{id}/standings"))
        .await;
    let items = standings["items"].as_array().unwrap();
    assert_eq!(items.len(), 7);
    let total: f64 = items.iter().map(|l| l["points"].as_f64().unwrap()).sum();
    assert!(
        (total - 4.0 * 4.0).abs() < 1e-9,
        "3 games and a bye a round: {total}"
    );
    for pair in items.windows(2) {
        assert!(pair[0]["points"].as_f64() >= pair[1]["points"].as_f64());
    }
    // Every game is a tournament game, its seats bound to the entrants.
    let games = app
        .get_json(&format!("/v1/tournaments/{id}/games?limit=100"))
        .await;
    assert_eq!(games["items"].as_array().unwrap().len(), 12);
    let g = &games["items"][0];
    assert_eq!(g["tournament"]["id"], id.as_str());
    assert!(ids.contains(&g["seats"]["X"]["player"].as_str().unwrap().to_owned()));
}

#[tokio::test]
async fn a_round_robin_pairs_each_round_as_the_berger_table() {
    let app = spawn_app_with(|s| s.round_pause = Duration::ZERO).await;
    let (_, key) = new_player(&app, "Organiser").await;
    let t = create(
        &app,
        &key,
        json!({"name": "Bots all play all", "kind": "tic_tac_toe", "system": "round_robin"}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    let mut names = Vec::new();
    for _ in 0..5 {
        let e = enter_bot(&app, &key, &id, "random").await;
        names.push(e["player"]["name"].as_str().unwrap().to_owned());
    }
    // Bots enter unrated: the starting rank is the order of entry.
    let players: Vec<String> = {
        let s = app
            .get_json(&format!("/v1/tournaments/{id}/standings"))
            .await;
        s["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["player"]["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(start(&app, &key, &id).await.status(), 200);
    let done = wait_for(&app, &id, "finished").await;
    assert_eq!(done["rounds"], 5);
    let number = |pid: &str| players.iter().position(|p| p == pid).unwrap() as u32 + 1;
    for round in 1..=5u32 {
        let table = berger::round(5, round, false).unwrap();
        let got = app
            .get_json(&format!("/v1/tournaments/{id}/rounds/{round}"))
            .await;
        let boards: Vec<(u32, u32)> = got["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| !p["black"].is_null())
            .map(|p| {
                (
                    number(p["white"]["id"].as_str().unwrap()),
                    number(p["black"]["id"].as_str().unwrap()),
                )
            })
            .collect();
        assert_eq!(boards, table.boards, "round {round}");
    }
    // Entry closed once a round robin has started.
    let (_, late) = new_player(&app, "Late").await;
    assert_problem(enter(&app, &late, &id).await, 409, "entry_closed").await;
    let res = app.get(&format!("/v1/tournaments/{id}/rounds/6")).await;
    assert_problem(res, 404, "round_not_found").await;
}

/// Resigns the game `game` by the player with `key`.
async fn resign(app: &TestApp, key: &str, game: &str) {
    let res = app
        .post(&format!("/v1/games/{game}/resign"), Some(key), &json!({}))
        .await;
    assert_eq!(res.status(), 200, "resign");
}

/// The game in progress of `player` in tournament `id`, waiting for it.
async fn current_game(app: &TestApp, id: &str, player: &str) -> Value {
    for _ in 0..100 {
        let page = app
            .get_json(&format!("/v1/tournaments/{id}/games?player={player}"))
            .await;
        if let Some(g) = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["status"] == "in_progress")
        {
            return g.clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no game in progress for {player}");
}

#[tokio::test]
async fn an_arena_scores_two_a_win_and_four_on_a_streak() {
    let (app, _clock) = app_on_manual_clock("2026-12-04T10:00:00Z").await;
    let (ann_id, a_key) = new_player(&app, "Ann").await;
    let (bob_id, b_key) = new_player(&app, "Bob").await;
    let t = create(
        &app,
        &a_key,
        json!({"name": "Hour arena", "kind": "connect_four", "system": "arena", "duration_ms": 3_600_000}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(enter(&app, &a_key, &id).await.status(), 201);
    assert_eq!(enter(&app, &b_key, &id).await.status(), 201);
    assert_eq!(start(&app, &a_key, &id).await.status(), 200);
    let points = |s: &Value, p: &str| {
        s["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["player"]["id"] == p)
            .cloned()
            .unwrap()
    };
    // Ann wins three in a row: 2, 2, then 4 (on fire); Bob then wins one.
    for _ in 0..3 {
        let g = current_game(&app, &id, &ann_id).await;
        resign(&app, &b_key, g["id"].as_str().unwrap()).await;
    }
    let s = app
        .get_json(&format!("/v1/tournaments/{id}/standings"))
        .await;
    let ann = points(&s, &ann_id);
    assert_eq!(
        (ann["points"].as_f64(), ann["on_fire"].as_bool()),
        (Some(8.0), Some(true))
    );
    assert_eq!(ann["rank"], 1);
    let g = current_game(&app, &id, &ann_id).await;
    resign(&app, &a_key, g["id"].as_str().unwrap()).await;
    let s = app
        .get_json(&format!("/v1/tournaments/{id}/standings"))
        .await;
    let (ann, bob) = (points(&s, &ann_id), points(&s, &bob_id));
    assert_eq!(
        (ann["points"].as_f64(), ann["on_fire"].as_bool()),
        (Some(8.0), Some(false))
    );
    assert_eq!(
        (bob["points"].as_f64(), bob["wins"].as_u64()),
        (Some(2.0), Some(1))
    );
    assert_eq!(ann["played"], 4);
    // A tournament game is never restarted, rematched or deleted.
    let g = current_game(&app, &id, &ann_id).await;
    let gid = g["id"].as_str().unwrap();
    let res = app
        .request(Method::DELETE, &format!("/v1/games/{gid}"))
        .bearer_auth(&a_key)
        .send()
        .await
        .unwrap();
    assert_problem(res, 409, "tournament_game").await;
    resign(&app, &a_key, gid).await;
    let res = app
        .post(
            &format!("/v1/games/{gid}/rematch"),
            Some(&a_key),
            &json!({}),
        )
        .await;
    assert_problem(res, 409, "tournament_game").await;
    let res = app.get(&format!("/v1/tournaments/{id}/trf")).await;
    assert_problem(res, 409, "no_rounds").await;
}

#[tokio::test]
async fn a_side_that_misses_its_first_move_loses_by_forfeit_and_is_withdrawn() {
    let (app, clock) = app_on_manual_clock("2026-12-04T10:00:00Z").await;
    let (ann_id, a_key) = new_player(&app, "Ann").await;
    let (bob_id, b_key) = new_player(&app, "Bob").await;
    let t = create(
        &app,
        &a_key,
        json!({"name": "Two rounds", "kind": "connect_four", "system": "swiss", "rounds": 2}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(enter(&app, &a_key, &id).await.status(), 201);
    assert_eq!(enter(&app, &b_key, &id).await.status(), 201);
    let mut stream =
        crate::events::Stream::open_path(&app, &format!("/v1/tournaments/{id}/events"), None).await;
    assert_eq!(start(&app, &a_key, &id).await.status(), 200);
    // Ann (first by order of entry, both unrated) has X and never moves.
    let g = current_game(&app, &id, &ann_id).await;
    assert_eq!(g["seats"]["X"]["player"], ann_id.as_str());
    assert!(g["clock"]["first_move_deadline"].is_string(), "{g}");
    clock.advance(Duration::from_secs(31));
    let gid = g["id"].as_str().unwrap().to_owned();
    // Reads show the forfeit at once; the sweeper records it.
    for _ in 0..100 {
        let r = app
            .get_json(&format!("/v1/tournaments/{id}/rounds/1"))
            .await;
        if !r["pairings"][0]["result"].is_null() {
            assert_eq!(r["pairings"][0]["result"], "-+");
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(app.game(&gid).await["end_reason"], "forfeit");
    // The next step comes after the round pause (10 s by default).
    clock.advance(Duration::from_secs(10));
    let t = wait_for(&app, &id, "finished").await;
    assert_eq!(t["round"], 1, "a forfeited entrant is not paired again");
    let g = app.game(g["id"].as_str().unwrap()).await;
    assert_eq!(
        (g["end_reason"].as_str(), g["winner"].as_str()),
        (Some("forfeit"), Some("O"))
    );
    let s = app
        .get_json(&format!("/v1/tournaments/{id}/standings"))
        .await;
    assert_eq!(s["items"][0]["player"]["id"], bob_id.as_str());
    assert_eq!(s["items"][0]["points"], 1.0);
    assert_eq!(s["items"][0]["played"], 0, "a forfeit is not played");
    assert_eq!(s["items"][1]["withdrawn"], true);
    let text = app
        .get(&format!("/v1/tournaments/{id}/trf"))
        .await
        .text()
        .await
        .unwrap();
    let file = trf::parse(&text).unwrap();
    assert_eq!(file.players[0].rounds[0].outcome, trf::Outcome::ForfeitLoss);
    assert_eq!(file.players[1].rounds[0].outcome, trf::Outcome::ForfeitWin);
    // The stream told it all, in order.
    let mut seen = Vec::new();
    while let Some(e) = stream.next().await {
        seen.push(e.name.clone());
        if e.name == "finished" {
            break;
        }
    }
    assert_eq!(seen[0], "state");
    for name in ["round", "game_end", "withdrawn", "standings", "finished"] {
        assert!(seen.iter().any(|s| s == name), "{name} in {seen:?}");
    }
}

#[tokio::test]
async fn entry_and_start_refuse_what_they_must_and_change_nothing() {
    let app = spawn_app_with(|_| {}).await;
    let (_, key) = new_player(&app, "Organiser").await;
    let (_, other) = new_player(&app, "Other").await;
    // No clock, no player, a swiss without rounds.
    let res = app
        .post(
            "/v1/tournaments",
            Some(&key),
            &json!({"name": "x", "kind": "connect_four", "system": "swiss", "rounds": 3}),
        )
        .await;
    assert_problem(res, 422, "clock_required").await;
    let res = app
        .post(
            "/v1/tournaments",
            None,
            &json!({"name": "x", "kind": "connect_four", "system": "swiss", "rounds": 3, "clock": {"initial_ms": 60000}}),
        )
        .await;
    assert_problem(res, 401, "player_required").await;
    let res = app
        .post(
            "/v1/tournaments",
            Some(&key),
            &json!({"name": "x", "kind": "connect_four", "system": "swiss", "clock": {"initial_ms": 60000}}),
        )
        .await;
    assert_problem(res, 422, "invalid_option").await;
    // Integers written as `3.0` are integers, as JSON Schema says.
    let t = create(
        &app,
        &key,
        json!({"name": "Small", "kind": "connect_four", "system": "swiss", "rounds": 3.0, "max_entrants": 2.0}),
    )
    .await;
    assert_eq!(
        (t["rounds"].as_u64(), t["max_entrants"].as_u64()),
        (Some(3), Some(2))
    );
    let id = t["id"].as_str().unwrap().to_owned();
    assert_problem(start(&app, &key, &id).await, 409, "not_enough_entrants").await;
    assert_eq!(enter(&app, &other, &id).await.status(), 201);
    assert_problem(enter(&app, &other, &id).await, 409, "already_entered").await;
    let res = app
        .post(
            &format!("/v1/tournaments/{id}/entrants"),
            Some(&other),
            &json!({"bot": {"level": "easy"}}),
        )
        .await;
    assert_problem(res, 403, "not_creator").await;
    enter_bot(&app, &key, &id, "easy").await;
    let res = app
        .post(
            &format!("/v1/tournaments/{id}/entrants"),
            Some(&key),
            &json!({"bot": {"level": "easy"}}),
        )
        .await;
    assert_problem(res, 409, "tournament_full").await;
    assert_problem(start(&app, &other, &id).await, 403, "not_creator").await;
    let before = app.get_json(&format!("/v1/tournaments/{id}")).await;
    assert_eq!(before["entrants"], 2);
    let res = app
        .request(Method::DELETE, &format!("/v1/tournaments/{id}"))
        .bearer_auth(&other)
        .send()
        .await
        .unwrap();
    assert_problem(res, 403, "not_creator").await;
    assert_eq!(
        app.get_json(&format!("/v1/tournaments/{id}")).await["version"],
        before["version"],
        "refusals change nothing"
    );
    // Leaving before the start removes the entrant; the creator deletes it.
    let me = app.get_json_as("/v1/players/me", &other).await;
    let res = app
        .request(
            Method::DELETE,
            &format!(
                "/v1/tournaments/{id}/entrants/{}",
                me["id"].as_str().unwrap()
            ),
        )
        .bearer_auth(&other)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(
        app.get_json(&format!("/v1/tournaments/{id}")).await["entrants"],
        1
    );
    let listed = app.get_json("/v1/tournaments?status=open").await;
    assert_eq!(listed["items"][0]["id"], id.as_str());
    let res = app
        .request(Method::DELETE, &format!("/v1/tournaments/{id}"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let res = app.get(&format!("/v1/tournaments/{id}")).await;
    assert_problem(res, 404, "tournament_not_found").await;
}

#[tokio::test]
async fn a_round_left_unpaired_by_a_stop_is_paired_once_after_the_restart() {
    let app = spawn_app_with(|s| s.round_pause = Duration::from_secs(2)).await;
    let (_, key) = new_player(&app, "Organiser").await;
    let t = create(
        &app,
        &key,
        json!({"name": "Restart", "kind": "tic_tac_toe", "system": "swiss", "rounds": 2}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    for _ in 0..4 {
        enter_bot(&app, &key, &id, "random").await;
    }
    assert_eq!(start(&app, &key, &id).await.status(), 200);
    // Round 1's games end within the pause: stop before round 2 is paired.
    for _ in 0..100 {
        let r = app
            .get_json(&format!("/v1/tournaments/{id}/rounds/1"))
            .await;
        if r["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| !p["result"].is_null())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
    assert_eq!(t["round"], 1);
    let db = app.stop().await;
    let app = spawn_app_on(db, |s| s.round_pause = Duration::from_secs(2)).await;
    let done = wait_for(&app, &id, "finished").await;
    assert_eq!(done["round"], 2);
    let r2 = app
        .get_json(&format!("/v1/tournaments/{id}/rounds/2"))
        .await;
    assert_eq!(
        r2["pairings"].as_array().unwrap().len(),
        2,
        "paired once: two boards"
    );
    let games = app
        .get_json(&format!("/v1/tournaments/{id}/games?limit=100"))
        .await;
    assert_eq!(games["items"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn two_instances_on_one_postgresql_pair_each_round_once() {
    if crate::helpers::postgres_server().is_none() {
        return; // SQLite: one process holds the file.
    }
    let first = spawn_app_with(|s| s.round_pause = Duration::ZERO).await;
    let second = spawn_app_on(first.db.clone(), |s| s.round_pause = Duration::ZERO).await;
    let (_, key) = new_player(&first, "Organiser").await;
    let t = create(
        &first,
        &key,
        json!({"name": "Two instances", "kind": "tic_tac_toe", "system": "swiss", "rounds": 3}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    for _ in 0..8 {
        enter_bot(&second, &key, &id, "random").await;
    }
    assert_eq!(start(&second, &key, &id).await.status(), 200);
    wait_for(&first, &id, "finished").await;
    for round in 1..=3 {
        let r = second
            .get_json(&format!("/v1/tournaments/{id}/rounds/{round}"))
            .await;
        assert_eq!(
            r["pairings"].as_array().unwrap().len(),
            4,
            "round {round} paired once"
        );
    }
    let games = first
        .get_json(&format!("/v1/tournaments/{id}/games?limit=100"))
        .await;
    assert_eq!(games["items"].as_array().unwrap().len(), 12);
}

#[tokio::test]
async fn a_tournament_tells_webhooks_of_its_start_its_rounds_and_its_end_signed() {
    use crate::webhooks::{expected_signature, register, webhooks_on};
    let app = spawn_app_with(|s| {
        webhooks_on("1s")(s);
        s.round_pause = Duration::ZERO;
    })
    .await;
    let receiver = crate::receiver::Receiver::start().await;
    let grant = register(
        &app,
        &receiver.url,
        &[
            "tournament.started",
            "tournament.round_started",
            "tournament.finished",
        ],
    )
    .await;
    let (_, key) = new_player(&app, "Organiser").await;
    let t = create(
        &app,
        &key,
        json!({"name": "Hooked", "kind": "tic_tac_toe", "system": "swiss", "rounds": 2}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    for _ in 0..4 {
        enter_bot(&app, &key, &id, "random").await;
    }
    assert_eq!(start(&app, &key, &id).await.status(), 200);
    wait_for(&app, &id, "finished").await;
    let got = receiver.wait_delivered(4, Duration::from_secs(10)).await;
    let kinds: Vec<String> = got
        .iter()
        .map(|g| g.json()["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        [
            "tournament.started",
            "tournament.round_started",
            "tournament.round_started",
            "tournament.finished"
        ]
    );
    let secret = grant["secret"].as_str().unwrap();
    for g in &got {
        assert_eq!(g.header("webhook-signature"), expected_signature(secret, g));
        assert_eq!(g.json()["data"]["tournament"]["id"], id.as_str());
    }
    assert_eq!(got[1].json()["data"]["tournament"]["round"], 1);
    assert_eq!(got[3].json()["data"]["tournament"]["status"], "finished");
}

#[tokio::test]
async fn a_large_round_is_paired_by_the_sweeper_outside_the_write_that_starts_it() {
    let app = spawn_app_with(|s| s.round_pause = Duration::ZERO).await;
    let (_, key) = new_player(&app, "Organiser").await;
    let t = create(
        &app,
        &key,
        json!({"name": "Seventy", "kind": "tic_tac_toe", "system": "swiss", "rounds": 2}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    for _ in 0..70 {
        enter_bot(&app, &key, &id, "random").await;
    }
    let started: Value = start(&app, &key, &id).await.json().await.unwrap();
    assert_eq!(started["status"], "running");
    assert_eq!(
        started["round"], 0,
        "70 entrants: round 1 is paired by the sweeper"
    );
    wait_for(&app, &id, "finished").await;
    for round in 1..=2 {
        let r = app
            .get_json(&format!("/v1/tournaments/{id}/rounds/{round}"))
            .await;
        assert_eq!(r["pairings"].as_array().unwrap().len(), 35, "round {round}");
    }
}

#[tokio::test]
async fn a_rated_tournament_starts_at_its_time_rates_its_games_and_one_short_is_cancelled() {
    let (app, clock) = app_on_manual_clock("2026-12-04T10:00:00Z").await;
    let (ann_id, a_key) = new_player(&app, "Ann").await;
    let (_, b_key) = new_player(&app, "Bob").await;
    let at = json!("2026-12-04T10:05:00Z");
    let rated = create(
        &app,
        &a_key,
        json!({"name": "Rated", "kind": "connect_four", "system": "round_robin", "rated": true, "starts_at": at}),
    )
    .await;
    let lonely = create(
        &app,
        &a_key,
        json!({"name": "Lonely", "kind": "connect_four", "system": "swiss", "rounds": 3, "starts_at": at}),
    )
    .await;
    let (rated, lonely) = (
        rated["id"].as_str().unwrap(),
        lonely["id"].as_str().unwrap(),
    );
    assert_eq!(enter(&app, &a_key, rated).await.status(), 201);
    assert_eq!(enter(&app, &b_key, rated).await.status(), 201);
    assert_eq!(enter(&app, &a_key, lonely).await.status(), 201);
    clock.advance(Duration::from_secs(299));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        app.get_json(&format!("/v1/tournaments/{rated}")).await["status"],
        "open"
    );
    clock.advance(Duration::from_secs(1));
    wait_for(&app, rated, "running").await;
    wait_for(&app, lonely, "cancelled").await;
    // Between two people in a rated tournament the game is rated.
    let g = current_game(&app, rated, &ann_id).await;
    assert_eq!(g["rated"], true);
    let gid = g["id"].as_str().unwrap();
    let (mover, other) = if g["seats"]["X"]["player"] == ann_id.as_str() {
        (&a_key, &b_key)
    } else {
        (&b_key, &a_key)
    };
    let res = app
        .post(
            &format!("/v1/games/{gid}/moves"),
            Some(mover),
            &json!({"column": 3}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let res = app
        .post(
            &format!("/v1/games/{gid}/moves"),
            Some(other),
            &json!({"column": 3}),
        )
        .await;
    assert_eq!(res.status(), 201);
    resign(&app, other, gid).await;
    let g = app.game(gid).await;
    assert!(g["rating_change"].is_object(), "{g}");
}
