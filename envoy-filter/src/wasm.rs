//! The thin proxy-wasm layer: implements the host traits with hostcalls and forwards Envoy's callbacks to the
//! thread's [`Runtime`]. Nothing here decides anything.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use log::{error, warn};
use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType, LogLevel, MetricType, Status};

use crate::classifier::RequestView;
use crate::config::Config;
use crate::deltas::Deltas;
use crate::host::{Clock, HostError, Metric, Metrics, Proxy, SharedStore};
use crate::pause::rounds::Answer;
use crate::per_path::{OfPath, PathIndex};
use crate::runtime::{self, Refusal, Runtime};
use crate::stats::{Ids, StatIds};

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Info);
    // Replaces the SDK's hook, whose own log call may itself panic: a panic aborts the VM, so say why first.
    std::panic::set_hook(Box::new(|info| {
        let _ = hostcalls::log(LogLevel::Critical, &format!("pathfence: panic: {info}"));
    }));
    proxy_wasm::set_root_context(|id| -> Box<dyn RootContext> {
        Box::new(Root { id, runtime: Rc::default() })
    });
}}

thread_local! {
    /// The stats this thread's VM has defined, for the workers of every configuration (see [`StatIds`]).
    static STAT_IDS: RefCell<StatIds> = RefCell::new(StatIds::default());
}

fn host_error(what: &str, status: Status) -> HostError {
    HostError(format!("{what}: {status:?}"))
}

/// The host as seen from one worker thread: hostcalls plus the ids of the metrics defined at configure time.
struct EnvoyHost {
    metric_ids: Vec<Ids>,
    /// Metric deltas gathered between flushes: one hostcall per changed stat per flush instead of three per request.
    pending: RefCell<Deltas>,
}

impl EnvoyHost {
    fn new(metric_ids: Vec<Ids>) -> EnvoyHost {
        EnvoyHost { metric_ids, pending: RefCell::new(Deltas::default()) }
    }

    fn metric_id(&self, path: PathIndex, metric: Metric) -> Option<u32> {
        self.metric_ids.of(path).and_then(|ids| ids.get(metric.index())).copied().flatten()
    }
}

impl SharedStore for EnvoyHost {
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError> {
        match hostcalls::get_shared_data(key) {
            Ok((Some(value), Some(cas))) => Ok(Some((value, cas))),
            Ok((Some(value), None)) => Ok(Some((value, 0))),
            // An empty value comes back without bytes but with its token: the key exists. Read as missing, a
            // write with the missing-key token would lose every race against the key itself.
            Ok((None, Some(cas))) => Ok(Some((Vec::new(), cas))),
            Ok((None, None)) => Ok(None),
            Err(status) => Err(host_error("get_shared_data", status)),
        }
    }

    fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> Result<bool, HostError> {
        // Envoy reads a CAS token of 0 as "unconditional"; a real token is never 0.
        match hostcalls::set_shared_data(key, Some(value), cas.filter(|c| *c != 0)) {
            Ok(()) => Ok(true),
            Err(Status::CasMismatch) => Ok(false),
            Err(status) => Err(host_error("set_shared_data", status)),
        }
    }
}

impl Clock for EnvoyHost {
    /// 0 if the host cannot tell the time: a worker's clock then stands still until it can (see
    /// [`crate::clock`]), and a pause counts as over.
    fn now_ms(&self) -> u64 {
        hostcalls::get_current_time()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }

    fn now_ns(&self) -> u64 {
        hostcalls::get_current_time()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

impl Metrics for EnvoyHost {
    /// Hands the delta to Envoy at once, with the stat's kept deltas (see [`Deltas`]); kept for the next flush if
    /// Envoy refuses it.
    fn add_now(&self, path: PathIndex, metric: Metric, delta: i64) {
        let Ok(mut pending) = self.pending.try_borrow_mut() else {
            warn!("pathfence: metric update lost while metrics were being flushed: {metric:?} {delta}");
            return;
        };
        let delta = pending.now(path, metric, delta);
        if let Some(id) = self.metric_id(path, metric) {
            match hostcalls::increment_metric(id, delta) {
                Ok(()) => return,
                Err(status) => warn!("pathfence: increment_metric failed: {status:?}"),
            }
        }
        pending.add(path, metric, delta);
    }

    fn add(&self, path: PathIndex, metric: Metric, delta: i64) {
        match self.pending.try_borrow_mut() {
            Ok(mut pending) => pending.add(path, metric, delta),
            Err(_) => warn!("pathfence: metric update lost while metrics were being flushed: {metric:?} {delta}"),
        }
    }

    fn flush(&self) {
        let Ok(mut pending) = self.pending.try_borrow_mut() else { return };
        for (path, metric, delta) in pending.take_all() {
            if let Some(id) = self.metric_id(path, metric) {
                if let Err(status) = hostcalls::increment_metric(id, delta) {
                    warn!("pathfence: increment_metric failed: {status:?}");
                }
            }
        }
    }
}

/// The ids of the configuration's stats, and how many stats this VM has defined in all.
fn define_metrics(config: &Config) -> (Vec<Ids>, usize) {
    let define = |metric: Metric, name: &str| {
        let kind = if metric.is_gauge() { MetricType::Gauge } else { MetricType::Counter };
        hostcalls::define_metric(kind, name).map_err(|status| {
            warn!("pathfence: cannot define metric {name}: {status:?}");
            host_error("define_metric", status)
        })
    };
    STAT_IDS.with(|ids| match ids.try_borrow_mut() {
        Ok(mut ids) => (ids.for_config(config, define), ids.defined()),
        Err(_) => (StatIds::default().for_config(config, define), 0),
    })
}

/// The proxy as the runtime acts on it: streams resumed and refused through proxy-wasm's effective context.
struct EnvoyProxy;

impl Proxy for EnvoyProxy {
    fn set_tick_period(&self, ms: u64) -> Result<(), HostError> {
        hostcalls::set_tick_period(Duration::from_millis(ms)).map_err(|status| host_error("set_tick_period", status))
    }

    fn resume(&self, stream: u32) -> Result<(), HostError> {
        // A context Envoy no longer has cannot be made effective: the stream is gone, nothing to resume.
        if hostcalls::set_effective_context(stream).is_err() {
            return Ok(());
        }
        hostcalls::resume_http_request().map_err(|status| host_error("resume_http_request", status))
    }

    fn refuse(&self, stream: u32, refusal: &Refusal) -> Result<(), HostError> {
        if hostcalls::set_effective_context(stream).is_err() {
            return Ok(());
        }
        hostcalls::send_http_response(Refusal::STATUS, refusal.headers().to_vec(), Some(refusal.body().as_bytes()))
            .map_err(|status| host_error("send_http_response", status))
    }

    fn answer(&self, stream: u32, answer: &Answer) -> Result<(), HostError> {
        if hostcalls::set_effective_context(stream).is_err() {
            return Ok(());
        }
        hostcalls::send_http_response(
            answer.status,
            vec![("content-type", Answer::CONTENT_TYPE)],
            Some(answer.body.as_bytes()),
        )
        .map_err(|status| host_error("send_http_response", status))
    }

    /// So that the caller's later hostcalls do not act on the last stream resumed or refused.
    fn acted(&self, current: u32) {
        let _ = hostcalls::set_effective_context(current);
    }
}

type SharedRuntime = Rc<Runtime<EnvoyHost>>;

struct Root {
    id: u32,
    runtime: SharedRuntime,
}

impl Context for Root {}

impl RootContext for Root {
    fn on_configure(&mut self, _size: usize) -> bool {
        let bytes = match hostcalls::get_buffer(proxy_wasm::types::BufferType::PluginConfiguration, 0, usize::MAX) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => Vec::new(),
            Err(status) => {
                error!("pathfence: cannot read the plugin configuration: {status:?}");
                return false;
            }
        };
        self.runtime.configure(&EnvoyProxy, self.id, &bytes, |config| {
            let (metric_ids, stats_defined) = define_metrics(config);
            (EnvoyHost::new(metric_ids), stats_defined)
        })
    }

    fn on_tick(&mut self) {
        self.runtime.on_tick(&EnvoyProxy, self.id);
    }

    fn create_http_context(&self, context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Stream { id: context_id, runtime: Rc::clone(&self.runtime) }))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

struct Stream {
    id: u32,
    runtime: SharedRuntime,
}

/// The request headers of the current stream, read as bytes: a value need not be UTF-8 (the SDK's text reads
/// panic on one, which aborted the VM with every stream of its worker). Read only from the request-headers
/// callback, where Envoy has the map and answers `Ok` or `NotFound`, the only statuses the SDK does not panic on.
struct Headers;

impl Headers {
    fn get(name: &str) -> Option<Vec<u8>> {
        hostcalls::get_map_value_bytes(proxy_wasm::types::MapType::HttpRequestHeaders, name).ok().flatten()
    }
}

impl RequestView for Headers {
    fn path(&self) -> Option<Vec<u8>> {
        Headers::get(":path")
    }
    fn method(&self) -> Option<Vec<u8>> {
        Headers::get(":method")
    }
    fn header(&self, name: &str) -> Option<Vec<u8>> {
        Headers::get(name)
    }
}

/// A stream implements only the request-headers callback, and releases its slot when it is dropped. The module
/// Envoy loads exports no other per-stream callback (`trim/` removes them from the build): Envoy skips a callback
/// that is not exported, and entering the VM for ones that only return `Continue` was most of the filter's cost
/// per request. A callback implemented here must come off the trim tool's list.
impl Context for Stream {}

impl HttpContext for Stream {
    fn on_http_request_headers(&mut self, _headers: usize, _end_of_stream: bool) -> Action {
        match self.runtime.on_request(&EnvoyProxy, self.id, &Headers) {
            runtime::Headers::Continue => Action::Continue,
            runtime::Headers::Stop => Action::Pause,
        }
    }
}

/// Envoy destroys a stream's filter however the stream ended (response, reset, client disconnect, local reply)
/// and then deletes its context in the VM (`proxy_on_done`, then `proxy_on_delete`); the SDK drops the context
/// on delete, so this is the one place the slot is released, exactly once.
impl Drop for Stream {
    fn drop(&mut self) {
        self.runtime.on_stream_end(&EnvoyProxy, self.id);
    }
}
