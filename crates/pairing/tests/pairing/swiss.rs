//! The Dutch system's absolute criteria on tournaments played out here:
//! random results (draws and forfeits among them) round after round, each
//! round paired by `dutch::pair` from the tournament as it stands. Whatever
//! the results, no two players meet twice over the board, nobody has the
//! bye twice, every player present is paired once a round (the bye only
//! with an odd count), and before the last round no colour difference
//! passes ±2 and nobody has a colour three times running.

use std::collections::HashSet;

use tabula_pairing::dutch::pair;
use tabula_pairing::trf::{Colour, Entry, Outcome, Player, Tournament};

/// A small deterministic generator (xorshift), so that a failure repeats.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn tournament(players: u32, rounds: u32) -> Tournament {
    Tournament {
        name: None,
        rounds: Some(rounds),
        white1: true,
        players: (1..=players)
            .map(|number| Player {
                number,
                name: format!("P{number}"),
                rating: 2400 - 10 * number,
                points: 0,
                rounds: Vec::new(),
            })
            .collect(),
    }
}

/// Plays a round: each board's result drawn by `dice` (one in ten a
/// forfeit), the bye a point.
fn play(t: &mut Tournament, boards: &[(u32, u32)], bye: Option<u32>, dice: &mut Dice) {
    for &(w, b) in boards {
        let (ow, ob) = match dice.roll(20) {
            0 => (Outcome::ForfeitWin, Outcome::ForfeitLoss),
            1 => (Outcome::ForfeitLoss, Outcome::ForfeitWin),
            2..=7 => (Outcome::Draw, Outcome::Draw),
            8..=13 => (Outcome::Win, Outcome::Loss),
            _ => (Outcome::Loss, Outcome::Win),
        };
        for (me, them, colour, outcome) in [(w, b, Colour::White, ow), (b, w, Colour::Black, ob)] {
            let p = &mut t.players[me as usize - 1];
            p.rounds.push(Entry {
                opponent: Some(them),
                colour: outcome.played().then_some(colour),
                outcome,
            });
            p.points += outcome.halves();
        }
    }
    if let Some(n) = bye {
        let p = &mut t.players[n as usize - 1];
        p.rounds.push(Entry {
            opponent: None,
            colour: None,
            outcome: Outcome::Bye,
        });
        p.points += 2;
    }
}

#[test]
fn played_out_tournaments_keep_the_absolute_criteria() {
    let mut checked = 0;
    for (seed, players, rounds) in [
        (1, 7, 5),
        (2, 10, 7),
        (3, 11, 7),
        (4, 16, 9),
        (5, 21, 9),
        (6, 30, 11),
        (7, 45, 11),
        (8, 9, 6),
    ] {
        let mut t = tournament(players, rounds);
        let mut dice = Dice(0x9e37_79b9_7f4a_7c15 ^ seed);
        let mut met = HashSet::new();
        let mut byes = HashSet::new();
        for round in 1..=rounds {
            let pairing = pair(&t).unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
            let mut seen = HashSet::new();
            for &(w, b) in &pairing.boards {
                assert!(
                    seen.insert(w) && seen.insert(b),
                    "seed {seed} round {round}: paired twice"
                );
                assert!(
                    !met.contains(&(w.min(b), w.max(b))),
                    "seed {seed} round {round}: {w} and {b} meet again"
                );
            }
            if let Some(n) = pairing.bye {
                assert!(seen.insert(n));
                assert!(
                    byes.insert(n),
                    "seed {seed} round {round}: {n} has the bye again"
                );
            }
            assert_eq!(
                seen.len() as u32,
                players,
                "seed {seed} round {round}: someone left out"
            );
            assert_eq!(pairing.bye.is_some(), players % 2 == 1);
            play(&mut t, &pairing.boards, pairing.bye, &mut dice);
            for p in &t.players {
                if let Some(Entry {
                    opponent: Some(o),
                    outcome,
                    ..
                }) = p.rounds.last()
                    && outcome.played()
                {
                    met.insert((p.number.min(*o), p.number.max(*o)));
                }
            }
            if round == rounds {
                break;
            }
            // The colour limits (the last round may break them for a player
            // with more than half the points: not checked there).
            for p in &t.players {
                let colours: Vec<Colour> = p.rounds.iter().filter_map(|e| e.colour).collect();
                let whites = colours.iter().filter(|&&c| c == Colour::White).count() as i32;
                let blacks = colours.len() as i32 - whites;
                assert!(
                    (whites - blacks).abs() <= 2,
                    "seed {seed} round {round}: player {} has {whites} whites, {blacks} blacks",
                    p.number
                );
                assert!(
                    !colours.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                    "seed {seed} round {round}: player {} has a colour three times running",
                    p.number
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked}");
}
