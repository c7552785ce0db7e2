//! Query strings: listing filters, rounds, hint levels.

use serde::Deserialize;
use utoipa::IntoParams;

use super::{BotLevel, Kind, Status};

/// The query of a game listing.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only games of this kind.
    pub kind: Option<Kind>,
    /// Only games with this status.
    pub status: Option<Status>,
    /// `true`: only games with a free seat; `false`: only games without.
    pub open: Option<bool>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
}

/// Which round.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RoundQuery {
    /// The round (default: the current one).
    #[param(minimum = 1)]
    pub round: Option<u32>,
}

/// Which hint.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HintQuery {
    /// The bot level that suggests the move (default `medium`).
    pub level: Option<BotLevel>,
}
