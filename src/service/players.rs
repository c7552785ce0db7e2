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

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use uuid::Uuid;

use super::writes::new_token;
use super::{Result, Service, ServiceError};
use crate::domain::player::{
    EXTERNAL_PREFIX, KEY_PREFIX, KindRating, PlayerRecord, PlayerView, Ranked, RatingChange,
    SeatPlayer, external_credential, rate,
};
use crate::domain::{GameRecord, TokenHash, check_name};
use crate::rules::{GameKind, Player};
use crate::store::WriteTx;

/// How rated quick match pairs players by default (`--match-window`).
pub const DEFAULT_MATCH_WINDOW: f64 = 300.0;

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
}

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
        }
    }
}

impl Default for PlayerSettings {
    fn default() -> PlayerSettings {
        PlayerSettings::new(None, DEFAULT_MATCH_WINDOW)
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
/// the verifier).
#[derive(serde::Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    name: Option<String>,
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
        let data = jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation).ok()?;
        let sub = data.claims.sub;
        (!sub.is_empty() && sub.len() <= 200)
            .then(|| (format!("{EXTERNAL_PREFIX}{sub}"), data.claims.name))
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
                .filter(|n| check_name(n).is_ok())
                .unwrap_or_else(|| default_name(&id));
            PlayerRecord {
                id: id.clone(),
                name,
                key: None,
                created_at: self.clock.now(),
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

    /// Creates a player; the key is shown once (only its hash is stored).
    ///
    /// # Errors
    /// `InvalidOption` (the name), store errors.
    #[tracing::instrument(name = "create_player", level = "debug", skip_all)]
    pub async fn create_player(&self, name: String) -> Result<(PlayerView, String)> {
        check_name(&name).map_err(ServiceError::InvalidOption)?;
        let key = format!("{KEY_PREFIX}{}", new_token());
        let player = PlayerRecord {
            id: Uuid::now_v7().to_string(),
            name,
            key: Some(TokenHash::of(&key)),
            created_at: self.clock.now(),
        };
        let record = player.clone();
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    tx.insert_player(&record).await?;
                    Ok(())
                })
            }),
        )
        .await?;
        Ok((
            PlayerView {
                player,
                ratings: Vec::new(),
            },
            key,
        ))
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
        let (mut games, next) = self.store.player_games(id, before, limit).await?;
        let now = self.clock.now();
        for game in &mut games {
            game.settle(now);
        }
        Ok((games, next))
    }

    /// The players of a kind who are not provisional, best first.
    ///
    /// # Errors
    /// Store errors.
    pub async fn leaderboard(&self, kind: GameKind, limit: u32) -> Result<Vec<Ranked>> {
        Ok(self.store.leaderboard(kind, limit).await?)
    }
}

/// The name of a signed-in player whose token names none.
fn default_name(id: &str) -> String {
    let sub = id.strip_prefix(EXTERNAL_PREFIX).unwrap_or(id);
    let short: String = sub.chars().filter(|c| !c.is_control()).take(40).collect();
    if check_name(&short).is_ok() {
        short
    } else {
        "Player".to_owned()
    }
}

/// Rates a rated round that has just ended (inside the write that ends it):
/// both players' ratings for the kind move by Glicko-2, as one rating
/// period, and the game records the change. Nothing for an unrated game, a
/// round in progress, or one already rated.
///
/// # Errors
/// Store errors.
pub(super) async fn rate_if_ended(tx: &mut WriteTx, game: &mut GameRecord) -> Result<()> {
    if !game.players.rated || game.players.change.is_some() {
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
