//! Benchmark, not a test: requests through Envoy (`--concurrency 2`) to a loopback upstream that answers at
//! once, with and without the filter, side by side in one run, at a moderate and at a saturating load.
//!
//! Run with `bench/run.sh` (or `cargo run --release --example bench -- [seconds per run]`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use support::*;

/// Every request goes through classification, a shared compare-and-swap to take a slot and one to give it
/// back, and the metric updates: the filter's whole per-request path, with limits that never bind.
const CONFIG: &str = r#"{
  "paths": [
    {"name": "orders", "match": {"prefix": "/orders"}, "max_concurrency": 10000},
    {"name": "catalog", "match": {"prefix": "/catalog"}, "max_concurrency": 10000}
  ]
}"#;
const PATH: &str = "/catalog/item/42";
const SATURATING_CONNECTIONS: usize = 32;
const MODERATE_CONNECTIONS: usize = 16;

struct Measure {
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
        throughput: latencies.len() as f64 / elapsed,
        p50_us: quantile_ms(&latencies, 0.5) * 1000.0,
        p99_us: quantile_ms(&latencies, 0.99) * 1000.0,
        errors,
    }
}

fn row(load: &str, variant: &str, m: &Measure) {
    println!(
        "| {load:<10} | {variant:<14} | {:>10.0} | {:>8.0} | {:>8.0} | {:>6} |",
        m.throughput, m.p50_us, m.p99_us, m.errors
    );
}

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(8).clamp(1, 60);
    let Some(bin) = envoy_bin("bench") else { std::process::exit(2) };
    let upstream = Upstream::start(None, |_| Duration::ZERO);
    let plain = Envoy::start(&bin, upstream.port, None).unwrap();
    // PATHFENCE_BENCH_CONFIG swaps in another filter configuration, to see where the cost goes.
    let config = std::env::var("PATHFENCE_BENCH_CONFIG").unwrap_or_else(|_| CONFIG.to_string());
    let fenced = Envoy::start(&bin, upstream.port, Some(&config)).unwrap();
    eprintln!("bench: {seconds} s per run, Envoy --concurrency 2, {SATURATING_CONNECTIONS} connections closed-loop (saturating), {MODERATE_CONNECTIONS} connections paced (moderate)");

    // Saturating first, without then with, then again in the other order, so drift hits both alike.
    let s1 = saturating(plain.port, seconds);
    let f1 = saturating(fenced.port, seconds);
    let f2 = saturating(fenced.port, seconds);
    let s2 = saturating(plain.port, seconds);
    let mean = |a: &Measure, b: &Measure| Measure {
        throughput: (a.throughput + b.throughput) / 2.0,
        p50_us: (a.p50_us + b.p50_us) / 2.0,
        p99_us: (a.p99_us + b.p99_us) / 2.0,
        errors: a.errors + b.errors,
    };
    let (sat_plain, sat_fenced) = (mean(&s1, &s2), mean(&f1, &f2));

    // Moderate: a quarter of what Envoy without the filter sustained.
    let rate = (sat_plain.throughput * 0.25).max(100.0);
    let m1 = moderate(plain.port, seconds, rate);
    let g1 = moderate(fenced.port, seconds, rate);
    let g2 = moderate(fenced.port, seconds, rate);
    let m2 = moderate(plain.port, seconds, rate);
    let (mod_plain, mod_fenced) = (mean(&m1, &m2), mean(&g1, &g2));

    let stats = fenced.stats("pathfence.catalog");
    println!();
    println!("| load       | variant        | throughput/s | p50 (us) | p99 (us) | errors |");
    println!("|------------|----------------|-----------:|---------:|---------:|-------:|");
    let moderate_label = format!("moderate {rate:.0}/s");
    row(&moderate_label, "without filter", &mod_plain);
    row(&moderate_label, "with filter", &mod_fenced);
    row("saturating", "without filter", &sat_plain);
    row("saturating", "with filter", &sat_fenced);
    println!();
    for (label, plain, fenced) in [("moderate", &mod_plain, &mod_fenced), ("saturating", &sat_plain, &sat_fenced)] {
        let loss = (1.0 - fenced.throughput / plain.throughput) * 100.0;
        let added = fenced.p50_us - plain.p50_us;
        println!(
            "{label}: throughput with/without = {:.3} ({loss:.1} % loss, target <= 10 %), added median latency = {added:.0} us (target <= 50 us)",
            fenced.throughput / plain.throughput
        );
    }
    println!("filter admitted {} requests on path catalog", stats.get("wasmcustom.pathfence.catalog.admitted").copied().unwrap_or(0));
}
