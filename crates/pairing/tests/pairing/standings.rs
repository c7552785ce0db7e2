//! Standings as the contract defines them, on tournaments worked out by
//! hand: Buchholz with its contributions for byes, forfeits and played
//! games, Cut-1, Sonneborn-Berger, each system's order; arena streaks.

use tabula_pairing::standings::{ArenaResult, System, arena_performance, arena_points, table};
use tabula_pairing::trf::{Colour, Entry, Outcome, Player, Tournament};

fn game(opponent: u32, colour: Colour, outcome: Outcome) -> Entry {
    Entry {
        opponent: Some(opponent),
        colour: Some(colour),
        outcome,
    }
}

fn off(outcome: Outcome) -> Entry {
    Entry {
        opponent: None,
        colour: None,
        outcome,
    }
}

fn tournament(rounds: Vec<Vec<Entry>>) -> Tournament {
    Tournament {
        name: None,
        rounds: Some(2),
        white1: true,
        players: rounds
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let mut p = Player {
                    number: u32::try_from(i + 1).unwrap(),
                    name: format!("P{}", i + 1),
                    rating: 0,
                    points: 0,
                    rounds: r,
                };
                p.points = p.scored();
                p
            })
            .collect(),
    }
}

#[test]
fn a_swiss_table_counts_byes_and_forfeits_as_the_entrants_own_points() {
    use Colour::{Black as B, White as W};
    // Round 1: 1-4 won by 1, 2-5 drawn, 3 the bye. Round 2: 3-1 won by 3,
    // 2-4 won by 2 by forfeit, 5 the bye.
    let t = tournament(vec![
        vec![game(4, W, Outcome::Win), game(3, B, Outcome::Loss)],
        vec![game(5, W, Outcome::Draw), game(4, W, Outcome::ForfeitWin)],
        vec![off(Outcome::Bye), game(1, W, Outcome::Win)],
        vec![game(1, B, Outcome::Loss), game(2, B, Outcome::ForfeitLoss)],
        vec![game(2, B, Outcome::Draw), off(Outcome::Bye)],
    ]);
    let lines = table(&t, System::Swiss);
    let order: Vec<u32> = lines.iter().map(|l| l.number).collect();
    // 3 (2.0); 2 and 5 (1.5) tied on Cut-1, Buchholz and SB: by starting rank;
    // 1 (1.0); 4 (0).
    assert_eq!(order, vec![3, 2, 5, 1, 4]);
    let by = |n: u32| lines.iter().find(|l| l.number == n).unwrap().clone();
    // Player 1: opponents 4 (0) and 3 (2.0): Buchholz 2.0, Cut-1 2.0.
    assert_eq!(
        (by(1).buchholz, by(1).buchholz_cut1, by(1).sonneborn_berger),
        (4, 4, 0)
    );
    // Player 2: 5 (1.5) over the board, its own 1.5 for the forfeit.
    assert_eq!(
        (by(2).buchholz, by(2).buchholz_cut1, by(2).sonneborn_berger),
        (6, 3, 3)
    );
    // Player 3: its own 2.0 for the bye, 1 (1.0) beaten: SB 1.0 (4 quarters).
    assert_eq!(
        (by(3).buchholz, by(3).buchholz_cut1, by(3).sonneborn_berger),
        (6, 4, 4)
    );
    assert_eq!((by(3).byes, by(3).played, by(3).wins), (1, 1, 1));
    assert_eq!(
        (by(4).played, by(4).losses),
        (1, 1),
        "a forfeit is no game played"
    );
    assert_eq!(
        lines.iter().map(|l| l.rank).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5]
    );
}

#[test]
fn a_round_robin_ties_on_sonneborn_berger_then_wins() {
    use Colour::{Black as B, White as W};
    // Four entrants, three rounds (Berger's table for 4).
    let t = tournament(vec![
        vec![
            game(4, W, Outcome::Win),
            game(2, W, Outcome::Loss),
            game(3, B, Outcome::Win),
        ],
        vec![
            game(3, W, Outcome::Draw),
            game(1, B, Outcome::Win),
            game(4, W, Outcome::Draw),
        ],
        vec![
            game(2, B, Outcome::Draw),
            game(4, B, Outcome::Win),
            game(1, W, Outcome::Loss),
        ],
        vec![
            game(1, B, Outcome::Loss),
            game(3, W, Outcome::Loss),
            game(2, B, Outcome::Draw),
        ],
    ]);
    let lines = table(&t, System::RoundRobin);
    // 1 and 2 have 2.0 each: 2's SB 3.0 (1 beaten, 3 and 4 drawn) over 1's 2.0.
    assert_eq!(
        lines.iter().map(|l| l.number).collect::<Vec<_>>(),
        vec![2, 1, 3, 4]
    );
    assert_eq!(lines[0].sonneborn_berger, 12);
    assert_eq!(lines[1].sonneborn_berger, 8);
}

#[test]
fn tied_on_points_and_sonneborn_berger_a_round_robin_counts_wins_a_swiss_the_starting_rank() {
    use Colour::{Black as B, White as W};
    // Everyone scores 1.5 and has SB 2.25 (9 quarters): 1 drew its three
    // games, 2, 3 and 4 each won one, drew one and lost one.
    let t = tournament(vec![
        vec![
            game(4, W, Outcome::Draw),
            game(2, W, Outcome::Draw),
            game(3, B, Outcome::Draw),
        ],
        vec![
            game(3, W, Outcome::Win),
            game(1, B, Outcome::Draw),
            game(4, W, Outcome::Loss),
        ],
        vec![
            game(2, B, Outcome::Loss),
            game(4, B, Outcome::Win),
            game(1, W, Outcome::Draw),
        ],
        vec![
            game(1, B, Outcome::Draw),
            game(3, W, Outcome::Loss),
            game(2, B, Outcome::Win),
        ],
    ]);
    let rr = table(&t, System::RoundRobin);
    assert!(
        rr.iter().all(|l| l.points == 3 && l.sonneborn_berger == 9),
        "{rr:?}"
    );
    assert_eq!(
        rr.iter().map(|l| l.number).collect::<Vec<_>>(),
        vec![2, 3, 4, 1]
    );
    let swiss = table(&t, System::Swiss);
    assert_eq!(
        swiss.iter().map(|l| l.number).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
}

#[test]
fn an_arena_doubles_after_two_wins_in_a_row_until_a_game_is_not_won() {
    use ArenaResult::{Draw as D, Loss as L, Win as W};
    assert_eq!(arena_points(&[]), (0, false));
    assert_eq!(arena_points(&[W, W]), (4, true));
    assert_eq!(arena_points(&[W, W, W]), (8, true));
    // 2 2 4, a draw on fire 2, then 2 2 4, and a loss ends it.
    assert_eq!(arena_points(&[W, W, W, D, W, W, W, L]), (18, false));
    assert_eq!(arena_points(&[W, D, W, L, W]), (7, false));
    // Performance: the opponents' mean (1500 for the unrated) + 400 × (W − L) ÷ games.
    let p = arena_performance(&[(Some(1600.0), W), (None, L), (Some(1700.0), W)]).unwrap();
    assert!((p - (1600.0 + 400.0 / 3.0)).abs() < 1e-9, "{p}");
    assert_eq!(arena_performance(&[]), None);
}
