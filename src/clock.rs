//! The service's time source: the system clock, or in tests a clock that
//! only moves when told to, so that game clocks, the timeout sweeper and
//! expiry can be tested without sleeping.

use std::fmt;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, SubsecRound as _, TimeDelta, Utc};

/// Where "now" comes from. Cloning shares the source.
#[derive(Clone, Default)]
pub struct Clock(Source);

#[derive(Clone, Default)]
enum Source {
    #[default]
    System,
    Manual(Arc<Mutex<DateTime<Utc>>>),
}

impl Clock {
    /// The system clock.
    #[must_use]
    pub fn system() -> Clock {
        Clock(Source::System)
    }

    /// A clock that stands at `start` until [`Clock::advance`] or
    /// [`Clock::set`] moves it.
    #[must_use]
    pub fn manual(start: DateTime<Utc>) -> Clock {
        Clock(Source::Manual(Arc::new(Mutex::new(start))))
    }

    /// The current time, to the microsecond: the precision times are
    /// stored with, so that an answer made from a record just written shows
    /// the times a later read of it shows.
    #[must_use]
    pub fn now(&self) -> DateTime<Utc> {
        let now = match &self.0 {
            Source::System => Utc::now(),
            Source::Manual(t) => *t.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
        };
        now.trunc_subsecs(6)
    }

    /// Moves a manual clock forward by `by`; the system clock ignores it.
    pub fn advance(&self, by: std::time::Duration) {
        if let Source::Manual(t) = &self.0 {
            let mut t = t.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            *t += TimeDelta::from_std(by).unwrap_or(TimeDelta::MAX);
        }
    }

    /// Sets a manual clock to `to`; the system clock ignores it.
    pub fn set(&self, to: DateTime<Utc>) {
        if let Source::Manual(t) = &self.0 {
            *t.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = to;
        }
    }

    /// Whether this is a manual (test) clock.
    #[must_use]
    pub fn is_manual(&self) -> bool {
        matches!(self.0, Source::Manual(_))
    }
}

/// Two clocks are equal when they are the same source: both the system
/// clock, or clones of one manual clock.
impl PartialEq for Clock {
    fn eq(&self, other: &Clock) -> bool {
        match (&self.0, &other.0) {
            (Source::System, Source::System) => true,
            (Source::Manual(a), Source::Manual(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Clock {}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::System => f.write_str("Clock::System"),
            Source::Manual(_) => write!(f, "Clock::Manual({})", self.now()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_manual_clock_moves_only_when_told_and_clones_share_it() {
        let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        let clock = Clock::manual(start);
        let other = clock.clone();
        assert_eq!(clock.now(), start);
        other.advance(Duration::from_millis(1500));
        assert_eq!(clock.now(), start + TimeDelta::milliseconds(1500));
        clock.set(start);
        assert_eq!(other.now(), start);
        assert!(clock.is_manual() && !Clock::system().is_manual());
    }

    #[test]
    fn times_are_whole_microseconds_as_stored() {
        for clock in [Clock::system(), Clock::manual(Utc::now())] {
            clock.advance(Duration::from_nanos(1_234_567));
            assert_eq!(clock.now().timestamp_subsec_nanos() % 1000, 0);
        }
        let start = DateTime::from_timestamp(1_800_000_000, 123_456_789).unwrap_or_default();
        assert_eq!(
            Clock::manual(start).now().timestamp_subsec_nanos(),
            123_456_000
        );
    }

    #[test]
    fn the_system_clock_ignores_advance() {
        let clock = Clock::system();
        let before = clock.now();
        clock.advance(Duration::from_hours(1));
        assert!(clock.now() - before < TimeDelta::minutes(1));
    }
}
