//! Health, readiness and metrics.

use actix_web::{HttpResponse, get, web};

use super::AppState;
use super::error::ApiError;
use super::responses::Unavailable;

/// Alive: the process answers.
///
/// For liveness probes; it does not touch the database.
#[utoipa::path(
    tag = "system",
    responses((status = 200, description = "Alive", body = String, content_type = "text/plain", example = "ok")),
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// Ready: the database answers.
///
/// For readiness probes and to wait for a starting service.
#[utoipa::path(
    tag = "system",
    responses(
        (status = 200, description = "Ready", body = String, content_type = "text/plain", example = "ready"),
        (status = 503, response = Unavailable),
    ),
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    state.service.ready().await?;
    Ok(HttpResponse::Ok().content_type("text/plain").body("ready"))
}

/// Prometheus metrics.
///
/// Requests by route and status, moves by kind and result, request latency.
#[utoipa::path(
    tag = "system",
    responses((status = 200, description = "Prometheus text format", body = String, content_type = "text/plain; version=0.0.4",
        example = "tabula_moves_total{kind=\"connect_four\",result=\"accepted\"} 12")),
)]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}
