//! The thin proxy-wasm layer: implements the host traits with hostcalls and forwards Envoy's callbacks to
//! the per-worker [`Worker`]. Nothing here decides anything.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use log::{error, info, warn};
use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType, LogLevel, MetricType, Status};

use crate::classifier::{classify, RequestView};
use crate::config::Config;
use crate::host::{Clock, HostError, Metric, Metrics, SharedStore};
use crate::limiter::{Decision, Effect, Worker};

/// How often each worker looks for slots freed on other workers, ended pauses and expired waits, and
/// publishes its metric deltas.
const TICK: Duration = Duration::from_millis(2);

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Info);
    // Replaces the SDK's hook, whose own log call may itself panic: a panic aborts the VM, so say why first.
    std::panic::set_hook(Box::new(|info| {
        let _ = hostcalls::log(LogLevel::Critical, &format!("pathfence: panic: {info}"));
    }));
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root { worker: Rc::new(RefCell::new(None)) }) });
}}

fn host_error(what: &str, status: Status) -> HostError {
    HostError(format!("{what}: {status:?}"))
}

/// The host as seen from one worker thread: hostcalls plus the ids of the metrics defined at configure time.
struct EnvoyHost {
    metric_ids: Vec<[Option<u32>; 6]>,
    /// Metric deltas gathered between ticks: one hostcall per changed stat per tick instead of three per request.
    pending: RefCell<Vec<[i64; 6]>>,
}

impl EnvoyHost {
    fn new(config: &Config) -> EnvoyHost {
        EnvoyHost { metric_ids: define_metrics(config), pending: RefCell::new(vec![[0; 6]; config.reservations.len()]) }
    }

    fn flush_metrics(&self) {
        let Ok(mut pending) = self.pending.try_borrow_mut() else { return };
        for (reservation, deltas) in pending.iter_mut().enumerate() {
            for (index, delta) in deltas.iter_mut().enumerate() {
                if *delta == 0 {
                    continue;
                }
                if let Some(Some(id)) = self.metric_ids.get(reservation).map(|ids| ids[index]) {
                    if let Err(status) = hostcalls::increment_metric(id, *delta) {
                        warn!("pathfence: increment_metric failed: {status:?}");
                    }
                }
                *delta = 0;
            }
        }
    }
}

impl SharedStore for EnvoyHost {
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError> {
        match hostcalls::get_shared_data(key) {
            Ok((Some(value), Some(cas))) => Ok(Some((value, cas))),
            Ok((Some(value), None)) => Ok(Some((value, 0))),
            Ok((None, _)) => Ok(None),
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
    fn now_ms(&self) -> u64 {
        hostcalls::get_current_time()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

impl Metrics for EnvoyHost {
    fn add(&self, reservation: usize, metric: Metric, delta: i64) {
        let index = Metric::ALL.iter().position(|m| *m == metric).unwrap_or(0);
        if let Ok(mut pending) = self.pending.try_borrow_mut() {
            if let Some(deltas) = pending.get_mut(reservation) {
                deltas[index] += delta;
            }
        }
    }
}

fn define_metrics(config: &Config) -> Vec<[Option<u32>; 6]> {
    config
        .reservations
        .iter()
        .map(|r| {
            Metric::ALL.map(|m| {
                let kind = if m.is_gauge() { MetricType::Gauge } else { MetricType::Counter };
                let name = format!("pathfence.{}.{}", r.name, m.suffix());
                hostcalls::define_metric(kind, &name)
                    .map_err(|status| warn!("pathfence: cannot define metric {name}: {status:?}"))
                    .ok()
            })
        })
        .collect()
}

type SharedWorker = Rc<RefCell<Option<Worker<EnvoyHost>>>>;

/// Carries out effects once the worker is no longer borrowed: a local reply may end the stream synchronously,
/// which calls back into the worker.
fn apply(effects: Vec<Effect>, worker: &SharedWorker, current: Option<u32>) {
    for effect in effects {
        match effect {
            Effect::Resume { context } => {
                if hostcalls::set_effective_context(context).is_ok() {
                    if let Err(status) = hostcalls::resume_http_request() {
                        warn!("pathfence: resume of stream {context} failed: {status:?}");
                    }
                }
            }
            Effect::Reject { context, reservation } => {
                let refusal = worker.borrow().as_ref().map(|w| refusal(w.config(), reservation));
                if let Some((retry_after, path)) = refusal {
                    if hostcalls::set_effective_context(context).is_ok() {
                        send_refusal(&retry_after, &path);
                    }
                }
            }
        }
    }
    if let Some(context) = current {
        let _ = hostcalls::set_effective_context(context);
    }
}

/// [`apply`], skipping the hostcalls when there is nothing to do (the common case).
fn apply_any(effects: Vec<Effect>, worker: &SharedWorker, current: Option<u32>) {
    if !effects.is_empty() {
        apply(effects, worker, current);
    }
}

fn refusal(config: &Config, reservation: usize) -> (String, String) {
    let name = config.reservations.get(reservation).map(|r| r.name.clone()).unwrap_or_default();
    (config.retry_after_s.to_string(), name)
}

fn send_refusal(retry_after: &str, path: &str) {
    let headers = vec![("retry-after", retry_after), ("x-pathfence-path", path), ("content-type", "text/plain")];
    if let Err(status) = hostcalls::send_http_response(503, headers, Some(b"pathfence: path is over its limit\n")) {
        warn!("pathfence: local reply failed: {status:?}");
    }
}

struct Root {
    worker: SharedWorker,
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
        let config = match Config::parse(&bytes) {
            Ok(config) => config,
            Err(e) => {
                error!("{e}");
                return false;
            }
        };
        let host = EnvoyHost::new(&config);
        let paths = config.reservations.len();
        match Worker::start(host, config) {
            Ok(worker) => {
                info!("pathfence: worker {} configured with {paths} reservations", worker.id());
                *self.worker.borrow_mut() = Some(worker);
            }
            Err(e) => {
                error!("pathfence: cannot set up shared state: {e}");
                return false;
            }
        }
        if let Err(status) = hostcalls::set_tick_period(TICK) {
            error!("pathfence: cannot set the tick period: {status:?}");
            return false;
        }
        true
    }

    fn on_tick(&mut self) {
        let mut effects = Vec::new();
        if let Some(worker) = self.worker.borrow_mut().as_mut() {
            worker.on_tick(&mut effects);
            worker.host().flush_metrics();
        }
        apply_any(effects, &self.worker, None);
    }

    fn create_http_context(&self, context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Stream { id: context_id, worker: Rc::clone(&self.worker) }))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

struct Stream {
    id: u32,
    worker: SharedWorker,
}

impl Stream {
    fn end(&mut self) {
        let mut effects = Vec::new();
        if let Ok(mut guard) = self.worker.try_borrow_mut() {
            if let Some(worker) = guard.as_mut() {
                worker.on_stream_end(self.id, &mut effects);
            }
        }
        apply_any(effects, &self.worker, Some(self.id));
    }
}

struct Headers;

impl RequestView for Headers {
    fn path(&self) -> Option<String> {
        hostcalls::get_map_value(proxy_wasm::types::MapType::HttpRequestHeaders, ":path").ok().flatten()
    }
    fn method(&self) -> Option<String> {
        hostcalls::get_map_value(proxy_wasm::types::MapType::HttpRequestHeaders, ":method").ok().flatten()
    }
    fn header(&self, name: &str) -> Option<String> {
        hostcalls::get_map_value(proxy_wasm::types::MapType::HttpRequestHeaders, name).ok().flatten()
    }
}

impl Context for Stream {
    fn on_done(&mut self) -> bool {
        self.end();
        true
    }
}

impl HttpContext for Stream {
    fn on_http_request_headers(&mut self, _headers: usize, _end_of_stream: bool) -> Action {
        let mut effects = Vec::new();
        let outcome = match self.worker.try_borrow_mut() {
            Ok(mut guard) => guard.as_mut().map(|worker| {
                let class = classify(worker.config(), &Headers);
                match worker.on_request(self.id, class, &mut effects) {
                    Decision::Continue => Action::Continue,
                    Decision::Wait => Action::Pause,
                    Decision::Reject { reservation } => {
                        // Sent after the worker is let go: the local reply may end the stream right away.
                        effects.push(Effect::Reject { context: self.id, reservation });
                        Action::Pause
                    }
                }
            }),
            Err(_) => None,
        };
        apply_any(effects, &self.worker, Some(self.id));
        outcome.unwrap_or(Action::Continue)
    }

    fn on_log(&mut self) {
        self.end();
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // on_log and on_done have released already; this only matters if Envoy skipped both.
        self.end();
    }
}
