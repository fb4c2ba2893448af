//! Waiter publication across workers: each worker's waiters of a path in the path's shared list, the paths with
//! waiters in one more list, and the reads that tell a worker whose waiters came first.

use log::warn;

use super::Worker;
use crate::host::{Host, Metric};
use crate::per_path::{OfPath, PathIndex, PerPath};
use crate::waiting::{self, Waiters};
use crate::waiting_paths::{self, Listed};

/// How long past its timeout another worker's waiter still counts as waiting: its worker refuses it on its
/// next tick, so after this it is a leftover of a worker that went away.
const STALE_AFTER_TIMEOUT_MS: u64 = 50;

impl<H: Host> Worker<H> {
    /// The bounded paths the shared list says other workers have waiters for, lowest first; `None` if it cannot
    /// be read.
    pub(super) fn paths_others_wait_for(&self) -> Option<Vec<PathIndex>> {
        let hashes = waiting_paths::others(&self.host, &self.keys.waiting_paths, self.id)
            .map_err(|e| warn!("pathfence: the paths others wait for are unknown: {e}"))
            .ok()?;
        let mut paths: Vec<PathIndex> =
            hashes.iter().filter_map(|h| self.paths_by_hash.get(h)).flatten().copied().collect();
        paths.sort_unstable();
        paths.dedup();
        Some(paths)
    }

    /// Publishes the queues that changed; a lost race leaves them marked for the next call.
    pub(super) fn publish_waiting(&mut self) {
        // The arrival times already published were converted to the wall clock before this thread's clock slipped:
        // they are off by the slip until published again.
        if self.watch.clock.slips() != self.published_at_slip {
            self.published_at_slip = self.watch.clock.slips();
            for path in self.busy.sorted() {
                if self.queued(path) > 0 {
                    self.unpublished.put(path, true);
                }
            }
        }
        let mut listing_changed = false;
        // Only busy paths can have changed; collected without allocating when none did (most requests).
        let unpublished: Vec<PathIndex> = self.busy.iter().filter(|path| self.unpublished.at(*path)).collect();
        for path in unpublished {
            // A path is listed as having waiters before they appear in its list (see `crate::waiting_paths`).
            if self.published.at(path) == 0 && self.queued(path) > 0 {
                self.unlisted = true;
                if !self.list_paths_with_waiters(Some(path)) {
                    continue;
                }
            }
            let (Some(queue), Some(key)) = (self.queues.of(path), self.keys.waiting.of(path)) else { continue };
            let arrivals_ms: Vec<u64> =
                queue.iter().take(waiting::MAX_LISTED).map(|c| self.arrival_on_wall(*c)).collect();
            let mine = Waiters { worker: self.id, waiting: queue.len() as u32, arrivals_ms };
            match waiting::publish(&self.host, key, &mine) {
                Ok(Some(before)) => {
                    if before == 0 && self.published.at(path) > 0 {
                        self.waiters_were_reclaimed(path);
                    }
                    self.unpublished.put(path, false);
                    listing_changed |= (self.published.at(path) == 0) != (mine.waiting == 0);
                    self.published.put(path, mine.waiting);
                }
                Ok(None) => {}
                Err(e) => {
                    warn!("pathfence: publishing the waiters of `{}` failed: {e}", self.config.name(path))
                }
            }
        }
        // Unlisted after their waiters left the path's list.
        if listing_changed || self.unlisted {
            self.unlisted = true;
            self.list_paths_with_waiters(None);
        }
    }

    /// Writes this worker's entry of the shared list of paths with waiters: the paths it has published waiters for,
    /// and `also`. Whether the list now says so; if not, a later call tries again (`unlisted` stays set).
    pub(super) fn list_paths_with_waiters(&mut self, also: Option<PathIndex>) -> bool {
        let mut paths: Vec<u64> = self
            .busy
            .iter()
            .filter(|path| self.published.at(*path) > 0 || Some(*path) == also)
            .map(|path| self.path_hashes.at(path))
            .collect();
        paths.sort_unstable();
        paths.dedup();
        match waiting_paths::publish(&self.host, &self.keys.waiting_paths, &Listed { worker: self.id, paths }) {
            Ok(true) => {
                self.unlisted = also.is_some();
                true
            }
            Ok(false) => false,
            Err(e) => {
                warn!("pathfence: listing the paths with waiters failed: {e}");
                false
            }
        }
    }

    /// Another worker took this one's waiters of `path` for a gone worker's while it stalled, and their count off
    /// `queued`: it goes back on.
    pub(super) fn waiters_were_reclaimed(&mut self, path: PathIndex) {
        warn!(
            "pathfence: the waiters of `{}` on this worker were reclaimed while it stalled; listed again",
            self.config.name(path)
        );
        self.host.add(path, Metric::Queued, i64::from(self.published.at(path)));
        self.published.put(path, 0);
        self.unlisted = true;
    }

    /// The waiters of other workers, read now.
    pub(super) fn others_waiting(&mut self, path: PathIndex) -> Vec<Waiters> {
        let Some(key) = self.keys.waiting.of(path) else { return Vec::new() };
        let others = waiting::others(&self.host, key, self.id).unwrap_or_else(|e| {
            warn!("pathfence: waiters of other workers unknown: {e}");
            Vec::new()
        });
        self.others_waited.put(path, waiting::any(&others));
        if waiting::any(&others) {
            self.busy.insert(path);
        }
        others
    }

    /// The waiters of other workers, read only if some were there at the last read (see `others_waited`).
    pub(super) fn others_waiting_if_seen(&mut self, path: PathIndex) -> Vec<Waiters> {
        if self.others_waited.at(path) {
            self.others_waiting(path)
        } else {
            Vec::new()
        }
    }

    /// Whether another worker has requests of `path` waiting; on a host error, no (fail open).
    pub(super) fn others_wait(&mut self, path: PathIndex) -> bool {
        if self.config.limit(path).is_none() {
            return false;
        }
        let wait = waiting::any(&self.others_waiting_if_seen(path));
        if wait {
            // Their worker can only see slots that are in the shared count.
            self.give_back_spares(path);
        }
        wait
    }

    /// Waiters that arrived before this wall-clock time are past their timeout (see [`STALE_AFTER_TIMEOUT_MS`]).
    /// Reads the clock only if another worker has waiters.
    pub(super) fn live_since(&self, path: PathIndex, others: &[Waiters]) -> u64 {
        if !waiting::any(others) {
            return 0;
        }
        self.now();
        let timeout = self.config.reservation(path).map_or(0, |r| r.queue_timeout_ms);
        self.watch.clock.wall_ms().saturating_sub(timeout.saturating_add(STALE_AFTER_TIMEOUT_MS))
    }

    /// When the request `context` arrived, on the wall clock, to compare with other workers' waiters.
    pub(super) fn arrival_on_wall(&self, context: u32) -> u64 {
        self.watch.clock.to_wall(self.since(context))
    }

    /// Publishes this worker's waiters of `path` again on this tick, in case another worker reclaimed its entry
    /// while it stalled: the publish sees the entry gone and puts their count back on `queued` (a stream event
    /// may publish first, which does the same).
    pub(super) fn reassert_waiters(&mut self, path: PathIndex) {
        if self.published.at(path) > 0 {
            self.unpublished.put(path, true);
            // And the path listed again, in case the entry went with them.
            self.unlisted = true;
        }
    }
}
