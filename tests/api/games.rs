//! Creating, joining, reading, listing, restarting, resigning and deleting games.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};

const KINDS: [&str; 4] = [
    "tic_tac_toe",
    "connect_four",
    "gomoku",
    "ultimate_tic_tac_toe",
];

#[tokio::test]
async fn kinds_lists_the_four_games_with_their_sizes() {
    let app = spawn_app().await;
    let v = app.get_json("/v1/kinds").await;
    let items = v["items"].as_array().unwrap();
    let kinds: Vec<_> = items.iter().map(|k| k["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, KINDS);
    assert_eq!(items[1]["rows"], 6);
    assert_eq!(items[1]["columns"], 7);
    assert_eq!(items[1]["move"], "column");
    assert_eq!(
        items[2]["options"]["size"],
        json!({"min": 5, "max": 25, "default": 15})
    );
    assert_eq!(items[3]["rows"], 9);
}

#[tokio::test]
async fn create_returns_201_with_location_etag_seat_and_token() {
    let app = spawn_app().await;
    let res = app
        .post("/v1/games", None, &json!({"kind": "connect_four"}))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let v: Value = res.json().await.unwrap();
    let id = v["game"]["id"].as_str().unwrap();
    assert_eq!(location, format!("/v1/games/{id}"));
    assert_eq!(etag, "\"1\"");
    assert_eq!(v["seat"], "X");
    assert_eq!(v["token"].as_str().unwrap().len(), 64, "256 bits, hex");
    let g = &v["game"];
    assert_eq!(g["status"], "waiting");
    assert_eq!(g["turn"], "X");
    assert_eq!(g["options"], json!({"rows": 6, "columns": 7}));
    assert_eq!(g["board"].as_array().unwrap().len(), 6);
    assert_eq!(g["board"][0], ".......");
    assert_eq!(
        g["seats"]["X"],
        json!({"type": "human", "taken": true, "name": null, "player": null})
    );
    assert_eq!(
        g["seats"]["O"],
        json!({"type": "human", "taken": false, "name": null, "player": null})
    );
    assert_eq!(g["visibility"], "public");
    assert_eq!(g["offer"], Value::Null);
    assert_eq!(g["clock"], Value::Null);
    assert_eq!(g["legal_moves"].as_array().unwrap().len(), 7);
    assert_eq!(g["round"], 1);
    assert_eq!(g["ply"], 0);
    assert_eq!(g["version"], 1);
    assert!(g["ultimate"].is_null());
    assert!(g["winning_line"].is_null());
}

#[tokio::test]
async fn each_kind_can_be_created_and_read_back() {
    let app = spawn_app().await;
    for kind in KINDS {
        let seat = app.create_kind(kind).await;
        let g = app.game(&seat.id).await;
        assert_eq!(g["kind"], kind);
        assert_eq!(g["id"], seat.id.as_str());
    }
    let u = app.create_kind("ultimate_tic_tac_toe").await;
    let g = app.game(&u.id).await;
    assert_eq!(g["board"].as_array().unwrap().len(), 9);
    assert_eq!(
        g["ultimate"]["boards"],
        json!([null, null, null, null, null, null, null, null, null])
    );
    assert!(g["ultimate"]["active_board"].is_null());
    assert_eq!(g["legal_moves"].as_array().unwrap().len(), 81);
}

#[tokio::test]
async fn gomoku_options_are_applied_and_echoed() {
    let app = spawn_app().await;
    let seat = app
        .create(json!({"kind": "gomoku", "options": {"size": 9, "rule": "standard"}}))
        .await;
    let g = app.game(&seat.id).await;
    assert_eq!(
        g["options"],
        json!({"rows": 9, "columns": 9, "size": 9, "rule": "standard"})
    );
    assert_eq!(g["board"].as_array().unwrap().len(), 9);
    assert_eq!(g["legal_moves"].as_array().unwrap().len(), 81);
}

#[tokio::test]
async fn join_takes_the_open_seat_and_starts_the_game() {
    let app = spawn_app().await;
    let x = app.create_kind("tic_tac_toe").await;
    let res = app
        .post(&format!("/v1/games/{}/join", x.id), None, &json!({}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["etag"], "\"2\"");
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["seat"], "O");
    assert_ne!(v["token"], x.token.as_str());
    assert_eq!(v["game"]["status"], "in_progress");
    assert_eq!(v["game"]["version"], 2);
    assert_eq!(v["game"]["seats"]["O"]["taken"], true);
}

#[tokio::test]
async fn a_creator_may_take_seat_o_and_the_joiner_gets_x() {
    let app = spawn_app().await;
    let o = app
        .create(json!({"kind": "tic_tac_toe", "seat": "O"}))
        .await;
    assert_eq!(o.seat, "O");
    let x = app.join(&o.id).await;
    assert_eq!(x.seat, "X");
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    app.play_ok(&o, json!({"row": 0, "col": 0})).await;
}

#[tokio::test]
async fn a_full_game_of_each_kind_reaches_its_end() {
    let app = spawn_app().await;
    for kind in KINDS {
        let seat = app.create(json!({"kind": kind, "hotseat": true})).await;
        let mut game = app.game(&seat.id).await;
        let mut plies = 0;
        while game["status"] == "in_progress" {
            // Always the first legal move: a deterministic game to its end.
            let mv = game["legal_moves"][0].clone();
            let v = app.play_ok(&seat, mv.clone()).await;
            plies += 1;
            assert_eq!(v["move"]["ply"], plies);
            assert_eq!(v["move"]["move"], mv);
            game = v["game"].clone();
        }
        assert!(
            game["status"] == "won" || game["status"] == "draw",
            "{kind}: {game}"
        );
        assert!(game["turn"].is_null());
        assert_eq!(game["legal_moves"], json!([]));
        assert_eq!(game["threats"], json!([]));
        if game["status"] == "won" {
            assert_eq!(game["end_reason"], "line");
            assert!(!game["winning_line"].as_array().unwrap().is_empty());
            assert!(game["winner"] == "X" || game["winner"] == "O");
        } else {
            assert_eq!(game["end_reason"], "full_board");
        }
        let history = app.get_json(&format!("/v1/games/{}/moves", seat.id)).await;
        assert_eq!(history["items"].as_array().unwrap().len(), plies);
    }
}

#[tokio::test]
async fn tic_tac_toe_win_reports_winner_and_line() {
    let app = spawn_app().await;
    let (x, o) = app.pair("tic_tac_toe").await;
    for (seat, r, c) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1)] {
        app.play_ok(seat, json!({"row": r, "col": c})).await;
    }
    let g = app.game(&x.id).await;
    assert_eq!(
        g["threats"],
        json!([{"player": "X", "move": {"row": 0, "col": 2}}, {"player": "O", "move": {"row": 1, "col": 2}}])
    );
    let v = app.play_ok(&x, json!({"row": 0, "col": 2})).await;
    let g = &v["game"];
    assert_eq!(g["status"], "won");
    assert_eq!(g["winner"], "X");
    assert_eq!(g["end_reason"], "line");
    assert_eq!(
        g["winning_line"],
        json!([{"row": 0, "col": 0}, {"row": 0, "col": 1}, {"row": 0, "col": 2}])
    );
    assert_eq!(g["board"], json!(["XXX", "OO.", "..."]));
}

#[tokio::test]
async fn resign_gives_the_win_to_the_other_seat() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&o.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let g: Value = res.json().await.unwrap();
    assert_eq!(g["status"], "won");
    assert_eq!(g["winner"], "X");
    assert_eq!(g["end_reason"], "resignation");
    assert!(g["winning_line"].is_null());
    assert!(g["turn"].is_null());
    let again = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&x.token),
            &json!({}),
        )
        .await;
    assert_problem(again, 409, "game_over").await;
}

#[tokio::test]
async fn restart_begins_a_new_round_and_old_rounds_stay_readable() {
    let app = spawn_app().await;
    let (x, o) = app.pair("tic_tac_toe").await;
    app.play_ok(&x, json!({"row": 0, "col": 0})).await;
    app.play_ok(&o, json!({"row": 1, "col": 1})).await;
    // Between two people a new round needs both, during the round and
    // after it (a restart alone could start a second game beside a rematch).
    let path = format!("/v1/games/{}/restart", x.id);
    let res = app.post(&path, Some(&o.token), &json!({})).await;
    assert_problem(res, 409, "agreement_required").await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&x.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = app.post(&path, Some(&o.token), &json!({})).await;
    assert_problem(res, 409, "agreement_required").await;
    let g = app.new_round(&o, &x).await;
    assert_eq!(g["round"], 2);
    assert_eq!(g["ply"], 0);
    assert_eq!(g["version"], 7);
    assert_eq!(g["board"], json!(["...", "...", "..."]));
    assert_eq!(g["turn"], "X");
    app.play_ok(&x, json!({"row": 2, "col": 2})).await;
    let old = app
        .get_json(&format!("/v1/games/{}/moves?round=1", x.id))
        .await;
    assert_eq!(old["items"].as_array().unwrap().len(), 2);
    assert_eq!(old["items"][1]["move"], json!({"row": 1, "col": 1}));
    assert_eq!(old["items"][1]["player"], "O");
    assert_eq!(old["items"][1]["round"], 1);
    let current = app.get_json(&format!("/v1/games/{}/moves", x.id)).await;
    assert_eq!(current["items"].as_array().unwrap().len(), 1);
    assert_eq!(current["items"][0]["round"], 2);
    let pos = app
        .get_json(&format!("/v1/games/{}/positions/2?round=1", x.id))
        .await;
    assert_eq!(pos["board"], json!(["X..", ".O.", "..."]));
    let missing = app.get(&format!("/v1/games/{}/moves?round=3", x.id)).await;
    assert_problem(missing, 404, "position_not_found").await;
}

#[tokio::test]
async fn list_filters_by_kind_status_and_open_seat_and_pages() {
    let app = spawn_app().await;
    let a = app.create_kind("tic_tac_toe").await;
    let (b, _) = app.pair("tic_tac_toe").await;
    let c = app.create_kind("gomoku").await;
    let all = app.get_json("/v1/games").await;
    let ids: Vec<_> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        ids,
        [c.id.clone(), b.id.clone(), a.id.clone()],
        "newest first"
    );
    assert!(all["next_cursor"].is_null());
    let ttt = app.get_json("/v1/games?kind=tic_tac_toe").await;
    assert_eq!(ttt["items"].as_array().unwrap().len(), 2);
    let open = app.get_json("/v1/games?open=true&kind=tic_tac_toe").await;
    assert_eq!(open["items"].as_array().unwrap().len(), 1);
    assert_eq!(open["items"][0]["id"], a.id.as_str());
    let playing = app.get_json("/v1/games?status=in_progress").await;
    assert_eq!(playing["items"].as_array().unwrap().len(), 1);
    assert_eq!(playing["items"][0]["id"], b.id.as_str());
    let page1 = app.get_json("/v1/games?limit=2").await;
    assert_eq!(page1["items"].as_array().unwrap().len(), 2);
    let cursor = page1["next_cursor"].as_str().unwrap().to_owned();
    let page2 = app
        .get_json(&format!("/v1/games?limit=2&cursor={cursor}"))
        .await;
    assert_eq!(page2["items"].as_array().unwrap().len(), 1);
    assert_eq!(page2["items"][0]["id"], a.id.as_str());
    assert!(page2["next_cursor"].is_null());
}

#[tokio::test]
async fn delete_removes_the_game_and_its_history() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 0})).await;
    let delete = || {
        app.request(Method::DELETE, &format!("/v1/games/{}", x.id))
            .bearer_auth(&o.token)
            .send()
    };
    // A round in progress between two people: not alone.
    assert_problem(delete().await.unwrap(), 409, "agreement_required").await;
    assert_eq!(app.game(&x.id).await["version"], 3, "nothing changed");
    let res = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&o.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = delete().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_problem(
        app.get(&format!("/v1/games/{}", x.id)).await,
        404,
        "game_not_found",
    )
    .await;
    assert_problem(
        app.get(&format!("/v1/games/{}/moves", x.id)).await,
        404,
        "game_not_found",
    )
    .await;
}

#[tokio::test]
async fn hotseat_token_plays_both_seats() {
    let app = spawn_app().await;
    let seat = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    let g = app.game(&seat.id).await;
    assert_eq!(g["status"], "in_progress");
    let v = app.play_ok(&seat, json!({"row": 0, "col": 0})).await;
    assert_eq!(v["move"]["player"], "X");
    let v = app.play_ok(&seat, json!({"row": 1, "col": 1})).await;
    assert_eq!(v["move"]["player"], "O");
}
