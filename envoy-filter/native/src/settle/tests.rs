//! The settling under a simulated light load: one stream at a time on a worker, on the runtime of the Wasm build,
//! a store of the module's kind and a clock the test moves.

use std::cell::Cell;

use pathfence_envoy_filter::classifier::RequestView;
use pathfence_envoy_filter::host::{Clock, HostError, Metric, Metrics, SharedStore};
use pathfence_envoy_filter::per_path::PathIndex;
use pathfence_envoy_filter::runtime::Refusal;

use super::*;
use crate::store::Store;

/// The benchmark's configuration: two paths no load fills.
const CONFIG: &str = r#"{"paths": [
    {"name": "orders", "match": {"prefix": "/orders"}, "max_concurrency": 10000},
    {"name": "catalog", "match": {"prefix": "/catalog"}, "max_concurrency": 10000}]}"#;

#[derive(Clone, Copy)]
struct TestHost {
    store: &'static Store,
    clock: &'static Cell<u64>,
    ops: &'static Cell<u64>,
}

impl SharedStore for TestHost {
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError> {
        self.ops.set(self.ops.get() + 1);
        Ok(self.store.get(key))
    }
    fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> Result<bool, HostError> {
        self.ops.set(self.ops.get() + 1);
        Ok(self.store.set(key, value, cas))
    }
}

impl Clock for TestHost {
    fn now_ms(&self) -> u64 {
        self.clock.get() / 1000
    }
    fn now_ns(&self) -> u64 {
        self.clock.get() * 1000
    }
}

impl Metrics for TestHost {
    fn add(&self, _: PathIndex, _: Metric, _: i64) {}
}

/// Ends no stream: nothing is held or refused under this load.
struct NoProxy;

impl Proxy for NoProxy {
    fn set_tick_period(&self, _: u64) -> Result<(), HostError> {
        Ok(())
    }
    fn resume(&self, _: u32) -> Result<(), HostError> {
        Ok(())
    }
    fn refuse(&self, _: u32, _: &Refusal) -> Result<(), HostError> {
        Ok(())
    }
}

struct Orders;

impl RequestView for Orders {
    fn path(&self) -> Option<Vec<u8>> {
        Some(b"/orders/1".to_vec())
    }
    fn method(&self) -> Option<Vec<u8>> {
        Some(b"GET".to_vec())
    }
    fn header(&self, _: &str) -> Option<Vec<u8>> {
        None
    }
}

struct Run {
    requests: u64,
    ticks: u64,
    store_ops: u64,
}

/// `requests` streams alone on their worker, one every `every_us`, each `lasting_us`.
fn light_load(requests: u64, every_us: u64, lasting_us: u64) -> Run {
    let host = TestHost {
        store: Box::leak(Box::default()),
        clock: Box::leak(Box::new(Cell::new(1_000_000))),
        ops: Box::leak(Box::default()),
    };
    let proxy = NoProxy;
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, 0, CONFIG.as_bytes(), |_| (host, 0)));
    let (mut ticks, start_ops) = (0, host.ops.get());
    for i in 0..requests {
        let stream = i as u32 + 1;
        runtime.on_request(&proxy, stream, &Orders);
        host.clock.set(host.clock.get() + lasting_us);
        runtime.on_stream_end(&proxy, stream);
        ticks += settle(&runtime, &proxy, || false) as u64;
        host.clock.set(host.clock.get() + every_us - lasting_us);
    }
    Run { requests, ticks, store_ops: host.ops.get() - start_ops }
}

/// Below one arrival per millisecond on a worker (the benchmark's moderate load gives each of its two workers about
/// half that) the worker keeps no spares, so a stream ending alone leaves nothing to give back and settling runs
/// no tick. From one arrival per millisecond on, each stream alone keeps its slot as a spare and settling gives it
/// back with one tick, a shared-store read more per request.
#[test]
fn settling_ticks_only_where_spares_are_kept() {
    let moderate = light_load(1000, 2000, 300);
    assert!(moderate.ticks * 100 < moderate.requests, "{} ticks for {} requests", moderate.ticks, moderate.requests);
    assert_eq!(
        moderate.store_ops,
        4 * moderate.requests + moderate.ticks,
        "a take and a release, each a read and a write"
    );
    let faster = light_load(1000, 1000, 300);
    assert_eq!(faster.ticks, faster.requests, "one settling tick per request");
    assert_eq!(faster.store_ops, 5 * faster.requests);
}
