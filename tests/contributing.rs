//! `docs/contributing.md` names files in the order a change touches them:
//! every path it names exists, so a file moved or renamed without the page
//! fails here.

use std::path::Path;

/// The backticked words of `text` that look like paths in the repository:
/// they name a directory and a file, or end with `/`.
fn paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|word| {
            !word.contains(' ')
                && (word.starts_with("src/")
                    || word.starts_with("tests/")
                    || word.starts_with("migrations/")
                    || word.starts_with("openapi/")
                    || word.starts_with("clients/")
                    || word.starts_with("docs/")
                    || word.starts_with("web/")
                    || word.starts_with("scripts/")
                    || word.starts_with("../shared/"))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_path_the_recipes_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/contributing.md")).expect("the page");
    let named = paths(&text);
    // The four recipes name at least a route's, a field's, a change's and an
    // error's files: far more than a handful.
    assert!(named.len() > 20, "only {} paths found", named.len());
    let missing: Vec<&String> = named
        .iter()
        .filter(|p| !p.starts_with("../shared/") && !root.join(p.as_str()).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/contributing.md names paths that do not exist: {missing:?}"
    );
}
