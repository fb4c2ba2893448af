//! What the workers of one thread know of time and of the other workers' heartbeats.
//!
//! It is kept for the thread, not for each worker: Envoy starts a new worker on a thread for every new
//! configuration (a new root context), and a worker that had to see another worker's heartbeat stand still for a
//! whole lease by itself would start that lease over at every configuration change. A worker of a failed VM would
//! then be reclaimed a lease after the last change, and never while the configuration changed more often than the
//! lease. The workers of a thread share one clock too, since the times they keep here must be comparable.

use std::cell::Cell;
use std::collections::HashMap;

use crate::clock::SteadyClock;

/// A heartbeat that no worker of the thread looked at for this long is forgotten: its worker is named by no list
/// any more (it was reclaimed, or gave everything back). Reclaim passes come every second.
const FORGET_AFTER_MS: u64 = 3000;

pub struct Watch {
    /// Every time a worker keeps is on this clock, never on the host's wall clock directly: see [`crate::clock`].
    pub clock: SteadyClock,
    /// Taken out while in use and put back, so that no use can find it borrowed.
    beats: Cell<HashMap<u32, SeenBeat>>,
}

/// Another worker's heartbeat as this thread last saw it.
struct SeenBeat {
    value: u64,
    /// When it last changed, on the thread's clock.
    changed_ms: u64,
    /// When a worker of this thread last looked at it.
    looked_ms: u64,
}

impl Watch {
    pub fn starting_at(wall_ms: u64) -> Watch {
        Watch { clock: SteadyClock::starting_at(wall_ms), beats: Cell::new(HashMap::new()) }
    }

    /// How long, on the thread's clock, `worker`'s heartbeat has shown `value`; the first sight starts the count.
    pub fn unchanged_for(&self, worker: u32, value: u64, now: u64) -> u64 {
        let mut beats = self.beats.take();
        let seen = beats.entry(worker).or_insert(SeenBeat { value, changed_ms: now, looked_ms: now });
        if seen.value != value {
            seen.value = value;
            seen.changed_ms = now;
        }
        seen.looked_ms = now;
        let unchanged = now.saturating_sub(seen.changed_ms);
        self.beats.set(beats);
        unchanged
    }

    /// Forgets the heartbeats no worker of the thread has looked at lately.
    pub fn forget_unseen(&self, now: u64) {
        let mut beats = self.beats.take();
        beats.retain(|_, seen| now.saturating_sub(seen.looked_ms) <= FORGET_AFTER_MS);
        self.beats.set(beats);
    }

    #[cfg(test)]
    pub fn remembered(&self) -> usize {
        let beats = self.beats.take();
        let n = beats.len();
        self.beats.set(beats);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heartbeat_counts_from_its_last_change_on_the_thread_clock() {
        let watch = Watch::starting_at(1_000);
        assert_eq!(watch.unchanged_for(7, 100, 1_000), 0);
        assert_eq!(watch.unchanged_for(7, 100, 3_500), 2_500);
        assert_eq!(watch.unchanged_for(7, 101, 4_000), 0, "a change is a sign of life");
        assert_eq!(watch.unchanged_for(7, 101, 4_600), 600);
    }

    #[test]
    fn heartbeats_nobody_looks_at_any_more_are_forgotten() {
        let watch = Watch::starting_at(1_000);
        watch.unchanged_for(7, 100, 1_000);
        watch.unchanged_for(8, 100, 1_000);
        watch.unchanged_for(8, 100, 3_000);
        watch.forget_unseen(1_000 + FORGET_AFTER_MS);
        assert_eq!(watch.remembered(), 2);
        watch.forget_unseen(1_001 + FORGET_AFTER_MS);
        assert_eq!(watch.remembered(), 1, "worker 7 was last looked at more than {FORGET_AFTER_MS} ms ago");
        assert_eq!(watch.unchanged_for(8, 100, 4_500), 3_500, "worker 8's count goes on");
    }
}
