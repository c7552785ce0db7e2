//! Expiry: games left waiting, finished or idle past `--expire-*` are
//! deleted by the sweeper, with `deleted` (`"reason": "expired"`) for their
//! subscribers; a game that changed after it was chosen is left alone. Time
//! is a manual clock moved by hand: no test waits for an age to pass.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::json;
use tabula::Settings;
use tabula::clock::Clock;
use tabula::config::ExpireAfter;
use tabula::service::{ExpiryReason, SWEEP_LIMIT};

use crate::events::Stream;
use crate::helpers::{
    Seat, TestApp, assert_problem, fresh_db, postgres_server, spawn_app_on, spawn_app_with,
};

const HOUR: Duration = Duration::from_hours(1);
const DAY: Duration = Duration::from_hours(24);

/// A manual clock at a whole second of today.
fn manual_clock() -> Clock {
    let now = Utc::now().timestamp();
    Clock::manual(DateTime::from_timestamp(now, 0).unwrap_or_default())
}

fn age(text: &str) -> ExpireAfter {
    text.parse().unwrap()
}

/// The sweeper runs only when a test runs its steps (`sweep_expired`,
/// `expiring`, `expire`), so that what is chosen and when is up to the test.
fn by_hand(settings: &mut Settings, clock: &Clock) {
    settings.clock = clock.clone();
    settings.expire_sweep = Duration::from_hours(1);
}

/// An app with a manual clock whose sweeper runs only by hand.
async fn app_by_hand(clock: &Clock, configure: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_with(|s| {
        by_hand(s, clock);
        configure(s);
    })
    .await
}

/// Whether the game answers (200) or is gone (404).
async fn exists(app: &TestApp, id: &str) -> bool {
    let res = app.get(&format!("/v1/games/{id}")).await;
    match res.status().as_u16() {
        200 => true,
        404 => {
            assert_problem(res, 404, "game_not_found").await;
            false
        }
        other => panic!("GET game answered {other}"),
    }
}

/// The value of `tabula_games_expired_total{reason}`.
async fn expired_metric(app: &TestApp, reason: &str) -> u64 {
    let text = app.get("/metrics").await.text().await.unwrap();
    let series = format!("tabula_games_expired_total{{reason=\"{reason}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series))
        .unwrap_or_else(|| panic!("no {series} in /metrics"))
        .parse()
        .unwrap()
}

/// A hotseat tic-tac-toe game that X has won.
async fn finished_game(app: &TestApp) -> Seat {
    let seat = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    for (row, col) in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)] {
        app.play_ok(&seat, json!({"row": row, "col": col})).await;
    }
    assert_eq!(app.game(&seat.id).await["status"], "won");
    seat
}

async fn delete(app: &TestApp, seat: &Seat) {
    let res = app
        .request(Method::DELETE, &format!("/v1/games/{}", seat.id))
        .bearer_auth(&seat.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
}

#[tokio::test]
async fn a_waiting_game_expires_once_its_age_has_passed_and_not_before() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |_| {}).await;
    let waiting = app.create_kind("connect_four").await;
    let (playing, _) = app.pair("connect_four").await;

    clock.advance(DAY.checked_sub(Duration::from_secs(1)).unwrap());
    assert_eq!(app.service.sweep_expired().await.unwrap(), 0);
    assert!(exists(&app, &waiting.id).await, "expired a second early");

    clock.advance(Duration::from_secs(2));
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(
        !exists(&app, &waiting.id).await,
        "a day and a second waiting"
    );
    assert!(
        exists(&app, &playing.id).await,
        "a game in progress is not waiting"
    );
    let listed = app.get_json("/v1/games?status=waiting").await;
    assert!(listed["items"].as_array().unwrap().is_empty(), "{listed}");
    // Its token no longer plays anything.
    let res = app.play(&waiting, json!({"column": 3})).await;
    assert_problem(res, 404, "game_not_found").await;
    // Nothing more to do.
    assert_eq!(app.service.sweep_expired().await.unwrap(), 0);
}

#[tokio::test]
async fn the_waiting_age_counts_from_the_last_change() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |s| s.expire_waiting = age("1h")).await;
    let waiting = app.create_kind("tic_tac_toe").await;
    clock.advance(HOUR / 2);
    let younger = app.create_kind("tic_tac_toe").await;
    clock.advance(HOUR / 2 + Duration::from_secs(1));
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(!exists(&app, &waiting.id).await);
    assert!(exists(&app, &younger.id).await, "half an hour old");
}

#[tokio::test]
async fn a_finished_game_expires_after_its_age_without_a_change() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |_| {}).await;
    let finished = finished_game(&app).await;
    let (x, _) = app.pair("tic_tac_toe").await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;

    clock.advance((30 * DAY).checked_sub(Duration::from_secs(1)).unwrap());
    assert_eq!(app.service.sweep_expired().await.unwrap(), 0);
    assert!(exists(&app, &finished.id).await, "expired a second early");

    clock.advance(Duration::from_secs(2));
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(!exists(&app, &finished.id).await);
    assert!(
        exists(&app, &x.id).await,
        "an unfinished game is idle, which is off by default"
    );
    assert_eq!(expired_metric(&app, "finished").await, 1);
}

#[tokio::test]
async fn a_restart_keeps_a_finished_game_and_a_drawn_game_expires_too() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |s| s.expire_finished = age("2h")).await;
    let restarted = finished_game(&app).await;
    let drawn = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    for (row, col) in [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 1),
        (1, 0),
        (1, 2),
        (2, 1),
        (2, 0),
        (2, 2),
    ] {
        app.play_ok(&drawn, json!({"row": row, "col": col})).await;
    }
    assert_eq!(app.game(&drawn.id).await["status"], "draw");
    clock.advance(HOUR);
    let res = app
        .post(
            &format!("/v1/games/{}/restart", restarted.id),
            Some(&restarted.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    clock.advance(HOUR + Duration::from_secs(1));
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(!exists(&app, &drawn.id).await, "a draw is finished");
    assert!(
        exists(&app, &restarted.id).await,
        "restarted: in progress, and changed an hour ago"
    );
}

#[tokio::test]
async fn idle_games_never_expire_by_default() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |_| {}).await;
    let (x, _) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;
    let bot = app
        .create(
            json!({"kind": "gomoku", "opponent": {"type": "bot", "level": "random", "seed": 1}}),
        )
        .await;
    clock.advance(3650 * DAY);
    assert_eq!(app.service.sweep_expired().await.unwrap(), 0);
    assert!(exists(&app, &x.id).await);
    assert!(exists(&app, &bot.id).await);
}

#[tokio::test]
async fn an_idle_game_expires_after_expire_idle_since_its_last_move() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |s| s.expire_idle = age("2h")).await;
    let (x, o) = app.pair("connect_four").await;
    let (quiet, _) = app.pair("connect_four").await;
    clock.advance(HOUR);
    app.play_ok(&x, json!({"column": 3})).await;
    clock.advance(HOUR + Duration::from_secs(1));
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(!exists(&app, &quiet.id).await, "two hours without a move");
    assert!(exists(&app, &x.id).await, "its last move was an hour ago");
    clock.advance(HOUR);
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(!exists(&app, &o.id).await);
    assert_eq!(expired_metric(&app, "idle").await, 2);
    assert_eq!(expired_metric(&app, "waiting").await, 0);
}

#[tokio::test]
async fn zero_turns_an_expiry_off() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |s| {
        s.expire_waiting = age("0");
        s.expire_finished = age("0");
        s.expire_idle = age("0");
    })
    .await;
    assert!(app.service.expiry().is_off());
    let waiting = app.create_kind("gomoku").await;
    let finished = finished_game(&app).await;
    let (idle, _) = app.pair("gomoku").await;
    clock.advance(3650 * DAY);
    assert_eq!(app.service.sweep_expired().await.unwrap(), 0);
    for seat in [&waiting, &finished, &idle] {
        assert!(exists(&app, &seat.id).await);
    }

    // One off, the others on.
    let clock = manual_clock();
    let app = app_by_hand(&clock, |s| s.expire_waiting = age("0")).await;
    let waiting = app.create_kind("gomoku").await;
    let finished = finished_game(&app).await;
    clock.advance(3650 * DAY);
    assert_eq!(app.service.sweep_expired().await.unwrap(), 1);
    assert!(
        exists(&app, &waiting.id).await,
        "waiting games never expire"
    );
    assert!(!exists(&app, &finished.id).await);
}

#[tokio::test]
async fn expiry_ages_come_from_the_flags() {
    use clap::Parser;
    let settings = Settings::try_parse_from([
        "tabula",
        "--expire-waiting",
        "15m",
        "--expire-finished",
        "0",
        "--expire-idle",
        "3600",
    ])
    .unwrap();
    let expiry = settings.expiry();
    assert_eq!(expiry.waiting, Some(Duration::from_mins(15)));
    assert_eq!(expiry.finished, None);
    assert_eq!(expiry.idle, Some(HOUR));
    let refused = Settings::try_parse_from(["tabula", "--expire-waiting", "a while"]);
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("--expire-waiting"), "{message}");
}

#[tokio::test]
async fn a_subscriber_gets_deleted_with_the_reason_expired_and_the_stream_ends() {
    let clock = manual_clock();
    // The background sweeper, looking every 20 ms.
    let app = spawn_app_with(|s| {
        s.clock = clock.clone();
        s.expire_sweep = Duration::from_millis(20);
    })
    .await;
    let waiting = app.create_kind("ultimate_tic_tac_toe").await;
    let mut stream = Stream::open(&app, &waiting.id, None).await;
    clock.advance(DAY + Duration::from_secs(1));
    let e = stream.next().await.expect("deleted within 10 s");
    assert_eq!(e.name, "deleted");
    assert_eq!(e.data["type"], "deleted");
    assert_eq!(e.data["reason"], "expired");
    // A version of its own, after the creation's.
    assert_eq!((e.id, &e.data["version"]), (2, &json!(2)));
    assert!(e.data.get("game").is_none());
    assert!(stream.next().await.is_none(), "the stream ends");
    assert!(!exists(&app, &waiting.id).await);
    // A client resuming from before it still learns why.
    let mut resumed = Stream::open(&app, &waiting.id, Some(1)).await;
    let e = resumed.next().await.unwrap();
    assert_eq!(
        (e.name.as_str(), &e.data["reason"]),
        ("deleted", &json!("expired"))
    );
    assert_eq!(expired_metric(&app, "waiting").await, 1);
}

#[tokio::test]
async fn a_delete_by_a_seat_says_so_and_is_not_counted_as_expired() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |_| {}).await;
    let waiting = app.create_kind("connect_four").await;
    let mut stream = Stream::open(&app, &waiting.id, None).await;
    delete(&app, &waiting).await;
    let e = stream.next().await.unwrap();
    assert_eq!(
        (e.name.as_str(), &e.data["reason"]),
        ("deleted", &json!("deleted"))
    );
    clock.advance(DAY * 2);
    assert_eq!(app.service.sweep_expired().await.unwrap(), 0);
    for reason in ["waiting", "finished", "idle"] {
        assert_eq!(expired_metric(&app, reason).await, 0, "{reason}");
    }
}

#[tokio::test]
async fn a_game_that_changes_after_it_was_chosen_is_not_deleted() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |s| s.expire_idle = age("1h")).await;
    let (x, _) = app.pair("connect_four").await;
    let waiting = app.create_kind("connect_four").await;
    clock.advance(DAY + Duration::from_secs(1));

    let chosen = app.service.expiring(SWEEP_LIMIT).await.unwrap();
    let pick = |id: &str| {
        *chosen
            .iter()
            .find(|c| c.id.to_string() == id)
            .unwrap_or_else(|| panic!("{id} not chosen: {chosen:?}"))
    };
    let (idle, open) = (pick(&x.id), pick(&waiting.id));
    assert_eq!(
        (idle.reason, open.reason),
        (ExpiryReason::Idle, ExpiryReason::Waiting)
    );
    assert_eq!((idle.version, open.version), (2, 1));
    // Between the choice and the deletion: a move, a join.
    app.play_ok(&x, json!({"column": 3})).await;
    app.join(&waiting.id).await;

    assert!(
        !app.service.expire(idle).await.unwrap(),
        "deleted after a move"
    );
    assert!(
        !app.service.expire(open).await.unwrap(),
        "deleted after a join"
    );
    let game = app.game(&x.id).await;
    assert_eq!((&game["version"], &game["ply"]), (&json!(3), &json!(1)));
    assert_eq!(app.game(&waiting.id).await["version"], 2);
    // Nothing was deleted, counted or announced; the changes made both games
    // young again.
    assert_eq!(expired_metric(&app, "idle").await, 0);
    assert!(app.service.expiring(SWEEP_LIMIT).await.unwrap().is_empty());
    // Unchanged since it was chosen, a game is deleted; twice is once.
    clock.advance(HOUR + Duration::from_secs(1));
    let again = app.service.expiring(SWEEP_LIMIT).await.unwrap();
    assert_eq!(again.len(), 2, "{again:?}");
    for c in &again {
        assert!(app.service.expire(*c).await.unwrap());
        assert!(!app.service.expire(*c).await.unwrap(), "deleted twice");
    }
    assert!(!exists(&app, &x.id).await);
    assert_eq!(expired_metric(&app, "idle").await, 2);
}

#[tokio::test]
async fn a_game_deleted_by_a_seat_after_it_was_chosen_is_left_alone() {
    let clock = manual_clock();
    let app = app_by_hand(&clock, |_| {}).await;
    let waiting = app.create_kind("gomoku").await;
    clock.advance(DAY * 2);
    let chosen = app.service.expiring(SWEEP_LIMIT).await.unwrap();
    assert_eq!(chosen.len(), 1);
    let mut stream = Stream::open(&app, &waiting.id, None).await;
    delete(&app, &waiting).await;
    assert!(!app.service.expire(chosen[0]).await.unwrap());
    let e = stream.next().await.unwrap();
    assert_eq!(e.data["reason"], "deleted");
    assert!(stream.next().await.is_none(), "one deleted, no second one");
    assert_eq!(expired_metric(&app, "waiting").await, 0);
}

#[tokio::test]
async fn the_background_sweeper_deletes_many_games_and_counts_each() {
    let clock = manual_clock();
    let app = spawn_app_with(|s| {
        s.clock = clock.clone();
        s.expire_sweep = Duration::from_millis(20);
        s.expire_finished = age("1h");
    })
    .await;
    let waiting = join_all((0..20).map(|_| app.create_kind("tic_tac_toe"))).await;
    let finished = finished_game(&app).await;
    clock.advance(DAY + Duration::from_secs(1));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while expired_metric(&app, "waiting").await < 20 || expired_metric(&app, "finished").await < 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "not swept within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for seat in waiting.iter().chain([&finished]) {
        assert!(!exists(&app, &seat.id).await);
    }
    assert_eq!(expired_metric(&app, "waiting").await, 20);
    assert_eq!(expired_metric(&app, "finished").await, 1);
}

/// Two instances on one PostgreSQL database, one clock: both sweep, and each
/// expired game is deleted exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_expire_each_game_exactly_once() {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    let clock = manual_clock();
    let db = fresh_db().await;
    let a = spawn_app_on(db.clone(), |s| by_hand(s, &clock)).await;
    let b = spawn_app_on(db, |s| by_hand(s, &clock)).await;
    let games = join_all((0..12).map(|i| [&a, &b][i % 2].create_kind("connect_four"))).await;
    let mut streams = Vec::new();
    for (i, seat) in games.iter().enumerate() {
        streams.push(Stream::open([&b, &a][i % 2], &seat.id, None).await);
    }
    clock.advance(DAY + Duration::from_secs(1));

    // Both choose every game, then both delete them at once.
    let (on_a, on_b) = (
        a.service.expiring(SWEEP_LIMIT).await.unwrap(),
        b.service.expiring(SWEEP_LIMIT).await.unwrap(),
    );
    assert_eq!((on_a.len(), on_b.len()), (12, 12));
    let deletions = on_a
        .iter()
        .map(|c| a.service.expire(*c))
        .chain(on_b.iter().map(|c| b.service.expire(*c)));
    let deleted: Vec<bool> = join_all(deletions)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(deleted.iter().filter(|&&d| d).count(), 12, "{deleted:?}");
    let counted = expired_metric(&a, "waiting").await + expired_metric(&b, "waiting").await;
    assert_eq!(counted, 12);
    for (seat, stream) in games.iter().zip(&mut streams) {
        let e = stream.next().await.unwrap();
        assert_eq!((e.name.as_str(), e.id), ("deleted", 2));
        assert_eq!(e.data["reason"], "expired");
        assert!(stream.next().await.is_none(), "one deleted, then the end");
        assert!(!exists(&a, &seat.id).await && !exists(&b, &seat.id).await);
    }
}

/// The same with both background sweepers running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sweeping_instances_expire_each_game_exactly_once() {
    if postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    let clock = manual_clock();
    let db = fresh_db().await;
    let sweeping = |s: &mut Settings| {
        s.clock = clock.clone();
        s.expire_sweep = Duration::from_millis(10);
    };
    let a = spawn_app_on(db.clone(), sweeping).await;
    let b = spawn_app_on(db, sweeping).await;
    let games = join_all((0..30).map(|i| [&a, &b][i % 2].create_kind("gomoku"))).await;
    clock.advance(DAY + Duration::from_secs(1));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let counted = expired_metric(&a, "waiting").await + expired_metric(&b, "waiting").await;
        if counted >= 30 {
            assert_eq!(counted, 30, "a game expired twice");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{counted} of 30 in 20 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Nothing left for either, and nothing counted twice since.
    assert_eq!(a.service.sweep_expired().await.unwrap(), 0);
    assert_eq!(b.service.sweep_expired().await.unwrap(), 0);
    for seat in &games {
        assert!(!exists(&a, &seat.id).await);
        let mut stream = Stream::open(&b, &seat.id, Some(1)).await;
        let e = stream.next().await.unwrap();
        assert_eq!((e.id, &e.data["reason"]), (2, &json!("expired")));
        assert!(stream.next().await.is_none(), "deleted once");
    }
    let counted = expired_metric(&a, "waiting").await + expired_metric(&b, "waiting").await;
    assert_eq!(counted, 30);
}
