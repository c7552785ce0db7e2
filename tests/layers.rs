//! The service's rules of direction (`src/lib.rs`), where no crate boundary
//! keeps them: each layer names only the layers below it. The rules and the
//! bots are crates of their own, whose manifests keep them free of the
//! service (and of tokio, sqlx and actix).

use std::fs;
use std::path::Path;

/// Every Rust file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).expect("a source file");
            out.push((path.display().to_string(), text));
        }
    }
    out
}

/// The files of `layer` (a module: its file and its directory).
fn layer(name: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let file = src.join(format!("{name}.rs"));
    if file.exists() {
        files.push((
            file.display().to_string(),
            fs::read_to_string(&file).expect("a source file"),
        ));
    }
    let dir = src.join(name);
    if dir.is_dir() {
        files.extend(sources(&dir));
    }
    assert!(!files.is_empty(), "no layer {name}");
    files
}

/// Fails with each line of `layer` that names one of `forbidden`.
fn never_names(name: &str, forbidden: &[&str]) {
    let mut found = Vec::new();
    for (path, text) in layer(name) {
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for f in forbidden {
                if code.contains(&format!("crate::{f}")) {
                    found.push(format!("{path}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "{name} reaches past its layer:\n{}",
        found.join("\n")
    );
}

#[test]
fn api_reaches_the_store_only_through_the_service() {
    never_names("api", &["store"]);
}

#[test]
fn the_service_knows_nothing_of_http() {
    never_names("service", &["api", "web", "startup"]);
}

#[test]
fn the_store_and_the_records_know_nothing_above_them() {
    for name in ["store", "domain"] {
        never_names(name, &["api", "web", "startup", "service"]);
    }
    // The store keeps the bots' levels, nothing else of them.
    never_names("store", &["ai"]);
}
