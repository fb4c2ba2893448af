//! Tuning across workers, on the mock host: samples added up in shared data, one analyst at a time, limits applied
//! by every worker, shrinking without over-admitting, and the lease taken over from a worker that went away.

use std::collections::VecDeque;

use super::tuning::{lease_key, limit_key, rounds_key};
use super::*;
use crate::sct::verdict::Verdict;
use crate::testing::MockHost;
use crate::tuning::published;
use crate::tuning::samples::SampleKeys;

const A: PathIndex = PathIndex(0);
const INTERVAL_MS: u64 = 50;
/// A window longer than the worker lease, so that a worker taking over still finds what the one before published.
const WINDOW_S: u64 = 10;
const WINDOW_INTERVALS: u64 = WINDOW_S * 1000 / INTERVAL_MS;

fn config(start: u32, bounds: &str) -> Config {
    let json = format!(
        r#"{{"paths": [{{"name": "a", "match": {{"prefix": "/a"}}, "max_concurrency": {start}, "max_queue": 64,
                         "queue_timeout_ms": 600000{bounds}}}],
            "worker_lease_ms": 4000,
            "tuning": {{"interval_ms": {INTERVAL_MS}, "window_s": {WINDOW_S}, "period_s": 1, "max_step": 4}}}}"#
    );
    Config::parse(json.as_bytes()).unwrap()
}

/// A worker and the requests it holds, oldest first.
struct W {
    worker: Worker<MockHost>,
    admitted: VecDeque<u32>,
    waiting: VecDeque<u32>,
}

struct Run {
    host: MockHost,
    workers: Vec<W>,
    next_stream: u32,
}

impl Run {
    fn new(workers: usize, start: u32) -> Run {
        let host = MockHost::default();
        host.clock.set(1_000_000);
        let workers = (0..workers)
            .map(|_| W {
                worker: Worker::start(host.clone(), config(start, "")).unwrap(),
                admitted: VecDeque::new(),
                waiting: VecDeque::new(),
            })
            .collect();
        Run { host, workers, next_stream: 1 }
    }

    fn settle(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            if let Effect::Resume { context } = effect {
                for w in &mut self.workers {
                    if let Some(at) = w.waiting.iter().position(|c| *c == context) {
                        w.waiting.remove(at);
                        w.admitted.push_back(context);
                    }
                }
            }
        }
    }

    fn arrive(&mut self, w: usize) {
        let stream = self.next_stream;
        self.next_stream += 1;
        let mut fx = Vec::new();
        let decision = self.workers[w].worker.on_request(stream, A, &mut fx);
        match decision {
            Decision::Continue => self.workers[w].admitted.push_back(stream),
            Decision::Wait => self.workers[w].waiting.push_back(stream),
            // A full queue: the request got its 503 and holds nothing.
            Decision::Reject { .. } => {}
        }
        self.settle(fx);
    }

    fn end_oldest(&mut self, w: usize) {
        let Some(stream) = self.workers[w].admitted.pop_front() else { return };
        let mut fx = Vec::new();
        self.workers[w].worker.on_stream_end(stream, &mut fx);
        self.settle(fx);
    }

    fn tick(&mut self, w: usize) {
        let mut fx = Vec::new();
        self.workers[w].worker.on_tick(&mut fx);
        self.settle(fx);
    }

    fn inflight(&self) -> u64 {
        counters::load(&self.host, &format!("{KEY_PREFIX}a.inflight")).unwrap()
    }

    fn published(&self) -> u32 {
        published::read(&self.host, &limit_key("a")).unwrap().unwrap().limit
    }

    fn decisions(&self) -> i64 {
        Verdict::ALL.iter().map(|v| self.host.metric(A, Metric::decisions(*v))).sum()
    }

    /// `ms` of a closed loop on the workers in `live`: every 10 ms each ends its oldest request and a new one
    /// arrives, so that the path stays pinned at its limit with requests waiting; every live worker ticks.
    fn pinned(&mut self, live: &[usize], ms: u64) {
        for _ in 0..ms / 10 {
            self.host.advance(10);
            for &w in live {
                self.end_oldest(w);
                self.arrive(w);
                self.tick(w);
            }
        }
    }
}

#[test]
fn the_samples_of_every_worker_add_up_in_shared_data() {
    let mut run = Run::new(2, 8);
    for w in 0..2 {
        for _ in 0..3 {
            run.arrive(w);
        }
    }
    // Each worker ends one request and starts one every 10 ms for 500 ms: 50 completions each.
    run.pinned(&[0, 1], 500);
    let keys = SampleKeys::new(KEY_PREFIX, "a", INTERVAL_MS * 1_000_000, WINDOW_INTERVALS);
    let records = keys.read_all(&run.host);
    let by = |worker: u32| -> u64 {
        records.iter().filter(|r| r.worker == worker).map(|r| r.totals.completions).sum::<u64>()
    };
    let (w1, w2) = (run.workers[0].worker.id(), run.workers[1].worker.id());
    // The intervals that closed by the last tick are published; the one still open is not.
    assert!((45..=50).contains(&by(w1)), "{}", by(w1));
    assert_eq!(by(w1), by(w2));
    // Three requests in service on each worker the whole time: 3 · 50 ms of request time per interval.
    assert!(records.iter().all(|r| r.totals.in_service_ns == 3 * INTERVAL_MS * 1_000_000), "{records:?}");
}

#[test]
fn exactly_one_worker_analyses_and_every_worker_applies_the_published_limit() {
    let mut run = Run::new(2, 8);
    for w in 0..2 {
        for _ in 0..6 {
            run.arrive(w);
        }
    }
    assert_eq!((run.inflight(), run.published()), (8, 8));
    assert_eq!(run.host.metric(A, Metric::Limit), 8, "the first worker reported the starting limit, once");
    run.pinned(&[0, 1], 1_300);
    assert_eq!(run.decisions(), 1);
    assert_eq!(published::rounds(&run.host, &rounds_key()).unwrap(), 1);
    let limit = run.published();
    assert_eq!(run.workers[0].worker.config().limit(A), Some(limit));
    assert_eq!(run.workers[1].worker.config().limit(A), Some(limit));
    assert_eq!(run.host.metric(A, Metric::Limit), i64::from(limit));
    let holder = crate::tuning::lease::holder(&run.host, &lease_key()).unwrap();
    assert!(run.workers.iter().any(|w| Some(w.worker.id()) == holder));
    run.pinned(&[0, 1], 1_000);
    assert_eq!(run.decisions(), 2, "one decision a period, whichever worker ticks first");
}

#[test]
fn a_limit_that_shrinks_admits_nobody_over_it_and_strands_nobody() {
    let mut run = Run::new(2, 8);
    for w in 0..2 {
        for _ in 0..6 {
            run.arrive(w);
        }
    }
    // An analyst's decision, before the first period ends: 5 where 8 are held.
    published::publish(&run.host, &limit_key("a"), published::Published { limit: 5, q_lower: 5, q_upper: 9 }).unwrap();
    published::bump(&run.host, &rounds_key()).unwrap();
    let mut before = run.inflight();
    for _ in 0..80 {
        run.pinned(&[0, 1], 10);
        let now = run.inflight();
        let applied = run.workers.iter().map(|w| u64::from(w.worker.config().limit(A).unwrap())).max().unwrap();
        assert!(now <= before || now <= applied, "{now} in flight, up from {before}, over the limit {applied}");
        before = now;
    }
    // A slot freed last may wait for the tick of the worker with the oldest waiter.
    for _ in 0..2 {
        run.host.advance(2);
        run.tick(0);
        run.tick(1);
    }
    let limit = u64::from(run.published());
    assert_eq!(limit, 5);
    assert!(run.workers.iter().all(|w| w.worker.config().limit(A) == Some(5)));
    // Drained to the new limit, and the waiters are served at it.
    assert_eq!(run.inflight(), limit);
    let admitted: usize = run.workers.iter().map(|w| w.admitted.len()).sum();
    let waiting: usize = run.workers.iter().map(|w| w.waiting.len()).sum();
    assert_eq!((admitted as u64, waiting), (limit, 12 - admitted));
}

/// Two requests on each worker, then an analyst's decision of 3: what the workers hold.
fn lowered_to_three() -> Run {
    let mut run = Run::new(2, 8);
    for w in 0..2 {
        for _ in 0..2 {
            run.arrive(w);
        }
    }
    published::publish(&run.host, &limit_key("a"), published::Published { limit: 3, q_lower: 3, q_upper: 4 }).unwrap();
    published::bump(&run.host, &rounds_key()).unwrap();
    run
}

#[test]
fn a_lowered_limit_holds_on_every_worker_before_its_next_tick() {
    let mut run = lowered_to_three();
    assert_eq!(run.inflight(), 4);
    // Neither worker has ticked since: both still have the limit of 8 they started with.
    for w in [1, 0, 1] {
        run.arrive(w);
        assert_eq!(run.inflight(), 4, "a request on worker {w} was admitted over the published limit");
    }
    assert!(run.workers.iter().all(|w| w.worker.config().limit(A) == Some(3)), "applied on the way");
    let waiting: usize = run.workers.iter().map(|w| w.waiting.len()).sum();
    assert_eq!(waiting, 3);
    // They drain to the new limit and are served at it.
    for _ in 0..4 {
        run.host.advance(2);
        run.end_oldest(0);
        run.end_oldest(1);
        run.tick(0);
        run.tick(1);
    }
    assert!(run.inflight() <= 3);
}

#[test]
fn a_published_limit_that_cannot_be_read_is_applied_on_a_later_tick() {
    let mut run = lowered_to_three();
    run.host.store.fail_reads_of(Some(".limit"));
    run.host.advance(2);
    run.tick(1);
    assert_eq!(run.workers[1].worker.config().limit(A), Some(8), "not read");
    run.host.store.fail_reads_of(None);
    run.host.advance(2);
    run.tick(1);
    assert_eq!(run.workers[1].worker.config().limit(A), Some(3), "the round was not taken as applied");
}

#[test]
fn a_path_whose_count_cannot_be_read_stops_draining_after_the_worker_lease_but_not_before() {
    let mut run = lowered_to_three();
    run.host.advance(2);
    run.tick(0);
    assert!(run.workers[0].worker.draining(A), "4 held against a limit of 3");
    // A read that fails for a moment keeps it draining, until the count is read under the limit.
    run.host.store.fail_reads_of(Some("a.inflight"));
    for _ in 0..50 {
        run.host.advance(2);
        run.tick(0);
    }
    assert!(run.workers[0].worker.draining(A));
    run.host.store.fail_reads_of(None);
    run.end_oldest(0);
    run.host.advance(2);
    run.tick(0);
    assert!(!run.workers[0].worker.draining(A), "3 held: drained");
    // A count that stays unreadable: draining ends once the reads have failed for the worker lease.
    published::publish(&run.host, &limit_key("a"), published::Published { limit: 2, q_lower: 2, q_upper: 3 }).unwrap();
    published::bump(&run.host, &rounds_key()).unwrap();
    run.host.advance(2);
    run.tick(0);
    assert!(run.workers[0].worker.draining(A), "3 held against a limit of 2");
    run.host.store.fail_reads_of(Some("a.inflight"));
    let lease_ms = run.workers[0].worker.config().worker_lease_ms;
    let mut drained_after_ms = None;
    for step in 1..=(lease_ms / 10 + 10) {
        run.host.advance(10);
        run.tick(0);
        if !run.workers[0].worker.draining(A) {
            drained_after_ms = Some(step * 10);
            break;
        }
    }
    let after = drained_after_ms.expect("still draining after the worker lease of failed reads");
    assert!((lease_ms..lease_ms + 20).contains(&after), "{after} ms");
}

#[test]
fn an_analyst_that_stops_heart_beating_is_replaced_and_its_published_samples_are_kept() {
    let mut run = Run::new(2, 8);
    for w in 0..2 {
        for _ in 0..6 {
            run.arrive(w);
        }
    }
    run.pinned(&[0, 1], 1_100);
    let holder = crate::tuning::lease::holder(&run.host, &lease_key()).unwrap().unwrap();
    let (gone, other) = if run.workers[0].worker.id() == holder { (0, 1) } else { (1, 0) };
    let gone_id = run.workers[gone].worker.id();
    let decided = run.decisions();
    // The analyst stops: no tick, no heartbeat. Within its lease the other worker does not decide.
    run.pinned(&[other], 3_000);
    assert_eq!(run.decisions(), decided);
    run.pinned(&[other], 3_000);
    let taken = crate::tuning::lease::holder(&run.host, &lease_key()).unwrap();
    assert_eq!(taken, Some(run.workers[other].worker.id()));
    assert!(run.decisions() > decided);
    // What the stopped worker published is still in the window.
    let keys = SampleKeys::new(KEY_PREFIX, "a", INTERVAL_MS * 1_000_000, WINDOW_INTERVALS);
    assert!(keys.read_all(&run.host).iter().any(|r| r.worker == gone_id));
    // Back, it finds the lease taken and does not decide beside the new analyst.
    let before = run.decisions();
    run.pinned(&[0, 1], 1_000);
    assert_eq!(run.decisions(), before + 1);
}

#[test]
fn a_retired_worker_gives_the_lease_up_and_publishes_what_it_closed() {
    let mut run = Run::new(1, 8);
    for _ in 0..4 {
        run.arrive(0);
    }
    run.pinned(&[0], 1_120);
    assert!(crate::tuning::lease::holder(&run.host, &lease_key()).unwrap().is_some());
    // An interval ends after its last tick: retiring publishes it.
    run.host.advance(60);
    let mut fx = Vec::new();
    run.workers[0].worker.retire(&mut fx);
    assert_eq!(crate::tuning::lease::holder(&run.host, &lease_key()).unwrap(), None);
    let keys = SampleKeys::new(KEY_PREFIX, "a", INTERVAL_MS * 1_000_000, WINDOW_INTERVALS);
    let newest = keys.read_all(&run.host).iter().map(|r| r.totals.start_ns / 1_000_000).max().unwrap();
    // Every interval that ended before it retired is out; only the open one is not.
    assert_eq!(newest, 1_001_100);
}

#[test]
fn a_new_configuration_goes_on_from_the_published_limit_within_its_bounds() {
    let mut run = Run::new(1, 8);
    for _ in 0..10 {
        run.arrive(0);
    }
    run.pinned(&[0], 1_100);
    assert_eq!(run.published(), 6);
    let next = Worker::start(run.host.clone(), config(8, "")).unwrap();
    assert_eq!(next.config().limit(A), Some(6));
    let narrower = Worker::start(run.host.clone(), config(8, r#", "tuning": {"min": 7}"#)).unwrap();
    assert_eq!(narrower.config().limit(A), Some(7));
    assert_eq!(run.host.metric(A, Metric::Limit), 7, "the gauge follows what is published");
}

#[test]
fn the_starting_limit_reaches_the_gauge_from_a_worker_that_never_flushes() {
    let host = MockHost::default();
    // Envoy's main thread configures the filter too, and never ticks: its batched deltas would never go out.
    let main_thread = host.batching();
    let _first = Worker::start(main_thread.clone(), config(32, "")).unwrap();
    let _second = Worker::start(host.batching(), config(32, "")).unwrap();
    assert_eq!(host.metric(A, Metric::Limit), 32);
    assert_eq!(main_thread.unflushed(A, Metric::Limit), 0);
}

#[test]
fn without_tuning_nothing_is_sampled_or_published() {
    let host = MockHost::default();
    let json = br#"{"paths": [{"name": "a", "max_concurrency": 2}]}"#;
    let mut w = Worker::start(host.clone(), Config::parse(json).unwrap()).unwrap();
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    host.advance(2_000);
    w.on_tick(&mut fx);
    w.on_stream_end(1, &mut fx);
    assert_eq!(published::read(&host, &limit_key("a")).unwrap(), None);
    assert_eq!(SampleKeys::new(KEY_PREFIX, "a", 50_000_000, 1200).read_all(&host), vec![]);
    assert_eq!(host.metric(A, Metric::Limit), 0);
}

/// Three workers interleaved at random, with lost compare-and-swaps, stalls longer than the lease (the others then
/// take its lease and reclaim its slots): every round of decisions is one analyst's (the decision counters add up
/// to the rounds published), no request is admitted over the limit of the worker that admits it, and once every
/// request has ended no slot is left in the count.
#[test]
fn three_workers_at_random_keep_one_analyst_and_never_over_admit() {
    for seed in 1..=12u64 {
        let mut rng = crate::sct::testing::Rng::new(seed);
        let mut run = Run::new(3, 12);
        let mut stalled: Vec<u64> = vec![0; 3];
        // A worker back from a stall puts its reclaimed share back on its first tick (see `reassert_share`): the
        // path may then hold more than its limit, by design, until enough of its requests end.
        let mut back: Vec<bool> = vec![false; 3];
        for step in 0..4_000 {
            run.host.advance(1 + rng.below(4));
            let w = rng.below(3) as usize;
            let now = run.host.clock.get();
            if stalled[w] > now {
                continue;
            }
            let before = run.inflight();
            let admitting = matches!(rng.below(20), 0..=7);
            let op = rng.below(20);
            let reasserts = back[w] && !admitting && (10..=16).contains(&op);
            if reasserts {
                back[w] = false;
            }
            match op {
                _ if admitting => run.arrive(w),
                0..=9 => run.end_oldest(w),
                10..=16 => run.tick(w),
                17 => run.host.store.fail_next_cas(rng.below(3) as usize),
                _ => {
                    if rng.below(20) == 0 {
                        stalled[w] = now + 5_000 + rng.below(2_000);
                        back[w] = true;
                    }
                }
            }
            let after = run.inflight();
            // The limit in force is the one published, whether or not the worker has ticked since.
            let limit = u64::from(run.workers[w].worker.config().limit(A).unwrap().min(run.published()));
            if after > before && !reasserts {
                assert!(after <= limit, "seed {seed} step {step}: {after} in flight, up from {before}, over {limit}");
            }
            let rounds = published::rounds(&run.host, &rounds_key()).unwrap();
            assert_eq!(run.decisions(), rounds as i64, "seed {seed} step {step}: a round without one analyst");
        }
        // Everything ends, the waiters served on the way: no slot is left.
        for _ in 0..2_000 {
            if run.workers.iter().all(|w| w.admitted.is_empty() && w.waiting.is_empty()) {
                break;
            }
            run.host.advance(5);
            for w in 0..3 {
                run.end_oldest(w);
                run.tick(w);
            }
        }
        assert!(run.workers.iter().all(|w| w.admitted.is_empty() && w.waiting.is_empty()), "seed {seed}");
        for _ in 0..30 {
            run.host.advance(100);
            for w in 0..3 {
                run.tick(w);
            }
        }
        assert_eq!(run.inflight(), 0, "seed {seed}");
    }
}
