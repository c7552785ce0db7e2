//! TRF16: every committed Swiss case (`../shared/data/swiss/*.trf`, made by
//! bbpPairings) read, checked and written back to the same tournament.

use std::path::PathBuf;

use tabula_pairing::trf::{Colour, Outcome, parse, write};

fn cases() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/swiss");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "trf"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_committed_case_reads_its_points_agree_and_it_writes_back_the_same() {
    let cases = cases();
    assert!(cases.len() > 900, "{} cases", cases.len());
    for (name, text) in &cases {
        let t = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        // s<seed>-r<round>.trf: the tournament before that round.
        let round: usize = name
            .split("-r")
            .nth(1)
            .unwrap()
            .trim_end_matches(".trf")
            .parse()
            .unwrap();
        assert!(t.white1, "{name}");
        assert!(t.rounds.is_some_and(|r| r as usize >= round), "{name}");
        assert!((5..=48).contains(&t.players.len()), "{name}");
        for p in &t.players {
            assert_eq!(p.rounds.len(), round - 1, "{name}: player {}", p.number);
            for (r, e) in p.rounds.iter().enumerate() {
                // A game's two sides agree: the opponent names this player
                // back, with the other colour and the other result.
                if let Some(o) = e.opponent {
                    let back = t.players[o as usize - 1].rounds[r];
                    assert_eq!(back.opponent, Some(p.number), "{name} round {}", r + 1);
                    if e.outcome.played() {
                        assert_ne!(back.colour, e.colour, "{name} round {}", r + 1);
                        assert_eq!(
                            back.outcome.halves() + e.outcome.halves(),
                            2,
                            "{name} round {}",
                            r + 1
                        );
                    }
                } else {
                    assert_eq!(e.colour, None, "{name}");
                }
            }
        }
        let again = parse(&write(&t)).unwrap_or_else(|e| panic!("{name} written back: {e}"));
        assert_eq!(again, t, "{name}");
    }
}

#[test]
fn a_line_that_is_not_trf_is_told_by_its_line() {
    let good = "XXR 3\n001    1      Ann                               1500                             1.0          2 w 1\n001    2      Bob                               1400                             0.0          1 b 0\n";
    let t = parse(good).unwrap();
    assert_eq!(t.players[0].rounds[0].colour, Some(Colour::White));
    assert_eq!(t.players[1].rounds[0].outcome, Outcome::Loss);
    let wrong_points = good.replace("1.0 ", "1.5 ");
    let e = parse(&wrong_points).unwrap_err();
    assert!(
        e.message
            .contains("1.5 points written, 1.0 from its rounds"),
        "{e}"
    );
    let bad_result = good.replace("2 w 1", "2 w 7");
    assert_eq!(parse(&bad_result).unwrap_err().line, 2);
    let stranger = good.replace("          2 w 1", "          9 w 1");
    assert!(
        parse(&stranger)
            .unwrap_err()
            .message
            .contains("no other player")
    );
}

#[test]
fn lone_carriage_returns_end_lines_and_a_bye_to_come_may_be_counted_or_not() {
    let good = "XXR 3\n001    1      Ann                               1500                             1.0          2 w 1\n001    2      Bob                               1400                             0.0          1 b 0\n";
    // bbpPairings' generator ends lines with a lone CR.
    let t = parse(&good.replace('\n', "\r")).unwrap();
    assert_eq!(t.players.len(), 2);
    assert_eq!(t.rounds, Some(3));
    // Bob asks for a half-point bye in round 2: the points may count it…
    let asked = good.replace("          1 b 0", "          1 b 0  0000 - H");
    assert_eq!(parse(&asked).unwrap().players[1].points, 0);
    let counted = asked.replace(
        "1400                             0.0",
        "1400                             0.5",
    );
    assert_eq!(parse(&counted).unwrap().players[1].points, 1);
    // …but not a point more.
    let wrong = asked.replace(
        "1400                             0.0",
        "1400                             1.0",
    );
    assert!(parse(&wrong).is_err());
}
