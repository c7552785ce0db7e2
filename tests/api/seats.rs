//! Names, private games with invite codes, and the agreement two people
//! need to end or erase a round in progress.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, seat_of, spawn_app};

#[tokio::test]
async fn names_refuse_invisible_and_direction_changing_characters() {
    let app = spawn_app().await;
    // What a hostile probe got through before: isolates and the Arabic
    // letter mark, fillers, the braille blank, soft hyphen, the combining
    // grapheme joiner, the Mongolian vowel separator, a tag character, a
    // variation selector, a noncharacter,
    // private use, an unassigned code point and a combining mark alone.
    let hidden = [
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{061C}',
        '\u{3164}',
        '\u{FFA0}',
        '\u{115F}',
        '\u{1160}',
        '\u{00AD}',
        '\u{034F}',
        '\u{180E}',
        '\u{E0041}',
        '\u{FE0F}',
        '\u{FFFF}',
        '\u{FDD0}',
        '\u{E000}',
        '\u{0378}',
    ];
    let mut bad: Vec<String> = hidden.iter().map(|c| format!("Ann{c}")).collect();
    bad.extend(hidden.iter().map(char::to_string));
    // Nothing that prints, or a mark with nothing to sit on.
    bad.extend(
        [
            "\u{2800}",
            "\u{2800} \u{2800}",
            "\u{3000}",
            "\u{0301}",
            "\u{0301}Ann",
            "Ann \u{0301}",
            "Ann \u{2800}✓",
            "a\u{2800}b",
            // A word mixing scripts (a Cyrillic а inside a Latin word), and
            // a tower of combining marks.
            "F\u{0430}rm A",
            "Zalgo",
        ]
        .map(str::to_owned),
    );
    *bad.last_mut().unwrap() = format!("Z{}algo", "\u{0301}".repeat(31));
    for name in &bad {
        let res = app
            .post(
                "/v1/games",
                None,
                &json!({"kind": "tic_tac_toe", "name": name}),
            )
            .await;
        let body = assert_problem(res, 422, "invalid_name").await;
        assert!(
            body["detail"].as_str().unwrap().contains("`name`"),
            "{body}"
        );
    }
    let page = app.get_json("/v1/games").await;
    assert_eq!(page["items"], json!([]), "nothing was created");
    // Names in any script, with combining marks on a letter, emoji
    // sequences (a ZWJ family, a keycap, a flag with its variation
    // selector), words of different scripts side by side, still pass.
    for good in [
        "مريم",
        "अनु",
        "李小龍",
        "東京タワー",
        "Ann-Marie O'Neil",
        "R2-D2",
        "Farm A",
        "Anna Иванова",
        "👨\u{200D}👩\u{200D}👧 family",
        "1\u{FE0F}\u{20E3} first",
        "🏳\u{FE0F}\u{200D}🌈",
        "Thu\u{0309}y",
    ] {
        let x = app
            .create(json!({"kind": "tic_tac_toe", "name": good}))
            .await;
        let stored = app.game(&x.id).await["seats"]["X"]["name"].clone();
        let nfc: String = unicode_normalization::UnicodeNormalization::nfc(good).collect();
        assert_eq!(stored, nfc.as_str());
    }
}

#[tokio::test]
async fn names_are_normalized_before_they_are_checked_and_stored() {
    let app = spawn_app().await;
    for (sent, stored) in [
        ("  Farm A  ", "Farm A"),
        ("Farm\u{00A0}A", "Farm A"),
        ("Farm \t\u{3000} A", "Farm A"),
        ("Zoe\u{0308}", "Zo\u{00EB}"),
        // Line and paragraph separators are white space too.
        ("Ann\u{2028}Lee\u{2029}", "Ann Lee"),
    ] {
        let x = app
            .create(json!({"kind": "tic_tac_toe", "name": sent}))
            .await;
        assert_eq!(
            app.game(&x.id).await["seats"]["X"]["name"],
            stored,
            "{sent:?}"
        );
        let res = app.post("/v1/players", None, &json!({"name": sent})).await;
        assert_eq!(res.status(), 201);
        let v: Value = res.json().await.unwrap();
        assert_eq!(v["player"]["name"], stored, "{sent:?}");
    }
}

#[tokio::test]
async fn names_are_shown_in_seats_and_checked() {
    let app = spawn_app().await;
    let x = app
        .create(json!({"kind": "tic_tac_toe", "name": "Ann ✓"}))
        .await;
    let g = app.game(&x.id).await;
    assert_eq!(g["seats"]["X"]["name"], "Ann ✓");
    assert_eq!(g["seats"]["O"]["name"], Value::Null);
    let res = app
        .post(
            &format!("/v1/games/{}/join", x.id),
            None,
            &json!({"name": "Bob"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let g = app.game(&x.id).await;
    assert_eq!(g["seats"]["O"]["name"], "Bob");
    assert_eq!(g["visibility"], "public");

    for bad in [
        json!(""),
        json!("   "),
        json!("a".repeat(33)),
        json!("zero\u{200B}width"),
        json!(7),
    ] {
        let res = app
            .post(
                "/v1/games",
                None,
                &json!({"kind": "connect_four", "name": bad}),
            )
            .await;
        let status = res.status().as_u16();
        assert!(status == 422 || status == 400, "name {bad}: {status}");
    }
    // 32 characters (not bytes) are fine.
    app.create(json!({"kind": "connect_four", "name": "é".repeat(32)}))
        .await;
    let w = app.create_kind("gomoku").await;
    let res = app
        .post(
            &format!("/v1/games/{}/join", w.id),
            None,
            &json!({"name": ""}),
        )
        .await;
    assert_problem(res, 422, "invalid_name").await;
    assert_eq!(app.game(&w.id).await["version"], 1, "nothing changed");
    let listed = app.get_json("/v1/games").await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn a_private_game_is_unlisted_and_joined_only_with_its_invite() {
    let app = spawn_app().await;
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "connect_four", "visibility": "private"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    let invite = created["invite"].as_str().unwrap().to_owned();
    assert!(invite.len() >= 32, "{invite}");
    assert_eq!(created["game"]["visibility"], "private");
    let x = seat_of(&created);
    let public = app.create_kind("connect_four").await;
    let listed = app.get_json("/v1/games").await;
    let ids: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [public.id.as_str()], "the private game is not listed");
    let open = app.get_json("/v1/games?open=true").await;
    assert_eq!(open["items"].as_array().unwrap().len(), 1);

    let path = format!("/v1/games/{}/join", x.id);
    for body in [
        json!({}),
        json!({"invite": "0".repeat(64)}),
        json!({"invite": ""}),
    ] {
        assert_problem(app.post(&path, None, &body).await, 403, "invalid_invite").await;
    }
    assert_eq!(
        app.game(&x.id).await["version"],
        1,
        "refused joins changed nothing"
    );
    let res = app
        .post(&path, None, &json!({"invite": invite, "name": "Bob"}))
        .await;
    assert_eq!(res.status(), 200);
    let g = app.game(&x.id).await;
    assert_eq!(g["seats"]["O"]["taken"], true);
    assert_eq!(g["seats"]["O"]["name"], "Bob");
    // The code was shown once: a game's answers never carry it again.
    assert!(g.get("invite").is_none());
    assert!(!g.to_string().contains(&invite));
    // A public game's answer carries no invite, and joins without one.
    let res = app
        .post("/v1/games", None, &json!({"kind": "tic_tac_toe"}))
        .await;
    let body: Value = res.json().await.unwrap();
    assert!(body.get("invite").is_none(), "{body}");
}

#[tokio::test]
async fn only_a_game_between_two_people_can_be_private() {
    let app = spawn_app().await;
    for body in [
        json!({"kind": "tic_tac_toe", "visibility": "private", "hotseat": true}),
        json!({"kind": "tic_tac_toe", "visibility": "private", "opponent": {"type": "bot", "level": "easy"}}),
    ] {
        let res = app.post("/v1/games", None, &body).await;
        assert_problem(res, 422, "invalid_option").await;
    }
    let res = app
        .post(
            "/v1/games",
            None,
            &json!({"kind": "tic_tac_toe", "visibility": "secret"}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
}

async fn delete(app: &crate::helpers::TestApp, id: &str, token: &str) -> reqwest::Response {
    app.request(Method::DELETE, &format!("/v1/games/{id}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn alone_is_fine_while_waiting_in_hotseat_against_a_bot_and_once_the_round_is_over() {
    let app = spawn_app().await;
    // Waiting: nobody has joined.
    let waiting = app.create_kind("connect_four").await;
    assert_eq!(
        delete(&app, &waiting.id, &waiting.token).await.status(),
        204
    );
    // Hotseat: restart and delete a round in progress.
    let h = app
        .create(json!({"kind": "tic_tac_toe", "hotseat": true}))
        .await;
    app.play_ok(&h, json!({"row": 0, "col": 0})).await;
    let res = app
        .post(
            &format!("/v1/games/{}/restart", h.id),
            Some(&h.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    app.play_ok(&h, json!({"row": 0, "col": 0})).await;
    assert_eq!(delete(&app, &h.id, &h.token).await.status(), 204);
    // Against a bot.
    let b = app
        .create(json!({"kind": "connect_four", "opponent": {"type": "bot", "level": "random", "seed": 1}}))
        .await;
    app.play_ok(&b, json!({"column": 3})).await;
    let res = app
        .post(
            &format!("/v1/games/{}/restart", b.id),
            Some(&b.token),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    app.play_ok(&b, json!({"column": 3})).await;
    assert_eq!(delete(&app, &b.id, &b.token).await.status(), 204);
    // Two people, round over (X wins on the top row).
    let (x, o) = app.pair("tic_tac_toe").await;
    for (seat, mv) in [
        (&x, json!({"row": 0, "col": 0})),
        (&o, json!({"row": 1, "col": 0})),
        (&x, json!({"row": 0, "col": 1})),
        (&o, json!({"row": 1, "col": 1})),
        (&x, json!({"row": 0, "col": 2})),
    ] {
        app.play_ok(seat, mv).await;
    }
    // A finished round is deleted alone; a new one needs both.
    let res = app
        .post(
            &format!("/v1/games/{}/restart", x.id),
            Some(&o.token),
            &json!({}),
        )
        .await;
    assert_problem(res, 409, "agreement_required").await;
    app.new_round(&o, &x).await;
    // The new round is in progress: not alone any more.
    app.play_ok(&x, json!({"row": 0, "col": 0})).await;
    assert_problem(
        delete(&app, &x.id, &x.token).await,
        409,
        "agreement_required",
    )
    .await;
    let res = app
        .post(
            &format!("/v1/games/{}/restart", x.id),
            Some(&x.token),
            &json!({}),
        )
        .await;
    assert_problem(res, 409, "agreement_required").await;
}
