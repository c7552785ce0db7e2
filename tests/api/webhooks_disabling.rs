//! Webhook endpoints disabled by the operator or by the service (every
//! delivery failed for `--webhook-disable-after`), and enabled again.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app_with};
use crate::receiver::Receiver;
use crate::webhooks::{KEY, admin_get, quick_then_patient, register, webhooks_on, with_webhooks};

#[tokio::test]
async fn a_disabled_endpoint_is_sent_nothing_until_enabled_again() {
    let app = with_webhooks("1h").await;
    let receiver = Receiver::start().await;
    let hook = register(&app, &receiver.url, &["game.created"]).await;
    let id = hook["webhook"]["id"].as_str().unwrap().to_owned();
    assert_eq!(hook["webhook"]["disabled_reason"], Value::Null);
    let patch = |disabled: bool| {
        app.request(Method::PATCH, &format!("/v1/webhooks/{id}"))
            .bearer_auth(KEY)
            .json(&json!({"disabled": disabled}))
            .send()
    };
    let res = patch(true).await.unwrap();
    assert_eq!(res.status(), 200);
    let view: Value = res.json().await.unwrap();
    assert_eq!(view["disabled"], true);
    let made = app.create_kind("tic_tac_toe").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        receiver.delivered().is_empty(),
        "sent to a disabled endpoint"
    );
    let listed = admin_get(&app, "/v1/webhooks").await;
    assert_eq!(listed["items"][0]["disabled"], true);
    // Enabled: the event that waited comes.
    let view: Value = patch(false).await.unwrap().json().await.unwrap();
    assert_eq!(view["disabled"], false);
    let got = receiver.wait_delivered(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].json()["data"]["game"]["id"], made.id.as_str());
    // Refusals: no such endpoint, a body of another shape, no key.
    let res = app
        .request(
            Method::PATCH,
            &format!("/v1/webhooks/{}", uuid::Uuid::now_v7()),
        )
        .bearer_auth(KEY)
        .json(&json!({"disabled": true}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 404, "webhook_not_found").await;
    let res = app
        .request(Method::PATCH, &format!("/v1/webhooks/{id}"))
        .bearer_auth(KEY)
        .json(&json!({"disabled": "yes"}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "malformed_request").await;
    let res = app
        .request(Method::PATCH, &format!("/v1/webhooks/{id}"))
        .json(&json!({"disabled": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

#[tokio::test]
async fn an_endpoint_whose_deliveries_all_fail_for_the_set_time_is_disabled() {
    let app = spawn_app_with(|s| {
        webhooks_on(&quick_then_patient(3))(s);
        s.webhook_disable_after = Duration::from_secs(1);
    })
    .await;
    // Nothing listens there.
    let hook = register(&app, "http://127.0.0.1:9/hook", &["game.created"]).await;
    let id = hook["webhook"]["id"].as_str().unwrap().to_owned();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        app.create_kind("tic_tac_toe").await;
        let view = admin_get(&app, "/v1/webhooks").await["items"][0].clone();
        if view["disabled"] == true {
            assert!(
                view["disabled_reason"].as_str().unwrap().contains("failed"),
                "{view}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never disabled: {view}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let attempts = admin_get(&app, &format!("/v1/webhooks/{id}/deliveries")).await;
    assert!(!attempts["items"].as_array().unwrap().is_empty());
}
