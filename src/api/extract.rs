//! Request parsing at the edge: body (media type, size, JSON), and the typed
//! extractors every route shares — the game id, the bearer token, `If-Match`
//! and `Idempotency-Key` — each parsed in one place and, where it is a
//! parameter, documented by the same type (`IntoParams`), so routes name
//! them in `params(...)` instead of repeating their descriptions. Every
//! failure becomes an [`ApiError`] with the contract's code.

use std::fmt;
use std::future::{Future, Ready, ready};
use std::pin::Pin;

use actix_web::body::{BodySize, BoxBody, EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage as _, HttpRequest, web};
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use serde::de::{DeserializeOwned, Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use utoipa::IntoParams;
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use crate::service::{Preconditions, ServiceError};

/// The body limit in bytes, as app data.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

/// How long a body may take to arrive after its headers, as app data: a
/// client that sends headers and then trickles (or stops) would otherwise
/// hold a connection and a worker's attention for as long as it likes.
#[derive(Clone, Copy, Debug)]
pub struct BodyTimeout(pub std::time::Duration);

/// The unread rest of a body that stopped arriving, held by the request
/// until its answer is sent.
///
/// actix-http drains a dropped chunked body before it closes the connection,
/// waiting for its last chunk however long that takes, so a client that
/// stalls mid-body would hold its socket open after the 408. A payload still
/// held while the answer is written makes it close the connection instead.
struct StalledBody(Payload);

/// Keeps a stalled body's payload (see `StalledBody`) alive in the answer's
/// body, so the connection closes as soon as the 408 is written.
///
/// # Errors
/// Those of the inner services, unchanged.
pub async fn close_stalled<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B, Holding>>, actix_web::Error> {
    let res = next.call(req).await?;
    let stalled = res.request().extensions_mut().remove::<StalledBody>();
    Ok(match stalled {
        None => res.map_into_left_body(),
        Some(StalledBody(payload)) => res.map_body(|_, body| {
            EitherBody::right(Holding {
                body: BoxBody::new(body),
                _payload: payload,
            })
        }),
    })
}

/// An answer's body that holds an unread request payload until it is sent.
pub struct Holding {
    body: BoxBody,
    _payload: Payload,
}

impl MessageBody for Holding {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<web::Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

/// A request body that passed the media-type and size checks. Empty when the
/// client sent none.
#[derive(Debug, Default)]
pub struct Body(pub web::Bytes);

/// A JSON object's fields, as every body is read.
pub type Fields = Map<String, Value>;

impl Body {
    /// The body as a JSON object: every body of the API is one. Refuses what
    /// serde would let through: a top-level array (which serde reads as a
    /// struct's fields in order) and an object that repeats a key, at any
    /// depth (serde keeps the last, so `{"column": 99, "column": 2}` would
    /// play column 2 whatever a proxy or log had read as the move).
    ///
    /// # Errors
    /// `Malformed`, also for an empty body.
    pub fn object(&self) -> Result<Fields, ApiError> {
        if self.0.is_empty() {
            return Err(ApiError::Malformed("a JSON body is required".into()));
        }
        let Strict(value) = serde_json::from_slice(&self.0)
            .map_err(|e| ApiError::Malformed(format!("invalid JSON: {e}")))?;
        let got = match value {
            Value::Object(fields) => return Ok(fields),
            Value::Array(_) => "an array",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Null => "null",
        };
        Err(ApiError::Malformed(format!(
            "the body must be a JSON object {{…}}, got {got}"
        )))
    }

    /// Parses the body, a JSON object (see [`Body::object`]), as `T`.
    ///
    /// # Errors
    /// `Malformed` with serde's message, also for an empty body, and the
    /// path of the field it is about (``invalid body at `opponent`: missing
    /// field `type` ``): serde's own names only the innermost field.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        serde_path_to_error::deserialize(Value::Object(self.object()?))
            .map_err(|e| malformed_at("invalid body", &e))
    }

    /// Parses the body as `T`; an empty body gives `T::default()`.
    ///
    /// # Errors
    /// `Malformed` with serde's message.
    pub fn json_or_default<T: DeserializeOwned + Default>(&self) -> Result<T, ApiError> {
        if self.0.is_empty() {
            return Ok(T::default());
        }
        self.json()
    }

    /// Checks an optional body that carries nothing: none, or a JSON object
    /// (whose fields are ignored).
    ///
    /// # Errors
    /// `Malformed` for anything else.
    pub fn empty_object(&self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            return Ok(());
        }
        self.object().map(drop)
    }
}

/// A JSON value read like `serde_json::Value`, except that an object
/// repeating a key is an error. `serde_json`'s own depth limit still applies:
/// this visitor runs inside its `deserialize_any`.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }

    fn visit_string<E>(self, v: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Strict(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut fields = Fields::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.contains_key(&key) {
                return Err(A::Error::custom(format!(
                    "duplicate key `{key}`: each key may appear once"
                )));
            }
            let Strict(value) = map.next_value()?;
            fields.insert(key, value);
        }
        Ok(Strict(Value::Object(fields)))
    }
}

/// The request declares a JSON body: `application/json` or `application/*+json`.
fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .is_some_and(|m| {
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
}

impl FromRequest for Body {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Body, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let limit = req.app_data::<BodyLimit>().map_or(4096, |l| l.0);
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let timeout = req
            .app_data::<BodyTimeout>()
            .map_or(std::time::Duration::from_secs(10), |t| t.0);
        let json = is_json(req);
        let mut payload = payload.take();
        let req = req.clone();
        Box::pin(async move {
            if declared.is_some_and(|n| n > limit) {
                return Err(ApiError::PayloadTooLarge(limit));
            }
            let read = async {
                let mut body = web::BytesMut::new();
                while let Some(chunk) = payload.next().await {
                    let chunk =
                        chunk.map_err(|e| ApiError::Malformed(format!("cannot read body: {e}")))?;
                    if body.len() + chunk.len() > limit {
                        return Err(ApiError::PayloadTooLarge(limit));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(body)
            };
            let Ok(body) = tokio::time::timeout(timeout, read).await else {
                // Kept alive until the 408 is sent (see `close_stalled`).
                req.extensions_mut().insert(StalledBody(payload));
                return Err(ApiError::BodyTimeout(timeout.as_secs().max(1)));
            };
            let body = body?;
            // No body is no body, whatever its declared type: clients send
            // a bodiless POST as `text/plain` or a form (`curl -d ''`).
            if body.is_empty() || json {
                Ok(Body(body.freeze()))
            } else {
                Err(ApiError::UnsupportedMediaType)
            }
        })
    }
}

/// The kind named by the path's `{kind}`; one that is none of the four is
/// 404 `not_found`, saying which kinds there are.
///
/// # Errors
/// `KindNotFound`.
pub fn path_kind(req: &HttpRequest) -> Result<super::wire::Kind, ApiError> {
    let name = req.match_info().get("kind").unwrap_or_default();
    serde_json::from_value(Value::String(name.to_owned()))
        .map_err(|_| ApiError::KindNotFound(name.to_owned()))
}

/// The game named by the path's `{id}`. Anything that is not a UUID in its
/// hyphenated form is no game: 404 `game_not_found`, decided here for every
/// route.
#[derive(Clone, Copy, Debug, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct GameId {
    /// The game id: a UUID, hyphenated as the API writes it (any case); any other string, other spellings of a UUID included, is answered 404 `game_not_found`
    pub id: Uuid,
}

impl GameId {
    /// The id in `raw`, only in the canonical hyphenated spelling
    /// (`8-4-4-4-12` hex digits, any case). `Uuid::parse_str` also takes
    /// the simple, braced and `urn:uuid:` spellings: one game would have
    /// many addresses.
    pub(super) fn parse(raw: &str) -> Option<Uuid> {
        raw.parse::<uuid::fmt::Hyphenated>()
            .ok()
            .map(uuid::fmt::Hyphenated::into_uuid)
    }
}

impl FromRequest for GameId {
    type Error = ApiError;
    type Future = Ready<Result<GameId, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.match_info()
                .get("id")
                .and_then(GameId::parse)
                .map(|id| GameId { id })
                .ok_or(ApiError::Service(ServiceError::GameNotFound)),
        )
    }
}

/// The bearer token, if the request carries one (`Authorization: Bearer
/// <token>`). Whether one is needed is the use case's decision; an
/// `Authorization` header of another form (a bare token, `Basic …`) is
/// refused here, 401 `missing_token` with the form to use. Documented by the
/// operation's `bearer` security requirement, not as a parameter.
#[derive(Clone, Debug, Default)]
pub struct Bearer(pub Option<String>);

impl Bearer {
    /// The token, if any.
    #[must_use]
    pub fn token(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl FromRequest for Bearer {
    type Error = ApiError;
    type Future = Ready<Result<Bearer, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(value) = req.headers().get(header::AUTHORIZATION) else {
            return ready(Ok(Bearer(None)));
        };
        // The message never repeats the value: it may be a secret.
        ready(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, token)| token.trim())
                .filter(|token| !token.is_empty())
                .map(|token| Bearer(Some(token.to_owned())))
                .ok_or(ApiError::BadAuthorization),
        )
    }
}

/// `If-Match`: the version a write expects the game to be at.
#[derive(Clone, Copy, Debug, Default, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatch {
    /// Refuse with 412 `version_mismatch` unless the game is at this version: the game's `ETag`, e.g. `"14"` (`*` matches any version; a weak tag such as `W/"14"` matches none, as If-Match compares strongly)
    #[param(
        rename = "If-Match",
        value_type = Option<String>,
        nullable = false,
        pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#
    )]
    pub version: Option<i64>,
}

impl FromRequest for IfMatch {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<IfMatch, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        match if_match(req) {
            Ok(Tag::Any) => Box::pin(ready(Ok(IfMatch { version: None }))),
            Ok(Tag::Strong(version)) => Box::pin(ready(Ok(IfMatch {
                version: Some(version),
            }))),
            // Never a match, whoever asks: 412 with the game now (which
            // anyone may read), as for another version.
            Ok(Tag::Weak) => {
                let state = req.app_data::<web::Data<AppState>>().cloned();
                let id = req.match_info().get("id").and_then(GameId::parse);
                Box::pin(async move {
                    let state =
                        state.ok_or_else(|| ServiceError::Internal("no app state".into()))?;
                    let id = id.ok_or(ServiceError::GameNotFound)?;
                    let game = state.service.game(id).await?;
                    Err(ApiError::WeakIfMatch(Box::new(game)))
                })
            }
            Err(e) => Box::pin(ready(Err(e))),
        }
    }
}

/// What `If-Match` asks for.
enum Tag {
    /// No `If-Match`, or `*`: any version.
    Any,
    /// `"14"` (or a bare `14`): that version.
    Strong(i64),
    /// `W/"14"`: If-Match compares strongly (RFC 9110 §13.1.1), so a weak
    /// tag matches no version.
    Weak,
}

/// `If-Match`: `"14"` or `14`, `*`, or a weak `W/"14"`.
fn if_match(req: &HttpRequest) -> Result<Tag, ApiError> {
    let Some(value) = req.headers().get(header::IF_MATCH) else {
        return Ok(Tag::Any);
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::Malformed("If-Match must be ASCII".into()))?
        .trim();
    if text == "*" {
        return Ok(Tag::Any);
    }
    let (weak, bare) = match text.strip_prefix("W/") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let bare = bare
        .strip_prefix('"')
        .and_then(|b| b.strip_suffix('"'))
        .unwrap_or(bare);
    match bare.parse::<i64>() {
        Ok(_) if weak => Ok(Tag::Weak),
        Ok(version) => Ok(Tag::Strong(version)),
        Err(_) => Err(ApiError::Malformed(format!(
            "If-Match must name a version like \"14\", got {text:?}"
        ))),
    }
}

/// `Idempotency-Key`: a retry with the same key returns the first answer.
#[derive(Clone, Debug, Default, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyKey {
    /// 1 to 255 visible ASCII characters, e.g. a UUID: a retry of the same request (same body, same token) with the same key returns the first answer (with `Idempotent-Replayed: true`) and plays nothing; the key sent with another request of this game is refused with 422 `idempotency_key_reused`
    #[param(
        rename = "Idempotency-Key",
        value_type = Option<String>,
        nullable = false,
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]{1,255}$"
    )]
    pub key: Option<String>,
}

impl FromRequest for IdempotencyKey {
    type Error = ApiError;
    type Future = Ready<Result<IdempotencyKey, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(value) = req.headers().get("idempotency-key") else {
            return ready(Ok(IdempotencyKey::default()));
        };
        ready(
            value
                .to_str()
                .ok()
                .filter(|k| {
                    !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| b.is_ascii_graphic())
                })
                .map(|k| IdempotencyKey {
                    key: Some(k.to_owned()),
                })
                .ok_or_else(|| {
                    ApiError::Malformed(
                        "Idempotency-Key must be 1 to 255 visible ASCII characters".into(),
                    )
                }),
        )
    }
}

/// `Prefer` (RFC 7240): whether the client asks for a move's answer without
/// its body.
#[derive(Clone, Copy, Debug, Default, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct Prefer {
    /// `return=minimal`: answer 204 with the game's new `ETag` and no body (nothing to render, parse or send: for a client that keeps its own copy of the game; bot replies are not listed, read the game for them). Other preferences are ignored, as RFC 7240 asks
    #[param(
        rename = "Prefer",
        value_type = Option<String>,
        nullable = false,
        example = "return=minimal"
    )]
    pub minimal: bool,
}

impl Prefer {
    /// Whether one `Prefer` header value holds `return=minimal`: preferences
    /// are separated by commas, each `name[=value]` with parameters after
    /// `;`; names and this value compare case-insensitively, the value may
    /// be quoted.
    fn asks_minimal(value: &str) -> bool {
        value.split(',').any(|preference| {
            let head = preference.split(';').next().unwrap_or_default();
            let (name, value) = head.split_once('=').unwrap_or((head, ""));
            name.trim().eq_ignore_ascii_case("return")
                && value
                    .trim()
                    .trim_matches('"')
                    .eq_ignore_ascii_case("minimal")
        })
    }
}

impl FromRequest for Prefer {
    type Error = ApiError;
    type Future = Ready<Result<Prefer, ApiError>>;

    /// Never refuses: a preference the server does not understand is
    /// ignored (RFC 7240, section 2).
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let minimal = req
            .headers()
            .get_all("prefer")
            .filter_map(|v| v.to_str().ok())
            .any(Prefer::asks_minimal);
        ready(Ok(Prefer { minimal }))
    }
}

/// The preconditions of a move: `If-Match` and `Idempotency-Key`.
#[must_use]
pub fn preconditions(if_match: IfMatch, key: IdempotencyKey) -> Preconditions {
    Preconditions {
        if_match: if_match.version,
        idempotency_key: key.key,
    }
}

/// A query string parsed as `T`, as `web::Query` does, refused with 400
/// `malformed_request` naming the parameter at fault (``invalid query at
/// `limit`: invalid digit found in string``): actix's own names none.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = Ready<Result<Query<T>, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let pairs = form_urlencoded::parse(req.query_string().as_bytes());
        let parsed = serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(pairs));
        ready(
            parsed
                .map(Query)
                .map_err(|e| malformed_at("invalid query", &e)),
        )
    }
}

/// A body's or query's error as `Malformed`: `what`, where (``at
/// `options.size` ``) unless at the top, and serde's message. An unknown
/// field's path ends at the field, which the message names: its parent's
/// is given.
fn malformed_at<E: fmt::Display>(what: &str, e: &serde_path_to_error::Error<E>) -> ApiError {
    let error = e.inner().to_string();
    let path = e.path().to_string();
    let path = if error.starts_with("unknown field") {
        path.rsplit_once('.').map_or(".", |(parent, _)| parent)
    } else {
        &path
    };
    ApiError::Malformed(if path == "." {
        format!("{what}: {error}")
    } else {
        format!("{what} at `{path}`: {error}")
    })
}

/// Path errors as 400 problem+json.
#[must_use]
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|e, _| ApiError::Malformed(format!("invalid path: {e}")).into())
}

/// For routes that take no query parameters: a query is refused with 400
/// `malformed_request` rather than silently ignored, as the routes that do
/// take parameters refuse unknown ones (`/v1/games?stauts=…`). A client
/// that sends `GET /v1/games/{id}?round=1` learns where rounds are read.
#[derive(Clone, Copy, Debug)]
pub struct NoQuery;

impl FromRequest for NoQuery {
    type Error = ApiError;
    type Future = Ready<Result<NoQuery, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let query = req.query_string();
        if query.is_empty() {
            return ready(Ok(NoQuery));
        }
        let names: Vec<&str> = query
            .split('&')
            .filter_map(|pair| pair.split('=').next())
            .filter(|name| !name.is_empty())
            .take(3)
            .collect();
        let mut detail = format!(
            "this operation takes no query parameters (got `{}`)",
            names.join("`, `")
        );
        if names.contains(&"round") {
            detail.push_str(
                "; a game is read in its current round: earlier rounds are at \
                 /v1/games/{id}/moves?round=N and /v1/games/{id}/positions/{ply}?round=N",
            );
        }
        ready(Err(ApiError::Malformed(detail)))
    }
}

/// Default and largest page size of a listing (games, a player's games, a
/// leaderboard).
const DEFAULT_PAGE: u32 = 20;
const MAX_PAGE: u32 = 100;

/// A listing's page size: [`DEFAULT_PAGE`] when not asked for; refused with
/// `malformed_request` unless from 1 to [`MAX_PAGE`].
///
/// # Errors
/// `Malformed` out of range.
pub(super) fn page_limit(asked: Option<u32>) -> Result<u32, ApiError> {
    let limit = asked.unwrap_or(DEFAULT_PAGE);
    if (1..=MAX_PAGE).contains(&limit) {
        Ok(limit)
    } else {
        Err(ApiError::Malformed(format!(
            "limit must be between 1 and {MAX_PAGE}"
        )))
    }
}

/// A listing's `cursor` (the `next_cursor` of the page before: a positive
/// number), if any.
///
/// # Errors
/// `Malformed` for anything else.
pub(super) fn page_cursor(cursor: Option<&str>) -> Result<Option<i64>, ApiError> {
    cursor
        .map(|c| {
            c.parse::<i64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| ApiError::Malformed("invalid cursor".into()))
        })
        .transpose()
}
