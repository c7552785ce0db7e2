//! Request headers read before any handler: a header the contract reads
//! sent twice is refused, and a GET whose `If-None-Match` names the answer's
//! `ETag` is answered 304.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode, header};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};

use super::error::ApiError;

/// The headers the contract reads that must come once: two of them (two
/// `Authorization`s, say) leave it unclear which one the client meant.
const SINGLE: [&str; 6] = [
    "authorization",
    "idempotency-key",
    "if-match",
    "if-none-match",
    "last-event-id",
    "content-type",
];

/// Middleware: refuses a request that sends a header of `SINGLE` more
/// than once, with 400 `duplicate_header`, before anything reads it.
///
/// # Errors
/// Passes on the inner service's error.
pub async fn refuse_duplicates(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let headers = req.headers();
    if let Some(name) = SINGLE
        .into_iter()
        .find(|name| headers.get_all(*name).nth(1).is_some())
    {
        let response = ApiError::DuplicateHeader(name).error_response();
        return Ok(req.into_response(response).map_into_right_body());
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}

/// Middleware: a GET answered 200 with an `ETag` that the request's
/// `If-None-Match` names (or `*`) is answered 304 Not Modified instead, with
/// the same validator and caching headers and no body (RFC 9110 §13.1.2:
/// the comparison is weak, so `W/"7"` names `"7"`).
///
/// # Errors
/// Passes on the inner service's error.
pub async fn not_modified(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let wanted = (req.method() == Method::GET)
        .then(|| req.headers().get(header::IF_NONE_MATCH)?.to_str().ok())
        .flatten()
        .map(str::to_owned);
    let res = next.call(req).await?;
    let Some(wanted) = wanted else {
        return Ok(res.map_into_left_body());
    };
    let current = res
        .headers()
        .get(header::ETAG)
        .and_then(|e| e.to_str().ok());
    let matches = res.status() == StatusCode::OK
        && current.is_some_and(|current| {
            let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
            wanted.trim() == "*" || wanted.split(',').any(|tag| opaque(tag) == opaque(current))
        });
    if !matches {
        return Ok(res.map_into_left_body());
    }
    let mut not_modified = HttpResponse::NotModified();
    for name in [
        header::ETAG,
        header::CACHE_CONTROL,
        header::VARY,
        header::LAST_MODIFIED,
    ] {
        if let Some(value) = res.headers().get(&name) {
            not_modified.insert_header((name, value.clone()));
        }
    }
    let (req, _) = res.into_parts();
    Ok(ServiceResponse::new(req, not_modified.finish()).map_into_right_body())
}
