//! Players and ratings: keys, seats bound to players, rated rounds rated
//! once however they end, concurrency (leaderboards and rated quick match:
//! `leaderboard.rs`; rated rounds' fair play: `fair_play.rs`; sign-in by JWT:
//! `sign_in.rs`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use tabula::clock::Clock;
use tabula::domain::player::{KindRating, rate};
use tabula::domain::rating::Rating;

use crate::helpers::{
    Seat, TestApp, assert_problem, postgres_server, seat_of, spawn_app, spawn_app_on,
    spawn_app_with,
};

/// An app whose clock stands at `start` (RFC 3339) until advanced.
pub(crate) async fn app_on_manual_clock(start: &str) -> (TestApp, Clock) {
    let clock = Clock::manual(
        DateTime::parse_from_rfc3339(start)
            .unwrap()
            .with_timezone(&Utc),
    );
    let app = {
        let clock = clock.clone();
        spawn_app_with(move |s| s.clock = clock).await
    };
    (app, clock)
}

/// A new player: (id, key).
pub(crate) async fn new_player(app: &TestApp, name: &str) -> (String, String) {
    let res = app.post("/v1/players", None, &json!({"name": name})).await;
    assert_eq!(res.status(), 201, "create player");
    let v: Value = res.json().await.unwrap();
    (
        v["player"]["id"].as_str().unwrap().to_owned(),
        v["key"].as_str().unwrap().to_owned(),
    )
}

pub(crate) async fn create_as(app: &TestApp, key: &str, body: Value) -> Seat {
    let res = app.post("/v1/games", Some(key), &body).await;
    let status = res.status();
    let v: Value = res.json().await.unwrap();
    assert_eq!(status, 201, "create {body}: {v}");
    seat_of(&v)
}

pub(crate) async fn join_as(app: &TestApp, id: &str, key: &str) -> Seat {
    let res = app
        .post(&format!("/v1/games/{id}/join"), Some(key), &json!({}))
        .await;
    let status = res.status();
    let v: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "join: {v}");
    seat_of(&v)
}

/// A seat played with the player's key rather than the seat token.
pub(crate) fn with_key(seat: &Seat, key: &str) -> Seat {
    Seat {
        token: key.to_owned(),
        ..seat.clone()
    }
}

pub(crate) struct RatedGame {
    pub(crate) x: Seat,
    pub(crate) o: Seat,
    pub(crate) x_player: String,
    pub(crate) o_player: String,
}

pub(crate) async fn rated_game(app: &TestApp, body: Value) -> RatedGame {
    let (x_player, x_key) = new_player(app, "Xena").await;
    let (o_player, o_key) = new_player(app, "Otto").await;
    let mut body = body;
    body["rated"] = json!(true);
    if body.get("clock").is_none() {
        body["clock"] = json!({"per_move_ms": 86_400_000});
    }
    let x = create_as(app, &x_key, body).await;
    let o = join_as(app, &x.id, &o_key).await;
    RatedGame {
        x: with_key(&x, &x_key),
        o: with_key(&o, &o_key),
        x_player,
        o_player,
    }
}

pub(crate) async fn player(app: &TestApp, id: &str) -> Value {
    app.get_json(&format!("/v1/players/{id}")).await
}

/// The player's rated games of a kind (0 without a rating).
pub(crate) async fn rated_games(app: &TestApp, id: &str, kind: &str) -> i64 {
    player(app, id).await["ratings"][kind]["games"]
        .as_i64()
        .unwrap_or(0)
}

pub(crate) fn cell(row: u32, col: u32) -> Value {
    json!({"row": row, "col": col})
}

/// X wins tic-tac-toe along the top row.
pub(crate) async fn x_wins(app: &TestApp, g: &RatedGame) -> Value {
    for (seat, row, col) in [(&g.x, 0, 0), (&g.o, 1, 0), (&g.x, 0, 1), (&g.o, 1, 1)] {
        app.play_ok(seat, cell(row, col)).await;
    }
    app.play_ok(&g.x, cell(0, 2)).await
}

#[tokio::test]
async fn a_player_is_created_with_a_key_shown_once_and_read_back() {
    let app = spawn_app().await;
    let res = app.post("/v1/players", None, &json!({"name": "Ann"})).await;
    assert_eq!(res.status(), 201);
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    let v: Value = res.json().await.unwrap();
    let id = v["player"]["id"].as_str().unwrap();
    assert_eq!(location, format!("/v1/players/{id}"));
    assert!(v["key"].as_str().unwrap().starts_with("tpk_"));
    assert_eq!(v["player"]["ratings"], json!({}));
    let got = player(&app, id).await;
    assert_eq!(got["name"], "Ann");
    assert_eq!(got["id"], id);
    assert!(got.get("key").is_none(), "the key is shown only once");
    assert_problem(
        app.post("/v1/players", None, &json!({"name": ""})).await,
        422,
        "invalid_name",
    )
    .await;
    assert_problem(
        app.post("/v1/players", None, &json!({"name": "A", "x": 1}))
            .await,
        400,
        "malformed_request",
    )
    .await;
    assert_problem(
        app.get("/v1/players/01936f0e-8a4b-7c3d-9e2f-1a2b3c4d5e6f")
            .await,
        404,
        "player_not_found",
    )
    .await;
    assert_problem(
        app.get("/v1/players/nobody/games").await,
        404,
        "player_not_found",
    )
    .await;
}

#[tokio::test]
async fn a_key_tells_whose_it_is_and_nothing_else_names_a_player() {
    let app = spawn_app().await;
    let (id, key) = new_player(&app, "Erin").await;
    let me = app.get_json_as("/v1/players/me", &key).await;
    assert_eq!(me["id"], id.as_str());
    assert_eq!(me["name"], "Erin");
    assert_eq!(me["ratings"], json!({}));
    // No credential, a seat token, an unknown key: no player.
    assert_problem(app.get("/v1/players/me").await, 401, "player_required").await;
    let seat = app.create_kind("connect_four").await;
    for (token, code) in [
        (seat.token.as_str(), "player_required"),
        ("tpk_0000000000000000", "invalid_token"),
    ] {
        let res = app
            .client
            .get(format!("{}/v1/players/me", app.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_problem(res, 401, code).await;
    }
}

#[tokio::test]
async fn a_player_key_binds_the_seat_and_works_as_its_token() {
    let app = spawn_app().await;
    let (ann, ann_key) = new_player(&app, "Ann").await;
    let (bob, bob_key) = new_player(&app, "Bob").await;
    let x = create_as(&app, &ann_key, json!({"kind": "connect_four"})).await;
    let o = join_as(&app, &x.id, &bob_key).await;
    let g = app.game(&x.id).await;
    assert_eq!(g["seats"]["X"]["player"], ann);
    assert_eq!(
        g["seats"]["X"]["name"], "Ann",
        "the player's name by default"
    );
    assert_eq!(g["seats"]["O"]["player"], bob);
    assert_eq!(g["rated"], false);
    // The key plays the seat, as the seat token does.
    app.play_ok(&with_key(&x, &ann_key), json!({"column": 3}))
        .await;
    app.play_ok(&o, json!({"column": 3})).await;
    // Bob's key holds O, not X, whose turn it is.
    assert_problem(
        app.play(&with_key(&x, &bob_key), json!({"column": 2}))
            .await,
        409,
        "not_your_turn",
    )
    .await;
    // A key is no seat of a game its player does not sit in.
    let other = app.create_kind("connect_four").await;
    assert_problem(
        app.play(&with_key(&other, &ann_key), json!({"column": 2}))
            .await,
        403,
        "invalid_token",
    )
    .await;
    // A key nobody has is refused where a player is looked for.
    assert_problem(
        app.post(
            "/v1/games",
            Some("tpk_0000"),
            &json!({"kind": "connect_four"}),
        )
        .await,
        401,
        "invalid_token",
    )
    .await;
    // A name given at create wins over the player's.
    let named = create_as(
        &app,
        &ann_key,
        json!({"kind": "tic_tac_toe", "name": "Annie"}),
    )
    .await;
    assert_eq!(app.game(&named.id).await["seats"]["X"]["name"], "Annie");
    // Their games, newest first, paged.
    let page = app
        .get_json(&format!("/v1/players/{ann}/games?limit=1"))
        .await;
    assert_eq!(page["items"][0]["id"], named.id.as_str());
    let cursor = page["next_cursor"].as_str().unwrap();
    let page = app
        .get_json(&format!("/v1/players/{ann}/games?limit=1&cursor={cursor}"))
        .await;
    assert_eq!(page["items"][0]["id"], x.id.as_str());
    assert_eq!(page["next_cursor"], Value::Null);
    let bobs = app.get_json(&format!("/v1/players/{bob}/games")).await;
    assert_eq!(bobs["items"].as_array().unwrap().len(), 1);
    // No rating moves in an unrated game.
    assert_eq!(player(&app, &ann).await["ratings"], json!({}));
}

#[tokio::test]
async fn rated_games_are_between_two_players() {
    let app = spawn_app().await;
    let (_, key) = new_player(&app, "Ann").await;
    assert_problem(
        app.post(
            "/v1/games",
            None,
            &json!({"kind": "connect_four", "rated": true}),
        )
        .await,
        401,
        "player_required",
    )
    .await;
    for body in [
        json!({"kind": "connect_four", "rated": true, "hotseat": true}),
        json!({"kind": "connect_four", "rated": true, "opponent": {"type": "bot", "level": "easy"}}),
    ] {
        assert_problem(
            app.post("/v1/games", Some(&key), &body).await,
            422,
            "invalid_option",
        )
        .await;
    }
    let x = create_as(
        &app,
        &key,
        json!({"kind": "connect_four", "rated": true, "clock": {"per_move_ms": 86_400_000}}),
    )
    .await;
    let join = |token: Option<&'static str>| {
        let path = format!("/v1/games/{}/join", x.id);
        let app = &app;
        async move { app.post(&path, token, &json!({})).await }
    };
    assert_problem(join(None).await, 401, "player_required").await;
    assert_problem(
        app.post(&format!("/v1/games/{}/join", x.id), Some(&key), &json!({}))
            .await,
        409,
        "same_player",
    )
    .await;
    // Refused joins changed nothing.
    let g = app.game(&x.id).await;
    assert_eq!(g["version"], 1);
    assert_eq!(g["status"], "waiting");
    assert_eq!(g["rated"], true);
}

#[tokio::test]
async fn every_way_a_rated_round_ends_rates_both_players_once() {
    let (app, clock) = app_on_manual_clock("2026-11-25T10:00:00Z").await;
    let kind = "tic_tac_toe";
    let base = json!({"kind": kind});

    // A line: X wins.
    let line = rated_game(&app, base.clone()).await;
    let won = x_wins(&app, &line).await;
    let change = &won["game"]["rating_change"];
    assert_eq!(change["X"]["before"], 1500.0);
    assert!(change["X"]["after"].as_f64().unwrap() > 1600.0, "{change}");
    assert!(change["O"]["after"].as_f64().unwrap() < 1400.0, "{change}");
    let x_now = player(&app, &line.x_player).await["ratings"][kind].clone();
    assert_eq!(x_now["rating"], change["X"]["after"]);
    assert_eq!(x_now["games"], 1);
    assert_eq!(x_now["provisional"], true);

    // A full board: a draw moves two newcomers nowhere but counts.
    let full = rated_game(&app, base.clone()).await;
    let draw = [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 1),
        (1, 0),
        (2, 0),
        (1, 2),
        (2, 2),
        (2, 1),
    ];
    let mut last = Value::Null;
    for (i, (row, col)) in draw.into_iter().enumerate() {
        let seat = if i % 2 == 0 { &full.x } else { &full.o };
        last = app.play_ok(seat, cell(row, col)).await;
    }
    assert_eq!(last["game"]["status"], "draw");
    assert_eq!(last["game"]["rating_change"]["X"]["after"], 1500.0);

    // Resignation: O resigns, X wins.
    let resigned = rated_game(&app, base.clone()).await;
    app.play_ok(&resigned.x, cell(1, 1)).await;
    app.play_ok(&resigned.o, cell(0, 0)).await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", resigned.o.id),
            Some(&resigned.o.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let g: Value = res.json().await.unwrap();
    assert!(g["rating_change"]["X"]["after"].as_f64().unwrap() > 1500.0);

    // A draw by agreement.
    let agreed = rated_game(&app, base.clone()).await;
    app.play_ok(&agreed.x, cell(1, 1)).await;
    app.play_ok(&agreed.o, cell(0, 0)).await;
    let offered = app
        .post(
            &format!("/v1/games/{}/offers", agreed.x.id),
            Some(&agreed.x.token),
            &json!({"type": "draw"}),
        )
        .await;
    assert_eq!(offered.status(), 201);
    let accepted = app
        .post(
            &format!("/v1/games/{}/offers/accept", agreed.o.id),
            Some(&agreed.o.token),
            &json!({}),
        )
        .await;
    assert_eq!(accepted.status(), 200);
    let g = app.game(&agreed.x.id).await;
    assert_eq!(g["end_reason"], "agreement");
    assert_eq!(g["rating_change"]["O"]["after"], 1500.0);

    // A timeout the clock sweeper records.
    let timed = rated_game(&app, json!({"kind": kind, "clock": {"initial_ms": 10000}})).await;
    app.play_ok(&timed.x, cell(1, 1)).await;
    app.play_ok(&timed.o, cell(0, 0)).await;
    app.play_ok(&timed.x, cell(2, 2)).await;
    clock.advance(Duration::from_secs(11));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while rated_games(&app, &timed.x_player, kind).await == 0
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let g = app.game(&timed.x.id).await;
    assert_eq!(g["end_reason"], "timeout");
    assert_eq!(g["winner"], "X");
    assert!(g["rating_change"]["X"]["after"].as_f64().unwrap() > 1500.0);

    // Each rated once, whatever was read or written since.
    for g in [&line, &full, &resigned, &agreed, &timed] {
        app.game(&g.x.id).await;
        assert_eq!(rated_games(&app, &g.x_player, kind).await, 1);
        assert_eq!(rated_games(&app, &g.o_player, kind).await, 1);
    }

    // A new round clears the change; its end rates again.
    let g = app.new_round(&line.x, &line.o).await;
    assert_eq!(g["rating_change"], Value::Null);
    assert_eq!(rated_games(&app, &line.x_player, kind).await, 1);
    let won = x_wins(&app, &line).await;
    assert_eq!(
        won["game"]["rating_change"]["X"]["before"],
        change["X"]["after"]
    );
    assert_eq!(rated_games(&app, &line.x_player, kind).await, 2);
}

/// 50 rated games of one player against 50 others, each one move from
/// its end, ended at once: every game counts, and the ratings are those of
/// a replay one game after another, in the order the games' changes chain.
async fn fifty_rated_games_end_at_once(apps: &[&TestApp]) {
    let main = apps[0];
    let (star, star_key) = new_player(main, "Star").await;
    let mut games = Vec::new();
    for i in 0..50 {
        let app = apps[i % apps.len()];
        let (other, other_key) = new_player(app, &format!("Rival {i}")).await;
        let x = create_as(
            app,
            &star_key,
            json!({"kind": "tic_tac_toe", "rated": true, "clock": {"per_move_ms": 86_400_000}}),
        )
        .await;
        let o = join_as(app, &x.id, &other_key).await;
        let g = RatedGame {
            x: with_key(&x, &star_key),
            o: with_key(&o, &other_key),
            x_player: star.clone(),
            o_player: other,
        };
        for (seat, row, col) in [(&g.x, 0, 0), (&g.o, 1, 0), (&g.x, 0, 1), (&g.o, 1, 1)] {
            app.play_ok(seat, cell(row, col)).await;
        }
        games.push((app, g));
    }
    let ends = games
        .iter()
        .map(|(app, g)| async move { app.play_ok(&g.x, cell(0, 2)).await });
    let ended: Vec<Value> = futures_util::future::join_all(ends).await;
    let changes: Vec<&Value> = ended.iter().map(|v| &v["game"]["rating_change"]).collect();
    let rating_of = |v: &Value| v.as_f64().unwrap();
    // The chain: each game starts from the rating the one before it left.
    let mut order = Vec::new();
    let mut current: f64 = 1500.0;
    let mut left: Vec<usize> = (0..changes.len()).collect();
    while !left.is_empty() {
        let next = left
            .iter()
            // Exactly: the rating one game wrote is the one the next read.
            .position(|&i| rating_of(&changes[i]["X"]["before"]).to_bits() == current.to_bits())
            .unwrap_or_else(|| panic!("no game starts from {current}: an update was lost"));
        let i = left.remove(next);
        current = rating_of(&changes[i]["X"]["after"]);
        order.push(i);
    }
    // Replayed one after another with the opponents' ratings, the same.
    let mut replay = KindRating::START;
    for &i in &order {
        let rival = KindRating {
            rating: Rating {
                rating: 1500.0,
                deviation: 350.0,
                volatility: 0.06,
            },
            games: 0,
        };
        let [x, _] = rate([replay, rival], 1.0);
        assert!((x.rating.rating - rating_of(&changes[i]["X"]["after"])).abs() < 1e-9);
        replay = x;
    }
    let stored = player(main, &star).await["ratings"]["tic_tac_toe"].clone();
    assert_eq!(stored["games"], 50);
    assert!((rating_of(&stored["rating"]) - replay.rating.rating).abs() < 1e-9);
    assert!((rating_of(&stored["deviation"]) - replay.rating.deviation).abs() < 1e-9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_rated_games_of_one_player_ending_at_once_equal_a_sequential_replay() {
    let app = spawn_app().await;
    fifty_rated_games_end_at_once(&[&app]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_two_instances_fifty_rated_games_ending_at_once_lose_no_update() {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    let one = spawn_app().await;
    let two = spawn_app_on(one.db.clone(), |_| {}).await;
    fifty_rated_games_end_at_once(&[&one, &two]).await;
}

#[tokio::test]
async fn player_creation_is_limited_per_client_and_a_keyed_retry_gets_the_same_player() {
    let app = spawn_app_with(|s| s.player_rate = 3).await;
    let create = |name: &'static str, key: Option<&'static str>| {
        let app = &app;
        async move {
            let mut req = app
                .request(Method::POST, "/v1/players")
                .json(&json!({"name": name}));
            if let Some(key) = key {
                req = req.header("Idempotency-Key", key);
            }
            req.send().await.unwrap()
        }
    };
    let first = create("Ann", Some("k-1")).await;
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: Value = first.json().await.unwrap();
    // The answer was lost: the retry gets the same player and key.
    let again = create("Ann", Some("k-1")).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["player"]["id"], first["player"]["id"]);
    assert_eq!(again["key"], first["key"]);
    // The key works.
    let key = first["key"].as_str().unwrap().to_owned();
    let res = app
        .post("/v1/games", Some(&key), &json!({"kind": "tic_tac_toe"}))
        .await;
    let g: Value = res.json().await.unwrap();
    assert_eq!(g["game"]["seats"]["X"]["player"], first["player"]["id"]);
    // The same key with another name is refused, changing nothing.
    assert_problem(
        create("Bob", Some("k-1")).await,
        422,
        "idempotency_key_reused",
    )
    .await;
    // Two more creations, then the client's share is used up.
    assert_eq!(create("Cy", None).await.status(), 201);
    assert_eq!(create("Di", Some("k-2")).await.status(), 201);
    let refused = create("Ed", None).await;
    assert!(
        refused.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            >= 1
    );
    assert_problem(refused, 429, "rate_limited").await;
    // A retry is still answered.
    assert_eq!(create("Di", Some("k-2")).await.status(), 201);
}
