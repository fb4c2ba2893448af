//! Requests whose `:path` or a matched header holds a byte that is not UTF-8, in a real Envoy 1.40
//! (`--concurrency 2`), over HTTP/2 (h2c) and HTTP/1.1 (where only a header can carry one: Envoy's codec refuses such
//! a request line with a 400 before any filter), under each failure policy of the Wasm plugin. Read as text,
//! such a value panicked the VM of the worker that received it: with `FAIL_CLOSED` (Envoy's default) every later
//! request on that worker got a 503, with `FAIL_OPEN` it went through unfenced. Each test sends the hostile requests
//! on one connection per worker, then checks on those same connections that both workers still fence their paths
//! to the exact limit.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use support::h2c::{H2Response, H2c};
use support::*;

/// Path t is matched on a header, path a on the URL path; one slot each, so the limit shows exactly. A request that
/// finds the slot taken waits at most 100 ms, far less than a slow request holds it: then it is refused. (The wait
/// also lets a slot that one worker keeps as a spare for a moment reach the other worker, see the README.)
const FENCE: &str = r#"{"paths": [
  {"name": "t", "match": {"headers": [{"name": "x-tier", "prefix": "gold"}]}, "max_concurrency": 1, "queue_timeout_ms": 100},
  {"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 1, "queue_timeout_ms": 100}
]}"#;
const SLOW: Duration = Duration::from_millis(600);
const OK_BODY: &[u8] = b"ok\n";
/// How the fence's refusal begins (its problem body), so a 503 of Envoy's own is not taken for one.
const REFUSAL_START: &[u8] = br#"{"type":"about:blank","title":"Service Unavailable","status":503,"#;

fn upstream_time(path: &str) -> Duration {
    if path.contains("slow") {
        SLOW
    } else {
        Duration::ZERO
    }
}

/// Envoy with the fence under `policy`, once two connections are open on it, one on each worker (the listener
/// balances connections exactly); `connect` opens one.
fn envoy_with_a_connection_per_worker<C>(
    bin: &std::path::Path,
    upstream: &Upstream,
    policy: &str,
    connect: impl Fn(u16) -> C,
) -> (Envoy, [C; 2]) {
    let envoy = Envoy::start_with_policy(bin, upstream.port, FENCE, policy).unwrap();
    let connections = [connect(envoy.port), connect(envoy.port)];
    let spread = eventually(Duration::from_secs(5), || envoy.connections_per_worker() == vec![1, 1]);
    assert!(spread, "one connection per worker expected: {:?}", envoy.connections_per_worker());
    (envoy, connections)
}

/// Waits until no slot is taken or kept, and nobody waits.
fn wait_until_free(envoy: &Envoy) {
    let free = eventually(Duration::from_secs(3), || {
        let s = envoy.stats("pathfence.");
        ["a", "t", "local"]
            .iter()
            .all(|p| s.get(&stat(p, "active")) == Some(&0) && s.get(&stat(p, "queued")) == Some(&0))
    });
    assert!(free, "gauges did not drain: {:?}", envoy.stats("pathfence."));
}

/// `path`'s `admitted` counter reaches `count` (workers hand their counts to Envoy every 10 to 100 ms).
fn assert_admitted(envoy: &Envoy, path: &str, count: i64) {
    let stat = stat(path, "granted");
    let reached = eventually(Duration::from_secs(2), || envoy.stats(&stat).get(&stat) == Some(&count));
    assert!(reached, "{stat} should be {count}: {:?}", envoy.stats("pathfence."));
}

/// Afterwards: no slot or queue place left taken, and no panic logged.
fn assert_clean(envoy: &Envoy) {
    wait_until_free(envoy);
    let log = envoy.log_text();
    assert!(!log.contains("panic"), "the VM panicked:\n{log}");
}

fn h2c_scenario(policy: &str) {
    let Some(bin) = envoy_bin(&format!("h2c, {policy}")) else { return };
    let _serial = exclusive();
    let upstream = Upstream::start(None, upstream_time);
    let (envoy, mut connections) =
        envoy_with_a_connection_per_worker(&bin, &upstream, policy, |port| H2c::connect(port).unwrap());

    // On each worker: a path and a matched header value that are not UTF-8. The path starts with `/a` byte for byte,
    // so it is a's; the header value starts with `gold`, so the request is t's.
    for (worker, c) in connections.iter_mut().enumerate() {
        wait_until_free(&envoy);
        let path = c.send(b"/a/\xff", &[]).unwrap();
        let header = c.send(b"/x", &[(b"x-tier", b"gold\xff")]).unwrap();
        let answers = c.wait(&[path, header], Duration::from_secs(5));
        for id in [path, header] {
            let answer = answers.get(&id).cloned().unwrap_or_default();
            assert_eq!((answer.status, answer.body.as_slice()), (200, OK_BODY), "worker {worker}, stream {id}");
        }
    }
    assert_admitted(&envoy, "a", 2);
    assert_admitted(&envoy, "t", 2);

    // Then, on the same connections: three slow requests of each path at once per worker. Of the six of a path,
    // exactly one is admitted, and each worker refuses its share.
    for (path, header) in [(&b"/a/slow"[..], None), (b"/slow", Some((&b"x-tier"[..], &b"gold"[..])))] {
        wait_until_free(&envoy);
        let headers: Vec<(&[u8], &[u8])> = header.into_iter().collect();
        let sent: Vec<Vec<u32>> =
            connections.iter_mut().map(|c| (0..3).map(|_| c.send(path, &headers).unwrap()).collect()).collect();
        let answers: Vec<Vec<H2Response>> = connections
            .iter_mut()
            .zip(&sent)
            .map(|(c, ids)| {
                let mut got = c.wait(ids, Duration::from_secs(5));
                ids.iter().map(|id| got.remove(id).unwrap_or_default()).collect()
            })
            .collect();
        let what = String::from_utf8_lossy(path);
        let admitted = answers.iter().flatten().filter(|r| (r.status, r.body.as_slice()) == (200, OK_BODY)).count();
        assert_eq!(admitted, 1, "{what}: exactly the limit admitted: {answers:?}");
        for (worker, answers) in answers.iter().enumerate() {
            let refused = answers.iter().filter(|r| r.status == 503 && r.body.starts_with(REFUSAL_START)).count();
            assert!(refused >= 2, "{what}: worker {worker} should refuse by the fence: {answers:?}");
        }
    }
    assert_clean(&envoy);
}

/// Sends `request` on `first`, then a moment later on `second`, whose answer must be the fence's refusal; then
/// `first`'s must be its admission: one slot, two workers, the limit exact on each.
fn one_admitted_one_refused(envoy: &Envoy, first: &mut Client, second: &mut Client, request: &[u8], what: &str) {
    wait_until_free(envoy);
    first.write_raw(request).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    second.write_raw(request).unwrap();
    let refused = second.read().unwrap();
    assert_eq!(refused.status, 503, "{what}: the second worker must refuse: {}", refused.body);
    assert_eq!(refused.header("x-pathfence-path"), Some(what), "{what}: refused by the fence");
    let admitted = first.read().unwrap();
    assert_eq!(admitted.status, 200, "{what}: the first worker must admit: {}", admitted.body);
}

fn http1_scenario(policy: &str) {
    let Some(bin) = envoy_bin(&format!("HTTP/1.1, {policy}")) else { return };
    let _serial = exclusive();
    let upstream = Upstream::start(None, upstream_time);
    let (envoy, [mut one, mut two]) =
        envoy_with_a_connection_per_worker(&bin, &upstream, policy, |port| Client::connect(port).unwrap());

    for c in [&mut one, &mut two] {
        wait_until_free(&envoy);
        c.write_raw(b"GET /x HTTP/1.1\r\nHost: localhost\r\nx-tier: gold\xff\r\n\r\n").unwrap();
        let header = c.read().unwrap();
        assert_eq!((header.status, header.body.as_str()), (200, "ok\n"), "a header value that is not UTF-8");
    }
    assert_admitted(&envoy, "t", 2);

    // Then, on the same connections, each worker in turn finds the slot taken by the other and refuses.
    let slow_a = b"GET /a/slow HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let slow_t = b"GET /slow HTTP/1.1\r\nHost: localhost\r\nx-tier: gold\r\n\r\n";
    one_admitted_one_refused(&envoy, &mut one, &mut two, slow_a, "a");
    one_admitted_one_refused(&envoy, &mut two, &mut one, slow_a, "a");
    one_admitted_one_refused(&envoy, &mut one, &mut two, slow_t, "t");
    one_admitted_one_refused(&envoy, &mut two, &mut one, slow_t, "t");
    assert_clean(&envoy);

    // A request line that is not UTF-8 never reaches the filter over HTTP/1.1: Envoy's codec refuses it.
    let mut other = Client::connect(envoy.port).unwrap();
    other.write_raw(b"GET /a/\xff HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    assert_eq!(other.read().unwrap().status, 400);
    assert_admitted(&envoy, "a", 2);
}

both_builds! {
    fn h2c_bytes_that_are_not_utf8_leave_both_workers_fenced_when_failing_closed() {
        h2c_scenario("FAIL_CLOSED");
    }
}

both_builds! {
    fn h2c_bytes_that_are_not_utf8_leave_both_workers_fenced_when_failing_open() {
        h2c_scenario("FAIL_OPEN");
    }
}

both_builds! {
    fn http1_bytes_that_are_not_utf8_leave_both_workers_fenced_when_failing_closed() {
        http1_scenario("FAIL_CLOSED");
    }
}

both_builds! {
    fn http1_bytes_that_are_not_utf8_leave_both_workers_fenced_when_failing_open() {
        http1_scenario("FAIL_OPEN");
    }
}
