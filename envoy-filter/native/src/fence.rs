//! The `pathfence` filter: the filter's runtime (`pathfence_envoy_filter::runtime`), the same one the Wasm build
//! runs, bound to the dynamic-modules ABI. Nothing here decides anything about requests.
//!
//! Envoy creates a filter configuration on its main thread and the streams on its worker threads. The runtime is
//! one per worker thread and configuration (as proxy-wasm has one root context per worker), so each thread makes
//! its own *fence* for a configuration on the first stream of it that it sees, and keeps it in a thread-local table.
//! The host traits are implemented with the ABI's callbacks, except the shared counts, which are the process's
//! [`Store`], and the tick, which the [`Metronome`] gives through a stream's scheduler.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pathfence_envoy_filter::classifier::RequestView;
use pathfence_envoy_filter::config::Config;
use pathfence_envoy_filter::host::{Clock, HostError, Metric, Metrics, Proxy, SharedStore};
use pathfence_envoy_filter::pause::rounds::Answer;
use pathfence_envoy_filter::per_path::{OfPath, PathIndex};
use pathfence_envoy_filter::runtime::{self, Refusal, Runtime};
use pathfence_envoy_filter::stats::{Ids, StatIds};

use crate::abi::{EnvoyBuffer, FilterConfigEnvoyPtr, FilterEnvoyPtr, ModuleBuffer, ModuleHttpHeader, REQUEST_HEADER};
use crate::current::Current;
use crate::gone;
use crate::host::Callbacks;
use crate::metronome::Metronome;
use crate::settle::settle;
use crate::store::Store;

/// A `pathfence` configuration, checked and with its stats defined: shared by every worker thread.
pub struct FenceConfig {
    id: u64,
    json: Vec<u8>,
    /// The stats of each reservation, in the order of [`Metric::ALL`].
    stat_ids: Vec<Ids>,
}

impl FenceConfig {
    /// Checks `json` as the Wasm build does and defines the stats on `envoy_config`; `Err` says why not, naming the
    /// field of a bad configuration.
    ///
    /// # Safety
    /// `envoy_config` is the configuration object Envoy passed to `on_http_filter_config_new`, during that call.
    pub unsafe fn new(
        callbacks: &Callbacks,
        envoy_config: FilterConfigEnvoyPtr,
        json: &[u8],
    ) -> Result<FenceConfig, String> {
        let config = Config::parse(json).map_err(|e| e.to_string())?;
        for warning in config.warnings() {
            log::warn!("pathfence configuration: {warning}");
        }
        let define = |metric: Metric, name: &str| {
            let define = if metric.is_gauge() { callbacks.define_gauge } else { callbacks.define_counter };
            let mut id = 0usize;
            // SAFETY: Envoy's configuration object, during `on_http_filter_config_new`; the name outlives the call.
            let result =
                unsafe { define(envoy_config, ModuleBuffer::of(name.as_bytes()), std::ptr::null_mut(), 0, &mut id) };
            match (result, u32::try_from(id)) {
                (crate::abi::METRICS_SUCCESS, Ok(id)) => Ok(id),
                _ => Err(HostError(format!("cannot define the stat {name} (result {result})"))),
            }
        };
        let stat_ids = StatIds::default().for_config(&config, define);
        static IDS: AtomicU64 = AtomicU64::new(1);
        Ok(FenceConfig { id: IDS.fetch_add(1, Ordering::Relaxed), json: json.to_vec(), stat_ids })
    }

    /// Tells every worker thread, on its next stream, that this configuration is gone, so that its fence goes too.
    pub fn gone(&self) {
        log::info!("pathfence: configuration gone; each worker's fence of it goes with the worker's next stream");
        gone::went(self.id);
    }
}

thread_local! {
    /// This thread's fences, by configuration.
    static FENCES: RefCell<HashMap<u64, Rc<Fence>>> = RefCell::new(HashMap::new());
    /// How many gone configurations this thread has looked for among its fences.
    static GONE_SEEN: Cell<u64> = const { Cell::new(0) };
}

/// One configuration on one worker thread: its runtime, its live streams and its tick.
pub struct Fence {
    /// This fence's key in the metronome: one per thread and configuration.
    id: u64,
    /// Its configuration's.
    config: u64,
    callbacks: &'static Callbacks,
    metronome: Option<&'static Metronome>,
    runtime: Runtime<NativeHost>,
    /// The live streams whose request headers came, by the id the runtime knows them by.
    streams: RefCell<HashMap<u32, FilterEnvoyPtr>>,
    next_stream: Cell<u32>,
    /// The stream whose scheduler ticks this fence.
    anchor: Cell<Option<u32>>,
    /// The stream whose callback is running, through which the stats are changed.
    current: Rc<Current>,
}

/// A stream of a fence, as Envoy holds it for the module.
pub struct FenceStream {
    id: u32,
    /// Envoy's side of the stream, valid until the module's destroy hook for it has returned.
    filter: FilterEnvoyPtr,
    fence: Rc<Fence>,
}

impl Fence {
    /// This thread's fence for `config`, made on first use (by the stream `filter`, through which the stats the
    /// new worker starts with are set); fences of configurations gone since are dropped.
    pub fn of(callbacks: &'static Callbacks, config: &FenceConfig, filter: FilterEnvoyPtr) -> Option<Rc<Fence>> {
        drop_gone();
        if let Some(fence) = FENCES.with(|f| f.try_borrow().ok().and_then(|f| f.get(&config.id).cloned())) {
            return Some(fence);
        }
        let current = Rc::new(Current::default());
        let host_current = Rc::clone(&current);
        let host_for = move |_: &Config| {
            let host = NativeHost { stat_ids: config.stat_ids.clone(), callbacks, current: host_current };
            let defined = config.stat_ids.iter().flatten().flatten().count();
            (host, defined)
        };
        static FENCE_IDS: AtomicU64 = AtomicU64::new(1);
        let fence = Rc::new(Fence {
            id: FENCE_IDS.fetch_add(1, Ordering::Relaxed),
            config: config.id,
            callbacks,
            metronome: Metronome::get(callbacks.scheduler_commit),
            runtime: Runtime::default(),
            streams: RefCell::new(HashMap::new()),
            next_stream: Cell::new(1),
            anchor: Cell::new(None),
            current,
        });
        gone::configs(|configs| configs.fence_made(config.id));
        if fence.metronome.is_none() {
            log::error!("pathfence: cannot start the tick thread; queues and pauses will not time out");
        }
        if !fence.within(filter, || fence.runtime.configure(&fence.proxy(), 0, &config.json, host_for)) {
            log::error!("pathfence: configuration not applied on this worker; its requests go through unfenced");
        }
        FENCES.with(|f| f.try_borrow_mut().ok().map(|mut f| f.insert(config.id, Rc::clone(&fence))));
        Some(fence)
    }

    fn proxy(&self) -> NativeProxy<'_> {
        NativeProxy { fence: self }
    }

    /// A new stream `filter`, known to the runtime from its request headers on.
    pub fn open(self: &Rc<Fence>, filter: FilterEnvoyPtr) -> FenceStream {
        let id = self.next_stream.get();
        // 0 is the root's id in the runtime's calls; a wrapped counter skips it.
        self.next_stream.set(id.checked_add(1).unwrap_or(1));
        FenceStream { id, filter, fence: Rc::clone(self) }
    }

    /// Moves the tick's anchor to `stream`, or to none; the scheduler it replaces is deleted.
    fn anchor_on(&self, stream: Option<(u32, FilterEnvoyPtr)>) {
        let Some(metronome) = self.metronome else { return };
        // SAFETY: `filter` is a live stream of this thread, in its callback or in this fence's table.
        let scheduler = stream.map(|(_, filter)| unsafe { (self.callbacks.scheduler_new)(filter) });
        self.anchor.set(stream.map(|(id, _)| id));
        if let Some(old) = metronome.anchor(self.id, scheduler.filter(|s| !s.is_null())) {
            // SAFETY: out of the metronome's table, so nothing commits it any more; deleted once.
            unsafe { (self.callbacks.scheduler_delete)(old) };
        }
    }

    /// Runs `f` with `filter` as the stream whose callback is running; afterwards the one before, unless it ended
    /// meanwhile.
    fn within<T>(&self, filter: FilterEnvoyPtr, f: impl FnOnce() -> T) -> T {
        self.current.within(filter, |before| self.is_live(before), f)
    }

    fn is_live(&self, filter: FilterEnvoyPtr) -> bool {
        self.streams.try_borrow().is_ok_and(|streams| streams.values().any(|live| *live == filter))
    }

    /// The request headers of `stream` arrived. From here on Envoy has given the stream its worker's dispatcher, which
    /// a scheduler needs: the stream is one the tick may be anchored on, and it anchors it if nothing does.
    /// Takes the stream's id, not the stream: the runtime's acts may end it, and Envoy then frees it.
    pub fn on_request(&self, stream: u32, filter: FilterEnvoyPtr) -> runtime::Headers {
        if let Ok(mut streams) = self.streams.try_borrow_mut() {
            streams.insert(stream, filter);
        }
        if self.anchor.get().is_none() {
            self.anchor_on(Some((stream, filter)));
        }
        self.within(filter, || {
            self.runtime.on_request(&self.proxy(), stream, &NativeRequest { filter, callbacks: self.callbacks })
        })
    }

    pub fn on_tick(&self, filter: FilterEnvoyPtr) {
        self.within(filter, || self.runtime.on_tick(&self.proxy(), 0));
    }

    /// Stream `stream` ended, however it ended. The last of the thread's streams takes the tick's anchor with it:
    /// with no stream left, nothing can tick this fence until the next one comes, so it gives back now what a
    /// tick would (spares, releases to retry).
    pub fn close(&self, stream: &FenceStream) {
        if let Ok(mut streams) = self.streams.try_borrow_mut() {
            streams.remove(&stream.id);
        }
        self.within(stream.filter, || {
            self.runtime.on_stream_end(&self.proxy(), stream.id);
            settle(&self.runtime, &self.proxy(), || self.live_stream().is_some());
        });
        // Read after the runtime acted: the streams it refused may have ended meanwhile.
        if self.anchor.get() == Some(stream.id) {
            self.anchor_on(self.live_stream());
        }
    }

    fn live_stream(&self) -> Option<(u32, FilterEnvoyPtr)> {
        self.streams.try_borrow().ok().and_then(|streams| streams.iter().next().map(|(id, filter)| (*id, *filter)))
    }
}

impl Drop for Fence {
    fn drop(&mut self) {
        gone::configs(|configs| configs.fence_dropped(self.config));
        if let Some(old) = self.metronome.and_then(|m| m.forget(self.id)) {
            // SAFETY: out of the metronome's table; deleted once.
            unsafe { (self.callbacks.scheduler_delete)(old) };
        }
    }
}

/// Drops this thread's fences of configurations Envoy has destroyed (they have no stream left: each holds its
/// configuration); the runtime gives back what its workers hold as it goes.
fn drop_gone() {
    let count = gone::gone_count();
    if GONE_SEEN.with(Cell::get) == count {
        return;
    }
    let gone = gone::configs(|configs| configs.gone_ones());
    let dropped: Option<Vec<Rc<Fence>>> = FENCES
        .with(|f| f.try_borrow_mut().ok().map(|mut fences| gone.iter().filter_map(|id| fences.remove(id)).collect()));
    // Seen only once looked for: a thread whose table was busy looks again on its next stream.
    if dropped.is_some() {
        GONE_SEEN.with(|seen| seen.set(count));
    }
    // Dropped outside the table's borrow: a runtime going away logs and acts.
    drop(dropped);
}

/// The host as one fence sees it: the process's store, the system clock, and the stats through the ABI.
pub struct NativeHost {
    stat_ids: Vec<Ids>,
    callbacks: &'static Callbacks,
    current: Rc<Current>,
}

impl SharedStore for NativeHost {
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError> {
        Ok(Store::process().get(key))
    }

    fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> Result<bool, HostError> {
        Ok(Store::process().set(key, value, cas))
    }
}

impl Clock for NativeHost {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }

    fn now_ns(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

impl Metrics for NativeHost {
    /// Handed to Envoy at once: a stat is an atomic in Envoy's memory, with no VM to cross, so there is nothing to
    /// gain from batching (and nothing to flush). A change made with no stream's callback running (a fence going
    /// away with its configuration) has no stream to go through and is dropped.
    fn add(&self, path: PathIndex, metric: Metric, delta: i64) {
        let filter = self.current.get();
        let id = self.stat_ids.of(path).and_then(|ids| ids.get(metric.index())).copied().flatten();
        let (Some(id), false, false) = (id, filter.is_null(), delta == 0) else { return };
        let change = match (metric.is_gauge(), delta > 0) {
            (true, true) => self.callbacks.increment_gauge,
            (true, false) => self.callbacks.decrement_gauge,
            (false, true) => self.callbacks.increment_counter,
            // A counter only goes up.
            (false, false) => return,
        };
        // SAFETY: a live stream of this thread, whose callback is running; the stat was defined on its configuration.
        let result = unsafe { change(filter, id as usize, std::ptr::null_mut(), 0, delta.unsigned_abs()) };
        if result != crate::abi::METRICS_SUCCESS {
            log::warn!("pathfence: stat {} not changed (result {result})", metric.name());
        }
    }
}

/// The proxy as the runtime acts on it: streams resumed and refused by their filter.
struct NativeProxy<'a> {
    fence: &'a Fence,
}

impl NativeProxy<'_> {
    fn filter(&self, stream: u32) -> Result<FilterEnvoyPtr, HostError> {
        live(&self.fence.streams, stream)
    }
}

/// Envoy's side of `stream`, if it is live on this thread. `Err` for one that is not: a reply not sent must not pass
/// for one sent, or the runtime would not fall back to letting the stream go on.
fn live(streams: &RefCell<HashMap<u32, FilterEnvoyPtr>>, stream: u32) -> Result<FilterEnvoyPtr, HostError> {
    let streams = streams.try_borrow().map_err(|_| HostError(format!("stream {stream}: the streams are busy")))?;
    streams.get(&stream).copied().ok_or_else(|| HostError(format!("stream {stream} is not live on this thread")))
}

impl Proxy for NativeProxy<'_> {
    fn set_tick_period(&self, ms: u64) -> Result<(), HostError> {
        match self.fence.metronome {
            Some(metronome) => {
                metronome.set_period(self.fence.id, Duration::from_millis(ms));
                Ok(())
            }
            None => Err(HostError("no tick thread".to_string())),
        }
    }

    fn resume(&self, stream: u32) -> Result<(), HostError> {
        if let Ok(filter) = self.filter(stream) {
            // SAFETY: a live stream of this thread.
            unsafe { (self.fence.callbacks.continue_decoding)(filter) };
        }
        Ok(())
    }

    fn refuse(&self, stream: u32, refusal: &Refusal) -> Result<(), HostError> {
        let filter = self.filter(stream)?;
        let mut headers =
            refusal.headers().map(|(name, value)| ModuleHttpHeader::of(name.as_bytes(), value.as_bytes()));
        let body = refusal.body();
        // SAFETY: a live stream of this thread; Envoy copies the headers and the body during the call. The reply
        // may end the stream at once, which calls back into the runtime: the caller holds no borrow.
        unsafe {
            (self.fence.callbacks.send_response)(
                filter,
                Refusal::STATUS,
                headers.as_mut_ptr(),
                headers.len(),
                ModuleBuffer::of(body.as_bytes()),
                ModuleBuffer::of(b"pathfence_refused"),
            );
        }
        Ok(())
    }

    fn answer(&self, stream: u32, answer: &Answer) -> Result<(), HostError> {
        let filter = self.filter(stream)?;
        let mut headers = [ModuleHttpHeader::of(b"content-type", Answer::CONTENT_TYPE.as_bytes())];
        // SAFETY: as in `refuse`: a live stream of this thread, headers and body copied during the call.
        unsafe {
            (self.fence.callbacks.send_response)(
                filter,
                answer.status,
                headers.as_mut_ptr(),
                headers.len(),
                ModuleBuffer::of(answer.body.as_bytes()),
                ModuleBuffer::of(b"pathfence_round"),
            );
        }
        Ok(())
    }
}

/// The request headers of the stream whose request-headers callback is running, read as bytes.
struct NativeRequest {
    filter: FilterEnvoyPtr,
    callbacks: &'static Callbacks,
}

impl NativeRequest {
    fn get(&self, name: &str) -> Option<Vec<u8>> {
        let mut value = EnvoyBuffer::EMPTY;
        // SAFETY: the stream's headers are there during its request-headers callback; the value is copied at once.
        unsafe {
            let found = (self.callbacks.get_header)(
                self.filter,
                REQUEST_HEADER,
                ModuleBuffer::of(name.as_bytes()),
                &mut value,
                0,
                std::ptr::null_mut(),
            );
            found.then(|| value.bytes().to_vec())
        }
    }
}

impl RequestView for NativeRequest {
    fn path(&self) -> Option<Vec<u8>> {
        self.get(":path")
    }
    fn method(&self) -> Option<Vec<u8>> {
        self.get(":method")
    }
    fn header(&self, name: &str) -> Option<Vec<u8>> {
        self.get(name)
    }
}

impl FenceStream {
    pub fn fence(&self) -> &Rc<Fence> {
        &self.fence
    }

    pub fn id(&self) -> u32 {
        self.id
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_not_live_here_is_an_error_not_a_reply_sent() {
        let streams = RefCell::new(HashMap::new());
        let mut envoy_side = 0u8;
        let filter: FilterEnvoyPtr = std::ptr::addr_of_mut!(envoy_side).cast();
        streams.borrow_mut().insert(3, filter);
        assert_eq!(live(&streams, 3).ok(), Some(filter));
        let gone = live(&streams, 4).unwrap_err();
        assert!(gone.0.contains("stream 4 is not live"), "{gone}");
        let _busy = streams.borrow_mut();
        assert!(live(&streams, 3).is_err(), "a borrowed map is no stream found");
    }
}
