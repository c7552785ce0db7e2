//! The SQLite backend.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::pool::PoolConnection;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Row, Sqlite};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::writer::{self, Job, JobFn, TypedJob};
use super::{
    EventRecord, EventType, GameRecord, ListFilter, MoveRecord, Seat, StoreError, StoredResponse,
    TokenHash,
};
use crate::ai::Level;
use crate::rules::{AnyGame, GameKind, MoveInput, Player};

/// SQLite result codes (primary, the low byte) that mean "cannot write now".
const SQLITE_BUSY: i64 = 5;
const SQLITE_LOCKED: i64 = 6;
const SQLITE_READONLY: i64 = 8;
const SQLITE_IOERR: i64 = 10;
const SQLITE_FULL: i64 = 13;
const SQLITE_CANTOPEN: i64 = 14;

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        let unavailable = match &e {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
            sqlx::Error::Database(db) => {
                db.code()
                    .and_then(|c| c.parse::<i64>().ok())
                    .is_some_and(|c| {
                        matches!(
                            c & 0xff,
                            SQLITE_BUSY
                                | SQLITE_LOCKED
                                | SQLITE_READONLY
                                | SQLITE_IOERR
                                | SQLITE_FULL
                                | SQLITE_CANTOPEN
                        )
                    })
            }
            _ => false,
        };
        if unavailable {
            StoreError::Unavailable(e)
        } else {
            StoreError::Database(e)
        }
    }
}

/// The database: one writer task (owning the one write connection) and a
/// pool of readers.
#[derive(Clone, Debug)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
    jobs: mpsc::Sender<Box<dyn Job>>,
}

impl std::fmt::Debug for dyn Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn parse_ts(s: &str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("timestamp {s:?}: {e}")))
}

fn player_str(p: Player) -> &'static str {
    match p {
        Player::X => "X",
        Player::O => "O",
    }
}

fn parse_player(s: &str) -> Result<Player, StoreError> {
    match s {
        "X" => Ok(Player::X),
        "O" => Ok(Player::O),
        _ => Err(StoreError::Corrupt(format!("player {s:?}"))),
    }
}

impl Store {
    /// Opens (creating if missing) the database at `url` and applies the
    /// migrations.
    ///
    /// # Errors
    /// When the file cannot be opened or a migration fails.
    pub async fn open(url: &str, read_connections: u32) -> Result<Store, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // NORMAL in WAL mode: a commit survives a crash of the process
            // (only a power loss or OS crash may lose the last commits).
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("./migrations").run(&writer).await?;
        let reader = if in_memory {
            writer.clone()
        } else {
            SqlitePoolOptions::new()
                .max_connections(read_connections.max(1))
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options.read_only(true))
                .await?
        };
        let (jobs, queue) = mpsc::channel(4096);
        tokio::spawn(writer::run(writer.clone(), queue));
        Ok(Store {
            writer,
            reader,
            jobs,
        })
    }

    /// Runs `f` in a write transaction shared with other queued writes, and
    /// answers once that transaction has committed. `f` must check before it
    /// writes: a job that fails after writing rolls back its whole batch.
    ///
    /// # Errors
    /// The job's own error, or the store's when the batch cannot commit.
    pub async fn write<T, E>(&self, f: JobFn<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Box<dyn Job> = Box::new(TypedJob { f, reply });
        if self.jobs.send(job).await.is_err() {
            return Err(E::from(StoreError::Unavailable(sqlx::Error::PoolClosed)));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(E::from(StoreError::Unavailable(sqlx::Error::PoolClosed))))
    }

    /// Whether the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    /// Closes the pools, letting queries in flight finish.
    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }

    /// A game by id, read outside any write transaction.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(GAME_BY_ID)
            .bind(id.to_string())
            .fetch_optional(&self.reader)
            .await?;
        row.map(|r| game_from_row(&r)).transpose()
    }

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
        let rows = sqlx::query(
            "SELECT round, ply, version, player, a, b, at FROM moves \
             WHERE game_id = ? AND round = ? ORDER BY ply",
        )
        .bind(id.to_string())
        .bind(i64::from(round))
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(|r| move_from_row(r, kind)).collect()
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
        let moves = sqlx::query(
            "SELECT round, ply, version, player, a, b, at FROM moves \
             WHERE game_id = ? AND round >= ? ORDER BY version",
        )
        .bind(id.to_string())
        .bind(i64::from(from_round))
        .fetch_all(&self.reader)
        .await?;
        let events = sqlx::query(
            "SELECT version, type, round, player, at FROM game_events \
             WHERE game_id = ? AND round >= ? ORDER BY version",
        )
        .bind(id.to_string())
        .bind(i64::from(from_round))
        .fetch_all(&self.reader)
        .await?;
        let moves = moves
            .iter()
            .map(|r| move_from_row(r, kind))
            .collect::<Result<_, _>>()?;
        let events = events
            .iter()
            .map(event_from_row)
            .collect::<Result<_, _>>()?;
        Ok((moves, events))
    }

    /// The round a game was in at `version` (the round of the last change at
    /// or before it).
    ///
    /// # Errors
    /// Database errors.
    pub async fn round_at(&self, id: Uuid, version: i64) -> Result<Option<u32>, StoreError> {
        let round: Option<i64> = sqlx::query_scalar(
            "SELECT MAX(round) FROM (\
               SELECT round FROM moves WHERE game_id = ?1 AND version <= ?2 \
               UNION ALL SELECT round FROM game_events WHERE game_id = ?1 AND version <= ?2)",
        )
        .bind(id.to_string())
        .bind(version)
        .fetch_one(&self.reader)
        .await?;
        Ok(round.and_then(|r| u32::try_from(r).ok()))
    }

    /// Games matching `filter`, newest first, with the cursor of the next page.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn list(
        &self,
        filter: &ListFilter,
    ) -> Result<(Vec<GameRecord>, Option<i64>), StoreError> {
        let limit = i64::from(filter.limit.max(1));
        let rows = sqlx::query(&format!(
            "SELECT seq, {GAME_COLUMNS} FROM games \
             WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR status = ?2) \
               AND (?3 IS NULL OR open_seat = ?3) AND (?4 IS NULL OR seq < ?4) \
             ORDER BY seq DESC LIMIT ?5"
        ))
        .bind(filter.kind.map(GameKind::as_str))
        .bind(filter.status.map(super::GameStatus::as_str))
        .bind(filter.open)
        .bind(filter.before)
        .bind(limit + 1)
        .fetch_all(&self.reader)
        .await?;
        let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
        let page = &rows[..rows.len().min(usize::try_from(limit).unwrap_or(usize::MAX))];
        let next = if more {
            page.last()
                .map(|r| r.try_get::<i64, _>("seq"))
                .transpose()?
        } else {
            None
        };
        let games = page.iter().map(game_from_row).collect::<Result<_, _>>()?;
        Ok((games, next))
    }
}

/// A write transaction on the writer's connection, driven by the writer task.
pub struct WriteTx {
    conn: PoolConnection<Sqlite>,
    writes: u64,
}

impl WriteTx {
    /// Starts a write transaction (takes the write lock at once).
    ///
    /// The transaction is driven with plain BEGIN/COMMIT/ROLLBACK rather than
    /// sqlx's `Transaction`: after a failed COMMIT (a full disk) SQLite may
    /// keep the transaction open, and the connection must then be rolled back
    /// and discarded, which sqlx's wrapper does not do.
    pub(super) async fn begin(pool: &SqlitePool) -> Result<WriteTx, StoreError> {
        let mut conn = pool.acquire().await?;
        if let Err(e) = sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await {
            conn.close_on_drop();
            return Err(e.into());
        }
        Ok(WriteTx { conn, writes: 0 })
    }

    /// Rolls back and discards the connection (a fresh one is opened for the
    /// next transaction, so a fault that went away is forgotten).
    pub(super) async fn abandon(mut self) {
        let _ = sqlx::query("ROLLBACK").execute(&mut *self.conn).await;
        self.conn.close_on_drop();
    }

    /// Write statements that succeeded so far in this transaction.
    pub(super) fn writes(&self) -> u64 {
        self.writes
    }

    /// The game by id, inside the transaction.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn game(&mut self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(GAME_BY_ID)
            .bind(id.to_string())
            .fetch_optional(&mut *self.conn)
            .await?;
        row.map(|r| game_from_row(&r)).transpose()
    }

    /// Inserts a new game.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_game(&mut self, game: &GameRecord) -> Result<(), StoreError> {
        let q = sqlx::query(
            "INSERT INTO games (id, kind, status, open_seat, hotseat, \
               x_type, x_token, x_level, x_seed, o_type, o_token, o_level, o_seed, \
               round, resigned, version, snapshot, created_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(game.id.to_string())
        .bind(game.kind().as_str());
        bind_state(
            bind_seats(
                q.bind(game.outcome().0.as_str())
                    .bind(game.has_open_seat())
                    .bind(game.hotseat),
                game,
            ),
            game,
        )
        .bind(ts(game.created_at))
        .bind(ts(game.updated_at))
        .execute(&mut *self.conn)
        .await?;
        self.writes += 1;
        Ok(())
    }

    /// Writes the game's new state if its stored version is still
    /// `expected_version`. Returns false (and changes nothing) otherwise.
    ///
    /// # Errors
    /// Database errors.
    pub async fn update_game(
        &mut self,
        game: &GameRecord,
        expected_version: i64,
    ) -> Result<bool, StoreError> {
        let q = sqlx::query(
            "UPDATE games SET status = ?, open_seat = ?, hotseat = ?, \
               x_type = ?, x_token = ?, x_level = ?, x_seed = ?, \
               o_type = ?, o_token = ?, o_level = ?, o_seed = ?, \
               round = ?, resigned = ?, version = ?, snapshot = ?, updated_at = ? \
             WHERE id = ? AND version = ?",
        );
        let done = bind_state(
            bind_seats(
                q.bind(game.outcome().0.as_str())
                    .bind(game.has_open_seat())
                    .bind(game.hotseat),
                game,
            ),
            game,
        )
        .bind(ts(game.updated_at))
        .bind(game.id.to_string())
        .bind(expected_version)
        .execute(&mut *self.conn)
        .await?;
        self.writes += 1;
        Ok(done.rows_affected() == 1)
    }

    /// Appends a move to the history.
    ///
    /// # Errors
    /// Database errors (a duplicate `(game, round, ply)` among them).
    pub async fn insert_move(&mut self, id: Uuid, m: &MoveRecord) -> Result<(), StoreError> {
        let (a, b) = match m.mv {
            MoveInput::Cell { row, col } => (row, Some(col)),
            MoveInput::Column { column } => (column, None),
            MoveInput::BoardCell { board, cell } => (board, Some(cell)),
        };
        sqlx::query(
            "INSERT INTO moves (game_id, round, ply, version, player, a, b, at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(id.to_string())
        .bind(i64::from(m.round))
        .bind(i64::from(m.ply))
        .bind(m.version)
        .bind(player_str(m.player))
        .bind(a)
        .bind(b)
        .bind(ts(m.at))
        .execute(&mut *self.conn)
        .await?;
        self.writes += 1;
        Ok(())
    }

    /// Appends a change that is not a move.
    ///
    /// # Errors
    /// Database errors.
    pub async fn insert_event(&mut self, id: Uuid, e: &EventRecord) -> Result<(), StoreError> {
        let (name, player) = match e.event {
            EventType::Create => ("create", None),
            EventType::Join(p) => ("join", Some(player_str(p))),
            EventType::Restart => ("restart", None),
            EventType::Resign(p) => ("resign", Some(player_str(p))),
        };
        sqlx::query(
            "INSERT INTO game_events (game_id, version, type, round, player, at) \
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(id.to_string())
        .bind(e.version)
        .bind(name)
        .bind(i64::from(e.round))
        .bind(player)
        .bind(ts(e.at))
        .execute(&mut *self.conn)
        .await?;
        self.writes += 1;
        Ok(())
    }

    /// Deletes a game with its moves and idempotency records.
    ///
    /// # Errors
    /// Database errors.
    pub async fn delete_game(&mut self, id: Uuid) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM games WHERE id = ?")
            .bind(id.to_string())
            .execute(&mut *self.conn)
            .await?;
        self.writes += 1;
        Ok(done.rows_affected() == 1)
    }

    /// The stored answer for an idempotency key of a seat, if any.
    ///
    /// # Errors
    /// Database errors.
    pub async fn idempotent(
        &mut self,
        id: Uuid,
        seat: Player,
        key: &str,
    ) -> Result<Option<StoredResponse>, StoreError> {
        let row = sqlx::query(
            "SELECT status, body FROM idempotency WHERE game_id = ? AND seat = ? AND key = ?",
        )
        .bind(id.to_string())
        .bind(player_str(seat))
        .bind(key)
        .fetch_optional(&mut *self.conn)
        .await?;
        row.map(|r| {
            let status: i64 = r.try_get("status")?;
            Ok(StoredResponse {
                status: u16::try_from(status)
                    .map_err(|_| StoreError::Corrupt(format!("status {status}")))?,
                body: r.try_get("body")?,
            })
        })
        .transpose()
    }

    /// Remembers (or replaces) the answer to an idempotent request.
    ///
    /// # Errors
    /// Database errors.
    pub async fn remember(
        &mut self,
        id: Uuid,
        seat: Player,
        key: &str,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO idempotency (game_id, seat, key, status, body, created_at) \
             VALUES (?, ?, ?, ?, ?, ?) \
             ON CONFLICT (game_id, seat, key) DO UPDATE SET status = excluded.status, body = excluded.body",
        )
        .bind(id.to_string())
        .bind(player_str(seat))
        .bind(key)
        .bind(i64::from(response.status))
        .bind(&response.body)
        .bind(ts(Utc::now()))
        .execute(&mut *self.conn)
        .await?;
        self.writes += 1;
        Ok(())
    }

    /// Makes the transaction durable.
    ///
    /// # Errors
    /// When the commit fails (nothing was written then).
    pub(super) async fn commit(mut self) -> Result<(), StoreError> {
        match sqlx::query("COMMIT").execute(&mut *self.conn).await {
            Ok(_) => Ok(()),
            Err(e) => {
                self.abandon().await;
                Err(e.into())
            }
        }
    }
}

const GAME_COLUMNS: &str = "id, kind, hotseat, x_type, x_token, x_level, x_seed, \
    o_type, o_token, o_level, o_seed, round, resigned, version, snapshot, created_at, updated_at";

const GAME_BY_ID: &str = "SELECT id, kind, hotseat, x_type, x_token, x_level, x_seed, \
    o_type, o_token, o_level, o_seed, round, resigned, version, snapshot, created_at, updated_at \
    FROM games WHERE id = ?";

type Query<'q> = sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments<'q>>;

/// Binds the seats' eight columns, X then O.
fn bind_seats<'q>(mut q: Query<'q>, game: &GameRecord) -> Query<'q> {
    for seat in &game.seats {
        q = match *seat {
            Seat::Human { token } => q
                .bind("human")
                .bind(token.map(|t| t.as_bytes().to_vec()))
                .bind(None::<String>)
                .bind(None::<i64>),
            Seat::Bot { level, seed } => q
                .bind("bot")
                .bind(None::<Vec<u8>>)
                .bind(level.as_str())
                .bind(i64::from_ne_bytes(seed.to_ne_bytes())),
        };
    }
    q
}

/// Binds round, resigned, version and snapshot.
fn bind_state<'q>(q: Query<'q>, game: &GameRecord) -> Query<'q> {
    q.bind(i64::from(game.round))
        .bind(game.resigned.map(player_str))
        .bind(game.version)
        .bind(game.position.encode())
}

fn seat_from_row(row: &SqliteRow, prefix: &str) -> Result<Seat, StoreError> {
    let kind: String = row.try_get(format!("{prefix}_type").as_str())?;
    match kind.as_str() {
        "human" => {
            let token: Option<Vec<u8>> = row.try_get(format!("{prefix}_token").as_str())?;
            let token = token
                .map(|t| {
                    TokenHash::from_slice(&t)
                        .ok_or_else(|| StoreError::Corrupt("token hash length".into()))
                })
                .transpose()?;
            Ok(Seat::Human { token })
        }
        "bot" => {
            let level: Option<String> = row.try_get(format!("{prefix}_level").as_str())?;
            let seed: Option<i64> = row.try_get(format!("{prefix}_seed").as_str())?;
            let level = level
                .as_deref()
                .and_then(|l| Level::from_str(l).ok())
                .ok_or_else(|| StoreError::Corrupt(format!("bot level {level:?}")))?;
            let seed = u64::from_ne_bytes(seed.unwrap_or_default().to_ne_bytes());
            Ok(Seat::Bot { level, seed })
        }
        other => Err(StoreError::Corrupt(format!("seat type {other:?}"))),
    }
}

fn game_from_row(row: &SqliteRow) -> Result<GameRecord, StoreError> {
    let id: String = row.try_get("id")?;
    let id = Uuid::parse_str(&id).map_err(|e| StoreError::Corrupt(format!("id: {e}")))?;
    let kind: String = row.try_get("kind")?;
    let kind = GameKind::from_str(&kind).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let snapshot: Vec<u8> = row.try_get("snapshot")?;
    let position = AnyGame::decode(kind, &snapshot)
        .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
    let round: i64 = row.try_get("round")?;
    let resigned: Option<String> = row.try_get("resigned")?;
    let created_at: String = row.try_get("created_at")?;
    let updated_at: String = row.try_get("updated_at")?;
    Ok(GameRecord {
        id,
        position,
        seats: [seat_from_row(row, "x")?, seat_from_row(row, "o")?],
        hotseat: row.try_get("hotseat")?,
        round: u32::try_from(round).map_err(|_| StoreError::Corrupt(format!("round {round}")))?,
        resigned: resigned.as_deref().map(parse_player).transpose()?,
        version: row.try_get("version")?,
        created_at: parse_ts(&created_at)?,
        updated_at: parse_ts(&updated_at)?,
    })
}

fn event_from_row(row: &SqliteRow) -> Result<EventRecord, StoreError> {
    let version: i64 = row.try_get("version")?;
    let name: String = row.try_get("type")?;
    let round: i64 = row.try_get("round")?;
    let player: Option<String> = row.try_get("player")?;
    let at: String = row.try_get("at")?;
    let player = player.as_deref().map(parse_player).transpose()?;
    let event = match (name.as_str(), player) {
        ("create", None) => EventType::Create,
        ("join", Some(p)) => EventType::Join(p),
        ("restart", None) => EventType::Restart,
        ("resign", Some(p)) => EventType::Resign(p),
        _ => {
            return Err(StoreError::Corrupt(format!(
                "event {name:?} at version {version}"
            )));
        }
    };
    Ok(EventRecord {
        version,
        event,
        round: u32::try_from(round).map_err(|_| StoreError::Corrupt(format!("round {round}")))?,
        at: parse_ts(&at)?,
    })
}

fn move_from_row(row: &SqliteRow, kind: GameKind) -> Result<MoveRecord, StoreError> {
    let round: i64 = row.try_get("round")?;
    let ply: i64 = row.try_get("ply")?;
    let version: i64 = row.try_get("version")?;
    let player: String = row.try_get("player")?;
    let a: i64 = row.try_get("a")?;
    let b: Option<i64> = row.try_get("b")?;
    let at: String = row.try_get("at")?;
    let corrupt = || StoreError::Corrupt(format!("move {round}/{ply}"));
    let mv = match (kind, b) {
        (GameKind::ConnectFour, None) => MoveInput::Column { column: a },
        (GameKind::TicTacToe | GameKind::Gomoku, Some(b)) => MoveInput::Cell { row: a, col: b },
        (GameKind::UltimateTicTacToe, Some(b)) => MoveInput::BoardCell { board: a, cell: b },
        _ => return Err(corrupt()),
    };
    Ok(MoveRecord {
        round: u32::try_from(round).map_err(|_| corrupt())?,
        ply: u32::try_from(ply).map_err(|_| corrupt())?,
        version,
        player: parse_player(&player)?,
        mv,
        at: parse_ts(&at)?,
    })
}
