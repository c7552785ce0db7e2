//! A new game on the wire: kind, options, seat, opponent, hotseat; parsed
//! into the service's `NewGame`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::{BotLevel, Kind, OfferType, Rule, Side, Visibility};
use crate::domain::TimeControl;
use crate::rules::{AnyGame, GameKind, GomokuOptions, GomokuRule, Player, Setup, gomoku, notation};
use crate::service::{self, Opponent};

/// Gomoku options at creation.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"size": 15, "rule": "freestyle"}))]
pub struct CreateOptions {
    /// Must equal the kind's grid if given.
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    pub rows: Option<i64>,
    /// Must equal the kind's grid if given.
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    pub columns: Option<i64>,
    /// Gomoku only: the board's side, 5 to 25, default 15.
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    #[schema(minimum = 5, maximum = 25)]
    pub size: Option<i64>,
    /// Gomoku only: `freestyle` (five or more in a row win, the default) or
    /// `standard` (exactly five).
    #[schema(value_type = Option<Rule>)]
    pub rule: Option<String>,
}

/// The other seat of a new game: `{"type": "human"}` (the default) or
/// `{"type": "bot", "level": …, "seed": …}`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpponentRequest {
    /// A person who joins with `POST /v1/games/{id}/join`. (A struct variant:
    /// serde ignores `deny_unknown_fields` on a unit variant.)
    Human {},
    /// A server bot that plays its turns itself.
    Bot {
        level: BotLevel,
        /// Same seed, same position → same move. Random when omitted.
        #[serde(default, deserialize_with = "super::integral::option_u64")]
        seed: Option<u64>,
    },
}

/// Written by hand: the derive neither closes the variants
/// (`additionalProperties: false`, as `deny_unknown_fields` does) nor lets a
/// `u64` reach past `int64`.
impl utoipa::PartialSchema for OpponentRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{
            AdditionalProperties, ObjectBuilder, OneOfBuilder, SchemaType, Type,
        };
        let tag = |value: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([value.to_owned()]))
        };
        let human = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("A person who joins with `POST /v1/games/{id}/join`."))
            .property("type", tag("human"))
            .required("type")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        let bot = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("A server bot that plays its turns itself."))
            .property("type", tag("bot"))
            .property("level", utoipa::openapi::Ref::from_schema_name("BotLevel"))
            .property(
                "seed",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                    .minimum(Some(0))
                    .maximum(Some(u64::MAX))
                    .description(Some(
                        "Same seed, same position → same move. Random when omitted.",
                    )),
            )
            .required("type")
            .required("level")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        OneOfBuilder::new()
            .item(human)
            .item(bot)
            .description(Some(
                "The other seat of a new game: a person who joins later, or a server bot.",
            ))
            .examples([json!({"type": "bot", "level": "easy", "seed": 7})])
            .into()
    }
}

impl ToSchema for OpponentRequest {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            <BotLevel as ToSchema>::name().into_owned(),
            <BotLevel as utoipa::PartialSchema>::schema(),
        ));
    }
}

/// `opponent`: serde's own message for anything but an object names Rust's
/// "internally tagged enum"; this one says what to send.
fn opponent<'de, D: Deserializer<'de>>(d: D) -> Result<Option<OpponentRequest>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(fields @ Value::Object(_)) => OpponentRequest::deserialize(fields)
            .map(Some)
            .map_err(D::Error::custom),
        Some(other) => Err(D::Error::custom(format!(
            r#"`opponent` must be an object, {{"type": "human"}} or {{"type": "bot", "level": "easy", "seed": 7}} (`seed` optional), got {other}"#
        ))),
    }
}

/// A new game. Only `kind` is required.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "connect_four", "options": {}, "seat": "X", "opponent": {"type": "human"}, "hotseat": false, "name": "Ann", "visibility": "public", "clock": {"initial_ms": 300_000, "increment_ms": 2000}}))]
pub struct CreateGame {
    pub kind: Kind,
    /// Gomoku: `{"size": 15, "rule": "freestyle"}`; other kinds take none.
    #[serde(default)]
    pub options: Option<CreateOptions>,
    /// The creator's seat, default `X`.
    #[serde(default)]
    pub seat: Option<Side>,
    /// Default: a human who joins later.
    #[serde(default, deserialize_with = "opponent")]
    pub opponent: Option<OpponentRequest>,
    /// One token plays both seats (not with a bot).
    #[serde(default)]
    pub hotseat: bool,
    /// A set-up line: the game starts from these moves, in the kind's
    /// notation (see `GET /v1/games/{id}/notation`; e.g. `"4453"` for
    /// Connect Four, `"h8 i9"` for Gomoku), each checked in turn; the
    /// history holds them as moves of round 1. A line that ends the game is
    /// taken, and the game is over. The first unreadable or illegal move is
    /// refused with 422 `illegal_move`, its `index` (0-based) and `reason`
    /// (`unreadable` for text that is not a move of the notation: moves are
    /// separated by exactly one space where the kind has a separator, and
    /// nothing else). Default: no move.
    #[serde(default)]
    #[schema(example = "4453")]
    pub moves: Option<String>,
    /// The creator's name, shown in `seats`: 1 to 32 printable characters.
    #[schema(min_length = 1, max_length = 32, example = "Ann")]
    pub name: Option<String>,
    /// `public` (default: listed, anyone may join) or `private` (not listed;
    /// the answer carries an `invite` code that `POST /join` needs).
    pub visibility: Option<Visibility>,
    /// A clock: `{"initial_ms": 300000, "increment_ms": 2000}` (Fischer)
    /// or `{"per_move_ms": 86400000}`. Default: none.
    pub clock: Option<ClockRequest>,
    /// Rated: when a round ends, both players' ratings for the kind move
    /// (Glicko-2). Only between two people (422 `invalid_option` with a bot
    /// or hotseat), and the creator must send a player's credential
    /// (401 `player_required`); so must whoever joins. Default: false.
    #[serde(default)]
    pub rated: bool,
    /// `allowed` (default): hints, analyses and bot moves answer while the
    /// round is in progress, and each seat's use shows in `assistance_used`;
    /// `forbidden`: they answer 403 `assistance_forbidden` until the round
    /// is over. Rated games are always `forbidden` (422 `invalid_option`
    /// with `allowed`).
    pub assistance: Option<super::game::AssistanceSetting>,
}

/// A time control: Fischer (`initial_ms`, optional `increment_ms`,
/// default 0) or per move (`per_move_ms`), not both.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"initial_ms": 300_000, "increment_ms": 2000}))]
pub struct ClockRequest {
    /// Each side's budget, 1000 (1 s) to 2592000000 (30 days).
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    #[schema(minimum = 1000, maximum = 2_592_000_000_i64)]
    pub initial_ms: Option<i64>,
    /// Added to a side's time after each of its moves, 0 to 3600000.
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    #[schema(minimum = 0, maximum = 3_600_000)]
    pub increment_ms: Option<i64>,
    /// The time for each move, 1000 (1 s) to 2592000000 (30 days).
    #[serde(default, deserialize_with = "super::integral::option_i64")]
    #[schema(minimum = 1000, maximum = 2_592_000_000_i64)]
    pub per_move_ms: Option<i64>,
}

impl ClockRequest {
    /// The time control asked for.
    ///
    /// # Errors
    /// `InvalidOption` unless it is one of the two forms.
    pub fn control(self) -> Result<TimeControl, service::ServiceError> {
        match (self.initial_ms, self.increment_ms, self.per_move_ms) {
            (Some(initial_ms), increment, None) => Ok(TimeControl::Fischer {
                initial_ms,
                increment_ms: increment.unwrap_or(0),
            }),
            (None, None, Some(per_move_ms)) => Ok(TimeControl::PerMove { per_move_ms }),
            (None, None, None) => Err(service::ServiceError::InvalidOption(
                r#"`clock` needs a time control: {"initial_ms": …, "increment_ms": …} (Fischer) or {"per_move_ms": …}"#
                    .into(),
            )),
            (None, Some(_), None) => Err(service::ServiceError::InvalidOption(
                r#"`clock` has `increment_ms` without `initial_ms`: {"initial_ms": …, "increment_ms": …}"#
                    .into(),
            )),
            _ => Err(service::ServiceError::InvalidOption(
                r#"`clock` is {"initial_ms": …, "increment_ms": …} or {"per_move_ms": …}, not a mix"#
                    .into(),
            )),
        }
    }
}

/// Joining: an optional name, and a private game's invite code.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Bob"}))]
pub struct JoinGame {
    /// Shown in `seats`: 1 to 32 printable characters.
    #[schema(min_length = 1, max_length = 32)]
    pub name: Option<String>,
    /// Private games: the code their creator was given.
    pub invite: Option<String>,
}

/// An offer to the other seat.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"type": "draw"}))]
pub struct OfferRequest {
    #[serde(rename = "type")]
    pub offer_type: OfferType,
}

/// A claim by the seat not to move, its opponent gone.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"result": "win"}))]
pub struct ClaimRequest {
    pub result: ClaimWanted,
}

/// What a claim asks for: the round won by the claimant, or drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimWanted {
    Win,
    Draw,
}

impl From<ClaimWanted> for crate::domain::ClaimResult {
    fn from(c: ClaimWanted) -> crate::domain::ClaimResult {
        match c {
            ClaimWanted::Win => crate::domain::ClaimResult::Win,
            ClaimWanted::Draw => crate::domain::ClaimResult::Draw,
        }
    }
}

impl CreateGame {
    /// The validated request.
    ///
    /// # Errors
    /// `InvalidOption` for options out of range or not of this kind;
    /// `IllegalLine` for a set-up line with a bad move.
    pub fn into_new_game(self) -> Result<service::NewGame, service::ServiceError> {
        let setup = setup_of(self.kind, self.options)?;
        let moves = match self.moves.as_deref() {
            None => Vec::new(),
            Some(text) => notation::parse_line(setup, text)
                .map_err(|e| service::ServiceError::IllegalLine(Box::new(e)))?
                .moves()
                .to_vec(),
        };
        let opponent = match self.opponent.unwrap_or(OpponentRequest::Human {}) {
            OpponentRequest::Human {} => Opponent::Human,
            OpponentRequest::Bot { level, seed } => Opponent::Bot {
                level: level.into(),
                seed: seed.unwrap_or_else(rand::random),
            },
        };
        if self.rated && self.assistance == Some(super::game::AssistanceSetting::Allowed) {
            return Err(service::ServiceError::InvalidOption(
                "a rated game never allows assistance: leave `assistance` out, or send `forbidden`"
                    .into(),
            ));
        }
        Ok(service::NewGame {
            assistance: crate::domain::Assistance {
                forbidden: self.assistance == Some(super::game::AssistanceSetting::Forbidden),
                used: [0, 0],
            },
            setup,
            seat: self.seat.map_or(Player::X, Into::into),
            opponent,
            hotseat: self.hotseat,
            name: self.name,
            private: self.visibility == Some(Visibility::Private),
            clock: self.clock.map(ClockRequest::control).transpose()?,
            moves,
            rated: self.rated,
            player: None,
        })
    }
}

/// The setup of a game of `kind` with `options`.
///
/// # Errors
/// `InvalidOption` for options out of range or not of this kind.
pub(super) fn setup_of(
    kind: Kind,
    options: Option<CreateOptions>,
) -> Result<Setup, service::ServiceError> {
    let invalid = |m: String| service::ServiceError::InvalidOption(m);
    let kind: GameKind = kind.into();
    let o = options.unwrap_or_default();
    let setup = if kind == GameKind::Gomoku {
        let rule = match o.rule.as_deref() {
            None => GomokuRule::Freestyle,
            Some(r) => GomokuRule::parse(r).ok_or_else(|| {
                invalid(format!("rule must be `freestyle` or `standard`, got `{r}`"))
            })?,
        };
        let size = o.size.unwrap_or(i64::from(gomoku::DEFAULT_SIZE));
        Setup::Gomoku(GomokuOptions::new(size, rule).map_err(|e| invalid(e.to_string()))?)
    } else {
        if o.size.is_some() || o.rule.is_some() {
            return Err(invalid(format!(
                "`size` and `rule` are Gomoku options; {kind} takes none"
            )));
        }
        Setup::default_for(kind)
    };
    let (rows, columns) = AnyGame::new(setup).dims();
    for (name, given, actual) in [("rows", o.rows, rows), ("columns", o.columns, columns)] {
        if given.is_some_and(|g| g != i64::from(actual)) {
            return Err(invalid(format!("{kind} has {actual} {name}")));
        }
    }
    Ok(setup)
}

/// A quick match: the kind and options of the game wanted, and the
/// caller's name. Only `kind` is required.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "gomoku", "options": {"size": 15, "rule": "freestyle"}, "name": "Ann"}))]
pub struct QuickMatch {
    pub kind: Kind,
    /// Gomoku: `{"size": 15, "rule": "freestyle"}` (the defaults); other
    /// kinds take none. Only games of the same options are matched.
    #[serde(default)]
    pub options: Option<CreateOptions>,
    /// The caller's name, shown in `seats`: 1 to 32 printable characters.
    #[schema(min_length = 1, max_length = 32, example = "Ann")]
    pub name: Option<String>,
    /// Only rated games, with a player's credential (401 `player_required`
    /// without): the waiting rated game whose player's rating is nearest
    /// the caller's, within the server's match window (300 points by
    /// default); none → a new rated game that waits. Default: false.
    #[serde(default)]
    pub rated: bool,
    /// The clock of the game wanted, as at create (required when `rated`:
    /// 422 `clock_required` without): only waiting games of the same time
    /// control are matched, and a new game waits with it.
    pub clock: Option<ClockRequest>,
}

/// What a quick match asks for: the setup, the name, whether only rated
/// games, and the clock.
pub type MatchTerms = (Setup, Option<String>, bool, Option<TimeControl>);

impl QuickMatch {
    /// The setup asked for, the name, whether only rated games, the clock.
    ///
    /// # Errors
    /// `InvalidOption` for options out of range or not of this kind, or a
    /// clock that is neither time control.
    pub fn into_parts(self) -> Result<MatchTerms, service::ServiceError> {
        Ok((
            setup_of(self.kind, self.options)?,
            self.name,
            self.rated,
            self.clock.map(ClockRequest::control).transpose()?,
        ))
    }
}

/// An optional body that carries nothing: send no body or `{}`. Fields are
/// ignored.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(example = json!({}))]
pub struct EmptyBody {}
