//! Bot players, challenges and a player's own event stream.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::events::Stream;
use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_with};
use crate::players::new_player;

pub(crate) async fn new_bot(app: &TestApp, name: &str) -> (String, String) {
    let res = app
        .post("/v1/players", None, &json!({"name": name, "bot": true}))
        .await;
    assert_eq!(res.status(), 201, "create bot");
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["player"]["bot"], true);
    assert_eq!(v["player"]["max_games"], 4);
    (
        v["player"]["id"].as_str().unwrap().to_owned(),
        v["key"].as_str().unwrap().to_owned(),
    )
}

pub(crate) async fn challenge(app: &TestApp, key: &str, body: Value) -> Value {
    let res = app.post("/v1/challenges", Some(key), &body).await;
    let status = res.status();
    let v: Value = res.json().await.unwrap();
    assert_eq!(status, 201, "challenge {body}: {v}");
    v
}

async fn act(app: &TestApp, key: &str, path: &str) -> reqwest::Response {
    app.post(path, Some(key), &json!({})).await
}

fn stream_path() -> &'static str {
    "/v1/players/me/events"
}

#[tokio::test]
async fn an_accepted_challenge_begins_a_game_that_both_players_hear_of_and_play() {
    let app = spawn_app().await;
    let (ann, ann_key) = new_player(&app, "Ann").await;
    let (bot, bot_key) = new_bot(&app, "Deep Four").await;
    let mut bot_stream = Stream::open_as(&app, stream_path(), &bot_key, None).await;
    let mut ann_stream = Stream::open_as(&app, stream_path(), &ann_key, Some(0)).await;

    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "clock": {"initial_ms": 60000, "increment_ms": 1000}, "seat": "X"}),
    )
    .await;
    assert_eq!(c["status"], "pending");
    assert_eq!(c["from"], json!({"id": ann, "name": "Ann", "bot": false}));
    assert_eq!(c["to"]["bot"], true);
    let id = c["id"].as_str().unwrap().to_owned();

    // The bot hears of it, as the API shows it.
    let heard = bot_stream.next().await.unwrap();
    assert_eq!(heard.name, "challenge");
    assert_eq!(heard.data["challenge"], c);
    assert_eq!(heard.data["seq"], heard.id);
    let listed = app.get_json_as("/v1/challenges", &bot_key).await;
    assert_eq!(listed["items"][0], c);

    // The challenger cannot accept it; the challenged can.
    assert_problem(
        act(&app, &ann_key, &format!("/v1/challenges/{id}/accept")).await,
        403,
        "not_your_challenge",
    )
    .await;
    let res = act(&app, &bot_key, &format!("/v1/challenges/{id}/accept")).await;
    assert_eq!(res.status(), 201);
    let grant: Value = res.json().await.unwrap();
    assert_eq!(grant["seat"], "O");
    let game = grant["game"]["id"].as_str().unwrap().to_owned();
    assert_eq!(grant["game"]["seats"]["X"]["player"], ann.as_str());
    assert_eq!(grant["game"]["seats"]["O"]["player"], bot.as_str());
    assert_eq!(
        app.get_json_as(&format!("/v1/challenges/{id}"), &ann_key)
            .await["game"],
        game.as_str()
    );
    assert_problem(
        act(&app, &bot_key, &format!("/v1/challenges/{id}/accept")).await,
        409,
        "challenge_closed",
    )
    .await;

    for (stream, seat) in [(&mut bot_stream, "O"), (&mut ann_stream, "X")] {
        let start = stream.next().await.unwrap();
        assert_eq!(start.name, "game_start");
        assert_eq!(start.data["game"], game.as_str());
        assert_eq!(start.data["seat"], seat);
    }

    // Each plays with its own key; the bot's grant token plays too.
    let play = |key: String, column: u8| {
        let app = &app;
        let game = game.clone();
        async move {
            app.post(
                &format!("/v1/games/{game}/moves"),
                Some(&key),
                &json!({"column": column}),
            )
            .await
        }
    };
    assert_eq!(play(ann_key.clone(), 3).await.status(), 201);
    assert_eq!(
        play(grant["token"].as_str().unwrap().to_owned(), 3)
            .await
            .status(),
        201
    );
    assert_eq!(play(bot_key.clone(), 4).await.status(), 409, "not its turn");
    let res = app
        .post(
            &format!("/v1/games/{game}/resign"),
            Some(&bot_key),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let finish = bot_stream.next().await.unwrap();
    assert_eq!(finish.name, "game_finish");
    assert_eq!(
        (&finish.data["game"], &finish.data["result"]),
        (&json!(game), &json!("lost"))
    );
    let finish = ann_stream.next().await.unwrap();
    assert_eq!(finish.name, "game_finish");
    assert_eq!(finish.data["result"], "won");
}

#[tokio::test]
async fn a_bot_that_drops_its_stream_resumes_with_last_event_id_and_misses_nothing() {
    let app = spawn_app().await;
    let (_, ann_key) = new_player(&app, "Ann").await;
    let (bot, bot_key) = new_bot(&app, "Resumer").await;
    let first = challenge(&app, &ann_key, json!({"to": bot, "kind": "tic_tac_toe"})).await;
    // Opened now, the stream starts with what waits: the challenge.
    let mut stream = Stream::open_as(&app, stream_path(), &bot_key, None).await;
    let opening = stream.next().await.unwrap();
    assert_eq!(opening.name, "challenge");
    assert_eq!(opening.data["challenge"]["id"], first["id"]);
    let head = opening.id;
    drop(stream);

    // While it is away: a second challenge, the first one cancelled.
    let second = challenge(&app, &ann_key, json!({"to": bot, "kind": "gomoku"})).await;
    let res = app
        .request(
            Method::DELETE,
            &format!("/v1/challenges/{}", first["id"].as_str().unwrap()),
        )
        .bearer_auth(&ann_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);

    let mut stream = Stream::open_as(&app, stream_path(), &bot_key, Some(head)).await;
    let a = stream.next().await.unwrap();
    let b = stream.next().await.unwrap();
    assert_eq!(
        (a.name.as_str(), b.name.as_str()),
        ("challenge", "challenge_cancelled")
    );
    assert_eq!(a.data["challenge"]["id"], second["id"]);
    assert_eq!(b.data["challenge"]["id"], first["id"]);
    assert_eq!(b.data["challenge"]["status"], "cancelled");
    assert_eq!((a.id, b.id), (head + 1, head + 2), "in order, once each");
}

#[tokio::test]
async fn refused_challenges_change_nothing_and_a_decline_tells_the_challenger() {
    let app = spawn_app_with(|s| s.challenge_expiry = Duration::from_secs(1)).await;
    let (ann, ann_key) = new_player(&app, "Ann").await;
    let (bob, bob_key) = new_player(&app, "Bob").await;
    let res = app
        .post(
            "/v1/challenges",
            Some(&ann_key),
            &json!({"to": ann, "kind": "connect_four"}),
        )
        .await;
    assert_problem(res, 422, "same_player").await;
    let res = app
        .post(
            "/v1/challenges",
            Some(&ann_key),
            &json!({"to": bob, "kind": "connect_four", "rated": true}),
        )
        .await;
    assert_problem(res, 422, "clock_required").await;
    let res = app
        .post(
            "/v1/challenges",
            Some(&ann_key),
            &json!({"to": "0192f0c4-22bb-7c00-8e2e-5b7d0c4e9f02", "kind": "connect_four"}),
        )
        .await;
    assert_problem(res, 404, "player_not_found").await;
    let res = app
        .post(
            "/v1/challenges",
            None,
            &json!({"to": bob, "kind": "connect_four"}),
        )
        .await;
    assert_problem(res, 401, "player_required").await;
    assert_eq!(
        app.get_json_as("/v1/challenges", &bob_key).await["items"],
        json!([]),
        "refusals change nothing"
    );

    let mut ann_stream = Stream::open_as(&app, stream_path(), &ann_key, Some(0)).await;
    let c = challenge(&app, &ann_key, json!({"to": bob, "kind": "connect_four"})).await;
    let id = c["id"].as_str().unwrap();
    assert_problem(
        act(&app, &ann_key, &format!("/v1/challenges/{id}/decline")).await,
        403,
        "not_your_challenge",
    )
    .await;
    let res = app
        .post(
            &format!("/v1/challenges/{id}/decline"),
            Some(&bob_key),
            &json!({"reason": "later"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let declined: Value = res.json().await.unwrap();
    assert_eq!(
        (&declined["status"], &declined["reason"]),
        (&json!("declined"), &json!("later"))
    );
    let heard = ann_stream.next().await.unwrap();
    assert_eq!(heard.name, "challenge_declined");
    assert_eq!(heard.data["challenge"], declined);
    let res = app
        .request(Method::DELETE, &format!("/v1/challenges/{id}"))
        .bearer_auth(&ann_key)
        .send()
        .await
        .unwrap();
    assert_problem(res, 409, "challenge_closed").await;

    // Unanswered, it expires; accepting it then is refused.
    let c = challenge(&app, &ann_key, json!({"to": bob, "kind": "connect_four"})).await;
    let id = c["id"].as_str().unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let seen = app
        .get_json_as(&format!("/v1/challenges/{id}"), &bob_key)
        .await;
    assert_eq!(seen["status"], "expired");
    assert_problem(
        act(&app, &bob_key, &format!("/v1/challenges/{id}/accept")).await,
        409,
        "challenge_closed",
    )
    .await;
    // Someone else's challenge is not found.
    let (_, eve_key) = new_player(&app, "Eve").await;
    let res = app
        .request(Method::GET, &format!("/v1/challenges/{id}"))
        .bearer_auth(&eve_key)
        .send()
        .await
        .unwrap();
    assert_problem(res, 404, "challenge_not_found").await;
}

#[tokio::test]
async fn max_games_holds_under_twenty_challenges_accepted_at_once() {
    let app = spawn_app().await;
    let (bot, bot_key) = new_bot(&app, "Busy").await;
    let res = app
        .request(Method::PATCH, "/v1/players/me")
        .bearer_auth(&bot_key)
        .json(&json!({"max_games": 0}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 422, "invalid_option").await;
    let res = app
        .request(Method::PATCH, "/v1/players/me")
        .bearer_auth(&bot_key)
        .json(&json!({"max_games": 3}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["max_games"], 3);

    let mut ids = Vec::new();
    for i in 0..20 {
        let (_, key) = new_player(&app, &format!("Fan {i}")).await;
        let c = challenge(
            &app,
            &key,
            json!({"to": bot, "kind": "connect_four", "clock": {"per_move_ms": 60000}}),
        )
        .await;
        ids.push(c["id"].as_str().unwrap().to_owned());
    }
    let paths: Vec<String> = ids
        .iter()
        .map(|id| format!("/v1/challenges/{id}/accept"))
        .collect();
    let answers =
        futures_util::future::join_all(paths.iter().map(|p| act(&app, &bot_key, p))).await;
    let mut accepted = 0;
    for res in answers {
        match res.status().as_u16() {
            201 => accepted += 1,
            409 => {
                let v: Value = res.json().await.unwrap();
                assert_eq!(v["code"], "too_many_games");
            }
            other => panic!("accept answered {other}"),
        }
    }
    assert_eq!(accepted, 3, "exactly max_games accepted");
    // A challenge to the bot now is declined at once.
    let (_, late_key) = new_player(&app, "Late").await;
    let c = challenge(&app, &late_key, json!({"to": bot, "kind": "connect_four"})).await;
    assert_eq!(
        (&c["status"], &c["reason"]),
        (&json!("declined"), &json!("too_many_games"))
    );
}

#[tokio::test]
async fn bots_never_quick_match_and_the_leaderboard_can_leave_them_out() {
    let app = spawn_app().await;
    let (ann, ann_key) = new_player(&app, "Ann").await;
    let (bot, bot_key) = new_bot(&app, "Rated bot").await;
    let res = app
        .post(
            "/v1/matches",
            Some(&bot_key),
            &json!({"kind": "connect_four"}),
        )
        .await;
    assert_problem(res, 403, "bot_not_allowed").await;
    // A bot cannot ask for a rated game; a person may challenge it rated.
    let res = app
        .post(
            "/v1/challenges",
            Some(&bot_key),
            &json!({"to": ann, "kind": "connect_four", "rated": true, "clock": {"per_move_ms": 60000}}),
        )
        .await;
    assert_problem(res, 422, "invalid_option").await;
    let c = challenge(
        &app,
        &ann_key,
        json!({"to": bot, "kind": "connect_four", "rated": true, "clock": {"per_move_ms": 60000}, "seat": "X"}),
    )
    .await;
    let res = act(
        &app,
        &bot_key,
        &format!("/v1/challenges/{}/accept", c["id"].as_str().unwrap()),
    )
    .await;
    let grant: Value = res.json().await.unwrap();
    let game = grant["game"]["id"].as_str().unwrap();
    assert_eq!(grant["game"]["rated"], true);
    for (key, column) in [(&ann_key, 3), (&bot_key, 3)] {
        let res = app
            .post(
                &format!("/v1/games/{game}/moves"),
                Some(key),
                &json!({"column": column}),
            )
            .await;
        assert_eq!(res.status(), 201);
    }
    let res = app
        .post(
            &format!("/v1/games/{game}/resign"),
            Some(&bot_key),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let all = app
        .get_json("/v1/kinds/connect_four/leaderboard?provisional=true")
        .await;
    let bots: Vec<&Value> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["bot"] == true)
        .collect();
    assert_eq!(bots.len(), 1);
    assert_eq!(bots[0]["player"], bot.as_str());
    let people = app
        .get_json("/v1/kinds/connect_four/leaderboard?provisional=true&bots=exclude")
        .await;
    let items = people["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["player"], ann.as_str());
}

#[tokio::test]
async fn a_bot_player_enters_a_tournament_with_its_key_and_both_hear_they_are_paired() {
    let app = spawn_app().await;
    let (_, ann_key) = new_player(&app, "Ann").await;
    let (bot, bot_key) = new_bot(&app, "Entrant bot").await;
    let res = app
        .post(
            "/v1/tournaments",
            Some(&ann_key),
            &json!({"name": "Two", "kind": "tic_tac_toe", "system": "round_robin", "clock": {"per_move_ms": 60000}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let id = res.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for key in [&ann_key, &bot_key] {
        let res = act(&app, key, &format!("/v1/tournaments/{id}/entrants")).await;
        assert_eq!(res.status(), 201);
        let entrant: Value = res.json().await.unwrap();
        assert_eq!(entrant["player"]["bot"], *key == bot_key);
    }
    let mut ann_stream = Stream::open_as(&app, stream_path(), &ann_key, Some(0)).await;
    let mut bot_stream = Stream::open_as(&app, stream_path(), &bot_key, Some(0)).await;
    let res = act(&app, &ann_key, &format!("/v1/tournaments/{id}/start")).await;
    assert_eq!(res.status(), 200);
    let round = app
        .get_json(&format!("/v1/tournaments/{id}/rounds/1"))
        .await;
    let game = &round["pairings"][0]["game"];
    for stream in [&mut ann_stream, &mut bot_stream] {
        let paired = stream.next().await.unwrap();
        assert_eq!(paired.name, "tournament_paired");
        assert_eq!(
            (
                &paired.data["tournament"],
                &paired.data["round"],
                &paired.data["game"]
            ),
            (&json!(id), &json!(1), game)
        );
        let start = stream.next().await.unwrap();
        assert_eq!(
            (start.name.as_str(), &start.data["game"]),
            ("game_start", game)
        );
    }
    let standings = app
        .get_json(&format!("/v1/tournaments/{id}/standings"))
        .await;
    let shown: Vec<(&Value, &Value)> = standings["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (&l["player"]["id"], &l["player"]["bot"]))
        .collect();
    assert!(shown.contains(&(&json!(bot), &json!(true))));
}

#[tokio::test]
async fn every_game_a_player_begins_is_told_on_their_stream_once() {
    let app = spawn_app().await;
    let (_, ann_key) = new_player(&app, "Ann").await;
    let (_, bob_key) = new_player(&app, "Bob").await;
    let (_, bot_key) = new_bot(&app, "Deep Four").await;
    let mut ann_stream = Stream::open_as(&app, stream_path(), &ann_key, Some(0)).await;
    let mut bob_stream = Stream::open_as(&app, stream_path(), &bob_key, Some(0)).await;
    let mut bot_stream = Stream::open_as(&app, stream_path(), &bot_key, Some(0)).await;

    // An open game begins when Bob's join fills it: both hear of it then.
    let res = app
        .post(
            "/v1/games",
            Some(&ann_key),
            &json!({"kind": "connect_four"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let open: Value = res.json().await.unwrap();
    let game = open["game"]["id"].as_str().unwrap().to_owned();
    let joined = app
        .post(
            &format!("/v1/games/{game}/join"),
            Some(&bob_key),
            &json!({}),
        )
        .await;
    assert_eq!(joined.status(), 200);
    for (stream, seat) in [(&mut ann_stream, "X"), (&mut bob_stream, "O")] {
        let start = stream.next().await.unwrap();
        assert_eq!(start.name, "game_start");
        assert_eq!(
            (&start.data["game"], &start.data["seat"]),
            (&json!(game), &json!(seat))
        );
    }
    // A move is no new start: the next thing Ann hears is the game's end.
    let moved = app
        .post(
            &format!("/v1/games/{game}/moves"),
            Some(&ann_key),
            &json!({"column": 3}),
        )
        .await;
    assert_eq!(moved.status(), 201);
    let resigned = app
        .post(
            &format!("/v1/games/{game}/resign"),
            Some(&bob_key),
            &json!({}),
        )
        .await;
    assert_eq!(resigned.status(), 200);
    let next = ann_stream.next().await.unwrap();
    assert_eq!(
        (next.name.as_str(), &next.data["result"]),
        ("game_finish", &json!("won"))
    );

    // A game against the service's bot begins at once.
    let res = app
        .post(
            "/v1/games",
            Some(&bot_key),
            &json!({"kind": "tic_tac_toe", "seat": "O", "opponent": {"type": "bot", "level": "random"}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let against: Value = res.json().await.unwrap();
    let start = bot_stream.next().await.unwrap();
    assert_eq!(start.name, "game_start");
    assert_eq!(
        (&start.data["game"], &start.data["seat"]),
        (&against["game"]["id"], &json!("O"))
    );
}
