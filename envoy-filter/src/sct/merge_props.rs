//! Property-style tests of the whole path a sample takes across workers: requests split at random between
//! workers, each worker's accumulator closed at its own random moments, every record through the wire, and the
//! records merged in a random order must give exactly the sums of one accumulator that saw every request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::accumulator::IntervalAccumulator;
use super::interval::IntervalTotals;
use super::testing::Rng;
use super::window::SampleWindow;
use super::wire::{decode_all, WorkerInterval};

const INTERVAL: u64 = 50_000_000;
const ORIGIN: u64 = 1_000 * INTERVAL;
const SPAN: u64 = 40 * INTERVAL;

/// At one instant: waits start before they end, and a request arrives before it leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    WaitStart,
    WaitEnd,
    Arrive,
    Depart,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    t: u64,
    kind: Kind,
    arrival: u64,
    worker: usize,
}

struct Case {
    events: Vec<Event>,
    workers: usize,
    service_ns: u64,
    requests: u64,
}

fn case(rng: &mut Rng) -> Case {
    let workers = 1 + rng.below(4) as usize;
    let mut events = Vec::new();
    let (mut service_ns, mut requests) = (0, 0);
    for _ in 0..rng.below(300) {
        let worker = rng.below(workers as u64) as usize;
        // Some on boundaries, some taking no time, some spanning many intervals.
        let arrival = ORIGIN + if rng.below(8) == 0 { rng.below(30) * INTERVAL } else { rng.below(30 * INTERVAL) };
        let service = match rng.below(4) {
            0 => 0,
            1 => rng.below(5 * INTERVAL),
            _ => rng.below(INTERVAL / 2),
        };
        if rng.below(3) == 0 {
            let waited = rng.below(INTERVAL).min(arrival - ORIGIN);
            events.push(Event { t: arrival - waited, kind: Kind::WaitStart, arrival, worker });
            events.push(Event { t: arrival, kind: Kind::WaitEnd, arrival, worker });
        }
        events.push(Event { t: arrival, kind: Kind::Arrive, arrival, worker });
        events.push(Event { t: arrival + service, kind: Kind::Depart, arrival, worker });
        service_ns += service;
        requests += 1;
    }
    events.sort();
    Case { events, workers, service_ns, requests }
}

fn feed(acc: &mut IntervalAccumulator, e: &Event) {
    match e.kind {
        Kind::WaitStart => acc.wait_started(e.t),
        Kind::WaitEnd => acc.wait_ended(e.t),
        Kind::Arrive => acc.admitted(e.t),
        Kind::Depart => acc.released(e.arrival, e.t),
    }
}

fn window() -> SampleWindow {
    SampleWindow::new(INTERVAL, ORIGIN, (SPAN / INTERVAL) as usize, 0)
}

fn totals(window: &SampleWindow) -> Vec<IntervalTotals> {
    window.totals_through(ORIGIN + SPAN).collect()
}

/// One accumulator fed every request: what the path did.
fn alone(case: &Case) -> Vec<IntervalTotals> {
    let mut acc = IntervalAccumulator::starting_at(INTERVAL, ORIGIN, 64);
    let mut w = window();
    for e in &case.events {
        feed(&mut acc, e);
    }
    acc.close_until(ORIGIN + SPAN);
    while let Some(t) = acc.pop_closed() {
        w.merge(&WorkerInterval { worker: 0, interval_ns: INTERVAL, totals: t }, ORIGIN + SPAN).unwrap();
    }
    totals(&w)
}

/// Each worker's share through its own accumulator, collected at random ticks and published as bytes; the
/// records then merged in a random order.
fn split(case: &Case, rng: &mut Rng) -> Vec<IntervalTotals> {
    let mut accs: Vec<IntervalAccumulator> =
        (0..case.workers).map(|_| IntervalAccumulator::starting_at(INTERVAL, ORIGIN, 64)).collect();
    let mut published: Vec<Vec<u8>> = vec![Vec::new(); case.workers];
    let collect = |acc: &mut IntervalAccumulator, worker: usize, value: &mut Vec<u8>| {
        while let Some(totals) = acc.pop_closed() {
            WorkerInterval { worker: worker as u32, interval_ns: INTERVAL, totals }.encode_into(value);
        }
    };
    for e in &case.events {
        feed(&mut accs[e.worker], e);
        if rng.below(10) == 0 {
            let w = rng.below(case.workers as u64) as usize;
            accs[w].close_until(e.t);
            collect(&mut accs[w], w, &mut published[w]);
        }
    }
    for (w, acc) in accs.iter_mut().enumerate() {
        acc.close_until(ORIGIN + SPAN);
        collect(acc, w, &mut published[w]);
        assert_eq!(acc.dropped(), 0);
    }
    let mut records: Vec<WorkerInterval> = published.iter().flat_map(|v| decode_all(v)).collect();
    for i in (1..records.len()).rev() {
        records.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut w = window();
    for r in &records {
        w.merge(r, ORIGIN + SPAN).unwrap();
    }
    totals(&w)
}

#[test]
fn merging_the_workers_records_in_any_order_gives_exactly_the_sums_of_one_worker_that_saw_everything() {
    let mut rng = Rng::new(2025);
    for round in 0..300 {
        let case = case(&mut rng);
        let expected = alone(&case);
        // Nothing lost: every request's time in service and its completion are in the sums.
        let in_service: u64 = expected.iter().map(|t| t.in_service_ns).sum();
        let response: u64 = expected.iter().map(|t| t.response_ns).sum();
        let completions: u64 = expected.iter().map(|t| t.completions).sum();
        assert_eq!((in_service, response, completions), (case.service_ns, case.service_ns, case.requests));
        let once = split(&case, &mut rng);
        assert_eq!(once, expected, "round {round}, {} workers", case.workers);
        assert_eq!(split(&case, &mut rng), once, "round {round}: another order, other ticks");
    }
}

#[test]
fn a_worker_that_stops_publishing_loses_only_what_it_had_not_published() {
    let mut rng = Rng::new(7);
    let case = loop {
        let c = case(&mut rng);
        if c.workers == 2 && c.requests > 50 {
            break c;
        }
    };
    let expected = alone(&case);
    // Worker 1 publishes everything; worker 0 goes away at the middle of the span, after publishing what closed.
    let gone_at = ORIGIN + SPAN / 2;
    let mut accs = [
        IntervalAccumulator::starting_at(INTERVAL, ORIGIN, 64),
        IntervalAccumulator::starting_at(INTERVAL, ORIGIN, 64),
    ];
    for e in case.events.iter().filter(|e| e.worker == 1 || e.t < gone_at) {
        feed(&mut accs[e.worker], e);
    }
    accs[0].close_until(gone_at);
    accs[1].close_until(ORIGIN + SPAN);
    let mut w = window();
    for (worker, acc) in accs.iter_mut().enumerate() {
        while let Some(totals) = acc.pop_closed() {
            w.merge(&WorkerInterval { worker: worker as u32, interval_ns: INTERVAL, totals }, ORIGIN + SPAN).unwrap();
        }
    }
    let merged = totals(&w);
    let half = (SPAN / 2 / INTERVAL) as usize;
    let worker_one = {
        let only_one = Case {
            events: case.events.iter().copied().filter(|e| e.worker == 1).collect(),
            workers: 1,
            service_ns: 0,
            requests: 0,
        };
        alone(&only_one)
    };
    for (k, (m, e)) in merged.iter().zip(&expected).enumerate() {
        if k < half {
            assert_eq!(m, e, "interval {k}: before worker 0 went away, nothing is lost");
        } else {
            assert_eq!(m, &worker_one[k], "interval {k}: after, worker 1's records alone");
        }
    }
}
