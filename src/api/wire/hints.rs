//! Bots on the wire: a bot-move request, a hint and its evaluation.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{BotLevel, MoveBody};
use crate::service;
use crate::service::Outcome;

/// Ask the server to play one move for the side to move.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"level": "easy"}))]
pub struct BotMoveRequest {
    /// Default `medium`.
    #[serde(default)]
    pub level: Option<BotLevel>,
}

/// A proven result, from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProvenOutcome {
    Win,
    Loss,
    Draw,
}

/// How good the position is for the side to move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"score": 1000, "outcome": "win", "plies": 1}))]
pub struct EvaluationView {
    /// Positive is good for the side to move; the scale depends on the level.
    pub score: i32,
    /// Where the search proved the result: `win`, `loss` or `draw`; null when it did not.
    #[schema(required = true)]
    pub outcome: Option<ProvenOutcome>,
    /// With `outcome`: in how many plies; else null.
    #[schema(required = true)]
    pub plies: Option<u32>,
}

/// A suggested move.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::hint)]
pub struct HintView {
    #[serde(rename = "move")]
    pub mv: MoveBody,
    pub level: BotLevel,
    pub evaluation: EvaluationView,
}

impl From<service::Evaluation> for EvaluationView {
    fn from(e: service::Evaluation) -> EvaluationView {
        EvaluationView {
            score: e.score,
            outcome: e.proven.map(|(o, _)| match o {
                Outcome::Win => ProvenOutcome::Win,
                Outcome::Loss => ProvenOutcome::Loss,
                Outcome::Draw => ProvenOutcome::Draw,
            }),
            plies: e.proven.map(|(_, p)| p),
        }
    }
}

impl From<&service::Hint> for HintView {
    fn from(h: &service::Hint) -> HintView {
        HintView {
            mv: h.suggestion.mv.input().into(),
            level: h.level.into(),
            evaluation: h.suggestion.evaluation.into(),
        }
    }
}
