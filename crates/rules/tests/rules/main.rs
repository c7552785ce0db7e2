//! Rule-engine tests: enumerations, perft against naive oracles, properties and
//! hand-made edge cases, one module per game.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers as well as tests may unwrap: the panic is the failure message"
)]

mod connect_four;
mod connect_four_cases;
mod gomoku;
mod gomoku_cases;
mod gomoku_properties;
mod notation;
mod tic_tac_toe;
mod ultimate;
mod ultimate_cases;

use proptest::prelude::*;
use tabula_rules::{Game, PlayError, Refusal};

/// `m` is refused exactly when `expected` says so, by `check` and by its
/// absence from `legal`; a refused move leaves the position as it was, both
/// through `play` (which hands the position back) and `try_play`.
pub fn assert_refused_as<G>(
    game: &G,
    legal: &[G::Move],
    m: G::Move,
    expected: Option<Refusal>,
) -> Result<(), TestCaseError>
where
    G: Game + Clone + PartialEq + std::fmt::Debug,
{
    prop_assert_eq!(game.check(m).err(), expected);
    prop_assert_eq!(legal.contains(&m), expected.is_none());
    if let Some(refusal) = expected {
        prop_assert_eq!(
            game.clone().play(m),
            Err(PlayError {
                refusal,
                position: game.clone()
            })
        );
        let mut tried = game.clone();
        prop_assert_eq!(tried.try_play(m), Err(refusal));
        prop_assert_eq!(&tried, game);
    }
    Ok(())
}
