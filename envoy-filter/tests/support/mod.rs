//! Real-Envoy harness shared by the integration tests and the benchmark: finds Envoy and the built filter,
//! starts Envoy on free loopback ports, runs a loopback upstream with a bounded worker pool, and drives
//! load on a schedule. Everything here talks to 127.0.0.1 only, and every loop is bounded in count and time.
#![allow(dead_code, unused_macros, unused_imports, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

pub mod h2c;

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Load tests must not overlap on a 2-core machine, or they measure each other.
pub fn exclusive() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Envoy from `ENVOY_BIN` or the project's `.venv`. Missing Envoy fails the test under CI and skips it elsewhere.
pub fn envoy_bin(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("ENVOY_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_dir().join("..").join(".venv").join("bin").join("envoy"));
    if path.is_file() {
        return Some(path);
    }
    let message = format!("{test}: Envoy not found at {} (run scripts/tools.sh, or set ENVOY_BIN)", path.display());
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}; CI=true, so this is a failure, not a skip");
    }
    eprintln!("SKIPPED {message}");
    None
}

/// Which build of the filter Envoy loads: the Wasm module in `envoy.filters.http.wasm`, or the native library in
/// `envoy.filters.http.dynamic_modules`. One test source runs against both: [`both_builds!`] makes a test of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Wasm,
    Native,
}

thread_local! {
    static BUILD: Cell<Build> = const { Cell::new(Build::Wasm) };
}

/// The build the tests on this thread run against.
pub fn build() -> Build {
    BUILD.with(Cell::get)
}

/// Runs `test` against `build`.
pub fn with_build<T>(build: Build, test: impl FnOnce() -> T) -> T {
    BUILD.with(|b| b.set(build));
    test()
}

impl Build {
    /// The namespace Envoy puts ahead of the stats a filter defines (and `/stats/prometheus` leaves out).
    pub fn stat_namespace(self) -> &'static str {
        match self {
            Build::Wasm => "wasmcustom.",
            Build::Native => "dynamicmodulescustom.",
        }
    }
}

/// `fn name() { body }` as two tests, `name::wasm` and `name::native`, each running `body` against its build.
macro_rules! both_builds {
    ($(#[$meta:meta])* fn $name:ident() $body:block) => {
        $(#[$meta])*
        mod $name {
            use super::*;

            fn body() $body

            #[test]
            fn wasm() {
                with_build(Build::Wasm, body)
            }

            #[test]
            fn native() {
                with_build(Build::Native, body)
            }
        }
    };
}
pub(crate) use both_builds;

/// The filter this thread's tests load: [`wasm`] or [`native`], by [`build`].
pub fn module() -> PathBuf {
    match build() {
        Build::Wasm => wasm(),
        Build::Native => native(),
    }
}

/// The native library, built on first use (`native/`, release); `PATHFENCE_TEST_NATIVE` names another to load.
pub fn native() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(library) = std::env::var_os("PATHFENCE_TEST_NATIVE") {
                eprintln!("testing the library {} (PATHFENCE_TEST_NATIVE)", PathBuf::from(&library).display());
                return PathBuf::from(library);
            }
            cargo_in(&crate_dir().join("native"), &["build", "--release", "--locked", "--lib"]);
            crate_dir().join("native/target/release/libpathfence_native.so")
        })
        .clone()
}

/// The module Envoy loads: the release build, trimmed of the callbacks the filter does not implement, as the
/// Maven build makes it; built on first use so that `cargo test` alone also works. `PATHFENCE_TEST_WASM` names
/// another module to load instead, such as an earlier build, to check that a test fails on it.
pub fn wasm() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(module) = std::env::var_os("PATHFENCE_TEST_WASM") {
                eprintln!("testing the module {} (PATHFENCE_TEST_WASM)", PathBuf::from(&module).display());
                return PathBuf::from(module);
            }
            let built = "target/wasm32-wasip1/release/pathfence_envoy_filter.wasm";
            let trimmed = "target/pathfence_envoy_filter.wasm";
            cargo(&["build", "--release", "--locked", "--target", "wasm32-wasip1", "--lib"]);
            cargo(&["run", "--locked", "--quiet", "-p", "pathfence-wasm-trim", "--", built, trimmed]);
            crate_dir().join(trimmed)
        })
        .clone()
}

fn cargo(args: &[&str]) {
    cargo_in(&crate_dir(), args);
}

fn cargo_in(dir: &Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo).args(args).current_dir(dir).status().expect("cargo runs");
    assert!(status.success(), "cargo {} failed", args.join(" "));
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Two distinct free ports for Envoy's listener and admin: both held while the second is chosen, so the kernel
/// cannot hand out the same port twice.
fn two_free_ports() -> (u16, u16) {
    let first = TcpListener::bind("127.0.0.1:0").unwrap();
    let second = TcpListener::bind("127.0.0.1:0").unwrap();
    (first.local_addr().unwrap().port(), second.local_addr().unwrap().port())
}

fn scratch_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "pathfence-envoy-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Where Envoy looks for a native library by name: the folder of the one the tests build, or of the one
/// `PATHFENCE_TEST_NATIVE` names.
fn native_dir() -> PathBuf {
    match std::env::var_os("PATHFENCE_TEST_NATIVE") {
        Some(library) => PathBuf::from(library).parent().map(Path::to_path_buf).unwrap_or_default(),
        None => crate_dir().join("native/target/release"),
    }
}

pub struct Envoy {
    child: Child,
    pub port: u16,
    pub admin_port: u16,
    pub log: PathBuf,
}

/// The filter block for `module` (a `.so` is the native build, anything else the Wasm one) with configuration `config`: the same JSON configuration,
/// as a `StringValue`, in both. The native library is found by name in `ENVOY_DYNAMIC_MODULES_SEARCH_PATH`, which
/// [`Envoy::launch`] sets to its folder.
pub fn filter_block(module: &Path, config: &str) -> serde_json::Value {
    match module.extension().and_then(|e| e.to_str()) {
        Some("so") => serde_json::json!({
            "name": "envoy.filters.http.dynamic_modules",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.http.dynamic_modules.v3.DynamicModuleFilter",
                "dynamic_module_config": {"name": library_name(module), "do_not_close": true},
                "filter_name": "pathfence",
                "filter_config": {"@type": "type.googleapis.com/google.protobuf.StringValue", "value": config}
            }
        }),
        _ => wasm_filter(module, config),
    }
}

/// `pathfence_native` for `.../libpathfence_native.so`.
fn library_name(library: &Path) -> String {
    let stem = library.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    stem.strip_prefix("lib").unwrap_or(&stem).to_string()
}

/// The listener: everything routed to the upstream (no route timeout, like Istio's inbound routes), through the
/// filter if `filter` is set.
fn listener(port: u16, filter: Option<(&Path, &str)>) -> serde_json::Value {
    let mut http_filters = Vec::new();
    if let Some((module, config)) = filter {
        http_filters.push(filter_block(module, config));
    }
    listener_with(port, http_filters)
}

fn wasm_filter(wasm: &Path, config: &str) -> serde_json::Value {
    serde_json::json!({
        "name": "envoy.filters.http.wasm",
        "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm",
            "config": {
                "name": "pathfence",
                "root_id": "pathfence",
                "vm_config": {
                    "vm_id": "pathfence",
                    "runtime": "envoy.wasm.runtime.v8",
                    "code": {"local": {"filename": wasm.display().to_string()}}
                },
                "configuration": {
                    "@type": "type.googleapis.com/google.protobuf.StringValue",
                    "value": config
                }
            }
        }
    })
}

/// The listener with `http_filters` ahead of the router.
pub fn listener_with(port: u16, mut http_filters: Vec<serde_json::Value>) -> serde_json::Value {
    http_filters.push(serde_json::json!({
        "name": "envoy.filters.http.router",
        "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}
    }));
    serde_json::json!({
        "name": "inbound",
        "address": {"socket_address": {"address": "127.0.0.1", "port_value": port}},
        // Connections spread evenly over the two workers: the kernel's accept order can leave one worker
        // with most of a benchmark's keep-alive connections, and the run's throughput with it.
        "connection_balance_config": {"exact_balance": {}},
        "filter_chains": [{"filters": [{
            "name": "envoy.filters.network.http_connection_manager",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                "stat_prefix": "inbound",
                "route_config": {"virtual_hosts": [{
                    "name": "app", "domains": ["*"],
                    "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "app", "timeout": "0s"}}]
                }]},
                "http_filters": http_filters
            }
        }]}]
    })
}

/// The upstream cluster, with circuit breakers opened wide so only the filter limits.
fn cluster(upstream: u16) -> serde_json::Value {
    serde_json::json!({
        "name": "app",
        "type": "STATIC",
        "connect_timeout": "1s",
        "circuit_breakers": {"thresholds": [{
            "max_connections": 100000, "max_pending_requests": 100000, "max_requests": 100000
        }]},
        "load_assignment": {"cluster_name": "app", "endpoints": [{"lb_endpoints": [{"endpoint": {
            "address": {"socket_address": {"address": "127.0.0.1", "port_value": upstream}}
        }}]}]}
    })
}

/// The recipe that turns the path, the reason and the verdict in the filter's stat names into tags, so that `/stats/prometheus`
/// shows `pathfence_path_active{path="a"}` as the starter's meters do: the regexes Istio writes for
/// `extraStatTags: [path, reason, verdict]`, written out here rather than taken from the filter, so that a filter that names
/// its stats otherwise fails the tests.
pub fn stats_config() -> serde_json::Value {
    serde_json::json!({"stats_tags": [
        {"tag_name": "path", "regex": r"(path=\.=(.*?);\.;)"},
        {"tag_name": "reason", "regex": r"(reason=\.=(.*?);\.;)"},
        {"tag_name": "verdict", "regex": r"(verdict=\.=(.*?);\.;)"}
    ]})
}

/// The name `/stats` shows for a stat of path `path`: the build's namespace (`wasmcustom.`), the tags in Istio's form, and the name Prometheus
/// shows (the starter's). `kind` is `active`, `queued`, `granted`, `paused`, `rejected_queue_full` or
/// `rejected_timeout`.
pub fn stat(path: &str, kind: &str) -> String {
    let (reason, name) = match kind {
        "active" => (None, "pathfence_path_active"),
        "queued" => (None, "pathfence_path_queued"),
        "granted" => (None, "pathfence_path_granted_total"),
        "paused" => (None, "pathfence_path_paused_total"),
        "rejected_queue_full" => (Some("queue-full"), "pathfence_path_rejected_total"),
        "rejected_timeout" => (Some("timeout"), "pathfence_path_rejected_total"),
        _ => panic!("no stat {kind}"),
    };
    let namespace = build().stat_namespace();
    match reason {
        Some(reason) => format!("{namespace}path=.={path};.;reason=.={reason};.;{name}"),
        None => format!("{namespace}path=.={path};.;{name}"),
    }
}

/// The name `/stats/prometheus` shows for the contract's metric `name`. Envoy 1.40 prints the stats of a namespace
/// registered as custom without its namespace and without its own `envoy_` prefix: the Wasm extension registers
/// `wasmcustom`, so the Wasm build's stats show as the starter's meters. Envoy 1.40's dynamic modules register
/// none (not `dynamicmodulescustom`, nor a `metrics_namespace` set in the module's configuration), so the native
/// build's show as `envoy_dynamicmodulescustom_<name>`, with the same labels; the README gives the Prometheus
/// relabelling that restores the contract's names. The native tests read that name, so that a change on Envoy's side
/// shows as a failure here.
pub fn prometheus_name(name: &str) -> String {
    match build() {
        Build::Wasm => name.to_string(),
        Build::Native => format!("envoy_dynamicmodulescustom_{name}"),
    }
}

/// A `/stats?filter=` regex that picks [`stat`]`(path, kind)` (among few others).
pub fn stat_filter(path: &str, kind: &str) -> String {
    let name = stat(path, kind);
    let tail = name.rsplit(';').next().unwrap_or_default().to_string();
    format!("path=.={path};.;.*{tail}")
}

/// The Envoy bootstrap: the listener and the cluster above, both static.
pub fn bootstrap(port: u16, admin_port: u16, upstream: u16, filter: Option<(&Path, &str)>) -> String {
    serde_json::json!({
        "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": admin_port}}},
        "stats_config": stats_config(),
        "static_resources": {"listeners": [listener(port, filter)], "clusters": [cluster(upstream)]}
    })
    .to_string()
}

/// A bootstrap whose listener answers every request itself with a 200 (no upstream, no cluster), through the filter
/// if `filter` is set: what Envoy and the filter cost, without an upstream's work beside them on the machine.
pub fn answering_bootstrap(port: u16, admin_port: u16, filter: Option<(&Path, &str)>) -> String {
    let mut listener = listener(port, filter);
    let manager = &mut listener["filter_chains"][0]["filters"][0]["typed_config"];
    manager["route_config"]["virtual_hosts"][0]["routes"][0] = serde_json::json!({
        "match": {"prefix": "/"}, "direct_response": {"status": 200, "body": {"inline_string": "ok"}}
    });
    serde_json::json!({
        "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": admin_port}}},
        "stats_config": stats_config(),
        "static_resources": {"listeners": [listener]}
    })
    .to_string()
}

/// A bootstrap whose listener Envoy reads from `lds` (and reads again when the file is replaced), as a
/// control plane would push it.
fn reloadable_bootstrap(admin_port: u16, upstream: u16, lds: &Path) -> String {
    serde_json::json!({
        "node": {"id": "pathfence-test", "cluster": "pathfence-test"},
        "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": admin_port}}},
        "stats_config": stats_config(),
        "dynamic_resources": {"lds_config": {
            "path_config_source": {
                "path": lds.display().to_string(),
                "watched_directory": {"path": lds.parent().map(|d| d.display().to_string()).unwrap_or_default()}
            },
            "resource_api_version": "V3"
        }},
        "static_resources": {"clusters": [cluster(upstream)]}
    })
    .to_string()
}

fn listener_resources(port: u16, filter: (&Path, &str)) -> String {
    let mut listener = listener(port, Some(filter));
    listener["@type"] = "type.googleapis.com/envoy.config.listener.v3.Listener".into();
    serde_json::json!({"resources": [listener]}).to_string()
}

impl Envoy {
    /// Starts Envoy with `--concurrency 2`; `Err` carries its log if it exits or is not ready within 30 s.
    pub fn start(bin: &Path, upstream: u16, filter: Option<&str>) -> Result<Envoy, String> {
        let module = module();
        Envoy::start_with(bin, upstream, filter.map(|f| (module.as_path(), f)))
    }

    /// Starts Envoy with the given module and filter configuration, if any.
    pub fn start_with(bin: &Path, upstream: u16, filter: Option<(&Path, &str)>) -> Result<Envoy, String> {
        Envoy::launch(bin, &scratch_dir(), |port, admin_port| bootstrap(port, admin_port, upstream, filter))
    }

    /// Starts Envoy with the filter and the given `failure_policy` of the Wasm plugin (`FAIL_CLOSED`, Envoy's
    /// default, or `FAIL_OPEN`): what Envoy does with the streams of a VM that failed. A dynamic module has no VM
    /// that can fail apart from Envoy, and no such policy: the native build starts as [`Envoy::start`] does.
    pub fn start_with_policy(bin: &Path, upstream: u16, filter: &str, failure_policy: &str) -> Result<Envoy, String> {
        if build() == Build::Native {
            return Envoy::start(bin, upstream, Some(filter));
        }
        let wasm = wasm();
        Envoy::launch(bin, &scratch_dir(), |port, admin_port| {
            let mut config: serde_json::Value =
                serde_json::from_str(&bootstrap(port, admin_port, upstream, Some((wasm.as_path(), filter)))).unwrap();
            let manager = &mut config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0];
            manager["typed_config"]["http_filters"][0]["typed_config"]["config"]["failure_policy"] =
                failure_policy.into();
            config.to_string()
        })
    }

    /// Starts Envoy answering every request itself ([`answering_bootstrap`]), with the given module and filter
    /// configuration, if any.
    pub fn start_answering(bin: &Path, filter: Option<(&Path, &str)>) -> Result<Envoy, String> {
        Envoy::launch(bin, &scratch_dir(), |port, admin_port| answering_bootstrap(port, admin_port, filter))
    }

    /// Starts Envoy as [`Envoy::start_with`] does (or as [`Envoy::start_answering`] does without `upstream`), with
    /// the filter `filter_name` of the native `library` configured with `config`.
    pub fn start_native_filter(
        bin: &Path,
        upstream: Option<u16>,
        library: &Path,
        filter_name: &str,
        config: &str,
    ) -> Result<Envoy, String> {
        Envoy::launch(bin, &scratch_dir(), |port, admin_port| {
            let filter = Some((library, config));
            let bootstrap = match upstream {
                Some(upstream) => bootstrap(port, admin_port, upstream, filter),
                None => answering_bootstrap(port, admin_port, filter),
            };
            let mut config: serde_json::Value = serde_json::from_str(&bootstrap).unwrap();
            let manager = &mut config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0];
            manager["typed_config"]["http_filters"][0]["typed_config"]["filter_name"] = filter_name.into();
            config.to_string()
        })
    }

    /// Starts Envoy with the filter's listener in a file it watches, so that [`Envoy::reconfigure`] can replace
    /// the filter's configuration as a control plane would. A replaced listener drains for a second.
    pub fn start_reloadable(bin: &Path, upstream: u16, filter: &str) -> Result<Envoy, String> {
        let dir = scratch_dir();
        // A folder of its own: Envoy watches it, and the log is written next door.
        let lds = dir.join("lds").join("listeners.json");
        std::fs::create_dir_all(dir.join("lds")).unwrap();
        Envoy::launch(bin, &dir, |port, admin_port| {
            std::fs::write(&lds, listener_resources(port, (module().as_path(), filter))).unwrap();
            reloadable_bootstrap(admin_port, upstream, &lds)
        })
    }

    /// Replaces the filter's configuration of an Envoy from [`Envoy::start_reloadable`] (by renaming a new
    /// file over the watched one, as Envoy expects) and waits until Envoy has applied it.
    pub fn reconfigure(&self, filter: &str) -> Result<(), String> {
        let Some(dir) = self.log.parent().map(|d| d.join("lds")) else {
            return Err("no scratch directory".to_string());
        };
        let modified = |e: &Envoy| e.stats("listener_manager.listener_modified").values().sum::<i64>();
        let before = modified(self);
        let staged = dir.join("listeners.next");
        std::fs::write(&staged, listener_resources(self.port, (module().as_path(), filter))).unwrap();
        std::fs::rename(&staged, dir.join("listeners.json")).unwrap();
        if eventually(Duration::from_secs(10), || modified(self) > before) {
            Ok(())
        } else {
            Err(format!("Envoy did not apply the new listener:\n{}", self.log_text()))
        }
    }

    /// Launches Envoy with the configuration `config` makes for a listener port and an admin port. The ports are
    /// free when chosen but may be taken by another test before Envoy binds them: then Envoy exits saying so and
    /// is launched again on other ports, a few times at most.
    fn launch(bin: &Path, dir: &Path, config: impl Fn(u16, u16) -> String) -> Result<Envoy, String> {
        let mut attempt = 0;
        loop {
            let (port, admin_port) = two_free_ports();
            match Envoy::launch_on(bin, dir, port, admin_port, config(port, admin_port)) {
                Err(log) if attempt < 3 && log.contains("ddress already in use") => attempt += 1,
                launched => return launched,
            }
        }
    }

    fn launch_on(bin: &Path, dir: &Path, port: u16, admin_port: u16, config: String) -> Result<Envoy, String> {
        let config_path = dir.join("envoy.json");
        std::fs::write(&config_path, config).unwrap();
        let log = dir.join("envoy.log");
        let native = native_dir();
        let child = Command::new(bin)
            .env("ENVOY_DYNAMIC_MODULES_SEARCH_PATH", native)
            .arg("-c")
            .arg(&config_path)
            .args(["--concurrency", "2", "--disable-hot-restart", "-l", "info", "--drain-time-s", "1"])
            .args(["--drain-strategy", "immediate", "--file-flush-interval-msec", "100", "--log-path"])
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let mut envoy = Envoy { child, port, admin_port, log };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = envoy.child.try_wait() {
                return Err(format!("envoy exited with {status}:\n{}", envoy.log_text()));
            }
            if let Ok(r) = get(admin_port, "/ready", Duration::from_secs(1)) {
                if r.status == 200 {
                    return Ok(envoy);
                }
            }
            thread::sleep(Duration::from_millis(100));
        }
        Err(format!("envoy not ready within 30 s:\n{}", envoy.log_text()))
    }

    /// Stops (`STOP`) or continues (`CONT`) the Envoy process. The benchmark stops the Envoy it is not measuring:
    /// an idle Envoy still runs its timers, the filter's tick among them, and they take CPU from the other.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill").arg(format!("-{signal}")).arg(self.child.id().to_string()).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -{signal} envoy failed");
    }

    /// CPU time Envoy's threads have used so far, in seconds: from each thread's `schedstat` (nanoseconds), else
    /// from the process's `stat` (user + system, in 10 ms ticks, too coarse for a few thousand requests); 0 where
    /// /proc is missing. Envoy's threads live as long as it does, so none drops out of the sum.
    pub fn cpu_seconds(&self) -> f64 {
        let pid = self.child.id();
        let on_cpu_ns = |task: std::fs::DirEntry| -> Option<u64> {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse().ok()
        };
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
            let ns: Vec<u64> = tasks.filter_map(|t| t.ok().and_then(on_cpu_ns)).collect();
            if !ns.is_empty() {
                return ns.iter().sum::<u64>() as f64 / 1e9;
            }
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields: Vec<&str> =
            stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
        let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; USER_HZ is 100 on Linux.
        (ticks(11) + ticks(12)) / 100.0
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Stats whose name contains `filter`, as name -> value (histograms left out).
    pub fn stats(&self, filter: &str) -> HashMap<String, i64> {
        let r = get(self.admin_port, &format!("/stats?filter={filter}"), Duration::from_secs(5)).unwrap();
        r.body
            .lines()
            .filter_map(|l| l.split_once(": "))
            // A gauge is unsigned in Envoy: one taken below zero reads near 2^64, and shows here as the negative
            // number it is rather than going missing.
            .filter_map(|(k, v)| v.trim().parse::<u64>().ok().map(|v| (k.to_string(), v as i64)))
            .collect()
    }

    /// Downstream connections open on each worker of the listener, in worker order.
    pub fn connections_per_worker(&self) -> Vec<i64> {
        let mut workers: Vec<(String, i64)> = self
            .stats(&format!("listener.127.0.0.1_{}.worker_", self.port))
            .into_iter()
            .filter(|(k, _)| k.ends_with(".downstream_cx_active"))
            .collect();
        workers.sort();
        workers.into_iter().map(|(_, v)| v).collect()
    }

    pub fn prometheus(&self) -> String {
        get(self.admin_port, "/stats/prometheus", Duration::from_secs(5)).unwrap().body
    }

    /// The `/stats/prometheus` samples of metric `name` (`pathfence_path_active`) under this build's
    /// [`prometheus_name`], as labels -> value, the labels as printed (`path="a",reason="timeout"`).
    pub fn prometheus_samples(&self, name: &str) -> HashMap<String, i64> {
        let name = prometheus_name(name);
        self.prometheus()
            .lines()
            .filter_map(|line| line.strip_prefix(name.as_str())?.strip_prefix('{'))
            .filter_map(|rest| rest.split_once("} "))
            .filter_map(|(labels, value)| Some((labels.to_string(), value.trim().parse::<f64>().ok()? as i64)))
            .collect()
    }
}

impl Drop for Envoy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Reads one HTTP/1.1 response (Content-Length or read-to-close bodies).
fn read_response(reader: &mut BufReader<TcpStream>) -> std::io::Result<Response> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bad status line {line:?}")))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let length = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse::<usize>().ok());
    let mut body = Vec::new();
    match length {
        Some(n) => {
            body.resize(n, 0);
            reader.read_exact(&mut body)?;
        }
        None => {
            reader.read_to_end(&mut body)?;
        }
    }
    Ok(Response { status, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

/// One request on a fresh connection.
pub fn get(port: u16, path: &str, timeout: Duration) -> std::io::Result<Response> {
    let stream = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.set_nodelay(true)?;
    (&stream).write_all(format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes())?;
    read_response(&mut BufReader::new(stream))
}

/// A keep-alive client connection, for the benchmark.
pub struct Client {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Client {
    pub fn connect(port: u16) -> std::io::Result<Client> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        Ok(Client { writer: stream.try_clone()?, reader: BufReader::new(stream) })
    }

    pub fn get(&mut self, path: &str) -> std::io::Result<u16> {
        self.writer.write_all(format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes())?;
        Ok(read_response(&mut self.reader)?.status)
    }

    /// Writes a request as given, byte for byte, without waiting for the answer.
    pub fn write_raw(&mut self, request: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(request)
    }

    /// Reads the next response on the connection.
    pub fn read(&mut self) -> std::io::Result<Response> {
        read_response(&mut self.reader)
    }
}

/// A loopback HTTP/1.1 server. With `workers`, requests run on a fixed pool of that many threads, like a
/// thread-per-request service: a request that stalls holds a worker, and the others queue behind it.
pub struct Upstream {
    pub port: u16,
    stop: Arc<AtomicBool>,
    accept: Option<thread::JoinHandle<()>>,
    in_flight: Arc<InFlight>,
}

type Job = (TcpStream, String);

/// Requests being served, per first path segment: now and at most.
#[derive(Default)]
struct InFlight(Mutex<HashMap<String, (usize, usize)>>);

impl InFlight {
    fn segment(path: &str) -> String {
        path.split('/').nth(1).unwrap_or("").to_string()
    }

    fn enter(&self, path: &str) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let e = m.entry(Self::segment(path)).or_default();
        e.0 += 1;
        e.1 = e.1.max(e.0);
    }

    fn leave(&self, path: &str) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = m.get_mut(&Self::segment(path)) {
            e.0 = e.0.saturating_sub(1);
        }
    }
}

impl Upstream {
    pub fn start(workers: Option<usize>, service_time: fn(&str) -> Duration) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let in_flight = Arc::new(InFlight::default());
        let pool = workers.map(|n| {
            let (tx, rx) = mpsc::channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            for _ in 0..n {
                let (rx, stop, in_flight) = (Arc::clone(&rx), Arc::clone(&stop), Arc::clone(&in_flight));
                thread::spawn(move || loop {
                    let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((stream, path)) = job else { return };
                    in_flight.enter(&path);
                    // Left before the answer is written: once written, Envoy may see the response end and
                    // admit the path's next request to another worker before this one gets to count itself
                    // out, which would read as one thread more than the path ever held.
                    serve(stream, &path, service_time, &stop, || in_flight.leave(&path));
                });
            }
            tx
        });
        let accept_stop = Arc::clone(&stop);
        let accept = thread::spawn(move || {
            for conn in listener.incoming() {
                if accept_stop.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(conn) = conn else { continue };
                let _ = conn.set_nodelay(true);
                let (pool, stop) = (pool.clone(), Arc::clone(&accept_stop));
                thread::Builder::new()
                    .stack_size(128 * 1024)
                    .spawn(move || connection(conn, pool, service_time, stop))
                    .ok();
            }
        });
        Upstream { port, stop, accept: Some(accept), in_flight }
    }

    /// The most requests under `/<segment>` that the worker pool served at once (pooled upstreams only).
    pub fn max_in_flight(&self, segment: &str) -> usize {
        self.in_flight.0.lock().unwrap_or_else(|e| e.into_inner()).get(segment).map(|e| e.1).unwrap_or(0)
    }
}

fn connection(
    conn: TcpStream,
    pool: Option<mpsc::Sender<Job>>,
    service_time: fn(&str) -> Duration,
    stop: Arc<AtomicBool>,
) {
    let Ok(read_half) = conn.try_clone() else { return };
    let mut reader = BufReader::new(read_half);
    // Read as bytes: a test may send a request line or header that is not UTF-8, and Envoy passes it on.
    let mut bytes = Vec::new();
    let mut read_line = |reader: &mut BufReader<TcpStream>| -> Option<String> {
        bytes.clear();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        }
    };
    loop {
        let Some(line) = read_line(&mut reader) else { return };
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        let mut length = 0usize;
        loop {
            let Some(line) = read_line(&mut reader) else { return };
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let Ok(out) = conn.try_clone() else { return };
        match &pool {
            Some(pool) => {
                if pool.send((out, path)).is_err() {
                    return;
                }
            }
            None => serve(out, &path, service_time, &stop, || {}),
        }
    }
}

/// Serves one request: waits its service time, calls `done`, then answers.
fn serve(mut out: TcpStream, path: &str, service_time: fn(&str) -> Duration, stop: &AtomicBool, done: impl FnOnce()) {
    let until = Instant::now() + service_time(path);
    while Instant::now() < until && !stop.load(Ordering::Relaxed) {
        thread::sleep((until - Instant::now()).min(Duration::from_millis(5)));
    }
    done();
    let _ = out.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-type: text/plain\r\n\r\nok\n");
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port)).map(|s| s.shutdown(Shutdown::Both));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub path: String,
    /// 0 when the request failed or timed out.
    pub status: u16,
    pub fenced_path: Option<String>,
    /// The `retry-after` header, set on the filter's refusals.
    pub retry_after: Option<String>,
    /// From the intended send time, so a late send counts against the system, not the load generator.
    pub latency: Duration,
}

/// Open-loop load: each `(path, offset)` is sent at its offset from the start on its own connection,
/// whether or not earlier requests were answered. Bounded by the schedule and `timeout` per request.
pub fn open_loop(port: u16, schedule: &[(String, Duration)], timeout: Duration) -> Vec<Outcome> {
    let start = Instant::now() + Duration::from_millis(20);
    let results = Arc::new(Mutex::new(Vec::with_capacity(schedule.len())));
    let mut handles = Vec::with_capacity(schedule.len());
    for (path, offset) in schedule {
        let intended = start + *offset;
        let now = Instant::now();
        if intended > now {
            thread::sleep(intended - now);
        }
        let (path, results) = (path.clone(), Arc::clone(&results));
        let handle = thread::Builder::new().stack_size(128 * 1024).spawn(move || {
            let outcome = match get(port, &path, timeout) {
                Ok(r) => Outcome {
                    path: path.clone(),
                    status: r.status,
                    fenced_path: r.header("x-pathfence-path").map(str::to_string),
                    retry_after: r.header("retry-after").map(str::to_string),
                    latency: intended.elapsed(),
                },
                Err(_) => Outcome {
                    path: path.clone(),
                    status: 0,
                    fenced_path: None,
                    retry_after: None,
                    latency: intended.elapsed(),
                },
            };
            results.lock().unwrap().push(outcome);
        });
        handles.extend(handle.ok());
    }
    for h in handles {
        let _ = h.join();
    }
    Arc::try_unwrap(results).map(|m| m.into_inner().unwrap()).unwrap_or_default()
}

/// `rate` requests per second to each path in `paths`, interleaved, for `duration`.
pub fn constant_rate(paths: &[&str], rate: u32, duration: Duration) -> Vec<(String, Duration)> {
    let interval = Duration::from_secs(1) / rate;
    let count = (duration.as_secs_f64() * f64::from(rate)) as u32;
    let mut schedule = Vec::new();
    for i in 0..count {
        for (k, p) in paths.iter().enumerate() {
            let skew = interval * k as u32 / paths.len() as u32;
            schedule.push((p.to_string(), interval * i + skew));
        }
    }
    schedule
}

/// The q-quantile (0..=1) of the latencies, in milliseconds.
pub fn quantile_ms(latencies: &[Duration], q: f64) -> f64 {
    if latencies.is_empty() {
        return f64::NAN;
    }
    let mut v: Vec<f64> = latencies.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * q).round() as usize;
    v[i.min(v.len() - 1)]
}

/// Polls `check` every 100 ms until it holds or `limit` passes; returns whether it held.
pub fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(100));
    }
}
