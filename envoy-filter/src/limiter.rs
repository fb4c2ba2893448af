//! The per-worker admission logic: reservations with shared in-flight counts, a FIFO of waiters per path,
//! the local path's priority (PathFence, HPDC'25, Algorithm 1) and the pause gate.
//!
//! One `Worker` lives on each Envoy worker thread. It never calls the host to resume or refuse a stream
//! itself: it returns [`Effect`]s, which the caller carries out after letting go of the worker, because a
//! local reply can end a stream synchronously and call straight back into the worker.
//!
//! Waiters are served first come, first served across workers as far as a tick allows: once a worker has seen
//! (on its tick, at the latest) that another worker has waiters, a newcomer never goes ahead of them, and a freed
//! slot goes to this worker's first waiter only if no other worker's waiter arrived earlier (see
//! [`crate::waiting`]). Until then, for at most a tick, newcomers here may go ahead of a waiter elsewhere; that is
//! the price of not reading the other workers' waiters on every request. A tick is 2 ms while requests wait or are
//! held here, 5 ms while this worker only holds spare slots (under load), and up to 100 ms at the idle pace, which
//! a worker keeps under a light load (below 1 request per ms, no spares): there the first sight of another
//! worker's waiters can take that long. From then on the worker ticks every 2 ms until they are served.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use log::warn;

use crate::config::Config;
use crate::counters;
use crate::host::{Host, HostError, Metric};
use crate::pace::TickWork;
use crate::per_path::PerPath;
use crate::waiting::{self, Waiters};
use crate::waiting_paths::{self, Listed};
use busy::Busy;
use stream_ids::StreamIds;
pub use watch::Watch;

mod busy;
mod held;
mod slots;
mod stream_ids;
mod watch;

/// Prefix of every shared-data key, versioned so that a filter with another layout never reads these.
pub const KEY_PREFIX: &str = "pathfence.v1.";
const HEARTBEAT_EVERY_MS: u64 = 1000;
const RECLAIM_EVERY_MS: u64 = 1000;
/// Arrivals per millisecond on a worker from which it keeps freed slots as spares. A spare saves the next request
/// a compare-and-swap on the shared count when it takes a slot and another when it frees it (six crossings into
/// and out of the VM, about 30 µs of Envoy's CPU on the bench machine under a light load), but keeps the tick at
/// the spares pace until it is given back, and such a tick cost about 50 µs. From 1 arrival per millisecond a tick
/// is shared by five requests or more, and spares pay.
const SPARES_FROM_ARRIVALS_PER_MS: u64 = 1;
/// The arrival rate is taken over at least this long, so that a tick soon after another does not decide it.
const RATE_WINDOW_MS: u64 = 10;
/// How long past its timeout another worker's waiter still counts as waiting: its worker refuses it on its
/// next tick, so after this it is a leftover of a worker that went away.
const STALE_AFTER_TIMEOUT_MS: u64 = 50;

/// What to do with the request whose headers just arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Continue,
    /// Hold the request; an [`Effect`] will resume or refuse it later.
    Wait,
    /// Answer with a local 503 naming this reservation.
    Reject {
        reservation: usize,
    },
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
    /// Held by a pause since this millisecond; the wait counts against the path's queue and timeout.
    Held {
        since_ms: u64,
    },
    /// Waiting for a slot since this millisecond (since it was held, if it was).
    Waiting {
        since_ms: u64,
    },
    Admitted(Permit),
}

#[derive(Debug, Clone, Copy)]
struct Request {
    class: usize,
    state: State,
}

struct Keys {
    inflight: Vec<String>,
    waiting: Vec<String>,
    pause: String,
    /// The paths with waiters, of every worker (see [`crate::waiting_paths`]).
    waiting_paths: String,
}

pub struct Worker<H: Host> {
    host: H,
    config: Config,
    id: u32,
    keys: Keys,
    requests: HashMap<u32, Request, StreamIds>,
    queues: Vec<VecDeque<u32>>,
    held: VecDeque<u32>,
    /// Queues changed since this worker last published them to the shared waiting lists.
    unpublished: Vec<bool>,
    /// How many waiters this worker's entry of each waiting list last said it has.
    published: Vec<u32>,
    /// The clock's slips when the waiting lists were last published (see [`SteadyClock::slips`]).
    published_at_slip: u64,
    /// Each path's name hashed, as the shared list of paths with waiters names it, and the paths by those hashes
    /// (bounded paths only: nobody waits for an unbounded one).
    path_hashes: Vec<u64>,
    paths_by_hash: HashMap<u64, Vec<usize>>,
    /// Whether the paths with waiters this worker lists in the shared list may differ from the ones it has.
    unlisted: bool,
    /// The paths with something to do on a tick (see [`busy`]): every path whose queue, spares, releases to retry,
    /// waiters to publish or waiters seen elsewhere are not all empty is in it.
    busy: Busy,
    /// Slots this worker freed while nobody waited, kept in the shared count for its next requests if it keeps
    /// spares at all (`keep_spares`). The next request here takes one without touching shared data. A tick keeps
    /// at most as many as requests took since the last one (`spares_taken`) and gives back the rest; all of them
    /// go back once a request waits, on this worker or another, and while they fill the path.
    spare: Vec<u32>,
    /// Spares requests took since the last tick.
    spares_taken: Vec<u32>,
    /// Releases whose compare-and-swap kept losing; retried on every tick so no slot is lost.
    pending_release: Vec<u32>,
    /// How many of `pending_release` are already off `active` (see `slots`).
    off_active: Vec<u32>,
    /// Whether requests arrive fast enough here for spares to pay for the spares-pace tick they keep up (see
    /// [`SPARES_FROM_ARRIVALS_PER_MS`]); otherwise a freed slot goes straight back to the shared count.
    keep_spares: bool,
    /// Requests that arrived since `rate_since_ms`, for `keep_spares`.
    arrivals: u64,
    rate_since_ms: u64,
    /// Whether another worker had requests of a path waiting when this one last read the shared list. While it is
    /// false, arrivals and releases skip that read (it was two hostcalls per request, most of the fence's own cost
    /// under load); every tick reads the list again, so a waiter that appears elsewhere is seen within a tick.
    /// While it is true, every decision reads the list afresh.
    others_waited: Vec<bool>,
    last_heartbeat_ms: u64,
    last_reclaim_ms: u64,
    /// This thread's clock, on which every time here is kept, and the other workers' heartbeats as the thread's
    /// workers saw them (see [`Worker::reclaim`]): shared with the workers of the thread's other configurations.
    watch: Rc<Watch>,
}

fn heartbeat_key(worker: u32) -> String {
    format!("{KEY_PREFIX}worker.{worker}.seen_ms")
}

impl<H: Host> Worker<H> {
    /// Starts a worker that shares no watch with another one (see [`Worker::start_watching`]).
    pub fn start(host: H, config: Config) -> Result<Worker<H>, HostError> {
        let watch = Rc::new(Watch::starting_at(host.now_ms()));
        Worker::start_watching(host, config, watch)
    }

    /// Creates the shared keys, takes a worker id and announces it with a first heartbeat. `watch` is the thread's:
    /// the workers of one thread share it.
    pub fn start_watching(host: H, config: Config, watch: Rc<Watch>) -> Result<Worker<H>, HostError> {
        let key = |suffix: &str| -> Vec<String> {
            config.reservations.iter().map(|r| format!("{KEY_PREFIX}{}.{suffix}", r.name)).collect()
        };
        let keys = Keys {
            inflight: key("inflight"),
            waiting: key("waiting"),
            pause: format!("{KEY_PREFIX}pause"),
            waiting_paths: format!("{KEY_PREFIX}waiting_paths"),
        };
        for k in keys.inflight.iter().chain(&keys.waiting).chain([&keys.pause, &keys.waiting_paths]) {
            counters::create(&host, k)?;
        }
        let id = counters::increment(&host, &format!("{KEY_PREFIX}workers"))?
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| HostError("could not take a worker id".to_string()))?;
        let n = config.reservations.len();
        let path_hashes: Vec<u64> = config.reservations.iter().map(|r| waiting_paths::path_hash(&r.name)).collect();
        let mut paths_by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
        for (class, reservation) in config.reservations.iter().enumerate() {
            if reservation.max_concurrency.is_some() {
                paths_by_hash.entry(path_hashes.at(class)).or_default().push(class);
            }
        }
        let mut worker = Worker {
            host,
            config,
            id,
            keys,
            requests: HashMap::default(),
            queues: vec![VecDeque::new(); n],
            held: VecDeque::new(),
            unpublished: vec![false; n],
            published: vec![0; n],
            published_at_slip: watch.clock.slips(),
            path_hashes,
            paths_by_hash,
            unlisted: false,
            busy: Busy::new(n),
            spare: vec![0; n],
            spares_taken: vec![0; n],
            pending_release: vec![0; n],
            off_active: vec![0; n],
            // A new worker (a new configuration, or Envoy starting under load) assumes traffic until measured.
            keep_spares: true,
            arrivals: 0,
            rate_since_ms: 0,
            others_waited: vec![false; n],
            last_heartbeat_ms: 0,
            last_reclaim_ms: 0,
            watch,
        };
        let now = worker.now();
        worker.heartbeat(now);
        worker.last_reclaim_ms = now;
        worker.rate_since_ms = now;
        // Until its first tick, arrivals and releases read the waiters of the paths others wait for now; if that is
        // unknown, of every bounded path.
        let waited = worker
            .paths_others_wait_for()
            .unwrap_or_else(|| (0..n).filter(|class| worker.config.limit(*class).is_some()).collect());
        for class in waited {
            worker.others_waited.put(class, true);
            worker.busy.insert(class);
        }
        Ok(worker)
    }

    /// The bounded paths the shared list says other workers have waiters for, lowest first; `None` if it cannot
    /// be read.
    fn paths_others_wait_for(&self) -> Option<Vec<usize>> {
        let hashes = waiting_paths::others(&self.host, &self.keys.waiting_paths, self.id)
            .map_err(|e| warn!("pathfence: the paths others wait for are unknown: {e}"))
            .ok()?;
        let mut classes: Vec<usize> =
            hashes.iter().filter_map(|h| self.paths_by_hash.get(h)).flatten().copied().collect();
        classes.sort_unstable();
        classes.dedup();
        Some(classes)
    }

    /// Whether path `class` has anything for a tick to do; a path that has stays in `busy`.
    fn is_busy(&self, class: usize) -> bool {
        self.queues.get(class).is_some_and(|q| !q.is_empty())
            || self.unpublished.get(class).copied().unwrap_or(false)
            || self.published.get(class).is_some_and(|n| *n > 0)
            || self.spare.get(class).is_some_and(|n| *n > 0)
            || self.spares_taken.get(class).is_some_and(|n| *n > 0)
            || self.pending_release.get(class).is_some_and(|n| *n > 0)
            || self.others_waited.get(class).copied().unwrap_or(false)
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

    /// Requests of this worker that are held, waiting or holding a slot.
    pub fn tracked(&self) -> usize {
        self.requests.len()
    }

    /// Whether this worker knows stream `context` (held, waiting or holding a slot).
    pub fn tracks(&self, context: u32) -> bool {
        self.requests.contains_key(&context)
    }

    /// Requests of `class` waiting for a slot on this worker.
    pub fn queued(&self, class: usize) -> usize {
        self.queues.get(class).map_or(0, VecDeque::len)
    }

    /// What this worker's next tick has to do, which sets how soon it comes (see [`crate::pace`]). Only the busy
    /// paths can have any: it is asked after every request.
    pub fn tick_work(&self) -> TickWork {
        let prompt = !self.held.is_empty()
            || self.unlisted
            || self.busy.iter().any(|class| {
                self.queues.get(class).is_some_and(|q| !q.is_empty())
                    || self.pending_release.get(class).is_some_and(|n| *n > 0)
                    || self.unpublished.get(class).copied().unwrap_or(false)
                    // While others wait, every tick reads their waiters again, so that newcomers here stop queueing
                    // behind them once they are served.
                    || self.others_waited.get(class).copied().unwrap_or(false)
            });
        if prompt {
            TickWork::Prompt
        } else if self.busy.iter().any(|class| self.spare.get(class).is_some_and(|n| *n > 0)) {
            TickWork::Spares
        } else {
            TickWork::None
        }
    }

    /// Whether a tick has anything to do beyond the heartbeat and the reclaim.
    pub fn has_tick_work(&self) -> bool {
        self.tick_work() != TickWork::None
    }

    /// Slots of `pool` this worker holds in the shared count without a request on them (spares, and
    /// releases still to be retried).
    pub fn idle_slots(&self, pool: usize) -> u32 {
        self.spare.get(pool).copied().unwrap_or(0) + self.pending_release.get(pool).copied().unwrap_or(0)
    }

    /// A request of reservation `class` arrived on stream `context`.
    pub fn on_request(&mut self, context: u32, class: usize, effects: &mut Vec<Effect>) -> Decision {
        if class >= self.config.reservations.len() || self.requests.contains_key(&context) {
            return Decision::Continue;
        }
        // Only requests that take a slot of the shared count could use a spare.
        if self.config.limit(class).is_some() {
            self.arrivals = self.arrivals.saturating_add(1);
        }
        let decision = if self.pauses(class) {
            self.through_pause(context, class, effects)
        } else {
            self.admit_or_queue(context, class, None, effects)
        };
        self.publish_waiting();
        decision
    }

    /// The stream ended, however it ended; releases its slot (once) or takes it out of its queue.
    pub fn on_stream_end(&mut self, context: u32, effects: &mut Vec<Effect>) {
        let Some(request) = self.requests.remove(&context) else {
            return;
        };
        match request.state {
            State::Held { .. } => self.held.retain(|c| *c != context),
            State::Waiting { .. } => {
                if let Some(queue) = self.queues.get_mut(request.class) {
                    queue.retain(|c| *c != context);
                }
                self.unpublished.put(request.class, true);
                self.host.add(request.class, Metric::Queued, -1);
            }
            State::Admitted(permit) => self.release(permit, effects),
        }
        self.publish_waiting();
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
        // The waiters of other workers, read once per tick for the paths the shared list says they wait for, and
        // handed to the drains below rather than read again. Every other path is known to have none.
        let waited = self.paths_others_wait_for().unwrap_or_default();
        for class in self.busy.sorted() {
            if waited.binary_search(&class).is_err() {
                self.others_waited.put(class, false);
            }
        }
        let others: Vec<(usize, Vec<Waiters>)> =
            waited.into_iter().map(|class| (class, self.others_waiting(class))).collect();
        let others_of = |class: usize| -> Vec<Waiters> {
            others.iter().find(|(c, _)| *c == class).map(|(_, o)| o.clone()).unwrap_or_default()
        };
        let busy = self.busy.sorted();
        // A waiter anywhere may need any pool's slots (a local request may borrow them): all spares go back. With
        // nobody waiting, the ones requests still take stay (given back, each would be taken again by
        // compare-and-swap right after), unless they fill the path: a request elsewhere may then have been refused
        // without ever waiting (`max_queue` 0) or have looked for a path to borrow from.
        let anyone_waits = others.iter().any(|(_, o)| waiting::any(o));
        for &pool in &busy {
            if anyone_waits || !self.keep_spares {
                self.give_back_spares(pool);
            } else {
                self.give_back_unused_spares(pool);
                if self.spare.at(pool) > 0 && self.is_full(pool) {
                    self.give_back_spares(pool);
                }
            }
        }
        self.expire_held(now, effects);
        self.release_held(effects);
        // Requests released from a pause may have queued on a path that was not busy before.
        let busy = self.busy.sorted();
        for &class in &busy {
            self.expire(class, now, effects);
        }
        // The local path first: it has priority over the others (Algorithm 1).
        let local = self.config.local();
        if busy.contains(&local) {
            self.drain(local, Some(others_of(local)), effects);
        }
        for &class in busy.iter().filter(|c| **c != local) {
            self.drain(class, Some(others_of(class)), effects);
        }
        self.publish_waiting();
        self.busy_paths_only();
    }

    /// Keeps in `busy` only the paths that still have something to do.
    fn busy_paths_only(&mut self) {
        let mut busy = std::mem::replace(&mut self.busy, Busy::new(0));
        busy.retain(|class| self.is_busy(class));
        self.busy = busy;
    }

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

    /// For a request that was held or queued and settled within one call: turn its effect into the decision.
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

    /// Requests of `class` held or waiting here: together at most `max_queue`.
    fn backlog(&self, class: usize) -> usize {
        let held = self.held.iter().filter(|c| self.requests.get(c).is_some_and(|r| r.class == class)).count();
        self.queued(class) + held
    }

    /// `since_ms` is when a request released from a pause started to wait.
    fn admit_or_queue(
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

    fn admit(&mut self, context: u32, class: usize, permit: Permit) {
        self.requests.insert(context, Request { class, state: State::Admitted(permit) });
        self.host.add(class, Metric::Admitted, 1);
        if !permit.counted {
            self.host.add(permit.pool, Metric::Active, 1);
        }
    }

    fn since(&self, context: u32) -> u64 {
        match self.requests.get(&context) {
            Some(Request { state: State::Waiting { since_ms } | State::Held { since_ms }, .. }) => *since_ms,
            _ => 0,
        }
    }

    /// Resumes waiters of `class` while slots can be had and no other worker's waiter came first. `others` is
    /// the other workers' waiters if the caller has just read them.
    fn drain(&mut self, class: usize, others: Option<Vec<Waiters>>, effects: &mut Vec<Effect>) {
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
    fn first_waiter(&self, class: usize) -> Option<u32> {
        self.queues.get(class).and_then(VecDeque::front).copied()
    }

    /// Takes the first waiter of `class` out of its queue, to be admitted.
    fn take_first_waiter(&mut self, class: usize) {
        if let Some(queue) = self.queues.get_mut(class) {
            queue.pop_front();
        }
        self.unpublished.put(class, true);
        self.host.add(class, Metric::Queued, -1);
    }

    /// Waiters that arrived before this wall-clock time are past their timeout (see [`STALE_AFTER_TIMEOUT_MS`]).
    /// Reads the clock only if another worker has waiters.
    fn live_since(&self, class: usize, others: &[Waiters]) -> u64 {
        if !waiting::any(others) {
            return 0;
        }
        self.now();
        let timeout = self.config.reservation(class).map_or(0, |r| r.queue_timeout_ms);
        self.watch.clock.wall_ms().saturating_sub(timeout.saturating_add(STALE_AFTER_TIMEOUT_MS))
    }

    /// When the request `context` arrived, on the wall clock, to compare with other workers' waiters.
    fn arrival_on_wall(&self, context: u32) -> u64 {
        self.watch.clock.to_wall(self.since(context))
    }

    fn expire(&mut self, class: usize, now: u64, effects: &mut Vec<Effect>) {
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
    fn release(&mut self, permit: Permit, effects: &mut Vec<Effect>) {
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

    #[cfg(test)]
    pub(crate) fn keeps_spares(&self) -> bool {
        self.keep_spares
    }

    /// Decides from the arrival rate since the last decision whether freed slots are kept as spares.
    fn measure_arrival_rate(&mut self, now: u64) {
        // This thread's clock never steps back (see `crate::clock`).
        let elapsed = now.saturating_sub(self.rate_since_ms);
        if elapsed < RATE_WINDOW_MS {
            return;
        }
        self.keep_spares = self.arrivals >= SPARES_FROM_ARRIVALS_PER_MS.saturating_mul(elapsed);
        self.arrivals = 0;
        self.rate_since_ms = now;
    }

    /// Publishes the queues that changed; a lost race leaves them marked for the next call.
    fn publish_waiting(&mut self) {
        // The arrival times already published were converted to the wall clock before this thread's clock slipped:
        // they are off by the slip until published again.
        if self.watch.clock.slips() != self.published_at_slip {
            self.published_at_slip = self.watch.clock.slips();
            for class in self.busy.sorted() {
                if self.queued(class) > 0 {
                    self.unpublished.put(class, true);
                }
            }
        }
        let mut listing_changed = false;
        // Only busy paths can have changed; collected without allocating when none did (most requests).
        let unpublished: Vec<usize> = self.busy.iter().filter(|class| self.unpublished.at(*class)).collect();
        for class in unpublished {
            // A path is listed as having waiters before they appear in its list (see `crate::waiting_paths`).
            if self.published.at(class) == 0 && self.queued(class) > 0 {
                self.unlisted = true;
                if !self.list_paths_with_waiters(Some(class)) {
                    continue;
                }
            }
            let (Some(queue), Some(key)) = (self.queues.get(class), self.keys.waiting.get(class)) else { continue };
            let arrivals_ms: Vec<u64> =
                queue.iter().take(waiting::MAX_LISTED).map(|c| self.arrival_on_wall(*c)).collect();
            let mine = Waiters { worker: self.id, waiting: queue.len() as u32, arrivals_ms };
            match waiting::publish(&self.host, key, &mine) {
                Ok(Some(before)) => {
                    if before == 0 && self.published.at(class) > 0 {
                        self.waiters_were_reclaimed(class);
                    }
                    self.unpublished.put(class, false);
                    listing_changed |= (self.published.at(class) == 0) != (mine.waiting == 0);
                    self.published.put(class, mine.waiting);
                }
                Ok(None) => {}
                Err(e) => {
                    warn!("pathfence: publishing the waiters of `{}` failed: {e}", self.config.name(class))
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
    fn list_paths_with_waiters(&mut self, also: Option<usize>) -> bool {
        let mut paths: Vec<u64> = self
            .busy
            .iter()
            .filter(|class| self.published.at(*class) > 0 || Some(*class) == also)
            .map(|class| self.path_hashes.at(class))
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

    /// Another worker took this one's waiters of `class` for a gone worker's while it stalled, and their count off
    /// `queued`: it goes back on.
    fn waiters_were_reclaimed(&mut self, class: usize) {
        warn!(
            "pathfence: the waiters of `{}` on this worker were reclaimed while it stalled; listed again",
            self.config.name(class)
        );
        self.host.add(class, Metric::Queued, i64::from(self.published.at(class)));
        self.published.put(class, 0);
        self.unlisted = true;
    }

    /// The waiters of other workers, read now.
    fn others_waiting(&mut self, class: usize) -> Vec<Waiters> {
        let Some(key) = self.keys.waiting.get(class) else { return Vec::new() };
        let others = waiting::others(&self.host, key, self.id).unwrap_or_else(|e| {
            warn!("pathfence: waiters of other workers unknown: {e}");
            Vec::new()
        });
        self.others_waited.put(class, waiting::any(&others));
        if waiting::any(&others) {
            self.busy.insert(class);
        }
        others
    }

    /// The waiters of other workers, read only if some were there at the last read (see `others_waited`).
    fn others_waiting_if_seen(&mut self, class: usize) -> Vec<Waiters> {
        if self.others_waited.at(class) {
            self.others_waiting(class)
        } else {
            Vec::new()
        }
    }

    /// Whether another worker has requests of `class` waiting; on a host error, no (fail open).
    fn others_wait(&mut self, class: usize) -> bool {
        if self.config.limit(class).is_none() {
            return false;
        }
        let wait = waiting::any(&self.others_waiting_if_seen(class));
        if wait {
            // Their worker can only see slots that are in the shared count.
            self.give_back_spares(class);
        }
        wait
    }

    /// The time on this thread's clock, from a new reading of the host's.
    fn now(&self) -> u64 {
        self.watch.clock.read(self.host.now_ms())
    }

    fn heartbeat(&mut self, now: u64) {
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
    fn reclaim(&mut self, now: u64) {
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
        for (pool, (inflight, waiting)) in self.keys.inflight.iter().zip(&self.keys.waiting).enumerate() {
            match waiting::reclaim(&self.host, waiting, &mut is_gone) {
                // Their `queued` went away with them.
                Ok(gone) => {
                    let waited: i64 = gone.iter().map(|w| i64::from(w.waiting)).sum();
                    if waited > 0 {
                        self.host.add(pool, Metric::Queued, -waited);
                    }
                }
                Err(e) => warn!("pathfence: reclaiming waiters failed: {e}"),
            }
            match counters::reclaim(&self.host, inflight, &mut is_gone) {
                Ok(gone) => {
                    for (worker, count) in gone {
                        warn!(
                            "pathfence: reclaimed {count} slot(s) of `{}` left by worker {worker}",
                            self.config.name(pool)
                        );
                        // A worker's part of `active` is its share, so this takes back exactly what it added.
                        self.host.add_now(pool, Metric::Active, -i64::from(count));
                    }
                }
                Err(e) => warn!("pathfence: reclaim failed: {e}"),
            }
        }
        if let Err(e) = waiting_paths::reclaim(&self.host, &self.keys.waiting_paths, &mut is_gone) {
            warn!("pathfence: reclaiming the paths with waiters failed: {e}");
        }
        self.watch.forget_unseen(now);
        for pool in 0..self.keys.inflight.len() {
            self.reassert_share(pool);
            self.reassert_waiters(pool);
        }
    }

    /// Publishes this worker's waiters of `class` again on this tick, in case another worker reclaimed its entry
    /// while it stalled: the publish sees the entry gone and puts their count back on `queued` (a stream event
    /// may publish first, which does the same).
    fn reassert_waiters(&mut self, class: usize) {
        if self.published.at(class) > 0 {
            self.unpublished.put(class, true);
            // And the path listed again, in case the entry went with them.
            self.unlisted = true;
        }
    }
}

#[cfg(test)]
mod stress;
#[cfg(test)]
mod tests;
