//! What a write batch has written and not yet sent: both backends' batches
//! (`db/batch.rs`, `db/pg_batch.rs`) hold their jobs' writes here until
//! commit, and see their own writes through it.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreError;
use super::bound::Flush;
use super::outbox::{Hooks, Recorded, Recording, Step};
use super::players::PlayerOp;
use super::rows::{EventRow, GameColumns, IdempotencyRow, MoveRow};
use super::webhooks::WebhookOp;
use crate::domain::{GameRecord, GameStatus};

/// Whether `game` waits for an opponent under quick match's key `key`.
pub(super) fn waits_under(game: &GameRecord, key: &str) -> bool {
    game.outcome().0 == GameStatus::Waiting && game.match_key().as_deref() == Some(key)
}

/// A game written in the batch.
struct Written {
    /// Its latest state.
    state: GameRecord,
    /// Deleted: written in its latest state and marked (see
    /// [`WriteTx::delete_game`](super::WriteTx::delete_game)).
    deleted: bool,
}

/// An idempotency record to write.
struct Remembered {
    id: Uuid,
    row: IdempotencyRow,
}

/// The batch's writes, in the order they were made.
#[derive(Default)]
pub(super) struct Pending {
    /// Games written, in the order first written.
    order: Vec<Uuid>,
    written: HashMap<Uuid, Written>,
    moves: Vec<MoveRow>,
    events: Vec<EventRow>,
    remembered: Vec<Remembered>,
    /// Moves taken back: stored moves and answers to delete before the
    /// batch's own rows are written.
    truncations: Vec<Truncation>,
    /// Purge the games deleted before this time (a timestamp as stored).
    purge: Option<String>,
    /// Set when some webhook endpoint wants events: then each game's write
    /// is kept as a step, whose events are recorded at commit.
    hooks: Option<Hooks>,
    steps: Vec<Step>,
    /// Writes of the webhook tables (endpoints, delivery results).
    pub(super) ops: Vec<WebhookOp>,
    /// Writes of the players' tables (players, ratings, their games).
    pub(super) players: Vec<PlayerOp>,
}

/// A takeback's deletions: the game's moves of `round` after ply `keep`,
/// and its idempotency records from `from_version` on (the answers that
/// showed the moves taken back).
#[derive(Clone, Debug, serde::Serialize)]
pub(super) struct Truncation {
    pub(super) game_id: String,
    pub(super) round: i64,
    pub(super) keep: i64,
    pub(super) from_version: i64,
}

/// The rows of a batch, each table's a JSON array of objects keyed by
/// column name.
pub(super) struct Rows {
    /// Each game written, in order, and whether it is deleted.
    pub(super) games: Vec<(GameColumns, bool)>,
    pub(super) moves: String,
    pub(super) events: String,
    pub(super) remembered: String,
    /// Takebacks' deletions (a JSON array), to run before the inserts;
    /// `None` when there are none.
    pub(super) truncations: Option<String>,
    /// The webhook events the batch's writes made, with their deliveries.
    pub(super) recorded: Recorded,
}

impl Pending {
    /// The game as the batch wrote it: `Some(None)` once deleted, `None` if
    /// the batch has not written it.
    #[expect(
        clippy::option_option,
        reason = "the inner option is a read's answer (no such game), the outer whether the batch wrote it"
    )]
    pub(super) fn game(&self, id: Uuid) -> Option<Option<GameRecord>> {
        self.written
            .get(&id)
            .map(|w| (!w.deleted).then(|| w.state.clone()))
    }

    /// The games the batch wrote, in the order first written, that are
    /// waiting for an opponent under quick match's key `key`, other than
    /// those in `skip`.
    pub(super) fn waiting(
        &self,
        key: &str,
        since: DateTime<Utc>,
        skip: &HashSet<Uuid>,
    ) -> Vec<GameRecord> {
        self.order
            .iter()
            .filter(|id| !skip.contains(id))
            .filter_map(|id| self.written.get(id))
            .filter(|w| !w.deleted)
            .map(|w| &w.state)
            .filter(|game| waits_under(game, key) && game.updated_at >= since)
            .cloned()
            .collect()
    }

    /// Whether the batch wrote this game.
    pub(super) fn wrote(&self, id: Uuid) -> bool {
        self.written.contains_key(&id)
    }

    /// Records events from now on (see [`Hooks`]).
    pub(super) fn hook(&mut self, hooks: Option<Hooks>) {
        self.hooks = hooks;
    }

    /// Whether the batch records events, and has written a game.
    pub(super) fn records_events(&self) -> bool {
        self.hooks.is_some() && !self.steps.is_empty()
    }

    /// Records the game's new state (`deleted`: and marks it deleted);
    /// `before`: the game as the batch saw it before (none: a new game).
    pub(super) fn set(&mut self, state: GameRecord, deleted: bool, before: Option<&GameRecord>) {
        if self.hooks.is_some() {
            self.steps.push(Step {
                before: before.cloned(),
                after: state.clone(),
                deleted,
            });
        }
        let id = state.id;
        if !self.written.contains_key(&id) {
            self.order.push(id);
        }
        self.written.insert(id, Written { state, deleted });
    }

    pub(super) fn insert_move(&mut self, row: MoveRow) {
        self.moves.push(row);
    }

    pub(super) fn insert_event(&mut self, row: EventRow) {
        self.events.push(row);
    }

    pub(super) fn remember(&mut self, id: Uuid, row: IdempotencyRow) {
        self.remembered.push(Remembered { id, row });
    }

    /// The last idempotency record the batch wrote for this key.
    pub(super) fn remembered(&self, id: Uuid, key: &str) -> Option<IdempotencyRow> {
        self.remembered
            .iter()
            .rev()
            .find(|r| r.id == id && r.row.key == key)
            .map(|r| r.row.clone())
    }

    /// The last idempotency record the batch wrote under this key, in any
    /// game (a quick match's: see [`MATCH_KEY_PREFIX`](super::rows::MATCH_KEY_PREFIX)).
    pub(super) fn remembered_anywhere(&self, key: &str) -> Option<IdempotencyRow> {
        self.remembered
            .iter()
            .rev()
            .find(|r| r.row.key == key)
            .map(|r| r.row.clone())
    }

    /// Takes moves back: the batch's own moves and answers that the
    /// truncation covers are dropped here, the stored ones deleted at commit
    /// before the batch's rows are inserted (so a move played again at a
    /// ply taken back in the same batch stays).
    pub(super) fn truncate(&mut self, t: Truncation) {
        self.moves
            .retain(|m| !(m.game_id == t.game_id && m.round == t.round && m.ply > t.keep));
        self.remembered
            .retain(|r| !(r.row.game_id == t.game_id && r.row.version >= t.from_version));
        self.truncations.push(t);
    }

    /// Whether a stored move is taken back by this batch.
    pub(super) fn taken_back(&self, m: &MoveRow) -> bool {
        self.truncations
            .iter()
            .any(|t| t.game_id == m.game_id && t.round == m.round && m.ply > t.keep)
    }

    /// The batch's own moves of a game's round.
    pub(super) fn moves_of(&self, game_id: &str, round: i64) -> Vec<MoveRow> {
        self.moves
            .iter()
            .filter(|m| m.game_id == game_id && m.round == round)
            .cloned()
            .collect()
    }

    /// Purges, at commit, the games deleted before `before`.
    pub(super) fn purge_deleted(&mut self, before: String) {
        self.purge = Some(before);
    }

    /// The purge asked for, if any.
    pub(super) fn purge(&self) -> Option<&str> {
        self.purge.as_deref()
    }

    /// Whether there is no row to write.
    pub(super) fn is_empty(&self) -> bool {
        self.order.is_empty()
            && self.moves.is_empty()
            && self.events.is_empty()
            && self.remembered.is_empty()
            && self.truncations.is_empty()
            && self.ops.is_empty()
            && self.players.is_empty()
    }

    /// The rows to send as JSON (PostgreSQL's batch).
    ///
    /// # Errors
    /// `Corrupt` if a row cannot be written as JSON.
    pub(super) fn rows(&self) -> Result<Rows, StoreError> {
        Ok(Rows {
            games: self.game_rows(),
            moves: json_array(self.moves.iter())?,
            events: json_array(self.events.iter())?,
            remembered: json_array(self.remembered.iter().map(|r| &r.row))?,
            truncations: if self.truncations.is_empty() {
                None
            } else {
                Some(json_array(self.truncations.iter())?)
            },
            recorded: self.recorded()?,
        })
    }

    /// The rows to write, as they are, for SQLite's batch, which binds
    /// them one by one (see `db/bound.rs`); the webhook events' are being
    /// recorded (a move that does not decode fails the flush as they are
    /// written).
    pub(super) fn bound(&mut self, guard: Option<i64>) -> Flush<'_> {
        // Started first: the events are recorded on their own thread while
        // the rows below are made and written.
        let recorded = match &self.hooks {
            Some(hooks) if !self.steps.is_empty() => hooks
                .clone()
                .recording(std::mem::take(&mut self.steps), self.moves.clone()),
            _ => Recording::default(),
        };
        Flush {
            guard,
            games: self.game_rows(),
            truncations: &self.truncations,
            moves: &self.moves,
            events: &self.events,
            remembered: self.remembered.iter().map(|r| &r.row).collect(),
            deleted_at: super::rows::ts(Utc::now()),
            purge: self.purge.as_deref(),
            recorded,
            players: &self.players,
        }
    }

    /// Each game written, in order, as its row, and whether it is deleted.
    fn game_rows(&self) -> Vec<(GameColumns, bool)> {
        self.order
            .iter()
            .map(|id| {
                let w = &self.written[id];
                (GameColumns::of(&w.state), w.deleted)
            })
            .collect()
    }

    /// The webhook events the batch's writes made, with their deliveries.
    fn recorded(&self) -> Result<Recorded, StoreError> {
        match &self.hooks {
            Some(hooks) => hooks.record(&self.steps, &self.moves),
            None => Ok(Recorded::default()),
        }
    }

    /// The ratings the batch wrote, in order (a later one of the same
    /// player and kind replaces an earlier one).
    pub(super) fn ratings(
        &self,
    ) -> impl Iterator<
        Item = (
            (String, crate::rules::GameKind),
            crate::domain::player::KindRating,
        ),
    > + '_ {
        self.players.iter().filter_map(|op| match op {
            PlayerOp::Rating(id, kind, r) => Some(((id.clone(), *kind), *r)),
            _ => None,
        })
    }

    /// The games as committed: the state of each, `None` if deleted.
    pub(super) fn into_committed(mut self) -> impl Iterator<Item = (Uuid, Option<GameRecord>)> {
        self.order.into_iter().map(move |id| {
            let game = self
                .written
                .remove(&id)
                .and_then(|w| (!w.deleted).then_some(w.state));
            (id, game)
        })
    }
}

/// Rows as a JSON array, for `jsonb` (PostgreSQL).
///
/// # Errors
/// `Corrupt` if a row cannot be written as JSON.
pub(super) fn json_array<'r, T: serde::Serialize + 'r>(
    rows: impl Iterator<Item = &'r T>,
) -> Result<String, StoreError> {
    let rows: Vec<&T> = rows.collect();
    serde_json::to_string(&rows).map_err(|e| StoreError::Corrupt(format!("a row as JSON: {e}")))
}
