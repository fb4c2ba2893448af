//! How precise the pauses are, measured on a busy child and printed: for each pause, what the agent reports (from
//! the stop signal sent to the continue signal sent) against its target, and the gap the child itself saw in its
//! progress. `cargo test --release --test precision -- --nocapture` prints the table; the bounds asserted are
//! generous, for a shared machine.

mod support;

use std::thread;
use std::time::Duration;

use support::{Agent, gaps, number};

const MS: u64 = 1_000_000;
const PAUSES: u64 = 40;
const LENGTH: u64 = 25 * MS;

#[test]
fn pauses_of_25_ms_on_a_busy_child() {
    let agent = Agent::with_progress_child("precision");
    let mut control = agent.connect();
    let mut pauses = Vec::new();
    for round in 1..=PAUSES {
        let reply = control.request(&format!("PAUSE {round} {LENGTH}"));
        assert_eq!(reply["reply"], "PAUSED", "{reply:?}");
        pauses.push((
            number(&reply, "at_ns") as u64,
            number(&reply, "target_ns") as u64,
            number(&reply, "stopped_ns") as u64,
            number(&reply, "oversleep_ns"),
        ));
        // A round every 50 ms: the child runs between pauses, as a service between rounds.
        thread::sleep(Duration::from_millis(25));
    }
    thread::sleep(Duration::from_millis(50));
    let seen = gaps(&agent.drain());

    // Over the target, per pause (the agent's own measure), and the child's gap against the agent's report.
    let mut over: Vec<i64> = pauses.iter().map(|&(_, target, stopped, _)| stopped as i64 - target as i64).collect();
    let mut gap_error = Vec::new();
    for &(at, _, stopped, _) in &pauses {
        let gap = seen.iter().find(|(start, end)| *start < at + stopped && *end > at);
        let (start, end) = *gap.unwrap_or_else(|| panic!("no gap in the child's progress for the pause at {at}"));
        gap_error.push((end - start) as i64 - stopped as i64);
    }
    let total_stopped: u64 = pauses.iter().map(|p| p.2).sum();
    let oversleep = pauses.last().map(|p| p.3).unwrap_or(0);
    over.sort_unstable();
    gap_error.sort_unstable();
    let us = |ns: i64| ns as f64 / 1_000.0;
    let quantile = |v: &[i64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!("{PAUSES} pauses of {} ms on a busy child:", LENGTH / MS);
    println!(
        "  stopped - target (agent): min {:.1} µs, p50 {:.1} µs, p90 {:.1} µs, max {:.1} µs",
        us(over[0]),
        us(quantile(&over, 0.5)),
        us(quantile(&over, 0.9)),
        us(*over.last().unwrap())
    );
    println!(
        "  child's gap - stopped:     min {:.1} µs, p50 {:.1} µs, p90 {:.1} µs, max {:.1} µs",
        us(gap_error[0]),
        us(quantile(&gap_error, 0.5)),
        us(quantile(&gap_error, 0.9)),
        us(*gap_error.last().unwrap())
    );
    println!(
        "  total stopped {:.3} ms for {:.3} ms asked: oversleep left {:.1} µs ({:.4} %)",
        total_stopped as f64 / 1e6,
        (PAUSES * LENGTH) as f64 / 1e6,
        us(oversleep),
        100.0 * oversleep as f64 / (PAUSES * LENGTH) as f64
    );

    assert!(over[0] >= 0, "a pause ended before its target");
    assert!(quantile(&over, 0.5) < MS as i64, "half the pauses overslept by a millisecond or more");
    assert!(oversleep.abs() < 2 * MS as i64, "the oversleep was not repaid: {oversleep} ns left");
    // The child stood still for the whole pause, give or take its own clock reads and the signals' delivery.
    assert!(quantile(&gap_error, 0.5).abs() < MS as i64, "the child's gaps do not match the pauses");
}
