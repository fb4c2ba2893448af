//! Spare slots: freed slots a worker keeps in the shared count for its next requests while they arrive fast enough,
//! saving each a compare-and-swap on the shared count.

use super::Worker;
use crate::host::Host;
use crate::per_path::{OfPath, PathIndex, PerPath};

/// Arrivals per millisecond on a worker from which it keeps freed slots as spares. A spare saves the next request
/// a compare-and-swap on the shared count when it takes a slot and another when it frees it (six crossings into
/// and out of the VM, about 30 µs of Envoy's CPU on the bench machine under a light load), but keeps the tick at
/// the spares pace until it is given back, and such a tick cost about 50 µs. From 1 arrival per millisecond a tick
/// is shared by five requests or more, and spares pay.
const SPARES_FROM_ARRIVALS_PER_MS: u64 = 1;
/// The arrival rate is taken over at least this long, so that a tick soon after another does not decide it.
const RATE_WINDOW_MS: u64 = 10;

impl<H: Host> Worker<H> {
    /// Slots of `path` this worker holds in the shared count without a request on them (spares, and
    /// releases still to be retried).
    pub fn idle_slots(&self, path: PathIndex) -> u32 {
        self.spare.of(path).copied().unwrap_or(0) + self.pending_release.of(path).copied().unwrap_or(0)
    }

    #[cfg(test)]
    pub(crate) fn keeps_spares(&self) -> bool {
        self.keep_spares
    }

    /// Decides from the arrival rate since the last decision whether freed slots are kept as spares.
    pub(super) fn measure_arrival_rate(&mut self, now: u64) {
        // This thread's clock never steps back (see `crate::clock`).
        let elapsed = now.saturating_sub(self.rate_since_ms);
        if elapsed < RATE_WINDOW_MS {
            return;
        }
        self.keep_spares = self.arrivals >= SPARES_FROM_ARRIVALS_PER_MS.saturating_mul(elapsed);
        self.arrivals = 0;
        self.rate_since_ms = now;
    }

    pub(super) fn give_back_spares(&mut self, path: PathIndex) {
        let spare = self.spare.at(path);
        self.spare.put(path, 0);
        self.spares_taken.put(path, 0);
        self.give_back(path, spare);
    }

    /// On a tick with nobody waiting: keeps as many spares of `path` as requests took since the last tick and
    /// gives back the rest. Under a steady load a worker then holds about as many spares as its requests reuse,
    /// instead of giving them all back on every tick and taking them again right after, a compare-and-swap
    /// each; once its requests stop, the next tick gives them all back.
    pub(super) fn give_back_unused_spares(&mut self, path: PathIndex) {
        let kept = self.spare.at(path).min(self.spares_taken.at(path));
        let unused = self.spare.at(path) - kept;
        self.spares_taken.put(path, 0);
        self.spare.put(path, kept);
        self.give_back(path, unused);
    }
}
