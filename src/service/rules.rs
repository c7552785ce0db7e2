//! Rules as a service: any position of any kind, read from a line of the
//! kind's notation, and the analysis of it. Nothing is stored or read from
//! the store: a line is the whole question.

use std::net::IpAddr;

use uuid::Uuid;

use super::bots::QueuePlace;
use super::{MoveAnalysis, Result, Service, ServiceError};
use crate::ai::{self, Budget};
use crate::domain::Level;
use crate::rules::notation::{self, Line};
use crate::rules::{AnyGame, Setup};

/// The most lines one batch of positions may hold.
pub const MAX_LINES: usize = 100;

/// The work an analysis may ask for by default (`--max-analysis-work`):
/// alpha-beta nodes, or playouts in ultimate tic-tac-toe.
pub const DEFAULT_MAX_ANALYSIS_WORK: u64 = 2_000_000;

/// The wall-clock cap of an analysis bounded by work: past it the search
/// stops where it is, and the answer may differ from the next one. The
/// default work limit stays well inside it, also in ultimate tic-tac-toe,
/// where a unit of work is a whole playout.
const ANALYSIS_TIME_CAP: std::time::Duration = std::time::Duration::from_mins(1);

/// The position after `line` (the kind's notation) from the start of `setup`.
///
/// # Errors
/// `IllegalLine`: the first move that is unreadable or illegal where it
/// stands, with its index.
pub fn position(setup: Setup, line: &str) -> Result<Line> {
    notation::parse_line(setup, line).map_err(|e| ServiceError::IllegalLine(Box::new(e)))
}

impl Service {
    /// The work an analysis of `position` does when the request names none:
    /// what a bot's move within `--bot-budget-ms` would.
    fn default_analysis_work(&self, position: &AnyGame) -> u64 {
        Budget {
            time: self.bot_budget,
        }
        .work(position.kind())
    }

    /// Every legal move of `position` evaluated at `level` within `work`
    /// (the level's default when `None`): the same answer every time. It
    /// takes a place in the queue of the clients' searches, as a hint does.
    ///
    /// # Errors
    /// `InvalidOption` for a level the kind does not offer or a work of 0 or
    /// over the limit; `Busy`.
    pub async fn analyse_position(
        &self,
        position: AnyGame,
        level: Level,
        work: Option<u64>,
        client: Option<IpAddr>,
    ) -> Result<MoveAnalysis> {
        ai::check_available(&position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let work = match work {
            None => self.default_analysis_work(&position),
            Some(0) => {
                return Err(ServiceError::InvalidOption(
                    "work must be at least 1".into(),
                ));
            }
            Some(w) if w > self.max_analysis_work => {
                return Err(ServiceError::InvalidOption(format!(
                    "work may be at most {} (--max-analysis-work)",
                    self.max_analysis_work
                )));
            }
            Some(w) => w,
        };
        // The one-search-per-game rule has no game to hold here: each
        // request is its own, and counts against its client's share.
        let _place = QueuePlace::take(self, Uuid::new_v4(), client)?;
        let permit = self.thinker().await?;
        let budget = Budget {
            time: ANALYSIS_TIME_CAP,
        };
        let analysis = super::bots::client_search(permit, move || {
            ai::analyze_with_work(&position, level, 0, budget, work)
        })
        .await?
        .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        Ok(MoveAnalysis { analysis, level })
    }
}
