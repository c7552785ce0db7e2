//! The Dutch system against bbpPairings: every committed case (the
//! tournament before a round and the pairing bbpPairings made for it) paired
//! here the same, pair for pair, colour for colour, bye for bye. The cases:
//! `../shared/data/swiss/` (5 to 48 players) and this crate's `tests/cases/`
//! (`scripts/swiss-cases`: up to 163 players, with players who retire and
//! byes asked for).

use std::collections::BTreeSet;
use std::path::PathBuf;

use tabula_pairing::dutch::{DutchError, pair};
use tabula_pairing::trf::parse;

fn dirs() -> [PathBuf; 2] {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        here.join("../../../shared/data/swiss"),
        here.join("tests/cases"),
    ]
}

/// Every case's TRF file.
fn cases(dir: &PathBuf) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "trf"))
        .collect();
    out.sort();
    out
}

/// A round's pairs (white, black) and its bye; `None` when no pairing.
type Answer = Option<(BTreeSet<(u32, u32)>, Option<u32>)>;

/// The reference's answer.
fn expected(text: &str) -> Answer {
    let mut lines = text.lines();
    let first = lines.next()?.trim();
    if first == "none" {
        return None;
    }
    let count: usize = first.parse().unwrap();
    let mut pairs = BTreeSet::new();
    let mut bye = None;
    for line in lines.take(count) {
        let (w, b) = line.trim().split_once(' ').unwrap();
        let (w, b): (u32, u32) = (w.parse().unwrap(), b.parse().unwrap());
        if b == 0 {
            bye = Some(w);
        } else {
            pairs.insert((w, b));
        }
    }
    Some((pairs, bye))
}

#[test]
fn every_committed_case_pairs_as_bbppairings_did() {
    for dir in dirs() {
        let cases = cases(&dir);
        assert!(
            cases.len() > 200,
            "{}: {} cases",
            dir.display(),
            cases.len()
        );
        let mut wrong = Vec::new();
        for path in &cases {
            let name = path.display();
            let t = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
            let answer = std::fs::read_to_string(path.with_extension("pairs")).unwrap();
            let got: Answer = match pair(&t) {
                Ok(p) => Some((p.boards.iter().copied().collect::<BTreeSet<_>>(), p.bye)),
                Err(DutchError::NoPairing) => None,
                Err(e) => panic!("{name}: {e}"),
            };
            if got != expected(&answer) {
                wrong.push(name.to_string());
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {} differ: {:?}",
            wrong.len(),
            cases.len(),
            &wrong[..wrong.len().min(20)]
        );
    }
}
