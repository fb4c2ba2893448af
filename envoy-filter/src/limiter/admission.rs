//! Admission: a request takes a slot, waits in its path's queue, or is refused; a freed slot goes to the waiter
//! that came first, here or on another worker.

use std::collections::VecDeque;

use super::{Decision, Effect, Permit, Request, State, Worker};
use crate::host::{Host, Metric};
use crate::per_path::PerPath;
use crate::waiting::{self, Waiters};

impl<H: Host> Worker<H> {
    /// For a request that was held or queued and settled within one call: turn its effect into the decision.
    pub(super) fn take_decision(&mut self, context: u32, effects: &mut Vec<Effect>) -> Decision {
        let found = effects.iter().position(|e| match e {
            Effect::Resume { context: c } | Effect::Reject { context: c, .. } => *c == context,
        });
        match found.map(|i| effects.remove(i)) {
            Some(Effect::Resume { .. }) => Decision::Continue,
            Some(Effect::Reject { reservation, .. }) => Decision::Reject { reservation },
            None => Decision::Wait,
        }
    }

    /// Requests of `class` held or waiting here: together at most `max_queue`.
    pub(crate) fn backlog(&self, class: usize) -> usize {
        let held = self.held.iter().filter(|c| self.requests.get(c).is_some_and(|r| r.class == class)).count();
        self.queued(class) + held
    }

    /// `since_ms` is when a request released from a pause started to wait.
    pub(crate) fn admit_or_queue(
        &mut self,
        context: u32,
        class: usize,
        since_ms: Option<u64>,
        effects: &mut Vec<Effect>,
    ) -> Decision {
        // Nobody waits for this path, here or on another worker: no one to overtake.
        if self.queued(class) == 0 && !self.others_wait(class) {
            if let Some(permit) = self.try_acquire(class) {
                self.admit(context, class, permit);
                return Decision::Continue;
            }
        }
        let max_queue = self.config.reservation(class).map_or(0, |r| r.max_queue);
        if self.backlog(class) >= max_queue as usize {
            self.host.add(class, Metric::RejectedQueueFull, 1);
            return Decision::Reject { reservation: class };
        }
        // The clock is read only here and for pauses: it is a hostcall, and most requests never wait.
        let since_ms = since_ms.unwrap_or_else(|| self.now());
        let Some(queue) = self.queues.get_mut(class) else {
            return Decision::Continue;
        };
        queue.push_back(context);
        self.unpublished.put(class, true);
        self.busy.insert(class);
        self.requests.insert(context, Request { class, state: State::Waiting { since_ms } });
        self.host.add(class, Metric::Queued, 1);
        self.drain(class, None, effects);
        self.take_decision(context, effects)
    }

    pub(super) fn admit(&mut self, context: u32, class: usize, permit: Permit) {
        self.requests.insert(context, Request { class, state: State::Admitted(permit) });
        self.host.add(class, Metric::Admitted, 1);
        if !permit.counted {
            self.host.add(permit.pool, Metric::Active, 1);
        }
    }

    /// Resumes waiters of `class` while slots can be had and no other worker's waiter came first. `others` is
    /// the other workers' waiters if the caller has just read them.
    pub(super) fn drain(&mut self, class: usize, others: Option<Vec<Waiters>>, effects: &mut Vec<Effect>) {
        if self.queued(class) == 0 {
            return;
        }
        let others = match others {
            Some(others) => others,
            None => self.others_waiting(class),
        };
        let live_since_ms = self.live_since(class, &others);
        while let Some(context) = self.first_waiter(class) {
            let older = waiting::older_than(&others, self.arrival_on_wall(context), live_since_ms);
            // Slots enough for the earlier waiters elsewhere and this one; else leave them to the earlier ones.
            if older > 0 && self.available(class) <= older {
                return;
            }
            let Some(permit) = self.try_acquire(class) else {
                return;
            };
            self.take_first_waiter(class);
            self.admit(context, class, permit);
            effects.push(Effect::Resume { context });
        }
    }

    /// The request that has waited longest for a slot of `class` here.
    pub(super) fn first_waiter(&self, class: usize) -> Option<u32> {
        self.queues.get(class).and_then(VecDeque::front).copied()
    }

    /// Takes the first waiter of `class` out of its queue, to be admitted.
    pub(super) fn take_first_waiter(&mut self, class: usize) {
        if let Some(queue) = self.queues.get_mut(class) {
            queue.pop_front();
        }
        self.unpublished.put(class, true);
        self.host.add(class, Metric::Queued, -1);
    }

    pub(super) fn expire(&mut self, class: usize, now: u64, effects: &mut Vec<Effect>) {
        let timeout = self.config.reservation(class).map_or(0, |r| r.queue_timeout_ms);
        let Some(queue) = self.queues.get(class) else { return };
        let expired: Vec<u32> =
            queue.iter().copied().filter(|c| self.since(*c).saturating_add(timeout) <= now).collect();
        for context in expired {
            if let Some(queue) = self.queues.get_mut(class) {
                queue.retain(|c| *c != context);
            }
            self.unpublished.put(class, true);
            self.requests.remove(&context);
            self.host.add(class, Metric::Queued, -1);
            self.host.add(class, Metric::RejectedTimeout, 1);
            effects.push(Effect::Reject { context, reservation: class });
        }
    }

    /// Gives a slot back. This worker's first waiter gets it at once if no other worker's waiter came earlier:
    /// first a local waiter (the local path's priority), then one of the slot's own path. If a waiter elsewhere
    /// came earlier, the slot goes back to the shared count at once; if nobody waits, it is kept as a spare while
    /// requests arrive fast enough for spares to pay (`keep_spares`), and goes back at once otherwise.
    pub(super) fn release(&mut self, permit: Permit, effects: &mut Vec<Effect>) {
        if !permit.counted {
            self.host.add(permit.pool, Metric::Active, -1);
            return;
        }
        let local = self.config.local();
        // The local path first (it has priority), then the slot's own path; no allocation on every release.
        let local_heir = (permit.pool == local || self.config.local_borrows).then_some(local);
        let own_heir = (permit.pool != local).then_some(permit.pool);
        for class in local_heir.into_iter().chain(own_heir) {
            // An unbounded reservation never has waiters.
            if self.config.limit(class).is_none() {
                continue;
            }
            let others = self.others_waiting_if_seen(class);
            match self.first_waiter(class) {
                Some(context) => {
                    let live_since_ms = self.live_since(class, &others);
                    if waiting::older_than(&others, self.arrival_on_wall(context), live_since_ms) == 0 {
                        self.take_first_waiter(class);
                        self.admit(context, class, permit);
                        effects.push(Effect::Resume { context });
                    } else {
                        self.give_back(permit.pool, 1);
                    }
                    return;
                }
                None if waiting::any(&others) => {
                    self.spare.update(permit.pool, |n| n.saturating_add(1));
                    self.give_back_spares(permit.pool);
                    return;
                }
                None => {}
            }
        }
        if self.keep_spares {
            self.spare.update(permit.pool, |n| n.saturating_add(1));
            self.busy.insert(permit.pool);
        } else {
            self.give_back(permit.pool, 1);
        }
    }
}
