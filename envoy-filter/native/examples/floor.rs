//! Benchmark, not a test: the floor of a native filter against that of a Wasm filter. Envoy (`--concurrency 2`) in
//! front of a loopback upstream that answers at once, without a filter, with the empty proxy-wasm filter
//! (`bench/empty`) and with the native module's probe configured to do nothing but read `:path`, side by side in
//! one run, at the moderate and the saturating loads of the filter's benchmark and by its method: fresh Envoys
//! each round, the saturating load on one Envoy at a time (the others stopped) in a rotating order, the moderate
//! load on all three at once with their sends interleaved, and medians of the per-round differences.
//!
//! Run with `envoy-filter/bench/floor.sh [seconds per run] [rounds]`, which builds both modules first. The Wasm
//! filter reads `:path` too (configured `read-path`), so that the two floors do the same work; with
//! `PATHFENCE_FLOOR_WASM=empty` it reads nothing. With `PATHFENCE_FLOOR_ANSWER=envoy` Envoy answers every request
//! itself, without the upstream, so that the machine runs only Envoy and the load generator and Envoy's CPU time per
//! request is read to a few tenths of a microsecond.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/harness/mod.rs"]
mod harness;

use std::path::PathBuf;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use harness::{envoy_bin, module_dir, native_dir, quantile_ms, Client, Filter, Proxy, Upstream};

const PATH: &str = "/catalog/item/42";
const SATURATING_CONNECTIONS: usize = 32;
const MODERATE_RATE: f64 = 1000.0;
const PACED_CONNECTIONS: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Plain,
    Wasm,
    Native,
}

const VARIANTS: [Variant; 3] = [Variant::Plain, Variant::Wasm, Variant::Native];
/// Each variant's place in the moderate load's sends, one order per round in turn: over six rounds every variant
/// follows every other equally often.
const ORDERS: [[u32; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

#[derive(Clone, Copy, Default)]
struct Measure {
    requests: f64,
    throughput: f64,
    p50_us: f64,
    p99_us: f64,
    /// Envoy's CPU time per request, in microseconds.
    cpu_us: f64,
    errors: usize,
}

struct Setup {
    bin: PathBuf,
    /// `None`: Envoy answers every request itself.
    upstream: Option<u16>,
    wasm: PathBuf,
    wasm_config: &'static str,
    native: PathBuf,
}

impl Setup {
    fn start(&self, variant: Variant) -> Proxy {
        let filter = match variant {
            Variant::Plain => Filter::None,
            Variant::Wasm => Filter::Wasm(&self.wasm, self.wasm_config),
            Variant::Native => Filter::Native { dir: &self.native, filter_name: "probe", config: "" },
        };
        Proxy::start(&self.bin, self.upstream, filter).unwrap()
    }
}

/// `f` of each variant, the first of them rotating with `round`; the results in the variants' order.
fn rotated<T>(round: usize, mut f: impl FnMut(Variant) -> T) -> [T; 3] {
    let mut out: [Option<T>; 3] = [None, None, None];
    for i in 0..3 {
        let v = VARIANTS[(round + i) % 3];
        out[v as usize] = Some(f(v));
    }
    out.map(|m| m.unwrap())
}

/// Opens Envoy's upstream connections and runs the filter's code on both workers, outside any measurement.
fn warm_up(port: u16) {
    let clients: Vec<_> = (0..SATURATING_CONNECTIONS)
        .map(|_| {
            thread::spawn(move || {
                let mut client = Client::connect(port).unwrap();
                (0..20).for_each(|_| drop(client.get(PATH)));
            })
        })
        .collect();
    clients.into_iter().for_each(|c| c.join().unwrap());
}

/// Closed loop on 32 connections, driven by wrk from one thread.
fn saturating(port: u16, seconds: u64) -> Measure {
    let url = format!("http://127.0.0.1:{port}{PATH}");
    let output = Command::new("wrk")
        .args(["-t1", &format!("-c{SATURATING_CONNECTIONS}"), &format!("-d{seconds}s"), "--latency", &url])
        .output()
        .expect("wrk runs (bench/floor.sh installs it)");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "wrk failed: {text}");
    parse_wrk(&text).unwrap_or_else(|| panic!("unexpected wrk output:\n{text}"))
}

fn parse_wrk(text: &str) -> Option<Measure> {
    let field = |prefix: &str| text.lines().map(str::trim).find_map(|l| l.strip_prefix(prefix)).map(str::trim);
    let micros = |v: &str| -> Option<f64> {
        let (n, scale) = match v {
            _ if v.ends_with("us") => (&v[..v.len() - 2], 1.0),
            _ if v.ends_with("ms") => (&v[..v.len() - 2], 1e3),
            _ => (v.strip_suffix('s')?, 1e6),
        };
        n.parse::<f64>().ok().map(|n| n * scale)
    };
    let total: f64 = text.lines().find(|l| l.contains(" requests in "))?.split_whitespace().next()?.parse().ok()?;
    let non_2xx: usize = field("Non-2xx or 3xx responses:").and_then(|n| n.parse().ok()).unwrap_or(0);
    let socket_errors: usize = field("Socket errors:")
        .map(|e| e.split(',').filter_map(|p| p.split_whitespace().last()?.parse::<usize>().ok()).sum())
        .unwrap_or(0);
    Some(Measure {
        requests: total - non_2xx as f64,
        throughput: field("Requests/sec:")?.parse().ok()?,
        p50_us: micros(field("50%")?)?,
        p99_us: micros(field("99%")?)?,
        cpu_us: 0.0,
        errors: non_2xx + socket_errors,
    })
}

/// Paced: `rate` requests per second over 16 keep-alive connections from `start + offset`, latency counted from
/// each intended send time.
fn paced(port: u16, start: Instant, seconds: u64, rate: f64, offset: Duration) -> Measure {
    let end = start + Duration::from_secs(seconds);
    let interval = Duration::from_secs_f64(PACED_CONNECTIONS as f64 / rate);
    let clients: Vec<_> = (0..PACED_CONNECTIONS)
        .map(|i| {
            thread::spawn(move || {
                let mut client = Client::connect(port).unwrap();
                let first = start + offset + interval * i as u32 / PACED_CONNECTIONS as u32;
                let (mut latencies, mut errors) = (Vec::new(), 0usize);
                for n in 0..5_000_000u32 {
                    let intended = first + interval * n;
                    if intended >= end {
                        break;
                    }
                    thread::sleep(intended.saturating_duration_since(Instant::now()));
                    match client.get(PATH) {
                        Ok(200) => latencies.push(intended.elapsed()),
                        _ => {
                            errors += 1;
                            let Ok(c) = Client::connect(port) else { break };
                            client = c;
                        }
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for c in clients {
        let (l, e) = c.join().unwrap();
        latencies.extend(l);
        errors += e;
    }
    let elapsed = (Instant::now().min(end) - start).as_secs_f64();
    Measure {
        requests: latencies.len() as f64,
        throughput: latencies.len() as f64 / elapsed,
        p50_us: quantile_ms(&latencies, 0.5) * 1e3,
        p99_us: quantile_ms(&latencies, 0.99) * 1e3,
        cpu_us: 0.0,
        errors,
    }
}

/// One round: fresh Envoys (started in a rotating order), then each load.
struct Round([Proxy; 3]);

impl Round {
    fn start(setup: &Setup, round: usize) -> Round {
        Round(rotated(round, |v| setup.start(v)))
    }

    fn envoy(&self, v: Variant) -> &Proxy {
        &self.0[v as usize]
    }

    /// The saturating load on each variant alone, the other Envoys stopped, in a rotating order.
    fn saturate(&self, round: usize, seconds: u64) -> [Measure; 3] {
        rotated(round, |v| {
            VARIANTS.iter().filter(|o| **o != v).for_each(|o| self.envoy(*o).signal("STOP"));
            let e = self.envoy(v);
            warm_up(e.port);
            let cpu = e.cpu_seconds();
            let mut m = saturating(e.port, seconds);
            m.cpu_us = (e.cpu_seconds() - cpu) * 1e6 / m.requests.max(1.0);
            VARIANTS.iter().filter(|o| **o != v).for_each(|o| self.envoy(*o).signal("CONT"));
            m
        })
    }

    /// The moderate load on all three at once, their sends a third of an interval apart in this round's order.
    fn moderate(&self, round: usize, seconds: u64) -> [Measure; 3] {
        VARIANTS.iter().for_each(|v| warm_up(self.envoy(*v).port));
        let cpu = VARIANTS.map(|v| self.envoy(v).cpu_seconds());
        let start = Instant::now() + Duration::from_millis(50);
        let stagger = Duration::from_secs_f64(1.0 / MODERATE_RATE / 3.0);
        let clients = VARIANTS.map(|v| {
            let (port, offset) = (self.envoy(v).port, stagger * ORDERS[round % 6][v as usize]);
            thread::spawn(move || paced(port, start, seconds, MODERATE_RATE, offset))
        });
        let mut measures = clients.map(|c| c.join().unwrap());
        for v in VARIANTS {
            let m = &mut measures[v as usize];
            m.cpu_us = (self.envoy(v).cpu_seconds() - cpu[v as usize]) * 1e6 / m.requests.max(1.0);
        }
        measures
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Every round's measurements of one load, per variant.
struct Runs([Vec<Measure>; 3]);

impl Runs {
    fn of(&self, v: Variant) -> &[Measure] {
        &self.0[v as usize]
    }

    fn summary(&self, v: Variant) -> Measure {
        let runs = self.of(v);
        let med = |f: fn(&Measure) -> f64| median(runs.iter().map(f).collect());
        Measure {
            requests: med(|m| m.requests),
            throughput: med(|m| m.throughput),
            p50_us: med(|m| m.p50_us),
            p99_us: med(|m| m.p99_us),
            cpu_us: med(|m| m.cpu_us),
            errors: runs.iter().map(|m| m.errors).sum(),
        }
    }

    /// `v` against `base`: medians of the per-round throughput ratio, added median latency and added CPU, and the
    /// rounds' ratios sorted.
    fn against(&self, v: Variant, base: Variant) -> (f64, f64, f64, Vec<f64>) {
        let pairs = || self.of(base).iter().zip(self.of(v));
        let mut ratios: Vec<f64> = pairs().map(|(b, m)| m.throughput / b.throughput).collect();
        let added = median(pairs().map(|(b, m)| m.p50_us - b.p50_us).collect());
        let cpu = median(pairs().map(|(b, m)| m.cpu_us - b.cpu_us).collect());
        ratios.sort_by(f64::total_cmp);
        (median(ratios.clone()), added, cpu, ratios)
    }
}

fn loadavg() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().next().unwrap_or("?").to_string()
}

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3).clamp(1, 60);
    let rounds: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(6).clamp(1, 30);
    let Some(bin) = envoy_bin("floor") else { std::process::exit(2) };
    let wasm = native_dir().join("../target/empty_filter.wasm");
    if !wasm.is_file() || Command::new("wrk").arg("-v").output().is_err() {
        eprintln!("floor: {} or wrk is missing; run envoy-filter/bench/floor.sh", wasm.display());
        std::process::exit(2);
    }
    let wasm_config = if std::env::var("PATHFENCE_FLOOR_WASM").is_ok_and(|v| v == "empty") { "" } else { "read-path" };
    let upstream = Upstream::start(None, |_| Duration::ZERO);
    let envoy_answers = std::env::var("PATHFENCE_FLOOR_ANSWER").is_ok_and(|v| v == "envoy");
    if envoy_answers {
        eprintln!("floor: Envoy answers every request itself, no upstream (PATHFENCE_FLOOR_ANSWER)");
    }
    let upstream_port = (!envoy_answers).then_some(upstream.port);
    let setup = Setup { bin, upstream: upstream_port, wasm, wasm_config, native: module_dir() };
    let wasm_label = if wasm_config.is_empty() { "empty Wasm filter" } else { "Wasm reading :path" };
    let labels = ["without filter", wasm_label, "native reading :path"];
    eprintln!(
        "floor: {rounds} rounds of {seconds} s per variant and load on fresh Envoys (--concurrency 2): moderate \
         {MODERATE_RATE}/s on all three at once, saturating {SATURATING_CONNECTIONS} connections (wrk) one at a time"
    );
    let load_before = loadavg();
    let (mut saturated, mut moderate) = (Runs(Default::default()), Runs(Default::default()));
    for round in 0..rounds {
        let envoys = Round::start(&setup, round);
        for (v, m) in VARIANTS.into_iter().zip(envoys.saturate(round, seconds)) {
            saturated.0[v as usize].push(m);
        }
        for (v, m) in VARIANTS.into_iter().zip(envoys.moderate(round, seconds)) {
            moderate.0[v as usize].push(m);
        }
        eprintln!("floor: round {} of {rounds} done", round + 1);
    }
    let loads = [(format!("moderate {MODERATE_RATE:.0}/s"), &moderate), ("saturating".to_string(), &saturated)];
    println!();
    println!("| load | variant | throughput/s | p50 (us) | p99 (us) | Envoy CPU per request (us) | errors |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (load, runs) in &loads {
        for v in VARIANTS {
            let m = runs.summary(v);
            println!(
                "| {load} | {} | {:.0} | {:.0} | {:.0} | {:.1} | {} |",
                labels[v as usize], m.throughput, m.p50_us, m.p99_us, m.cpu_us, m.errors
            );
        }
    }
    println!();
    println!(
        "Medians of the per-round differences: throughput loss / added median latency / added Envoy CPU per request"
    );
    println!("(target of the full native PathFence at saturation, against no filter: at most 3 % and 15 us)");
    println!();
    println!("| load | {} against none | {} against none | native against Wasm |", labels[2], labels[1]);
    println!("|---|---|---|---|");
    let cell = |(ratio, added, cpu, _): (f64, f64, f64, Vec<f64>)| {
        format!("{:.1} % / {added:.0} us / {cpu:.1} us", (1.0 - ratio) * 100.0)
    };
    for (load, runs) in &loads {
        println!(
            "| {load} | {} | {} | {} |",
            cell(runs.against(Variant::Native, Variant::Plain)),
            cell(runs.against(Variant::Wasm, Variant::Plain)),
            cell(runs.against(Variant::Native, Variant::Wasm)),
        );
    }
    println!();
    for (load, runs) in &loads {
        for (v, base) in [(Variant::Native, Variant::Plain), (Variant::Wasm, Variant::Plain)] {
            let ratios = runs.against(v, base).3.iter().map(|r| format!("{r:.3}")).collect::<Vec<_>>().join(" ");
            println!("{load}, {} against none, rounds' throughput ratios sorted: {ratios}", labels[v as usize]);
        }
    }
    println!(
        "machine load average (1 min): {load_before} before, {} after, on {} cores",
        loadavg(),
        thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );
}
