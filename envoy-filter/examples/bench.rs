//! Benchmark, not a test: requests through Envoy (`--concurrency 2`) to a loopback upstream that answers at
//! once, without a filter, with an empty proxy-wasm filter (the floor any Wasm filter pays), with PathFence as Wasm,
//! with PathFence as a native dynamic module and with the native module's `probe` reading `:path` and nothing else
//! (the floor of a native filter that tells paths apart), side by side in one run, at a moderate, a busy and a
//! saturating load.
//!
//! Run with `bench/run.sh [seconds per run] [rounds]`, which builds the modules first.
//!
//! Two switches change what is measured, to see where the cost goes: `PATHFENCE_BENCH_FLOOR=read-path` makes the
//! empty filter read the `:path` header (the floor of any filter that tells paths apart), and
//! `PATHFENCE_BENCH_ANSWER=envoy` has Envoy answer every request itself, without the upstream, so that the machine
//! runs only Envoy and the load generator. `PATHFENCE_BENCH_TUNED=1` puts PathFence with tuning on (the same module
//! and paths, with the top-level `tuning`) in place of the empty filter, to measure what tuning adds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::Command;
use std::sync::atomic::{AtomicI64, Ordering};
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
/// CONFIG with tuning on: every path sampled, and an analysis every second (a short period, so that the runs hold
/// several). With limits of 10000 and a step of at most 4 a decision, the tuned limits never bind during a run.
const TUNED_CONFIG: &str = r#"{
  "paths": [
    {"name": "orders", "match": {"prefix": "/orders"}, "max_concurrency": 10000},
    {"name": "catalog", "match": {"prefix": "/catalog"}, "max_concurrency": 10000}
  ],
  "worker_lease_ms": 120000,
  "tuning": {"interval_ms": 50, "window_s": 10, "period_s": 1}
}"#;
const PATH: &str = "/catalog/item/42";
const SATURATING_CONNECTIONS: usize = 32;
/// The moderate load: 1000 requests per second on 16 connections, the load at which Istio reports its sidecar's
/// added latency.
const MODERATE_RATE: f64 = 1000.0;
const PACED_CONNECTIONS: usize = 16;
/// The busy load, as a share of what Envoy without a filter sustained: still below saturation, but enough that
/// every added microsecond of CPU shows.
const BUSY_SHARE: f64 = 0.25;
const EMPTY_MODULE: &str = "target/empty_filter.wasm";

struct Measure {
    /// Envoy's CPU time per request, in microseconds: far less sensitive to other work on the machine than
    /// latency is.
    cpu_us: f64,
    /// Requests answered with 200.
    requests: f64,
    throughput: f64,
    p50_us: f64,
    p99_us: f64,
    errors: usize,
}

/// Closed loop, driven by wrk: every connection sends its next request as soon as the last one is answered. wrk
/// drives all the connections from one thread; a client with a thread per connection took a third of the
/// machine's CPU and its scheduling spread single rounds from 0.65 to 1.22 of each other.
fn saturating(port: u16, seconds: u64) -> Measure {
    let url = format!("http://127.0.0.1:{port}{PATH}");
    let output = Command::new("wrk")
        .args(["-t1", &format!("-c{SATURATING_CONNECTIONS}"), &format!("-d{seconds}s"), "--latency", &url])
        .output()
        .expect("wrk runs (bench/run.sh installs it)");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "wrk failed: {text}{}", String::from_utf8_lossy(&output.stderr));
    parse_wrk(&text).unwrap_or_else(|| panic!("unexpected wrk output:\n{text}"))
}

/// The figures of a `wrk --latency` report.
fn parse_wrk(text: &str) -> Option<Measure> {
    let after = |prefix: &str| {
        text.lines().map(str::trim).find_map(|l| l.strip_prefix(prefix)).map(|rest| rest.trim().to_string())
    };
    let requests: f64 = text.lines().find(|l| l.contains(" requests in "))?.split_whitespace().next()?.parse().ok()?;
    let socket_errors: usize = after("Socket errors:")
        .map(|e| e.split(',').filter_map(|part| part.split_whitespace().last()?.parse::<usize>().ok()).sum())
        .unwrap_or(0);
    let non_2xx: usize = after("Non-2xx or 3xx responses:").and_then(|n| n.parse().ok()).unwrap_or(0);
    let micros = |v: &str| -> Option<f64> {
        let (number, scale) = if let Some(n) = v.strip_suffix("us") {
            (n, 1.0)
        } else if let Some(n) = v.strip_suffix("ms") {
            (n, 1e3)
        } else {
            (v.strip_suffix('s')?, 1e6)
        };
        number.parse::<f64>().ok().map(|n| n * scale)
    };
    let errors = socket_errors + non_2xx;
    Some(Measure {
        cpu_us: 0.0,
        requests: requests - non_2xx as f64,
        throughput: after("Requests/sec:")?.parse().ok()?,
        p50_us: micros(&after("50%")?)?,
        p99_us: micros(&after("99%")?)?,
        errors,
    })
}

/// Opens Envoy's upstream connections and runs the module's code on every worker before a measurement, outside it.
fn warm_up(port: u16) {
    let clients: Vec<_> = (0..SATURATING_CONNECTIONS)
        .map(|_| {
            thread::spawn(move || {
                let mut client = Client::connect(port).unwrap();
                for _ in 0..20 {
                    let _ = client.get(PATH);
                }
            })
        })
        .collect();
    clients.into_iter().for_each(|c| c.join().unwrap());
}

/// Paced: `rate` requests per second spread over the connections, latency from each intended send time.
fn paced(port: u16, seconds: u64, rate: f64) -> Measure {
    paced_from(port, Instant::now() + Duration::from_millis(50), seconds, rate, Duration::ZERO)
}

/// Paced from `start` (plus `offset`) for `seconds`: the sends of several clients started from the same instant
/// with different offsets interleave.
fn paced_from(port: u16, start: Instant, seconds: u64, rate: f64, offset: Duration) -> Measure {
    let connections = PACED_CONNECTIONS;
    let end = start + Duration::from_secs(seconds);
    let handles: Vec<_> = (0..connections)
        .map(|i| {
            thread::spawn(move || {
                let mut client = Client::connect(port).unwrap();
                let interval = Duration::from_secs_f64(connections as f64 / rate);
                let phase = interval * i as u32 / connections as u32;
                let mut latencies = Vec::with_capacity(1 << 16);
                let mut errors = 0usize;
                let mut n: u32 = 0;
                let t0 = start + offset + phase;
                loop {
                    let intended = t0 + interval * n;
                    if intended >= end || n >= 5_000_000 {
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
    let elapsed = (Instant::now().min(end) - start).as_secs_f64();
    Measure {
        cpu_us: 0.0,
        requests: latencies.len() as f64,
        throughput: latencies.len() as f64 / elapsed,
        p50_us: quantile_ms(&latencies, 0.5) * 1000.0,
        p99_us: quantile_ms(&latencies, 0.99) * 1000.0,
        errors,
    }
}

fn row(load: &str, variant: &str, m: &Measure) {
    println!(
        "| {load:<18} | {variant:<16} | {:>12.0} | {:>8.0} | {:>8.0} | {:>14.1} | {:>6} |",
        m.throughput, m.p50_us, m.p99_us, m.cpu_us, m.errors
    );
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_default()
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
        requests: median(runs.iter().map(|m| m.requests).collect()),
        throughput: median(runs.iter().map(|m| m.throughput).collect()),
        p50_us: median(runs.iter().map(|m| m.p50_us).collect()),
        p99_us: median(runs.iter().map(|m| m.p99_us).collect()),
        errors: runs.iter().map(|m| m.errors).sum(),
    }
}

/// The variants, in the order of a round's Envoys.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Plain,
    Empty,
    Fence,
    Native,
    /// The native module's `probe`, reading `:path` and nothing else.
    Probe,
}

const N: usize = 5;
const VARIANTS: [Variant; N] = [Variant::Plain, Variant::Empty, Variant::Fence, Variant::Native, Variant::Probe];

/// Orders of the five variants' sends under the moderate load (each variant's place in it), one per round in turn:
/// a balanced design of two Latin squares (Williams'), so that over ten rounds each variant directly follows each
/// other one twice. Rotating a single order would keep who follows whom, and a request just before can slow the
/// next one.
const ORDERS: [[u32; N]; 2 * N] = [
    [0, 1, 3, 4, 2],
    [2, 0, 1, 3, 4],
    [4, 2, 0, 1, 3],
    [3, 4, 2, 0, 1],
    [1, 3, 4, 2, 0],
    [4, 3, 1, 0, 2],
    [2, 4, 3, 1, 0],
    [0, 2, 4, 3, 1],
    [1, 0, 2, 4, 3],
    [3, 1, 0, 2, 4],
];

/// `f` of every variant, called in an order that rotates with `round`; the results in the variants' order.
fn in_rotated_order<T>(round: usize, mut f: impl FnMut(Variant) -> T) -> [T; N] {
    let mut results: [Option<T>; N] = [None, None, None, None, None];
    for i in 0..VARIANTS.len() {
        let variant = VARIANTS[(round + i) % VARIANTS.len()];
        results[variant as usize] = Some(f(variant));
    }
    results.map(|r| r.unwrap())
}

/// Envoy's CPU time since `cpu_before` (seconds), per request of `m`, in microseconds.
fn cpu_per_request(e: &Envoy, cpu_before: f64, m: &Measure) -> f64 {
    (e.cpu_seconds() - cpu_before) * 1e6 / m.requests.max(1.0)
}

impl Variant {
    fn label(self, setup: &Setup) -> &'static str {
        match self {
            Variant::Plain => "without filter",
            Variant::Empty if setup.tuned => "PathFence tuned",
            Variant::Empty if setup.floor_reads_path => "empty filter reading :path",
            Variant::Empty => "empty Wasm filter",
            Variant::Fence => "PathFence Wasm",
            Variant::Native => "PathFence native",
            Variant::Probe => "native reading :path",
        }
    }
}

/// What a round needs to start its Envoys.
struct Setup {
    bin: std::path::PathBuf,
    upstream: u16,
    config: String,
    empty: std::path::PathBuf,
    /// Another build of the filter in place of "without filter" (PATHFENCE_BENCH_AGAINST).
    against: Option<std::path::PathBuf>,
    /// The empty filter reads `:path` (PATHFENCE_BENCH_FLOOR=read-path).
    floor_reads_path: bool,
    /// Envoy answers every request itself, without the upstream (PATHFENCE_BENCH_ANSWER=envoy).
    envoy_answers: bool,
    /// PathFence with tuning on in place of the empty filter (PATHFENCE_BENCH_TUNED=1).
    tuned: bool,
}

impl Setup {
    fn start(&self, filter: Option<(&std::path::Path, &str)>) -> Envoy {
        if self.envoy_answers {
            Envoy::start_answering(&self.bin, filter).unwrap()
        } else {
            Envoy::start_with(&self.bin, self.upstream, filter).unwrap()
        }
    }
}

/// The variants of one round, each in a fresh Envoy process. A process keeps its own speed for its life (where V8
/// placed the module's code, how the kernel placed its memory): two processes running the same module differed
/// by a few per cent, so every round starts new ones and the median is taken over rounds.
struct Round {
    envoys: Vec<Envoy>,
}

impl Round {
    /// Starts the round's Envoys, which one first rotating with `round`: two runs of the same build against itself
    /// both read the slot started last about 4 % faster at saturation.
    fn start(setup: &Setup, round: usize) -> Round {
        let against = setup.against.as_deref().map(|m| (m, setup.config.as_str()));
        let floor = if setup.floor_reads_path { "read-path" } else { "" };
        let (fence, native) = (wasm(), native());
        let start = |variant: Variant| match variant {
            Variant::Plain => setup.start(against),
            Variant::Empty if setup.tuned => setup.start(Some((fence.as_path(), TUNED_CONFIG))),
            Variant::Empty => setup.start(Some((setup.empty.as_path(), floor))),
            Variant::Fence => setup.start(Some((fence.as_path(), setup.config.as_str()))),
            Variant::Native => setup.start(Some((native.as_path(), setup.config.as_str()))),
            Variant::Probe => {
                let upstream = (!setup.envoy_answers).then_some(setup.upstream);
                Envoy::start_native_filter(&setup.bin, upstream, &native, "probe", "").unwrap()
            }
        };
        Round { envoys: in_rotated_order(round, start).into() }
    }

    fn envoy(&self, variant: Variant) -> &Envoy {
        &self.envoys[variant as usize]
    }

    /// One measurement, with Envoy's CPU time per request taken from /proc around it. Only the Envoy measured
    /// runs: the others' timers (the filter's tick, if it has one) would take CPU from it.
    fn measure(&self, variant: Variant, run: &dyn Fn(u16) -> Measure) -> Measure {
        let e = self.envoy(variant);
        let others = VARIANTS.into_iter().filter(|v| *v != variant);
        others.clone().for_each(|v| self.envoy(v).signal("STOP"));
        e.signal("CONT");
        warm_up(e.port);
        let cpu = e.cpu_seconds();
        let mut m = run(e.port);
        m.cpu_us = cpu_per_request(e, cpu, &m);
        others.for_each(|v| self.envoy(v).signal("CONT"));
        m
    }

    /// The variants one after another, each alone on the machine, in an order rotated by `round`.
    fn measure_each(&self, round: usize, run: &dyn Fn(u16) -> Measure) -> [Measure; N] {
        in_rotated_order(round, |variant| self.measure(variant, run))
    }

    /// The variants all at once, each under a paced load of `rate` on its own connections, their sends
    /// interleaved in the order `ORDERS` gives for `round`. A moderate load leaves most of the machine
    /// idle, so they hardly compete; but latency at such a load drifts by tens of µs over seconds with the
    /// machine's state, and measured one after another the variants met different drifts (an A/A run read
    /// +14 µs, the same build's added median moved from +29 to +71 µs between runs). Measured together they meet
    /// the same.
    fn measure_together(&self, round: usize, seconds: u64, rate: f64) -> [Measure; N] {
        VARIANTS.iter().for_each(|v| warm_up(self.envoy(*v).port));
        let cpu = VARIANTS.map(|v| self.envoy(v).cpu_seconds());
        let start = Instant::now() + Duration::from_millis(50);
        // A fifth of the gap between two sends of the combined load of one variant.
        let stagger = Duration::from_secs_f64(1.0 / rate / VARIANTS.len() as f64);
        let clients = VARIANTS.map(|v| {
            let port = self.envoy(v).port;
            let offset = stagger * ORDERS[round % ORDERS.len()][v as usize];
            thread::spawn(move || paced_from(port, start, seconds, rate, offset))
        });
        let mut measures = clients.map(|c| c.join().unwrap());
        for (m, v) in measures.iter_mut().zip(VARIANTS) {
            m.cpu_us = cpu_per_request(self.envoy(v), cpu[v as usize], m);
        }
        measures
    }
}

/// Every variant's measurements of one load, a round each.
struct Runs([Vec<Measure>; N]);

impl Runs {
    fn of(&self, variant: Variant) -> &[Measure] {
        &self.0[variant as usize]
    }

    /// `variant` against `base`, medians of the per-round differences.
    fn deltas(&self, variant: Variant, base: Variant) -> Deltas {
        let pairs = || self.of(base).iter().zip(self.of(variant));
        let ratios: Vec<f64> = pairs().map(|(b, v)| v.throughput / b.throughput).collect();
        Deltas {
            ratio: median(ratios.clone()),
            ratios,
            added: median(pairs().map(|(b, v)| v.p50_us - b.p50_us).collect()),
            cpu: median(pairs().map(|(b, v)| v.cpu_us - b.cpu_us).collect()),
        }
    }
}

/// The tuned PathFence's decisions over the run, to show that it analysed.
static TUNING_DECISIONS: AtomicI64 = AtomicI64::new(0);

/// Runs `rounds` rounds, each on fresh Envoys measured by `measure` (given the round's number); also returns the
/// requests each PathFence build admitted, to show it was on the path.
fn compare(rounds: usize, setup: &Setup, measure: &dyn Fn(&Round, usize) -> [Measure; N]) -> (Runs, [i64; 2]) {
    let mut runs = Runs(std::array::from_fn(|_| Vec::new()));
    let mut admitted = [0, 0];
    for round in 0..rounds {
        let envoys = Round::start(setup, round);
        for (variant, m) in VARIANTS.into_iter().zip(measure(&envoys, round)) {
            runs.0[variant as usize].push(m);
        }
        // The filter reports its counters on its next tick, at most 100 ms away once it idles.
        thread::sleep(Duration::from_millis(150));
        for (i, (variant, build)) in
            [(Variant::Fence, Build::Wasm), (Variant::Native, Build::Native)].into_iter().enumerate()
        {
            let granted = with_build(build, || stat_filter("catalog", "granted"));
            admitted[i] += envoys.envoy(variant).stats(&granted).values().sum::<i64>();
        }
        if setup.tuned {
            let decided = envoys.envoy(Variant::Empty).stats("pathfence_tuning_decisions_total");
            TUNING_DECISIONS.fetch_add(decided.values().sum::<i64>(), Ordering::Relaxed);
        }
    }
    (runs, admitted)
}

/// Per-round differences of one variant against another, medianed over the rounds.
struct Deltas {
    ratio: f64,
    /// Every round's throughput ratio, printed so that the spread behind the median shows.
    ratios: Vec<f64>,
    added: f64,
    cpu: f64,
}

/// The targets a comparison is held to: the Wasm build's (10 %, 50 us) or the native build's (3 %, 15 us), at
/// saturation and against no filter.
#[derive(Clone, Copy)]
enum Targets {
    None,
    Wasm,
    Native,
}

fn verdict(load: &str, what: &str, d: &Deltas, targets: Targets) {
    let sorted = {
        let mut r = d.ratios.clone();
        r.sort_by(f64::total_cmp);
        r.iter().map(|r| format!("{r:.3}")).collect::<Vec<_>>().join(" ")
    };
    let (loss_target, latency_target) = match targets {
        Targets::None => ("", ""),
        Targets::Wasm => (", target <= 10 %", " (target <= 50 us)"),
        Targets::Native => (", target <= 3 % at saturation", " (target <= 15 us at saturation)"),
    };
    println!(
        "{load}, {what}: throughput ratio {:.3} ({:.1} % loss{loss_target}), added median latency {:.0} us{latency_target}, \
         added Envoy CPU per request {:.1} us",
        d.ratio,
        (1.0 - d.ratio) * 100.0,
        d.added,
        d.cpu
    );
    println!("  rounds' throughput ratios, sorted: {sorted}");
}

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3).clamp(1, 60);
    let rounds: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(5).clamp(1, 20);
    let Some(bin) = envoy_bin("bench") else { std::process::exit(2) };
    let empty = crate_dir().join(EMPTY_MODULE);
    if !empty.is_file() {
        eprintln!("bench: {} is missing; run bench/run.sh, which builds it", empty.display());
        std::process::exit(2);
    }
    if Command::new("wrk").arg("-v").output().is_err() {
        eprintln!("bench: wrk is missing; run bench/run.sh, which installs it");
        std::process::exit(2);
    }
    let floor_reads_path = std::env::var("PATHFENCE_BENCH_FLOOR").is_ok_and(|v| v == "read-path");
    let envoy_answers = std::env::var("PATHFENCE_BENCH_ANSWER").is_ok_and(|v| v == "envoy");
    let tuned = std::env::var("PATHFENCE_BENCH_TUNED").is_ok_and(|v| v == "1");
    let upstream = Upstream::start(None, |_| Duration::ZERO);
    // PATHFENCE_BENCH_CONFIG swaps in another filter configuration, to see where the cost goes.
    let config = std::env::var("PATHFENCE_BENCH_CONFIG").unwrap_or_else(|_| CONFIG.to_string());
    // PATHFENCE_BENCH_AGAINST=<module.wasm> puts another build of the filter in place of "without filter", so that
    // two builds are compared side by side: far more sensitive than two runs of the bench, on a shared machine.
    let against = std::env::var_os("PATHFENCE_BENCH_AGAINST").map(std::path::PathBuf::from);
    if let Some(module) = &against {
        eprintln!("bench: \"without filter\" is the filter built as {}", module.display());
    }
    let setup = Setup { bin, upstream: upstream.port, config, empty, against, floor_reads_path, envoy_answers, tuned };
    if tuned {
        eprintln!("bench: PathFence tuned in place of the empty filter (PATHFENCE_BENCH_TUNED)");
    }
    if floor_reads_path {
        eprintln!("bench: the empty filter reads :path on every request (PATHFENCE_BENCH_FLOOR)");
    }
    if envoy_answers {
        eprintln!("bench: Envoy answers every request itself, no upstream (PATHFENCE_BENCH_ANSWER)");
    }
    eprintln!(
        "bench: {rounds} rounds of {seconds} s per variant and load, each round on fresh Envoys (--concurrency 2); \
         moderate {MODERATE_RATE}/s on each variant at once and busy loads paced on {PACED_CONNECTIONS} connections \
         per variant, saturating {SATURATING_CONNECTIONS} connections in a closed loop (wrk), one variant at a time"
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
    let idle_cpu: Vec<f64> = {
        let round = Round::start(&setup, 0);
        VARIANTS.iter().map(|v| idle(round.envoy(*v))).collect()
    };

    let (saturated, sat_admitted) =
        compare(rounds, &setup, &|envoys, round| envoys.measure_each(round, &|port| saturating(port, seconds)));
    let busy_rate = (summary(saturated.of(Variant::Plain)).throughput * BUSY_SHARE).max(MODERATE_RATE);
    let (busy, busy_admitted) =
        compare(rounds, &setup, &|envoys, round| envoys.measure_each(round, &|port| paced(port, seconds, busy_rate)));
    let (moderate, mod_admitted) =
        compare(rounds, &setup, &|envoys, round| envoys.measure_together(round, seconds, MODERATE_RATE));

    println!();
    println!(
        "| load               | variant          | throughput/s | p50 (us) | p99 (us) | Envoy CPU/req (us) | errors |"
    );
    println!(
        "|--------------------|------------------|-------------:|---------:|---------:|---------------:|-------:|"
    );
    let loads = [
        (format!("moderate {MODERATE_RATE:.0}/s"), &moderate),
        (format!("busy {busy_rate:.0}/s"), &busy),
        ("saturating".to_string(), &saturated),
    ];
    for (label, runs) in &loads {
        for v in VARIANTS {
            row(label, v.label(&setup), &summary(runs.of(v)));
        }
    }
    println!();
    if let Some(module) = &setup.against {
        println!("\"without filter\" is the build {} (PATHFENCE_BENCH_AGAINST)", module.display());
    }
    println!("Medians of per-round differences; the targets are PathFence's against no filter.");
    let (floor, own) = if setup.floor_reads_path {
        (
            "empty filter reading :path against no filter (the floor of a filter that tells paths apart)",
            "PathFence against the empty filter reading :path (the fence's cost beyond reading the path)",
        )
    } else {
        ("empty filter against no filter (the Wasm floor)", "PathFence against the empty filter (the fence's own cost)")
    };
    for (label, runs) in &loads {
        verdict(
            label,
            "PathFence native against no filter",
            &runs.deltas(Variant::Native, Variant::Plain),
            Targets::Native,
        );
        verdict(label, "PathFence Wasm against no filter", &runs.deltas(Variant::Fence, Variant::Plain), Targets::Wasm);
        verdict(
            label,
            "PathFence native against PathFence Wasm",
            &runs.deltas(Variant::Native, Variant::Fence),
            Targets::None,
        );
        let probe = "native reading :path against no filter (the native floor)";
        verdict(label, probe, &runs.deltas(Variant::Probe, Variant::Plain), Targets::None);
        let native_own = "PathFence native against native reading :path (the native fence's own cost)";
        verdict(label, native_own, &runs.deltas(Variant::Native, Variant::Probe), Targets::None);
        if setup.tuned {
            let tuned = "PathFence tuned against no filter";
            verdict(label, tuned, &runs.deltas(Variant::Empty, Variant::Plain), Targets::None);
            let tuning = "PathFence tuned against PathFence (what tuning adds; target at saturation: <= 1 %, <= 10 us)";
            verdict(label, tuning, &runs.deltas(Variant::Empty, Variant::Fence), Targets::None);
        } else {
            verdict(label, floor, &runs.deltas(Variant::Empty, Variant::Plain), Targets::None);
            verdict(label, own, &runs.deltas(Variant::Fence, Variant::Empty), Targets::None);
        }
    }
    let second = if setup.tuned { "PathFence tuned" } else { "the empty filter" };
    println!(
        "idle (no requests), Envoy CPU in ms/s: {:.1} without a filter, {:.1} with {second}, {:.1} with PathFence Wasm, \
         {:.1} with PathFence native, {:.1} with native reading :path",
        idle_cpu[0], idle_cpu[1], idle_cpu[2], idle_cpu[3], idle_cpu[4]
    );
    let admitted = |build: usize| sat_admitted[build] + busy_admitted[build] + mod_admitted[build];
    println!("PathFence admitted {} (Wasm) and {} (native) requests on path catalog", admitted(0), admitted(1));
    if setup.tuned {
        println!("PathFence tuned made {} tuning decisions", TUNING_DECISIONS.load(Ordering::Relaxed));
    }
    // Other work on the machine skews every variant; say how busy it was.
    println!("machine load average (1 min): {load_before} before, {} after, on {} cores", loadavg(), cores());
}
