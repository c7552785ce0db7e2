//! Players, their ratings, rating changes and leaderboards on the wire.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::domain::player::{KindRating, PlayerView, Ranked, RatingChange};

/// `POST /v1/players`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Ann"}))]
pub struct CreatePlayer {
    /// 1 to 32 printable characters; the name of the player's seats unless
    /// a seat is given another. NFC-normalized, white space trimmed and
    /// collapsed; a word mixing scripts (Unicode TS #39) or U+2800 is
    /// refused. Every refused name is 422 `invalid_name`.
    #[schema(min_length = 1, max_length = 32)]
    pub name: String,
    /// A bot: a player whose moves come from a program (see `docs/bots.md`).
    /// For good: it cannot be unset. Bots never quick match. Default false.
    #[serde(default)]
    pub bot: bool,
}

/// `PATCH /v1/players/me`: what a player may change of their own.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"max_games": 8}))]
pub struct PlayerUpdate {
    /// The games in progress a bot takes on at most, 1 to 64: a challenge
    /// past it is declined `too_many_games` (a tournament's pairing is not
    /// refused).
    #[serde(default, deserialize_with = "super::integral::option_u32")]
    #[schema(minimum = 1, maximum = 64)]
    pub max_games: Option<u32>,
    /// A bot only: the URL the service asks for the bot's moves (a webhook
    /// bot, see `docs/bots.md`); null removes it. The webhook address rules
    /// apply (http or https; no loopback or private address unless the
    /// server allows it). Setting it makes a new signing secret, shown once
    /// in the answer (`move_secret`).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 2000, example = "https://bot.example/move")]
    pub move_url: Option<Option<String>>,
}

/// A field that may be absent (`None`), null (`Some(None)`) or a value.
#[expect(clippy::option_option, reason = "absent, null or a value: three cases")]
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A player's rating in one kind (Glicko-2; a newcomer starts at 1500,
/// deviation 350, volatility 0.06).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerRating {
    #[schema(example = 1623.4)]
    pub rating: f64,
    /// How uncertain the rating is; it shrinks with games.
    #[schema(example = 92.1)]
    pub deviation: f64,
    #[schema(example = 0.0599)]
    pub volatility: f64,
    /// Rated rounds played in the kind.
    pub games: i64,
    /// `deviation > 110`: not on the leaderboard yet.
    pub provisional: bool,
}

impl From<&KindRating> for PlayerRating {
    fn from(r: &KindRating) -> PlayerRating {
        PlayerRating {
            rating: r.rating.rating,
            deviation: r.rating.deviation,
            volatility: r.rating.volatility,
            games: r.games,
            provisional: r.rating.provisional(),
        }
    }
}

/// A player: who holds seats across games, and their ratings.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "01936f0e-8a4b-7c3d-9e2f-1a2b3c4d5e6f", "name": "Ann",
    "created_at": "2026-11-25T10:00:00Z", "bot": false, "max_games": 4,
    "ratings": {"connect_four": {"rating": 1623.4, "deviation": 92.1, "volatility": 0.0599, "games": 14, "provisional": false}}
}))]
pub struct Player {
    /// A UUID, or `ext:<sub>` for a player known by the operator's sign-in.
    pub id: String,
    pub name: String,
    #[serde(serialize_with = "super::stamp::time")]
    pub created_at: DateTime<Utc>,
    /// Whether the player is a bot (its moves come from a program).
    pub bot: bool,
    /// The games in progress a bot takes on at most (`PATCH
    /// /v1/players/me`): a challenge past it is declined `too_many_games`.
    #[schema(minimum = 1, maximum = 64)]
    pub max_games: u32,
    /// By kind (`connect_four`, …): only kinds they have played rated.
    pub ratings: BTreeMap<String, PlayerRating>,
    /// A webhook bot's move URL: shown to the bot itself only (`GET` and
    /// `PATCH /v1/players/me`), absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub move_url: Option<String>,
    /// The secret the bot's move requests are signed with (`whsec_…`): shown
    /// once, in the answer of the `PATCH` that set `move_url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, pattern = "^whsec_")]
    pub move_secret: Option<String>,
}

impl From<&PlayerView> for Player {
    fn from(v: &PlayerView) -> Player {
        Player {
            id: v.player.id.clone(),
            name: v.player.name.clone(),
            created_at: v.player.created_at,
            bot: v.player.bot,
            max_games: v.player.max_games,
            ratings: v
                .ratings
                .iter()
                .map(|(kind, r)| (kind.as_str().to_owned(), r.into()))
                .collect(),
            move_url: None,
            move_secret: None,
        }
    }
}

/// A new player and their key, shown only here.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "player": {"id": "01936f0e-8a4b-7c3d-9e2f-1a2b3c4d5e6f", "name": "Ann", "created_at": "2026-11-25T10:00:00Z", "bot": false, "max_games": 4, "ratings": {}},
    "key": "tpk_9f2c4e0b7d3a51c8e6f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3"
}))]
pub struct PlayerCreated {
    pub player: Player,
    /// The player's secret: send it as `Authorization: Bearer <key>` to
    /// create, join or quick match as this player; it then also works as
    /// the seat's token in those games. Only its hash is stored.
    #[schema(example = "tpk_9f2c4e0b7d3a51c8e6f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3")]
    pub key: String,
}

/// One seat's rating before and after a rated round.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatRatingChange {
    #[schema(example = 1500.0)]
    pub before: f64,
    #[schema(example = 1662.3)]
    pub after: f64,
}

/// How a rated round moved both seats' ratings.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RatingChangeView {
    #[serde(rename = "X")]
    pub x: SeatRatingChange,
    #[serde(rename = "O")]
    pub o: SeatRatingChange,
}

impl From<&RatingChange> for RatingChangeView {
    fn from(c: &RatingChange) -> RatingChangeView {
        let seat = |i: usize| SeatRatingChange {
            before: c.before[i].rating,
            after: c.after[i].rating,
        };
        RatingChangeView {
            x: seat(0),
            o: seat(1),
        }
    }
}

/// A row of a leaderboard.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// The player's id.
    pub player: String,
    pub name: String,
    pub rating: f64,
    pub deviation: f64,
    /// Rated rounds played in the kind.
    pub games: i64,
    /// Whether the player is a bot.
    pub bot: bool,
    /// Whether the rating is still provisional (deviation over 110): listed
    /// only with `provisional=true`, after every settled one.
    pub provisional: bool,
}

impl From<&Ranked> for LeaderboardEntry {
    fn from(r: &Ranked) -> LeaderboardEntry {
        LeaderboardEntry {
            player: r.id.clone(),
            name: r.name.clone(),
            rating: r.rating.rating.rating,
            deviation: r.rating.rating.deviation,
            games: r.rating.games,
            bot: r.bot,
            provisional: r.rating.rating.provisional(),
        }
    }
}

/// The players of a kind who are not provisional (deviation ≤ 110), best
/// first.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [
    {"player": "01936f0e-8a4b-7c3d-9e2f-1a2b3c4d5e6f", "name": "Ann", "rating": 1702.5, "deviation": 84.3, "games": 31, "bot": false, "provisional": false},
    {"player": "ext:user-42", "name": "Bob", "rating": 1611.0, "deviation": 97.8, "games": 25, "bot": false, "provisional": false}
]}))]
pub struct Leaderboard {
    pub items: Vec<LeaderboardEntry>,
}

/// The query of a leaderboard.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// Rows, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `true`: the provisional players too, after the settled ones (default
    /// `false`).
    pub provisional: Option<bool>,
    /// `exclude`: people only (default `include`).
    #[param(inline)]
    pub bots: Option<BotRows>,
}

/// Whether a leaderboard lists bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotRows {
    Include,
    Exclude,
}

/// The query of a player's games.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerGamesQuery {
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
}
