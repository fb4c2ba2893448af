//! The thin proxy-wasm layer: implements the host traits with hostcalls and forwards Envoy's callbacks to
//! the per-worker [`Worker`]. Nothing here decides anything.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use log::{error, info, warn};
use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType, LogLevel, MetricType, Status};

use crate::classifier::{classify, RequestView};
use crate::config::Config;
use crate::deltas::Deltas;
use crate::host::{Clock, HostError, Metric, Metrics, SharedStore};
use crate::limiter::{Decision, Effect, Watch, Worker};
use crate::pace::{Pace, TickWork};
use crate::stats::{Ids, StatIds};

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Info);
    // Replaces the SDK's hook, whose own log call may itself panic: a panic aborts the VM, so say why first.
    std::panic::set_hook(Box::new(|info| {
        let _ = hostcalls::log(LogLevel::Critical, &format!("pathfence: panic: {info}"));
    }));
    proxy_wasm::set_root_context(|id| -> Box<dyn RootContext> {
        let shared = Shared {
            workers: RefCell::new(Workers::default()),
            ended_while_busy: RefCell::new(Vec::new()),
            pace: Cell::new(Pace::default()),
            unflushed_ms: Cell::new(0),
        };
        Box::new(Root { id, shared: Rc::new(shared) })
    });
}}

thread_local! {
    /// The clock and the view of other workers' heartbeats that the workers of this thread share, one worker per
    /// configuration (see [`Watch`]).
    static WATCH: OnceCell<Rc<Watch>> = const { OnceCell::new() };
}

thread_local! {
    /// The stats this thread's VM has defined, for the workers of every configuration (see [`StatIds`]).
    static STAT_IDS: RefCell<StatIds> = RefCell::new(StatIds::default());
}

fn thread_watch(wall_ms: u64) -> Rc<Watch> {
    WATCH.with(|watch| Rc::clone(watch.get_or_init(|| Rc::new(Watch::starting_at(wall_ms)))))
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

    fn flush_metrics(&self) {
        let Ok(mut pending) = self.pending.try_borrow_mut() else { return };
        for (reservation, metric, delta) in pending.take_all() {
            if let Some(id) = self.metric_id(reservation, metric) {
                if let Err(status) = hostcalls::increment_metric(id, delta) {
                    warn!("pathfence: increment_metric failed: {status:?}");
                }
            }
        }
    }

    fn metric_id(&self, reservation: usize, metric: Metric) -> Option<u32> {
        self.metric_ids.get(reservation).and_then(|ids| ids.get(metric.index())).copied().flatten()
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
}

impl Metrics for EnvoyHost {
    /// Hands the delta to Envoy at once, with the stat's kept deltas (see [`Deltas`]); kept for the next flush if
    /// Envoy refuses it.
    fn add_now(&self, reservation: usize, metric: Metric, delta: i64) {
        let Ok(mut pending) = self.pending.try_borrow_mut() else {
            warn!("pathfence: metric update lost while metrics were being flushed: {metric:?} {delta}");
            return;
        };
        let delta = pending.now(reservation, metric, delta);
        if let Some(id) = self.metric_id(reservation, metric) {
            match hostcalls::increment_metric(id, delta) {
                Ok(()) => return,
                Err(status) => warn!("pathfence: increment_metric failed: {status:?}"),
            }
        }
        pending.add(reservation, metric, delta);
    }

    fn add(&self, reservation: usize, metric: Metric, delta: i64) {
        match self.pending.try_borrow_mut() {
            Ok(mut pending) => pending.add(reservation, metric, delta),
            Err(_) => warn!("pathfence: metric update lost while metrics were being flushed: {metric:?} {delta}"),
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

/// The workers of this thread: the current one, and ones replaced by a new configuration that still hold
/// slots for streams they admitted (their ends must still release them).
#[derive(Default)]
struct Workers {
    current: Option<Worker<EnvoyHost>>,
    retired: Vec<Worker<EnvoyHost>>,
}

impl Workers {
    /// Ends stream `context` on the worker that knows it; the work that left for the tick.
    fn end(&mut self, context: u32, acts: &mut Vec<Act>) -> TickWork {
        let mut effects = Vec::new();
        let owner = self.current.iter_mut().chain(self.retired.iter_mut()).find(|w| w.tracks(context));
        let Some(worker) = owner else {
            return TickWork::None;
        };
        worker.on_stream_end(context, &mut effects);
        acts.extend(prepare(worker, effects));
        worker.tick_work()
    }

    fn tick_work(&self) -> TickWork {
        self.current.iter().chain(self.retired.iter()).map(Worker::tick_work).max().unwrap_or(TickWork::None)
    }
}

/// How often the metric deltas are flushed while the worker ticks faster than idle: every stat that changed costs a
/// hostcall, and a tick under load saw several requests change `admitted` and `active`. At the idle pace every
/// tick flushes.
const FLUSH_EVERY_MS: u64 = 10;

struct Shared {
    workers: RefCell<Workers>,
    /// Streams that ended while the workers were borrowed (it should not happen: effects are carried out after
    /// letting go); the next tick releases them, so no slot is lost.
    ended_while_busy: RefCell<Vec<u32>>,
    pace: Cell<Pace>,
    /// Time ticked since the metrics were last flushed.
    unflushed_ms: Cell<u64>,
}

impl Shared {
    /// Whether this tick flushes the metric deltas, given the pace it ran at: every 10 ms of ticking, on every
    /// idle tick, and on the tick that slows to idle (the next one is 100 ms away).
    fn flush_due(&self, ran_at: Pace) -> bool {
        let elapsed = self.unflushed_ms.get() + ran_at.period_ms();
        let due = ran_at.is_idle() || self.pace.get().is_idle() || elapsed >= FLUSH_EVERY_MS;
        self.unflushed_ms.set(if due { 0 } else { elapsed });
        due
    }

    /// Sets this thread's tick period to the pace the work left calls for.
    fn pace(&self, step: impl FnOnce(&mut Pace) -> Option<u64>) {
        let before = self.pace.get();
        let mut pace = before;
        if let Some(ms) = step(&mut pace) {
            set_tick_period(ms);
        }
        if before.is_idle() && !pace.is_idle() {
            // The last flush was at the last idle tick, up to 100 ms ago: the first faster tick flushes.
            self.unflushed_ms.set(FLUSH_EVERY_MS);
        }
        self.pace.set(pace);
    }
}

/// The root context went away (Envoy deletes it once its configuration is replaced and the last stream it
/// created has ended, or at shutdown) and every stream with it, since each holds this: what its workers still have
/// in the shared counts (spares, releases that kept losing their race, streams that ended while the workers were
/// busy) is taken out now rather than by the other workers' reclaim a lease later, and the metric deltas not yet
/// flushed are handed over, so that `active` returns to zero.
impl Drop for Shared {
    fn drop(&mut self) {
        let ended = self.ended_while_busy.try_borrow_mut().map(|mut e| std::mem::take(&mut *e)).unwrap_or_default();
        let Ok(mut workers) = self.workers.try_borrow_mut() else {
            error!("pathfence: workers busy as the filter went away; their slots wait for the reclaim");
            return;
        };
        let workers = &mut *workers;
        for context in ended {
            workers.end(context, &mut Vec::new());
        }
        let mut effects = Vec::new();
        for worker in workers.current.iter_mut().chain(workers.retired.iter_mut()) {
            worker.shut_down(&mut effects);
            worker.host().flush_metrics();
            info!("pathfence: worker {} shut down with its configuration", worker.id());
        }
        // No stream can be left to resume or refuse: each holds this.
        if !effects.is_empty() {
            warn!("pathfence: {} request(s) still waiting as the filter went away", effects.len());
        }
    }
}

fn set_tick_period(ms: u64) -> bool {
    match hostcalls::set_tick_period(Duration::from_millis(ms)) {
        Ok(()) => true,
        Err(status) => {
            error!("pathfence: cannot set the tick period to {ms} ms: {status:?}");
            false
        }
    }
}

type SharedWorkers = Rc<Shared>;

/// An effect made ready to carry out without the worker: a refusal carries its header values, taken from the
/// configuration of the worker that refused.
enum Act {
    Resume { context: u32 },
    Refuse { context: u32, retry_after: String, path: String },
}

fn prepare(worker: &Worker<EnvoyHost>, effects: Vec<Effect>) -> Vec<Act> {
    effects
        .into_iter()
        .map(|effect| match effect {
            Effect::Resume { context } => Act::Resume { context },
            Effect::Reject { context, reservation } => {
                let config = worker.config();
                let path = config.reservations.get(reservation).map(|r| r.name.clone()).unwrap_or_default();
                Act::Refuse { context, retry_after: config.retry_after_s.to_string(), path }
            }
        })
        .collect()
}

/// Carries out effects once the worker is no longer borrowed: a local reply may end the stream synchronously,
/// which calls back into the worker. `current` is the context to make effective again afterwards, so that the
/// caller's later hostcalls do not act on the last stream resumed or refused.
fn apply(acts: Vec<Act>, current: u32) {
    if acts.is_empty() {
        return;
    }
    for act in acts {
        match act {
            Act::Resume { context } => {
                if hostcalls::set_effective_context(context).is_ok() {
                    if let Err(status) = hostcalls::resume_http_request() {
                        warn!("pathfence: resume of stream {context} failed: {status:?}");
                    }
                }
            }
            Act::Refuse { context, retry_after, path } => {
                if hostcalls::set_effective_context(context).is_ok() {
                    send_refusal(&retry_after, &path);
                }
            }
        }
    }
    let _ = hostcalls::set_effective_context(current);
}

fn send_refusal(retry_after: &str, path: &str) {
    let headers = vec![("retry-after", retry_after), ("x-pathfence-path", path), ("content-type", "text/plain")];
    if let Err(status) = hostcalls::send_http_response(503, headers, Some(b"pathfence: path is over its limit\n")) {
        warn!("pathfence: local reply failed: {status:?}");
    }
}

struct Root {
    id: u32,
    shared: SharedWorkers,
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
        for warning in config.warnings() {
            warn!("pathfence configuration: {warning}");
        }
        let (metric_ids, stats_defined) = define_metrics(&config);
        let host = EnvoyHost::new(metric_ids);
        let paths = config.reservations.len();
        let watch = thread_watch(host.now_ms());
        let worker = match Worker::start_watching(host, config, watch) {
            Ok(worker) => worker,
            Err(e) => {
                error!("pathfence: cannot set up shared state: {e}");
                return false;
            }
        };
        info!(
            "pathfence: worker {} configured with {paths} reservations; stats defined on this VM: {stats_defined}",
            worker.id()
        );
        let mut acts = Vec::new();
        match self.shared.workers.try_borrow_mut() {
            Ok(mut workers) => {
                if let Some(mut old) = workers.current.replace(worker) {
                    // Its waiting and held requests would hang: the new worker does not know them.
                    let mut effects = Vec::new();
                    old.retire(&mut effects);
                    info!("pathfence: worker {} replaced; {} waiting request(s) refused", old.id(), effects.len());
                    acts = prepare(&old, effects);
                    old.host().flush_metrics();
                    workers.retired.push(old);
                }
            }
            Err(_) => {
                error!("pathfence: workers busy during on_configure; configuration not applied");
                return false;
            }
        }
        apply(acts, self.id);
        self.shared.pace.set(Pace::default());
        set_tick_period(Pace::default().period_ms())
    }

    fn on_tick(&mut self) {
        let ended = match self.shared.ended_while_busy.try_borrow_mut() {
            Ok(mut ended) => std::mem::take(&mut *ended),
            Err(_) => Vec::new(),
        };
        let mut acts = Vec::new();
        let ran_at = self.shared.pace.get();
        match self.shared.workers.try_borrow_mut() {
            Ok(mut guard) => {
                let workers = &mut *guard;
                for context in ended {
                    workers.end(context, &mut acts);
                }
                for worker in workers.current.iter_mut().chain(workers.retired.iter_mut()) {
                    let mut effects = Vec::new();
                    worker.on_tick(&mut effects);
                    acts.extend(prepare(worker, effects));
                }
                let work = workers.tick_work();
                // Paced before flushing, so that the tick that slows to idle flushes too. The effects are carried
                // out after the workers are let go; streams they end may speed the pace up again.
                self.shared.pace(|pace| pace.after_tick(work));
                if self.shared.flush_due(ran_at) {
                    workers.current.iter().for_each(|w| w.host().flush_metrics());
                }
                // A retired worker flushes on every tick: it goes away with its last stream, and its deltas with it.
                workers.retired.iter().for_each(|w| w.host().flush_metrics());
                // A retired worker stays until the last stream it admitted has ended and its tick has nothing left
                // to do (a release still to be retried would otherwise wait for the reclaim).
                workers.retired.retain(|w| w.tracked() > 0 || w.has_tick_work());
            }
            Err(_) => {
                warn!("pathfence: workers busy on tick; skipped");
                self.shared.pace(|pace| pace.after_tick(TickWork::Prompt));
            }
        }
        apply(acts, self.id);
    }

    fn create_http_context(&self, context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Stream { id: context_id, shared: Rc::clone(&self.shared) }))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

struct Stream {
    id: u32,
    shared: SharedWorkers,
}

impl Stream {
    fn end(&mut self) {
        let mut acts = Vec::new();
        let work = match self.shared.workers.try_borrow_mut() {
            Ok(mut workers) => workers.end(self.id, &mut acts),
            Err(_) => {
                warn!("pathfence: stream {} ended while the worker was busy; releasing it on the next tick", self.id);
                match self.shared.ended_while_busy.try_borrow_mut() {
                    Ok(mut ended) => ended.push(self.id),
                    Err(_) => error!("pathfence: stream {} ended unreleased; its slot waits for the reclaim", self.id),
                }
                TickWork::Prompt
            }
        };
        apply(acts, self.id);
        self.shared.pace(|pace| pace.after_event(work));
    }
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
        let mut acts = Vec::new();
        let outcome = match self.shared.workers.try_borrow_mut() {
            Ok(mut workers) => workers.current.as_mut().map(|worker| {
                let class = classify(worker.config(), &Headers);
                let mut effects = Vec::new();
                let action = match worker.on_request(self.id, class, &mut effects) {
                    Decision::Continue => Action::Continue,
                    Decision::Wait => Action::Pause,
                    Decision::Reject { reservation } => {
                        // Sent after the worker is let go: the local reply may end the stream right away.
                        effects.push(Effect::Reject { context: self.id, reservation });
                        Action::Pause
                    }
                };
                acts = prepare(worker, effects);
                (action, worker.tick_work())
            }),
            Err(_) => {
                warn!("pathfence: worker busy; stream {} let through unfenced", self.id);
                None
            }
        };
        apply(acts, self.id);
        let (action, work) = outcome.unwrap_or((Action::Continue, TickWork::None));
        self.shared.pace(|pace| pace.after_event(work));
        action
    }
}

/// Envoy destroys a stream's filter however the stream ended (response, reset, client disconnect, local reply)
/// and then deletes its context in the VM (`proxy_on_done`, then `proxy_on_delete`); the SDK drops the context
/// on delete, so this is the one place the slot is released, exactly once.
impl Drop for Stream {
    fn drop(&mut self) {
        self.end();
    }
}
