//! The tick's pace (see [`crate::pace`]) and when a tick flushes the metric deltas.

use crate::pace::{Pace, TickWork};

/// How often the metric deltas are flushed while the worker ticks faster than idle: every stat that changed costs a
/// hostcall, and a tick under load saw several requests change `admitted` and `active`. At the idle pace every
/// tick flushes.
pub const FLUSH_EVERY_MS: u64 = 10;

#[derive(Debug, Clone, Copy, Default)]
pub struct Pacing {
    pub pace: Pace,
    /// Time ticked since the metrics were last flushed.
    unflushed_ms: u64,
}

impl Pacing {
    /// Whether this tick flushes the metric deltas, given the pace it ran at: every 10 ms of ticking, on every
    /// idle tick, and on the tick that slows to idle (the next one is 100 ms away).
    pub fn flush_due(&mut self, ran_at: Pace) -> bool {
        let elapsed = self.unflushed_ms + ran_at.period_ms();
        let due = ran_at.is_idle() || self.pace.is_idle() || elapsed >= FLUSH_EVERY_MS;
        self.unflushed_ms = if due { 0 } else { elapsed };
        due
    }

    /// Moves the pace by `step`; the new tick period, if it changed.
    pub fn step(&mut self, step: impl FnOnce(&mut Pace) -> Option<u64>) -> Option<u64> {
        let before = self.pace;
        let period = step(&mut self.pace);
        if before.is_idle() && !self.pace.is_idle() {
            // The last flush was at the last idle tick, up to 100 ms ago: the first faster tick flushes.
            self.unflushed_ms = FLUSH_EVERY_MS;
        }
        period
    }

    /// After a tick that left `work`.
    pub fn after_tick(&mut self, work: TickWork) -> Option<u64> {
        self.step(|pace| pace.after_tick(work))
    }

    /// After a stream event that left `work`.
    pub fn after_event(&mut self, work: TickWork) -> Option<u64> {
        self.step(|pace| pace.after_event(work))
    }
}
