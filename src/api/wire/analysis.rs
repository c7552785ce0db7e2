//! Analysis on the wire: every legal move with its evaluation.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{BotLevel, EvaluationView, MoveBody};
use crate::service::MoveAnalysis;

/// Which analysis.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AnalysisQuery {
    /// The bot level whose search evaluates the moves (default `medium`).
    pub level: Option<BotLevel>,
    /// The round whose position is analyzed (default: the current one).
    #[param(minimum = 1)]
    pub round: Option<u32>,
    /// Analyze the position after this many moves of the round (0: its
    /// first position) instead of the live one; without it, the round's
    /// last position. 404 `position_not_found` past the round's end.
    pub ply: Option<u32>,
}

/// A legal move and how the side to move fares after it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ScoredMoveView {
    #[serde(rename = "move")]
    pub mv: MoveBody,
    /// From the view of the side to move, counting this move as the first ply.
    pub evaluation: EvaluationView,
}

/// Every legal move of the side to move, best first.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::analysis)]
pub struct AnalysisView {
    pub level: BotLevel,
    /// True when every evaluation is proven (`outcome` not null): always at
    /// `perfect` when its solver finishes within the budget, and for a
    /// finished round (no moves).
    pub exact: bool,
    /// Every legal move, best first: by score, then a quicker win, a slower
    /// loss, a proven draw before an unproven even score. Empty once the
    /// round is over.
    pub moves: Vec<ScoredMoveView>,
}

impl From<&MoveAnalysis> for AnalysisView {
    fn from(a: &MoveAnalysis) -> AnalysisView {
        AnalysisView {
            level: a.level.into(),
            exact: a.analysis.exact,
            moves: a
                .analysis
                .moves
                .iter()
                .map(|m| ScoredMoveView {
                    mv: m.mv.input().into(),
                    evaluation: m.evaluation.into(),
                })
                .collect(),
        }
    }
}
