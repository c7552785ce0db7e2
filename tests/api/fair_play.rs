//! Fair play in rated rounds: a rated game needs a clock, a round ended
//! before each side moved is aborted, no help reaches a round in progress,
//! and a round over on time is never read without its rating change.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Seat, assert_problem, spawn_app};
use crate::players::*;

#[tokio::test]
async fn an_unrated_game_between_players_moves_no_rating() {
    let app = spawn_app().await;
    let (ann, ann_key) = new_player(&app, "Ann").await;
    let (_, bob_key) = new_player(&app, "Bob").await;
    let x = create_as(&app, &ann_key, json!({"kind": "tic_tac_toe"})).await;
    let o = join_as(&app, &x.id, &bob_key).await;
    let g = RatedGame {
        x,
        o,
        x_player: ann.clone(),
        o_player: String::new(),
    };
    let won = x_wins(&app, &g).await;
    assert_eq!(won["game"]["status"], "won");
    assert_eq!(won["game"]["rating_change"], Value::Null);
    assert_eq!(player(&app, &ann).await["ratings"], json!({}));
}

#[tokio::test]
async fn a_rated_round_ended_before_each_side_moved_is_aborted_and_unrated() {
    let (app, clock) = app_on_manual_clock("2026-12-02T10:00:00Z").await;
    let kind = "tic_tac_toe";
    let resign = |seat: Seat| {
        let app = &app;
        async move {
            let res = app
                .post(
                    &format!("/v1/games/{}/resign", seat.id),
                    Some(&seat.token),
                    &json!({}),
                )
                .await;
            assert_eq!(res.status(), 200);
            res.json::<Value>().await.unwrap()
        }
    };
    // X resigns before anyone moved (the farm's puppets did).
    let puppet = rated_game(&app, json!({"kind": kind})).await;
    let ended = resign(puppet.x.clone()).await;
    // O resigns after X's first move: O never moved.
    let second = rated_game(&app, json!({"kind": kind})).await;
    app.play_ok(&second.x, cell(1, 1)).await;
    let ended_second = resign(second.o.clone()).await;
    // X lets its first-move deadline (30 s) pass.
    let abandoned = rated_game(
        &app,
        json!({"kind": kind, "clock": {"initial_ms": 10000, "increment_ms": 0}}),
    )
    .await;
    clock.advance(Duration::from_secs(30));
    let timed_out = app.game(&abandoned.x.id).await;
    for g in [&ended, &ended_second, &timed_out] {
        assert_eq!(g["status"], "draw", "{g}");
        assert_eq!(g["end_reason"], "aborted", "{g}");
        assert_eq!(g["winner"], Value::Null, "{g}");
        assert_eq!(g["rating_change"], Value::Null, "{g}");
    }
    for g in [&puppet, &second, &abandoned] {
        assert_eq!(rated_games(&app, &g.x_player, kind).await, 0);
        assert_eq!(rated_games(&app, &g.o_player, kind).await, 0);
    }
    // Once each side has moved, a resignation counts.
    let played = rated_game(&app, json!({"kind": kind})).await;
    app.play_ok(&played.x, cell(1, 1)).await;
    app.play_ok(&played.o, cell(0, 0)).await;
    let ended = resign(played.x.clone()).await;
    assert_eq!(ended["end_reason"], "resignation");
    assert_eq!(ended["winner"], "O");
    assert_eq!(rated_games(&app, &played.o_player, kind).await, 1);
}

#[tokio::test]
async fn a_rated_game_needs_a_clock_and_no_help_reaches_its_round_in_progress() {
    let app = spawn_app().await;
    let (_, key) = new_player(&app, "Ann").await;
    for (path, body) in [
        ("/v1/games", json!({"kind": "connect_four", "rated": true})),
        (
            "/v1/matches",
            json!({"kind": "connect_four", "rated": true}),
        ),
    ] {
        assert_problem(
            app.post(path, Some(&key), &body).await,
            422,
            "clock_required",
        )
        .await;
    }
    let g = rated_game(&app, json!({"kind": "connect_four"})).await;
    app.play_ok(&g.x, json!({"column": 3})).await;
    let before = app.game(&g.x.id).await;
    for (method, path) in [
        (
            Method::GET,
            format!("/v1/games/{}/hint?level=perfect", g.o.id),
        ),
        (
            Method::GET,
            format!("/v1/games/{}/analysis?level=perfect", g.o.id),
        ),
        (Method::GET, format!("/v1/games/{}/analysis?ply=0", g.o.id)),
        (Method::POST, format!("/v1/games/{}/bot-move", g.o.id)),
    ] {
        let mut req = app.request(method, &path).bearer_auth(&g.o.token);
        if path.ends_with("bot-move") {
            req = req.json(&json!({"level": "perfect"}));
        }
        assert_problem(req.send().await.unwrap(), 403, "assistance_forbidden").await;
    }
    let after = app.game(&g.x.id).await;
    assert_eq!(
        (&after["version"], &after["ply"]),
        (&before["version"], &before["ply"]),
        "nothing changed"
    );
    // Over: its analysis is open to all.
    let res = app
        .post(
            &format!("/v1/games/{}/resign", g.o.id),
            Some(&g.o.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let analysis = app
        .get_json(&format!("/v1/games/{}/analysis?ply=1&level=easy", g.x.id))
        .await;
    assert!(analysis["moves"].as_array().is_some(), "{analysis}");
}

#[tokio::test]
async fn a_rated_round_over_on_time_is_never_read_without_its_rating_change() {
    let (app, clock) = app_on_manual_clock("2026-12-02T10:00:00Z").await;
    let g = rated_game(
        &app,
        json!({"kind": "tic_tac_toe", "clock": {"per_move_ms": 5000}}),
    )
    .await;
    app.play_ok(&g.x, cell(1, 1)).await;
    app.play_ok(&g.o, cell(0, 0)).await;
    clock.advance(Duration::from_secs(6));
    let read = app.game(&g.x.id).await;
    assert_eq!(read["end_reason"], "timeout", "{read}");
    assert_eq!(read["winner"], "O");
    assert!(
        read["rating_change"]["O"]["after"].as_f64().unwrap() > 1500.0,
        "{read}"
    );
    let listed = app
        .get_json(&format!("/v1/players/{}/games", g.o_player))
        .await;
    assert_eq!(listed["items"][0]["rating_change"], read["rating_change"]);
    assert_eq!(rated_games(&app, &g.x_player, "tic_tac_toe").await, 1);
}

/// Two accounts one person holds cannot buy a rating through rematches:
/// of the rated rounds the pair begins together, 3 in 24 hours move their
/// ratings; the rest are played unrated, each game saying so from its
/// start (`round_rated: false`), and the window moves on with the clock.
#[tokio::test]
async fn a_pairs_rated_rounds_past_three_a_day_are_played_unrated() {
    let (app, clock) = app_on_manual_clock("2026-12-02T10:00:00Z").await;
    // A per-move clock of three days: a day's wait loses no game on time.
    let terms = json!({"kind": "tic_tac_toe", "clock": {"per_move_ms": 259_200_000}});
    let first = rated_game(&app, terms).await;
    let (xena, otto) = (first.x_player.clone(), first.o_player.clone());
    let mut g = first;
    let mut rated_after = Vec::new();
    for round in 0..8 {
        let before = app.game(&g.x.id).await;
        assert_eq!(before["round_rated"], round < 3, "game {round}: {before}");
        let won = x_wins(&app, &g).await;
        let game = &won["game"];
        assert_eq!(game["rated"], true);
        if round < 3 {
            assert!(game["rating_change"].is_object(), "game {round}: {game}");
        } else {
            assert_eq!(game["rating_change"], Value::Null, "game {round}: {game}");
        }
        rated_after.push((
            rated_games(&app, &xena, "tic_tac_toe").await,
            rated_games(&app, &otto, "tic_tac_toe").await,
        ));
        // The loser asks for the rematch, the winner accepts; the seats
        // swap, so the same account wins again with X.
        let new = app.rematch(&g.o, &g.x).await;
        let id = new["game"]["id"].as_str().unwrap().to_owned();
        g = RatedGame {
            x: Seat {
                id: id.clone(),
                seat: "X".into(),
                token: g.o.token.clone(),
            },
            o: Seat {
                id,
                seat: "O".into(),
                token: g.x.token.clone(),
            },
            x_player: g.o_player.clone(),
            o_player: g.x_player.clone(),
        };
    }
    assert_eq!(rated_after.last(), Some(&(3, 3)), "{rated_after:?}");
    // A day later the pair's rounds count again.
    clock.advance(Duration::from_secs(24 * 3600 + 1));
    let fresh = app.game(&g.x.id).await;
    assert_eq!(
        fresh["round_rated"], false,
        "a round keeps what it began as"
    );
    x_wins(&app, &g).await;
    let next = app.rematch(&g.o, &g.x).await;
    assert_eq!(next["game"]["round_rated"], true, "{next}");
}
