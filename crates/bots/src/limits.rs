//! The two limits of a search: a work allowance that keeps it deterministic,
//! and a wall-clock deadline that only cuts it short as a safety cap; and a
//! [`Stop`] that its caller may pull from another thread (nobody waits for
//! the answer any more), read with the clock.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Stops the searches run under it ([`Stop::run`]) from another thread, as
/// soon as they next read the clock: for a caller nobody waits for any
/// more. A search stopped so answers what it has, as at its deadline.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

thread_local! {
    /// The stop of the searches running on this thread, if any.
    static CURRENT: RefCell<Option<Stop>> = const { RefCell::new(None) };
}

impl Stop {
    /// A stop not pulled yet.
    #[must_use]
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Stops the searches run under it (at once for those started later).
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Stop::stop`] was called.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Runs `f` (searches on this thread) under this stop.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        /// Puts back the stop that was current, also if `f` panics.
        struct Restore(Option<Stop>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let before = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = before);
            }
        }
        let before = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(before);
        f()
    }

    /// The stop the searches on this thread run under, if any.
    pub(super) fn current() -> Option<Stop> {
        CURRENT.with(|c| c.borrow().clone())
    }
}

/// The clock is read once per this many units of work (a power of two).
const CLOCK_EVERY: u64 = 256;

/// Counts the work of one search against its allowance and its deadline.
#[derive(Debug)]
pub(super) struct Meter {
    allowance: u64,
    used: u64,
    deadline: Option<Instant>,
    /// The caller's stop, read with the clock.
    stop: Option<Stop>,
    out_of_work: bool,
    out_of_time: bool,
}

impl Meter {
    /// A meter allowing `work` units within `time` from now.
    pub(super) fn new(work: u64, time: Duration) -> Meter {
        Meter {
            allowance: work,
            used: 0,
            deadline: Instant::now().checked_add(time),
            stop: Stop::current(),
            out_of_work: false,
            out_of_time: false,
        }
    }

    /// Counts one unit of work. False once the allowance or the time is
    /// spent, and from then on.
    pub(super) fn tick(&mut self) -> bool {
        if self.stopped() {
            return false;
        }
        self.used += 1;
        if self.used > self.allowance {
            self.out_of_work = true;
        } else if self.used.is_multiple_of(CLOCK_EVERY) {
            self.check_clock();
        }
        !self.stopped()
    }

    /// Reads the clock now (for work units that are expensive).
    /// (and the caller's stop, which ends the search as its deadline does).
    pub(super) fn check_clock(&mut self) {
        if self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.stop.as_ref().is_some_and(Stop::is_stopped)
        {
            self.out_of_time = true;
        }
    }

    /// Whether the search must stop.
    pub(super) fn stopped(&self) -> bool {
        self.out_of_work || self.out_of_time
    }

    /// The wall-clock cap, if any.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The work still allowed: the allowance less what was counted.
    pub(super) fn left(&self) -> u64 {
        self.allowance.saturating_sub(self.used)
    }

    /// The whole allowance.
    pub(super) fn allowance(&self) -> u64 {
        self.allowance
    }

    /// A meter for a sub-search that may spend `share` of what is left of
    /// this one's allowance, with the same deadline. Account for its work
    /// with [`Meter::absorb`].
    pub(super) fn child(&self, share: u64) -> Meter {
        Meter {
            allowance: share.min(self.left()),
            used: 0,
            deadline: self.deadline,
            stop: self.stop.clone(),
            out_of_work: false,
            out_of_time: self.out_of_time,
        }
    }

    /// Adds a sub-search's work (and its running out of time) to this meter.
    pub(super) fn absorb(&mut self, child: &Meter) {
        self.used = self.used.saturating_add(child.used);
        self.out_of_time |= child.out_of_time;
        if self.used >= self.allowance {
            self.out_of_work = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_meter_stops_after_its_allowance() {
        let mut meter = Meter::new(3, Duration::from_mins(1));
        assert!(meter.tick() && meter.tick() && meter.tick());
        assert!(!meter.tick());
        assert!(meter.stopped() && !meter.tick());
    }

    #[test]
    fn a_meter_stops_at_its_deadline() {
        let mut meter = Meter::new(u64::MAX, Duration::ZERO);
        let ticks = (0..10 * CLOCK_EVERY).take_while(|_| meter.tick()).count();
        assert!(ticks < usize::try_from(CLOCK_EVERY).unwrap());
    }

    #[test]
    fn a_meter_stops_when_its_callers_stop_is_pulled() {
        let stop = Stop::new();
        let mut meter = stop.run(|| Meter::new(u64::MAX, Duration::from_mins(1)));
        let free = (0..4 * CLOCK_EVERY).take_while(|_| meter.tick()).count();
        assert_eq!(free, usize::try_from(4 * CLOCK_EVERY).unwrap());
        stop.stop();
        let ticks = (0..10 * CLOCK_EVERY).take_while(|_| meter.tick()).count();
        assert!(ticks < usize::try_from(CLOCK_EVERY).unwrap());
        // Outside `run`, a meter has no stop.
        assert!(Stop::current().is_none());
    }

    #[test]
    fn a_child_meter_spends_from_its_parent() {
        let mut parent = Meter::new(10, Duration::from_mins(1));
        let mut child = parent.child(100);
        assert_eq!(child.allowance(), 10);
        while child.tick() {}
        parent.absorb(&child);
        assert!(parent.stopped());
    }
}
