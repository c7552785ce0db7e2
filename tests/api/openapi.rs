//! The committed `openapi/openapi.json` is the document the code generates
//! and the one the running service serves, and it says what a client needs:
//! `UPDATE_OPENAPI=1 cargo test --test api openapi` rewrites the committed file.

use serde_json::Value;

use crate::helpers::spawn_app;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

#[tokio::test]
async fn the_committed_spec_is_the_generated_and_served_one() {
    let generated = tabula::api::openapi_json();
    if std::env::var("UPDATE_OPENAPI").is_ok() {
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi")).unwrap();
        std::fs::write(COMMITTED, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(COMMITTED).expect("openapi/openapi.json is committed");
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date: run `UPDATE_OPENAPI=1 cargo test --test api openapi`"
    );
    let app = spawn_app().await;
    let served: Value = app.get_json("/openapi.json").await;
    let committed: Value = serde_json::from_str(&committed).unwrap();
    assert_eq!(served, committed);
    assert_eq!(served["openapi"], "3.1.0");
}

/// Every operation as (path, method, operation).
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in METHODS {
            if let Some(op) = item.get(method) {
                out.push((path.clone(), method.to_owned(), op.clone()));
            }
        }
    }
    out
}

/// Follows a local `$ref`.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let target = doc
                .pointer(r.trim_start_matches('#'))
                .unwrap_or_else(|| panic!("unresolved {r}"));
            resolve(doc, target)
        }
        None => value,
    }
}

fn every_ref(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r.clone());
            }
            map.values().for_each(|v| every_ref(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| every_ref(v, out)),
        _ => {}
    }
}

#[test]
fn every_reference_resolves() {
    let doc = tabula::api::document();
    let mut refs = Vec::new();
    every_ref(&doc, &mut refs);
    assert!(refs.len() > 50);
    for r in refs {
        assert!(
            r.starts_with("#/") && doc.pointer(&r[1..]).is_some(),
            "unresolved {r}"
        );
    }
}

#[test]
fn every_v1_operation_documents_429_rate_limited_with_retry_after() {
    let doc = tabula::api::document();
    let ops = operations(&doc);
    assert_eq!(
        ops.iter().filter(|(p, _, _)| p.starts_with("/v1/")).count(),
        56
    );
    for (path, method, op) in ops {
        let has = op["responses"].get("429").is_some();
        assert_eq!(has, path.starts_with("/v1/"), "{method} {path}");
    }
    let shared = &doc["components"]["responses"]["TooManyRequests"];
    assert_eq!(shared["headers"]["Retry-After"]["required"], true);
}

#[test]
fn every_error_response_is_a_problem_with_its_codes_and_an_example_of_each() {
    let doc = tabula::api::document();
    let mut seen = 0;
    for (path, method, op) in operations(&doc) {
        for (status, response) in op["responses"].as_object().unwrap() {
            if !(status.starts_with('4') || status.starts_with('5')) {
                continue;
            }
            seen += 1;
            let response = resolve(&doc, response);
            let content = &response["content"]["application/problem+json"];
            let all_of = content["schema"]["allOf"]
                .as_array()
                .unwrap_or_else(|| panic!("{method} {path} {status}: not a narrowed Problem"));
            assert_eq!(all_of[0]["$ref"], "#/components/schemas/Problem");
            let codes: Vec<&str> = all_of[1]["properties"]["code"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            assert!(!codes.is_empty());
            let examples = content["examples"].as_object().unwrap();
            for code in &codes {
                let example = &examples[*code]["value"];
                assert_eq!(&example["code"], code, "{method} {path} {status}");
                assert_eq!(example["status"].to_string(), *status, "{method} {path}");
            }
        }
    }
    assert!(seen > 100, "{seen} error responses");
}

/// Has an example: on the media type, or on the schema it references.
fn has_example(doc: &Value, media: &Value) -> bool {
    if media.get("example").is_some() || media.get("examples").is_some() {
        return true;
    }
    let schema = resolve(doc, &media["schema"]);
    schema.get("example").is_some() || schema.get("examples").is_some()
}

#[test]
fn every_request_and_response_body_has_an_example() {
    let doc = tabula::api::document();
    for (path, method, op) in operations(&doc) {
        if let Some(body) = op.get("requestBody") {
            for media in body["content"].as_object().unwrap().values() {
                assert!(has_example(&doc, media), "{method} {path} request");
            }
        }
        for (status, response) in op["responses"].as_object().unwrap() {
            let response = resolve(&doc, response);
            for (media_type, media) in response["content"].as_object().into_iter().flatten() {
                assert!(
                    has_example(&doc, media),
                    "{method} {path} {status} {media_type}"
                );
            }
        }
    }
}

#[test]
fn exactly_the_seat_operations_require_the_bearer_token() {
    let doc = tabula::api::document();
    let bearer = serde_json::json!([{"bearer": []}]);
    let mut secured: Vec<String> = operations(&doc)
        .into_iter()
        .filter(|(_, _, op)| op["security"] == bearer)
        .map(|(_, _, op)| op["operationId"].as_str().unwrap().to_owned())
        .collect();
    // The analysis needs the token only while the round is in progress;
    // quick match takes one to give a caller's own waiting game back.
    let admin = serde_json::json!([{"admin": []}]);
    let mut operators: Vec<String> = operations(&doc)
        .into_iter()
        .filter(|(_, _, op)| op["security"] == admin)
        .map(|(_, _, op)| op["operationId"].as_str().unwrap().to_owned())
        .collect();
    operators.sort();
    assert_eq!(
        operators,
        [
            "create_webhook",
            "delete_webhook",
            "list_deliveries",
            "list_webhooks",
            "patch_webhook"
        ]
    );
    let optional: Vec<String> = operations(&doc)
        .into_iter()
        .filter(|(_, _, op)| {
            op["security"] != bearer
                && op["security"] != admin
                && op["security"] != serde_json::json!([])
        })
        .map(|(_, _, op)| {
            assert_eq!(op["security"], serde_json::json!([{}, {"bearer": []}]));
            op["operationId"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        optional,
        ["create_game", "join_game", "quick_match", "get_analysis"]
    );
    secured.sort();
    assert_eq!(
        secured,
        [
            // A player's credential, not a seat's (so are the tournaments',
            // the challenges' and a player's own routes).
            "accept_challenge",
            "accept_offer",
            "cancel_challenge",
            "claim_game",
            "create_challenge",
            "create_tournament",
            "decline_challenge",
            "decline_offer",
            "delete_game",
            "delete_tournament",
            "enter_tournament",
            "get_challenge",
            "get_hint",
            "get_me",
            "leave_tournament",
            "list_challenges",
            "make_offer",
            "my_events",
            "patch_me",
            "play_bot_move",
            "play_move",
            "rematch_game",
            "resign_game",
            "restart_game",
            "start_tournament",
            "withdraw_offer",
        ]
    );
}

#[test]
fn game_fields_that_can_be_null_are_required_and_nullable() {
    let doc = tabula::api::document();
    let game = &doc["components"]["schemas"]["Game"];
    let required: Vec<&str> = game["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for field in ["end_reason", "turn", "winner", "winning_line", "ultimate"] {
        assert!(required.contains(&field), "{field} is required");
        let schema = &game["properties"][field];
        let nullable = schema["type"]
            .as_array()
            .is_some_and(|t| t.contains(&Value::from("null")))
            || schema["oneOf"]
                .as_array()
                .is_some_and(|o| o.iter().any(|s| s["type"] == "null"));
        assert!(nullable, "{field} is nullable: {schema}");
    }
    // A move is one of the three shapes.
    let move_body = &doc["components"]["schemas"]["MoveBody"]["oneOf"];
    assert_eq!(move_body.as_array().unwrap().len(), 3);
}

#[test]
fn the_operations_that_take_an_idempotency_key_document_its_reuse() {
    let doc = tabula::api::document();
    let mut keyed = Vec::new();
    for (path, method, op) in operations(&doc) {
        let params = op["parameters"].as_array().cloned().unwrap_or_default();
        if !params.iter().any(|p| p["name"] == "Idempotency-Key") {
            continue;
        }
        let response = resolve(&doc, &op["responses"]["422"]);
        let codes = &response["content"]["application/problem+json"]["schema"]["allOf"][1]["properties"]
            ["code"]["enum"];
        assert!(
            codes
                .as_array()
                .unwrap()
                .contains(&"idempotency_key_reused".into()),
            "{method} {path}: {codes}"
        );
        keyed.push(op["operationId"].as_str().unwrap().to_owned());
    }
    keyed.sort();
    assert_eq!(keyed, ["play_bot_move", "play_move", "quick_match"]);
}

#[test]
fn the_webhook_deliveries_are_described_as_openapi_webhooks() {
    let doc = tabula::api::document();
    let post = &doc["webhooks"]["gameEvent"]["post"];
    assert_eq!(
        post["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/WebhookEventBody"
    );
    let headers: Vec<&str> = post["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        headers,
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
    );
    let types = &doc["components"]["schemas"]["WebhookEventType"]["enum"];
    assert_eq!(
        *types,
        serde_json::json!([
            "game.created",
            "game.joined",
            "move.played",
            "game.ended",
            "game.deleted",
            "tournament.started",
            "tournament.round_started",
            "tournament.finished"
        ])
    );
}
