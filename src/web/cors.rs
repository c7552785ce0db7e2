//! Cross-origin requests from browsers (`--cors-origins`): which origins may
//! call the API, and the headers they may send and read.

use actix_cors::Cors;
use actix_web::ResponseError;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;

use crate::api::ApiError;

/// Request headers a page on an allowed origin may send (the contract's list).
const ALLOWED_HEADERS: [&str; 5] = [
    "authorization",
    "content-type",
    "if-match",
    "idempotency-key",
    "last-event-id",
];

/// Response headers such a page may read (the contract's list).
const EXPOSED_HEADERS: [&str; 3] = ["etag", "location", "retry-after"];

/// How long a browser may reuse a preflight answer, in seconds: two hours,
/// the most Chromium honours (Firefox takes a day).
pub const PREFLIGHT_MAX_AGE_SECS: usize = 7200;

pub use crate::config::CorsOrigins;

impl CorsOrigins {
    /// The actix-cors middleware for these origins.
    pub fn middleware(&self) -> Cors {
        let cors = Cors::default()
            .allowed_methods([Method::GET, Method::HEAD, Method::POST, Method::DELETE])
            .allowed_headers(ALLOWED_HEADERS)
            .expose_headers(EXPOSED_HEADERS)
            .max_age(PREFLIGHT_MAX_AGE_SECS);
        match self {
            CorsOrigins::None => cors,
            CorsOrigins::Any => cors.allow_any_origin().send_wildcard(),
            CorsOrigins::Some(origins) => origins
                .iter()
                .fold(cors, |cors, origin| cors.allowed_origin(origin)),
        }
    }
}

/// Middleware around the CORS one: actix-cors refuses a preflight it cannot
/// allow (another origin, method or header) with a plain-text 400; this
/// answers it as every other error is answered, problem+json with
/// `malformed_request` and the reason in `detail`. Browsers do not show a
/// preflight's body, but `curl` users and logs do. And a request without
/// `Origin` is no cross-origin request: actix-cors still adds
/// `Access-Control-Expose-Headers` to it, which this takes off again.
///
/// # Errors
/// Passes on the inner service's error.
pub async fn preflight_problem<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let cross_origin = req.headers().contains_key(header::ORIGIN);
    let mut res = next.call(req).await?;
    if !cross_origin {
        let headers = res.headers_mut();
        headers.remove(header::ACCESS_CONTROL_EXPOSE_HEADERS);
        headers.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
        headers.remove(header::ACCESS_CONTROL_ALLOW_CREDENTIALS);
    }
    let plain_refusal = preflight
        && res.status().is_client_error()
        && !res
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    if !plain_refusal {
        return Ok(res.map_into_left_body());
    }
    let (req, res) = res.into_parts();
    let vary = res.headers().get(header::VARY).cloned();
    let reason = actix_web::body::to_bytes(res.into_body())
        .await
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "this cross-origin request is not allowed".into());
    let mut problem =
        ApiError::Malformed(format!("CORS preflight refused: {reason}")).error_response();
    if let Some(vary) = vary {
        problem.headers_mut().insert(header::VARY, vary);
    }
    Ok(ServiceResponse::new(req, problem).map_into_right_body())
}

/// The CORS middleware of `origins`, switched off entirely when none are
/// allowed: then nothing changes for any request (a preflight gets the
/// usual 405, no response carries `Access-Control-*` or `Vary: Origin`).
#[must_use]
pub fn layer(origins: &CorsOrigins) -> actix_web::middleware::Condition<Cors> {
    actix_web::middleware::Condition::new(origins.enabled(), origins.middleware())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_parse_from_a_comma_separated_list() {
        assert_eq!("".parse(), Ok(CorsOrigins::None));
        assert_eq!(" * ".parse(), Ok(CorsOrigins::Any));
        assert_eq!(
            "http://localhost:5173, https://Play.Example.com".parse(),
            Ok(CorsOrigins::Some(vec![
                "http://localhost:5173".into(),
                "https://play.example.com".into()
            ]))
        );
    }

    #[test]
    fn origins_with_a_path_or_no_scheme_are_refused() {
        for bad in [
            "http://localhost:5173/",
            "localhost:5173",
            "https://a.example/app",
            "*,http://a.example",
        ] {
            assert!(bad.parse::<CorsOrigins>().is_err(), "{bad}");
        }
    }

    #[test]
    fn origins_print_as_they_parse() {
        for list in ["", "*", "http://localhost:5173,https://a.example:8443"] {
            let parsed: CorsOrigins = list.parse().expect("parses");
            assert_eq!(parsed.to_string(), list);
        }
    }
}
