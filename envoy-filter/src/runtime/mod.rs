//! The filter's runtime on one Envoy worker thread: everything that decides between Envoy's callbacks and the
//! per-configuration [`Worker`]s, written against the host traits only, so that any binding (the proxy-wasm one in
//! `wasm.rs`, a native one) forwards the callbacks here and implements [`Host`] and [`Proxy`], and nothing more.
//!
//! It decides: which worker a stream belongs to and when a replaced worker goes away (see [`workers`]), how fast the
//! thread ticks and when the metric deltas are flushed (see [`flush`]), what becomes of a stream that ended while the
//! workers were busy, how a worker's effects turn into resumes and local replies (see [`acts`]), and what a worker
//! going away with its filter gives back.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use log::{error, info, warn};

use crate::classifier::{classify, url_path, RequestView};
use crate::config::Config;
use crate::host::{Host, Proxy};
use crate::limiter::{Decision, Effect, Watch, Worker};
use crate::pace::{Pace, TickWork};
use crate::pause::rounds::{self, Answer};

pub mod acts;
pub mod flush;
pub mod workers;

use acts::{apply, prepare};
pub use acts::{Act, Refusal};
use flush::Pacing;
use workers::Workers;

thread_local! {
    /// The clock and the view of other workers' heartbeats that the workers of this thread share, one worker per
    /// configuration (see [`Watch`]).
    static WATCH: OnceCell<Rc<Watch>> = const { OnceCell::new() };
}

/// This thread's watch, started at `wall_ms` by the thread's first worker.
pub fn thread_watch(wall_ms: u64) -> Rc<Watch> {
    WATCH.with(|watch| Rc::clone(watch.get_or_init(|| Rc::new(Watch::starting_at(wall_ms)))))
}

/// What to tell the proxy about the request whose headers just arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headers {
    Continue,
    /// Hold the stream: it is resumed or refused later (or right away, through the proxy).
    Stop,
}

/// One filter's state on one thread (one proxy-wasm root context): its workers, and the pace of its tick.
pub struct Runtime<H: Host> {
    workers: RefCell<Workers<H>>,
    /// Streams that ended while the workers were borrowed (it should not happen: effects are carried out after
    /// letting go); the next tick releases them, so no slot is lost.
    ended_while_busy: RefCell<Vec<u32>>,
    pacing: Cell<Pacing>,
    /// The URL paths (a refusal's `instance`) of the streams held, by stream, until they are resumed, refused or
    /// end: a stream refused later, on a tick, can no longer have its headers read. Only held streams are kept, and
    /// only as much of their path as a refusal repeats.
    instances: RefCell<HashMap<u32, String>>,
    /// The rounds' control path of the current configuration, kept outside the workers: a control request that comes
    /// while they are busy must still be told from an ordinary request, and answered rather than sent upstream.
    control_path: RefCell<Option<String>>,
}

impl<H: Host> Default for Runtime<H> {
    fn default() -> Runtime<H> {
        Runtime {
            workers: RefCell::new(Workers::default()),
            ended_while_busy: RefCell::new(Vec::new()),
            pacing: Cell::new(Pacing::default()),
            instances: RefCell::new(HashMap::new()),
            control_path: RefCell::new(None),
        }
    }
}

impl<H: Host> Runtime<H> {
    /// Applies a new configuration: parses `bytes`, starts a worker on the host `host_for` makes for it (with how
    /// many stats the VM has defined, for the log) and retires the worker it replaces. `false` refuses the
    /// configuration, with the reason logged. `root` is the proxy's current context, made current again after acting
    /// on the streams the old worker refuses.
    pub fn configure(
        &self,
        proxy: &dyn Proxy,
        root: u32,
        bytes: &[u8],
        host_for: impl FnOnce(&Config) -> (H, usize),
    ) -> bool {
        let config = match Config::parse(bytes) {
            Ok(config) => config,
            Err(e) => {
                error!("{e}");
                return false;
            }
        };
        for warning in config.warnings() {
            warn!("pathfence configuration: {warning}");
        }
        let control_path = config.pause.as_ref().and_then(|p| p.rounds.as_ref()).map(|r| r.control_path.clone());
        let (host, stats_defined) = host_for(&config);
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
        let acts = match self.workers.try_borrow_mut() {
            Ok(mut workers) => workers.replace(worker),
            Err(_) => {
                error!("pathfence: workers busy during on_configure; configuration not applied");
                return false;
            }
        };
        if let Ok(mut path) = self.control_path.try_borrow_mut() {
            *path = control_path;
        }
        self.apply(proxy, acts, root);
        self.pacing.set(Pacing::default());
        set_tick_period(proxy, Pace::default().period_ms())
    }

    /// The thread's tick: every worker's periodic work, the streams that ended while the workers were busy, the
    /// metric flush when due, and the retired workers that are done dropped.
    pub fn on_tick(&self, proxy: &dyn Proxy, root: u32) {
        let ended = match self.ended_while_busy.try_borrow_mut() {
            Ok(mut ended) => std::mem::take(&mut *ended),
            Err(_) => Vec::new(),
        };
        let mut acts = Vec::new();
        let ran_at = self.pacing.get().pace;
        match self.workers.try_borrow_mut() {
            Ok(mut guard) => {
                let workers = &mut *guard;
                for context in ended {
                    workers.end(context, &mut acts);
                }
                workers.tick(&mut acts);
                let work = workers.tick_work();
                // Paced before flushing, so that the tick that slows to idle flushes too. The effects are carried
                // out after the workers are let go; streams they end may speed the pace up again.
                self.pace(proxy, |pacing| pacing.after_tick(work));
                let mut pacing = self.pacing.get();
                let due = pacing.flush_due(ran_at);
                self.pacing.set(pacing);
                workers.flush(due);
                workers.drop_done();
            }
            Err(_) => {
                warn!("pathfence: workers busy on tick; skipped");
                self.pace(proxy, |pacing| pacing.after_tick(TickWork::Prompt));
            }
        }
        self.apply(proxy, acts, root);
    }

    /// The request headers of stream `stream` arrived: classified and decided by the current worker. A request
    /// that comes while the workers are busy, or before any configuration, goes through unfenced, unless it is a
    /// rounds' control request, which is answered `503` (see [`Runtime::unready_control`]). Its `:path` is read
    /// from the host once at most, however many steps look at it.
    pub fn on_request(&self, proxy: &dyn Proxy, stream: u32, request: &dyn RequestView) -> Headers {
        let request = &PathOnce::new(request);
        let mut acts = Vec::new();
        let outcome = match self.workers.try_borrow_mut() {
            Ok(mut workers) => workers.current.as_mut().map(|worker| {
                if let Some(answer) = worker.control(request) {
                    // Answered after the worker is let go, like a refusal.
                    acts = vec![Act::Answer { stream, answer }];
                    return (Headers::Stop, worker.tick_work());
                }
                let path = classify(worker.config(), request);
                let mut effects = Vec::new();
                let headers = match worker.on_request(stream, path, &mut effects) {
                    Decision::Continue => Headers::Continue,
                    Decision::Wait => Headers::Stop,
                    Decision::Reject { path, reason } => {
                        // Sent after the worker is let go: the local reply may end the stream right away.
                        effects.push(Effect::Reject { context: stream, path, reason });
                        Headers::Stop
                    }
                };
                acts = prepare(worker, effects);
                if headers == Headers::Stop {
                    // Read again only for a request held or refused, so that a request let through pays nothing.
                    self.keep_instance(stream, request);
                }
                (headers, worker.tick_work())
            }),
            Err(_) => {
                warn!("pathfence: worker busy; stream {stream} let through unfenced unless it is a round's control");
                None
            }
        };
        let outcome = outcome.or_else(|| {
            let answer = self.unready_control(request)?;
            acts = vec![Act::Answer { stream, answer }];
            Some((Headers::Stop, TickWork::None))
        });
        self.apply(proxy, acts, stream);
        let (headers, work) = outcome.unwrap_or((Headers::Continue, TickWork::None));
        self.pace(proxy, |pacing| pacing.after_event(work));
        headers
    }

    /// Stream `stream` ended, however it ended: its slot is released (once), or it leaves its queue. If the
    /// workers are busy, the next tick does it.
    pub fn on_stream_end(&self, proxy: &dyn Proxy, stream: u32) {
        let mut acts = Vec::new();
        if let Ok(mut instances) = self.instances.try_borrow_mut() {
            instances.remove(&stream);
        }
        let work = match self.workers.try_borrow_mut() {
            Ok(mut workers) => workers.end(stream, &mut acts),
            Err(_) => {
                warn!("pathfence: stream {stream} ended while the worker was busy; releasing it on the next tick");
                match self.ended_while_busy.try_borrow_mut() {
                    Ok(mut ended) => ended.push(stream),
                    Err(_) => error!("pathfence: stream {stream} ended unreleased; its slot waits for the reclaim"),
                }
                TickWork::Prompt
            }
        };
        self.apply(proxy, acts, stream);
        self.pace(proxy, |pacing| pacing.after_event(work));
    }

    /// What the workers' next tick has to do, as far as can be told now (`None` while they are busy): for a binding
    /// whose tick can stop, so that it knows whether to tick before it does.
    pub fn tick_work(&self) -> TickWork {
        self.workers.try_borrow().map(|workers| workers.tick_work()).unwrap_or(TickWork::None)
    }

    /// The `503` for a rounds' control request that no worker can take (busy, or no configuration yet): sent
    /// upstream it would reach the service, and the round's runner would take the service's answer for the
    /// filter's. Told by the last configuration's control path, or, before any, by the round's header.
    fn unready_control(&self, request: &dyn RequestView) -> Option<Answer> {
        let known = match self.control_path.try_borrow() {
            Ok(path) => match path.as_deref() {
                Some(control) => url_path(&request.path().unwrap_or_default()) == control.as_bytes(),
                None => false,
            },
            Err(_) => false,
        };
        let configured = self.workers.try_borrow().map(|w| w.current.is_some()).unwrap_or(true);
        let by_header = !configured && request.header(rounds::ROUND_HEADER).is_some();
        (known || by_header).then(|| {
            Answer::refused(503, "the filter cannot take a round now (no configuration yet, or its worker busy)")
        })
    }

    fn keep_instance(&self, stream: u32, request: &dyn RequestView) {
        let full = request.path().unwrap_or_default();
        if let Ok(mut instances) = self.instances.try_borrow_mut() {
            instances.insert(stream, acts::instance(url_path(&full)));
        }
    }

    /// Carries out `acts` (see [`acts::apply`]), each refusal with its stream's `instance`; a stream resumed or
    /// refused is no longer held, so its `instance` is dropped.
    fn apply(&self, proxy: &dyn Proxy, mut acts: Vec<Act>, current: u32) {
        if let Ok(mut instances) = self.instances.try_borrow_mut() {
            if !instances.is_empty() {
                for act in &mut acts {
                    match act {
                        Act::Resume { stream } => {
                            instances.remove(stream);
                        }
                        Act::Refuse { stream, refusal } => {
                            if let Some(instance) = instances.remove(stream) {
                                refusal.instance = instance;
                            }
                        }
                        Act::Answer { .. } => {}
                    }
                }
            }
        }
        apply(proxy, acts, current);
    }

    /// Moves the pace by `step` and sets the thread's tick period if it changed.
    fn pace(&self, proxy: &dyn Proxy, step: impl FnOnce(&mut Pacing) -> Option<u64>) {
        let mut pacing = self.pacing.get();
        if let Some(ms) = step(&mut pacing) {
            set_tick_period(proxy, ms);
        }
        self.pacing.set(pacing);
    }
}

fn set_tick_period(proxy: &dyn Proxy, ms: u64) -> bool {
    match proxy.set_tick_period(ms) {
        Ok(()) => true,
        Err(e) => {
            error!("pathfence: cannot set the tick period to {ms} ms: {e}");
            false
        }
    }
}

/// The filter went away (Envoy deletes the root context once its configuration is replaced and the last stream it
/// created has ended, or at shutdown) and every stream with it, since each holds the runtime: what its workers still
/// have in the shared counts (spares, releases that kept losing their race, streams that ended while the workers
/// were busy) is taken out now rather than by the other workers' reclaim a lease later, and the metric deltas not
/// yet flushed are handed over, so that `active` returns to zero.
impl<H: Host> Drop for Runtime<H> {
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
        for worker in workers.all_mut() {
            worker.shut_down(&mut effects);
            worker.host().flush();
            info!("pathfence: worker {} shut down with its configuration", worker.id());
        }
        // No stream can be left to resume or refuse: each holds the runtime.
        if !effects.is_empty() {
            warn!("pathfence: {} request(s) still waiting as the filter went away", effects.len());
        }
    }
}

/// A request whose `:path` is read from the host once at most: the control check, the classification and a held
/// request's instance all look at it, and every read is a hostcall.
struct PathOnce<'a> {
    request: &'a dyn RequestView,
    path: OnceCell<Option<Vec<u8>>>,
}

impl<'a> PathOnce<'a> {
    fn new(request: &'a dyn RequestView) -> PathOnce<'a> {
        PathOnce { request, path: OnceCell::new() }
    }
}

impl RequestView for PathOnce<'_> {
    fn path(&self) -> Option<Vec<u8>> {
        self.path.get_or_init(|| self.request.path()).clone()
    }
    fn method(&self) -> Option<Vec<u8>> {
        self.request.method()
    }
    fn header(&self, name: &str) -> Option<Vec<u8>> {
        self.request.header(name)
    }
}

#[cfg(test)]
mod tests;
