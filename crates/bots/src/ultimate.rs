//! Ultimate tic-tac-toe bots: Monte-Carlo tree search on the rules' engine.
//!
//! `medium` runs a small, fixed number of playouts; `hard` spends its whole
//! allowance. Both take an immediate win and avoid moves after which the
//! opponent wins at once (the tree's solver marks, see [`super::mcts`]).

use rand::Rng;

use super::limits::Meter;
use super::mcts::{self, Settings};
use super::{Level, MAX_SEARCH_MEMORY, Suggestion};
use tabula_rules::AnyMove;
use tabula_rules::ultimate::Ultimate;

/// Playouts per millisecond of budget (see [`super::Budget::work`]).
pub(super) const PLAYOUTS_PER_MILLI: u64 = 70;

/// The playouts of `medium`.
const MEDIUM_PLAYOUTS: u64 = 300;

/// The UCB1 exploration constant.
const EXPLORATION: f64 = 0.9;

/// A move for the side to move of `game` (not over) at `level`.
pub(super) fn choose(
    game: &Ultimate,
    level: Level,
    rng: &mut impl Rng,
    meter: &mut Meter,
) -> Option<Suggestion> {
    let settings = Settings {
        exploration: EXPLORATION,
        memory: MAX_SEARCH_MEMORY,
    };
    let found = if level == Level::Medium {
        let mut small = meter.child(MEDIUM_PLAYOUTS);
        let found = mcts::search(game, settings, rng, &mut small);
        meter.absorb(&small);
        found
    } else {
        mcts::search(game, settings, rng, meter)
    }?;
    Some(Suggestion {
        mv: AnyMove::UltimateTicTacToe(found.mv),
        evaluation: found.evaluation,
    })
}
