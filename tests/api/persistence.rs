//! Data survives a restart of the app, and every snapshot equals the replay
//! of its stored moves.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_on};

/// The fields of a game that depend only on the position.
fn position_fields(g: &Value) -> Value {
    json!({
        "board": g["board"], "status": g["status"], "turn": g["turn"], "winner": g["winner"],
        "winning_line": g["winning_line"], "legal_moves": g["legal_moves"], "threats": g["threats"],
        "ply": g["ply"], "ultimate": g["ultimate"],
    })
}

async fn assert_snapshot_equals_replay(app: &TestApp, id: &str) {
    let game = app.game(id).await;
    let ply = game["ply"].as_u64().unwrap();
    let replayed = app
        .get_json(&format!("/v1/games/{id}/positions/{ply}"))
        .await;
    assert_eq!(
        position_fields(&game),
        position_fields(&replayed),
        "game {id}"
    );
}

#[tokio::test]
async fn games_and_moves_survive_a_restart_of_the_app_on_the_same_file() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    for (seat, c) in [(&x, 3), (&o, 4), (&x, 3)] {
        app.play_ok(seat, json!({"column": c})).await;
    }
    let u = app
        .create(json!({"kind": "ultimate_tic_tac_toe", "hotseat": true}))
        .await;
    app.play_ok(&u, json!({"board": 4, "cell": 2})).await;
    let before_c4 = app.game(&x.id).await;
    let before_u = app.game(&u.id).await;
    let db = app.stop().await;

    let app = spawn_app_on(db, |_| {}).await;
    assert_eq!(app.game(&x.id).await, before_c4);
    assert_eq!(app.game(&u.id).await, before_u);
    let history = app.get_json(&format!("/v1/games/{}/moves", x.id)).await;
    assert_eq!(history["items"].as_array().unwrap().len(), 3);
    // The tokens still work, and play goes on.
    let v = app.play_ok(&o, json!({"column": 0})).await;
    assert_eq!(v["game"]["ply"], 4);
    assert_snapshot_equals_replay(&app, &x.id).await;
}

#[tokio::test]
async fn every_snapshot_equals_the_replay_of_its_moves() {
    let app = spawn_app().await;
    for kind in [
        "tic_tac_toe",
        "connect_four",
        "gomoku",
        "ultimate_tic_tac_toe",
    ] {
        let seat = app.create(json!({"kind": kind, "hotseat": true})).await;
        let mut game = app.game(&seat.id).await;
        let mut n = 0;
        while game["status"] == "in_progress" && n < 40 {
            let moves = game["legal_moves"].as_array().unwrap();
            let mv = moves[(n * 7 + 3) % moves.len()].clone();
            game = app.play_ok(&seat, mv).await["game"].clone();
            n += 1;
            assert_snapshot_equals_replay(&app, &seat.id).await;
        }
    }
}
