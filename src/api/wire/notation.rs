//! Notation on the wire: a round's moves as one string, and how it ended.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::game::{GameOptions, options_of};
use super::{Kind, Side};
use crate::rules::AnyGame;
use crate::service::{self, RoundNotation};

/// How a round ended: the winner's side, or `draw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum RoundResult {
    X,
    O,
    #[serde(rename = "draw")]
    Draw,
}

impl From<service::RoundResult> for RoundResult {
    fn from(r: service::RoundResult) -> RoundResult {
        match r {
            service::RoundResult::Won(p) => match Side::from(p) {
                Side::X => RoundResult::X,
                Side::O => RoundResult::O,
            },
            service::RoundResult::Draw => RoundResult::Draw,
        }
    }
}

/// A round's moves in the kind's notation.
///
/// `connect_four`: a column digit `1`..`7` per move, no separator
/// (`"4453"`); `tic_tac_toe`: a cell digit `1`..`9` per move, row-major from
/// the top left, no separator; `gomoku`: a column letter (`a` = left) and a
/// row number (`1` = bottom) per move, separated by single spaces (`"h8 i9"`:
/// h8 is the centre of 15x15); `ultimate_tic_tac_toe`: two digits per move,
/// board then cell, each `1`..`9` row-major, separated by single spaces
/// (`"55 51"`). A round with no move is `""`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::notation)]
pub struct NotationView {
    pub kind: Kind,
    /// The game's options, as the game shows them.
    pub options: GameOptions,
    /// The round (1 for the first).
    pub round: u32,
    /// The round's moves in order, in the kind's notation; send it as
    /// `moves` to `POST /v1/games` to start a game from this line.
    pub moves: String,
    /// The winner (by a line, or by the other side's resignation), `draw`,
    /// or null while the round is in progress or when a restart ended it
    /// unfinished.
    #[schema(required = true)]
    pub result: Option<RoundResult>,
}

impl From<&RoundNotation> for NotationView {
    fn from(n: &RoundNotation) -> NotationView {
        NotationView {
            kind: n.setup.kind().into(),
            options: options_of(n.setup, &AnyGame::new(n.setup)),
            round: n.round,
            moves: n.moves.clone(),
            result: n.result.map(Into::into),
        }
    }
}
