//! Benchmark, not a test: what the number of configured paths costs Envoy (`--concurrency 2`) while one request
//! waits. Path p0 (of N paths, one slot each) holds its slot with a request the upstream stalls, and a second
//! request of p0 waits for it the whole run, so the workers tick at the prompt pace; path p1 meanwhile gets a light
//! paced load. Measured: Envoy's CPU (share of one core) and p1's median and p99 latency, for each number of
//! paths, and for two builds side by side when `PATHFENCE_BENCH_AGAINST=<module.wasm>` names the other one.
//!
//! Run with `bench/many_paths.sh [seconds per run] [paths...]` (default: 10 s; 2, 2000 and 10000 paths), which
//! builds the module first.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use support::*;

/// p1's load: a request every 20 ms on one keep-alive connection.
const PACE: Duration = Duration::from_millis(20);
/// Longer than any run: p0's first request holds its slot throughout, and its second waits throughout.
const HOLD: Duration = Duration::from_secs(120);

fn service_time(path: &str) -> Duration {
    if path.starts_with("/p0/") {
        HOLD
    } else {
        Duration::ZERO
    }
}

/// N paths `p0`..: prefix `/p<i>/`, one slot, a wait of up to a minute.
fn config(paths: usize) -> String {
    let paths: Vec<String> = (0..paths)
        .map(|i| {
            format!(
                r#"{{"name": "p{i}", "match": {{"prefix": "/p{i}/"}}, "max_concurrency": 1, "queue_timeout_ms": 60000}}"#
            )
        })
        .collect();
    format!(r#"{{"paths": [{}]}}"#, paths.join(","))
}

struct Measure {
    cpu_share: f64,
    p50_ms: f64,
    p99_ms: f64,
    answered: usize,
}

/// One run: a fresh Envoy with `module`, p0's slot held and one request waiting for it, then `seconds` of p1's load.
fn run(bin: &Path, upstream: u16, module: &Path, paths: usize, seconds: u64) -> Measure {
    let config = config(paths);
    let envoy = Envoy::start_with(bin, upstream, Some((module, &config))).unwrap();
    let port = envoy.port;
    // The holder, then the waiter: on their own connections, left open until the run ends.
    let holder = thread::spawn(move || get(port, "/p0/hold", HOLD).map(|r| r.status));
    thread::sleep(Duration::from_millis(300));
    let waiter = thread::spawn(move || get(port, "/p0/wait", HOLD).map(|r| r.status));
    let waiting = eventually(Duration::from_secs(5), || {
        envoy.stats(&stat_filter("p0", "queued")).get(&stat("p0", "queued")) == Some(&1)
    });
    assert!(waiting, "no request of p0 waits: {:?}", envoy.stats("pathfence"));
    let mut client = Client::connect(port).unwrap();
    for _ in 0..20 {
        assert_eq!(client.get("/p1/x").unwrap(), 200);
    }
    let cpu_before = envoy.cpu_seconds();
    let start = Instant::now();
    let mut latencies = Vec::new();
    let mut next = start;
    while start.elapsed() < Duration::from_secs(seconds) {
        let now = Instant::now();
        if next > now {
            thread::sleep(next - now);
        }
        let sent = Instant::now();
        if client.get("/p1/x").is_ok_and(|status| status == 200) {
            latencies.push(sent.elapsed());
        }
        next += PACE;
    }
    let cpu_share = (envoy.cpu_seconds() - cpu_before) / start.elapsed().as_secs_f64();
    drop(envoy);
    // Envoy went away with their connections.
    let _ = (holder.join(), waiter.join());
    Measure {
        cpu_share,
        p50_ms: quantile_ms(&latencies, 0.5),
        p99_ms: quantile_ms(&latencies, 0.99),
        answered: latencies.len(),
    }
}

fn main() {
    let bin = envoy_bin("many_paths").expect("Envoy is needed (scripts/tools.sh)");
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().map_or(10, |s| s.parse().expect("seconds per run"));
    let counts: Vec<usize> = args.map(|s| s.parse().expect("a number of paths")).collect();
    let counts = if counts.is_empty() { vec![2, 2000, 10_000] } else { counts };
    let mut modules: Vec<(String, PathBuf)> = Vec::new();
    if let Some(other) = std::env::var_os("PATHFENCE_BENCH_AGAINST") {
        modules.push((format!("other build ({})", PathBuf::from(&other).display()), PathBuf::from(other)));
    }
    modules.push(("this build".to_string(), wasm()));
    let upstream = Upstream::start(None, service_time);
    println!("| paths | build | Envoy CPU (share of a core) | p1 median (ms) | p1 p99 (ms) | p1 requests |");
    println!("|---:|---|---:|---:|---:|---:|");
    for paths in counts {
        for (name, module) in &modules {
            let m = run(&bin, upstream.port, module, paths, seconds);
            println!(
                "| {paths} | {name} | {:.1} % | {:.2} | {:.2} | {} |",
                m.cpu_share * 100.0,
                m.p50_ms,
                m.p99_ms,
                m.answered
            );
        }
    }
}
