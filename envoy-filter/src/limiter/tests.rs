use std::collections::VecDeque;
use std::rc::Rc;

use super::*;
use crate::host::{Clock, SharedStore};
use crate::pace::TickWork;
use crate::per_path::PathIndex;
use crate::testing::MockHost;

const A: PathIndex = PathIndex(0);
const B: PathIndex = PathIndex(1);
const LOCAL: PathIndex = PathIndex(2);

fn config(extra: &str) -> Config {
    let json = format!(
        r#"{{"paths": [
            {{"name": "a", "match": {{"prefix": "/a"}}, "max_concurrency": 2, "max_queue": 2, "queue_timeout_ms": 100}},
            {{"name": "b", "match": {{"prefix": "/b"}}, "max_concurrency": 3, "max_queue": 2, "queue_timeout_ms": 100}}
        ]{extra}}}"#
    );
    Config::parse(json.as_bytes()).unwrap()
}

fn worker(host: &MockHost, extra: &str) -> Worker<MockHost> {
    Worker::start(host.clone(), config(extra)).unwrap()
}

/// Two workers: w1 holds both of a's slots (requests 1 and 2), and request 3 waits for one on w2.
fn a_full_on_w1_and_a_waiter_on_w2(host: &MockHost) -> (Worker<MockHost>, Worker<MockHost>) {
    let (mut w1, mut w2) = (worker(host, ""), worker(host, ""));
    let mut fx = Vec::new();
    w1.on_request(1, A, &mut fx);
    w1.on_request(2, A, &mut fx);
    assert_eq!(w2.on_request(3, A, &mut fx), Decision::Wait);
    assert!(fx.is_empty());
    (w1, w2)
}

fn inflight(host: &MockHost, name: &str) -> u64 {
    counters::load(host, &format!("{KEY_PREFIX}{name}.inflight")).unwrap()
}

#[test]
fn a_path_never_holds_more_than_its_limit_across_workers() {
    let host = MockHost::default();
    let (mut w1, mut w2) = (worker(&host, ""), worker(&host, ""));
    assert_ne!(w1.id(), w2.id());
    let mut fx = Vec::new();
    assert_eq!(w1.on_request(1, A, &mut fx), Decision::Continue);
    assert_eq!(w2.on_request(2, A, &mut fx), Decision::Continue);
    assert_eq!(w1.on_request(3, A, &mut fx), Decision::Wait);
    assert_eq!(w2.on_request(4, A, &mut fx), Decision::Wait);
    // Path b is untouched by a's overflow.
    assert_eq!(w1.on_request(5, B, &mut fx), Decision::Continue);
    assert!(fx.is_empty());
    assert_eq!(inflight(&host, "a"), 2);
    assert_eq!(host.metric(A, Metric::Active), 2);
    assert_eq!(host.metric(A, Metric::Queued), 2);
}

#[test]
fn a_slot_freed_on_the_same_worker_goes_to_its_first_waiter_at_once() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    w.on_request(2, A, &mut fx);
    w.on_request(3, A, &mut fx);
    w.on_request(4, A, &mut fx);
    w.on_stream_end(1, &mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    assert_eq!(inflight(&host, "a"), 2);
    assert_eq!(host.metric(A, Metric::Queued), 1);
    assert_eq!(host.metric(A, Metric::Granted), 3);
}

#[test]
fn a_slot_freed_while_another_worker_waits_goes_back_and_is_picked_up_on_its_tick() {
    let host = MockHost::default();
    let (mut w1, mut w2) = a_full_on_w1_and_a_waiter_on_w2(&host);
    let mut fx = Vec::new();
    // w1 has not looked at the other workers' waiters since w2's arrived: it keeps the slot as a spare until
    // its tick, which gives it back to the shared count.
    w1.on_stream_end(1, &mut fx);
    assert!(fx.is_empty(), "w1 has no waiter of its own");
    assert_eq!(inflight(&host, "a"), 2);
    assert_eq!(w2.tick_work(), TickWork::Prompt, "a waiter calls for the prompt pace");
    w1.on_tick(&mut fx);
    assert_eq!(inflight(&host, "a"), 1, "w2's waiter needs the slot in the shared count, not as w1's spare");
    assert_eq!(w1.tick_work(), TickWork::Prompt, "w1 has seen w2's waiter");
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    assert_eq!(inflight(&host, "a"), 2);
    // Now that w1 knows of waiters elsewhere, a slot it frees goes back at once.
    fx.clear();
    assert_eq!(w2.on_request(4, A, &mut fx), Decision::Wait);
    w1.on_stream_end(2, &mut fx);
    assert_eq!(inflight(&host, "a"), 1, "given back at once");
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 4 }]);
}

#[test]
fn a_full_queue_refuses_at_once() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    for c in 1..=4 {
        w.on_request(c, A, &mut fx);
    }
    assert_eq!(w.on_request(5, A, &mut fx), Decision::Reject { path: A, reason: Reason::QueueFull });
    assert_eq!(host.metric(A, Metric::RejectedQueueFull), 1);
    assert_eq!(w.tracked(), 4);
}

#[test]
fn a_wait_longer_than_the_timeout_is_refused_by_the_tick() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    for c in 1..=3 {
        w.on_request(c, A, &mut fx);
    }
    host.advance(99);
    w.on_tick(&mut fx);
    assert!(fx.is_empty());
    host.advance(1);
    w.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Reject { context: 3, path: A, reason: Reason::Timeout }]);
    assert_eq!(host.metric(A, Metric::RejectedTimeout), 1);
    assert_eq!(host.metric(A, Metric::Queued), 0);
    // The refusal ends the stream; that must not release a slot it never had.
    fx.clear();
    w.on_stream_end(3, &mut fx);
    assert_eq!(inflight(&host, "a"), 2);
}

#[test]
fn a_slot_is_released_exactly_once() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    w.on_stream_end(1, &mut fx);
    w.on_stream_end(1, &mut fx);
    w.on_tick(&mut fx);
    assert_eq!(inflight(&host, "a"), 0);
    assert_eq!(host.metric(A, Metric::Active), 0);
}

#[test]
fn a_waiter_that_disconnects_leaves_the_queue_without_a_slot() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    for c in 1..=3 {
        w.on_request(c, A, &mut fx);
    }
    w.on_stream_end(3, &mut fx);
    w.on_stream_end(1, &mut fx);
    w.on_tick(&mut fx);
    assert!(fx.is_empty());
    assert_eq!(inflight(&host, "a"), 1);
    assert_eq!(host.metric(A, Metric::Queued), 0);
}

#[test]
fn local_requests_borrow_from_the_least_busy_path_and_get_freed_slots_first() {
    let host = MockHost::default();
    let mut w = worker(&host, r#", "local": {"max_concurrency": 1, "max_queue": 4, "queue_timeout_ms": 100}"#);
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    assert_eq!(w.on_request(10, LOCAL, &mut fx), Decision::Continue);
    // Local is full: the next local request borrows from b, which has fewer in flight than a.
    assert_eq!(w.on_request(11, LOCAL, &mut fx), Decision::Continue);
    assert_eq!(inflight(&host, "b"), 1);
    assert_eq!(host.metric(B, Metric::Active), 1);
    w.on_request(2, A, &mut fx);
    w.on_request(12, LOCAL, &mut fx);
    w.on_request(13, LOCAL, &mut fx);
    w.on_request(3, B, &mut fx);
    w.on_request(4, B, &mut fx);
    assert_eq!(w.on_request(5, A, &mut fx), Decision::Wait);
    assert_eq!(w.on_request(14, LOCAL, &mut fx), Decision::Wait);
    // An a-slot frees while both a and local wait: the local request gets it (Algorithm 1, line 19).
    w.on_stream_end(1, &mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 14 }]);
    assert_eq!(inflight(&host, "a"), 2);
}

#[test]
fn without_borrowing_local_waits_for_its_own_slots() {
    let host = MockHost::default();
    let mut w = worker(&host, r#", "local": {"max_concurrency": 1, "borrow": false}"#);
    let mut fx = Vec::new();
    assert_eq!(w.on_request(10, LOCAL, &mut fx), Decision::Continue);
    assert_eq!(w.on_request(11, LOCAL, &mut fx), Decision::Wait);
    assert_eq!(inflight(&host, "b"), 0);
}

#[test]
fn an_unbounded_local_path_never_waits_and_never_touches_the_shared_counts() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    for c in 1..=50 {
        assert_eq!(w.on_request(c, LOCAL, &mut fx), Decision::Continue);
    }
    assert_eq!(inflight(&host, "local"), 0);
    assert_eq!(host.metric(LOCAL, Metric::Active), 50);
    for c in 1..=50 {
        w.on_stream_end(c, &mut fx);
    }
    assert_eq!(host.metric(LOCAL, Metric::Active), 0);
}

#[test]
fn the_slots_of_a_worker_that_went_away_are_reclaimed() {
    let host = MockHost::default();
    let (mut gone, mut alive) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    gone.on_request(1, A, &mut fx);
    gone.on_request(2, A, &mut fx);
    drop(gone);
    tick_through(&host, &mut alive, 10_000, &mut fx);
    assert_eq!(inflight(&host, "a"), 2, "the lease (10 s) has not run out yet");
    tick_through(&host, &mut alive, 2_000, &mut fx);
    assert_eq!(inflight(&host, "a"), 0);
    assert_eq!(host.metric(A, Metric::Active), 0);
    assert_eq!(alive.on_request(3, A, &mut fx), Decision::Continue);
}

#[test]
fn a_release_that_loses_every_race_is_retried_on_the_tick() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    w.on_stream_end(1, &mut fx);
    host.store.fail_next_cas(crate::cas::MAX_CAS_TRIES);
    w.on_tick(&mut fx);
    assert_eq!(inflight(&host, "a"), 1);
    assert_eq!((host.metric(A, Metric::Active), w.off_active(A)), (0, 1), "off `active` before it is released");
    assert_eq!(w.tick_work(), TickWork::Prompt, "a release to retry calls for the prompt pace");
    w.on_tick(&mut fx);
    assert_eq!(inflight(&host, "a"), 0);
    assert_eq!(w.tick_work(), TickWork::None);
}

/// Each worker hands its deltas to Envoy in batches: a slot freed on one worker and taken on the other shows once in
/// `active`, whichever hands its batch over first.
#[test]
fn a_slot_passed_between_workers_never_shows_twice_in_active() {
    let host = MockHost::default();
    let start = || Worker::start(host.batching(), config("")).unwrap();
    let (mut w1, mut w2) = (start(), start());
    let mut fx = Vec::new();
    w1.on_request(1, A, &mut fx);
    w1.on_request(2, A, &mut fx);
    w1.host().flush();
    assert_eq!(w2.on_request(3, A, &mut fx), Decision::Wait);
    // Freed, the slot stays a spare on w1 until its tick sees the waiter on w2 and gives it back to the shared
    // count; w2's tick takes it.
    w1.on_stream_end(1, &mut fx);
    w1.on_tick(&mut fx);
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    w2.host().flush();
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (2, 2), "w2 handed its batch over first");
    w1.host().flush();
    assert_eq!(host.metric(A, Metric::Active), 2);
}

/// A slot's `-1` to `active` goes to Envoy at once, as it goes back to the shared count: the `+1` of its admission,
/// still in the worker's batch, goes with it, or Envoy's unsigned gauge would read 1 below zero (2^64 - 1).
#[test]
fn active_never_reads_below_zero_when_a_slot_goes_back_before_its_admission_was_handed_over() {
    let host = MockHost::default();
    let start = || Worker::start(host.batching(), config("")).unwrap();
    let (mut w1, mut w2) = (start(), start());
    let mut fx = Vec::new();
    w1.on_request(1, A, &mut fx);
    w1.on_request(2, A, &mut fx);
    assert_eq!(w2.on_request(3, A, &mut fx), Decision::Wait);
    // No flush yet: w1's two admissions are still in its batch when it gives a slot back for w2's waiter.
    w1.on_stream_end(1, &mut fx);
    w1.on_tick(&mut fx);
    assert_eq!(inflight(&host, "a"), 1, "the slot went back to the shared count");
    assert_eq!(host.metric(A, Metric::Active), 1, "w1's part, exact: one slot held");
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    assert_eq!(host.metric(A, Metric::Active), 1, "w2's admission is still in its batch");
    w2.host().flush();
    w1.host().flush();
    assert_eq!(host.metric(A, Metric::Active), 2);
}

/// Request `context` of `class` comes and goes on a spare: no shared write for either.
fn reuse_a_spare(host: &MockHost, w: &mut Worker<MockHost>, context: u32, class: PathIndex) {
    let mut fx = Vec::new();
    let writes = host.store.writes();
    assert_eq!(w.on_request(context, class, &mut fx), Decision::Continue);
    w.on_stream_end(context, &mut fx);
    assert_eq!(host.store.writes(), writes, "request {context} took a spare and left one, without a shared write");
    assert!(fx.is_empty());
}

#[test]
fn a_spare_slot_is_reused_without_touching_shared_data() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    w.on_stream_end(1, &mut fx);
    reuse_a_spare(&host, &mut w, 2, A);
    assert_eq!(host.metric(A, Metric::Granted), 2);
    // The spare is still in the shared count, and so in `active`: the tick keeps it, since a request took it.
    assert_eq!(host.metric(A, Metric::Active), 1);
    w.on_tick(&mut fx);
    assert_eq!(host.metric(A, Metric::Active), 1);
    // No request took it since: the next tick gives it back.
    w.on_tick(&mut fx);
    assert_eq!(host.metric(A, Metric::Active), 0);
    assert_eq!(inflight(&host, "a"), 0);
}

#[test]
fn a_tick_keeps_as_many_spares_as_requests_took_since_the_last_one() {
    let host = MockHost::default();
    let (mut w1, mut w2) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    for c in 1..=3 {
        w1.on_request(c, B, &mut fx);
    }
    for c in 1..=3 {
        w1.on_stream_end(c, &mut fx);
    }
    assert_eq!((inflight(&host, "b"), w1.idle_slots(B)), (3, 3), "three spares, none taken yet");
    w1.on_tick(&mut fx);
    assert_eq!(inflight(&host, "b"), 0, "spares nobody took since the last tick all go back");
    for c in 4..=6 {
        w1.on_request(c, B, &mut fx);
    }
    for c in 4..=6 {
        w1.on_stream_end(c, &mut fx);
    }
    reuse_a_spare(&host, &mut w1, 7, B);
    w1.on_tick(&mut fx);
    assert_eq!(inflight(&host, "b"), 1, "one spare was taken since the last tick: one is kept, two go back");
    assert_eq!(w1.tick_work(), TickWork::Spares);
    // A waiter anywhere needs every slot in the shared count, taken or not.
    assert_eq!(w1.on_request(8, B, &mut fx), Decision::Continue);
    w1.on_stream_end(8, &mut fx);
    for c in 10..=11 {
        assert_eq!(w2.on_request(c, B, &mut fx), Decision::Continue);
    }
    assert_eq!(w2.on_request(12, B, &mut fx), Decision::Wait, "w1's spare fills b's third slot");
    w1.on_tick(&mut fx);
    assert_eq!(w1.idle_slots(B), 0, "w1 saw w2's waiter and gave its spare back, though a request took it");
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 12 }]);
}

#[test]
fn spares_that_fill_the_path_go_back_on_the_tick_though_requests_took_them() {
    let host = MockHost::default();
    // With no queue, a request refused on another worker never shows as a waiter.
    let json = r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 2, "max_queue": 0}]}"#;
    let config = || Config::parse(json.as_bytes()).unwrap();
    let (mut w1, mut w2) =
        (Worker::start(host.clone(), config()).unwrap(), Worker::start(host.clone(), config()).unwrap());
    let mut fx = Vec::new();
    for c in [1, 2] {
        w1.on_request(c, A, &mut fx);
    }
    w1.on_stream_end(2, &mut fx);
    assert_eq!(w1.on_request(3, A, &mut fx), Decision::Continue);
    w1.on_stream_end(3, &mut fx);
    assert_eq!(
        w2.on_request(10, A, &mut fx),
        Decision::Reject { path: A, reason: Reason::QueueFull },
        "w1's spare fills a"
    );
    w1.on_tick(&mut fx);
    assert_eq!(w1.idle_slots(A), 0, "taken since the last tick, but it filled the path");
    assert_eq!(w2.on_request(11, A, &mut fx), Decision::Continue);
}

#[test]
fn when_the_arrival_rate_drops_the_tick_gives_back_spares_requests_took() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    traffic(&host, &mut w, 1, 60, 2, 1);
    assert!(w.keeps_spares());
    let mut fx = Vec::new();
    w.on_request(99, B, &mut fx);
    w.on_stream_end(99, &mut fx);
    reuse_a_spare(&host, &mut w, 100, B);
    assert!(w.idle_slots(B) > 0);
    // A request took a spare since the last tick, but over the rate window requests came too slowly.
    host.advance(30);
    w.on_tick(&mut fx);
    assert!(!w.keeps_spares());
    assert_eq!(inflight(&host, "b"), 0);
}

#[test]
fn every_nth_request_pauses_admission_on_the_listed_paths_only() {
    let host = MockHost::default();
    let mut w = worker(&host, r#", "pause": {"every_requests": 2, "duration_ms": 50, "paths": ["a"]}"#);
    let mut fx = Vec::new();
    assert_eq!(w.on_request(1, A, &mut fx), Decision::Continue);
    assert_eq!(w.on_request(2, A, &mut fx), Decision::Continue);
    assert_eq!(w.on_request(3, A, &mut fx), Decision::Wait);
    assert_eq!(w.on_request(4, B, &mut fx), Decision::Continue);
    assert_eq!(host.metric(A, Metric::Paused), 1);
    w.on_stream_end(1, &mut fx);
    w.on_stream_end(2, &mut fx);
    host.advance(49);
    w.on_tick(&mut fx);
    assert!(fx.is_empty());
    assert_eq!(w.tick_work(), TickWork::Prompt, "a held request calls for the prompt pace");
    host.advance(1);
    w.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
}

#[test]
fn a_request_arriving_after_the_pause_does_not_overtake_the_held_ones() {
    let host = MockHost::default();
    let mut w = worker(&host, r#", "pause": {"every_requests": 1, "duration_ms": 10, "paths": ["a"]}"#);
    let mut fx = Vec::new();
    w.on_request(1, A, &mut fx);
    assert_eq!(w.on_request(2, A, &mut fx), Decision::Wait);
    host.advance(10);
    // The pause is over but no tick ran yet: the newcomer is held behind request 2, and its callback settles no
    // other stream. The tick lets request 2 through, which starts the next pause.
    assert_eq!(w.on_request(3, A, &mut fx), Decision::Wait);
    assert!(fx.is_empty(), "{fx:?}");
    w.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 2 }]);
    assert!(w.tracks(3), "request 3 is held by the pause request 2 started");
}

#[test]
fn a_busy_worker_does_not_starve_the_waiters_of_another_worker() {
    let host = MockHost::default();
    let (mut w1, mut w2) = (worker(&host, ""), worker(&host, ""));
    let (mut fx1, mut fx2) = (Vec::new(), Vec::new());
    let mut running: VecDeque<u32> = VecDeque::from([1, 2]);
    w1.on_request(1, A, &mut fx1);
    w1.on_request(2, A, &mut fx1);
    host.advance(1);
    assert_eq!(w2.on_request(100, A, &mut fx2), Decision::Wait);
    // w1 is busy: every millisecond one of its requests ends and a new one arrives; w1 ticks just before w2.
    let mut resumed_after_ms = None;
    for (ms, newcomer) in (3..40).enumerate() {
        host.advance(1);
        if let Some(done) = running.pop_front() {
            w1.on_stream_end(done, &mut fx1);
        }
        if w1.on_request(newcomer, A, &mut fx1) == Decision::Continue {
            running.push_back(newcomer);
        }
        w1.on_tick(&mut fx1);
        running.extend(fx1.drain(..).filter_map(|e| match e {
            Effect::Resume { context } => Some(context),
            Effect::Reject { .. } => None,
        }));
        w2.on_tick(&mut fx2);
        if fx2.contains(&Effect::Resume { context: 100 }) {
            resumed_after_ms = Some(ms + 1);
            break;
        }
    }
    // In the first millisecond w1 has not ticked since w2's waiter arrived, so its newcomer takes the slot its
    // ended request left; from w1's first tick on, w2's waiter is served first.
    assert_eq!(resumed_after_ms, Some(2), "w2's waiter should get the first slot freed after w1's next tick");
    assert!(inflight(&host, "a") <= 2);
}

#[test]
fn a_newcomer_does_not_overtake_a_waiter_on_another_worker() {
    let host = MockHost::default();
    let (mut w1, mut w2) = a_full_on_w1_and_a_waiter_on_w2(&host);
    let mut fx = Vec::new();
    host.advance(1);
    assert_eq!(w1.on_request(4, A, &mut fx), Decision::Wait);
    // The first slot freed goes to the earlier waiter, on the other worker, not to w1's own later one.
    w1.on_stream_end(1, &mut fx);
    assert!(fx.is_empty());
    w1.on_tick(&mut fx);
    assert!(fx.is_empty(), "w1 must leave the slot to w2's earlier waiter");
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    fx.clear();
    w1.on_stream_end(2, &mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 4 }], "now w1's waiter is the earliest: handed over at once");
}

#[test]
fn a_pause_holds_at_most_max_queue_requests_and_for_at_most_the_queue_timeout() {
    let host = MockHost::default();
    let mut w = worker(&host, r#", "pause": {"every_requests": 1, "duration_ms": 500, "paths": ["a"]}"#);
    let mut fx = Vec::new();
    assert_eq!(w.on_request(1, A, &mut fx), Decision::Continue);
    assert_eq!(w.on_request(2, A, &mut fx), Decision::Wait);
    assert_eq!(w.on_request(3, A, &mut fx), Decision::Wait);
    // a's max_queue is 2: the third held request is refused like a full queue.
    assert_eq!(w.on_request(4, A, &mut fx), Decision::Reject { path: A, reason: Reason::QueueFull });
    assert_eq!(host.metric(A, Metric::RejectedQueueFull), 1);
    host.advance(99);
    w.on_tick(&mut fx);
    assert!(fx.is_empty());
    // a's queue_timeout_ms is 100, well inside the 500 ms pause.
    host.advance(1);
    w.on_tick(&mut fx);
    assert_eq!(
        fx,
        vec![
            Effect::Reject { context: 2, path: A, reason: Reason::Timeout },
            Effect::Reject { context: 3, path: A, reason: Reason::Timeout }
        ]
    );
    assert_eq!(host.metric(A, Metric::RejectedTimeout), 2);
    assert_eq!(w.tracked(), 1);
}

/// Five requests of b (3 slots, a queue of 2, a timeout of 100 ms) arrive during a 500 ms pause, then the pause ends;
/// returns what became of them and the effects of the tick that ended the pause.
fn five_held_through_a_pause(w: &mut Worker<MockHost>, host: &MockHost) -> (Vec<Effect>, Vec<Effect>) {
    let mut during = Vec::new();
    for context in 11..=15 {
        let decision = w.on_request(context, B, &mut during);
        if let Decision::Reject { path, reason } = decision {
            during.push(Effect::Reject { context, path, reason });
        }
    }
    for _ in 0..49 {
        host.advance(10);
        w.on_tick(&mut during);
    }
    let mut end = Vec::new();
    host.advance(10);
    w.on_tick(&mut end);
    (during, end)
}

#[test]
fn in_rounds_a_pause_refuses_no_held_request_however_long_or_many_and_counted_pauses_do() {
    let rounds = r#", "pause": {"rounds": {"control_path": "/r", "max_pause_ms": 1000}, "paths": ["b"]}"#;
    let host = MockHost::default();
    let mut w = worker(&host, rounds);
    let started = crate::pause::rounds::start(&host, &w.keys.pause, 1, 500, 1000, host.now_ms()).unwrap();
    assert_eq!(started, crate::pause::rounds::Started::Paused { until_ms: host.now_ms() + 500 });
    let (during, end) = five_held_through_a_pause(&mut w, &host);
    assert!(during.is_empty(), "nothing refused or let through during the pause: {during:?}");
    // Released in arrival order: three take b's slots, two wait for one, their wait starting now.
    let resumed = |c| Effect::Resume { context: c };
    assert_eq!(end, vec![resumed(11), resumed(12), resumed(13)]);
    assert_eq!(w.queued(B), 2);
    let mut fx = Vec::new();
    host.advance(99);
    w.on_tick(&mut fx);
    assert!(fx.is_empty(), "the hold does not count against the queue timeout: {fx:?}");
    w.on_stream_end(11, &mut fx);
    w.on_stream_end(12, &mut fx);
    assert_eq!(fx, vec![resumed(14), resumed(15)]);
    assert_eq!((host.metric(B, Metric::RejectedQueueFull), host.metric(B, Metric::RejectedTimeout)), (0, 0));
    assert_eq!(host.metric(B, Metric::Paused), 5);

    // The control: the same hold under a counted pause of the same length refuses all but the queue's two, and
    // those at the queue timeout.
    let host = MockHost::default();
    let mut w = worker(&host, r#", "pause": {"every_requests": 1, "duration_ms": 500, "paths": ["b"]}"#);
    assert_eq!(w.on_request(10, B, &mut Vec::new()), Decision::Continue, "starts the pause");
    let (during, end) = five_held_through_a_pause(&mut w, &host);
    let refused =
        |reason| during.iter().filter(|e| matches!(e, Effect::Reject { reason: r, .. } if *r == reason)).count();
    assert_eq!((refused(Reason::QueueFull), refused(Reason::Timeout)), (3, 2), "{during:?}");
    assert!(end.is_empty(), "{end:?}");
}

/// A round's control request, as a runner sends it.
struct Control(&'static str);

impl crate::classifier::RequestView for Control {
    fn path(&self) -> Option<Vec<u8>> {
        Some(b"/r".to_vec())
    }
    fn method(&self) -> Option<Vec<u8>> {
        Some(b"POST".to_vec())
    }
    fn header(&self, name: &str) -> Option<Vec<u8>> {
        match name {
            "x-pathfence-round" => Some(self.0.as_bytes().to_vec()),
            "x-pathfence-pause-ms" => Some(b"10".to_vec()),
            _ => None,
        }
    }
}

#[test]
fn rounds_do_not_read_the_count_of_counted_pauses_as_their_last_round() {
    let host = MockHost::default();
    // Counted pauses ran in this Envoy before: 1000 requests passed their gate.
    let counted = worker(&host, r#", "pause": {"every_requests": 5, "duration_ms": 10, "paths": ["b"]}"#);
    host.store.set(&counted.keys.pause, &crate::pause::encode(1000, 0), None).unwrap();
    let mut w = worker(&host, r#", "pause": {"rounds": {"control_path": "/r", "max_pause_ms": 100}, "paths": ["b"]}"#);
    assert_eq!(w.control(&Control("1")).map(|a| a.status), Some(200), "round 1 starts after the counted pauses");
    assert_eq!(w.control(&Control("1")).map(|a| a.status), Some(409));
    // The control: the counted value, read as rounds, is the last round, and round 1 is refused as stale.
    let stale = crate::pause::rounds::start(&host, &counted.keys.pause, 1, 10, 100, host.now_ms()).unwrap();
    assert_eq!(stale, crate::pause::rounds::Started::Stale { last: 1000 });
}

#[test]
fn in_rounds_held_requests_beyond_slots_and_queue_all_wait_when_the_pause_ends() {
    let rounds = r#", "pause": {"rounds": {"control_path": "/r", "max_pause_ms": 1000}, "paths": ["b"]}"#;
    let host = MockHost::default();
    let mut w = worker(&host, rounds);
    crate::pause::rounds::start(&host, &w.keys.pause, 1, 50, 1000, host.now_ms()).unwrap();
    // Seven held on b: its three slots and its queue of two leave two beyond both.
    let mut fx = Vec::new();
    for context in 11..=17 {
        assert_eq!(w.on_request(context, B, &mut fx), Decision::Wait);
    }
    host.advance(50);
    w.on_tick(&mut fx);
    let resumed = |c| Effect::Resume { context: c };
    assert_eq!(fx, vec![resumed(11), resumed(12), resumed(13)], "none refused for the queue's room");
    assert_eq!(w.queued(B), 4);
    fx.clear();
    for done in 11..=13 {
        w.on_stream_end(done, &mut fx);
    }
    w.on_stream_end(14, &mut fx);
    assert_eq!(fx, vec![resumed(14), resumed(15), resumed(16), resumed(17)]);
    assert_eq!(host.metric(B, Metric::RejectedQueueFull), 0);

    // The control: a request that was not held still meets b's queue bound, as before.
    let host = MockHost::default();
    let mut w = worker(&host, rounds);
    let mut fx = Vec::new();
    for context in 11..=15 {
        w.on_request(context, B, &mut fx);
    }
    assert_eq!(w.on_request(16, B, &mut fx), Decision::Reject { path: B, reason: Reason::QueueFull });
}

#[test]
fn a_worker_reclaimed_while_it_stalled_does_not_take_its_slots_off_active_twice() {
    let host = MockHost::default();
    let (mut stalled, mut alive) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    stalled.on_request(1, A, &mut fx);
    stalled.on_request(2, A, &mut fx);
    // The stalled worker misses its heartbeats past the lease; the other reclaims its two slots.
    tick_through(&host, &mut alive, 12_000, &mut fx);
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (0, 0));
    // It comes back: its requests end and their slots, already reclaimed, are given back on its tick.
    stalled.on_stream_end(1, &mut fx);
    stalled.on_stream_end(2, &mut fx);
    stalled.on_tick(&mut fx);
    assert_eq!(inflight(&host, "a"), 0);
    assert_eq!(host.metric(A, Metric::Active), 0, "active went below zero: the reclaim had taken them off already");
}

/// Advances the clock by `ms` in half-second steps, ticking `w` after each, as a live worker's ticks would.
fn tick_through(host: &MockHost, w: &mut Worker<MockHost>, ms: u64, fx: &mut Vec<Effect>) {
    for _ in 0..ms / 500 {
        host.advance(500);
        w.on_tick(fx);
    }
}

/// What is left of two of a's slots held by a worker that went away, after the thread's first worker ticked for 8 s
/// (its first reclaim pass, a second in, first saw the heartbeat) and a new configuration's worker then for 4 s,
/// 11 s after that first sight with a 10 s lease. The new worker shares the thread's watch, as in Envoy, or starts
/// a watch of its own.
fn left_after_a_new_configuration(share_the_watch: bool) -> u64 {
    let host = MockHost::default();
    let mut gone = worker(&host, "");
    let mut fx = Vec::new();
    gone.on_request(1, A, &mut fx);
    gone.on_request(2, A, &mut fx);
    let watch = Rc::new(Watch::starting_at(crate::host::Clock::now_ms(&host)));
    let mut first = Worker::start_watching(host.clone(), config(""), Rc::clone(&watch)).unwrap();
    tick_through(&host, &mut first, 8_000, &mut fx);
    assert_eq!(inflight(&host, "a"), 2, "reclaimed before the lease was up");
    let mut next = if share_the_watch {
        Worker::start_watching(host.clone(), config(""), watch).unwrap()
    } else {
        Worker::start(host.clone(), config("")).unwrap()
    };
    drop(first);
    // 10 s after the first sight: not yet over the lease, whichever watch the new worker has.
    tick_through(&host, &mut next, 3_000, &mut fx);
    assert_eq!(inflight(&host, "a"), 2, "reclaimed before the lease was up");
    tick_through(&host, &mut next, 1_000, &mut fx);
    inflight(&host, "a")
}

#[test]
fn a_new_configuration_does_not_start_the_lease_of_a_worker_gone_over_again() {
    assert_eq!(left_after_a_new_configuration(true), 0, "the new worker went on with what the thread had seen");
    // The control: a worker with a watch of its own first sees the heartbeat now, and waits a whole lease more.
    assert_eq!(left_after_a_new_configuration(false), 2);
}

#[test]
fn a_worker_stalled_past_the_lease_puts_its_slots_back_in_the_count_when_it_comes_back() {
    let host = MockHost::default();
    let (mut stalled, mut alive) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    stalled.on_request(1, A, &mut fx);
    stalled.on_request(2, A, &mut fx);
    tick_through(&host, &mut alive, 12_000, &mut fx);
    assert_eq!(inflight(&host, "a"), 0, "reclaimed while it stalled");
    assert_eq!(alive.on_request(3, A, &mut fx), Decision::Continue);
    // It comes back with its two requests still running: a's count holds them again, over the limit of 2.
    stalled.on_tick(&mut fx);
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (3, 3));
    assert_eq!(alive.on_request(4, A, &mut fx), Decision::Wait, "no new request while the path is over its limit");
    // Their ends give back their own slots, not the one request 3 holds.
    stalled.on_stream_end(1, &mut fx);
    stalled.on_stream_end(2, &mut fx);
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (1, 1));
    alive.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 4 }]);
    assert_eq!(inflight(&host, "a"), 2);
}

#[test]
fn a_worker_stalled_past_the_lease_puts_its_waiters_back_on_queued() {
    let host = MockHost::default();
    let (mut stalled, mut alive) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    stalled.on_request(1, A, &mut fx);
    stalled.on_request(2, A, &mut fx);
    assert_eq!(stalled.on_request(3, A, &mut fx), Decision::Wait);
    tick_through(&host, &mut alive, 12_000, &mut fx);
    assert_eq!(host.metric(A, Metric::Queued), 0, "the reclaim took the waiter off queued");
    // It comes back: its waiter counts again, then times out and leaves, and queued ends where it should.
    stalled.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Reject { context: 3, path: A, reason: Reason::Timeout }]);
    assert_eq!(host.metric(A, Metric::Queued), 0, "queued went below zero");
    assert_eq!(stalled.queued(A), 0);
}

#[test]
fn a_stalled_worker_whose_first_event_after_the_stall_publishes_its_waiters_puts_them_back_on_queued() {
    let host = MockHost::default();
    let (mut stalled, mut alive) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    stalled.on_request(1, A, &mut fx);
    stalled.on_request(2, A, &mut fx);
    assert_eq!(stalled.on_request(3, A, &mut fx), Decision::Wait);
    assert_eq!(stalled.on_request(4, A, &mut fx), Decision::Wait);
    tick_through(&host, &mut alive, 12_000, &mut fx);
    assert_eq!(host.metric(A, Metric::Queued), 0, "the reclaim took both waiters off queued");
    // Back, its first event is a stream's end, before any tick: the slot goes to waiter 3, the list goes out.
    stalled.on_stream_end(1, &mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    assert_eq!(host.metric(A, Metric::Queued), 1, "waiter 4 still waits");
    stalled.on_stream_end(4, &mut fx);
    assert_eq!(host.metric(A, Metric::Queued), 0);
}

#[test]
fn a_worker_whose_clock_fell_behind_still_gets_the_slot_for_its_earlier_waiter() {
    let host = MockHost::default();
    let (mut w1, mut w2) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    // w2's thread stalls for 1.5 s: its clock counts the gap as 1 s and stays half a second behind w1's.
    tick_through(&host, &mut w1, 1_500, &mut fx);
    w2.on_tick(&mut fx);
    w1.on_request(1, A, &mut fx);
    w1.on_request(2, A, &mut fx);
    assert_eq!(w2.on_request(3, A, &mut fx), Decision::Wait);
    host.advance(10);
    assert_eq!(w1.on_request(4, A, &mut fx), Decision::Wait, "behind w2's waiter");
    // A slot frees on w1: it is left to w2's waiter, which came first, not handed to w1's own.
    w1.on_stream_end(1, &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    host.advance(2);
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
}

#[test]
fn a_waiter_kept_past_its_timeout_by_a_stall_stays_first_in_line_for_other_workers() {
    let host = MockHost::default();
    let long_wait = r#"{"paths": [{"name": "a", "max_concurrency": 2, "queue_timeout_ms": 5000}]}"#;
    let start = || Worker::start(host.clone(), Config::parse(long_wait.as_bytes()).unwrap()).unwrap();
    let (mut w1, mut w2) = (start(), start());
    let mut fx = Vec::new();
    w1.on_request(1, A, &mut fx);
    w1.on_request(2, A, &mut fx);
    assert_eq!(w2.on_request(3, A, &mut fx), Decision::Wait);
    // w2's thread stalls 3 s, counted as 1 s: its waiter has 2 s more to wait than the wall clock says.
    tick_through(&host, &mut w1, 3_000, &mut fx);
    w2.on_tick(&mut fx);
    for _ in 0..11 {
        host.advance(200);
        w1.on_tick(&mut fx);
        w2.on_tick(&mut fx);
    }
    assert!(fx.is_empty(), "waiter 3 has waited 3.2 s of w2's 5: {fx:?}");
    // 5.2 s after it arrived by the wall clock, w1 still counts it as waiting, and before its own newcomer.
    assert_eq!(w1.on_request(4, A, &mut fx), Decision::Wait);
    w1.on_stream_end(1, &mut fx);
    assert!(fx.is_empty(), "the freed slot went to w1's later waiter: {fx:?}");
    host.advance(2);
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
}

#[test]
fn a_worker_shut_down_takes_its_whole_share_out_of_the_count() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    // Fast arrivals: freed slots stay as spares.
    for context in 1..=2 {
        w.on_request(context, A, &mut fx);
    }
    w.on_stream_end(1, &mut fx);
    w.on_stream_end(2, &mut fx);
    assert_eq!((inflight(&host, "a"), w.idle_slots(A)), (2, 2));
    // Every compare-and-swap of giving them back loses; setting the share outright, the next step, succeeds.
    host.store.fail_next_cas(crate::cas::MAX_CAS_TRIES);
    w.shut_down(&mut fx);
    assert!(fx.is_empty());
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (0, 0));
}

#[test]
fn a_wall_clock_step_forward_past_the_lease_reclaims_no_live_worker() {
    let host = MockHost::default();
    let (mut w1, mut w2) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    w1.on_request(1, A, &mut fx);
    host.advance(3_600_000);
    // Started after the step, w3 reads an hour later than the others do from then on.
    let mut w3 = worker(&host, "");
    for _ in 0..30 {
        host.advance(500);
        for w in [&mut w2, &mut w3, &mut w1] {
            w.on_tick(&mut fx);
        }
    }
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (1, 1), "w1's slot was reclaimed");
    w1.on_stream_end(1, &mut fx);
    assert_eq!((inflight(&host, "a"), host.metric(A, Metric::Active)), (0, 0));
}

#[test]
fn a_wall_clock_step_back_keeps_no_request_waiting_past_its_timeout() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    let mut fx = Vec::new();
    host.advance(120_000);
    w.on_request(1, A, &mut fx);
    w.on_request(2, A, &mut fx);
    assert_eq!(w.on_request(3, A, &mut fx), Decision::Wait);
    host.clock.set(host.clock.get() - 60_000);
    for _ in 0..60 {
        host.advance(2);
        w.on_tick(&mut fx);
    }
    assert_eq!(fx, vec![Effect::Reject { context: 3, path: A, reason: Reason::Timeout }], "a's timeout is 100 ms");
}

/// Ends `n` requests of path b on `w`, `burst` of them every `gap_ms` of the mock clock, ticking every 2 ms.
fn traffic(host: &MockHost, w: &mut Worker<MockHost>, first_context: u32, n: u32, burst: u32, gap_ms: u64) {
    traffic_of(B, host, w, first_context, n, burst, gap_ms);
}

fn traffic_of(
    class: PathIndex,
    host: &MockHost,
    w: &mut Worker<MockHost>,
    first_context: u32,
    n: u32,
    burst: u32,
    gap_ms: u64,
) {
    let mut fx = Vec::new();
    for i in 0..n {
        let context = first_context + i;
        assert_eq!(w.on_request(context, class, &mut fx), Decision::Continue);
        w.on_stream_end(context, &mut fx);
        if (i + 1) % burst == 0 {
            for _ in 0..gap_ms {
                host.advance(1);
                if host.clock.get().is_multiple_of(2) {
                    w.on_tick(&mut fx);
                }
            }
        }
    }
    assert!(fx.is_empty());
}

#[test]
fn at_a_low_arrival_rate_a_freed_slot_goes_straight_back_and_leaves_the_tick_idle() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    traffic(&host, &mut w, 1, 20, 1, 3);
    let mut fx = Vec::new();
    assert_eq!(w.on_request(100, B, &mut fx), Decision::Continue);
    assert_eq!(inflight(&host, "b"), 1);
    w.on_stream_end(100, &mut fx);
    assert_eq!(inflight(&host, "b"), 0, "no spare kept at 1 request every 3 ms");
    assert_eq!(host.metric(B, Metric::Active), 0);
    assert_eq!(w.tick_work(), TickWork::None, "nothing keeps the tick faster than idle");
}

#[test]
fn at_a_high_arrival_rate_freed_slots_are_kept_as_spares_while_requests_take_them() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    // First slow, so that spares are off, then fast enough to bring them back.
    traffic(&host, &mut w, 1, 20, 1, 3);
    traffic(&host, &mut w, 1000, 60, 2, 1);
    let mut fx = Vec::new();
    assert_eq!(w.on_request(2000, B, &mut fx), Decision::Continue);
    w.on_stream_end(2000, &mut fx);
    assert_eq!(inflight(&host, "b"), 1, "kept as a spare at 2 requests per ms");
    assert_eq!(w.tick_work(), TickWork::Spares, "a spare alone calls for the spares pace, not the prompt one");
    reuse_a_spare(&host, &mut w, 2001, B);
    w.on_tick(&mut fx);
    assert_eq!(inflight(&host, "b"), 1, "kept: a request took it since the last tick");
    w.on_tick(&mut fx);
    assert_eq!(inflight(&host, "b"), 0, "given back: none did since");
    assert_eq!(w.tick_work(), TickWork::None);
}

#[test]
fn requests_of_an_unbounded_path_do_not_count_towards_the_rate_for_spares() {
    let host = MockHost::default();
    let mut w = worker(&host, "");
    traffic(&host, &mut w, 1, 20, 1, 3);
    // Local requests (unbounded here) at 2 per ms never touch a shared count; they could not use a spare.
    traffic_of(LOCAL, &host, &mut w, 100, 60, 2, 1);
    let mut fx = Vec::new();
    assert_eq!(w.on_request(1000, B, &mut fx), Decision::Continue);
    w.on_stream_end(1000, &mut fx);
    assert_eq!(inflight(&host, "b"), 0, "no spare: b itself arrives slowly");
}

#[test]
fn a_clock_that_steps_back_does_not_hold_up_the_rate_measurement() {
    let host = MockHost::default();
    host.clock.set(1_000_000);
    let mut w = worker(&host, "");
    traffic(&host, &mut w, 1, 60, 2, 1);
    assert!(w.keeps_spares());
    host.clock.set(host.clock.get() - 1000);
    traffic(&host, &mut w, 100, 20, 1, 3);
    assert!(!w.keeps_spares(), "the slow traffic after the step was measured, not waited out");
}

#[test]
fn a_worker_that_has_seen_waiters_elsewhere_keeps_ticking_at_the_prompt_pace_until_they_are_served() {
    let host = MockHost::default();
    let (mut w1, mut w2) = a_full_on_w1_and_a_waiter_on_w2(&host);
    let mut fx = Vec::new();
    // w1 gives its slots back straight away (no spares), so only w2's waiter can keep w1's tick prompt.
    host.advance(20);
    w1.on_tick(&mut fx);
    assert!(!w1.keeps_spares());
    assert_eq!(
        w1.tick_work(),
        TickWork::Prompt,
        "w2's waiter is work for w1's tick: newcomers on w1 must queue behind it"
    );
    w1.on_stream_end(1, &mut fx);
    w2.on_tick(&mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 3 }]);
    w1.on_tick(&mut fx);
    assert_eq!(w1.tick_work(), TickWork::None, "nobody waits any more");
}

#[test]
fn reclaiming_a_worker_with_spare_and_retried_slots_leaves_active_at_zero() {
    let host = MockHost::default();
    let (mut gone, mut alive) = (worker(&host, ""), worker(&host, ""));
    let mut fx = Vec::new();
    gone.on_request(1, A, &mut fx);
    gone.on_request(2, A, &mut fx);
    gone.on_request(3, B, &mut fx);
    // b's freed slot becomes a spare; a's, wanted by a waiter on the other worker, a release that lost every race.
    gone.on_stream_end(3, &mut fx);
    assert_eq!(alive.on_request(6, A, &mut fx), Decision::Wait);
    host.store.fail_next_cas(crate::cas::MAX_CAS_TRIES);
    gone.on_stream_end(1, &mut fx);
    assert_eq!((gone.idle_slots(A), gone.idle_slots(B)), (1, 1));
    drop(gone);
    alive.on_stream_end(6, &mut fx);
    tick_through(&host, &mut alive, 12_000, &mut fx);
    assert_eq!(inflight(&host, "a"), 0);
    assert_eq!(inflight(&host, "b"), 0);
    assert_eq!(host.metric(A, Metric::Active), 0);
    assert_eq!(host.metric(B, Metric::Active), 0);
}

#[test]
fn start_creates_every_shared_key_and_a_late_creator_wipes_no_count() {
    let host = MockHost::default();
    let other = host.clone();
    // Another worker starts and takes a slot between this worker's first read and its first write.
    host.store.before_next_set(move |_| {
        let mut w = worker(&other, "");
        w.on_request(1, A, &mut Vec::new());
    });
    let w = worker(&host, "");
    assert_ne!(w.id(), 1);
    assert_eq!(inflight(&host, "a"), 1);
    for key in ["a.inflight", "a.waiting", "b.waiting", "local.waiting", "pause"] {
        assert!(host.store.get(&format!("{KEY_PREFIX}{key}")).unwrap().is_some(), "{key} not created");
    }
}

#[test]
fn a_retired_worker_refuses_its_waiters_and_still_releases_its_admitted_requests() {
    let host = MockHost::default();
    let mut w = worker(&host, r#", "pause": {"every_requests": 4, "duration_ms": 500, "paths": ["b"]}"#);
    let mut fx = Vec::new();
    for c in 1..=3 {
        w.on_request(c, A, &mut fx);
    }
    for c in 10..=14 {
        w.on_request(c, B, &mut fx);
    }
    // 13 starts a pause and waits for a slot of b; 14 is held by the pause.
    assert_eq!((w.queued(A), w.queued(B)), (1, 1));
    w.retire(&mut fx);
    let refused = |context, path| Effect::Reject { context, path, reason: Reason::Reconfigured };
    assert_eq!(fx, vec![refused(14, B), refused(3, A), refused(13, B)]);
    assert_eq!(host.metric(A, Metric::Queued), 0);
    fx.clear();
    for c in [1, 2, 10, 11, 12] {
        w.on_stream_end(c, &mut fx);
    }
    w.on_tick(&mut fx);
    assert!(fx.is_empty());
    assert_eq!(inflight(&host, "a"), 0);
    assert_eq!(inflight(&host, "b"), 0);
}

/// A configuration of `paths` paths `p0`, `p1`, ..., one slot each.
fn many_paths(paths: usize) -> Config {
    let paths: Vec<String> = (0..paths)
        .map(|i| format!(r#"{{"name": "p{i}", "match": {{"prefix": "/p{i}/"}}, "max_concurrency": 1}}"#))
        .collect();
    Config::parse(format!(r#"{{"paths": [{}]}}"#, paths.join(",")).as_bytes()).unwrap()
}

/// Shared-data reads of one tick of `w`, 2 ms after the last (no heartbeat or reclaim is due).
fn reads_of_a_tick(host: &MockHost, w: &mut Worker<MockHost>, fx: &mut Vec<Effect>) -> u64 {
    host.advance(2);
    let before = host.store.reads();
    w.on_tick(fx);
    host.store.reads() - before
}

#[test]
fn a_tick_reads_the_waiters_of_the_paths_that_have_some_not_of_every_path() {
    let host = MockHost::default();
    let start = || Worker::start(host.clone(), many_paths(2000)).unwrap();
    let (mut w1, mut w2) = (start(), start());
    let mut fx = Vec::new();
    // p7's slot is taken on w1, and a request of p7 waits for it on w2: both workers tick at the prompt pace.
    assert_eq!(w1.on_request(1, PathIndex(7), &mut fx), Decision::Continue);
    assert_eq!(w2.on_request(2, PathIndex(7), &mut fx), Decision::Wait);
    for _ in 0..3 {
        let (r1, r2) = (reads_of_a_tick(&host, &mut w1, &mut fx), reads_of_a_tick(&host, &mut w2, &mut fx));
        assert!(fx.is_empty(), "{fx:?}");
        // The shared list of paths with waiters, p7's waiters, p7's count (w2, to drain its queue) and the like:
        // a few reads, not one for each of the 2,000 paths.
        assert!(r1 <= 4 && r2 <= 4, "a tick read {r1} (w1) and {r2} (w2) keys");
        assert_eq!((w1.tick_work(), w2.tick_work()), (TickWork::Prompt, TickWork::Prompt));
    }
    // Once the waiter has its slot, the ticks read the shared list alone.
    w1.on_stream_end(1, &mut fx);
    reads_of_a_tick(&host, &mut w1, &mut fx);
    reads_of_a_tick(&host, &mut w2, &mut fx);
    assert_eq!(fx, vec![Effect::Resume { context: 2 }]);
    w2.on_stream_end(2, &mut fx);
    for _ in 0..2 {
        reads_of_a_tick(&host, &mut w1, &mut fx);
        reads_of_a_tick(&host, &mut w2, &mut fx);
    }
    assert_eq!(reads_of_a_tick(&host, &mut w1, &mut fx), 1);
    assert_eq!(reads_of_a_tick(&host, &mut w2, &mut fx), 1);
}
