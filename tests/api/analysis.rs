//! A game's analysis: every legal move evaluated, best first; the token of
//! the seat to move while the round is in progress; a finished round's
//! positions one by one; the levels each kind lists.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};
use crate::notation::*;

#[tokio::test]
async fn the_analysis_lists_every_legal_move_best_first() {
    let app = spawn_app().await;
    // X holds 1 and 2, O holds 4 and 5: X wins with 3 at once; 6 blocks O;
    // anything else lets O win with 6.
    let created = create_from(
        &app,
        json!({"kind": "tic_tac_toe", "moves": "1425", "hotseat": true}),
    )
    .await;
    let seat = seat(&created);
    for level in ["easy", "medium", "hard", "perfect"] {
        let res = analysis(&app, &seat.id, level, Some(&seat.token)).await;
        assert_eq!(res.status(), 200, "{level}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["level"], level);
        let moves = body["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 5, "{body}");
        assert_eq!(
            moves[0]["move"],
            json!({"row": 0, "col": 2}),
            "{level}: {body}"
        );
        assert_eq!(
            moves[0]["evaluation"],
            json!({"score": 1000, "outcome": "win", "plies": 1}),
            "{level}"
        );
        let last = &moves[4]["evaluation"];
        assert_eq!(
            (last["outcome"].clone(), last["plies"].clone()),
            (json!("loss"), json!(2))
        );
        let scores: Vec<i64> = moves
            .iter()
            .map(|m| m["evaluation"]["score"].as_i64().unwrap())
            .collect();
        assert!(scores.is_sorted_by(|a, b| a >= b), "{level}: {scores:?}");
        let mut listed: Vec<Value> = moves.iter().map(|m| m["move"].clone()).collect();
        let mut legal = created["game"]["legal_moves"].as_array().unwrap().clone();
        listed.sort_by_key(Value::to_string);
        legal.sort_by_key(Value::to_string);
        assert_eq!(listed, legal);
    }
    // `perfect` proves every move; the block leads to a draw.
    let res = analysis(&app, &seat.id, "perfect", Some(&seat.token)).await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["exact"], true);
    assert_eq!(body["moves"][1]["move"], json!({"row": 1, "col": 2}));
    assert_eq!(body["moves"][1]["evaluation"]["outcome"], "draw");
    // Nothing was played.
    assert_eq!(
        app.game(&seat.id).await["version"],
        created["game"]["version"]
    );
}

#[tokio::test]
async fn the_documented_analysis_example_is_what_the_server_answers() {
    let app = spawn_app().await;
    let created = create_from(
        &app,
        json!({"kind": "tic_tac_toe", "moves": "1425", "hotseat": true}),
    )
    .await;
    let seat = seat(&created);
    let res = analysis(&app, &seat.id, "easy", Some(&seat.token)).await;
    let body: Value = res.json().await.unwrap();
    let doc = tabula::api::document();
    let example = &doc["components"]["schemas"]["AnalysisView"]["example"];
    assert_eq!(&body, example);
}

#[tokio::test]
async fn the_analysis_needs_the_token_to_move_while_the_round_is_in_progress() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    let res = analysis(&app, &x.id, "medium", None).await;
    assert_problem(res, 401, "missing_token").await;
    let other = app.create_kind("connect_four").await;
    let res = analysis(&app, &x.id, "medium", Some(&other.token)).await;
    assert_problem(res, 403, "invalid_token").await;
    let res = analysis(&app, &x.id, "medium", Some(&o.token)).await;
    let body = assert_problem(res, 409, "not_your_turn").await;
    assert_eq!(body["turn"], "X");
    let res = analysis(&app, &x.id, "medium", Some(&x.token)).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["moves"].as_array().unwrap().len(), 7);
    // While a seat is open, as for a hint.
    let waiting = app.create_kind("connect_four").await;
    let res = analysis(&app, &waiting.id, "medium", Some(&waiting.token)).await;
    assert_problem(res, 409, "waiting_for_opponent").await;
    // A level the kind does not offer.
    let gomoku = app.create(json!({"kind": "gomoku", "hotseat": true})).await;
    let res = analysis(&app, &gomoku.id, "perfect", Some(&gomoku.token)).await;
    assert_problem(res, 422, "invalid_option").await;
    let res = analysis(&app, &gomoku.id, "godlike", Some(&gomoku.token)).await;
    assert_problem(res, 400, "malformed_request").await;
}

#[tokio::test]
async fn a_finished_rounds_positions_are_analyzed_one_by_one_without_a_token() {
    let app = spawn_app().await;
    // X: 1, O: 2, X: 3, O: 7?? (only the centre holds the draw), then X
    // wins with 9, O 4, X 5.
    let won = create_from(&app, json!({"kind": "tic_tac_toe", "moves": "1237945"})).await;
    let id = won["game"]["id"].as_str().unwrap();
    let at = |ply: &str| format!("/v1/games/{id}/analysis?level=perfect&ply={ply}");
    // After 3 moves O must take the centre; O played 7 instead.
    let body = app.get_json(&at("3")).await;
    assert_eq!(body["exact"], true, "{body}");
    let moves = body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6, "{body}");
    assert_eq!(moves[0]["move"], json!({"row": 1, "col": 1}));
    assert_eq!(moves[0]["evaluation"]["outcome"], "draw");
    let played = moves
        .iter()
        .find(|m| m["move"] == json!({"row": 2, "col": 0}))
        .unwrap();
    assert_eq!(played["evaluation"]["outcome"], "loss", "{body}");
    // The first position: nine moves; the last one (the win): none.
    let first = app.get_json(&at("0")).await;
    assert_eq!(first["moves"].as_array().unwrap().len(), 9);
    let last = app.get_json(&at("7")).await;
    assert_eq!(last["moves"], json!([]));
    let res = app.get(&at("8")).await;
    assert_problem(res, 404, "position_not_found").await;
    let res = app
        .get(&format!("/v1/games/{id}/analysis?ply=1&round=2"))
        .await;
    assert_problem(res, 404, "position_not_found").await;
    let (x, o) = app.pair("tic_tac_toe").await;
    for (seat, cell) in [(&x, 0), (&o, 4)] {
        let res = app
            .post(
                &format!("/v1/games/{}/moves", x.id),
                Some(&seat.token),
                &json!({"row": cell / 3, "col": cell % 3}),
            )
            .await;
        assert_eq!(res.status(), 201);
    }
    // While the round is in progress, even its earlier positions ask for
    // the seat to move.
    let early = format!("/v1/games/{}/analysis?ply=1", x.id);
    assert_problem(app.get(&early).await, 401, "missing_token").await;
    let res = app
        .request(Method::GET, &early)
        .bearer_auth(&o.token)
        .send()
        .await
        .unwrap();
    assert_problem(res, 409, "not_your_turn").await;
    let res = app
        .request(Method::GET, &early)
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["moves"].as_array().unwrap().len(), 8, "{body}");
}

#[tokio::test]
async fn the_analysis_of_a_finished_round_needs_no_token_and_lists_no_move() {
    let app = spawn_app().await;
    let won = create_from(&app, json!({"kind": "tic_tac_toe", "moves": "14253"})).await;
    let id = won["game"]["id"].as_str().unwrap();
    let res = analysis(&app, id, "hard", None).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body, json!({"level": "hard", "exact": true, "moves": []}));
    // Also after a resignation, whose position still has legal moves.
    let (x, _o) = app.pair("connect_four").await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&x.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let res = analysis(&app, &x.id, "medium", None).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["moves"], json!([]));
    // The level is still checked.
    let res = analysis(&app, &x.id, "perfect", None).await;
    assert_eq!(res.status(), 200);
    let gomoku = create_from(
        &app,
        json!({"kind": "gomoku", "options": {"size": 5}, "moves": "a1 a2 b1 b2 c1 c2 d1 d2 e1"}),
    )
    .await;
    assert_eq!(gomoku["game"]["status"], "won");
    let id = gomoku["game"]["id"].as_str().unwrap();
    let res = analysis(&app, id, "perfect", None).await;
    assert_problem(res, 422, "invalid_option").await;
}

#[tokio::test]
async fn kinds_list_the_levels_they_offer() {
    let app = spawn_app().await;
    let kinds = app.get_json("/v1/kinds").await;
    let levels = |kind: &str| {
        kinds["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kind"] == kind)
            .map(|k| k["levels"].clone())
            .unwrap()
    };
    let all = json!(["random", "easy", "medium", "hard", "perfect"]);
    let unsolved = json!(["random", "easy", "medium", "hard"]);
    assert_eq!(levels("tic_tac_toe"), all);
    assert_eq!(levels("connect_four"), all);
    assert_eq!(levels("gomoku"), unsolved);
    assert_eq!(levels("ultimate_tic_tac_toe"), unsolved);
    // What a kind lists, a bot of it takes; what it does not, a bot refuses.
    for item in kinds["items"].as_array().unwrap() {
        let kind = item["kind"].as_str().unwrap();
        for level in all.as_array().unwrap() {
            let offered = item["levels"].as_array().unwrap().contains(level);
            let res = app
                .post(
                    "/v1/games",
                    None,
                    &json!({"kind": kind, "opponent": {"type": "bot", "level": level}, "seat": "O"}),
                )
                .await;
            let status = res.status().as_u16();
            assert_eq!(status == 201, offered, "{kind} {level}: {status}");
        }
    }
}
