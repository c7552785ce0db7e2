//! The records the service works with: a game as stored (its position,
//! seats, round and version), its moves and other changes, seat tokens, the
//! filter of a listing, a stored idempotent answer, and the bot [`Level`].
//!
//! They are plain values over the rules' types. The service builds and
//! changes them, the store persists them (`store` depends on this module,
//! not the other way round), and the HTTP layer renders them. Nothing here
//! does I/O.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::rules::{AnyGame, GameKind, MoveInput, Player, Status};

/// How strong a bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Any legal move.
    Random,
    /// Wins at once if it can, else blocks the opponent's immediate win, else random.
    Easy,
    /// A shallow search.
    Medium,
    /// A deep search that uses its whole budget.
    Hard,
    /// Plays perfectly where the game is solved within the budget.
    Perfect,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [
        Level::Random,
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Perfect,
    ];

    /// The API (and database) name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Perfect => "perfect",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown level name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level `{0}`: use one of random, easy, medium, hard, perfect")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| UnknownLevel(s.to_owned()))
    }
}

/// The SHA-256 of a seat token: what is stored instead of the token.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// Hashes a presented token.
    #[must_use]
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    /// A stored hash back from its bytes; `None` unless there are 32.
    #[must_use]
    pub fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        bytes.try_into().ok().map(TokenHash)
    }

    /// The hash's bytes, as stored.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenHash(…)")
    }
}

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person; `token` is `None` while the seat is open.
    Human { token: Option<TokenHash> },
    /// A server bot.
    Bot { level: Level, seed: u64 },
}

impl Seat {
    /// A human seat nobody has taken yet.
    #[must_use]
    pub fn is_open(&self) -> bool {
        matches!(self, Seat::Human { token: None })
    }
}

/// The game-level status, which adds `waiting` and resignation to the
/// position's own status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Waiting,
    InProgress,
    Won,
    Draw,
}

impl GameStatus {
    pub const ALL: [GameStatus; 4] = [
        GameStatus::Waiting,
        GameStatus::InProgress,
        GameStatus::Won,
        GameStatus::Draw,
    ];

    /// The API (and database) name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::InProgress => "in_progress",
            GameStatus::Won => "won",
            GameStatus::Draw => "draw",
        }
    }

    /// The status named `s`, if any.
    #[must_use]
    pub fn parse(s: &str) -> Option<GameStatus> {
        GameStatus::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Line,
    FullBoard,
    Resignation,
}

impl EndReason {
    /// The API name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Line => "line",
            EndReason::FullBoard => "full_board",
            EndReason::Resignation => "resignation",
        }
    }
}

/// A game as stored: the current round's position and everything around it.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub id: Uuid,
    pub position: AnyGame,
    /// Seats X and O, indexed by [`Player::index`].
    pub seats: [Seat; 2],
    pub hotseat: bool,
    pub round: u32,
    /// The seat that resigned the current round, if any.
    pub resigned: Option<Player>,
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl GameRecord {
    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.position.kind()
    }

    #[must_use]
    pub fn seat(&self, player: Player) -> &Seat {
        &self.seats[player.index()]
    }

    /// Whether a human seat is still free.
    #[must_use]
    pub fn has_open_seat(&self) -> bool {
        self.seats.iter().any(Seat::is_open)
    }

    /// Whether the round is over (line, full board or resignation).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.resigned.is_some() || self.position.is_over()
    }

    /// The status, winner and end reason of the current round.
    #[must_use]
    pub fn outcome(&self) -> (GameStatus, Option<Player>, Option<EndReason>) {
        if let Some(loser) = self.resigned {
            return (
                GameStatus::Won,
                Some(loser.other()),
                Some(EndReason::Resignation),
            );
        }
        match self.position.status() {
            Status::Won { winner, .. } => (GameStatus::Won, Some(winner), Some(EndReason::Line)),
            Status::Draw => (GameStatus::Draw, None, Some(EndReason::FullBoard)),
            Status::InProgress { .. } if self.has_open_seat() => (GameStatus::Waiting, None, None),
            Status::InProgress { .. } => (GameStatus::InProgress, None, None),
        }
    }

    /// The seat whose token matches, if any. In a hotseat game the token
    /// matches both seats; the side to move is returned.
    #[must_use]
    pub fn seat_of(&self, token: &TokenHash) -> Option<Player> {
        let matches =
            |p: Player| matches!(self.seat(p), Seat::Human { token: Some(t) } if t == token);
        let to_move = self.position.to_move();
        [to_move, to_move.other()].into_iter().find(|&p| matches(p))
    }
}

/// One played move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    pub round: u32,
    /// 1 for the first move of a round.
    pub ply: u32,
    /// The game's version after this move.
    pub version: i64,
    pub player: Player,
    pub mv: MoveInput,
    pub at: DateTime<Utc>,
}

/// What a change that is not a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Create,
    /// The seat taken.
    Join(Player),
    Restart,
    /// The seat that resigned.
    Resign(Player),
    /// The game was deleted: its last change, at a version of its own.
    Deleted(DeleteReason),
}

/// Why a game was deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteReason {
    /// A seat of the game deleted it (`DELETE /v1/games/{id}`).
    BySeat,
    /// The expiry sweeper deleted it: waiting, finished or idle for too long
    /// (see `service::Expiry`).
    Expired,
}

/// A change that is not a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRecord {
    pub version: i64,
    pub event: EventType,
    /// The round after the change.
    pub round: u32,
    pub at: DateTime<Utc>,
}

/// The filter of a game listing.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub kind: Option<GameKind>,
    pub status: Option<GameStatus>,
    pub open: Option<bool>,
    /// Only games older than this cursor.
    pub before: Option<i64>,
    pub limit: u32,
}

/// What an idempotent request asked, hashed: the SHA-256 of its operation
/// (one per method and route), its body in canonical form (as parsed, so
/// that the same body spelled otherwise is the same request) and its token's
/// hash. The record of an `Idempotency-Key` holds it, so that the key reused
/// for another request is told apart from a retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestHash([u8; 32]);

impl RequestHash {
    /// The hash of `operation` with canonical `body`, sent with `token`.
    #[must_use]
    pub fn of(operation: &str, body: &str, token: &TokenHash) -> RequestHash {
        let mut hash = Sha256::new();
        for part in [operation.as_bytes(), body.as_bytes()] {
            hash.update(part.len().to_le_bytes());
            hash.update(part);
        }
        hash.update(token.as_bytes());
        RequestHash(hash.finalize().into())
    }

    /// As stored: lower-case hex.
    #[must_use]
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// A stored hash back from its hex; `None` unless it is 32 bytes of hex.
    #[must_use]
    pub fn from_hex(s: &str) -> Option<RequestHash> {
        hex::decode(s).ok()?.try_into().ok().map(RequestHash)
    }
}

/// The record of an `Idempotency-Key`: the request it was first sent with
/// (`None` for records stored before requests were hashed, which answer any
/// retry) and the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotentRecord {
    pub request: Option<RequestHash>,
    pub response: StoredResponse,
}

impl IdempotentRecord {
    /// Whether `request` is a retry of the recorded one.
    #[must_use]
    pub fn answers(&self, request: &RequestHash) -> bool {
        self.request.is_none_or(|r| r == *request)
    }
}

/// A stored answer to an idempotent request: its status, its JSON body, and
/// the version of the game the body carries (its `ETag`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
    pub version: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_through_their_names() {
        for level in Level::ALL {
            assert_eq!(level.as_str().parse::<Level>(), Ok(level));
        }
        assert!("godlike".parse::<Level>().is_err());
    }

    #[test]
    fn statuses_round_trip_through_their_names() {
        for status in GameStatus::ALL {
            assert_eq!(GameStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(GameStatus::parse("over"), None);
    }

    #[test]
    fn a_token_hash_is_32_bytes_and_does_not_show_itself() {
        let hash = TokenHash::of("secret");
        assert_eq!(TokenHash::from_slice(hash.as_bytes()), Some(hash));
        assert_eq!(TokenHash::from_slice(&[0; 31]), None);
        assert!(!format!("{hash:?}").contains("secret"));
        assert_ne!(TokenHash::of("other"), hash);
    }

    #[test]
    fn a_request_hash_tells_operation_body_and_token_apart_and_round_trips() {
        let t = TokenHash::of("t");
        let h = RequestHash::of("play", r#"{"column":3}"#, &t);
        assert_eq!(RequestHash::from_hex(&h.to_hex()), Some(h));
        assert_eq!(RequestHash::from_hex("00"), None);
        assert_ne!(RequestHash::of("bot_move", r#"{"column":3}"#, &t), h);
        assert_ne!(RequestHash::of("play", r#"{"column":4}"#, &t), h);
        assert_ne!(
            RequestHash::of("play", r#"{"column":3}"#, &TokenHash::of("u")),
            h
        );
        // Parts cannot slide into each other.
        assert_ne!(
            RequestHash::of("ab", "c", &t),
            RequestHash::of("a", "bc", &t)
        );
    }
}
