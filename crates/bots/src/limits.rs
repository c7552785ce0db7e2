//! The two limits of a search: a work allowance that keeps it deterministic,
//! and a wall-clock deadline that only cuts it short as a safety cap.

use std::time::{Duration, Instant};

/// The clock is read once per this many units of work (a power of two).
const CLOCK_EVERY: u64 = 256;

/// Counts the work of one search against its allowance and its deadline.
#[derive(Debug)]
pub(super) struct Meter {
    allowance: u64,
    used: u64,
    deadline: Option<Instant>,
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
    pub(super) fn check_clock(&mut self) {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
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
    fn a_child_meter_spends_from_its_parent() {
        let mut parent = Meter::new(10, Duration::from_mins(1));
        let mut child = parent.child(100);
        assert_eq!(child.allowance(), 10);
        while child.tick() {}
        parent.absorb(&child);
        assert!(parent.stopped());
    }
}
