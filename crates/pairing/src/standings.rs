//! Standings, as the contract defines them: points, tie-breaks and order,
//! from a tournament's results. Pure: the same results give the same table.
//!
//! Swiss and round robin read a TRF tournament (`trf::Tournament`): each
//! round the tournament has played gives an entrant one Buchholz
//! contribution, its opponent's final points when the game was played over
//! the board, else (a bye, a forfeit, a round missed) its own final points;
//! Buchholz is their sum, Cut-1 the sum less the lowest contribution.
//! Sonneborn-Berger sums the final points of the opponents beaten over the
//! board and half those drawn. Arena scores a sequence of results with
//! streaks.

use crate::trf::{Outcome, Tournament};

/// The order a table is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    /// Points, Buchholz Cut-1, Buchholz, Sonneborn-Berger, starting rank.
    Swiss,
    /// Points, Sonneborn-Berger, wins, starting rank.
    RoundRobin,
}

/// One entrant's line. Points and Buchholz are in halves, Sonneborn-Berger
/// in quarters (half of a drawn opponent's half points), so that nothing
/// is rounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// From 1; entrants tied on everything share none: the starting rank
    /// decides last.
    pub rank: u32,
    /// The starting number.
    pub number: u32,
    pub points: u32,
    pub buchholz: u32,
    pub buchholz_cut1: u32,
    pub sonneborn_berger: u32,
    /// Games played over the board, and their results.
    pub played: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Pairing-allocated byes.
    pub byes: u32,
}

/// The table of `t`, best first, ordered as `system` says.
#[must_use]
pub fn table(t: &Tournament, system: System) -> Vec<Line> {
    let points: Vec<u32> = t.players.iter().map(crate::trf::Player::scored).collect();
    let mut lines: Vec<Line> = t
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let own = points[i];
            let mut contributions = Vec::with_capacity(p.rounds.len());
            let (mut sb, mut wins, mut draws, mut losses, mut byes) = (0, 0, 0, 0, 0);
            for e in &p.rounds {
                let opponent = e
                    .opponent
                    .filter(|_| e.outcome.played())
                    .and_then(|o| points.get(o as usize - 1).copied());
                contributions.push(opponent.unwrap_or(own));
                match (e.outcome, opponent) {
                    (Outcome::Win, Some(o)) => {
                        wins += 1;
                        sb += 2 * o;
                    }
                    (Outcome::Draw, Some(o)) => {
                        draws += 1;
                        sb += o;
                    }
                    (Outcome::Loss, Some(_)) => losses += 1,
                    (Outcome::Bye, _) => byes += 1,
                    _ => {}
                }
            }
            let buchholz: u32 = contributions.iter().sum();
            let lowest = contributions.iter().min().copied().unwrap_or(0);
            Line {
                rank: 0,
                number: p.number,
                points: own,
                buchholz,
                buchholz_cut1: buchholz - lowest,
                sonneborn_berger: sb,
                played: wins + draws + losses,
                wins,
                draws,
                losses,
                byes,
            }
        })
        .collect();
    lines.sort_by(|a, b| {
        let key = |l: &Line| match system {
            System::Swiss => [l.points, l.buchholz_cut1, l.buchholz, l.sonneborn_berger],
            System::RoundRobin => [l.points, l.sonneborn_berger, l.wins, 0],
        };
        key(b).cmp(&key(a)).then(a.number.cmp(&b.number))
    });
    for (i, line) in lines.iter_mut().enumerate() {
        line.rank = u32::try_from(i + 1).unwrap_or(u32::MAX);
    }
    lines
}

/// A game's result for one arena entrant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArenaResult {
    Win,
    Draw,
    Loss,
}

/// An arena entrant's points from its results in order, and whether it is
/// on fire: a win scores 2, a draw 1, a loss 0; after two wins in a row each
/// further win scores 4 and a draw 2 (on fire), until a game that is not a
/// win.
#[must_use]
pub fn arena_points(results: &[ArenaResult]) -> (u32, bool) {
    let mut points = 0;
    let mut streak = 0u32;
    for &r in results {
        let fire = streak >= 2;
        let (score, won) = match r {
            ArenaResult::Win => (2, true),
            ArenaResult::Draw => (1, false),
            ArenaResult::Loss => (0, false),
        };
        points += if fire { 2 * score } else { score };
        streak = if won { streak + 1 } else { 0 };
    }
    (points, streak >= 2)
}

/// An arena entrant's performance: the mean rating of the opponents met
/// (`None`, an unrated one, counts 1500) plus 400 × (wins − losses) ÷ games;
/// `None` before its first game.
#[must_use]
pub fn arena_performance(games: &[(Option<f64>, ArenaResult)]) -> Option<f64> {
    if games.is_empty() {
        return None;
    }
    let n = games.len() as f64;
    let mean = games.iter().map(|(r, _)| r.unwrap_or(1500.0)).sum::<f64>() / n;
    let net: f64 = games
        .iter()
        .map(|(_, r)| match r {
            ArenaResult::Win => 1.0,
            ArenaResult::Draw => 0.0,
            ArenaResult::Loss => -1.0,
        })
        .sum();
    Some(mean + 400.0 * net / n)
}
