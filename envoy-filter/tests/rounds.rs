//! A what-if run's coordinated rounds in a real Envoy 1.40 (`--concurrency 2`), both builds: a round started by
//! its control request holds the paused path's requests for its pause, longer than their queue timeout, and lets
//! every one of them through; the control, a counted pause of the same length on the same path, refuses them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::*;

const PAUSE: Duration = Duration::from_millis(600);

/// Path a: a queue of 2 and a timeout of 100 ms, far shorter than the pause; paused in rounds.
const IN_ROUNDS: &str = r#"{
  "paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 100, "max_queue": 2, "queue_timeout_ms": 100}],
  "pause": {"rounds": {"control_path": "/.pathfence/round", "max_pause_ms": 2000}, "paths": ["a"]}
}"#;

/// The same path under a counted pause of the same length, started by its first request.
const COUNTED: &str = r#"{
  "paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 100, "max_queue": 2, "queue_timeout_ms": 100}],
  "pause": {"every_requests": 1, "duration_ms": 600, "paths": ["a"]}
}"#;

fn round(port: u16, method: &str, round: &str, pause_ms: u128) -> Response {
    let mut client = Client::connect(port).unwrap();
    client
        .write_raw(
            format!(
                "{method} /.pathfence/round HTTP/1.1\r\nHost: localhost\r\nx-pathfence-round: {round}\r\n\
                 x-pathfence-pause-ms: {pause_ms}\r\ncontent-length: 0\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
    client.read().unwrap()
}

/// Six requests of a, sent together, and how each came back: status and latency.
fn six_of_a(port: u16) -> Vec<(u16, Duration)> {
    let clients: Vec<_> = (0..6)
        .map(|i| {
            thread::spawn(move || {
                let start = Instant::now();
                let answer = get(port, &format!("/a/{i}"), Duration::from_secs(5)).unwrap();
                (answer.status, start.elapsed())
            })
        })
        .collect();
    clients.into_iter().map(|c| c.join().unwrap()).collect()
}

both_builds! {
    fn a_request_held_by_a_round_longer_than_its_queue_timeout_goes_through_and_a_counted_pause_refuses_it() {
        let Some(bin) = envoy_bin("a_request_held_by_a_round_longer_than_its_queue_timeout_goes_through") else {
            return;
        };
        let _serial = exclusive();
        let upstream = Upstream::start(None, |_| Duration::ZERO);
        let envoy = Envoy::start(&bin, upstream.port, Some(IN_ROUNDS)).unwrap();
        let started = round(envoy.port, "POST", "1", PAUSE.as_millis());
        assert_eq!(started.status, 200, "{}", started.body);
        let body: serde_json::Value = serde_json::from_str(&started.body).unwrap();
        assert_eq!((body["round"].as_u64(), body["pause_ms"].as_u64()), (Some(1), Some(600)), "{body}");
        let in_rounds = six_of_a(envoy.port);
        println!("in rounds, a pause of 600 ms, a's queue of 2 and timeout of 100 ms: {in_rounds:?}");
        assert!(in_rounds.iter().all(|(status, _)| *status == 200), "{in_rounds:?}");
        assert!(
            in_rounds.iter().all(|(_, latency)| *latency >= Duration::from_millis(400)),
            "every request of a was held by the pause: {in_rounds:?}"
        );
        // The round stands: the same round again is refused, and so is a GET; the upstream saw none of them.
        let again = round(envoy.port, "POST", "1", 10);
        assert_eq!(again.status, 409, "{}", again.body);
        assert_eq!(round(envoy.port, "GET", "2", 10).status, 405);
        assert_eq!(round(envoy.port, "POST", "2", 2001).status, 400);
        assert_eq!(upstream.max_in_flight(".pathfence"), 0, "a control request reached the upstream");
        let stats = envoy.stats("pathfence");
        assert_eq!(stats[&stat("a", "paused")], 6);
        assert_eq!(stats[&stat("a", "rejected_timeout")] + stats[&stat("a", "rejected_queue_full")], 0);
        drop(envoy);

        // The control: a counted pause of the same length, started by the first request, refuses the held ones.
        let envoy = Envoy::start(&bin, upstream.port, Some(COUNTED)).unwrap();
        assert_eq!(get(envoy.port, "/a/first", Duration::from_secs(5)).unwrap().status, 200);
        let counted = six_of_a(envoy.port);
        println!("counted, the same pause: {counted:?}");
        let refused = counted.iter().filter(|(status, _)| *status == 503).count();
        assert_eq!(refused, 6, "a counted pause refuses what it holds past the queue: {counted:?}");
    }
}
