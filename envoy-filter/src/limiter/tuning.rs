//! A worker's part in tuning (issue 19): it samples the requests of each tuned path, publishes its closed intervals
//! on its tick, analyses every path when it holds the analyst's lease and a period is due, and applies the limits
//! published, on its next tick after they are.
//!
//! A limit that shrinks below what the path holds strands nobody and admits nobody over it: the worker gives its
//! spares back, and until the path's shared count is under the new limit a freed slot goes back to the count
//! instead of to a waiter or a spare, so the requests above the limit drain as they end.
//!
//! A worker learns of a new limit on its tick, and before any compare-and-swap that would take a slot of a tuned
//! path: the count of rounds is read first, so that no worker takes a slot of the count under a limit that was
//! lowered, however long until its tick (up to 100 ms on a lightly loaded worker). What it may still hand out until
//! that tick are its spares, which are slots already in the count.

use log::{info, warn};

use super::leases::heartbeat_key;
use super::{Permit, Worker, KEY_PREFIX};
use crate::config::{Bounds, Tuning};
use crate::counters;
use crate::host::{Host, HostError, Metric};
use crate::per_path::{OfPath, PathIndex, PerPath};
use crate::sct::accumulator::IntervalAccumulator;
use crate::sct::decision::Decision;
use crate::sct::tuner::PathTuner;
use crate::sct::window::SampleWindow;
use crate::sct::wire::WorkerInterval;
use crate::tuning::lease;
use crate::tuning::published::{self, Published};
use crate::tuning::samples::{SampleKeys, SEGMENT_INTERVALS};

/// Closed intervals a worker holds until its tick collects them; a tick comes at least every 100 ms.
const PENDING_INTERVALS: usize = 64;
/// How long after an interval ends the analyst still waits for the workers' records of it: each publishes on its
/// tick, which an idle worker has every 100 ms.
const PUBLISH_LAG_NS: u64 = 250_000_000;

/// One tuned path's sampling on this worker.
pub(crate) struct Sampler {
    bounds: Bounds,
    accumulator: IntervalAccumulator,
    /// Closed intervals not yet in shared data (a publication that lost its races is tried again).
    unpublished: Vec<WorkerInterval>,
    samples: SampleKeys,
    limit_key: String,
}

/// The worker's tuning state, with tuning on.
pub(crate) struct Tuner {
    settings: Tuning,
    samplers: Vec<Option<Sampler>>,
    lease_key: String,
    rounds_key: String,
    /// The rounds of decisions whose limits this worker applied.
    rounds_applied: u64,
    next_decision_ns: u64,
    /// Paths whose limit shrank below what their shared count may hold: see the module's comment.
    draining: Vec<bool>,
    /// When a draining path's count was first found unreadable, while it still is.
    unreadable_since_ms: Vec<Option<u64>>,
    /// False once the worker retired: it still publishes the samples of the requests it admitted, but no longer
    /// analyses.
    analyses: bool,
}

/// The shared key of the analyst's lease.
pub fn lease_key() -> String {
    format!("{KEY_PREFIX}tuning.analyst")
}

/// The shared key of the count of rounds of decisions published.
pub fn rounds_key() -> String {
    format!("{KEY_PREFIX}tuning.rounds")
}

/// The shared key of a path's published limit.
pub fn limit_key(path: &str) -> String {
    format!("{KEY_PREFIX}{path}.limit")
}

impl Tuner {
    /// The tuning of a worker of `config`, if tuning is on; each tuned path starts at the limit published before
    /// (held within its bounds), or at its configured one.
    pub(super) fn start<H: Host>(worker: &mut Worker<H>) -> Option<Tuner> {
        let settings = worker.config.tuning.clone()?;
        let now_ns = worker.host.now_ns();
        let n = worker.config.reservations.len();
        let mut samplers = Vec::with_capacity(n);
        for path in PathIndex::all(n) {
            let sampler = worker.config.tuned(path).map(|bounds| {
                let name = worker.config.name(path);
                Sampler {
                    bounds,
                    accumulator: IntervalAccumulator::aligned(settings.interval_ns, now_ns, PENDING_INTERVALS),
                    unpublished: Vec::new(),
                    samples: SampleKeys::new(KEY_PREFIX, name, settings.interval_ns, settings.window_intervals),
                    limit_key: limit_key(name),
                }
            });
            if let Some(sampler) = &sampler {
                let start = worker.config.limit(path).unwrap_or(sampler.bounds.min);
                match published::start(&worker.host, &sampler.limit_key, sampler.bounds, start) {
                    Ok(Some((before, now))) => {
                        worker.config.set_limit(path, now.limit);
                        report(&worker.host, path, before, now);
                    }
                    Ok(None) => warn!(
                        "pathfence: reading the tuned limit of `{}` kept losing the race",
                        worker.config.name(path)
                    ),
                    Err(e) => warn!("pathfence: reading the tuned limit of `{}` failed: {e}", worker.config.name(path)),
                }
            }
            samplers.push(sampler);
        }
        let rounds_key = rounds_key();
        let rounds_applied = published::rounds(&worker.host, &rounds_key).unwrap_or(0);
        Some(Tuner {
            next_decision_ns: next_boundary(now_ns, settings.period_ns),
            settings,
            samplers,
            lease_key: lease_key(),
            rounds_key,
            rounds_applied,
            draining: vec![false; n],
            unreadable_since_ms: vec![None; n],
            analyses: true,
        })
    }

    fn sampler(&mut self, path: PathIndex) -> Option<&mut Sampler> {
        self.samplers.of_mut(path).and_then(Option::as_mut)
    }
}

/// The first multiple of `period` after `now`: every worker decides on the same boundaries.
fn next_boundary(now_ns: u64, period_ns: u64) -> u64 {
    let period = period_ns.max(1);
    (now_ns / period).saturating_add(1).saturating_mul(period)
}

/// Moves a path's gauges from what was published before to what is now: only whoever changes the published
/// value does, so that the gauges, which every worker adds to, show it once. At once rather than batched: the
/// worker that publishes a path's starting limit may be one that never ticks (Envoy configures the filter on its
/// main thread too), and its batch would never reach Envoy.
fn report(host: &impl Host, path: PathIndex, before: Option<Published>, now: Published) {
    let before = before.unwrap_or_default();
    for (metric, was, is) in [
        (Metric::Limit, before.limit, now.limit),
        (Metric::QLower, before.q_lower, now.q_lower),
        (Metric::QUpper, before.q_upper, now.q_upper),
    ] {
        if was != is {
            host.add_now(path, metric, i64::from(is) - i64::from(was));
        }
    }
}

impl<H: Host> Worker<H> {
    /// Whether a request of `path` is sampled: it took a slot of its own tuned path.
    fn sampled(&self, path: PathIndex, permit: &Permit) -> bool {
        permit.counted && permit.path == path && self.tuner.as_ref().is_some_and(|t| t.samplers.at_sampled(path))
    }

    /// A request of `path` took its slot: the time it did, if it is sampled.
    pub(super) fn sample_admitted(&mut self, path: PathIndex, permit: &Permit) -> Option<u64> {
        if !self.sampled(path, permit) {
            return None;
        }
        let now = self.host.now_ns();
        self.tuner.as_mut()?.sampler(path)?.accumulator.admitted(now);
        Some(now)
    }

    /// A sampled request gave its slot back.
    pub(super) fn sample_released(&mut self, permit: &Permit) {
        let Some(admitted_ns) = permit.admitted_ns else { return };
        let now = self.host.now_ns();
        if let Some(sampler) = self.tuner.as_mut().and_then(|t| t.sampler(permit.path)) {
            sampler.accumulator.released(admitted_ns, now);
        }
    }

    /// A request of `path` started (`true`) or stopped waiting for a slot.
    pub(super) fn sample_waiting(&mut self, path: PathIndex, started: bool) {
        if !self.tuner.as_ref().is_some_and(|t| t.samplers.at_sampled(path)) {
            return;
        }
        let now = self.host.now_ns();
        if let Some(sampler) = self.tuner.as_mut().and_then(|t| t.sampler(path)) {
            if started {
                sampler.accumulator.wait_started(now);
            } else {
                sampler.accumulator.wait_ended(now);
            }
        }
    }

    /// Whether freed slots of `path` go back to the shared count until it is under its new, lower limit.
    pub(super) fn draining(&self, path: PathIndex) -> bool {
        self.tuner.as_ref().is_some_and(|t| t.draining.at(path))
    }

    /// The tick's tuning: publish the closed intervals, decide if this worker is the analyst and a period is due,
    /// apply the limits published since the last tick, and see whether shrinking paths have drained.
    pub(super) fn tune(&mut self, now_ms: u64) {
        let Some(mut tuner) = self.tuner.take() else { return };
        let now_ns = self.host.now_ns();
        self.publish_intervals(&mut tuner, now_ns);
        if tuner.analyses && now_ns >= tuner.next_decision_ns {
            tuner.next_decision_ns = next_boundary(now_ns, tuner.settings.period_ns);
            self.decide_if_analyst(&tuner, now_ns, now_ms);
        }
        if let Err(e) = self.apply_published(&mut tuner) {
            warn!("pathfence: reading the published limits failed, will retry: {e}");
        }
        for path in PathIndex::all(tuner.draining.len()) {
            if tuner.draining.at(path) {
                self.see_if_drained(&mut tuner, path, now_ms);
            }
        }
        self.tuner = Some(tuner);
    }

    /// Ends `path`'s draining once its shared count is under the limit. A count that cannot be read keeps it
    /// draining, but not for good: after the worker lease of failed reads it ends, with a warning. While shared data
    /// fails, admission lets requests through uncounted anyway, and a path left draining would keep the worker
    /// ticking at its fastest pace and never take a spare again.
    fn see_if_drained(&self, tuner: &mut Tuner, path: PathIndex, now_ms: u64) {
        let error = match self.is_over_limit(path) {
            Ok(over) => {
                tuner.unreadable_since_ms.put(path, None);
                tuner.draining.put(path, over);
                return;
            }
            Err(e) => e,
        };
        let since = tuner.unreadable_since_ms.at(path).unwrap_or(now_ms);
        tuner.unreadable_since_ms.put(path, Some(since));
        let unreadable_ms = now_ms.saturating_sub(since);
        if unreadable_ms >= self.config.worker_lease_ms {
            warn!(
                "pathfence: the shared count of `{}` could not be read for {unreadable_ms} ms ({error}); it no longer \
                 drains to its lower limit",
                self.config.name(path)
            );
            tuner.unreadable_since_ms.put(path, None);
            tuner.draining.put(path, false);
        }
    }

    fn publish_intervals(&mut self, tuner: &mut Tuner, now_ns: u64) {
        let interval_ns = tuner.settings.interval_ns;
        for sampler in tuner.samplers.iter_mut().flatten() {
            sampler.accumulator.close_until(now_ns);
            while let Some(totals) = sampler.accumulator.pop_closed() {
                sampler.unpublished.push(WorkerInterval { worker: self.id, interval_ns, totals });
            }
            if sampler.unpublished.is_empty() {
                continue;
            }
            if let Err(e) = sampler.samples.publish(&self.host, &mut sampler.unpublished) {
                warn!("pathfence: publishing tuning samples failed, will retry: {e}");
            }
        }
    }

    /// Whether `worker`'s heartbeat has stood still for the worker lease, timed on this thread's clock (see
    /// [`Worker::reclaim`]); a heartbeat that cannot be read is not taken as a sign of death.
    pub(super) fn is_gone(&self, worker: u32, now_ms: u64) -> bool {
        worker != self.id
            && match self.host.get(&heartbeat_key(worker)) {
                Ok(Some((bytes, _))) => {
                    self.watch.unchanged_for(worker, counters::read_u64(&bytes, 0), now_ms)
                        > self.config.worker_lease_ms
                }
                Ok(None) => true,
                Err(_) => false,
            }
    }

    fn decide_if_analyst(&mut self, tuner: &Tuner, now_ns: u64, now_ms: u64) {
        let mine = lease::take(&self.host, &tuner.lease_key, self.id, &mut |holder| self.is_gone(holder, now_ms));
        match mine {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                warn!("pathfence: reading the tuning lease failed: {e}");
                return;
            }
        }
        let mut published_any = false;
        for (path, sampler) in PathIndex::all(tuner.samplers.len()).zip(&tuner.samplers) {
            let Some(sampler) = sampler else { continue };
            let Some(decision) = self.decide(path, sampler, &tuner.settings, now_ns) else { continue };
            let now = Published {
                limit: decision.limit,
                q_lower: decision.q_lower.unwrap_or(0),
                q_upper: decision.q_upper.unwrap_or(0),
            };
            match published::publish(&self.host, &sampler.limit_key, now) {
                Ok(Some(before)) => {
                    report(&self.host, path, before, now);
                    self.host.add(path, Metric::decisions(decision.verdict), 1);
                    info!("pathfence: tuning `{}`: {decision}", self.config.name(path));
                    published_any = true;
                }
                Ok(None) => {
                    warn!("pathfence: publishing the limit of `{}` kept losing the race", self.config.name(path))
                }
                Err(e) => warn!("pathfence: publishing the limit of `{}` failed: {e}", self.config.name(path)),
            }
        }
        if published_any {
            if let Err(e) = published::bump(&self.host, &tuner.rounds_key) {
                warn!("pathfence: counting a round of tuning decisions failed: {e}");
            }
        }
    }

    /// One path's decision on the window of every worker's records, from the limit published last.
    fn decide(&self, path: PathIndex, sampler: &Sampler, settings: &Tuning, now_ns: u64) -> Option<Decision> {
        let current = match published::read(&self.host, &sampler.limit_key) {
            Ok(Some(p)) => p.limit,
            _ => self.config.limit(path)?,
        };
        let analysed = usize::try_from(settings.window_intervals).ok()?;
        // Room for every record the ring of keys holds, so that none is refused for age before the analysis.
        let lag = usize::try_from(3 * SEGMENT_INTERVALS).ok()?;
        let window = SampleWindow::new(settings.interval_ns, 0, analysed, lag);
        let guards = settings.guards(sampler.bounds);
        let mut tuner = PathTuner::new(window, settings.model.clone(), guards, current);
        for record in sampler.samples.read_all(&self.host) {
            // A record from another interval length (an earlier configuration) or past the window is not this
            // analysis's.
            let _ = tuner.merge(&record, now_ns);
        }
        Some(tuner.decide(now_ns.saturating_sub(PUBLISH_LAG_NS.max(settings.interval_ns))))
    }

    /// Applies the limits published since this worker last did, if any were (one read of the count of rounds per
    /// tick). A path whose limit shrank gives its spares back and drains. If a limit cannot be read, the round
    /// counts as not applied, so that the next tick reads the limits again.
    fn apply_published(&mut self, tuner: &mut Tuner) -> Result<(), HostError> {
        let rounds = published::rounds(&self.host, &tuner.rounds_key)?;
        if rounds == tuner.rounds_applied {
            return Ok(());
        }
        let mut result = Ok(());
        for (path, sampler) in PathIndex::all(tuner.samplers.len()).zip(&tuner.samplers) {
            let Some(sampler) = sampler else { continue };
            let published = match published::read(&self.host, &sampler.limit_key) {
                Ok(Some(published)) => published,
                Ok(None) => continue,
                Err(e) => {
                    result = Err(e);
                    continue;
                }
            };
            let before = self.config.limit(path).unwrap_or(0);
            self.config.set_limit(path, published.limit);
            if self.config.limit(path).unwrap_or(0) < before {
                self.give_back_spares(path);
                tuner.draining.put(path, true);
                self.busy.insert(path);
            }
        }
        if result.is_ok() {
            tuner.rounds_applied = rounds;
        }
        result
    }

    /// Before a slot of a tuned `path` is taken from the shared count: applies the limits published since the last
    /// tick, if any were, so that the slot is taken under the limit in force (see the module's comment). A read
    /// that fails is left to the tick, which warns.
    pub(super) fn catch_up_with_limits(&mut self, path: PathIndex) {
        if !self.tuner.as_ref().is_some_and(|t| t.samplers.at_sampled(path)) {
            return;
        }
        let Some(mut tuner) = self.tuner.take() else { return };
        let _ = self.apply_published(&mut tuner);
        self.tuner = Some(tuner);
    }

    /// Whether `path`'s shared count is above its limit.
    fn is_over_limit(&self, path: PathIndex) -> Result<bool, HostError> {
        let Some(limit) = self.config.limit(path) else { return Ok(false) };
        let Some(key) = self.keys.inflight.of(path) else { return Ok(false) };
        Ok(counters::load(&self.host, key)? > u64::from(limit))
    }

    /// A worker going away publishes what it closed and gives the analyst's lease up, so that no sample but the
    /// open interval's is lost and another worker analyses at its next period.
    pub(super) fn stop_tuning(&mut self) {
        let Some(mut tuner) = self.tuner.take() else { return };
        let now_ns = self.host.now_ns();
        self.publish_intervals(&mut tuner, now_ns);
        if let Err(e) = lease::give_up(&self.host, &tuner.lease_key, self.id) {
            warn!("pathfence: giving the tuning lease up failed: {e}");
        }
        tuner.analyses = false;
        self.tuner = Some(tuner);
    }
}

/// Whether a path is sampled, read without borrowing the sampler mutably.
trait Sampled {
    fn at_sampled(&self, path: PathIndex) -> bool;
}

impl Sampled for Vec<Option<Sampler>> {
    fn at_sampled(&self, path: PathIndex) -> bool {
        self.of(path).is_some_and(Option::is_some)
    }
}
