//! Bots and hints over the rules: levels, seeded strategies and budgets.
//!
//! Strategies are deterministic: the same seed and the same position give the
//! same move. They are synchronous and CPU-bound; the service runs them off the
//! async workers.

mod easy;
mod random;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::rules::{AnyGame, AnyMove};

/// How strong a bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Any legal move.
    Random,
    /// Wins at once if it can, else blocks the opponent's immediate win, else random.
    Easy,
    /// A shallow search.
    Medium,
    /// A deep search that uses its whole time budget.
    Hard,
    /// Plays perfectly where the game is solved within the budget.
    Perfect,
}

impl Level {
    pub const ALL: [Level; 5] = [
        Level::Random,
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Perfect,
    ];

    /// The API name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Perfect => "perfect",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown level name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level `{0}`: use one of random, easy, medium, hard, perfect")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| UnknownLevel(s.to_owned()))
    }
}

/// A level that this build cannot play for a kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("level `{level}` is not available for {kind}")]
pub struct Unavailable {
    pub level: Level,
    pub kind: &'static str,
}

/// What the search proved about the position, from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Loss,
    Draw,
}

/// A score from the mover's view (positive is good for the mover) and,
/// where the search proved it, the outcome and in how many plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub score: i32,
    pub proven: Option<(Outcome, u32)>,
}

impl Evaluation {
    /// Nothing known.
    pub const UNKNOWN: Evaluation = Evaluation {
        score: 0,
        proven: None,
    };
}

/// A move chosen by a bot, with its evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub mv: AnyMove,
    pub evaluation: Evaluation,
}

/// What a search may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub time: Duration,
}

/// Whether `level` can be played for the game of `game`.
///
/// # Errors
/// [`Unavailable`] when this build has no such bot.
pub fn check_available(game: &AnyGame, level: Level) -> Result<(), Unavailable> {
    match level {
        Level::Random | Level::Easy => Ok(()),
        Level::Medium | Level::Hard | Level::Perfect => Err(Unavailable {
            level,
            kind: game.kind().as_str(),
        }),
    }
}

/// Chooses a move for the side to move. `None` when the game is over.
///
/// # Errors
/// [`Unavailable`] when this build has no such bot.
pub fn choose(
    game: &AnyGame,
    level: Level,
    seed: u64,
    _budget: Budget,
) -> Result<Option<Suggestion>, Unavailable> {
    check_available(game, level)?;
    if game.is_over() {
        return Ok(None);
    }
    let mut rng = rng_for(game, seed);
    Ok(match level {
        Level::Random => random::choose(game, &mut rng),
        _ => easy::choose(game, &mut rng),
    })
}

/// A generator that depends only on the seed and the position.
fn rng_for(game: &AnyGame, seed: u64) -> ChaCha8Rng {
    // FNV-1a over the snapshot: stable across runs and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in game.encode() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(seed ^ hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameKind, Setup};

    #[test]
    fn levels_round_trip_through_their_names() {
        for level in Level::ALL {
            assert_eq!(level.as_str().parse::<Level>(), Ok(level));
        }
        assert!("godlike".parse::<Level>().is_err());
    }

    #[test]
    fn the_same_seed_and_position_give_the_same_move() {
        for kind in GameKind::ALL {
            let game = AnyGame::new(Setup::default_for(kind));
            let budget = Budget {
                time: Duration::from_millis(10),
            };
            let a = choose(&game, Level::Random, 42, budget).unwrap().unwrap();
            let b = choose(&game, Level::Random, 42, budget).unwrap().unwrap();
            assert_eq!(a, b);
            let many: std::collections::HashSet<_> = (0..20)
                .map(|s| choose(&game, Level::Random, s, budget).unwrap().unwrap().mv)
                .collect();
            assert!(many.len() > 1, "different seeds should vary the move");
        }
    }
}
