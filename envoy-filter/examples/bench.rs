//! Benchmark, not a test: requests through Envoy (`--concurrency 2`) to a loopback upstream that answers at
//! once, with and without the filter, side by side in one run, at a moderate and at a saturating load.
//!
//! Run with `bench/run.sh [seconds per run] [rounds]` (or `cargo run --release --example bench -- ...`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use support::*;

/// Every request goes through classification, slot bookkeeping (a spare slot of its worker, or a shared
/// compare-and-swap) and the metric updates: the filter's whole per-request path, with limits that never bind.
/// The lease outlasts the longest run, during which the bench keeps this Envoy stopped while it measures the other.
const CONFIG: &str = r#"{
  "paths": [
    {"name": "orders", "match": {"prefix": "/orders"}, "max_concurrency": 10000},
    {"name": "catalog", "match": {"prefix": "/catalog"}, "max_concurrency": 10000}
  ],
  "worker_lease_ms": 120000
}"#;
const PATH: &str = "/catalog/item/42";
const SATURATING_CONNECTIONS: usize = 32;
const MODERATE_CONNECTIONS: usize = 16;

struct Measure {
    /// Envoy's CPU time per request, in microseconds: far less sensitive to other work on the machine than
    /// latency is.
    cpu_us: f64,
    throughput: f64,
    p50_us: f64,
    p99_us: f64,
    errors: usize,
}

/// Closed loop: every connection sends its next request as soon as the last one is answered.
fn saturating(port: u16, seconds: u64) -> Measure {
    run(port, seconds, SATURATING_CONNECTIONS, None)
}

/// Paced: `rate` requests per second spread over the connections, latency from each intended send time.
fn moderate(port: u16, seconds: u64, rate: f64) -> Measure {
    run(port, seconds, MODERATE_CONNECTIONS, Some(rate))
}

fn run(port: u16, seconds: u64, connections: usize, rate: Option<f64>) -> Measure {
    // Warm up the connections and Envoy's upstream pool.
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let handles: Vec<_> = (0..connections)
        .map(|i| {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                let mut client = Client::connect(port).unwrap();
                for _ in 0..20 {
                    let _ = client.get(PATH);
                }
                let interval = rate.map(|r| Duration::from_secs_f64(connections as f64 / r));
                let phase = interval.map(|iv| iv * i as u32 / connections as u32).unwrap_or_default();
                let mut latencies = Vec::with_capacity(1 << 16);
                let mut errors = 0usize;
                let mut n: u32 = 0;
                let t0 = Instant::now() + Duration::from_millis(50) + phase;
                loop {
                    let intended = match interval {
                        Some(iv) => t0 + iv * n,
                        None => Instant::now(),
                    };
                    if intended >= end || stop.load(Ordering::Relaxed) || n >= 5_000_000 {
                        break;
                    }
                    let now = Instant::now();
                    if intended > now {
                        thread::sleep(intended - now);
                    }
                    match client.get(PATH) {
                        Ok(200) => latencies.push(intended.elapsed()),
                        _ => {
                            errors += 1;
                            client = match Client::connect(port) {
                                Ok(c) => c,
                                Err(_) => break,
                            };
                        }
                    }
                    n += 1;
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for h in handles {
        let (l, e) = h.join().unwrap();
        latencies.extend(l);
        errors += e;
    }
    stop.store(true, Ordering::Relaxed);
    let elapsed = (Instant::now().min(end) - start).as_secs_f64() - 0.05;
    Measure {
        cpu_us: 0.0,
        throughput: latencies.len() as f64 / elapsed,
        p50_us: quantile_ms(&latencies, 0.5) * 1000.0,
        p99_us: quantile_ms(&latencies, 0.99) * 1000.0,
        errors,
    }
}

fn row(load: &str, variant: &str, m: &Measure) {
    println!(
        "| {load:<18} | {variant:<14} | {:>12.0} | {:>8.0} | {:>8.0} | {:>14.1} | {:>6} |",
        m.throughput, m.p50_us, m.p99_us, m.cpu_us, m.errors
    );
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next().map(str::to_string)).unwrap_or_default()
}

fn cores() -> usize {
    thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Medians over the rounds, so that a burst of background load in one round does not decide the result.
fn summary(runs: &[Measure]) -> Measure {
    Measure {
        cpu_us: median(runs.iter().map(|m| m.cpu_us).collect()),
        throughput: median(runs.iter().map(|m| m.throughput).collect()),
        p50_us: median(runs.iter().map(|m| m.p50_us).collect()),
        p99_us: median(runs.iter().map(|m| m.p99_us).collect()),
        errors: runs.iter().map(|m| m.errors).sum(),
    }
}

/// What a round needs to start its two Envoys.
struct Setup {
    bin: std::path::PathBuf,
    upstream: u16,
    config: String,
    /// Another build of the filter in place of "without filter" (PATHFENCE_BENCH_AGAINST).
    against: Option<std::path::PathBuf>,
}

/// The two variants of one round, each in a fresh Envoy process. A process keeps its own speed for its life
/// (where V8 placed the module's code, how the kernel placed its memory): two processes running the same module
/// differed by a few per cent, so every round starts new ones and the median is taken over rounds.
struct Pair {
    plain: Envoy,
    fenced: Envoy,
}

impl Pair {
    fn start(setup: &Setup) -> Pair {
        let against = setup.against.as_deref().map(|m| (m, setup.config.as_str()));
        let plain = Envoy::start_with(&setup.bin, setup.upstream, against).unwrap();
        let fenced = Envoy::start(&setup.bin, setup.upstream, Some(&setup.config)).unwrap();
        Pair { plain, fenced }
    }

    fn envoy(&self, with_filter: bool) -> &Envoy {
        if with_filter {
            &self.fenced
        } else {
            &self.plain
        }
    }

    /// One measurement, with Envoy's CPU time per request taken from /proc around it. Only the Envoy measured
    /// runs: the other's timers (the filter's tick, if it has one) would take CPU from it.
    fn measure(&self, with_filter: bool, seconds: u64, run: &dyn Fn(u16) -> Measure) -> Measure {
        let e = self.envoy(with_filter);
        self.envoy(!with_filter).signal("STOP");
        e.signal("CONT");
        let cpu = e.cpu_seconds();
        let mut m = run(e.port);
        let requests = m.throughput * seconds as f64;
        m.cpu_us = (e.cpu_seconds() - cpu) * 1e6 / requests.max(1.0);
        self.envoy(!with_filter).signal("CONT");
        m
    }
}

/// Runs `rounds` rounds, each on a fresh pair of Envoys, alternating which variant goes first; returns
/// (without, with, per-round differences, requests the filter admitted).
fn compare(rounds: usize, setup: &Setup, seconds: u64, run: &dyn Fn(u16) -> Measure) -> (Measure, Measure, Deltas, i64) {
    let (mut plain, mut fenced) = (Vec::new(), Vec::new());
    let mut admitted = 0;
    for round in 0..rounds {
        let pair = Pair::start(setup);
        for with_filter in [round % 2 == 1, round % 2 == 0] {
            let m = pair.measure(with_filter, seconds, run);
            if with_filter { fenced.push(m) } else { plain.push(m) }
        }
        // The filter reports its counters on its next tick.
        thread::sleep(Duration::from_millis(20));
        admitted += pair.fenced.stats("pathfence.catalog.admitted").values().sum::<i64>();
    }
    let ratios: Vec<f64> = plain.iter().zip(&fenced).map(|(p, f)| f.throughput / p.throughput).collect();
    let ratio = median(ratios.clone());
    let added = median(plain.iter().zip(&fenced).map(|(p, f)| f.p50_us - p.p50_us).collect());
    let cpu = median(plain.iter().zip(&fenced).map(|(p, f)| f.cpu_us - p.cpu_us).collect());
    (summary(&plain), summary(&fenced), Deltas { ratio, added, cpu, ratios }, admitted)
}

/// Per-round differences, with filter against without, medianed over the rounds.
struct Deltas {
    ratio: f64,
    /// Every round's throughput ratio, printed so that the spread behind the median shows.
    ratios: Vec<f64>,
    added: f64,
    cpu: f64,
}

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3).clamp(1, 60);
    let rounds: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(5).clamp(1, 20);
    let Some(bin) = envoy_bin("bench") else { std::process::exit(2) };
    let upstream = Upstream::start(None, |_| Duration::ZERO);
    // PATHFENCE_BENCH_CONFIG swaps in another filter configuration, to see where the cost goes.
    let config = std::env::var("PATHFENCE_BENCH_CONFIG").unwrap_or_else(|_| CONFIG.to_string());
    // PATHFENCE_BENCH_AGAINST=<module.wasm> puts another build of the filter in place of "without filter", so that
    // two builds are compared side by side: far more sensitive than two runs of the bench, on a shared machine.
    let against = std::env::var_os("PATHFENCE_BENCH_AGAINST").map(std::path::PathBuf::from);
    if let Some(module) = &against {
        eprintln!("bench: \"without filter\" is the filter built as {}", module.display());
    }
    let setup = Setup { bin, upstream: upstream.port, config, against };
    eprintln!(
        "bench: {rounds} rounds of {seconds} s per variant and load, each round on a fresh pair of Envoys \
         (--concurrency 2), {SATURATING_CONNECTIONS} connections closed-loop (saturating), {MODERATE_CONNECTIONS} \
         connections paced (moderate)"
    );
    let load_before = loadavg();
    // With no traffic at all, what is left is the cost of the filter's tick (and Envoy's own timers).
    let idle = |e: &Envoy| {
        // Past start-up and the filter's first 100 ms at the busy pace.
        thread::sleep(Duration::from_secs(1));
        let cpu = e.cpu_seconds();
        thread::sleep(Duration::from_secs(seconds));
        (e.cpu_seconds() - cpu) * 1e3 / seconds as f64
    };
    let (idle_plain, idle_fenced) = {
        let pair = Pair::start(&setup);
        (idle(&pair.plain), idle(&pair.fenced))
    };

    let (sat_plain, sat_fenced, sat, sat_admitted) = compare(rounds, &setup, seconds, &|port| saturating(port, seconds));
    // Moderate: a quarter of what Envoy without the filter sustained.
    let rate = (sat_plain.throughput * 0.25).max(100.0);
    let (mod_plain, mod_fenced, modr, mod_admitted) =
        compare(rounds, &setup, seconds, &|port| moderate(port, seconds, rate));

    println!();
    println!("| load               | variant        | throughput/s | p50 (us) | p99 (us) | Envoy CPU/req (us) | errors |");
    println!("|--------------------|----------------|-------------:|---------:|---------:|---------------:|-------:|");
    let moderate_label = format!("moderate {rate:.0}/s");
    row(&moderate_label, "without filter", &mod_plain);
    row(&moderate_label, "with filter", &mod_fenced);
    row("saturating", "without filter", &sat_plain);
    row("saturating", "with filter", &sat_fenced);
    println!();
    for (label, d) in [("moderate", &modr), ("saturating", &sat)] {
        println!(
            "{label}: throughput with/without = {:.3} ({:.1} % loss, target <= 10 %), added median latency = {:.0} us \
             (target <= 50 us), added Envoy CPU per request = {:.1} us  [medians of per-round differences]",
            d.ratio,
            (1.0 - d.ratio) * 100.0,
            d.added,
            d.cpu
        );
        let mut sorted = d.ratios.clone();
        sorted.sort_by(f64::total_cmp);
        let shown: Vec<String> = sorted.iter().map(|r| format!("{r:.3}")).collect();
        println!("  {label}: the rounds' throughput ratios, sorted: {}", shown.join(" "));
    }
    println!(
        "idle (no requests): Envoy CPU {idle_plain:.1} ms/s without the filter, {idle_fenced:.1} ms/s with it (its tick)"
    );
    println!("the filter admitted {} requests on path catalog", sat_admitted + mod_admitted);
    // Other work on the machine skews both variants; say how busy it was.
    println!("machine load average (1 min): {load_before} before, {} after, on {} cores", loadavg(), cores());
}
