//! Level `easy`: win at once if possible, else block the opponent's immediate
//! win, else play at random.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::{Evaluation, Outcome, Suggestion, random};
use tabula_rules::AnyGame;

/// Score given to a move that wins at once.
const WIN_SCORE: i32 = 1000;

pub(super) fn choose(game: &AnyGame, rng: &mut impl Rng) -> Option<Suggestion> {
    let me = game.to_move();
    let threats = game.threats();
    let wins: Vec<_> = threats
        .iter()
        .filter(|t| t.player == me)
        .map(|t| t.mv)
        .collect();
    if let Some(&mv) = wins.choose(rng) {
        return Some(Suggestion {
            mv,
            evaluation: Evaluation {
                score: WIN_SCORE,
                proven: Some((Outcome::Win, 1)),
            },
        });
    }
    let blocks: Vec<_> = threats
        .iter()
        .filter(|t| t.player != me && game.check(t.mv).is_ok())
        .map(|t| t.mv)
        .collect();
    if let Some(&mv) = blocks.choose(rng) {
        return Some(Suggestion {
            mv,
            evaluation: Evaluation::UNKNOWN,
        });
    }
    random::choose(game, rng)
}
