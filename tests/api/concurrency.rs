//! Many submissions for the same turn: exactly one is accepted.

use futures_util::future::join_all;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn of_many_concurrent_submissions_for_one_turn_exactly_one_is_accepted() {
    let app = spawn_app().await;
    for round in 0..3 {
        let (x, _) = app.pair("connect_four").await;
        let attempts = (0..24).map(|i| app.play(&x, json!({"column": (i + round) % 7})));
        let responses = join_all(attempts).await;
        let mut accepted = 0;
        for res in responses {
            match res.status().as_u16() {
                201 => accepted += 1,
                409 => {
                    let body: serde_json::Value = res.json().await.unwrap();
                    assert_eq!(body["code"], "not_your_turn");
                }
                other => panic!("unexpected status {other}"),
            }
        }
        assert_eq!(accepted, 1);
        let history = app.get_json(&format!("/v1/games/{}/moves", x.id)).await;
        assert_eq!(history["items"].as_array().unwrap().len(), 1);
        assert_eq!(app.game(&x.id).await["version"], 3);
    }
}

#[tokio::test]
async fn concurrent_joins_give_the_seat_to_exactly_one() {
    let app = spawn_app().await;
    let x = app.create_kind("tic_tac_toe").await;
    let path = format!("/v1/games/{}/join", x.id);
    let empty = json!({});
    let joins = (0..16).map(|_| app.post(&path, None, &empty));
    let statuses: Vec<u16> = join_all(joins)
        .await
        .iter()
        .map(|r| r.status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(statuses.iter().all(|&s| s == 200 || s == 409));
}
