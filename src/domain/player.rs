//! Players: who holds a seat across games, and the rated games between
//! them (the contract's "Players and ratings"). Pure values: the store
//! keeps them, the service binds them to seats and rates the rounds.

use chrono::{DateTime, Utc};

use super::TokenHash;
use super::rating::{self, Rating};
use crate::rules::{GameKind, Player};

/// The prefix of a player's key: a bearer credential that starts with it
/// is looked up as a player's key (never as a seat token).
pub const KEY_PREFIX: &str = "tpk_";

/// The prefix of the id of a player known by an operator's sign-in (a JWT
/// whose `sub` follows it).
pub const EXTERNAL_PREFIX: &str = "ext:";

/// A player bound to a seat of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatPlayer {
    /// The player's id.
    pub id: String,
    /// What also works as the seat's token in this game: the hash of the
    /// player's key, or [`external_credential`] of a signed-in player.
    pub credential: TokenHash,
    /// The player's rating in the game's kind when seated (rated games:
    /// quick match seats the nearest).
    pub rating: Option<f64>,
}

/// The players of a game's seats, whether its rounds are rated, and how
/// the ratings moved when the current round ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Players {
    /// By [`Player::index`]; `None` for a seat without a player.
    pub seats: [Option<SeatPlayer>; 2],
    pub rated: bool,
    /// Set in the transaction that ended a rated round; cleared by a new
    /// round.
    pub change: Option<RatingChange>,
    /// The round of a rated game the two players were last counted for (a
    /// round is counted once, when it starts with both seated).
    pub counted_round: Option<u32>,
    /// The current round of a rated game does not move ratings: when it
    /// began, its two players had begun their rated rounds of the window
    /// together already (see `service::players::PAIR_ROUNDS`).
    pub pair_limited: bool,
}

impl Players {
    /// Whether the current round's result moves ratings.
    #[must_use]
    pub fn round_rated(&self) -> bool {
        self.rated && !self.pair_limited
    }

    /// The player bound to `seat`.
    #[must_use]
    pub fn of(&self, seat: Player) -> Option<&SeatPlayer> {
        self.seats[seat.index()].as_ref()
    }

    /// The seat whose player's credential is `credential`, among `order`.
    #[must_use]
    pub fn seat_of(&self, credential: &TokenHash, order: [Player; 2]) -> Option<Player> {
        order
            .into_iter()
            .find(|&p| self.of(p).is_some_and(|sp| sp.credential == *credential))
    }
}

/// Both seats' ratings before and after a rated round, by [`Player::index`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingChange {
    pub before: [Rating; 2],
    pub after: [Rating; 2],
}

/// A player's rating in one kind, with the count of rated games it rests on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KindRating {
    pub rating: Rating,
    pub games: i64,
}

impl KindRating {
    /// A newcomer's: Glicko-2's start, no games.
    pub const START: KindRating = KindRating {
        rating: rating::START,
        games: 0,
    };
}

/// A player as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRecord {
    pub id: String,
    pub name: String,
    /// The hash of the player's key; `None` for a signed-in (external) player.
    pub key: Option<TokenHash>,
    pub created_at: DateTime<Utc>,
    /// A bot's moves come from a program (set at creation, for good).
    pub bot: bool,
    /// The games in progress a bot takes on at most: a challenge past it is
    /// declined (a tournament's pairing is not refused).
    pub max_games: u32,
}

/// The default of [`PlayerRecord::max_games`].
pub const DEFAULT_MAX_GAMES: u32 = 4;
/// The most [`PlayerRecord::max_games`] may be.
pub const MOST_GAMES: u32 = 64;

/// A player with their ratings, one per kind they have played rated.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerView {
    pub player: PlayerRecord,
    pub ratings: Vec<(GameKind, KindRating)>,
}

/// One row of a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    pub id: String,
    pub name: String,
    pub rating: KindRating,
    pub bot: bool,
}

/// Which rows a leaderboard lists beside the settled ratings of people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderboardRows {
    /// The provisional ratings too, after the settled ones.
    pub provisional: bool,
    /// Bots' rows too.
    pub bots: bool,
}

/// What works as the seat token of a player known by a verified JWT: a
/// hash no presented token can have (a header value never holds a line
/// feed, and the hashed text starts with one).
#[must_use]
pub fn external_credential(id: &str) -> TokenHash {
    TokenHash::of(&format!("\njwt\n{id}"))
}

/// Both players' ratings after a round whose X scored `x_score` (1 a win,
/// 0.5 a draw, 0 a loss), each with one game more.
#[must_use]
pub fn rate(before: [KindRating; 2], x_score: f64) -> [KindRating; 2] {
    let (x, o) = rating::after_game(before[0].rating, before[1].rating, x_score);
    [
        KindRating {
            rating: x,
            games: before[0].games + 1,
        },
        KindRating {
            rating: o,
            games: before[1].games + 1,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_external_credential_is_no_presented_tokens_hash() {
        let id = "ext:ada";
        assert_ne!(external_credential(id), TokenHash::of(id));
        assert_ne!(external_credential(id), TokenHash::of("jwt\next:ada"));
        assert_eq!(external_credential(id), external_credential(id));
    }

    #[test]
    fn a_win_moves_both_ratings_apart_and_counts_a_game_each() {
        let [x, o] = rate([KindRating::START, KindRating::START], 1.0);
        assert!(x.rating.rating > 1500.0 && o.rating.rating < 1500.0);
        assert!((x.rating.rating - 1500.0 + o.rating.rating - 1500.0).abs() < 1e-9);
        assert_eq!((x.games, o.games), (1, 1));
        let [x, o] = rate([KindRating::START, KindRating::START], 0.5);
        assert!((x.rating.rating - 1500.0).abs() < 1e-9 && (o.rating.rating - 1500.0).abs() < 1e-9);
        assert!(x.rating.deviation < 350.0);
    }
}
