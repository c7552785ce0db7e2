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

#[test]
fn nothing_below_startup_names_the_settings() {
    // `config` reads the flags and takes the service's own defaults; what a
    // layer takes of the settings, `startup` hands it.
    for name in ["service", "store", "domain", "telemetry", "clock"] {
        never_names(name, &["config"]);
    }
    never_names("config", &["api", "web", "startup"]);
}

#[test]
fn telemetry_and_the_clock_name_no_other_module() {
    for name in ["telemetry", "clock"] {
        never_names(
            name,
            &[
                "api", "web", "service", "store", "domain", "config", "startup", "ai", "rules",
            ],
        );
    }
}

/// The text of `path`'s module documentation: its leading `//!` lines.
fn module_doc(text: &str) -> String {
    text.lines()
        .take_while(|l| l.starts_with("//!") || l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The bullet of `layer` in the module map of `src/lib.rs`: from the line
/// that names it first to the next bullet.
fn map_bullet(lib: &str, layer: &str) -> Option<String> {
    let head = format!("//! - `{layer}`:");
    let mut lines = lib.lines().skip_while(|l| !l.starts_with(&head));
    let first = lines.next()?;
    let rest = lines.take_while(|l| l.starts_with("//!   "));
    Some(
        std::iter::once(first)
            .chain(rest)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

#[test]
fn every_module_is_in_the_map() {
    // A layer's modules are named in its bullet of the map in `src/lib.rs`;
    // a module's own submodules in that module's documentation (as
    // `api/wire.rs` names its files).
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let mut missing = Vec::new();
    for (path, _) in sources(&src) {
        let rel = Path::new(&path).strip_prefix(&src).expect("under src");
        let parts: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let name = parts.last().expect("a file name").clone();
        if ["lib", "main", "tests"].contains(&name.as_str()) {
            continue;
        }
        let named_in = match parts.as_slice() {
            [layer] | [layer, _] => map_bullet(&lib, layer),
            [.., parent, _] => {
                let dir = rel.parent().expect("a parent").parent().expect("a dir");
                fs::read_to_string(src.join(dir).join(format!("{parent}.rs")))
                    .ok()
                    .map(|t| module_doc(&t))
            }
            [] => None,
        };
        let listed = match parts.as_slice() {
            [_] => named_in.is_some(),
            _ => named_in.is_some_and(|doc| doc.contains(&format!("`{name}`"))),
        };
        if !listed {
            missing.push(rel.display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "modules missing from the map in src/lib.rs (or from their parent's documentation):\n{}",
        missing.join("\n")
    );
}
