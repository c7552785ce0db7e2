//! Server-Sent Events: live changes, resumption with `Last-Event-ID`,
//! heartbeats and the end of the stream on delete.

use std::time::Duration;

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_with};

/// One parsed event.
#[derive(Debug)]
pub struct Event {
    pub name: String,
    pub id: i64,
    pub data: Value,
}

/// Reads an event stream as it arrives.
pub struct Stream {
    res: Response,
    buf: String,
    /// The `state` event a stream opened without `Last-Event-ID` starts with.
    pub state: Option<Event>,
}

impl Stream {
    /// Opens the stream; without `last_event_id` its first event, `state`,
    /// is read here (into `state`), so that `next` reads the changes.
    pub async fn open(app: &TestApp, id: &str, last_event_id: Option<i64>) -> Stream {
        let mut req = app.request(Method::GET, &format!("/v1/games/{id}/events"));
        if let Some(n) = last_event_id {
            req = req.header("Last-Event-ID", n.to_string());
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-type"], "text/event-stream");
        let mut stream = Stream {
            res,
            buf: String::new(),
            state: None,
        };
        if last_event_id.is_none() {
            let state = stream.next().await.expect("the state first");
            assert_eq!(state.name, "state");
            assert_eq!(state.data["id"], id);
            assert_eq!(json!(state.id), state.data["version"]);
            stream.state = Some(state);
        }
        stream
    }

    /// Opens the stream at `path` (a tournament's too), reading nothing yet.
    pub async fn open_path(app: &TestApp, path: &str, last_event_id: Option<i64>) -> Stream {
        let mut req = app.request(Method::GET, path);
        if let Some(n) = last_event_id {
            req = req.header("Last-Event-ID", n.to_string());
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 200);
        Stream {
            res,
            buf: String::new(),
            state: None,
        }
    }

    /// Opens the stream at `path` with `token` as the bearer, reading
    /// nothing yet.
    pub async fn open_as(
        app: &TestApp,
        path: &str,
        token: &str,
        last_event_id: Option<i64>,
    ) -> Stream {
        let mut req = app.request(Method::GET, path).bearer_auth(token);
        if let Some(n) = last_event_id {
            req = req.header("Last-Event-ID", n.to_string());
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-type"], "text/event-stream");
        Stream {
            res,
            buf: String::new(),
            state: None,
        }
    }

    /// The next raw block (event or comment), or None when the stream ended.
    pub async fn block(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block = self.buf[..end].to_owned();
                self.buf.drain(..end + 2);
                return Some(block);
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.res.chunk())
                .await
                .expect("an event within 10 s")
                .unwrap()?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next event, skipping comments.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            let block = self.block().await?;
            if block.starts_with(':') {
                continue;
            }
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map_or_else(|| panic!("no {name} in {block:?}"), str::to_owned)
            };
            return Some(Event {
                name: field("event: "),
                id: field("id: ").parse().unwrap(),
                data: serde_json::from_str(&field("data: ")).unwrap(),
            });
        }
    }
}

#[tokio::test]
async fn a_stream_without_last_event_id_starts_with_the_game_as_get_answers_it() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    app.play_ok(&x, json!({"column": 3})).await;
    app.play_ok(&o, json!({"column": 3})).await;
    let res = app
        .request(Method::GET, &format!("/v1/games/{}/events", x.id))
        .send()
        .await
        .unwrap();
    let mut stream = Stream {
        res,
        buf: String::new(),
        state: None,
    };
    // The first bytes are the state: a client that connects late has
    // something to start from without waiting for the next change.
    let first = stream.block().await.unwrap();
    assert!(first.starts_with("event: state\nid: 4\n"), "{first}");
    let data: Value = serde_json::from_str(
        first
            .lines()
            .last()
            .unwrap()
            .strip_prefix("data: ")
            .unwrap(),
    )
    .unwrap();
    assert_eq!(data, app.game(&x.id).await);
    app.play_ok(&x, json!({"column": 4})).await;
    let e = stream.next().await.unwrap();
    assert_eq!((e.name.as_str(), e.id), ("move", 5));
}

#[tokio::test]
async fn a_subscriber_sees_each_move_as_it_happens() {
    let app = spawn_app().await;
    let (x, o) = app.pair("connect_four").await;
    let mut stream = Stream::open(&app, &x.id, None).await;
    app.play_ok(&x, json!({"column": 3})).await;
    let e = stream.next().await.unwrap();
    assert_eq!(e.name, "move");
    assert_eq!(e.id, 3);
    assert_eq!(e.data["type"], "move");
    assert_eq!(e.data["version"], 3);
    assert_eq!(e.data["move"]["move"], json!({"column": 3}));
    assert_eq!(e.data["game"]["board"][5], "...X...");
    app.play_ok(&o, json!({"column": 4})).await;
    let e = stream.next().await.unwrap();
    assert_eq!((e.name.as_str(), e.id), ("move", 4));
    assert_eq!(e.data["game"]["turn"], "X");
}

#[tokio::test]
async fn a_client_that_reconnects_gets_every_change_it_missed_once_and_in_order() {
    let app = spawn_app().await;
    let x = app.create_kind("tic_tac_toe").await;
    let o = app.join(&x.id).await;
    app.play_ok(&x, json!({"row": 0, "col": 0})).await;
    app.play_ok(&o, json!({"row": 1, "col": 1})).await;
    // Between two people a round in progress restarts by agreement.
    app.new_round(&x, &o).await;
    app.play_ok(&x, json!({"row": 2, "col": 2})).await;
    let res = app
        .post(
            &format!("/v1/games/{}/resign", x.id),
            Some(&o.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);

    let mut stream = Stream::open(&app, &x.id, Some(1)).await;
    let mut seen = Vec::new();
    for _ in 0..7 {
        let e = stream.next().await.unwrap();
        seen.push((e.name.clone(), e.id));
        match e.id {
            2 => assert_eq!(e.data["seat"], "O"),
            4 => {
                assert_eq!(e.data["game"]["board"], json!(["X..", ".O.", "..."]));
                assert_eq!(e.data["game"]["round"], 1);
            }
            5 => assert_eq!(e.data["game"]["offer"]["type"], "restart"),
            6 => {
                assert_eq!(e.data["round"], 2);
                assert_eq!(e.data["game"]["board"], json!(["...", "...", "..."]));
                assert_eq!(e.data["game"]["offer"], Value::Null);
            }
            8 => {
                assert_eq!(e.data["seat"], "O");
                assert_eq!(e.data["game"]["winner"], "X");
                assert_eq!(e.data["game"]["end_reason"], "resignation");
            }
            _ => {}
        }
    }
    let expected: Vec<(String, i64)> = [
        ("join", 2),
        ("move", 3),
        ("move", 4),
        ("offer", 5),
        ("restart", 6),
        ("move", 7),
        ("resign", 8),
    ]
    .iter()
    .map(|(n, v)| ((*n).to_owned(), *v))
    .collect();
    assert_eq!(seen, expected);
    // Changes after the catch-up still arrive, once (a new round after the
    // last one, between two people, is an offer accepted).
    app.new_round(&x, &o).await;
    let e = stream.next().await.unwrap();
    assert_eq!((e.name.as_str(), e.id), ("offer", 9));
    let e = stream.next().await.unwrap();
    assert_eq!((e.name.as_str(), e.id), ("restart", 10));
}

#[tokio::test]
async fn a_resumed_stream_shows_the_seat_still_open_before_the_join() {
    let app = spawn_app().await;
    let x = app
        .create(json!({"kind": "connect_four", "seat": "O"}))
        .await;
    let mut stream = Stream::open(&app, &x.id, Some(1)).await;
    app.join(&x.id).await;
    let e = stream.next().await.unwrap();
    assert_eq!(e.name, "join");
    assert_eq!(e.data["seat"], "X");
    assert_eq!(e.data["game"]["seats"]["X"]["taken"], true);
    assert_eq!(e.data["game"]["status"], "in_progress");
}

#[tokio::test]
async fn the_stream_ends_with_deleted_when_the_game_is_deleted() {
    let app = spawn_app().await;
    // A waiting game: its creator may delete it alone.
    let x = app.create_kind("gomoku").await;
    let mut stream = Stream::open(&app, &x.id, None).await;
    let res = app
        .request(Method::DELETE, &format!("/v1/games/{}", x.id))
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let e = stream.next().await.unwrap();
    assert_eq!(e.name, "deleted");
    assert_eq!(e.data["type"], "deleted");
    assert_eq!(e.data["reason"], "deleted", "a seat deleted it");
    // A version of its own: the game was at 1 (created).
    assert_eq!((e.id, &e.data["version"]), (2, &json!(2)));
    assert!(stream.next().await.is_none(), "the stream ends");
}

/// A hotseat game of `kind`: one token plays (and deletes) alone.
async fn hotseat(app: &TestApp, kind: &str) -> crate::helpers::Seat {
    app.create(json!({"kind": kind, "hotseat": true})).await
}

async fn delete(app: &TestApp, seat: &crate::helpers::Seat) {
    let res = app
        .request(Method::DELETE, &format!("/v1/games/{}", seat.id))
        .bearer_auth(&seat.token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
}

/// Reads the rest of a stream: every event until it ends.
async fn rest(stream: &mut Stream) -> Vec<(String, i64)> {
    let mut seen = Vec::new();
    while let Some(e) = stream.next().await {
        assert_eq!(e.data["version"], e.id, "{e:?}");
        seen.push((e.name, e.id));
    }
    seen
}

fn events(list: &[(&str, i64)]) -> Vec<(String, i64)> {
    list.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect()
}

#[tokio::test]
async fn a_move_right_before_a_delete_reaches_subscribers_before_deleted() {
    let app = spawn_app().await;
    for round in 0..40 {
        // Hotseat: one token deletes a game in progress alone.
        let x = hotseat(&app, "connect_four").await;
        let mut stream = Stream::open(&app, &x.id, None).await;
        app.play_ok(&x, json!({"column": 3})).await;
        delete(&app, &x).await;
        assert_eq!(
            rest(&mut stream).await,
            events(&[("move", 2), ("deleted", 3)]),
            "attempt {round}"
        );
    }
}

#[tokio::test]
async fn a_client_resuming_after_a_delete_gets_what_it_missed_then_deleted() {
    let app = spawn_app().await;
    let x = hotseat(&app, "tic_tac_toe").await;
    app.play_ok(&x, json!({"row": 1, "col": 1})).await;
    app.play_ok(&x, json!({"row": 0, "col": 0})).await;
    delete(&app, &x).await;
    let mut stream = Stream::open(&app, &x.id, Some(2)).await;
    assert_eq!(
        rest(&mut stream).await,
        events(&[("move", 3), ("deleted", 4)])
    );
    // Nothing left to tell: the game is not found, which also stops an
    // `EventSource` from reconnecting.
    for last in [Some("4"), None] {
        let mut req = app.request(Method::GET, &format!("/v1/games/{}/events", x.id));
        if let Some(last) = last {
            req = req.header("Last-Event-ID", last);
        }
        assert_problem(req.send().await.unwrap(), 404, "game_not_found").await;
    }
    // The game itself is gone at once.
    let res = app.get(&format!("/v1/games/{}", x.id)).await;
    assert_problem(res, 404, "game_not_found").await;
    let res = app.get(&format!("/v1/games/{}/moves", x.id)).await;
    assert_problem(res, 404, "game_not_found").await;
    let listed = app.get_json("/v1/games").await;
    assert!(listed["items"].as_array().unwrap().is_empty(), "{listed}");
}

#[tokio::test]
async fn idle_streams_get_heartbeat_comments() {
    let app = spawn_app_with(|s| s.sse_heartbeat_secs = 1).await;
    let (x, _) = app.pair("tic_tac_toe").await;
    let mut stream = Stream::open(&app, &x.id, None).await;
    let block = stream.block().await.unwrap();
    assert_eq!(block, ": keep-alive");
}

#[tokio::test]
async fn events_of_an_unknown_game_are_404() {
    let app = spawn_app().await;
    let res = app
        .get("/v1/games/00000000-0000-4000-8000-000000000000/events")
        .await;
    assert_eq!(res.status(), 404);
}

/// The same race across two instances on one PostgreSQL database: the
/// subscriber's instance learns of both changes by `NOTIFY` only after both
/// have committed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_then_a_delete_through_another_instance_reach_subscribers_in_order() {
    if crate::helpers::postgres_server().is_none() {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the two-instance tests");
        return;
    }
    let db = crate::helpers::fresh_db().await;
    let a = crate::helpers::spawn_app_on(db.clone(), |_| {}).await;
    let b = crate::helpers::spawn_app_on(db, |_| {}).await;
    for round in 0..20 {
        let x = hotseat(&b, "connect_four").await;
        let mut stream = Stream::open(&a, &x.id, None).await;
        b.play_ok(&x, json!({"column": 3})).await;
        delete(&b, &x).await;
        assert_eq!(
            rest(&mut stream).await,
            events(&[("move", 2), ("deleted", 3)]),
            "attempt {round}"
        );
    }
}
