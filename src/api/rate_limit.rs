//! Per-client rate limiting: a GCRA bucket per client IP (the `governor`
//! crate), answered with 429 `rate_limited` and `Retry-After` in
//! problem+json. Off unless `--rate-limit` is set.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{ResponseError, web};
use governor::clock::{Clock, DefaultClock, QuantaInstant};
use governor::{DefaultKeyedRateLimiter, NotUntil, Quota};

use super::client_ip::TrustedProxies;
use super::error::ApiError;

/// A bucket of `quota` per client address, whose idle clients are forgotten
/// now and then (by a thread of its own, while the limiter lives), so that
/// memory stays bounded.
pub(super) fn per_client(quota: Quota) -> Arc<DefaultKeyedRateLimiter<IpAddr>> {
    let limiter = Arc::new(DefaultKeyedRateLimiter::keyed(quota));
    let sweeper = Arc::downgrade(&limiter);
    std::thread::spawn(move || {
        while let Some(limiter) = sweeper.upgrade() {
            limiter.retain_recent();
            drop(limiter);
            std::thread::sleep(std::time::Duration::from_mins(1));
        }
    });
    limiter
}

/// Whole seconds until a refused client may ask again (`Retry-After`),
/// rounded up.
pub(super) fn seconds_until(not_until: &NotUntil<QuantaInstant>) -> u64 {
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// The limiter shared by all workers.
#[derive(Clone)]
pub struct RateLimiter {
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    proxies: TrustedProxies,
}

impl RateLimiter {
    /// `per_second` requests per second and client, with bursts of `burst`;
    /// behind `proxies`, the client is the one they name. `None` when
    /// `per_second` is 0 (limiting off).
    #[must_use]
    pub fn new(per_second: u32, burst: u32, proxies: TrustedProxies) -> Option<RateLimiter> {
        let rate = NonZeroU32::new(per_second)?;
        let burst = NonZeroU32::new(burst).unwrap_or(rate);
        let limiter = per_client(Quota::per_second(rate).allow_burst(burst));
        Some(RateLimiter { limiter, proxies })
    }

    /// Seconds until `ip` may send again, or `None` if it may now.
    fn wait(&self, ip: IpAddr) -> Option<u64> {
        self.limiter.check_key(&ip).err().map(|n| seconds_until(&n))
    }
}

/// Middleware: refuses requests over the client's quota (health, readiness
/// and metrics are never limited).
///
/// # Errors
/// Passes on the inner service's error.
pub async fn limit(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let limiter = req
        .app_data::<web::Data<Option<RateLimiter>>>()
        .and_then(|d| d.get_ref().clone());
    let exempt = matches!(req.path(), "/healthz" | "/readyz" | "/metrics");
    if let (Some(limiter), false) = (limiter, exempt) {
        let peer = req
            .peer_addr()
            .map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip());
        let ip = limiter.proxies.client(peer, req.headers());
        if let Some(secs) = limiter.wait(ip) {
            let response = ApiError::RateLimited(secs.max(1)).error_response();
            return Ok(req.into_response(response).map_into_right_body());
        }
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}
