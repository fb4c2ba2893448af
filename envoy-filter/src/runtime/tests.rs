//! The runtime's decisions, on the mock host and a proxy that records what it is asked to do: no Envoy.
#![allow(clippy::disallowed_methods)]

use std::cell::RefCell;

use super::flush::FLUSH_EVERY_MS;
use super::*;
use crate::counters;
use crate::host::{Clock, HostError, Metric, Metrics};
use crate::limiter::{Reason, KEY_PREFIX};
use crate::pace::{IDLE_TICK_MS, PROMPT_TICK_MS};
use crate::pause::rounds::Answer;
use crate::per_path::PathIndex;
use crate::testing::MockHost;

const ROOT: u32 = 1;
const A: PathIndex = PathIndex(0);
/// The local path, after `a`.
const LOCAL: PathIndex = PathIndex(1);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    TickPeriod(u64),
    Resume(u32),
    Refuse(u32, Refusal),
    Answer(u32, Answer),
    Acted(u32),
}

#[derive(Default)]
struct RecordingProxy {
    calls: RefCell<Vec<Call>>,
    /// Whether it can answer a control request (the native build cannot yet).
    cannot_answer: bool,
    /// Whether a local reply fails (a stream the binding no longer finds).
    cannot_refuse: bool,
}

impl RecordingProxy {
    fn take(&self) -> Vec<Call> {
        std::mem::take(&mut *self.calls.borrow_mut())
    }
}

impl Proxy for RecordingProxy {
    fn set_tick_period(&self, ms: u64) -> Result<(), HostError> {
        self.calls.borrow_mut().push(Call::TickPeriod(ms));
        Ok(())
    }
    fn resume(&self, stream: u32) -> Result<(), HostError> {
        self.calls.borrow_mut().push(Call::Resume(stream));
        Ok(())
    }
    fn refuse(&self, stream: u32, refusal: &Refusal) -> Result<(), HostError> {
        if self.cannot_refuse {
            return Err(HostError("cannot".to_string()));
        }
        self.calls.borrow_mut().push(Call::Refuse(stream, refusal.clone()));
        Ok(())
    }
    fn answer(&self, stream: u32, answer: &Answer) -> Result<(), HostError> {
        if self.cannot_answer {
            return Err(HostError("cannot".to_string()));
        }
        self.calls.borrow_mut().push(Call::Answer(stream, answer.clone()));
        Ok(())
    }
    fn acted(&self, current: u32) {
        self.calls.borrow_mut().push(Call::Acted(current));
    }
}

struct Path(&'static str);

impl RequestView for Path {
    fn path(&self) -> Option<Vec<u8>> {
        Some(self.0.as_bytes().to_vec())
    }
    fn method(&self) -> Option<Vec<u8>> {
        Some(b"GET".to_vec())
    }
    fn header(&self, _name: &str) -> Option<Vec<u8>> {
        None
    }
}

/// Path `a` takes one request at a time and queues one more.
const ONE_AT_A_TIME: &str = r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 1,
    "max_queue": 1, "queue_timeout_ms": 500}], "retry_after_s": 7}"#;

fn configured(host: &MockHost, proxy: &RecordingProxy) -> Runtime<MockHost> {
    let runtime = Runtime::default();
    assert!(runtime.configure(proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (host.clone(), 0)));
    runtime
}

fn inflight(host: &MockHost) -> u64 {
    counters::load(host, &format!("{KEY_PREFIX}a.inflight")).unwrap()
}

/// Ticks `n` times at the runtime's current pace, moving the clock by the period before each.
fn tick(runtime: &Runtime<MockHost>, host: &MockHost, proxy: &RecordingProxy, n: usize) {
    for _ in 0..n {
        host.advance(runtime.pacing.get().pace.period_ms());
        runtime.on_tick(proxy, ROOT);
    }
}

fn retired(runtime: &Runtime<MockHost>) -> usize {
    runtime.workers.borrow().retired.len()
}

#[test]
fn a_configuration_that_does_not_parse_is_refused_and_leaves_no_worker() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime: Runtime<MockHost> = Runtime::default();
    assert!(!runtime.configure(&proxy, ROOT, br#"{"paths": [], "bogus": 1}"#, |_| (host.clone(), 0)));
    assert!(runtime.workers.borrow().current.is_none());
    assert_eq!(runtime.on_request(&proxy, 10, &Path("/a")), Headers::Continue, "nothing to fence with");
    assert_eq!(proxy.take(), vec![]);
}

#[test]
fn a_configuration_starts_at_the_prompt_pace() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    configured(&host, &proxy);
    assert_eq!(proxy.take(), vec![Call::TickPeriod(PROMPT_TICK_MS)]);
}

#[test]
fn a_refused_request_gets_the_reply_of_its_path_and_the_stream_is_made_current_again() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    proxy.take();
    assert_eq!(runtime.on_request(&proxy, 10, &Path("/a")), Headers::Continue);
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a/x")), Headers::Stop, "waits");
    assert_eq!(runtime.on_request(&proxy, 12, &Path("/a/b?c=\"d\"")), Headers::Stop, "the queue is full");
    let refusal = refusal(Reason::QueueFull, "/a/b");
    assert_eq!(proxy.take(), vec![Call::Refuse(12, refusal.clone()), Call::Acted(12)]);
    assert_eq!(
        refusal.headers(),
        [("retry-after", "7"), ("x-pathfence-path", "a"), ("content-type", "application/problem+json")]
    );
    // The slot freed goes to the waiter, resumed from the ending stream's callback.
    runtime.on_stream_end(&proxy, 10);
    assert_eq!(proxy.take(), vec![Call::Resume(11), Call::Acted(10)]);
    assert_eq!(host.metric(A, Metric::Granted), 2);
}

#[test]
fn a_refusal_that_cannot_be_sent_lets_the_request_go_on() {
    let host = MockHost::default();
    let proxy = RecordingProxy { cannot_refuse: true, ..RecordingProxy::default() };
    let runtime = configured(&host, &proxy);
    proxy.take();
    runtime.on_request(&proxy, 10, &Path("/a"));
    runtime.on_request(&proxy, 11, &Path("/a/x"));
    assert_eq!(runtime.on_request(&proxy, 12, &Path("/a/y")), Headers::Stop, "the queue is full");
    assert_eq!(proxy.take(), vec![Call::Resume(12), Call::Acted(12)]);
}

fn refusal(reason: Reason, instance: &str) -> Refusal {
    Refusal { retry_after_s: "7".to_string(), path: "a".to_string(), reason, instance: instance.to_string() }
}

#[test]
fn a_refusal_has_the_starters_problem_body() {
    let body = |reason, instance| serde_json::from_str::<serde_json::Value>(&refusal(reason, instance).body()).unwrap();
    assert_eq!(
        body(Reason::QueueFull, "/a/\"x\""),
        serde_json::json!({"type": "about:blank", "title": "Service Unavailable", "status": 503,
            "detail": "The queue of path 'a' is full.", "instance": "/a/\"x\"", "path": "a", "reason": "queue-full"})
    );
    assert_eq!(
        body(Reason::Timeout, "/a"),
        serde_json::json!({"type": "about:blank", "title": "Service Unavailable", "status": 503,
            "detail": "The request waited longer than the queue timeout of path 'a'.", "instance": "/a", "path": "a",
            "reason": "timeout"})
    );
}

#[test]
fn a_waiter_refused_on_a_tick_gets_the_url_path_it_was_held_with_and_no_other_stream_keeps_one() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    assert_eq!(runtime.on_request(&proxy, 10, &Path("/a/first")), Headers::Continue);
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a/waiter?q=1")), Headers::Stop);
    assert_eq!(runtime.instances.borrow().len(), 1, "only the held stream's path is kept");
    proxy.take();
    host.advance(500);
    runtime.on_tick(&proxy, ROOT);
    let refused: Vec<Call> = proxy.take().into_iter().filter(|c| matches!(c, Call::Refuse(..))).collect();
    assert_eq!(refused, vec![Call::Refuse(11, refusal(Reason::Timeout, "/a/waiter"))]);
    assert!(runtime.instances.borrow().is_empty(), "a refused stream's path is dropped");
    runtime.on_stream_end(&proxy, 11);
    runtime.on_stream_end(&proxy, 10);
    assert!(runtime.instances.borrow().is_empty());
}

/// A request given by its raw `:path`, which HTTP/2 lets hold any byte.
struct RawPath(Vec<u8>);

impl RequestView for RawPath {
    fn path(&self) -> Option<Vec<u8>> {
        Some(self.0.clone())
    }
    fn method(&self) -> Option<Vec<u8>> {
        Some(b"GET".to_vec())
    }
    fn header(&self, _name: &str) -> Option<Vec<u8>> {
        None
    }
}

/// `/a/` and then `n` bytes of `byte`.
fn long_path(byte: u8, n: usize) -> Vec<u8> {
    let mut path = b"/a/".to_vec();
    path.resize(3 + n, byte);
    path
}

#[test]
fn a_long_path_is_held_and_refused_cut_as_the_starter_cuts_it() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    // 60 KB of control bytes, each of which JSON escapes to six: the whole path would be a body of 360 KB.
    let path = long_path(0x01, 60 * 1024);
    let expected: String =
        String::from_utf8_lossy(&path).chars().take(acts::MAX_INSTANCE_CHARS).collect::<String>() + "...";
    assert_eq!(runtime.on_request(&proxy, 10, &Path("/a")), Headers::Continue);
    assert_eq!(runtime.on_request(&proxy, 11, &RawPath(path.clone())), Headers::Stop, "waits");
    assert_eq!(runtime.instances.borrow().get(&11), Some(&expected), "the held stream keeps only the cut path");
    assert_eq!(runtime.on_request(&proxy, 12, &RawPath(path)), Headers::Stop, "the queue is full");
    let calls = proxy.take();
    let Some(Call::Refuse(_, refusal)) = calls.iter().find(|c| matches!(c, Call::Refuse(12, _))) else {
        panic!("refused at once: {calls:?}")
    };
    assert_eq!(refusal.instance, expected);
    let body = refusal.body();
    assert!(body.len() < 2048, "the body stays small: {} bytes", body.len());
    let parsed: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(parsed["instance"], serde_json::Value::String(expected.clone()));
    host.advance(500);
    runtime.on_tick(&proxy, ROOT);
    let refused: Vec<Call> = proxy.take().into_iter().filter(|c| matches!(c, Call::Refuse(..))).collect();
    assert_eq!(refused, vec![Call::Refuse(11, refusal_of(Reason::Timeout, expected))], "the waiter, on a tick");
}

fn refusal_of(reason: Reason, instance: String) -> Refusal {
    Refusal { instance, ..refusal(reason, "") }
}

#[test]
fn an_instance_is_cut_after_the_starters_number_of_characters_at_a_character_boundary() {
    let max = acts::MAX_INSTANCE_CHARS;
    let whole = |path: &[u8]| String::from_utf8_lossy(path).into_owned();
    let cut = |path: &[u8]| whole(path).chars().take(max).collect::<String>() + "...";
    let exactly = long_path(b'x', max - 3);
    assert_eq!(acts::instance(&exactly), whole(&exactly), "a path of the limit is kept whole");
    let over = long_path(b'x', max - 2);
    assert_eq!(acts::instance(&over), cut(&over));
    assert_eq!(acts::instance(&over).chars().count(), max + 3);
    // Characters of two, three and four bytes, bytes that are not UTF-8, and a character of four bytes cut by the
    // end of the part read, at every offset around the limit.
    for unit in ["é".as_bytes(), "€".as_bytes(), "𝄞".as_bytes(), b"\xff", b"\xf0\x9d", b"\x01"] {
        for n in (max - 4)..(max + 6) {
            for tail in [&b""[..], b"z", "𝄞".as_bytes(), b"\xf0\x9d\x84"] {
                let mut path = b"/a/".to_vec();
                (0..n).for_each(|_| path.extend_from_slice(unit));
                path.extend_from_slice(tail);
                let expected = if whole(&path).chars().count() > max { cut(&path) } else { whole(&path) };
                assert_eq!(acts::instance(&path), expected, "{unit:?} x {n} then {tail:?}");
            }
        }
    }
    let four_bytes_each: Vec<u8> = "𝄞".repeat(5000).into_bytes();
    assert_eq!(acts::instance(&four_bytes_each), cut(&four_bytes_each));
}

#[test]
fn a_replaced_worker_refuses_its_waiters_and_stays_until_its_last_stream_ends() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    runtime.on_request(&proxy, 10, &Path("/a"));
    runtime.on_request(&proxy, 11, &Path("/a"));
    proxy.take();
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (host.clone(), 0)));
    assert_eq!(
        proxy.take(),
        vec![
            Call::Refuse(11, refusal(Reason::Reconfigured, "/a")),
            Call::Acted(ROOT),
            Call::TickPeriod(PROMPT_TICK_MS)
        ],
        "the new worker does not know the waiter"
    );
    assert_eq!(retired(&runtime), 1);
    tick(&runtime, &host, &proxy, 3);
    assert_eq!(retired(&runtime), 1, "stream 10 still holds a slot of the retired worker");
    assert_eq!(inflight(&host), 1);
    runtime.on_stream_end(&proxy, 10);
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(inflight(&host), 0, "the retired worker gave the slot back");
    assert_eq!(retired(&runtime), 0, "nothing left to do: it goes away");
    assert_eq!(host.metric(A, Metric::Active), 0);
}

#[test]
fn a_replaced_worker_stays_until_a_release_that_lost_its_race_has_gone_through() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    runtime.on_request(&proxy, 10, &Path("/a"));
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (host.clone(), 0)));
    runtime.on_stream_end(&proxy, 10);
    host.store.fail_next_cas(crate::cas::MAX_CAS_TRIES);
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(inflight(&host), 1, "giving the slot back lost every race");
    assert_eq!(retired(&runtime), 1);
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(inflight(&host), 0, "the next tick retried it");
    assert_eq!(retired(&runtime), 0, "and the worker went away with nothing left");
}

#[test]
fn a_stream_that_ends_while_the_workers_are_busy_is_released_on_the_next_tick() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    runtime.on_request(&proxy, 10, &Path("/a"));
    {
        let _busy = runtime.workers.borrow_mut();
        runtime.on_stream_end(&proxy, 10);
    }
    assert_eq!(inflight(&host), 1, "not released while the workers were busy");
    assert_eq!(runtime.ended_while_busy.borrow().as_slice(), &[10]);
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(inflight(&host), 0, "no slot lost");
    assert!(runtime.ended_while_busy.borrow().is_empty());
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a")), Headers::Continue);
}

#[test]
fn a_stream_ended_while_busy_is_released_when_the_filter_goes_away_before_a_tick() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    runtime.on_request(&proxy, 10, &Path("/a"));
    {
        let _busy = runtime.workers.borrow_mut();
        runtime.on_stream_end(&proxy, 10);
    }
    drop(runtime);
    assert_eq!(inflight(&host), 0);
    assert_eq!(host.metric(A, Metric::Active), 0);
}

#[test]
fn a_request_that_comes_while_the_workers_are_busy_goes_through_unfenced() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    let _busy = runtime.workers.borrow_mut();
    assert_eq!(runtime.on_request(&proxy, 10, &Path("/a")), Headers::Continue);
    assert_eq!(inflight(&host), 0);
}

#[test]
fn under_the_faster_paces_the_metric_deltas_are_flushed_every_ten_milliseconds_of_ticking() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let batching = host.batching();
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (batching.clone(), 0)));
    runtime.on_request(&proxy, 10, &Path("/a"));
    assert_eq!((host.metric(A, Metric::Granted), batching.unflushed(A, Metric::Granted)), (0, 1));
    let ticks = (FLUSH_EVERY_MS / PROMPT_TICK_MS) as usize;
    tick(&runtime, &host, &proxy, ticks - 1);
    assert_eq!(host.metric(A, Metric::Granted), 0, "kept for fewer than {FLUSH_EVERY_MS} ms of ticks");
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(host.metric(A, Metric::Granted), 1);
    runtime.on_request(&proxy, 11, &Path("/b"));
    tick(&runtime, &host, &proxy, ticks - 1);
    assert_eq!(host.metric(LOCAL, Metric::Granted), 0, "the count starts over after a flush");
}

#[test]
fn an_idle_tick_flushes_and_so_does_the_first_faster_one_after_it() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let batching = host.batching();
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (batching.clone(), 0)));
    proxy.take();
    // Nothing to do: the pace slows to idle after 100 ms, and the tick that slows down flushes.
    let mut ticks = 0;
    while !runtime.pacing.get().pace.is_idle() {
        tick(&runtime, &host, &proxy, 1);
        ticks += 1;
        assert!(ticks < 1000, "never slowed down");
    }
    assert_eq!(proxy.take(), vec![Call::TickPeriod(IDLE_TICK_MS)]);
    runtime.on_request(&proxy, 10, &Path("/b"));
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(host.metric(LOCAL, Metric::Granted), 1, "an idle tick flushes");
    // A waiter brings the prompt pace back at once, and the first prompt tick flushes.
    runtime.on_request(&proxy, 11, &Path("/a"));
    runtime.on_request(&proxy, 12, &Path("/a"));
    assert_eq!(proxy.take(), vec![Call::TickPeriod(PROMPT_TICK_MS)]);
    assert_eq!(batching.unflushed(A, Metric::Queued), 1);
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(host.metric(A, Metric::Queued), 1, "flushed on the first faster tick");
}

#[test]
fn a_retired_worker_flushes_on_every_tick() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let first = host.batching();
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (first.clone(), 0)));
    runtime.on_request(&proxy, 10, &Path("/a"));
    let second = host.batching();
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (second.clone(), 0)));
    assert_eq!(host.metric(A, Metric::Granted), 1, "flushed as it was retired");
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a")), Headers::Stop, "waits for the retired worker's slot");
    // A delta the retired worker makes (standing in for any), kept like every other.
    first.add(A, Metric::Paused, 1);
    tick(&runtime, &host, &proxy, 1);
    assert_eq!(host.metric(A, Metric::Paused), 1, "the retired worker flushed on the first tick");
    assert_eq!(
        (host.metric(A, Metric::Queued), second.unflushed(A, Metric::Queued)),
        (0, 1),
        "the current worker waits for {FLUSH_EVERY_MS} ms of ticks"
    );
}

/// A request with a method and headers, as a round's runner sends it.
struct Sent {
    method: &'static str,
    path: &'static str,
    headers: Vec<(&'static str, &'static str)>,
}

impl RequestView for Sent {
    fn path(&self) -> Option<Vec<u8>> {
        Some(self.path.as_bytes().to_vec())
    }
    fn method(&self) -> Option<Vec<u8>> {
        Some(self.method.as_bytes().to_vec())
    }
    fn header(&self, name: &str) -> Option<Vec<u8>> {
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_bytes().to_vec())
    }
}

const IN_ROUNDS: &str = r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 1,
    "max_queue": 1, "queue_timeout_ms": 50}],
    "pause": {"rounds": {"control_path": "/.pathfence/round", "max_pause_ms": 100}, "paths": ["a"]}}"#;

fn round(number: &'static str, pause_ms: &'static str) -> Sent {
    Sent {
        method: "POST",
        path: "/.pathfence/round?x=1",
        headers: vec![("x-pathfence-round", number), ("x-pathfence-pause-ms", pause_ms)],
    }
}

#[test]
fn a_rounds_control_request_is_answered_by_the_filter_and_starts_the_pause_on_every_worker() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, IN_ROUNDS.as_bytes(), |_| (host.clone(), 0)));
    let other = Runtime::default();
    assert!(other.configure(&proxy, ROOT, IN_ROUNDS.as_bytes(), |_| (host.clone(), 0)));
    proxy.take();
    let now = host.now_ms();
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Stop);
    let started = Answer::started(crate::pause::rounds::Control { round: 1, pause_ms: 80 }, now + 80);
    assert_eq!(proxy.take(), vec![Call::Answer(10, started), Call::Acted(10)]);
    // The other worker holds its requests for the pause, even past a's queue timeout, then lets them through.
    assert_eq!(other.on_request(&proxy, 20, &Path("/a/x")), Headers::Stop);
    assert_eq!(other.on_request(&proxy, 21, &Path("/a/y")), Headers::Stop, "a's queue of 1 does not bound a hold");
    host.advance(79);
    other.on_tick(&proxy, ROOT);
    assert!(!proxy.take().iter().any(|c| matches!(c, Call::Refuse(..) | Call::Resume(..))));
    host.advance(1);
    other.on_tick(&proxy, ROOT);
    assert!(proxy.take().contains(&Call::Resume(20)));
    // The same round again is refused, and a GET, a pause over the most and a missing round are not control requests
    // as they should be; none goes upstream.
    assert_eq!(runtime.on_request(&proxy, 11, &round("1", "10")), Headers::Stop);
    let statuses = |calls: Vec<Call>| -> Vec<u32> {
        calls.into_iter().filter_map(|c| if let Call::Answer(_, a) = c { Some(a.status) } else { None }).collect()
    };
    assert_eq!(statuses(proxy.take()), vec![409]);
    let get = Sent { method: "GET", ..round("2", "10") };
    assert_eq!(runtime.on_request(&proxy, 12, &get), Headers::Stop);
    assert_eq!(runtime.on_request(&proxy, 13, &round("2", "101")), Headers::Stop);
    assert_eq!(runtime.on_request(&proxy, 14, &round("", "10")), Headers::Stop);
    assert_eq!(statuses(proxy.take()), vec![405, 400, 400]);
    assert_eq!(host.metric(A, Metric::Granted), 1, "control requests are no requests of a path");
}

#[test]
fn with_a_token_only_a_control_request_carrying_it_starts_a_round() {
    let with_token = IN_ROUNDS.replace(r#""max_pause_ms": 100"#, r#""max_pause_ms": 100, "token": "s3cret""#);
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, with_token.as_bytes(), |_| (host.clone(), 0)));
    proxy.take();
    let statuses = |calls: Vec<Call>| -> Vec<u32> {
        calls.into_iter().filter_map(|c| if let Call::Answer(_, a) = c { Some(a.status) } else { None }).collect()
    };
    let mut wrong = round("1", "80");
    wrong.headers.push(("x-pathfence-token", "s3crex"));
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Stop);
    assert_eq!(runtime.on_request(&proxy, 11, &wrong), Headers::Stop);
    assert_eq!(statuses(proxy.take()), vec![403, 403]);
    assert_eq!(runtime.on_request(&proxy, 12, &Path("/a/x")), Headers::Continue, "no round started");
    let mut right = round("1", "80");
    right.headers.push(("x-pathfence-token", "s3cret"));
    assert_eq!(runtime.on_request(&proxy, 13, &right), Headers::Stop);
    assert_eq!(statuses(proxy.take()), vec![200]);
    // The control: the same configuration without a token starts a round on a request carrying none.
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, IN_ROUNDS.as_bytes(), |_| (host.clone(), 0)));
    proxy.take();
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Stop);
    assert_eq!(statuses(proxy.take()), vec![200]);
}

#[test]
fn without_rounds_the_control_path_is_an_ordinary_request() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = configured(&host, &proxy);
    proxy.take();
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Continue);
    assert_eq!(proxy.take(), vec![]);
}

#[test]
fn a_binding_that_cannot_answer_lets_the_control_request_go_on_and_the_round_starts_all_the_same() {
    let host = MockHost::default();
    let proxy = RecordingProxy { cannot_answer: true, ..RecordingProxy::default() };
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, IN_ROUNDS.as_bytes(), |_| (host.clone(), 0)));
    proxy.take();
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Stop);
    assert_eq!(proxy.take(), vec![Call::Resume(10), Call::Acted(10)]);
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a/x")), Headers::Stop, "held by the round's pause");
}

/// A request that counts the reads of its `:path`, each a hostcall in Envoy.
struct Counted {
    sent: Sent,
    path_reads: std::cell::Cell<u32>,
}

impl Counted {
    fn new(sent: Sent) -> Counted {
        Counted { sent, path_reads: std::cell::Cell::new(0) }
    }
}

impl RequestView for Counted {
    fn path(&self) -> Option<Vec<u8>> {
        self.path_reads.set(self.path_reads.get() + 1);
        self.sent.path()
    }
    fn method(&self) -> Option<Vec<u8>> {
        self.sent.method()
    }
    fn header(&self, name: &str) -> Option<Vec<u8>> {
        self.sent.header(name)
    }
}

#[test]
fn a_requests_path_is_read_from_the_host_once_whether_in_rounds_or_not_and_held_or_not() {
    let get = |path| Counted::new(Sent { method: "GET", path, headers: vec![] });
    for config in [ONE_AT_A_TIME, IN_ROUNDS] {
        let (host, proxy) = (MockHost::default(), RecordingProxy::default());
        let runtime = Runtime::default();
        assert!(runtime.configure(&proxy, ROOT, config.as_bytes(), |_| (host.clone(), 0)));
        let (admitted, held) = (get("/a/x"), get("/a/y"));
        assert_eq!(runtime.on_request(&proxy, 10, &admitted), Headers::Continue);
        assert_eq!(runtime.on_request(&proxy, 11, &held), Headers::Stop, "a's one slot is taken");
        assert_eq!((admitted.path_reads.get(), held.path_reads.get()), (1, 1), "{config}");
    }
    // A round's control request reads it once too.
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, IN_ROUNDS.as_bytes(), |_| (host.clone(), 0)));
    let control = Counted::new(round("1", "10"));
    assert_eq!(runtime.on_request(&proxy, 10, &control), Headers::Stop);
    assert_eq!(control.path_reads.get(), 1);
}

fn answered(calls: Vec<Call>) -> Vec<u32> {
    calls.into_iter().filter_map(|c| if let Call::Answer(_, a) = c { Some(a.status) } else { None }).collect()
}

#[test]
fn a_control_request_that_comes_while_the_workers_are_busy_is_answered_and_not_sent_upstream() {
    let (host, proxy) = (MockHost::default(), RecordingProxy::default());
    let runtime = Runtime::default();
    assert!(runtime.configure(&proxy, ROOT, IN_ROUNDS.as_bytes(), |_| (host.clone(), 0)));
    proxy.take();
    let busy = runtime.workers.borrow_mut();
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Stop);
    assert_eq!(answered(proxy.take()), vec![503]);
    // The control: an ordinary request still goes through unfenced, and so does the control path once rounds are
    // off.
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a/x")), Headers::Continue);
    assert!(answered(proxy.take()).is_empty());
    drop(busy);
    assert!(runtime.configure(&proxy, ROOT, ONE_AT_A_TIME.as_bytes(), |_| (host.clone(), 0)));
    proxy.take();
    let _busy = runtime.workers.borrow_mut();
    assert_eq!(runtime.on_request(&proxy, 12, &round("1", "80")), Headers::Continue);
    assert!(answered(proxy.take()).is_empty());
}

#[test]
fn a_control_request_that_comes_before_any_configuration_is_answered_and_not_sent_upstream() {
    let proxy = RecordingProxy::default();
    let runtime: Runtime<MockHost> = Runtime::default();
    assert_eq!(runtime.on_request(&proxy, 10, &round("1", "80")), Headers::Stop);
    assert_eq!(answered(proxy.take()), vec![503]);
    assert_eq!(runtime.on_request(&proxy, 11, &Path("/a")), Headers::Continue, "the control: nothing to fence with");
    assert!(answered(proxy.take()).is_empty());
}
