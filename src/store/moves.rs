//! Moves and the other changes of a game (its history): the rows of
//! `moves` and `game_events`, read back in version order, and written with
//! the change they record.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::db::{Many, on_conn, on_reader};
use super::games::{parse_player, player_str};
use super::{Store, StoreError, WriteTx, parse_ts, ts};
use crate::domain::{
    ChangeKind, DeleteReason, EventRecord, EventType, GameRecord, MoveRecord, OfferKind,
};
use crate::rules::{GameKind, MoveInput};

/// A row of the moves table. A move is two numbers: `a` is the row, column
/// or board; `b` the column, nothing or the cell.
#[derive(Clone, Debug, sqlx::FromRow, Serialize, Deserialize)]
pub(super) struct MoveRow {
    pub(super) game_id: String,
    pub(super) round: i64,
    pub(super) ply: i64,
    pub(super) version: i64,
    pub(super) player: String,
    pub(super) a: i64,
    pub(super) b: Option<i64>,
    pub(super) at: String,
}

super::db::bind_row!(MoveRow: game_id, round, ply, version, player, a, b, at);

/// The columns of a move row, in [`MoveRow`]'s order.
pub(super) const MOVE_COLUMNS: &str = "game_id, round, ply, version, player, a, b, at";

impl MoveRow {
    pub(super) fn of(id: Uuid, m: &MoveRecord) -> MoveRow {
        let (a, b) = match m.mv {
            MoveInput::Cell { row, col } => (row, Some(col)),
            MoveInput::Column { column } => (column, None),
            MoveInput::BoardCell { board, cell } => (board, Some(cell)),
        };
        MoveRow {
            game_id: id.to_string(),
            round: i64::from(m.round),
            ply: i64::from(m.ply),
            version: m.version,
            player: player_str(m.player).to_owned(),
            a,
            b,
            at: ts(m.at),
        }
    }

    pub(super) fn into_record(self, kind: GameKind) -> Result<MoveRecord, StoreError> {
        let corrupt = || StoreError::Corrupt(format!("move {}/{}", self.round, self.ply));
        let mv = match (kind, self.b) {
            (GameKind::ConnectFour, None) => MoveInput::Column { column: self.a },
            (GameKind::TicTacToe | GameKind::Gomoku, Some(b)) => MoveInput::Cell {
                row: self.a,
                col: b,
            },
            (GameKind::UltimateTicTacToe, Some(b)) => MoveInput::BoardCell {
                board: self.a,
                cell: b,
            },
            _ => return Err(corrupt()),
        };
        Ok(MoveRecord {
            round: u32::try_from(self.round).map_err(|_| corrupt())?,
            ply: u32::try_from(self.ply).map_err(|_| corrupt())?,
            version: self.version,
            player: parse_player(&self.player)?,
            mv,
            at: parse_ts(&self.at)?,
        })
    }
}

/// A row of the `game_events` table: a change that is not a move.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct EventRow {
    pub(super) game_id: String,
    pub(super) version: i64,
    #[sqlx(rename = "type")]
    pub(super) event_type: String,
    pub(super) round: i64,
    /// `join`: the seat taken; `resign`: the seat that resigned; offers:
    /// the seat that offered, declined or withdrew; `timeout`: the seat
    /// whose time ran out.
    pub(super) player: Option<String>,
    pub(super) at: String,
    /// Offers: the offer's type; `takeback`: the moves left in the round;
    /// `deleted`: [`EXPIRED`] when the expiry sweeper deleted the game (NULL:
    /// a seat did).
    pub(super) detail: Option<String>,
}

/// The `detail` of a `deleted` event written by the expiry sweeper.
const EXPIRED: &str = "expired";

super::db::bind_row!(EventRow: game_id, version, event_type, round, player, at, detail);

/// The columns of an event row, in [`EventRow`]'s order.
pub(super) const EVENT_COLUMNS: &str = "game_id, version, type, round, player, at, detail";

impl EventRow {
    pub(super) fn of(id: Uuid, e: &EventRecord) -> EventRow {
        let (name, player, detail) = match e.event {
            EventType::Create => ("create", None, None),
            EventType::Join(p) => ("join", Some(p), None),
            EventType::Restart => ("restart", None, None),
            EventType::Resign(p) => ("resign", Some(p), None),
            EventType::Offer(k, p) => ("offer", Some(p), Some(k.as_str().to_owned())),
            EventType::OfferDeclined(k, p) => {
                ("offer_declined", Some(p), Some(k.as_str().to_owned()))
            }
            EventType::OfferWithdrawn(k, p) => {
                ("offer_withdrawn", Some(p), Some(k.as_str().to_owned()))
            }
            EventType::Takeback(plies) => ("takeback", None, Some(plies.to_string())),
            EventType::Draw => ("draw", None, None),
            EventType::Timeout(p) => ("timeout", Some(p), None),
            EventType::Deleted(DeleteReason::BySeat) => ("deleted", None, None),
            // A deletion by the expiry sweeper.
            EventType::Deleted(DeleteReason::Expired) => {
                ("deleted", None, Some(EXPIRED.to_owned()))
            }
            EventType::Rematch(id) => ("rematch", None, Some(id.to_string())),
            EventType::Claim(p, draw) => (
                "claim",
                Some(p),
                Some(if draw { "draw" } else { "win" }.to_owned()),
            ),
            EventType::Assistance(p) => ("assistance", Some(p), None),
        };
        EventRow {
            game_id: id.to_string(),
            version: e.version,
            event_type: name.to_owned(),
            round: i64::from(e.round),
            player: player.map(|p| player_str(p).to_owned()),
            at: ts(e.at),
            detail,
        }
    }

    pub(super) fn into_record(self) -> Result<EventRecord, StoreError> {
        let player = self.player.as_deref().map(parse_player).transpose()?;
        let offer = self.detail.as_deref().and_then(OfferKind::parse);
        let plies = self.detail.as_deref().and_then(|d| d.parse::<u32>().ok());
        let event = match (self.event_type.as_str(), player, offer, plies) {
            ("create", None, ..) => EventType::Create,
            ("join", Some(p), ..) => EventType::Join(p),
            ("restart", None, ..) => EventType::Restart,
            ("resign", Some(p), ..) => EventType::Resign(p),
            ("offer", Some(p), Some(k), _) => EventType::Offer(k, p),
            ("offer_declined", Some(p), Some(k), _) => EventType::OfferDeclined(k, p),
            ("offer_withdrawn", Some(p), Some(k), _) => EventType::OfferWithdrawn(k, p),
            ("takeback", None, _, Some(n)) => EventType::Takeback(n),
            ("draw", None, ..) => EventType::Draw,
            ("timeout", Some(p), ..) => EventType::Timeout(p),
            ("deleted", None, ..) if self.detail.is_none() => {
                EventType::Deleted(DeleteReason::BySeat)
            }
            ("deleted", None, ..) if self.detail.as_deref() == Some(EXPIRED) => {
                EventType::Deleted(DeleteReason::Expired)
            }
            ("claim", Some(p), ..) if matches!(self.detail.as_deref(), Some("win" | "draw")) => {
                EventType::Claim(p, self.detail.as_deref() == Some("draw"))
            }
            ("assistance", Some(p), ..) => EventType::Assistance(p),
            ("rematch", None, ..)
                if let Some(id) = self.detail.as_deref().and_then(|d| Uuid::parse_str(d).ok()) =>
            {
                EventType::Rematch(id)
            }
            (name, ..) => {
                return Err(StoreError::Corrupt(format!(
                    "event {name:?} ({:?}) at version {}",
                    self.detail, self.version
                )));
            }
        };
        Ok(EventRecord {
            version: self.version,
            event,
            round: u32::try_from(self.round)
                .map_err(|_| StoreError::Corrupt(format!("round {}", self.round)))?,
            at: parse_ts(&self.at)?,
        })
    }
}

/// A round's moves in order (`$1` game, `$2` round): read by the readers
/// and inside writes alike.
const ROUND_MOVES: &str = "SELECT game_id, round, ply, version, player, a, b, at \
     FROM moves WHERE game_id = $1 AND round = $2 ORDER BY ply";

impl Store {
    /// The moves of one round, in order.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn moves(
        &self,
        id: Uuid,
        kind: GameKind,
        round: u32,
    ) -> Result<Vec<MoveRecord>, StoreError> {
        let rows: Vec<MoveRow> = on_reader!(self, |c| sqlx::query_as(ROUND_MOVES)
            .bind(id.to_string())
            .bind(i64::from(round))
            .fetch_all(c)
            .await)?;
        rows.into_iter().map(|r| r.into_record(kind)).collect()
    }

    /// Every change of a game from round `from_round` on: its moves and its
    /// other events, each in version order.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn changes(
        &self,
        id: Uuid,
        kind: GameKind,
        from_round: u32,
    ) -> Result<(Vec<MoveRecord>, Vec<EventRecord>), StoreError> {
        let moves_sql = format!(
            "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 AND round >= $2 ORDER BY version"
        );
        let events_sql = format!(
            "SELECT {EVENT_COLUMNS} FROM game_events \
             WHERE game_id = $1 AND round >= $2 ORDER BY version"
        );
        let moves: Vec<MoveRow> = on_reader!(self, |c| sqlx::query_as(&moves_sql)
            .bind(id.to_string())
            .bind(i64::from(from_round))
            .fetch_all(c)
            .await)?;
        let events: Vec<EventRow> = on_reader!(self, |c| sqlx::query_as(&events_sql)
            .bind(id.to_string())
            .bind(i64::from(from_round))
            .fetch_all(c)
            .await)?;
        let moves = moves
            .into_iter()
            .map(|r| r.into_record(kind))
            .collect::<Result<_, _>>()?;
        let events = events
            .into_iter()
            .map(EventRow::into_record)
            .collect::<Result<_, _>>()?;
        Ok((moves, events))
    }

    /// The change that made `game` its stored version, when it is cheap to
    /// find: the round's last move (found by its round and ply) or an event
    /// (by its version). `None` when neither has that version.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn last_change(&self, game: &GameRecord) -> Result<Option<ChangeKind>, StoreError> {
        let id = game.id.to_string();
        let ply = game.position.ply();
        if ply > 0 {
            let sql = format!(
                "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 AND round = $2 AND ply = $3"
            );
            let row: Option<MoveRow> = on_reader!(self, |c| sqlx::query_as(&sql)
                .bind(&id)
                .bind(i64::from(game.round))
                .bind(i64::from(ply))
                .fetch_optional(c)
                .await)?;
            if let Some(m) = row.map(|r| r.into_record(game.kind())).transpose()?
                && m.version == game.version
            {
                return Ok(Some(ChangeKind::Move(m)));
            }
        }
        let sql =
            format!("SELECT {EVENT_COLUMNS} FROM game_events WHERE game_id = $1 AND version = $2");
        let row: Option<EventRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(&id)
            .bind(game.version)
            .fetch_optional(c)
            .await)?;
        Ok(row
            .map(EventRow::into_record)
            .transpose()?
            .map(|e| ChangeKind::Event(e.event)))
    }

    /// The round a game was in at `version` (the round of the last change at
    /// or before it).
    ///
    /// # Errors
    /// Database errors.
    pub async fn round_at(&self, id: Uuid, version: i64) -> Result<Option<u32>, StoreError> {
        let round: Option<i64> = on_reader!(self, |c| sqlx::query_scalar(
            "SELECT MAX(round) FROM (\
               SELECT round FROM moves WHERE game_id = $1 AND version <= $2 \
               UNION ALL SELECT round FROM game_events WHERE game_id = $1 AND version <= $2\
             ) AS changes"
        )
        .bind(id.to_string())
        .bind(version)
        .fetch_one(c)
        .await)?;
        Ok(round.and_then(|r| u32::try_from(r).ok()))
    }
}

impl WriteTx {
    /// Appends a move to the history (staged: a duplicate `(game, round,
    /// ply)` fails the batch's next statement).
    pub fn insert_move(&mut self, id: Uuid, m: &MoveRecord) {
        self.staged.moves.push(MoveRow::of(id, m));
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.played(id, m);
        }
        self.writes += 1;
    }

    /// Appends a change that is not a move (staged).
    pub fn insert_event(&mut self, id: Uuid, e: &EventRecord) {
        self.staged.events.push(EventRow::of(id, e));
        self.writes += 1;
    }

    /// The moves of a round of the game as this transaction sees them, in
    /// order.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn round_moves(
        &mut self,
        id: Uuid,
        kind: GameKind,
        round: u32,
    ) -> Result<Vec<MoveRecord>, StoreError> {
        self.flush().await?;
        let rows: Vec<MoveRow> = on_conn!(self, |c| sqlx::query_as(ROUND_MOVES)
            .bind(id.to_string())
            .bind(i64::from(round))
            .fetch_all(c)
            .await)?;
        rows.into_iter().map(|r| r.into_record(kind)).collect()
    }

    /// Takes back the moves of `round` after ply `keep` and the answers to
    /// idempotent requests from `from_version` on (they showed those moves).
    /// Record the game's new state and the `takeback` event too.
    ///
    /// # Errors
    /// Database errors.
    pub async fn take_back(
        &mut self,
        id: Uuid,
        round: u32,
        keep: u32,
        from_version: i64,
    ) -> Result<(), StoreError> {
        self.direct().await?;
        let id = id.to_string();
        on_conn!(self, |c| sqlx::query(
            "DELETE FROM moves WHERE game_id = $1 AND round = $2 AND ply > $3"
        )
        .bind(&id)
        .bind(i64::from(round))
        .bind(i64::from(keep))
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        on_conn!(self, |c| sqlx::query(
            "DELETE FROM idempotency WHERE game_id = $1 AND version >= $2"
        )
        .bind(&id)
        .bind(from_version)
        .execute(c)
        .await
        .map(|r| r.rows_affected()))?;
        Ok(())
    }
}

/// The statement that inserts staged moves.
pub(super) fn insert_moves() -> &'static Many {
    static INSERT: LazyLock<Many> = LazyLock::new(|| Many::insert("moves", MOVE_COLUMNS, ""));
    &INSERT
}

/// The statement that inserts staged events.
pub(super) fn insert_events() -> &'static Many {
    static INSERT: LazyLock<Many> =
        LazyLock::new(|| Many::insert("game_events", EVENT_COLUMNS, ""));
    &INSERT
}
