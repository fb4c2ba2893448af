//! How often a worker ticks.
//!
//! A tick costs Envoy a timer wake-up and an entry into the VM whether or not there is anything to do: on the
//! bench machine, ticking every 2 ms on two workers cost about 40 ms of CPU per second with no traffic at all.
//! So a worker ticks at the busy pace only while it has work a tick must do soon: requests waiting or held by a
//! pause, spare slots (kept only while requests arrive fast, see `limiter`) or releases to give back, waiters to
//! publish. Once it has had none for a while it slows to the idle pace, which still keeps its heartbeat and the
//! reclaim on time; the first stream event that leaves work behind brings the busy pace back at once.

/// The pace while there is work: a waiter on another worker is resumed within about two of these.
pub const BUSY_TICK_MS: u64 = 2;
/// The pace with nothing to do; well under the heartbeat interval, see [`crate::config::MIN_WORKER_LEASE_MS`].
pub const IDLE_TICK_MS: u64 = 100;
/// Busy ticks in a row with nothing to do before slowing down (100 ms), so that a trickle of requests does not
/// reset the timer on every tick.
const IDLE_TICKS_BEFORE_SLOWING: u32 = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    busy: bool,
    idle_ticks: u32,
}

impl Default for Pace {
    /// A new worker starts at the busy pace.
    fn default() -> Pace {
        Pace { busy: true, idle_ticks: 0 }
    }
}

impl Pace {
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    pub fn period_ms(&self) -> u64 {
        if self.busy {
            BUSY_TICK_MS
        } else {
            IDLE_TICK_MS
        }
    }

    /// After a tick, given whether work is left for later ticks; the new period if it changes.
    pub fn after_tick(&mut self, has_work: bool) -> Option<u64> {
        if has_work {
            return self.after_event(true);
        }
        if self.busy {
            self.idle_ticks = self.idle_ticks.saturating_add(1);
            if self.idle_ticks >= IDLE_TICKS_BEFORE_SLOWING {
                return self.set_busy(false);
            }
        }
        None
    }

    /// After a stream event, given whether it left work for the tick; the new period if it changes.
    pub fn after_event(&mut self, has_work: bool) -> Option<u64> {
        if has_work {
            self.idle_ticks = 0;
            return self.set_busy(true);
        }
        None
    }

    fn set_busy(&mut self, busy: bool) -> Option<u64> {
        if self.busy == busy {
            return None;
        }
        self.busy = busy;
        Some(self.period_ms())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slows_down_only_after_a_run_of_idle_ticks() {
        let mut pace = Pace::default();
        for _ in 1..IDLE_TICKS_BEFORE_SLOWING {
            assert_eq!(pace.after_tick(false), None);
        }
        assert_eq!(pace.after_tick(false), Some(IDLE_TICK_MS));
        assert_eq!(pace.after_tick(false), None, "already idle");
        assert_eq!(pace.period_ms(), IDLE_TICK_MS);
    }

    #[test]
    fn work_left_by_a_stream_brings_the_busy_pace_back_at_once() {
        let mut pace = Pace::default();
        (0..IDLE_TICKS_BEFORE_SLOWING).for_each(|_| {
            pace.after_tick(false);
        });
        assert_eq!(pace.after_event(false), None, "an event that leaves nothing to do changes nothing");
        assert_eq!(pace.after_event(true), Some(BUSY_TICK_MS));
        assert_eq!(pace.after_event(true), None, "already busy");
    }

    #[test]
    fn any_work_restarts_the_idle_run() {
        let mut pace = Pace::default();
        for _ in 0..IDLE_TICKS_BEFORE_SLOWING - 1 {
            pace.after_tick(false);
        }
        pace.after_event(true);
        assert_eq!(pace.after_tick(false), None, "the run of idle ticks started again");
        assert_eq!(pace.period_ms(), BUSY_TICK_MS);
    }
}
