//! Real-Envoy harness of the native module: builds the module, starts Envoy 1.40 (`--concurrency 2`) without a
//! filter, with a Wasm module or with the dynamic module, and reads its stats and CPU time. The loopback upstream,
//! the HTTP clients and the bootstrap come from the Wasm filter's harness, which this one extends by the
//! dynamic-modules filter. Everything talks to 127.0.0.1 only.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/support/mod.rs"]
pub mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

pub use support::{free_port, get, quantile_ms, Client, Response, Upstream};

/// The module's file name is `lib<name>.so`, found by Envoy under `ENVOY_DYNAMIC_MODULES_SEARCH_PATH`.
pub const MODULE_NAME: &str = "pathfence_native";

pub fn native_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Envoy from `ENVOY_BIN` or the repository's `.venv`. Missing Envoy fails the test under CI and skips it elsewhere.
pub fn envoy_bin(test: &str) -> Option<PathBuf> {
    let path =
        std::env::var_os("ENVOY_BIN").map(PathBuf::from).unwrap_or_else(|| native_dir().join("../../.venv/bin/envoy"));
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

fn cargo(args: &[&str], envs: &[(&str, &str)]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(native_dir())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo {} failed", args.join(" "));
}

/// The folder holding the module's release build (as Envoy loads it), built on first use.
pub fn module_dir() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            cargo(&["build", "--release", "--locked", "--lib"], &[]);
            native_dir().join("target/release")
        })
        .clone()
}

/// A folder holding a build of the module that claims the dynamic-modules ABI `version`, as a module built
/// against another Envoy's header would. Built in the debug profile (faster), then copied aside, so that later
/// builds do not replace it.
pub fn module_claiming_abi(version: &str) -> PathBuf {
    static BUILDS: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, dir)) = builds.iter().find(|(v, _)| v == version) {
        return dir.clone();
    }
    cargo(&["build", "--locked", "--lib"], &[("PATHFENCE_NATIVE_ABI_VERSION", version)]);
    let dir = scratch_dir().join("module");
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("lib{MODULE_NAME}.so");
    std::fs::copy(native_dir().join("target/debug").join(&file), dir.join(&file)).unwrap();
    builds.push((version.to_string(), dir.clone()));
    dir
}

fn scratch_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("pathfence-native-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The HTTP filter in front of the router, if any.
#[derive(Clone, Copy)]
pub enum Filter<'a> {
    None,
    /// A proxy-wasm module and its configuration.
    Wasm(&'a Path, &'a str),
    /// The dynamic module found in a folder, its filter name and configuration.
    Native {
        dir: &'a Path,
        filter_name: &'a str,
        config: &'a str,
    },
}

/// The dynamic-modules HTTP filter of Envoy 1.40: the module by name (`lib<name>.so` under the search path), kept
/// loaded for the life of the process.
fn native_filter(filter_name: &str, config: &str) -> serde_json::Value {
    serde_json::json!({
        "name": "envoy.filters.http.dynamic_modules",
        "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.dynamic_modules.v3.DynamicModuleFilter",
            "dynamic_module_config": {"name": MODULE_NAME, "do_not_close": true},
            "filter_name": filter_name,
            "filter_config": {"@type": "type.googleapis.com/google.protobuf.StringValue", "value": config}
        }
    })
}

/// Envoy's bootstrap: the Wasm harness's listener to `upstream` (or answering every request itself without one),
/// with the native filter put in front of its router.
fn bootstrap(port: u16, admin_port: u16, upstream: Option<u16>, filter: Filter) -> String {
    let wasm = match filter {
        Filter::Wasm(module, config) => Some((module, config)),
        _ => None,
    };
    let text = match upstream {
        Some(upstream) => support::bootstrap(port, admin_port, upstream, wasm),
        None => support::answering_bootstrap(port, admin_port, wasm),
    };
    let mut bootstrap: serde_json::Value = serde_json::from_str(&text).unwrap();
    if let Filter::Native { filter_name, config, .. } = filter {
        let manager = &mut bootstrap["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0];
        let filters = manager["typed_config"]["http_filters"].as_array_mut().unwrap();
        filters.insert(0, native_filter(filter_name, config));
    }
    bootstrap.to_string()
}

/// An Envoy process, killed when dropped.
pub struct Proxy {
    child: Child,
    pub port: u16,
    pub admin_port: u16,
    pub log: PathBuf,
}

impl Proxy {
    /// Starts Envoy with `--concurrency 2` and waits until it is ready; `Err` carries its log if it exits first
    /// (as it does when a filter refuses its configuration) or is not ready within 30 s.
    pub fn start(bin: &Path, upstream: Option<u16>, filter: Filter) -> Result<Proxy, String> {
        let dir = scratch_dir();
        let (port, admin_port) = (free_port(), free_port());
        let config = dir.join("envoy.json");
        std::fs::write(&config, bootstrap(port, admin_port, upstream, filter)).unwrap();
        let log = dir.join("envoy.log");
        let mut command = Command::new(bin);
        command
            .arg("-c")
            .arg(&config)
            .args(["--concurrency", "2", "--disable-hot-restart", "-l", "info", "--drain-time-s", "1"])
            .args(["--file-flush-interval-msec", "100", "--log-path"])
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Filter::Native { dir, .. } = filter {
            command.env("ENVOY_DYNAMIC_MODULES_SEARCH_PATH", dir);
        }
        let child = command.spawn().map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let mut proxy = Proxy { child, port, admin_port, log };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = proxy.child.try_wait() {
                // The log is flushed every 100 ms: give the last lines time to land.
                thread::sleep(Duration::from_millis(200));
                return Err(format!("envoy exited with {status}:\n{}", proxy.log_text()));
            }
            if get(admin_port, "/ready", Duration::from_secs(1)).is_ok_and(|r| r.status == 200) {
                return Ok(proxy);
            }
            thread::sleep(Duration::from_millis(100));
        }
        Err(format!("envoy not ready within 30 s:\n{}", proxy.log_text()))
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The log once it holds `line` (Envoy writes it out every 100 ms), or as it is after 5 s.
    pub fn log_with(&self, line: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let log = self.log_text();
            if log.contains(line) || Instant::now() >= deadline {
                return log;
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Counters and gauges whose name contains `filter`.
    pub fn stats(&self, filter: &str) -> HashMap<String, i64> {
        let r = get(self.admin_port, &format!("/stats?filter={filter}"), Duration::from_secs(5)).unwrap();
        r.body
            .lines()
            .filter_map(|l| l.split_once(": "))
            .filter_map(|(k, v)| v.trim().parse::<i64>().ok().map(|v| (k.to_string(), v)))
            .collect()
    }

    /// Stops (`STOP`) or continues (`CONT`) the process: the benchmark stops the Envoys it is not measuring.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill").arg(format!("-{signal}")).arg(self.child.id().to_string()).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -{signal} envoy failed");
    }

    /// CPU time of all of Envoy's threads so far, in seconds, from each thread's `schedstat` (nanoseconds).
    pub fn cpu_seconds(&self) -> f64 {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id())).expect("/proc is readable");
        let on_cpu_ns = |task: std::fs::DirEntry| -> Option<u64> {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse().ok()
        };
        tasks.filter_map(|t| t.ok().and_then(on_cpu_ns)).sum::<u64>() as f64 / 1e9
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
