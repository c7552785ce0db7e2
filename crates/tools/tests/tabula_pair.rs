//! `tabula-pair` (this crate's example) answers every committed Swiss case
//! (`../shared/data/swiss/`) byte for byte as bbpPairings did: the same
//! pairs, colours, bye and order. `cargo test` builds the example first.

#![allow(
    clippy::unwrap_used,
    reason = "a test may unwrap: the panic is the failure message"
)]

use std::path::PathBuf;
use std::process::Command;

fn program() -> PathBuf {
    // target/<profile>/deps/<this test> → target/<profile>/examples/tabula-pair
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("examples/tabula-pair");
    assert!(
        path.exists(),
        "{}: build it first (`cargo test` does; or `cargo build -p tabula-tools --example tabula-pair`)",
        path.display()
    );
    path
}

#[test]
fn every_committed_case_is_answered_as_bbppairings_answered_it() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/swiss");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "trf"))
        .collect();
    cases.sort();
    assert!(cases.len() > 900, "{} cases", cases.len());
    let program = program();
    let mut wrong = Vec::new();
    for case in &cases {
        let out = Command::new(&program)
            .arg("--dutch")
            .arg(case)
            .arg("-p")
            .output()
            .unwrap();
        let expected = std::fs::read_to_string(case.with_extension("pairs")).unwrap();
        let answer = match out.status.code() {
            Some(0) => String::from_utf8(out.stdout).unwrap(),
            Some(1) => "none\n".to_owned(),
            other => panic!(
                "{}: exit {other:?}: {}",
                case.display(),
                String::from_utf8_lossy(&out.stderr)
            ),
        };
        if answer != expected {
            wrong.push(case.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ: {wrong:?}",
        wrong.len(),
        cases.len()
    );
}

#[test]
fn exit_statuses_say_what_went_wrong() {
    let program = program();
    let dir = tempfile::tempdir().unwrap();
    // Not TRF16: 3.
    let bad = dir.path().join("bad.trf");
    std::fs::write(
        &bad,
        "001    1      Someone                           abcd\n",
    )
    .unwrap();
    let out = Command::new(&program)
        .arg("--dutch")
        .arg(&bad)
        .arg("-p")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A file that is not there: 3.
    let out = Command::new(&program)
        .args(["--dutch", "/nonexistent.trf", "-p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    // Two players who have met: no pairing, 1, nothing written.
    let met = dir.path().join("met.trf");
    let line = |n: u32, name: &str, rating: u32, points: &str, block: &str| {
        format!(
            "001 {n:>4}      {name:<33} {rating:>4}{:28}{points:>4}{:7}{block}\n",
            "", ""
        )
    };
    std::fs::write(
        &met,
        format!(
            "XXR 3\nXXC white1\n{}{}",
            line(1, "A", 2000, "1.0", "   2 w 1"),
            line(2, "B", 1900, "0.0", "   1 b 0")
        ),
    )
    .unwrap();
    let output = dir.path().join("out.txt");
    let out = Command::new(&program)
        .arg("--dutch")
        .arg(&met)
        .arg("-p")
        .arg(&output)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!output.exists());
    // The round robin's table for 4: three rounds of two boards, as Berger's.
    let out = Command::new(&program)
        .args(["--round-robin", "-n", "4"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Round 1\n1 4\n2 3\nRound 2\n4 3\n1 2\nRound 3\n2 4\n3 1\n"
    );
}
