//! Leases and heartbeats: each worker's heartbeat in shared data, and the reclaim of what a worker whose heartbeat
//! stood still for its lease left in the shared counts and lists.

use std::collections::HashMap;

use log::warn;

use super::{Worker, KEY_PREFIX};
use crate::counters;
use crate::host::{Host, Metric};
use crate::per_path::PathIndex;
use crate::waiting;
use crate::waiting_paths;

pub(super) const HEARTBEAT_EVERY_MS: u64 = 1000;
pub(super) const RECLAIM_EVERY_MS: u64 = 1000;

pub(super) fn heartbeat_key(worker: u32) -> String {
    format!("{KEY_PREFIX}worker.{worker}.seen_ms")
}

impl<H: Host> Worker<H> {
    pub(super) fn heartbeat(&mut self, now: u64) {
        match self.host.set(&heartbeat_key(self.id), &now.to_le_bytes(), None) {
            Ok(_) => self.last_heartbeat_ms = now,
            Err(e) => warn!("pathfence: heartbeat failed: {e}"),
        }
    }

    /// Removes the in-flight shares and waiters of workers whose heartbeat has not changed for the lease, and
    /// what they added to `active` and `queued`; then puts back this worker's own share and waiters, in case
    /// another worker took them while this one stalled.
    ///
    /// A heartbeat is judged by whether it changes, timed on this thread's clock, not by the time written in it:
    /// a thread whose clock started after the wall clock stepped differs from an older one's by the step (see
    /// [`crate::clock`]), and comparing the two would make the older one look gone. The first sight of a worker by
    /// any worker of this thread starts its lease, so a worker that went away before the thread's first worker
    /// started is reclaimed a lease later; a worker started for a new configuration goes on from what the thread's
    /// workers saw before it.
    pub(super) fn reclaim(&mut self, now: u64) {
        let lease = self.config.worker_lease_ms;
        let me = self.id;
        // A worker named in several lists (every path has two) has its heartbeat read once per pass.
        let mut verdicts: HashMap<u32, bool> = HashMap::new();
        let host = &self.host;
        let watch = &self.watch;
        let mut is_gone = |worker: u32| {
            *verdicts.entry(worker).or_insert_with(|| {
                worker != me
                    && match host.get(&heartbeat_key(worker)) {
                        Ok(Some((bytes, _))) => watch.unchanged_for(worker, counters::read_u64(&bytes, 0), now) > lease,
                        Ok(None) => true,
                        Err(_) => false,
                    }
            })
        };
        for (path, (inflight, waiting)) in
            PathIndex::all(self.keys.inflight.len()).zip(self.keys.inflight.iter().zip(&self.keys.waiting))
        {
            match waiting::reclaim(&self.host, waiting, &mut is_gone) {
                // Their `queued` went away with them.
                Ok(gone) => {
                    let waited: i64 = gone.iter().map(|w| i64::from(w.waiting)).sum();
                    if waited > 0 {
                        self.host.add(path, Metric::Queued, -waited);
                    }
                }
                Err(e) => warn!("pathfence: reclaiming waiters failed: {e}"),
            }
            match counters::reclaim(&self.host, inflight, &mut is_gone) {
                Ok(gone) => {
                    for (worker, count) in gone {
                        warn!(
                            "pathfence: reclaimed {count} slot(s) of `{}` left by worker {worker}",
                            self.config.name(path)
                        );
                        // A worker's part of `active` is its share, so this takes back exactly what it added.
                        self.host.add_now(path, Metric::Active, -i64::from(count));
                    }
                }
                Err(e) => warn!("pathfence: reclaim failed: {e}"),
            }
        }
        if let Err(e) = waiting_paths::reclaim(&self.host, &self.keys.waiting_paths, &mut is_gone) {
            warn!("pathfence: reclaiming the paths with waiters failed: {e}");
        }
        self.watch.forget_unseen(now);
        for path in PathIndex::all(self.keys.inflight.len()) {
            self.reassert_share(path);
            self.reassert_waiters(path);
        }
    }
}
