//! A worker's periodic work, and how pressing it is (which sets the pace of the thread's tick).

use super::leases::{HEARTBEAT_EVERY_MS, RECLAIM_EVERY_MS};
use super::{Busy, Effect, Worker};
use crate::host::Host;
use crate::pace::TickWork;
use crate::per_path::{OfPath, PathIndex, PerPath};
use crate::waiting::{self, Waiters};

impl<H: Host> Worker<H> {
    /// What this worker's next tick has to do, which sets how soon it comes (see [`crate::pace`]). Only the busy
    /// paths can have any: it is asked after every request.
    pub fn tick_work(&self) -> TickWork {
        let prompt = !self.held.is_empty()
            || self.unlisted
            || self.busy.iter().any(|path| {
                self.queues.of(path).is_some_and(|q| !q.is_empty())
                    || self.pending_release.of(path).is_some_and(|n| *n > 0)
                    || self.unpublished.of(path).copied().unwrap_or(false)
                    // While others wait, every tick reads their waiters again, so that newcomers here stop queueing
                    // behind them once they are served.
                    || self.others_waited.of(path).copied().unwrap_or(false)
            });
        if prompt {
            TickWork::Prompt
        } else if self.busy.iter().any(|path| self.spare.of(path).is_some_and(|n| *n > 0)) {
            TickWork::Spares
        } else {
            TickWork::None
        }
    }

    /// Whether a tick has anything to do beyond the heartbeat and the reclaim.
    pub fn has_tick_work(&self) -> bool {
        self.tick_work() != TickWork::None
    }

    /// Whether path `path` has anything for a tick to do; a path that has stays in `busy`.
    pub(super) fn is_busy(&self, path: PathIndex) -> bool {
        self.queues.of(path).is_some_and(|q| !q.is_empty())
            || self.unpublished.of(path).copied().unwrap_or(false)
            || self.published.of(path).is_some_and(|n| *n > 0)
            || self.spare.of(path).is_some_and(|n| *n > 0)
            || self.spares_taken.of(path).is_some_and(|n| *n > 0)
            || self.pending_release.of(path).is_some_and(|n| *n > 0)
            || self.others_waited.of(path).copied().unwrap_or(false)
            || self.draining(path)
    }

    /// Periodic work: heartbeat, reclaim, spares and retried releases given back, pause ends, wait timeouts
    /// and slots freed elsewhere.
    pub fn on_tick(&mut self, effects: &mut Vec<Effect>) {
        let now = self.now();
        if now.saturating_sub(self.last_heartbeat_ms) >= HEARTBEAT_EVERY_MS {
            self.heartbeat(now);
        }
        if now.saturating_sub(self.last_reclaim_ms) >= RECLAIM_EVERY_MS {
            self.last_reclaim_ms = now;
            self.reclaim(now);
        }
        self.measure_arrival_rate(now);
        self.tune(now);
        // The waiters of other workers, read once per tick for the paths the shared list says they wait for, and
        // handed to the drains below rather than read again. Every other path is known to have none.
        let waited = self.paths_others_wait_for().unwrap_or_default();
        for path in self.busy.sorted() {
            if waited.binary_search(&path).is_err() {
                self.others_waited.put(path, false);
            }
        }
        let others: Vec<(PathIndex, Vec<Waiters>)> =
            waited.into_iter().map(|path| (path, self.others_waiting(path))).collect();
        let others_of = |path: PathIndex| -> Vec<Waiters> {
            others.iter().find(|(c, _)| *c == path).map(|(_, o)| o.clone()).unwrap_or_default()
        };
        let busy = self.busy.sorted();
        // A waiter anywhere may need any path's slots (a local request may borrow them): all spares go back. With
        // nobody waiting, the ones requests still take stay (given back, each would be taken again by
        // compare-and-swap right after), unless they fill the path: a request elsewhere may then have been refused
        // without ever waiting (`max_queue` 0) or have looked for a path to borrow from.
        let anyone_waits = others.iter().any(|(_, o)| waiting::any(o));
        for &path in &busy {
            if anyone_waits || !self.keep_spares {
                self.give_back_spares(path);
            } else {
                self.give_back_unused_spares(path);
                if self.spare.at(path) > 0 && self.is_full(path) {
                    self.give_back_spares(path);
                }
            }
        }
        self.expire_held(now, effects);
        self.release_held(effects);
        // Requests released from a pause may have queued on a path that was not busy before.
        let busy = self.busy.sorted();
        for &path in &busy {
            self.expire(path, now, effects);
        }
        // The local path first: it has priority over the others (Algorithm 1).
        let local = self.config.local();
        if busy.contains(&local) {
            self.drain(local, Some(others_of(local)), effects);
        }
        for &path in busy.iter().filter(|c| **c != local) {
            self.drain(path, Some(others_of(path)), effects);
        }
        self.publish_waiting();
        self.busy_paths_only();
    }

    /// Keeps in `busy` only the paths that still have something to do.
    pub(super) fn busy_paths_only(&mut self) {
        let mut busy = std::mem::replace(&mut self.busy, Busy::new(0));
        busy.retain(|path| self.is_busy(path));
        self.busy = busy;
    }
}
