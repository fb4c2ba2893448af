//! A worker handing its streams over: to the worker of a new configuration, or for good.

use log::warn;

use super::{Effect, Worker};
use crate::host::{Host, Metric};
use crate::per_path::PerPath;

impl<H: Host> Worker<H> {
    /// Hands the streams over before the worker is replaced (a new configuration): refuses its held and waiting
    /// requests, which the new worker does not know, and gives back its spare slots. Requests holding a slot
    /// stay tracked, so their end still releases it.
    pub fn retire(&mut self, effects: &mut Vec<Effect>) {
        for context in std::mem::take(&mut self.held) {
            if let Some(request) = self.requests.remove(&context) {
                effects.push(Effect::Reject { context, reservation: request.class });
            }
        }
        for class in 0..self.queues.len() {
            if self.queued(class) == 0 && self.published.at(class) == 0 {
                continue;
            }
            let waiting = self.queues.get_mut(class).map(std::mem::take).unwrap_or_default();
            for context in waiting {
                self.requests.remove(&context);
                self.host.add(class, Metric::Queued, -1);
                effects.push(Effect::Reject { context, reservation: class });
            }
            self.unpublished.put(class, true);
            self.busy.insert(class);
        }
        for pool in 0..self.spare.len() {
            self.give_back_spares(pool);
        }
        self.publish_waiting();
    }

    /// For a worker going away for good (its root context deleted, so none of its streams is left): refuses what
    /// still waits, and takes its share of every path out of the shared counts outright, releases that kept losing
    /// their race included, rather than leave them to the other workers' reclaim a lease later.
    pub fn shut_down(&mut self, effects: &mut Vec<Effect>) {
        self.retire(effects);
        for class in 0..self.queues.len() {
            // The empty list did not go out: the entry still lists waiters `retire` took off `queued`, and another
            // worker's reclaim will take them off again.
            if self.unpublished.at(class) && self.published.at(class) > 0 {
                self.host.add(class, Metric::Queued, i64::from(self.published.at(class)));
            }
        }
        for pool in 0..self.spare.len() {
            self.spare.put(pool, 0);
            self.pending_release.put(pool, 0);
            // Still in the count, so the share set below takes them off `active` (again).
            self.host.add(pool, Metric::Active, i64::from(self.off_active.at(pool)));
            self.off_active.put(pool, 0);
            if let Some((before, held)) = self.set_own_share(pool) {
                warn!(
                    "pathfence: worker {} went away with {before} slot(s) of `{}` in the shared count; {held} left",
                    self.id,
                    self.config.name(pool)
                );
            }
        }
    }
}
