//! Taking and giving back slots of the shared in-flight counts.
//!
//! A worker's part of a path's `active` gauge is its share of the shared count: a slot adds to `active` when it
//! enters the count and takes away when it leaves it. A spare therefore still counts (while requests here keep
//! taking spares, and for a tick after), and reclaiming a worker's share takes back exactly what it added.
//!
//! The Wasm layer hands a worker's additions to Envoy in batches (every 10 ms while it ticks faster than idle),
//! so a slot taken off `active` in a batch would still show there after it went back to the count, while the worker
//! that took it next may already have added it again: `active` would read above the limit for up to a batch's
//! time. So a slot is taken off `active` at once, before it goes back to the count, and added only after it was
//! taken from the count: what Envoy shows never exceeds the count. A release that keeps losing its race is off
//! `active` while it waits to be retried (see `off_active`).

use log::warn;

use super::{Permit, State, Worker};
use crate::counters::{self, Acquire};
use crate::host::{Host, Metric};
use crate::per_path::{OfPath, PathIndex, PerPath};

impl<H: Host> Worker<H> {
    /// Takes a slot for a request of `path`: its own reservation, or for a local request whose reservation
    /// is full, the other path with the fewest requests in flight that still has room.
    pub(super) fn try_acquire(&mut self, path: PathIndex) -> Option<Permit> {
        if let Some(permit) = self.try_path(path) {
            return Some(permit);
        }
        if path != self.config.local() || !self.config.local_borrows {
            return None;
        }
        let mut others: Vec<(u64, PathIndex)> =
            PathIndex::all(self.config.local().0).filter_map(|other| self.load(other).map(|n| (n, other))).collect();
        others.sort_unstable();
        others.into_iter().find_map(|(_, other)| self.try_path(other))
    }

    fn try_path(&mut self, path: PathIndex) -> Option<Permit> {
        let reservation = self.config.reservation(path)?;
        if reservation.max_concurrency.is_none() {
            return Some(Permit { path, counted: false, admitted_ns: None });
        }
        // A path drained below a lower limit takes no spare: they all went back when it shrank.
        if self.spare.at(path) > 0 && !self.draining(path) {
            self.spare.update(path, |n| n - 1);
            self.spares_taken.update(path, |n| n.saturating_add(1));
            return Some(Permit { path, counted: true, admitted_ns: None });
        }
        self.catch_up_with_limits(path);
        let limit = self.config.limit(path)?;
        let key = self.keys.inflight.of(path)?;
        match counters::try_acquire(&self.host, key, self.id, limit) {
            Ok(Acquire::Granted) => {
                self.host.add(path, Metric::Active, 1);
                Some(Permit { path, counted: true, admitted_ns: None })
            }
            Ok(Acquire::Full) | Ok(Acquire::Contended) => None,
            Err(e) => {
                warn!("pathfence: shared count of `{}` unavailable, admitting: {e}", self.config.name(path));
                Some(Permit { path, counted: false, admitted_ns: None })
            }
        }
    }

    /// Free slots a request of `path` could take, across workers (its own path, and the others for a local
    /// request that may borrow). This worker's spares are given back first, so that they count as free.
    pub(super) fn available(&mut self, path: PathIndex) -> u64 {
        let local = self.config.local();
        let lenders: Vec<PathIndex> =
            if path == local && self.config.local_borrows { PathIndex::all(local.0 + 1).collect() } else { vec![path] };
        let mut free = 0u64;
        for lender in lenders {
            let Some(limit) = self.config.limit(lender) else {
                return u64::MAX;
            };
            self.give_back_spares(lender);
            let load = self.load(lender).unwrap_or(u64::from(limit));
            free = free.saturating_add(u64::from(limit).saturating_sub(load));
        }
        free
    }

    /// Whether `path`'s shared count is at its limit; yes if it cannot be read, so that spares are not kept on a
    /// guess.
    pub(super) fn is_full(&self, path: PathIndex) -> bool {
        let Some(limit) = self.config.limit(path) else {
            return false;
        };
        self.load(path).is_none_or(|load| load >= u64::from(limit))
    }

    /// The shared count of `path`, across workers; `None` if it cannot be read.
    fn load(&self, path: PathIndex) -> Option<u64> {
        counters::load(&self.host, self.keys.inflight.of(path)?).ok()
    }

    /// Takes `count` slots of `path` out of the shared count now, or on a later tick if the race is lost.
    pub(super) fn give_back(&mut self, path: PathIndex, count: u32) {
        self.pending_release.update(path, |n| n.saturating_add(count));
        if count > 0 {
            self.busy.insert(path);
        }
        let pending = self.pending_release.at(path);
        if pending == 0 {
            return;
        }
        // Off `active` before another worker can take them (see the module's comment).
        let Some(key) = self.keys.inflight.of(path) else { return };
        let not_yet_off = pending.saturating_sub(self.off_active.at(path));
        if not_yet_off > 0 {
            self.host.add_now(path, Metric::Active, -i64::from(not_yet_off));
            self.off_active.put(path, pending);
        }
        match counters::release(&self.host, key, self.id, pending) {
            Ok(Some(left)) => {
                self.pending_release.put(path, 0);
                self.off_active.put(path, 0);
                // Fewer than `pending` if another worker reclaimed this one's share while it stalled: the reclaim
                // took those off `active` already, and so did this worker.
                if left < pending {
                    self.host.add(path, Metric::Active, i64::from(pending - left));
                }
            }
            Ok(None) => {}
            Err(e) => warn!("pathfence: releasing {pending} slot(s) failed, will retry: {e}"),
        }
    }

    /// Slots of `path` this worker has taken off `active` ahead of a release still to be retried: `active` reads
    /// that much below the shared count until the release goes through.
    pub fn off_active(&self, path: PathIndex) -> u32 {
        self.off_active.of(path).copied().unwrap_or(0)
    }

    /// The slots of `path` this worker holds in the shared count: its requests' slots, its spares and the
    /// releases still to be retried. Only this worker changes its share, so the two agree unless another worker
    /// reclaimed it.
    fn own_share(&self, path: PathIndex) -> u32 {
        let admitted = self
            .requests
            .values()
            .filter(|r| matches!(r.state, State::Admitted(p) if p.path == path && p.counted))
            .count();
        u32::try_from(admitted)
            .unwrap_or(u32::MAX)
            .saturating_add(self.spare.at(path))
            .saturating_add(self.pending_release.at(path))
    }

    /// Puts this worker's share of `path` back to what it holds, if it differs: a worker that stalled past its
    /// lease (its thread blocked, or its heartbeat writes failing) had its share reclaimed while its requests were
    /// still running, and their ends would otherwise give back the slots of its later requests. The path may then
    /// hold more than its limit for a while; it takes no new request until enough of them end.
    pub(super) fn reassert_share(&mut self, path: PathIndex) {
        if let Some((before, held)) = self.set_own_share(path) {
            warn!(
                "pathfence: the shared count of `{}` had {before} slot(s) of this worker, which holds {held}; put back \
                 (it was reclaimed while this worker stalled)",
                self.config.name(path)
            );
        }
    }

    /// Sets this worker's share of `path` to what it holds and moves `active` by the difference; the share it
    /// replaced and the new one, if they differed.
    pub(super) fn set_own_share(&mut self, path: PathIndex) -> Option<(u32, u32)> {
        self.config.limit(path)?;
        let held = self.own_share(path);
        match counters::set_share(&self.host, self.keys.inflight.of(path)?, self.id, held) {
            Ok(Some(before)) if before != held => {
                self.host.add_now(path, Metric::Active, i64::from(held) - i64::from(before));
                Some((before, held))
            }
            Ok(Some(_)) => None,
            Ok(None) => {
                warn!("pathfence: setting this worker's share of `{}` kept losing the race", self.config.name(path));
                None
            }
            Err(e) => {
                warn!("pathfence: checking this worker's share failed: {e}");
                None
            }
        }
    }
}
