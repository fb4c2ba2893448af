//! The pause gate in front of admission: requests held while a pause is on, let through in arrival order when
//! it ends. A held request counts against its path's `max_queue` and `queue_timeout_ms` like a waiting one, so
//! a long pause under load refuses the overflow instead of piling up streams. In rounds, a what-if run's pauses,
//! no held request is refused for the pause: the run measures the application slowed down, and a refusal would be
//! a request it no longer makes. Each round's pause is bounded (`max_pause_ms`), and so is the hold; released, a
//! request meets admission as if it had just arrived.

use log::warn;

use super::Gate;
use crate::host::{Host, Metric};
use crate::limiter::{Decision, Effect, Reason, Request, Room, State, Worker};
use crate::per_path::PathIndex;

impl<H: Host> Worker<H> {
    pub(crate) fn pauses(&self, path: PathIndex) -> bool {
        self.config.pause.as_ref().is_some_and(|p| p.paths.contains(&path))
    }

    pub(crate) fn through_pause(&mut self, context: u32, path: PathIndex, effects: &mut Vec<Effect>) -> Decision {
        let now = self.now();
        // Requests held earlier go first, so one arriving just as the pause ends cannot overtake them.
        let others_held = !self.held.is_empty();
        if !others_held && matches!(self.pass_gate(), Gate::Open) {
            return self.admit_or_queue(context, path, Some(now), Room::UpToMaxQueue, effects);
        }
        if !self.in_rounds() && self.backlog(path) >= self.config.reservation(path).map_or(0, |r| r.max_queue as usize)
        {
            self.host.add(path, Metric::RejectedQueueFull, 1);
            return Decision::Reject { path, reason: Reason::QueueFull };
        }
        // Behind requests held earlier, even if the pause is over: the tick (at most 2 ms away, since requests are
        // held) lets them through in order. Letting them through here could refuse one of them from inside this
        // stream's callback, and Envoy would then stop this stream as well: a local reply stops the next iteration
        // of the whole VM, not only of the stream it answers.
        self.held.push_back(context);
        self.requests.insert(context, Request { path, state: State::Held { since_ms: now } });
        self.host.add(path, Metric::Paused, 1);
        Decision::Wait
    }

    fn in_rounds(&self) -> bool {
        self.config.pause.as_ref().is_some_and(|p| p.in_rounds())
    }

    /// Passes the gate as of the last reading of the clock (callers have just read it). A pause's end is a
    /// wall-clock time: every worker compares it with the same clock (see `crate::clock`).
    fn pass_gate(&self) -> Gate {
        let Some(schedule) = &self.config.pause else {
            return Gate::Open;
        };
        super::pass(&self.host, &self.keys.pause, schedule, self.watch.clock.wall_ms()).unwrap_or_else(|e| {
            warn!("pathfence: pause gate unavailable, letting the request through: {e}");
            Gate::Open
        })
    }

    /// Lets held requests through the gate one by one while it stays open.
    pub(crate) fn release_held(&mut self, effects: &mut Vec<Effect>) {
        // In rounds the hold does not count against the path's queue timeout: the wait starts on release.
        let released_ms = (self.in_rounds() && !self.held.is_empty()).then(|| self.now());
        while let Some(&context) = self.held.front() {
            if let Gate::Closed { .. } = self.pass_gate() {
                return;
            }
            self.held.pop_front();
            let Some(request) = self.requests.remove(&context) else {
                continue;
            };
            let since_ms = released_ms.unwrap_or_else(|| self.since_of(request.state));
            // A round's hold took no room in the queue, and its release must not be refused for want of it.
            let room = if released_ms.is_some() { Room::Always } else { Room::UpToMaxQueue };
            match self.admit_or_queue(context, request.path, Some(since_ms), room, effects) {
                Decision::Continue => effects.push(Effect::Resume { context }),
                Decision::Reject { path, reason } => effects.push(Effect::Reject { context, path, reason }),
                Decision::Wait => {}
            }
        }
    }

    /// Refuses held requests that have waited `queue_timeout_ms`, as a waiting request would be; none in rounds.
    pub(crate) fn expire_held(&mut self, now: u64, effects: &mut Vec<Effect>) {
        if self.in_rounds() {
            return;
        }
        let config = &self.config;
        let requests = &self.requests;
        let expired: Vec<u32> = self
            .held
            .iter()
            .copied()
            .filter(|c| match requests.get(c) {
                Some(Request { path, state: State::Held { since_ms } }) => {
                    since_ms.saturating_add(config.reservation(*path).map_or(0, |r| r.queue_timeout_ms)) <= now
                }
                _ => false,
            })
            .collect();
        for context in expired {
            self.held.retain(|c| *c != context);
            if let Some(request) = self.requests.remove(&context) {
                self.host.add(request.path, Metric::RejectedTimeout, 1);
                effects.push(Effect::Reject { context, path: request.path, reason: Reason::Timeout });
            }
        }
    }

    fn since_of(&self, state: State) -> u64 {
        match state {
            State::Held { since_ms } | State::Waiting { since_ms } => since_ms,
            State::Admitted(_) => self.now(),
        }
    }
}
