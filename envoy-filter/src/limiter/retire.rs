//! A worker handing its streams over: to the worker of a new configuration, or for good.

use log::warn;

use super::{Effect, Reason, Worker};
use crate::host::{Host, Metric};
use crate::per_path::{OfPath, PathIndex, PerPath};

impl<H: Host> Worker<H> {
    /// Hands the streams over before the worker is replaced (a new configuration): refuses its held and waiting
    /// requests, which the new worker does not know, and gives back its spare slots. Requests holding a slot
    /// stay tracked, so their end still releases it.
    pub fn retire(&mut self, effects: &mut Vec<Effect>) {
        self.stop_tuning();
        for context in std::mem::take(&mut self.held) {
            if let Some(request) = self.requests.remove(&context) {
                effects.push(Effect::Reject { context, path: request.path, reason: Reason::Reconfigured });
            }
        }
        for path in PathIndex::all(self.queues.len()) {
            if self.queued(path) == 0 && self.published.at(path) == 0 {
                continue;
            }
            let waiting = self.queues.of_mut(path).map(std::mem::take).unwrap_or_default();
            for context in waiting {
                self.requests.remove(&context);
                self.sample_waiting(path, false);
                self.host.add(path, Metric::Queued, -1);
                effects.push(Effect::Reject { context, path, reason: Reason::Reconfigured });
            }
            self.unpublished.put(path, true);
            self.busy.insert(path);
        }
        for path in PathIndex::all(self.spare.len()) {
            self.give_back_spares(path);
        }
        self.publish_waiting();
    }

    /// For a worker going away for good (its root context deleted, so none of its streams is left): refuses what
    /// still waits, and takes its share of every path out of the shared counts outright, releases that kept losing
    /// their race included, rather than leave them to the other workers' reclaim a lease later.
    pub fn shut_down(&mut self, effects: &mut Vec<Effect>) {
        self.retire(effects);
        for path in PathIndex::all(self.queues.len()) {
            // The empty list did not go out: the entry still lists waiters `retire` took off `queued`, and another
            // worker's reclaim will take them off again.
            if self.unpublished.at(path) && self.published.at(path) > 0 {
                self.host.add(path, Metric::Queued, i64::from(self.published.at(path)));
            }
        }
        for path in PathIndex::all(self.spare.len()) {
            self.spare.put(path, 0);
            self.pending_release.put(path, 0);
            // Still in the count, so the share set below takes them off `active` (again).
            self.host.add(path, Metric::Active, i64::from(self.off_active.at(path)));
            self.off_active.put(path, 0);
            if let Some((before, held)) = self.set_own_share(path) {
                warn!(
                    "pathfence: worker {} went away with {before} slot(s) of `{}` in the shared count; {held} left",
                    self.id,
                    self.config.name(path)
                );
            }
        }
    }
}
