//! The committed `openapi/openapi.json` is the document the code generates
//! and the one the running service serves. `UPDATE_OPENAPI=1 cargo test`
//! rewrites the committed file.

use serde_json::Value;

use crate::helpers::spawn_app;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

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
