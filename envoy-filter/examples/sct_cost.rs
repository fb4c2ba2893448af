//! What the SCT model costs in a release build: one decision on a full window (60 s of 50 ms samples from two
//! workers) and the recording of one request (admission and release). Not a test: it prints figures.
//!
//! `cargo run --release --example sct_cost`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use pathfence_envoy_filter::sct::accumulator::IntervalAccumulator;
use pathfence_envoy_filter::sct::guards::Guards;
use pathfence_envoy_filter::sct::interval::IntervalTotals;
use pathfence_envoy_filter::sct::settings::ModelSettings;
use pathfence_envoy_filter::sct::tuner::PathTuner;
use pathfence_envoy_filter::sct::window::SampleWindow;
use pathfence_envoy_filter::sct::wire::{decode_all, WorkerInterval};

const INTERVAL: u64 = 50_000_000;
const WINDOW: usize = 1200;

/// A small LCG: the figures do not depend on the numbers' quality, only on there being spread.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let guards = Guards { min: 1, max: 1000, max_step: 8, hysteresis: 2 };
    let mut tuner = PathTuner::new(SampleWindow::new(INTERVAL, 0, WINDOW, 4), ModelSettings::default(), guards, 64);
    let mut rng = Lcg(7);
    let mut value = Vec::new();
    let mut timings = Vec::new();
    let mut decode_merge = Duration::ZERO;
    let mut records = 0u32;
    for k in 0..(WINDOW as u64 * 20) {
        // A knee at 16 requests, 100/s per request below it; between 2 and 42 clients, swinging.
        let clients = 2.0 + 40.0 * (1.0 - ((k % 480) as f64 / 240.0 - 1.0).abs());
        let q = clients.min(f64::from(tuner.limit())) * (0.95 + 0.1 * rng.unit());
        let throughput = 100.0 * q.min(16.0) * (0.98 + 0.04 * rng.unit());
        let completions = (throughput * 0.05).round() as u64;
        value.clear();
        for worker in 0..2u32 {
            let totals = IntervalTotals {
                start_ns: k * INTERVAL,
                in_service_ns: (q * INTERVAL as f64 / 2.0) as u64,
                waiting_ns: ((clients - q).max(0.0) * INTERVAL as f64 / 2.0) as u64,
                completions: completions / 2,
                response_ns: (completions / 2) * (q / throughput.max(1.0) * 1e9) as u64,
            };
            WorkerInterval { worker, interval_ns: INTERVAL, totals }.encode_into(&mut value);
        }
        let started = Instant::now();
        for record in decode_all(&value) {
            tuner.merge(&record, (k + 1) * INTERVAL).unwrap();
            records += 1;
        }
        decode_merge += started.elapsed();
        if k >= WINDOW as u64 && k % 100 == 0 {
            let started = Instant::now();
            let decision = black_box(tuner.decide((k + 1) * INTERVAL));
            timings.push(started.elapsed());
            assert_eq!(decision.samples, WINDOW);
        }
    }
    timings.sort();
    println!(
        "decide on {WINDOW} samples: median {:?}, p90 {:?}, max {:?} ({} decisions; last limit {})",
        percentile(&timings, 0.5),
        percentile(&timings, 0.9),
        timings[timings.len() - 1],
        timings.len(),
        tuner.limit()
    );
    println!("decode and merge one worker's record: {:?}", decode_merge / records);

    let mut acc = IntervalAccumulator::starting_at(INTERVAL, 0, 64);
    let requests = 10_000_000u64;
    let started = Instant::now();
    for i in 0..requests {
        let t = black_box(i * 500);
        acc.admitted(t);
        acc.released(t, t + 40_000);
        if i % 1000 == 0 {
            while acc.pop_closed().is_some() {}
        }
    }
    println!("record one request (admission and release): {:?}", started.elapsed() / requests as u32);
}
