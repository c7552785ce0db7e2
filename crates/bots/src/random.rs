//! Level `random`: any legal move, uniformly.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::{Evaluation, Suggestion};
use tabula_rules::AnyGame;

pub(super) fn choose(game: &AnyGame, rng: &mut impl Rng) -> Option<Suggestion> {
    game.legal_moves().choose(rng).map(|&mv| Suggestion {
        mv,
        evaluation: Evaluation::UNKNOWN,
    })
}
