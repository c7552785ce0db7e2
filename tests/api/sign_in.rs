//! Players signed in by the operator's accounts: JWTs verified with a shared
//! secret or a public key, the player made on first use, bad tokens refused.

use chrono::Utc;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, seat_of, spawn_app_with};
use crate::players::{player, with_key};

/// Signs `claims` with HS256 and `secret`.
fn hs256(claims: &Value, secret: &[u8]) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret),
    )
    .unwrap()
}

fn claims(extra: &Value) -> Value {
    let now = Utc::now().timestamp();
    let mut c = json!({"sub": "ada", "name": "Ada L", "exp": now + 600, "iss": "https://id.example", "aud": "tabula"});
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

async fn create_with(app: &TestApp, token: &str) -> reqwest::Response {
    app.post("/v1/games", Some(token), &json!({"kind": "connect_four"}))
        .await
}

#[tokio::test]
async fn a_signed_in_player_is_created_on_first_use_and_bad_tokens_are_refused() {
    let secret = b"a secret of the operator";
    let app = spawn_app_with(|s| {
        s.jwt_secret = Some(String::from_utf8(secret.to_vec()).unwrap());
        s.jwt_issuer = Some("https://id.example".into());
        s.jwt_audience = Some("tabula".into());
    })
    .await;
    let now = Utc::now().timestamp();
    let good = hs256(&claims(&json!({})), secret);
    let res = create_with(&app, &good).await;
    assert_eq!(res.status(), 201);
    let x = seat_of(&res.json().await.unwrap());
    let g = app.game(&x.id).await;
    assert_eq!(g["seats"]["X"]["player"], "ext:ada");
    assert_eq!(g["seats"]["X"]["name"], "Ada L");
    let ada = player(&app, "ext:ada").await;
    assert_eq!(ada["name"], "Ada L");
    // Another token of the same player is the same player, and plays the seat.
    let again = hs256(&claims(&json!({"exp": now + 900})), secret);
    app.join(&x.id).await;
    app.play_ok(&with_key(&x, &again), json!({"column": 3}))
        .await;
    let refused = [
        (
            "bad signature",
            hs256(&claims(&json!({})), b"another secret"),
        ),
        (
            "expired",
            hs256(&claims(&json!({"exp": now - 600})), secret),
        ),
        (
            "not yet valid",
            hs256(&claims(&json!({"nbf": now + 600})), secret),
        ),
        (
            "wrong issuer",
            hs256(&claims(&json!({"iss": "https://evil.example"})), secret),
        ),
        (
            "wrong audience",
            hs256(&claims(&json!({"aud": "another"})), secret),
        ),
        ("no issuer", {
            let mut c = claims(&json!({}));
            c.as_object_mut().unwrap().remove("iss");
            hs256(&c, secret)
        }),
        ("alg none", {
            use base64::Engine as _;
            let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
            let header = b64.encode(br#"{"alg":"none","typ":"JWT"}"#);
            let body = b64.encode(claims(&json!({"sub": "mallory"})).to_string());
            format!("{header}.{body}.")
        }),
        // RFC 7519: `iss` is a string, `aud` a string or strings; RFC 7515:
        // a `crit` extension not understood refuses the token.
        (
            "iss as an array",
            hs256(&claims(&json!({"iss": ["https://id.example"]})), secret),
        ),
        (
            "aud as a number",
            hs256(&claims(&json!({"aud": 7})), secret),
        ),
        ("crit header", {
            let mut header = Header::new(Algorithm::HS256);
            header.crit = Some(vec!["exp".into()]);
            jsonwebtoken::encode(
                &header,
                &claims(&json!({"sub": "mallory"})),
                &EncodingKey::from_secret(secret),
            )
            .unwrap()
        }),
        (
            "sub with a newline",
            hs256(&claims(&json!({"sub": "mallory\nadmin"})), secret),
        ),
        (
            "sub with a control character",
            hs256(&claims(&json!({"sub": "mallory\u{7}"})), secret),
        ),
        (
            "sub with a bidi override",
            hs256(&claims(&json!({"sub": "mallory\u{202E}"})), secret),
        ),
    ];
    for (why, token) in refused {
        let res = create_with(&app, &token).await;
        assert_eq!(res.status(), 401, "{why}");
        let body = assert_problem(res, 401, "invalid_token").await;
        assert!(body["detail"].is_string(), "{why}");
        // Nor does it play the signed-in player's seat.
        let res = app.play(&with_key(&x, &token), json!({"column": 4})).await;
        assert_eq!(res.status(), 401, "{why}: a move");
    }
    assert_problem(
        app.get("/v1/players/ext:mallory").await,
        404,
        "player_not_found",
    )
    .await;
    // `aud` as an array with ours is fine; a `sub` with `/`, `%` or `+`
    // makes a player readable at its URL-encoded id.
    let listed = hs256(&claims(&json!({"aud": ["other", "tabula"]})), secret);
    assert_eq!(create_with(&app, &listed).await.status(), 201);
    let odd = hs256(&claims(&json!({"sub": "team/a%20+b"})), secret);
    let res = create_with(&app, &odd).await;
    assert_eq!(res.status(), 201);
    let g = app.game(&seat_of(&res.json().await.unwrap()).id).await;
    assert_eq!(g["seats"]["X"]["player"], "ext:team/a%20+b");
    let read = app.get_json("/v1/players/ext:team%2Fa%2520%2Bb").await;
    assert_eq!(read["id"], "ext:team/a%20+b");
    let games = app
        .get_json("/v1/players/ext:team%2Fa%2520%2Bb/games")
        .await;
    assert_eq!(games["items"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn public_key_sign_in_takes_only_its_algorithm() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jwt");
    let rsa_public = std::fs::read_to_string(format!("{data}/rsa-public.pem")).unwrap();
    let rsa_private = std::fs::read(format!("{data}/rsa-private.pem")).unwrap();
    let app = {
        let path = format!("{data}/rsa-public.pem");
        spawn_app_with(move |s| s.jwt_public_key = Some(path)).await
    };
    let c = claims(&json!({"sub": "rsa-user"}));
    let rs256 = jsonwebtoken::encode(
        &Header::new(Algorithm::RS256),
        &c,
        &EncodingKey::from_rsa_pem(&rsa_private).unwrap(),
    )
    .unwrap();
    assert_eq!(create_with(&app, &rs256).await.status(), 201);
    // Algorithm confusion: HS256 "signed" with the public key as secret.
    let confused = hs256(&c, rsa_public.as_bytes());
    assert_problem(create_with(&app, &confused).await, 401, "invalid_token").await;

    let ed_public = std::fs::read_to_string(format!("{data}/ed25519-public.pem")).unwrap();
    let ed_private = std::fs::read(format!("{data}/ed25519-private.pem")).unwrap();
    let app = spawn_app_with(move |s| s.jwt_public_key = Some(ed_public)).await;
    let eddsa = jsonwebtoken::encode(
        &Header::new(Algorithm::EdDSA),
        &claims(&json!({"sub": "ed-user"})),
        &EncodingKey::from_ed_pem(&ed_private).unwrap(),
    )
    .unwrap();
    assert_eq!(create_with(&app, &eddsa).await.status(), 201);
    assert_eq!(player(&app, "ext:ed-user").await["name"], "Ada L");
    assert_problem(create_with(&app, &rs256).await, 401, "invalid_token").await;
}

/// `GET /v1/players/me` with a sign-in token seen for the first time stores
/// the player it answers: the same id and `created_at` every time, and
/// found under its id (it answered a player that was not stored).
#[tokio::test]
async fn the_player_a_first_sign_in_token_names_is_stored_once() {
    let secret = b"a secret of the operator";
    let app = spawn_app_with(|s| {
        s.jwt_secret = Some(String::from_utf8(secret.to_vec()).unwrap());
    })
    .await;
    let token = hs256(&claims(&json!({"sub": "grace", "name": "Grace H"})), secret);
    let first = app.get_json_as("/v1/players/me", &token).await;
    assert_eq!(first["id"], "ext:grace");
    assert_eq!(first["name"], "Grace H");
    let stored = player(&app, "ext:grace").await;
    assert_eq!(stored["created_at"], first["created_at"]);
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let again = app.get_json_as("/v1/players/me", &token).await;
    assert_eq!(again["created_at"], first["created_at"]);
    assert_eq!(again["name"], "Grace H");
}
