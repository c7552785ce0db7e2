//! Request parsing at the edge: body (media type, size, JSON), bearer token,
//! `If-Match`, `Idempotency-Key` and path ids. Every failure becomes an
//! [`ApiError`] with the contract's code.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::StreamExt;
use uuid::Uuid;

use super::error::ApiError;
use crate::service::{Preconditions, ServiceError};

/// The body limit in bytes, as app data.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

/// A request body that passed the media-type and size checks. Empty when the
/// client sent none.
#[derive(Debug, Default)]
pub struct Body(pub web::Bytes);

impl Body {
    /// Parses the body as `T`; an empty body gives `T::default()`.
    ///
    /// # Errors
    /// `Malformed` with serde's message.
    pub fn json_or_default<T: serde::de::DeserializeOwned + Default>(&self) -> Result<T, ApiError> {
        if self.0.is_empty() {
            return Ok(T::default());
        }
        self.json()
    }

    /// Parses the body as `T`.
    ///
    /// # Errors
    /// `Malformed` with serde's message, also for an empty body.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, ApiError> {
        if self.0.is_empty() {
            return Err(ApiError::Malformed("a JSON body is required".into()));
        }
        serde_json::from_slice(&self.0)
            .map_err(|e| ApiError::Malformed(format!("invalid body: {e}")))
    }
}

fn is_json(req: &HttpRequest) -> Option<bool> {
    let value = req.headers().get(header::CONTENT_TYPE)?;
    let mime = value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase());
    Some(mime.is_some_and(|m| {
        m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
    }))
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
        let json = is_json(req);
        let mut payload = payload.take();
        Box::pin(async move {
            if declared.is_some_and(|n| n > limit) {
                return Err(ApiError::PayloadTooLarge(limit));
            }
            let mut body = web::BytesMut::new();
            while let Some(chunk) = payload.next().await {
                let chunk =
                    chunk.map_err(|e| ApiError::Malformed(format!("cannot read body: {e}")))?;
                if body.len() + chunk.len() > limit {
                    return Err(ApiError::PayloadTooLarge(limit));
                }
                body.extend_from_slice(&chunk);
            }
            match json {
                Some(false) => Err(ApiError::UnsupportedMediaType),
                None if !body.is_empty() => Err(ApiError::UnsupportedMediaType),
                _ => Ok(Body(body.freeze())),
            }
        })
    }
}

/// The bearer token, if the request carries one.
#[must_use]
pub fn bearer(req: &HttpRequest) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// `If-Match`: `"14"`, `W/"14"` or `14`; `*` matches any version.
///
/// # Errors
/// `Malformed` for anything else.
pub fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(value) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::Malformed("If-Match must be ASCII".into()))?
        .trim();
    if text == "*" {
        return Ok(None);
    }
    let bare = text.strip_prefix("W/").unwrap_or(text);
    let bare = bare
        .strip_prefix('"')
        .and_then(|b| b.strip_suffix('"'))
        .unwrap_or(bare);
    bare.parse::<i64>().map(Some).map_err(|_| {
        ApiError::Malformed(format!(
            "If-Match must name a version like \"14\", got {text:?}"
        ))
    })
}

/// `Idempotency-Key`: 1 to 255 visible ASCII characters.
///
/// # Errors
/// `Malformed` for anything else.
pub fn idempotency_key(req: &HttpRequest) -> Result<Option<&str>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .filter(|k| !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| b.is_ascii_graphic()))
        .map(Some)
        .ok_or_else(|| {
            ApiError::Malformed("Idempotency-Key must be 1 to 255 visible ASCII characters".into())
        })
}

/// Both preconditions of a write.
///
/// # Errors
/// `Malformed` for a bad header.
pub fn preconditions(req: &HttpRequest) -> Result<Preconditions, ApiError> {
    Ok(Preconditions {
        if_match: if_match(req)?,
        idempotency_key: idempotency_key(req)?.map(str::to_owned),
    })
}

/// A game id from the path; anything that is not a UUID is no game.
///
/// # Errors
/// `GameNotFound`.
pub fn game_id(raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw).map_err(|_| ApiError::Service(ServiceError::GameNotFound))
}

/// Query-string errors as 400 problem+json.
#[must_use]
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|e, _| ApiError::Malformed(format!("invalid query: {e}")).into())
}

/// Path errors as 400 problem+json.
#[must_use]
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|e, _| ApiError::Malformed(format!("invalid path: {e}")).into())
}
