//! The per-worker admission logic: reservations with shared in-flight counts, a FIFO of waiters per path,
//! the local path's priority (PathFence, HPDC'25, Algorithm 1) and the pause gate.
//!
//! One `Worker` lives on each Envoy worker thread. It never calls the host to resume or refuse a stream
//! itself: it returns [`Effect`]s, which the caller carries out after letting go of the worker, because a
//! local reply can end a stream synchronously and call straight back into the worker.

use std::collections::{HashMap, VecDeque};

use log::warn;

use crate::config::Config;
use crate::counters::{self, Acquire};
use crate::host::{Host, HostError, Metric};
use crate::pause::{self, Gate};

/// Prefix of every shared-data key, versioned so that a filter with another layout never reads these.
pub const KEY_PREFIX: &str = "pathfence.v1.";
const HEARTBEAT_EVERY_MS: u64 = 1000;
const RECLAIM_EVERY_MS: u64 = 1000;

/// What to do with the request whose headers just arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Continue,
    /// Hold the request; an [`Effect`] will resume or refuse it later.
    Wait,
    /// Answer with a local 503 naming this reservation.
    Reject { reservation: usize },
}

/// Work for the host on a stream other than the current one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Resume { context: u32 },
    Reject { context: u32, reservation: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Permit {
    /// The reservation the slot was taken from (a local request may borrow another path's slot).
    pool: usize,
    /// False when the slot is not in the shared count: an unbounded reservation, or a fail-open admission.
    counted: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Held,
    Waiting { deadline_ms: u64 },
    Admitted(Permit),
}

#[derive(Debug, Clone, Copy)]
struct Request {
    class: usize,
    state: State,
}

pub struct Worker<H: Host> {
    host: H,
    config: Config,
    id: u32,
    inflight_keys: Vec<String>,
    pause_key: String,
    requests: HashMap<u32, Request>,
    queues: Vec<VecDeque<u32>>,
    held: VecDeque<u32>,
    /// Slots this worker released since the last tick, still in the shared count. The next request here takes
    /// one without touching shared data; the tick gives the rest back. They count against the limit all along,
    /// so the limit holds; the price is that another worker may find a path full for up to one tick.
    spare: Vec<u32>,
    /// Releases whose compare-and-swap kept losing; retried on every tick so no slot is lost.
    pending_release: Vec<u32>,
    last_heartbeat_ms: u64,
    last_reclaim_ms: u64,
}

fn heartbeat_key(worker: u32) -> String {
    format!("{KEY_PREFIX}worker.{worker}.seen_ms")
}

impl<H: Host> Worker<H> {
    /// Creates the shared keys, takes a worker id and announces it with a first heartbeat.
    pub fn start(host: H, config: Config) -> Result<Worker<H>, HostError> {
        let inflight_keys: Vec<String> =
            config.reservations.iter().map(|r| format!("{KEY_PREFIX}{}.inflight", r.name)).collect();
        for key in &inflight_keys {
            counters::create(&host, key)?;
        }
        let id = counters::increment(&host, &format!("{KEY_PREFIX}workers"))?
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| HostError("could not take a worker id".to_string()))?;
        let n = config.reservations.len();
        let mut worker = Worker {
            host,
            config,
            id,
            inflight_keys,
            pause_key: format!("{KEY_PREFIX}pause"),
            requests: HashMap::new(),
            queues: vec![VecDeque::new(); n],
            held: VecDeque::new(),
            spare: vec![0; n],
            pending_release: vec![0; n],
            last_heartbeat_ms: 0,
            last_reclaim_ms: 0,
        };
        let now = worker.host.now_ms();
        worker.heartbeat(now);
        worker.last_reclaim_ms = now;
        Ok(worker)
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn host(&self) -> &H {
        &self.host
    }

    /// Requests of this worker that are waiting or holding a slot.
    pub fn tracked(&self) -> usize {
        self.requests.len()
    }

    /// A request of reservation `class` arrived on stream `context`.
    pub fn on_request(&mut self, context: u32, class: usize, effects: &mut Vec<Effect>) -> Decision {
        if class >= self.config.reservations.len() || self.requests.contains_key(&context) {
            return Decision::Continue;
        }
        if self.pauses(class) {
            let now = self.host.now_ms();
            // Requests held earlier go first, so one arriving just as the pause ends cannot overtake them.
            let others_held = !self.held.is_empty();
            if others_held || matches!(self.pass_gate(now), Gate::Closed { .. }) {
                self.held.push_back(context);
                self.requests.insert(context, Request { class, state: State::Held });
                if others_held {
                    self.release_held(now, effects);
                }
                if let Some(Request { state: State::Held, .. }) = self.requests.get(&context) {
                    self.host.add(class, Metric::Paused, 1);
                    return Decision::Wait;
                }
                return self.take_decision(context, effects);
            }
        }
        self.admit_or_queue(context, class, effects)
    }

    /// The stream ended, however it ended; releases its slot (once) or takes it out of its queue.
    pub fn on_stream_end(&mut self, context: u32, effects: &mut Vec<Effect>) {
        let Some(request) = self.requests.remove(&context) else {
            return;
        };
        match request.state {
            State::Held => self.held.retain(|c| *c != context),
            State::Waiting { .. } => {
                self.queues[request.class].retain(|c| *c != context);
                self.host.add(request.class, Metric::Queued, -1);
            }
            State::Admitted(permit) => self.release(permit, effects),
        }
    }

    /// Periodic work: heartbeat, reclaim, retried releases, pause ends, wait timeouts and slots freed elsewhere.
    pub fn on_tick(&mut self, effects: &mut Vec<Effect>) {
        let now = self.host.now_ms();
        if now.saturating_sub(self.last_heartbeat_ms) >= HEARTBEAT_EVERY_MS {
            self.heartbeat(now);
        }
        if now.saturating_sub(self.last_reclaim_ms) >= RECLAIM_EVERY_MS {
            self.last_reclaim_ms = now;
            self.reclaim(now);
        }
        for pool in 0..self.spare.len() {
            self.pending_release[pool] += std::mem::take(&mut self.spare[pool]);
        }
        for pool in 0..self.pending_release.len() {
            let count = self.pending_release[pool];
            if count > 0 {
                match counters::release(&self.host, &self.inflight_keys[pool], self.id, count) {
                    Ok(true) => self.pending_release[pool] = 0,
                    Ok(false) => {}
                    Err(e) => warn!("pathfence: releasing {count} slot(s) failed, will retry: {e}"),
                }
            }
        }
        self.release_held(now, effects);
        for class in 0..self.queues.len() {
            self.expire(class, now, effects);
        }
        // The local path first: it has priority over the others (Algorithm 1).
        let local = self.config.local();
        self.drain(local, effects);
        for class in 0..local {
            self.drain(class, effects);
        }
    }

    fn pauses(&self, class: usize) -> bool {
        self.config.pause.as_ref().is_some_and(|p| p.paths.contains(&class))
    }

    fn pass_gate(&self, now: u64) -> Gate {
        let Some(schedule) = &self.config.pause else {
            return Gate::Open;
        };
        pause::pass(&self.host, &self.pause_key, schedule, now).unwrap_or_else(|e| {
            warn!("pathfence: pause gate unavailable, letting the request through: {e}");
            Gate::Open
        })
    }

    /// Lets held requests through the gate one by one while it stays open.
    fn release_held(&mut self, now: u64, effects: &mut Vec<Effect>) {
        while let Some(&context) = self.held.front() {
            if let Gate::Closed { .. } = self.pass_gate(now) {
                return;
            }
            self.held.pop_front();
            let Some(request) = self.requests.remove(&context) else {
                continue;
            };
            match self.admit_or_queue(context, request.class, effects) {
                Decision::Continue => effects.push(Effect::Resume { context }),
                Decision::Reject { reservation } => effects.push(Effect::Reject { context, reservation }),
                Decision::Wait => {}
            }
        }
    }

    /// For a request that was held and released within one call: turn the resulting effect into the decision.
    fn take_decision(&mut self, context: u32, effects: &mut Vec<Effect>) -> Decision {
        let found = effects.iter().position(|e| match e {
            Effect::Resume { context: c } | Effect::Reject { context: c, .. } => *c == context,
        });
        match found.map(|i| effects.remove(i)) {
            Some(Effect::Resume { .. }) => Decision::Continue,
            Some(Effect::Reject { reservation, .. }) => Decision::Reject { reservation },
            None => Decision::Wait,
        }
    }

    fn admit_or_queue(&mut self, context: u32, class: usize, effects: &mut Vec<Effect>) -> Decision {
        // Waiters of this path on this worker go first.
        if self.queues[class].is_empty() {
            if let Some(permit) = self.try_acquire(class) {
                self.admit(context, class, permit);
                return Decision::Continue;
            }
        }
        let reservation = &self.config.reservations[class];
        if self.queues[class].len() >= reservation.max_queue as usize {
            self.host.add(class, Metric::RejectedQueueFull, 1);
            return Decision::Reject { reservation: class };
        }
        // The clock is read only here and for pauses: it is a hostcall, and most requests never wait.
        let deadline_ms = self.host.now_ms().saturating_add(reservation.queue_timeout_ms);
        self.queues[class].push_back(context);
        self.requests.insert(context, Request { class, state: State::Waiting { deadline_ms } });
        self.host.add(class, Metric::Queued, 1);
        self.drain(class, effects);
        self.take_decision(context, effects)
    }

    fn admit(&mut self, context: u32, class: usize, permit: Permit) {
        self.requests.insert(context, Request { class, state: State::Admitted(permit) });
        self.host.add(permit.pool, Metric::Active, 1);
        self.host.add(class, Metric::Admitted, 1);
    }

    /// Takes a slot for a request of `class`: its own reservation, or for a local request whose reservation
    /// is full, the other path with the fewest requests in flight that still has room.
    fn try_acquire(&mut self, class: usize) -> Option<Permit> {
        if let Some(permit) = self.try_pool(class) {
            return Some(permit);
        }
        if class != self.config.local() || !self.config.local_borrows {
            return None;
        }
        let mut others: Vec<(u64, usize)> = (0..self.config.local())
            .filter_map(|pool| counters::load(&self.host, &self.inflight_keys[pool]).ok().map(|n| (n, pool)))
            .collect();
        others.sort_unstable();
        others.into_iter().find_map(|(_, pool)| self.try_pool(pool))
    }

    fn try_pool(&mut self, pool: usize) -> Option<Permit> {
        let Some(limit) = self.config.reservations[pool].max_concurrency else {
            return Some(Permit { pool, counted: false });
        };
        if self.spare[pool] > 0 {
            self.spare[pool] -= 1;
            return Some(Permit { pool, counted: true });
        }
        match counters::try_acquire(&self.host, &self.inflight_keys[pool], self.id, limit) {
            Ok(Acquire::Granted) => Some(Permit { pool, counted: true }),
            Ok(Acquire::Full) | Ok(Acquire::Contended) => None,
            Err(e) => {
                warn!("pathfence: shared count of `{}` unavailable, admitting: {e}", self.config.reservations[pool].name);
                Some(Permit { pool, counted: false })
            }
        }
    }

    /// Resumes waiters of `class` while slots can be had.
    fn drain(&mut self, class: usize, effects: &mut Vec<Effect>) {
        while let Some(&context) = self.queues[class].front() {
            let Some(permit) = self.try_acquire(class) else {
                return;
            };
            self.queues[class].pop_front();
            self.host.add(class, Metric::Queued, -1);
            self.admit(context, class, permit);
            effects.push(Effect::Resume { context });
        }
    }

    fn expire(&mut self, class: usize, now: u64, effects: &mut Vec<Effect>) {
        while let Some(&context) = self.queues[class].front() {
            match self.requests.get(&context) {
                Some(Request { state: State::Waiting { deadline_ms }, .. }) if *deadline_ms > now => return,
                _ => {}
            }
            self.queues[class].pop_front();
            self.requests.remove(&context);
            self.host.add(class, Metric::Queued, -1);
            self.host.add(class, Metric::RejectedTimeout, 1);
            effects.push(Effect::Reject { context, reservation: class });
        }
    }

    /// Gives a slot back. A waiter on this worker gets it at once, without a trip through the shared count:
    /// first a local waiter (the local path's priority), then one of the slot's own path. Otherwise it is kept
    /// as a spare until the next tick.
    fn release(&mut self, permit: Permit, effects: &mut Vec<Effect>) {
        self.host.add(permit.pool, Metric::Active, -1);
        let local = self.config.local();
        let to_local = permit.pool == local || self.config.local_borrows;
        let heir = if to_local && !self.queues[local].is_empty() {
            Some(local)
        } else if !self.queues[permit.pool].is_empty() {
            Some(permit.pool)
        } else {
            None
        };
        if let Some(class) = heir {
            if let Some(context) = self.queues[class].pop_front() {
                self.host.add(class, Metric::Queued, -1);
                self.admit(context, class, permit);
                effects.push(Effect::Resume { context });
                return;
            }
        }
        if permit.counted {
            self.spare[permit.pool] += 1;
        }
    }

    fn heartbeat(&mut self, now: u64) {
        match self.host.set(&heartbeat_key(self.id), &now.to_le_bytes(), None) {
            Ok(_) => self.last_heartbeat_ms = now,
            Err(e) => warn!("pathfence: heartbeat failed: {e}"),
        }
    }

    /// Removes the in-flight shares of workers whose heartbeat is older than the lease.
    fn reclaim(&mut self, now: u64) {
        let lease = self.config.worker_lease_ms;
        let me = self.id;
        for pool in 0..self.inflight_keys.len() {
            let host = &self.host;
            let mut is_gone = |worker: u32| {
                worker != me
                    && match host.get(&heartbeat_key(worker)) {
                        Ok(Some((bytes, _))) => now.saturating_sub(counters::read_u64(&bytes, 0)) > lease,
                        Ok(None) => true,
                        Err(_) => false,
                    }
            };
            match counters::reclaim(&self.host, &self.inflight_keys[pool], &mut is_gone) {
                Ok(gone) => {
                    for (worker, count) in gone {
                        warn!(
                            "pathfence: reclaimed {count} slot(s) of `{}` left by worker {worker}",
                            self.config.reservations[pool].name
                        );
                        self.host.add(pool, Metric::Active, -i64::from(count));
                    }
                }
                Err(e) => warn!("pathfence: reclaim failed: {e}"),
            }
        }
    }
}

#[cfg(test)]
mod tests;
