//! A worker thread's own time, made from the host's wall clock: proxy-wasm gives a module no monotonic clock.
//!
//! Wait deadlines, pause ends, heartbeats and the arrival rate are measured on it. The wall clock can step: back
//! when NTP corrects it, forward by minutes when a paused VM resumes. On the wall clock, a step back of a minute
//! would keep requests waiting a minute past their timeout, and a step forward past the lease would make every
//! other worker look gone. Here a step back stops the time until the next reading, and a gap between two readings
//! counts as at most [`MAX_STEP_MS`].
//!
//! Times other workers read (when waiters arrived, when a pause ends) are wall-clock times instead: two workers'
//! clocks drift apart by whatever one of them counted short (a thread that stalled for seconds falls behind the
//! other for good), while the wall clock is the same for both. [`SteadyClock::to_wall`] converts.

use std::cell::Cell;

/// The most one reading moves the time on. A worker reads the clock on every tick, at least every 100 ms, so a
/// longer gap is a clock step or a thread that stalled; counting it short only makes waits and leases run a
/// little longer than configured, never shorter.
pub const MAX_STEP_MS: u64 = 1000;

#[derive(Debug)]
pub struct SteadyClock {
    /// The last wall-clock reading that succeeded, and the time it gave.
    last_wall_ms: Cell<u64>,
    now_ms: Cell<u64>,
    /// How many times this clock moved otherwise than the wall clock (a step back, a gap counted short), which
    /// changes how its times convert to wall-clock times.
    slips: Cell<u64>,
}

impl SteadyClock {
    /// Starts at the wall clock's time, so that threads whose clocks started at different times read the same time
    /// until the wall clock steps or one of them slips.
    pub fn starting_at(wall_ms: u64) -> SteadyClock {
        SteadyClock { last_wall_ms: Cell::new(wall_ms), now_ms: Cell::new(wall_ms), slips: Cell::new(0) }
    }

    /// The time, given a new reading of the wall clock. A reading of 0 is a failed one: it is ignored, so the time
    /// stands still until the clock can be read again, and the gap then counts from the last good reading.
    pub fn read(&self, wall_ms: u64) -> u64 {
        if wall_ms == 0 {
            return self.now_ms.get();
        }
        let gap = wall_ms.checked_sub(self.last_wall_ms.get());
        let step = gap.unwrap_or(0).min(MAX_STEP_MS);
        if gap != Some(step) {
            self.slips.set(self.slips.get() + 1);
        }
        self.last_wall_ms.set(wall_ms);
        let now = self.now_ms.get().saturating_add(step);
        self.now_ms.set(now);
        now
    }

    /// How many times this clock has slipped against the wall clock: times converted with [`SteadyClock::to_wall`]
    /// before a slip are off by it.
    pub fn slips(&self) -> u64 {
        self.slips.get()
    }

    /// The wall clock's time at the last good reading.
    pub fn wall_ms(&self) -> u64 {
        self.last_wall_ms.get()
    }

    /// The wall-clock time of `steady_ms`, a time of this clock, as of the last reading: it lies as far before
    /// that reading on the wall clock as on this one.
    pub fn to_wall(&self, steady_ms: u64) -> u64 {
        self.last_wall_ms.get().saturating_sub(self.now_ms.get().saturating_sub(steady_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_wall_clock_while_it_runs_evenly() {
        let clock = SteadyClock::starting_at(5_000);
        assert_eq!(clock.read(5_002), 5_002);
        assert_eq!(clock.read(5_100), 5_100);
        assert_eq!(clock.read(5_100), 5_100);
    }

    #[test]
    fn a_step_back_stops_the_time_until_the_next_reading() {
        let clock = SteadyClock::starting_at(60_000);
        assert_eq!(clock.read(60_010), 60_010);
        assert_eq!(clock.read(10), 60_010, "the clock stepped back a minute");
        assert_eq!(clock.read(12), 60_012, "and the time runs on from where it was");
    }

    #[test]
    fn a_step_forward_counts_as_at_most_one_max_step() {
        let clock = SteadyClock::starting_at(1_000);
        assert_eq!(clock.read(3_601_000), 1_000 + MAX_STEP_MS);
        assert_eq!(clock.read(3_601_005), 1_000 + MAX_STEP_MS + 5);
    }

    #[test]
    fn a_failed_reading_is_ignored() {
        let clock = SteadyClock::starting_at(7_000);
        assert_eq!(clock.read(0), 7_000);
        assert_eq!(clock.read(7_050), 7_050, "the gap counts from the last good reading");
        assert_eq!(clock.wall_ms(), 7_050);
    }

    #[test]
    fn times_convert_to_the_wall_clock_across_a_step() {
        let clock = SteadyClock::starting_at(100_000);
        clock.read(100_400);
        assert_eq!(clock.to_wall(100_100), 100_100);
        // The wall clock steps back a minute: a time 300 ms ago on this clock was 300 ms ago on the wall clock.
        clock.read(40_405);
        assert_eq!(clock.read(40_410), 100_405);
        assert_eq!(clock.to_wall(100_105), 40_410 - 300);
        assert_eq!(clock.to_wall(0), 0, "never before the wall clock's start");
        assert_eq!(clock.slips(), 1);
        clock.read(40_410 + 5_000);
        assert_eq!(clock.slips(), 2, "a gap counted short");
    }

    #[test]
    fn never_overflows() {
        let clock = SteadyClock::starting_at(u64::MAX - 10);
        assert_eq!(clock.read(u64::MAX), u64::MAX);
        assert_eq!(clock.read(u64::MAX), u64::MAX);
    }
}
