//! The leaderboard (players no longer provisional, best first) and rated
//! quick match (the nearest rating within the window).

use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app_with};
use crate::players::*;

#[tokio::test]
async fn the_leaderboard_lists_players_who_are_no_longer_provisional_best_first() {
    // Two players' rated rounds together count 3 times in 24 hours: the
    // clock moves on 8 hours and a minute after each game.
    let (app, clock) = app_on_manual_clock("2026-12-02T10:00:00Z").await;
    let (ann, ann_key) = new_player(&app, "Ann").await;
    let (bob, bob_key) = new_player(&app, "Bob").await;
    let board = |limit: &str| {
        let app = &app;
        let path = format!("/v1/kinds/tic_tac_toe/leaderboard{limit}");
        async move { app.get_json(&path).await }
    };
    let mut played = 0;
    // Ann wins two games of three; until their deviations fall to 110 the
    // board is empty.
    while player(&app, &ann).await["ratings"]["tic_tac_toe"]["provisional"] != false {
        assert_eq!(board("").await["items"], json!([]));
        if played > 0 {
            // Asked for, the provisional ones are listed, marked so.
            let all = board("?provisional=true").await["items"].clone();
            assert_eq!(all.as_array().unwrap().len(), 2, "{all}");
            assert_eq!(all[0]["provisional"], true);
        }
        let x = create_as(
            &app,
            &ann_key,
            json!({"kind": "tic_tac_toe", "rated": true, "clock": {"per_move_ms": 86_400_000}}),
        )
        .await;
        let o = join_as(&app, &x.id, &bob_key).await;
        let g = RatedGame {
            x: with_key(&x, &ann_key),
            o: with_key(&o, &bob_key),
            x_player: ann.clone(),
            o_player: bob.clone(),
        };
        if played % 3 == 2 {
            app.play_ok(&g.x, cell(2, 2)).await;
            app.play_ok(&g.o, cell(0, 0)).await;
            let res = app
                .post(
                    &format!("/v1/games/{}/resign", g.x.id),
                    Some(&g.x.token),
                    &json!({}),
                )
                .await;
            assert_eq!(res.status(), 200);
        } else {
            x_wins(&app, &g).await;
        }
        played += 1;
        clock.advance(std::time::Duration::from_mins(8 * 60 + 1));
        assert!(played < 60, "deviations never fell to 110");
    }
    let items = board("").await["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 2, "{items}");
    assert_eq!(items[0]["player"], ann);
    assert_eq!(items[0]["name"], "Ann");
    assert_eq!(items[1]["player"], bob);
    assert_eq!(items[0]["games"], played);
    assert!(items[0]["rating"].as_f64().unwrap() > items[1]["rating"].as_f64().unwrap());
    assert!(items[0]["deviation"].as_f64().unwrap() <= 110.0);
    assert_eq!(items[0]["provisional"], false);
    // A newcomer with one rated game: after the settled players, with
    // `provisional=true` only.
    let (cy, cy_key) = new_player(&app, "Cy").await;
    let x = create_as(
        &app,
        &cy_key,
        json!({"kind": "tic_tac_toe", "rated": true, "clock": {"per_move_ms": 86_400_000}}),
    )
    .await;
    let o = join_as(&app, &x.id, &bob_key).await;
    x_wins(
        &app,
        &RatedGame {
            x: with_key(&x, &cy_key),
            o: with_key(&o, &bob_key),
            x_player: cy.clone(),
            o_player: bob.clone(),
        },
    )
    .await;
    assert_eq!(board("").await["items"].as_array().unwrap().len(), 2);
    let all = board("?provisional=true").await["items"].clone();
    assert_eq!(all.as_array().unwrap().len(), 3, "{all}");
    assert_eq!(
        (&all[2]["player"], &all[2]["provisional"]),
        (&json!(cy), &json!(true))
    );
    assert_eq!(
        board("?limit=1").await["items"].as_array().unwrap().len(),
        1
    );
    assert_eq!(
        app.get_json("/v1/kinds/connect_four/leaderboard").await["items"],
        json!([])
    );
    let unknown = assert_problem(
        app.get("/v1/kinds/chess/leaderboard").await,
        404,
        "not_found",
    )
    .await;
    let detail = unknown["detail"].as_str().unwrap();
    assert!(
        detail.contains("`chess`") && detail.contains("`ultimate_tic_tac_toe`"),
        "{detail}"
    );
    assert_problem(
        app.get("/v1/kinds/tic_tac_toe/leaderboard?limit=0").await,
        400,
        "malformed_request",
    )
    .await;
}

#[tokio::test]
async fn rated_quick_match_seats_the_nearest_rating_within_the_window() {
    let app = spawn_app_with(|s| s.match_window = 100).await;
    // Ann wins a rated game: about 1662.
    let first = rated_game(&app, json!({"kind": "connect_four"})).await;
    for _ in 0..3 {
        app.play_ok(&first.x, json!({"column": 0})).await;
        app.play_ok(&first.o, json!({"column": 1})).await;
    }
    app.play_ok(&first.x, json!({"column": 0})).await;
    let ann_key = first.x.token.clone();
    let quick = |key: Option<String>, rated: bool| {
        let app = &app;
        async move {
            let res = app
                .post(
                    "/v1/matches",
                    key.as_deref(),
                    &json!({"kind": "connect_four", "rated": rated, "clock": if rated { json!({"per_move_ms": 86_400_000}) } else { Value::Null }}),
                )
                .await;
            let status = res.status();
            let v: Value = res.json().await.unwrap();
            assert_eq!(status, 200, "{v}");
            v
        }
    };
    assert_problem(
        app.post(
            "/v1/matches",
            None,
            &json!({"kind": "connect_four", "rated": true}),
        )
        .await,
        401,
        "player_required",
    )
    .await;
    let ann_waits = quick(Some(ann_key.clone()), true).await;
    assert_eq!(ann_waits["game"]["status"], "waiting");
    assert_eq!(ann_waits["game"]["rated"], true);
    // An unrated match never takes a rated game.
    let unrated = quick(None, false).await;
    assert_eq!(unrated["game"]["status"], "waiting");
    assert_ne!(unrated["game"]["id"], ann_waits["game"]["id"]);
    // A newcomer (1500) is 162 points from Ann: beyond the window of 100.
    let (_, cy_key) = new_player(&app, "Cy").await;
    let cy = quick(Some(cy_key), true).await;
    assert_eq!(cy["game"]["status"], "waiting");
    assert_ne!(cy["game"]["id"], ann_waits["game"]["id"]);
    // Another newcomer is seated with the nearest: Cy.
    let (di, di_key) = new_player(&app, "Di").await;
    let di_seat = quick(Some(di_key.clone()), true).await;
    assert_eq!(di_seat["game"]["id"], cy["game"]["id"]);
    assert_eq!(di_seat["game"]["status"], "in_progress");
    assert_eq!(di_seat["game"]["seats"]["O"]["player"], di);
    // Ann asking again gets her own game back.
    let again = quick(Some(ann_key), true).await;
    assert_eq!(again["game"]["id"], ann_waits["game"]["id"]);
}
