//! Players and ratings: players with keys, players signed in by the
//! operator's own accounts (a JWT), seats bound to players, rated rounds
//! rated by Glicko-2 in the transaction that ends them, the leaderboard.
//!
//! A bearer credential is one of three things, told apart by its form:
//! a player's key (`tpk_…`, looked up by its hash), a JWT (three base64url
//! parts, the first a JSON header: verified with `--jwt-secret` or
//! `--jwt-public-key`), or else a seat token. A player bound to a seat may
//! use their credential as that seat's token: the seat keeps the hash of
//! the key, or for a signed-in player a hash derived from the id that no
//! presented token can have ([`external_credential`]).

use std::net::IpAddr;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use uuid::Uuid;

use super::matches::keyed_token;
use super::writes::new_token;
use super::{Result, Service, ServiceError};
use crate::domain::player::{
    DEFAULT_MAX_GAMES, EXTERNAL_PREFIX, KEY_PREFIX, KindRating, LeaderboardRows, PlayerRecord,
    PlayerView, Ranked, RatingChange, SeatPlayer, external_credential, rate,
};
use crate::domain::{GameRecord, NAME_MAX_CHARS, RequestHash, TokenHash, normalize_name};
use crate::rules::{GameKind, Player};
use crate::store::{PlayerRequest, WriteTx};

/// How rated quick match pairs players by default (`--match-window`).
pub const DEFAULT_MATCH_WINDOW: u32 = 300;

/// How players sign in and are matched.
#[derive(Debug)]
pub struct PlayerSettings {
    /// Verifies the operator's JWTs; `None`: a JWT identifies nobody.
    pub jwt: Option<JwtVerifier>,
    /// Rated quick match seats a caller with players at most this many
    /// rating points away.
    pub match_window: f64,
    /// Players by the hash of their key, as read (a key never changes
    /// hands, and a player's id and name never change).
    known: std::sync::Mutex<lru::LruCache<TokenHash, PlayerRecord>>,
    /// Player creations per client address (`--player-rate` an hour);
    /// `None`: unlimited.
    creations: Option<governor::DefaultKeyedRateLimiter<IpAddr>>,
}

/// Players one client address may create an hour by default
/// (`--player-rate`).
pub const DEFAULT_PLAYER_RATE: u32 = 10;

/// Keys whose players are remembered.
const KNOWN_KEYS: std::num::NonZeroUsize = std::num::NonZeroUsize::new(16_384).unwrap();

impl PlayerSettings {
    /// Settings with `jwt` and `match_window`.
    #[must_use]
    pub fn new(jwt: Option<JwtVerifier>, match_window: f64) -> PlayerSettings {
        PlayerSettings {
            jwt,
            match_window,
            known: std::sync::Mutex::new(lru::LruCache::new(KNOWN_KEYS)),
            creations: None,
        }
        .with_creation_rate(DEFAULT_PLAYER_RATE)
    }

    /// The same, with at most `per_hour` players created an hour per client
    /// address (in a burst, then one every hour / `per_hour`); 0: no limit.
    #[must_use]
    pub fn with_creation_rate(mut self, per_hour: u32) -> PlayerSettings {
        self.creations = std::num::NonZeroU32::new(per_hour)
            .map(|n| governor::RateLimiter::keyed(governor::Quota::per_hour(n)));
        self
    }

    /// `RateLimited` with the seconds to wait, if `client` has created its
    /// share of players.
    fn check_creation(&self, client: Option<IpAddr>) -> Result<()> {
        use governor::clock::{Clock, DefaultClock};
        let Some(limiter) = &self.creations else {
            return Ok(());
        };
        if limiter.len() > 10_000 {
            limiter.retain_recent();
        }
        let client = client.unwrap_or(IpAddr::from([0, 0, 0, 0]));
        limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ServiceError::TooManyPlayers(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
        })
    }
}

impl Default for PlayerSettings {
    fn default() -> PlayerSettings {
        PlayerSettings::new(None, f64::from(DEFAULT_MATCH_WINDOW))
    }
}

/// The key and checks a JWT must pass.
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("algorithms", &self.validation.algorithms)
            .finish_non_exhaustive()
    }
}

/// The claims Tabula reads (`exp` and `nbf`, `iss` and `aud` are checked by
/// the verifier; their types here, as RFC 7519 has them: the verifier
/// takes an array for `iss` too).
#[derive(serde::Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    iss: Option<serde_json::Value>,
    #[serde(default)]
    aud: Option<serde_json::Value>,
}

impl Claims {
    /// Whether `iss` is a string and `aud` a string or an array of strings,
    /// where present.
    fn typed(&self) -> bool {
        use serde_json::Value;
        let iss = self.iss.as_ref().is_none_or(Value::is_string);
        let aud = match &self.aud {
            None | Some(Value::String(_)) => true,
            Some(Value::Array(items)) => items.iter().all(Value::is_string),
            Some(_) => false,
        };
        iss && aud
    }
}

/// Whether a JWT's header asks for extensions (`crit`): the service
/// implements none, so RFC 7515 has it refuse such a token.
fn has_crit(token: &str) -> bool {
    use base64::Engine as _;
    let Some(header) = token.split('.').next() else {
        return true;
    };
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header) else {
        return true;
    };
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&bytes)
        .map_or(true, |h| h.contains_key("crit"))
}

/// Whether a `sub` can name a player: not empty, at most 200 bytes, and
/// no control, format (bidi controls among them), surrogate, private-use,
/// unassigned or line- and paragraph-separating characters.
fn usable_subject(sub: &str) -> bool {
    use icu_properties::CodePointMapData;
    use icu_properties::props::{GeneralCategory, GeneralCategoryGroup};
    let category = CodePointMapData::<GeneralCategory>::new();
    !sub.is_empty()
        && sub.len() <= 200
        && sub.chars().all(|c| {
            let gc = category.get(c);
            !GeneralCategoryGroup::Other.contains(gc)
                && !matches!(
                    gc,
                    GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
                )
        })
}

impl JwtVerifier {
    /// A verifier of HS256 tokens signed with `secret`.
    ///
    /// # Errors
    /// An empty secret.
    pub fn hs256(
        secret: &str,
        issuer: Option<&str>,
        audience: Option<&str>,
    ) -> std::result::Result<JwtVerifier, String> {
        if secret.is_empty() {
            return Err("--jwt-secret is empty".into());
        }
        Ok(JwtVerifier::with(
            DecodingKey::from_secret(secret.as_bytes()),
            Algorithm::HS256,
            issuer,
            audience,
        ))
    }

    /// A verifier of tokens signed by the private half of `pem`: an RSA
    /// public key (`RS256`) or an Ed25519 one (`EdDSA`). Only that algorithm is
    /// accepted, so a token "signed" with the public key as an HMAC secret
    /// is refused.
    ///
    /// # Errors
    /// A PEM that holds neither.
    pub fn public_key(
        pem: &str,
        issuer: Option<&str>,
        audience: Option<&str>,
    ) -> std::result::Result<JwtVerifier, String> {
        let (key, alg) = if let Ok(key) = DecodingKey::from_rsa_pem(pem.as_bytes()) {
            (key, Algorithm::RS256)
        } else if let Ok(key) = DecodingKey::from_ed_pem(pem.as_bytes()) {
            (key, Algorithm::EdDSA)
        } else {
            return Err(
                "--jwt-public-key is neither an RSA nor an Ed25519 public key in PEM".into(),
            );
        };
        Ok(JwtVerifier::with(key, alg, issuer, audience))
    }

    fn with(
        key: DecodingKey,
        alg: Algorithm,
        issuer: Option<&str>,
        audience: Option<&str>,
    ) -> JwtVerifier {
        let mut validation = Validation::new(alg);
        validation.validate_nbf = true;
        validation.leeway = 5;
        // A claim the server checks must be there: a token without `iss`
        // is not a token of the issuer.
        let mut required = vec!["exp", "sub"];
        if let Some(issuer) = issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        match audience {
            Some(audience) => {
                validation.set_audience(&[audience]);
                required.push("aud");
            }
            None => validation.validate_aud = false,
        }
        validation.set_required_spec_claims(&required);
        JwtVerifier { key, validation }
    }

    /// The player id (`ext:<sub>`) and name of a token that verifies.
    fn verify(&self, token: &str) -> Option<(String, Option<String>)> {
        if has_crit(token) {
            return None;
        }
        let claims = jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation)
            .ok()?
            .claims;
        (claims.typed() && usable_subject(&claims.sub))
            .then(|| (format!("{EXTERNAL_PREFIX}{}", claims.sub), claims.name))
    }
}

/// Whether a bearer credential has a JWT's form: three base64url parts, the
/// first a JSON object (`eyJ`). Seat tokens and keys never have it.
fn looks_like_jwt(token: &str) -> bool {
    token.starts_with("eyJ")
        && token.split('.').count() == 3
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// A player identified by a bearer credential.
#[derive(Clone, Debug)]
pub struct Identified {
    pub player: PlayerRecord,
    /// What works as their seat's token in a game they sit in.
    pub credential: TokenHash,
    /// Signed in by a JWT for the first time: the write that seats them
    /// creates them.
    pub new: bool,
    /// Their ratings, by kind, when read ([`Service::identify_rated`]).
    pub ratings: Vec<(GameKind, KindRating)>,
}

impl Identified {
    /// A stored player, as their credential would identify them.
    #[must_use]
    pub fn of(player: PlayerRecord) -> Identified {
        Identified {
            credential: player
                .key
                .unwrap_or_else(|| external_credential(&player.id)),
            player,
            new: false,
            ratings: Vec::new(),
        }
    }

    /// Their rating in `kind`, if read and they have one.
    fn rated_in(&self, kind: GameKind) -> Option<KindRating> {
        self.ratings
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, r)| *r)
    }

    /// Their rating in `kind` (a newcomer's if they have none).
    #[must_use]
    pub fn rating(&self, kind: GameKind) -> KindRating {
        self.rated_in(kind).unwrap_or(KindRating::START)
    }

    /// Binds them to `seat` of `game`: the seat keeps their credential and
    /// id, and takes their name unless one was given.
    pub fn bind(&self, game: &mut GameRecord, seat: Player) {
        game.players.seats[seat.index()] = Some(SeatPlayer {
            id: self.player.id.clone(),
            credential: self.credential,
            // Known when read for a rated quick match; else the matcher
            // reads it if it needs it.
            rating: self
                .rated_in(game.kind())
                .map(|r| r.rating.rating)
                .filter(|_| game.players.rated),
        });
        if game.names[seat.index()].is_none() {
            game.names[seat.index()] = Some(self.player.name.clone());
        }
    }

    /// Writes, with the game's write, what binding them changes beyond the
    /// game: a signed-in player new here is created, and the game is listed
    /// among theirs.
    ///
    /// # Errors
    /// Database errors.
    pub async fn record(&self, tx: &mut WriteTx, game: uuid::Uuid) -> Result<()> {
        if self.new {
            tx.insert_player(&self.player).await?;
        }
        tx.player_game(&self.player.id, game).await?;
        Ok(())
    }
}

impl Service {
    /// Sets how players sign in and are matched.
    #[must_use]
    pub fn with_players(mut self, settings: PlayerSettings) -> Service {
        self.players = std::sync::Arc::new(settings);
        self
    }

    /// The hash a seat's token is compared with: of the token itself, or
    /// for a JWT that verifies, of its player's derived credential.
    ///
    /// # Errors
    /// `MissingToken` without one; `BadCredential` for a JWT that fails
    /// when the service verifies JWTs.
    pub(super) fn seat_credential(&self, token: Option<&str>) -> Result<TokenHash> {
        let token = token.ok_or(ServiceError::MissingToken)?;
        match &self.players.jwt {
            Some(jwt) if looks_like_jwt(token) => jwt
                .verify(token)
                .map(|(id, _)| external_credential(&id))
                .ok_or(ServiceError::BadCredential),
            _ => Ok(TokenHash::of(token)),
        }
    }

    /// The player a bearer credential names: `None` for none or a seat
    /// token (which creating and joining ignore, as they always have).
    ///
    /// # Errors
    /// `BadCredential` for a player key nobody has or a JWT that fails.
    pub async fn identify(&self, bearer: Option<&str>) -> Result<Option<Identified>> {
        let Some(token) = bearer else {
            return Ok(None);
        };
        if token.starts_with(KEY_PREFIX) {
            let credential = TokenHash::of(token);
            // A key names its player for good: known ones are not read again.
            let known = self
                .players
                .known
                .lock()
                .ok()
                .and_then(|mut k| k.get(&credential).cloned());
            let player = if let Some(player) = known {
                player
            } else {
                let player = self
                    .store
                    .player_by_key(&credential)
                    .await?
                    .ok_or(ServiceError::BadCredential)?;
                if let Ok(mut known) = self.players.known.lock() {
                    known.put(credential, player.clone());
                }
                player
            };
            return Ok(Some(Identified {
                player,
                credential,
                new: false,
                ratings: Vec::new(),
            }));
        }
        if !looks_like_jwt(token) {
            return Ok(None);
        }
        let jwt = self
            .players
            .jwt
            .as_ref()
            .ok_or(ServiceError::BadCredential)?;
        let (id, name) = jwt.verify(token).ok_or(ServiceError::BadCredential)?;
        let stored = self.store.player(&id).await?;
        let new = stored.is_none();
        let player = if let Some(view) = stored {
            view.player
        } else {
            let name = name
                .and_then(|n| normalize_name(&n).ok())
                .unwrap_or_else(|| default_name(&id));
            PlayerRecord {
                id: id.clone(),
                name,
                key: None,
                created_at: self.clock.now(),
                bot: false,
                max_games: DEFAULT_MAX_GAMES,
            }
        };
        Ok(Some(Identified {
            credential: external_credential(&id),
            player,
            new,
            ratings: Vec::new(),
        }))
    }

    /// The player identified by `bearer`, with their ratings read too (for
    /// rated games: quick match pairs players by them).
    ///
    /// # Errors
    /// As [`Service::identify`]; store errors.
    pub async fn identify_rated(&self, bearer: Option<&str>) -> Result<Option<Identified>> {
        let Some(mut found) = self.identify(bearer).await? else {
            return Ok(None);
        };
        found.ratings = self
            .store
            .player(&found.player.id)
            .await?
            .map(|v| v.ratings)
            .unwrap_or_default();
        Ok(Some(found))
    }

    /// Creates a player (a bot if `bot`: for good); the key is shown once
    /// (only its hash is stored).
    /// With an `Idempotency-Key` (`keyed`), a retry from the same client
    /// address gets the same player and key back (`replayed`), unlimited;
    /// otherwise a client creates at most its hourly share of players.
    ///
    /// # Errors
    /// `InvalidName`, `TooManyPlayers`, `IdempotencyKeyReused`
    /// (the key came with another name), store errors.
    #[tracing::instrument(name = "create_player", level = "debug", skip_all)]
    pub async fn create_player(
        &self,
        name: String,
        bot: bool,
        client: Option<IpAddr>,
        keyed: Option<String>,
    ) -> Result<PlayerCreated> {
        let name = normalize_name(&name).map_err(ServiceError::InvalidName)?;
        // A bot's request differs from a person's of the same name (names
        // never hold a control character).
        let asked_for = if bot {
            format!("{name}\u{0}bot")
        } else {
            name.clone()
        };
        let request = RequestHash::of(CREATE_PLAYER, &asked_for, &TokenHash::of("")).to_hex();
        let scope = keyed.as_deref().map(|k| request_scope(client, k));
        if let Some(scope) = &scope
            && let Some(found) = self.store.player_request(scope).await?
        {
            return self
                .replay_creation(&found, &request, keyed.as_deref())
                .await;
        }
        self.players.check_creation(client)?;
        let salt = new_token();
        let key = match &keyed {
            Some(k) => format!("{KEY_PREFIX}{}", keyed_token(KEY_LABEL, &salt, k)),
            None => format!("{KEY_PREFIX}{}", new_token()),
        };
        let player = PlayerRecord {
            id: Uuid::now_v7().to_string(),
            name,
            key: Some(TokenHash::of(&key)),
            created_at: self.clock.now(),
            bot,
            max_games: DEFAULT_MAX_GAMES,
        };
        let record = player.clone();
        let asked = scope.map(|scope| PlayerRequest {
            scope,
            request: request.clone(),
            salt,
            player_id: player.id.clone(),
        });
        let earlier = self
            .write(
                None,
                Box::new(move |tx| {
                    Box::pin(async move {
                        if let Some(asked) = &asked {
                            // Two retries at once: the first one's player.
                            if let Some(found) = tx.player_request(&asked.scope).await? {
                                return Ok(Some(found));
                            }
                        }
                        tx.insert_player(&record).await?;
                        if let Some(asked) = &asked {
                            tx.insert_player_request(asked).await?;
                        }
                        Ok(None)
                    })
                }),
            )
            .await?;
        if let Some(found) = earlier {
            return self
                .replay_creation(&found, &request, keyed.as_deref())
                .await;
        }
        Ok(PlayerCreated {
            view: PlayerView {
                player,
                ratings: Vec::new(),
            },
            key,
            replayed: false,
        })
    }

    /// The player a keyed creation made, with its key derived again.
    async fn replay_creation(
        &self,
        found: &PlayerRequest,
        request: &str,
        keyed: Option<&str>,
    ) -> Result<PlayerCreated> {
        if found.request != request {
            return Err(ServiceError::IdempotencyKeyReused);
        }
        let view = self.player(&found.player_id).await?;
        let key = format!(
            "{KEY_PREFIX}{}",
            keyed_token(KEY_LABEL, &found.salt, keyed.unwrap_or_default())
        );
        Ok(PlayerCreated {
            view,
            key,
            replayed: true,
        })
    }

    /// A player with their ratings.
    ///
    /// # Errors
    /// `PlayerNotFound`, store errors.
    pub async fn player(&self, id: &str) -> Result<PlayerView> {
        self.store
            .player(id)
            .await?
            .ok_or(ServiceError::PlayerNotFound)
    }

    /// The player a credential (a key or a sign-in token) names, with their
    /// ratings; one signed in for the first time is stored then, with none.
    ///
    /// # Errors
    /// `PlayerRequired` (no credential, or a seat token), `BadCredential`
    /// (an unknown key, a token that does not verify), store errors.
    pub async fn me(&self, bearer: Option<&str>) -> Result<PlayerView> {
        let found = self
            .identify_rated(bearer)
            .await?
            .ok_or(ServiceError::PlayerRequired)?;
        if !found.new {
            return Ok(PlayerView {
                player: found.player,
                ratings: found.ratings,
            });
        }
        // A signed-in player seen for the first time is stored now (once:
        // another first request at the same time stores nothing more), so
        // that the player answered is the one `GET /v1/players/{id}` finds,
        // with one `created_at`.
        let player = found.player;
        let id = player.id.clone();
        self.write(
            None,
            Box::new(move |tx| Box::pin(async move { Ok(tx.insert_player(&player).await?) })),
        )
        .await?;
        self.store
            .player(&id)
            .await?
            .ok_or_else(|| ServiceError::Internal(format!("player {id} not found once stored")))
    }

    /// A player's games, newest first, with the next page's cursor.
    ///
    /// # Errors
    /// `PlayerNotFound`, store errors.
    pub async fn player_games(
        &self,
        id: &str,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<GameRecord>, Option<i64>)> {
        self.player(id).await?;
        let (games, next) = self.store.player_games(id, before, limit).await?;
        let mut settled = Vec::with_capacity(games.len());
        for game in games {
            settled.push(self.settled(game).await?);
        }
        Ok((settled, next))
    }

    /// The players of a kind who are not provisional, best first; with
    /// `provisional`, the provisional ones after them.
    ///
    /// # Errors
    /// Store errors.
    pub async fn leaderboard(
        &self,
        kind: GameKind,
        limit: u32,
        rows: LeaderboardRows,
    ) -> Result<Vec<Ranked>> {
        Ok(self.store.leaderboard(kind, limit, rows).await?)
    }
}

/// The name of a signed-in player whose token names none.
/// The operation of a player's creation, in its request's hash.
const CREATE_PLAYER: &str = "create-player";

/// What a keyed creation's player key is derived with.
const KEY_LABEL: &str = "tabula player key";

/// A player just created (or, `replayed`, created by an earlier request
/// with the same `Idempotency-Key`): the key is shown only in this answer.
#[derive(Clone, Debug)]
pub struct PlayerCreated {
    pub view: PlayerView,
    pub key: String,
    pub replayed: bool,
}

/// Where a player's `Idempotency-Key` belongs: the client's address and
/// the key, hashed (keys are chosen by clients, so one client's key never
/// answers another's request).
fn request_scope(client: Option<IpAddr>, key: &str) -> String {
    use sha2::{Digest, Sha256};
    let client = client.map(|ip| ip.to_string()).unwrap_or_default();
    let mut hash = Sha256::new();
    for part in ["tabula player request", client.as_str(), key] {
        hash.update(part.len().to_le_bytes());
        hash.update(part.as_bytes());
    }
    hex::encode(hash.finalize())
}

fn default_name(id: &str) -> String {
    let sub = id.strip_prefix(EXTERNAL_PREFIX).unwrap_or(id);
    let short: String = sub.chars().take(NAME_MAX_CHARS).collect();
    normalize_name(&short).unwrap_or_else(|_| "Player".to_owned())
}

/// The rated rounds two players may begin together within [`PAIR_WINDOW`]
/// that move their ratings; the rounds they begin past it are played
/// unrated (the game says so from their start: `round_rated` false). An
/// evening's match between two people counts; a hundred rematches between
/// two accounts one person holds do not.
pub const PAIR_ROUNDS: i64 = 3;

/// The window of [`PAIR_ROUNDS`].
pub const PAIR_WINDOW: std::time::Duration = std::time::Duration::from_hours(24);

/// Counts a rated round that begins (inside the write that begins it: a
/// join that seats the second player, a restart, a rematch) against its two
/// players' rounds together: within [`PAIR_ROUNDS`] it is recorded and
/// rated; past them it is played unrated. Each round is counted once.
///
/// # Errors
/// Store errors.
pub(super) async fn count_rated_round(
    tx: &mut WriteTx,
    game: &mut GameRecord,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    if !game.players.rated || game.is_over() || game.players.counted_round == Some(game.round) {
        return Ok(());
    }
    let (Some(x), Some(o)) = (game.players.of(Player::X), game.players.of(Player::O)) else {
        return Ok(());
    };
    let mut pair = [x.id.clone(), o.id.clone()];
    pair.sort();
    let pair = [pair[0].as_str(), pair[1].as_str()];
    let window = chrono::Duration::from_std(PAIR_WINDOW).unwrap_or_default();
    let begun = tx.pair_rounds_since(pair, now - window).await?;
    game.players.counted_round = Some(game.round);
    game.players.pair_limited = begun >= PAIR_ROUNDS;
    if !game.players.pair_limited {
        tx.insert_pair_round(pair, game.id, game.round, now, now - window)
            .await?;
    }
    Ok(())
}

/// Rates a rated round that has just ended (inside the write that ends it):
/// both players' ratings for the kind move by Glicko-2, as one rating
/// period, and the game records the change. Nothing for an unrated game, a
/// round in progress, or one already rated.
///
/// # Errors
/// Store errors.
pub(super) async fn rate_if_ended(tx: &mut WriteTx, game: &mut GameRecord) -> Result<()> {
    if !game.players.round_rated() || game.players.change.is_some() {
        return Ok(());
    }
    let Some(x_score) = game.x_score() else {
        return Ok(());
    };
    let (Some(x), Some(o)) = (game.players.of(Player::X), game.players.of(Player::O)) else {
        return Ok(());
    };
    let (x, o) = (x.id.clone(), o.id.clone());
    let kind = game.kind();
    let before = tx.ratings(kind, [&x, &o]).await?;
    let after = rate(before, x_score);
    tx.set_rating(&x, kind, after[0]).await?;
    tx.set_rating(&o, kind, after[1]).await?;
    game.players.change = Some(RatingChange {
        before: before.map(|r| r.rating),
        after: after.map(|r| r.rating),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_jwts_form_is_taken_for_a_jwt() {
        assert!(looks_like_jwt("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"));
        assert!(!looks_like_jwt(&new_token()));
        assert!(!looks_like_jwt("tpk_00"));
        assert!(!looks_like_jwt("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0"));
        assert!(!looks_like_jwt("eyJ a.b.c"));
    }

    #[test]
    fn a_signed_in_players_default_name_is_their_subject() {
        assert_eq!(default_name("ext:ada"), "ada");
        assert_eq!(default_name("ext:"), "Player");
    }
}
