//! Headers for the interactive API page at `/docs/` (Swagger UI, served by
//! utoipa-swagger-ui, which sets none of its own): a content security policy
//! that lets it load only its own files and the spec, and `nosniff`.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;

/// Swagger UI's policy: its own scripts and the spec from this origin; its
/// inline styles (React sets `style` attributes) and `data:` images; no
/// plug-ins, no framing, no other base or form target.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// Middleware: the `/docs` pages get `CONTENT_SECURITY_POLICY` and
/// `X-Content-Type-Options: nosniff` unless they already carry them.
///
/// # Errors
/// Passes on the inner service's error.
pub async fn headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let docs = req.path() == "/docs" || req.path().starts_with("/docs/");
    let mut res = next.call(req).await?;
    if docs {
        let headers = res.headers_mut();
        if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            );
        }
        if !headers.contains_key(header::X_CONTENT_TYPE_OPTIONS) {
            headers.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
        }
    }
    Ok(res)
}
