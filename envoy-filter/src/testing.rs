//! In-memory doubles of the host, for unit tests: a shared store several workers can use, a clock the test
//! moves by hand, and metrics summed the way Envoy sums them.
#![allow(clippy::disallowed_methods)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::deltas::Deltas;
use crate::host::{Clock, HostError, Metric, Metrics, SharedStore};
use crate::per_path::PathIndex;

/// Another worker's steps, run inside the next write, after this worker's read: a race, made to happen.
type Interleaving = Box<dyn FnOnce(&MemStore)>;

/// Envoy's shared data: a write with a CAS token fails if the key exists with another token; a missing key is
/// created whatever the token.
#[derive(Default)]
pub struct MemStore {
    values: RefCell<HashMap<String, (Vec<u8>, u32)>>,
    reads: Cell<u64>,
    next_cas: Cell<u32>,
    failing_cas: Cell<usize>,
    /// Reads of keys that end with this fail, as a hostcall may.
    failing_reads: RefCell<Option<String>>,
    before_next_set: RefCell<Option<Interleaving>>,
}

impl MemStore {
    /// How many writes succeeded so far.
    pub fn writes(&self) -> u32 {
        self.next_cas.get()
    }

    /// How many reads there were so far: a hostcall each, in Envoy.
    pub fn reads(&self) -> u64 {
        self.reads.get()
    }

    /// Makes the next `n` conditional writes lose their race.
    pub fn fail_next_cas(&self, n: usize) {
        self.failing_cas.set(n);
    }

    /// Makes every read of a key that ends with `suffix` fail, until called with `None`.
    pub fn fail_reads_of(&self, suffix: Option<&str>) {
        *self.failing_reads.borrow_mut() = suffix.map(str::to_string);
    }

    /// Runs `steps` just before the next write lands, as another worker would between a read and a write.
    pub fn before_next_set(&self, steps: impl FnOnce(&MemStore) + 'static) {
        *self.before_next_set.borrow_mut() = Some(Box::new(steps));
    }
}

impl SharedStore for MemStore {
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError> {
        self.reads.set(self.reads.get() + 1);
        if self.failing_reads.borrow().as_ref().is_some_and(|suffix| key.ends_with(suffix.as_str())) {
            return Err(HostError(format!("reading {key} failed")));
        }
        Ok(self.values.borrow().get(key).cloned())
    }

    fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> Result<bool, HostError> {
        let interleaving = self.before_next_set.borrow_mut().take();
        if let Some(steps) = interleaving {
            steps(self);
        }
        let mut values = self.values.borrow_mut();
        if let Some(expected) = cas {
            if self.failing_cas.get() > 0 {
                self.failing_cas.set(self.failing_cas.get() - 1);
                return Ok(false);
            }
            if values.get(key).is_some_and(|(_, c)| *c != expected) {
                return Ok(false);
            }
        }
        self.next_cas.set(self.next_cas.get() + 1);
        values.insert(key.to_string(), (value.to_vec(), self.next_cas.get()));
        Ok(true)
    }
}

/// One host as a worker sees it; clones share the store, the clock and the metrics, like two Envoy workers.
#[derive(Clone, Default)]
pub struct MockHost {
    pub store: Rc<MemStore>,
    pub clock: Rc<Cell<u64>>,
    /// The metrics as Envoy shows them.
    pub metrics: Rc<RefCell<HashMap<(PathIndex, Metric), i64>>>,
    /// The deltas `add` keeps until [`MockHost::flush`], on a host that batches them as the Wasm layer does;
    /// `None` on one that adds them at once.
    pending: Option<Rc<RefCell<Deltas>>>,
}

impl MockHost {
    /// The metric as Envoy shows it (without the deltas a batching host still keeps).
    pub fn metric(&self, path: PathIndex, metric: Metric) -> i64 {
        self.metrics.borrow().get(&(path, metric)).copied().unwrap_or(0)
    }

    /// Another worker's host on the same store, clock and metrics, which keeps the deltas of `add` until
    /// [`MockHost::flush`] hands them over, as each Envoy worker's Wasm layer does.
    pub fn batching(&self) -> MockHost {
        MockHost { pending: Some(Rc::default()), ..self.clone() }
    }

    /// Hands the kept deltas over to the metrics.
    pub fn flush(&self) {
        let Some(pending) = &self.pending else { return };
        for (path, metric, delta) in pending.borrow_mut().take_all() {
            *self.metrics.borrow_mut().entry((path, metric)).or_insert(0) += delta;
        }
    }

    /// The delta this host keeps for the metric, not yet handed over.
    pub fn unflushed(&self, path: PathIndex, metric: Metric) -> i64 {
        self.pending.as_ref().map_or(0, |p| p.borrow().kept(path, metric))
    }

    pub fn advance(&self, ms: u64) {
        self.clock.set(self.clock.get() + ms);
    }
}

impl SharedStore for MockHost {
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError> {
        self.store.get(key)
    }
    fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> Result<bool, HostError> {
        self.store.set(key, value, cas)
    }
}

impl Clock for MockHost {
    fn now_ms(&self) -> u64 {
        self.clock.get()
    }
}

impl Metrics for MockHost {
    fn add(&self, path: PathIndex, metric: Metric, delta: i64) {
        match &self.pending {
            Some(pending) => pending.borrow_mut().add(path, metric, delta),
            None => *self.metrics.borrow_mut().entry((path, metric)).or_insert(0) += delta,
        }
    }

    /// As the Wasm layer does: with the stat's kept deltas (see [`Deltas`]).
    fn add_now(&self, path: PathIndex, metric: Metric, delta: i64) {
        let delta = self.pending.as_ref().map_or(delta, |p| p.borrow_mut().now(path, metric, delta));
        *self.metrics.borrow_mut().entry((path, metric)).or_insert(0) += delta;
    }

    fn flush(&self) {
        MockHost::flush(self);
    }
}
