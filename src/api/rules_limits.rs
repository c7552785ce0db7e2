//! What the rules routes may take of the machine, so that moves keep their
//! latency under a flood of positions: each client's answers are bounded in
//! cells per second (lines × the board's cells: what a position costs to
//! build and to write), and batches are built off the HTTP workers, a few
//! at a time.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use governor::{DefaultKeyedRateLimiter, Quota};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;
use crate::service::ServiceError;

/// The most cells one request may cost: a batch of 100 lines on the
/// largest board (25x25). A client's bucket holds two of them.
const LARGEST_REQUEST: u32 = 100 * 625;

/// Batches waiting for a builder beyond this many per builder are refused
/// (503 `busy`): past it, waiting only adds latency. (Their bodies, at most
/// 256 KiB each, wait in memory: 16 MiB a builder at most.)
const WAITING_PER_SLOT: usize = 64;

/// The bounds of the rules routes, shared by the workers.
#[derive(Debug)]
pub struct RulesLimits {
    /// Cells per second and client; `None`: unbounded (`--rules-rate 0`).
    cells: Option<Arc<DefaultKeyedRateLimiter<IpAddr>>>,
    /// The batch builders: blocking threads that may run at once.
    slots: Arc<Semaphore>,
    capacity: usize,
    waiting: AtomicUsize,
}

impl RulesLimits {
    /// `cells_per_second` for each client (0: no bound), and `builders`
    /// batches built at once.
    #[must_use]
    pub fn new(cells_per_second: u32, builders: usize) -> RulesLimits {
        let cells = NonZeroU32::new(cells_per_second).map(|rate| {
            let burst = NonZeroU32::new(rate.get().max(2 * LARGEST_REQUEST)).unwrap_or(rate);
            super::rate_limit::per_client(Quota::per_second(rate).allow_burst(burst))
        });
        let builders = builders.max(1);
        RulesLimits {
            cells,
            slots: Arc::new(Semaphore::new(builders)),
            capacity: builders * WAITING_PER_SLOT,
            waiting: AtomicUsize::new(0),
        }
    }

    /// Counts `cells` against `client`'s bound: 429 `rate_limited` with the
    /// wait when over it (nothing is built).
    pub fn charge(&self, client: Option<IpAddr>, cells: u64) -> Result<(), ApiError> {
        let (Some(limiter), Some(ip)) = (&self.cells, client) else {
            return Ok(());
        };
        let cells = u32::try_from(cells.max(1))
            .ok()
            .and_then(NonZeroU32::new)
            .unwrap_or(NonZeroU32::MIN);
        match limiter.check_key_n(&ip, cells) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => Err(ApiError::RateLimited(super::rate_limit::seconds_until(
                &not_until,
            ))),
            // More than the bucket holds: no request is that large.
            Err(_) => Err(ApiError::RateLimited(1)),
        }
    }

    /// A builder for a batch, when one is free; 503 `busy` when too many
    /// batches wait already.
    pub async fn builder(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        /// Gives the waiting place back, also when the request goes away.
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::AcqRel);
            }
        }
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.capacity {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(ServiceError::Busy(
                "too many batches of positions are being built; retry in a moment",
            )
            .into());
        }
        let _waiting = Waiting(&self.waiting);
        self.slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ServiceError::Internal(format!("batch builders closed: {e}")).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clients_cells_are_bounded_and_others_go_on() {
        let limits = RulesLimits::new(100_000, 1);
        let flood = Some(IpAddr::from([10, 0, 0, 1]));
        let mut served = 0;
        while limits.charge(flood, 22_500).is_ok() {
            served += 1;
            assert!(served < 100, "never bounded");
        }
        // Its burst: two of the largest requests' worth, no more.
        assert_eq!(served, 2 * LARGEST_REQUEST as usize / 22_500);
        assert!(matches!(
            limits.charge(flood, 22_500),
            Err(ApiError::RateLimited(secs)) if secs >= 1
        ));
        assert!(
            limits
                .charge(Some(IpAddr::from([10, 0, 0, 2])), 22_500)
                .is_ok()
        );
        // Unbounded when turned off, and for a client of no address.
        let off = RulesLimits::new(0, 1);
        assert!((0..100).all(|_| off.charge(flood, 62_500).is_ok()));
        assert!((0..100).all(|_| limits.charge(None, 62_500).is_ok()));
    }

    #[tokio::test]
    async fn batches_wait_for_a_builder_up_to_a_bound() {
        let limits = Arc::new(RulesLimits::new(0, 1));
        let held = limits.builder().await.unwrap();
        let mut waiting = Vec::new();
        for _ in 0..WAITING_PER_SLOT {
            let limits = limits.clone();
            waiting.push(tokio::spawn(
                async move { limits.builder().await.map(drop) },
            ));
        }
        tokio::task::yield_now().await;
        while limits.waiting.load(Ordering::Acquire) < WAITING_PER_SLOT {
            tokio::task::yield_now().await;
        }
        assert!(matches!(
            limits.builder().await,
            Err(ApiError::Service(ServiceError::Busy(_)))
        ));
        drop(held);
        for w in waiting {
            assert!(w.await.unwrap().is_ok());
        }
        assert_eq!(limits.waiting.load(Ordering::Acquire), 0);
    }
}
