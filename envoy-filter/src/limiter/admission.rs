//! Admission: a request takes a slot, waits in its path's queue, or is refused; a freed slot goes to the waiter
//! that came first, here or on another worker.

use std::collections::VecDeque;

use super::{Decision, Effect, Permit, Reason, Request, State, Worker};
use crate::host::{Host, Metric};
use crate::per_path::{OfPath, PathIndex, PerPath};
use crate::waiting::{self, Waiters};

/// Whether a request that cannot have a slot at once may wait only while its path's queue has room, or always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Room {
    UpToMaxQueue,
    Always,
}

impl<H: Host> Worker<H> {
    /// For a request that was held or queued and settled within one call: turn its effect into the decision.
    pub(super) fn take_decision(&mut self, context: u32, effects: &mut Vec<Effect>) -> Decision {
        let found = effects.iter().position(|e| match e {
            Effect::Resume { context: c } | Effect::Reject { context: c, .. } => *c == context,
        });
        match found.map(|i| effects.remove(i)) {
            Some(Effect::Resume { .. }) => Decision::Continue,
            Some(Effect::Reject { path, reason, .. }) => Decision::Reject { path, reason },
            None => Decision::Wait,
        }
    }

    /// Requests of `path` held or waiting here: together at most `max_queue`. In rounds held requests do not count:
    /// a pause refuses none of them, nor makes the queue look longer to those released before them.
    pub(crate) fn backlog(&self, path: PathIndex) -> usize {
        if self.config.pause.as_ref().is_some_and(|p| p.in_rounds()) {
            return self.queued(path);
        }
        let held = self.held.iter().filter(|c| self.requests.get(c).is_some_and(|r| r.path == path)).count();
        self.queued(path) + held
    }

    /// `since_ms` is when a request released from a pause started to wait. `Room::Always` queues it whatever the
    /// queue's length: a request a round held is never refused for the pause (see `crate::pause`).
    pub(crate) fn admit_or_queue(
        &mut self,
        context: u32,
        path: PathIndex,
        since_ms: Option<u64>,
        room: Room,
        effects: &mut Vec<Effect>,
    ) -> Decision {
        // Nobody waits for this path, here or on another worker: no one to overtake.
        if self.queued(path) == 0 && !self.others_wait(path) {
            if let Some(permit) = self.try_acquire(path) {
                self.admit(context, path, permit);
                return Decision::Continue;
            }
        }
        let max_queue = self.config.reservation(path).map_or(0, |r| r.max_queue);
        if room == Room::UpToMaxQueue && self.backlog(path) >= max_queue as usize {
            self.host.add(path, Metric::RejectedQueueFull, 1);
            return Decision::Reject { path, reason: Reason::QueueFull };
        }
        // The clock is read only here and for pauses: it is a hostcall, and most requests never wait.
        let since_ms = since_ms.unwrap_or_else(|| self.now());
        let Some(queue) = self.queues.of_mut(path) else {
            return Decision::Continue;
        };
        queue.push_back(context);
        self.unpublished.put(path, true);
        self.busy.insert(path);
        self.requests.insert(context, Request { path, state: State::Waiting { since_ms } });
        self.host.add(path, Metric::Queued, 1);
        self.sample_waiting(path, true);
        self.drain(path, None, effects);
        self.take_decision(context, effects)
    }

    pub(super) fn admit(&mut self, context: u32, path: PathIndex, mut permit: Permit) {
        permit.admitted_ns = self.sample_admitted(path, &permit);
        self.requests.insert(context, Request { path, state: State::Admitted(permit) });
        self.host.add(path, Metric::Granted, 1);
        if !permit.counted {
            self.host.add(permit.path, Metric::Active, 1);
        }
    }

    /// Resumes waiters of `path` while slots can be had and no other worker's waiter came first. `others` is
    /// the other workers' waiters if the caller has just read them.
    pub(super) fn drain(&mut self, path: PathIndex, others: Option<Vec<Waiters>>, effects: &mut Vec<Effect>) {
        if self.queued(path) == 0 {
            return;
        }
        let others = match others {
            Some(others) => others,
            None => self.others_waiting(path),
        };
        let live_since_ms = self.live_since(path, &others);
        while let Some(context) = self.first_waiter(path) {
            let older = waiting::older_than(&others, self.arrival_on_wall(context), live_since_ms);
            // Slots enough for the earlier waiters elsewhere and this one; else leave them to the earlier ones.
            if older > 0 && self.available(path) <= older {
                return;
            }
            let Some(permit) = self.try_acquire(path) else {
                return;
            };
            self.take_first_waiter(path);
            self.admit(context, path, permit);
            effects.push(Effect::Resume { context });
        }
    }

    /// The request that has waited longest for a slot of `path` here.
    pub(super) fn first_waiter(&self, path: PathIndex) -> Option<u32> {
        self.queues.of(path).and_then(VecDeque::front).copied()
    }

    /// Takes the first waiter of `path` out of its queue, to be admitted.
    pub(super) fn take_first_waiter(&mut self, path: PathIndex) {
        if let Some(queue) = self.queues.of_mut(path) {
            queue.pop_front();
        }
        self.unpublished.put(path, true);
        self.host.add(path, Metric::Queued, -1);
        self.sample_waiting(path, false);
    }

    pub(super) fn expire(&mut self, path: PathIndex, now: u64, effects: &mut Vec<Effect>) {
        let timeout = self.config.reservation(path).map_or(0, |r| r.queue_timeout_ms);
        let Some(queue) = self.queues.of(path) else { return };
        let expired: Vec<u32> =
            queue.iter().copied().filter(|c| self.since(*c).saturating_add(timeout) <= now).collect();
        for context in expired {
            if let Some(queue) = self.queues.of_mut(path) {
                queue.retain(|c| *c != context);
            }
            self.unpublished.put(path, true);
            self.requests.remove(&context);
            self.host.add(path, Metric::Queued, -1);
            self.host.add(path, Metric::RejectedTimeout, 1);
            self.sample_waiting(path, false);
            effects.push(Effect::Reject { context, path, reason: Reason::Timeout });
        }
    }

    /// Gives a slot back. This worker's first waiter gets it at once if no other worker's waiter came earlier:
    /// first a local waiter (the local path's priority), then one of the slot's own path. If a waiter elsewhere
    /// came earlier, the slot goes back to the shared count at once; if nobody waits, it is kept as a spare while
    /// requests arrive fast enough for spares to pay (`keep_spares`), and goes back at once otherwise.
    pub(super) fn release(&mut self, permit: Permit, effects: &mut Vec<Effect>) {
        self.sample_released(&permit);
        if !permit.counted {
            self.host.add(permit.path, Metric::Active, -1);
            return;
        }
        // Over a limit that shrank, the slot leaves the count: handed on, it would keep the path above the limit.
        if self.draining(permit.path) {
            self.give_back(permit.path, 1);
            return;
        }
        let local = self.config.local();
        // The local path first (it has priority), then the slot's own path; no allocation on every release.
        let local_heir = (permit.path == local || self.config.local_borrows).then_some(local);
        let own_heir = (permit.path != local).then_some(permit.path);
        for path in local_heir.into_iter().chain(own_heir) {
            // An unbounded reservation never has waiters.
            if self.config.limit(path).is_none() {
                continue;
            }
            let others = self.others_waiting_if_seen(path);
            match self.first_waiter(path) {
                Some(context) => {
                    let live_since_ms = self.live_since(path, &others);
                    if waiting::older_than(&others, self.arrival_on_wall(context), live_since_ms) == 0 {
                        self.take_first_waiter(path);
                        self.admit(context, path, permit);
                        effects.push(Effect::Resume { context });
                    } else {
                        self.give_back(permit.path, 1);
                    }
                    return;
                }
                None if waiting::any(&others) => {
                    self.spare.update(permit.path, |n| n.saturating_add(1));
                    self.give_back_spares(permit.path);
                    return;
                }
                None => {}
            }
        }
        if self.keep_spares {
            self.spare.update(permit.path, |n| n.saturating_add(1));
            self.busy.insert(permit.path);
        } else {
            self.give_back(permit.path, 1);
        }
    }
}
