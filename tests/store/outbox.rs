//! Webhook events through the store: recorded with their change, claimed
//! once, pruned when done; an endpoint failing too long disabled.

use super::*;

#[tokio::test]
async fn webhook_events_are_recorded_with_their_change_claimed_once_and_pruned_when_done() {
    use tabula::store::{DeliveryState, Outcome};
    let (_dir, _url, store) = open().await;
    store.outbox().set_render(std::sync::Arc::new(Plain));
    let hook = Uuid::now_v7();
    add_hook(&store, hook).await;
    let game = new_game();
    insert(&store, &game).await;
    let none = std::collections::HashSet::new();
    let later = Utc::now() + chrono::Duration::minutes(1);
    let claimed = store
        .claim_deliveries(Utc::now(), later, 10, 2048, &none, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].body, format!("game.created {}", game.id));
    assert_eq!(claimed[0].event_type, "game.created");
    assert_eq!(store.outbox_depth().await.unwrap(), 1);
    // Held by this instance: not claimed again.
    let held: std::collections::HashSet<i64> = [claimed[0].seq].into();
    let again = store
        .claim_deliveries(Utc::now(), later, 10, 2048, &held, &[])
        .await;
    assert!(again.unwrap().is_empty());
    let failed = Outcome::of(
        &claimed[0],
        Utc::now(),
        Some(500),
        Some("the endpoint answered 500".into()),
        DeliveryState::Pending,
        Some(Utc::now()),
    );
    let day_ago = Utc::now() - chrono::Duration::hours(24);
    assert!(!store.record_outcomes(&[failed], day_ago).await.unwrap());
    let retry = store
        .claim_deliveries(Utc::now(), later, 10, 2048, &none, &[])
        .await;
    let retry = retry.unwrap();
    assert_eq!(retry.len(), 1);
    assert_eq!(retry[0].attempts, 1);
    let delivered = Outcome::of(
        &retry[0],
        Utc::now(),
        Some(204),
        None,
        DeliveryState::Delivered,
        None,
    );
    assert!(!store.record_outcomes(&[delivered], day_ago).await.unwrap());
    assert_eq!(store.outbox_depth().await.unwrap(), 0);
    let log = store.webhook_attempts(hook, 10).await.unwrap();
    let log: Vec<(i64, Option<i64>)> = log.iter().map(|a| (a.attempt, a.status)).collect();
    assert_eq!(log, [(2, Some(204)), (1, Some(500))]);
    // Pruned once done: the delivery, its event and the log.
    store.prune_webhooks(later, later).await.unwrap();
    assert!(store.webhook_attempts(hook, 10).await.unwrap().is_empty());
    assert!(
        store
            .claim_deliveries(Utc::now(), later, 10, 2048, &none, &[])
            .await
            .unwrap()
            .is_empty()
    );
}

/// A database written by an earlier build (9c87beb: a webhook, a Connect
/// Four game with four moves and its five events still to deliver, their
/// bodies stored compressed, a player) opens with this one, migrates, and
/// reads the same: the game, its history, the player, and the stored
/// bodies, sent as they were recorded.
#[tokio::test]
async fn a_database_written_by_an_earlier_build_opens_and_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    std::fs::copy("tests/data/store/written-by-9c87beb.db", &path).unwrap();
    let store = Store::open(&format!("sqlite://{}", path.display()), 2)
        .await
        .unwrap();
    store
        .outbox()
        .set_render(std::sync::Arc::new(tabula::api::EventData));
    let id = Uuid::parse_str("01a2338e-5cca-73a9-8a43-4146eb72e610").unwrap();
    let game = store.game(id).await.unwrap().unwrap();
    assert_eq!(game.kind(), GameKind::ConnectFour);
    assert_eq!(game.version, 5);
    let moves = store.moves(id, GameKind::ConnectFour, 1).await.unwrap();
    let columns: Vec<_> = moves.iter().map(|m| (m.ply, m.mv)).collect();
    assert_eq!(
        columns,
        [3, 3, 4, 4]
            .into_iter()
            .zip(1..)
            .map(|(column, ply)| (ply, MoveInput::Column { column }))
            .collect::<Vec<_>>()
    );
    let player = store
        .player("01a2338e-5f96-7235-938b-f59e0cbde9fc")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(player.player.name, "Erin");
    assert_eq!(store.webhooks().await.unwrap().len(), 1);
    assert_eq!(store.outbox_depth().await.unwrap(), 5);
    // The earlier build tried the first event once (nothing listened) and
    // was to try again an hour later.
    let later = Utc::now() + chrono::Duration::hours(2);
    let claimed = store
        .claim_deliveries(
            later,
            later,
            10,
            2048,
            &std::collections::HashSet::new(),
            &[],
        )
        .await
        .unwrap();
    // The game's first event goes first.
    assert_eq!(claimed.len(), 1);
    let body: serde_json::Value = serde_json::from_str(&claimed[0].body).unwrap();
    assert_eq!(body["type"], "game.created");
    assert_eq!(body["data"]["game"]["id"], id.to_string());
    assert_eq!(body["data"]["game"]["version"], 1);
    assert_eq!(claimed[0].attempts, 1);
}

#[tokio::test]
async fn an_endpoint_failing_too_long_is_disabled_and_its_waiting_events_fail_in_time() {
    use tabula::store::{DeliveryState, FAILING_REASON, Outcome};
    let (_dir, _url, store) = open().await;
    store.outbox().set_render(std::sync::Arc::new(Plain));
    let hook = Uuid::now_v7();
    add_hook(&store, hook).await;
    insert(&store, &new_game()).await;
    let none = std::collections::HashSet::new();
    let later = Utc::now() + chrono::Duration::minutes(1);
    let claimed = store
        .claim_deliveries(Utc::now(), later, 10, 2048, &none, &[])
        .await
        .unwrap();
    let failed = Outcome::of(
        &claimed[0],
        Utc::now(),
        None,
        Some("connection refused".into()),
        DeliveryState::Pending,
        Some(Utc::now()),
    );
    // Failing since before the cutoff (here: the future): disabled.
    assert!(store.record_outcomes(&[failed], later).await.unwrap());
    let hook_now = store.webhook(hook).await.unwrap().unwrap();
    assert!(hook_now.disabled);
    assert_eq!(hook_now.disabled_reason.as_deref(), Some(FAILING_REASON));
    // Sent nothing while disabled; its events wait, and are recorded still.
    insert(&store, &new_game()).await;
    assert!(
        store
            .claim_deliveries(Utc::now(), later, 10, 2048, &none, &[])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.outbox_depth().await.unwrap(), 2);
    // Not yet waited long enough: still pending; then failed.
    store
        .fail_disabled(Utc::now() - chrono::Duration::hours(1))
        .await
        .unwrap();
    assert_eq!(store.outbox_depth().await.unwrap(), 2);
    store.fail_disabled(later).await.unwrap();
    assert_eq!(store.outbox_depth().await.unwrap(), 0);
    // Enabled by hand: the reason goes, and new events are sent again.
    let enabled = store
        .set_webhook_disabled(hook, false)
        .await
        .unwrap()
        .unwrap();
    assert!(!enabled.disabled && enabled.disabled_reason.is_none());
    insert(&store, &new_game()).await;
    let claimed = store
        .claim_deliveries(Utc::now(), later, 10, 2048, &none, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
}

/// Deleting an endpoint while games are being written leaves none of its
/// deliveries behind: not those recorded before, nor those of writes that
/// began while it was being deleted (they were left pending for ever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_an_endpoint_drops_its_deliveries_even_those_recorded_meanwhile() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_dir, _url, store) = open().await;
    store.outbox().set_render(Arc::new(Plain));
    let stop = Arc::new(AtomicBool::new(false));
    for round in 0..5 {
        let hook = Uuid::now_v7();
        add_hook(&store, hook).await;
        let writers: Vec<_> = (0..8)
            .map(|_| {
                let (store, stop) = (store.clone(), stop.clone());
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        insert(&store, &new_game()).await;
                    }
                })
            })
            .collect();
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        assert!(store.delete_webhook(hook).await.unwrap());
        // Writes go on after the deletion, then stop.
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.await.unwrap();
        }
        stop.store(false, Ordering::Relaxed);
        assert_eq!(store.outbox_depth().await.unwrap(), 0, "round {round}");
    }
}

/// What another instance recorded for an endpoint deleted meanwhile (here
/// the endpoint's row removed behind this store's back, its deliveries
/// left) is dropped by the later pass the service makes.
#[tokio::test]
async fn deliveries_left_of_a_deleted_endpoint_are_dropped() {
    use sqlx::Connection;
    let (_dir, url, store) = open().await;
    store.outbox().set_render(std::sync::Arc::new(Plain));
    let hook = Uuid::now_v7();
    add_hook(&store, hook).await;
    insert(&store, &new_game()).await;
    insert(&store, &new_game()).await;
    let mut other = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("DELETE FROM webhooks WHERE id = $1")
        .bind(hook.to_string())
        .execute(&mut other)
        .await
        .unwrap();
    other.close().await.unwrap();
    assert_eq!(store.outbox_depth().await.unwrap(), 2);
    store.drop_deliveries(hook).await.unwrap();
    assert_eq!(store.outbox_depth().await.unwrap(), 0);
}

/// Adds an endpoint `hook` for `game.created`, at an address nothing serves.
async fn add_hook(store: &Store, hook: Uuid) {
    store
        .add_webhook(tabula::store::WebhookRecord {
            id: hook,
            url: "http://127.0.0.1:9/".into(),
            events: vec![tabula::domain::webhook::WebhookEvent::GameCreated],
            secret: "whsec_AAAA".into(),
            created_at: Utc::now(),
            disabled: false,
            disabled_reason: None,
        })
        .await
        .unwrap();
}
