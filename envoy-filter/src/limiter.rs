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

use crate::config::Config;
use crate::counters;
use crate::host::{Host, HostError, Metric};
use crate::per_path::{OfPath, PathIndex, PerPath};
use crate::waiting_paths;
pub(crate) use admission::Room;
use busy::Busy;
use stream_ids::StreamIds;
pub use watch::Watch;

mod admission;
mod busy;
mod leases;
mod publication;
mod retire;
mod slots;
mod spares;
mod stream_ids;
mod tick;
mod tuning;
mod watch;

/// Prefix of every shared-data key, versioned so that a filter with another layout never reads these.
pub const KEY_PREFIX: &str = "pathfence.v1.";

/// What to do with the request whose headers just arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Continue,
    /// Hold the request; an [`Effect`] will resume or refuse it later.
    Wait,
    /// Answer with a local 503 naming this reservation and why.
    Reject {
        path: PathIndex,
        reason: Reason,
    },
}

/// Why a request is refused: the `reason` of the refusal's body and of its counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The path's queue on this worker was full (a hold by a pause counting as a place in it).
    QueueFull,
    /// The request waited, or was held, for the path's `queue_timeout_ms`.
    Timeout,
    /// The configuration changed while the request waited or was held: the new one's worker does not know it.
    Reconfigured,
}

impl Reason {
    /// The tag, as the starter writes it.
    pub fn tag(self) -> &'static str {
        match self {
            Reason::QueueFull => "queue-full",
            Reason::Timeout => "timeout",
            Reason::Reconfigured => "reconfigured",
        }
    }
}

/// Work for the host on a stream other than the current one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Resume { context: u32 },
    Reject { context: u32, path: PathIndex, reason: Reason },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Permit {
    /// The reservation the slot was taken from (a local request may borrow another path's slot).
    path: PathIndex,
    /// False when the slot is not in the shared count: an unbounded reservation, or a fail-open admission.
    counted: bool,
    /// When the request took it, on the host's clock in nanoseconds, if tuning samples the request.
    admitted_ns: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
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
pub(crate) struct Request {
    pub(crate) path: PathIndex,
    pub(crate) state: State,
}

pub(crate) struct Keys {
    inflight: Vec<String>,
    waiting: Vec<String>,
    pub(crate) pause: String,
    /// The paths with waiters, of every worker (see [`crate::waiting_paths`]).
    waiting_paths: String,
}

pub struct Worker<H: Host> {
    pub(crate) host: H,
    pub(crate) config: Config,
    id: u32,
    pub(crate) keys: Keys,
    pub(crate) requests: HashMap<u32, Request, StreamIds>,
    queues: Vec<VecDeque<u32>>,
    pub(crate) held: VecDeque<u32>,
    /// Queues changed since this worker last published them to the shared waiting lists.
    unpublished: Vec<bool>,
    /// How many waiters this worker's entry of each waiting list last said it has.
    published: Vec<u32>,
    /// The clock's slips when the waiting lists were last published (see [`SteadyClock::slips`]).
    published_at_slip: u64,
    /// Each path's name hashed, as the shared list of paths with waiters names it, and the paths by those hashes
    /// (bounded paths only: nobody waits for an unbounded one).
    path_hashes: Vec<u64>,
    paths_by_hash: HashMap<u64, Vec<PathIndex>>,
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
    pub(crate) watch: Rc<Watch>,
    /// The worker's part in tuning, with tuning on (see [`tuning`]).
    tuner: Option<tuning::Tuner>,
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
            // Rounds keep the last round where counted pauses keep their count: a configuration switched from one to
            // the other in a running Envoy must not read the count as a round.
            pause: if config.pause.as_ref().is_some_and(|p| p.in_rounds()) {
                format!("{KEY_PREFIX}pause-rounds")
            } else {
                format!("{KEY_PREFIX}pause")
            },
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
        let mut paths_by_hash: HashMap<u64, Vec<PathIndex>> = HashMap::new();
        for (path, reservation) in PathIndex::all(n).zip(&config.reservations) {
            if reservation.max_concurrency.is_some() {
                paths_by_hash.entry(path_hashes.at(path)).or_default().push(path);
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
            tuner: None,
        };
        worker.tuner = tuning::Tuner::start(&mut worker);
        let now = worker.now();
        worker.heartbeat(now);
        worker.last_reclaim_ms = now;
        worker.rate_since_ms = now;
        // Until its first tick, arrivals and releases read the waiters of the paths others wait for now; if that is
        // unknown, of every bounded path.
        let waited = worker
            .paths_others_wait_for()
            .unwrap_or_else(|| PathIndex::all(n).filter(|path| worker.config.limit(*path).is_some()).collect());
        for path in waited {
            worker.others_waited.put(path, true);
            worker.busy.insert(path);
        }
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

    /// Requests of this worker that are held, waiting or holding a slot.
    pub fn tracked(&self) -> usize {
        self.requests.len()
    }

    /// Whether this worker knows stream `context` (held, waiting or holding a slot).
    pub fn tracks(&self, context: u32) -> bool {
        self.requests.contains_key(&context)
    }

    /// Requests of `path` waiting for a slot on this worker.
    pub fn queued(&self, path: PathIndex) -> usize {
        self.queues.of(path).map_or(0, VecDeque::len)
    }

    /// A request of reservation `path` arrived on stream `context`.
    pub fn on_request(&mut self, context: u32, path: PathIndex, effects: &mut Vec<Effect>) -> Decision {
        if path.0 >= self.config.reservations.len() || self.requests.contains_key(&context) {
            return Decision::Continue;
        }
        // Only requests that take a slot of the shared count could use a spare.
        if self.config.limit(path).is_some() {
            self.arrivals = self.arrivals.saturating_add(1);
        }
        let decision = if self.pauses(path) {
            self.through_pause(context, path, effects)
        } else {
            self.admit_or_queue(context, path, None, Room::UpToMaxQueue, effects)
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
                if let Some(queue) = self.queues.of_mut(request.path) {
                    queue.retain(|c| *c != context);
                }
                self.sample_waiting(request.path, false);
                self.unpublished.put(request.path, true);
                self.host.add(request.path, Metric::Queued, -1);
            }
            State::Admitted(permit) => self.release(permit, effects),
        }
        self.publish_waiting();
    }

    fn since(&self, context: u32) -> u64 {
        match self.requests.get(&context) {
            Some(Request { state: State::Waiting { since_ms } | State::Held { since_ms }, .. }) => *since_ms,
            _ => 0,
        }
    }

    /// The time on this thread's clock, from a new reading of the host's.
    pub(crate) fn now(&self) -> u64 {
        self.watch.clock.read(self.host.now_ms())
    }
}

#[cfg(test)]
mod stress;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tuning_tests;
