//! What the model costs natively, measured with a timer and held to generous bounds (a debug build, a shared
//! machine): the figures that matter come from the release example `examples/sct_cost.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use super::accumulator::IntervalAccumulator;
use super::guards::Guards;
use super::settings::ModelSettings;
use super::testing::{Rng, Upstream};
use super::tuner::PathTuner;
use super::window::SampleWindow;

const INTERVAL: u64 = 50_000_000;

#[test]
fn one_decision_on_a_full_minute_of_samples_takes_well_under_a_period() {
    let guards = Guards { min: 1, max: 1000, max_step: 8, hysteresis: 2 };
    let mut tuner = PathTuner::new(SampleWindow::new(INTERVAL, 0, 1200, 4), ModelSettings::default(), guards, 64);
    let mut upstream = Upstream { knee: 16.0, per_slot: 100.0, interval_ns: INTERVAL, rng: Rng::new(3) };
    let mut slowest = Duration::ZERO;
    let mut total = Duration::ZERO;
    let mut decisions = 0;
    for k in 0..12_000u64 {
        let clients = 2.0 + (k % 480) as f64 / 12.0;
        for record in upstream.interval(k * INTERVAL, clients, tuner.limit()) {
            tuner.merge(&record, (k + 1) * INTERVAL).unwrap();
        }
        if k >= 1200 && k % 200 == 0 {
            let started = Instant::now();
            let decision = tuner.decide((k + 1) * INTERVAL);
            let took = started.elapsed();
            assert_eq!(decision.samples, 1200);
            slowest = slowest.max(took);
            total += took;
            decisions += 1;
        }
    }
    println!("decide on 1200 samples: mean {:?}, slowest {slowest:?} of {decisions}", total / decisions);
    assert!(slowest < Duration::from_millis(200), "{slowest:?}");
}

#[test]
fn recording_a_request_takes_well_under_a_microsecond_or_so() {
    let mut acc = IntervalAccumulator::starting_at(INTERVAL, 0, 64);
    let requests = 1_000_000u64;
    let started = Instant::now();
    for i in 0..requests {
        // About 2 requests per microsecond, each in service 40 µs.
        let t = i * 500;
        acc.admitted(t);
        acc.released(t, t + 40_000);
        if i % 1000 == 0 {
            while acc.pop_closed().is_some() {}
        }
    }
    let per_request = started.elapsed() / requests as u32;
    println!("admission and release recorded in {per_request:?} per request");
    assert!(per_request < Duration::from_micros(5), "{per_request:?}");
    assert_eq!(acc.dropped(), 0);
}
