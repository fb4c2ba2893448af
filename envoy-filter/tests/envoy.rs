//! The filter in a real Envoy 1.40 (`--concurrency 2`) in front of a loopback upstream with a bounded worker
//! pool. Each isolation assertion is also checked on the same scenario without the filter, where it must fail.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use support::*;

/// Upstream worker pool: like a Tomcat with 8 threads.
const UPSTREAM_WORKERS: usize = 8;
const A_STALL: Duration = Duration::from_millis(500);
const B_WORK: Duration = Duration::from_millis(5);
/// The bounds asserted on path B's latency, with and without the filter. Unloaded, B takes about 10 ms with
/// the filter and seconds without; the bounds leave room for a machine busy with other builds.
const B_P99_BOUND_MS: f64 = 1000.0;
const B_MEDIAN_BOUND_MS: f64 = 100.0;

fn stalling_a(path: &str) -> Duration {
    if path.starts_with("/a") {
        A_STALL
    } else {
        B_WORK
    }
}

const FENCE: &str = r#"{
  "paths": [
    {"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 4, "max_queue": 4, "queue_timeout_ms": 100},
    {"name": "b", "match": {"prefix": "/b"}, "max_concurrency": 4, "max_queue": 32, "queue_timeout_ms": 1000}
  ]
}"#;

struct Run {
    b_p99_ms: f64,
    b_median_ms: f64,
    a: Vec<Outcome>,
    b: Vec<Outcome>,
}

/// Path A stalls and is offered far more than the pool can take (30/s x 0.5 s = 15 workers' worth); path B is
/// light. Open loop, 3 s, on fresh Envoy and upstream.
fn stalled_a_scenario(bin: &std::path::Path, filter: Option<&str>) -> (Run, Envoy, Upstream) {
    let upstream = Upstream::start(Some(UPSTREAM_WORKERS), stalling_a);
    let envoy = Envoy::start(bin, upstream.port, filter).unwrap();
    let schedule = constant_rate(&["/a/slow", "/b/fast"], 30, Duration::from_secs(3));
    let outcomes = open_loop(envoy.port, &schedule, Duration::from_secs(5));
    let (a, b): (Vec<_>, Vec<_>) = outcomes.into_iter().partition(|o| o.path.starts_with("/a"));
    let b_latencies: Vec<Duration> = b.iter().map(|o| o.latency).collect();
    let run = Run { b_p99_ms: quantile_ms(&b_latencies, 0.99), b_median_ms: quantile_ms(&b_latencies, 0.5), a, b };
    (run, envoy, upstream)
}

both_builds! {
    fn a_stalled_path_cannot_take_the_threads_of_another_path() {
        let Some(bin) = envoy_bin("a_stalled_path_cannot_take_the_threads_of_another_path") else { return };
        let _serial = exclusive();

        let (control, control_envoy, control_upstream) = stalled_a_scenario(&bin, None);
        let control_a_threads = control_upstream.max_in_flight("a");
        drop(control_envoy);
        drop(control_upstream);
        let (fenced, envoy, upstream) = stalled_a_scenario(&bin, Some(FENCE));
        let fenced_a_threads = upstream.max_in_flight("a");

        let a_rejected: Vec<&Outcome> = fenced.a.iter().filter(|o| o.status == 503).collect();
        let a_rejected_latencies: Vec<Duration> = a_rejected.iter().map(|o| o.latency).collect();
        println!(
            "path B p99: {:.1} ms without the filter, {:.1} ms with it (bound {B_P99_BOUND_MS} ms); \
             median {:.1} ms without, {:.1} ms with (bound {B_MEDIAN_BOUND_MS} ms); \
             path A: {} of {} refused with 503, refusal p99 {:.1} ms",
            control.b_p99_ms,
            fenced.b_p99_ms,
            control.b_median_ms,
            fenced.b_median_ms,
            a_rejected.len(),
            fenced.a.len(),
            quantile_ms(&a_rejected_latencies, 0.99)
        );

        println!("most upstream threads path A held at once: {control_a_threads} without the filter, {fenced_a_threads} with it (limit 4)");

        // The control must fail the very assertions the fenced run passes, or the scenario proves nothing.
        assert!(control_a_threads > 4, "without the filter A should take more than 4 threads, took {control_a_threads}");
        assert!(fenced_a_threads <= 4, "A held {fenced_a_threads} upstream threads, over its limit of 4, across 2 workers");
        assert!(
            control.b_p99_ms > B_P99_BOUND_MS,
            "without the filter path B should degrade, but its p99 was {:.1} ms",
            control.b_p99_ms
        );
        assert!(
            fenced.b_p99_ms <= B_P99_BOUND_MS,
            "with the filter path B's p99 should stay under {B_P99_BOUND_MS} ms, was {:.1} ms",
            fenced.b_p99_ms
        );
        assert!(control.b_median_ms > B_MEDIAN_BOUND_MS, "without the filter B's median should degrade too");
        assert!(fenced.b_median_ms <= B_MEDIAN_BOUND_MS, "with the filter B's median was {:.1} ms", fenced.b_median_ms);
        assert!(fenced.b.iter().all(|o| o.status == 200), "no request of path B may be refused");

        // A's overflow is refused, fast, and named.
        assert!(a_rejected.len() * 2 >= fenced.a.len(), "most of A's overflow should be refused");
        assert!(a_rejected.iter().all(|o| o.fenced_path.as_deref() == Some("a")));
        assert!(
            a_rejected.iter().all(|o| o.retry_after.as_deref() == Some("1")),
            "every refusal should carry retry-after: 1 (retry_after_s' default): {a_rejected:?}"
        );
        assert!(
            quantile_ms(&a_rejected_latencies, 0.99) < 600.0,
            "refusals should come soon after the 100 ms queue timeout"
        );
        assert!(fenced.a.iter().all(|o| o.status == 200 || o.status == 503));

        // After the load every gauge drains back to zero, on both workers.
        let drained = eventually(Duration::from_secs(5), || {
            let s = envoy.stats("pathfence");
            ["a", "b", "local"]
                .iter()
                .all(|p| s.get(&stat(p, "active")) == Some(&0) && s.get(&stat(p, "queued")) == Some(&0))
        });
        let stats = envoy.stats("pathfence");
        assert!(drained, "gauges did not drain: {stats:?}");
        let refused = stats[&stat("a", "rejected_queue_full")] + stats[&stat("a", "rejected_timeout")];
        assert_eq!(refused as usize, a_rejected.len());
        assert_eq!(stats[&stat("b", "granted")] as usize, fenced.b.len());
        // Both workers took connections, so the limit held across threads, not within one.
        let workers = envoy.stats("downstream_cx_total");
        let busy = workers.iter().filter(|(k, v)| k.contains(".worker_") && **v > 0).count();
        assert_eq!(busy, 2, "expected both Envoy workers to serve: {workers:?}");
        // Prometheus reads the starter's names (the native build's under Envoy's prefix, see `prometheus_name`), the
        // path and the reason as labels (the bootstrap's stats_tags).
        let prometheus = envoy.prometheus();
        let lines: Vec<&str> = prometheus.lines().filter(|l| l.contains("pathfence_")).collect();
        println!("/stats/prometheus: {lines:#?}");
        for (name, kind) in [
            ("pathfence_path_active", "gauge"),
            ("pathfence_path_queued", "gauge"),
            ("pathfence_path_granted_total", "counter"),
            ("pathfence_path_rejected_total", "counter"),
            ("pathfence_path_paused_total", "counter"),
        ] {
            let name = prometheus_name(name);
            assert!(lines.contains(&format!("# TYPE {name} {kind}").as_str()), "no {kind} {name}: {lines:#?}");
        }
        let rejected = envoy.prometheus_samples("pathfence_path_rejected_total");
        assert_eq!(
            rejected.get(r#"path="a",reason="queue-full""#).copied().unwrap_or(-1)
                + rejected.get(r#"path="a",reason="timeout""#).copied().unwrap_or(-1),
            a_rejected.len() as i64,
            "{rejected:?}"
        );
        let granted = envoy.prometheus_samples("pathfence_path_granted_total");
        assert_eq!(granted.get(r#"path="b""#), Some(&(fenced.b.len() as i64)), "{granted:?}");
        let active = envoy.prometheus_samples("pathfence_path_active");
        assert_eq!(active.get(r#"path="a""#), Some(&0), "{active:?}");
    }
}

/// One slot each: `a` refuses at once beyond it, `t` lets one wait for 100 ms. Two paths, since the queue is per
/// worker: a second waiter of one path may land on the other worker's empty queue.
const ONE_SLOT: &str = r#"{"paths": [
    {"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 1, "max_queue": 0},
    {"name": "t", "match": {"prefix": "/t"}, "max_concurrency": 1, "max_queue": 4, "queue_timeout_ms": 100}]}"#;

both_builds! {
    /// The starter's rejection contract, from the real Envoy: `503`, `retry-after`, `x-pathfence-path`, and an
    /// `application/problem+json` body with the starter's fields, its `reason` (`queue-full`, `timeout`) and the request's
    /// URL path as `instance` (cut as the starter cuts it); and each refusal counted under its reason in Prometheus.
    fn a_refusal_is_the_starters_problem_json_naming_the_path_and_the_reason() {
        let Some(bin) = envoy_bin("a_refusal_is_the_starters_problem_json_naming_the_path_and_the_reason") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(None, |_| Duration::from_secs(2));
        let envoy = Envoy::start(&bin, upstream.port, Some(ONE_SLOT)).unwrap();
        let port = envoy.port;
        // Each path's slot is taken by a request the upstream stalls; then a finds no place, and t's waiter times out.
        let holders: Vec<_> = ["/a/held", "/t/held"]
            .into_iter()
            .map(|path| std::thread::spawn(move || get(port, path, Duration::from_secs(3))))
            .collect();
        let held = eventually(Duration::from_secs(2), || {
            let s = envoy.stats("pathfence_path_active");
            s.get(&stat("a", "active")) == Some(&1) && s.get(&stat("t", "active")) == Some(&1)
        });
        assert!(held, "{:?}", envoy.stats("pathfence"));
        let full = get(port, "/a/full?y=2", Duration::from_secs(3)).unwrap();
        let timed_out = get(port, "/t/waiting?x=1", Duration::from_secs(3)).unwrap();
        // A long URL path is repeated only up to the starter's 256 characters, then `...`.
        let long = get(port, &format!("/a/{}?z=3", "x".repeat(40_000)), Duration::from_secs(3)).unwrap();
        let cut = format!("/a/{}...", "x".repeat(253));
        let problem = |path: &str, reason: &str, detail: &str, instance: &str| {
            serde_json::json!({"type": "about:blank", "title": "Service Unavailable", "status": 503, "detail": detail,
                "instance": instance, "path": path, "reason": reason})
        };
        for (answer, path, expected) in [
            (&full, "a", problem("a", "queue-full", "The queue of path 'a' is full.", "/a/full")),
            (
                &timed_out,
                "t",
                problem("t", "timeout", "The request waited longer than the queue timeout of path 't'.", "/t/waiting"),
            ),
            (&long, "a", problem("a", "queue-full", "The queue of path 'a' is full.", &cut)),
        ] {
            assert_eq!(answer.status, 503, "{}", answer.body);
            assert_eq!(answer.header("retry-after"), Some("1"));
            assert_eq!(answer.header("x-pathfence-path"), Some(path));
            assert_eq!(answer.header("content-type"), Some("application/problem+json"));
            assert!(answer.body.len() < 1024, "a body of {} bytes for path {path}", answer.body.len());
            let body: serde_json::Value = serde_json::from_str(&answer.body).expect("a JSON body");
            assert_eq!(body, expected);
        }
        let counted = eventually(Duration::from_secs(2), || {
            let rejected = envoy.prometheus_samples("pathfence_path_rejected_total");
            rejected.get(r#"path="a",reason="queue-full""#) == Some(&2)
                && rejected.get(r#"path="a",reason="timeout""#) == Some(&0)
                && rejected.get(r#"path="t",reason="timeout""#) == Some(&1)
                && rejected.get(r#"path="t",reason="queue-full""#) == Some(&0)
        });
        assert!(counted, "{:?}", envoy.prometheus_samples("pathfence_path_rejected_total"));
        drop(holders);
    }
}

/// FENCE plus path q: one slot and a long wait, so its clients give up while their requests are still queued.
const FENCE_WITH_LONG_WAIT: &str = r#"{
  "paths": [
    {"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 4, "max_queue": 4, "queue_timeout_ms": 100},
    {"name": "q", "match": {"prefix": "/q"}, "max_concurrency": 1, "max_queue": 4, "queue_timeout_ms": 10000}
  ]
}"#;

both_builds! {
    fn a_slot_or_a_place_in_the_queue_is_released_when_the_client_disconnects() {
        let Some(bin) = envoy_bin("a_slot_or_a_place_in_the_queue_is_released_when_the_client_disconnects") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(Some(UPSTREAM_WORKERS), |_| Duration::from_secs(3));
        let envoy = Envoy::start(&bin, upstream.port, Some(FENCE_WITH_LONG_WAIT)).unwrap();
        // Four requests take all of a's slots and two more wait; one takes q's slot and two more wait for it.
        // Every client gives up after 300 ms: a's waiters are refused at their 100 ms timeout before that, q's are
        // still queued (10 s timeout) when their clients go.
        let mut schedule: Vec<(String, Duration)> =
            (0..6).map(|i| ("/a/x".to_string(), Duration::from_millis(i * 10))).collect();
        schedule.extend((0..3).map(|i| ("/q/x".to_string(), Duration::from_millis(60 + i * 10))));
        let port = envoy.port;
        let load = std::thread::spawn(move || open_loop(port, &schedule, Duration::from_millis(300)));
        std::thread::sleep(Duration::from_millis(200));
        let during = envoy.stats("pathfence.");
        let outcomes = load.join().unwrap();
        assert_eq!(during.get(&stat("a", "active")), Some(&4), "while the clients wait: {during:?}");
        assert_eq!(during.get(&stat("q", "active")), Some(&1), "while the clients wait: {during:?}");
        assert_eq!(during.get(&stat("q", "queued")), Some(&2), "while the clients wait: {during:?}");
        let count = |prefix: &str, status: u16| {
            outcomes.iter().filter(|o| o.path.starts_with(prefix) && o.status == status).count()
        };
        assert_eq!((count("/a", 0), count("/a", 503)), (4, 2), "{outcomes:?}");
        assert_eq!(count("/q", 0), 3, "q's clients all give up, none is refused: {outcomes:?}");
        let refused: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == 503).collect();
        assert!(refused.iter().all(|o| o.retry_after.as_deref() == Some("1")), "{refused:?}");
        let drained = eventually(Duration::from_secs(2), || {
            let s = envoy.stats("pathfence.");
            ["a", "q"].iter().all(|p| s.get(&stat(p, "active")) == Some(&0) && s.get(&stat(p, "queued")) == Some(&0))
        });
        let after = envoy.stats("pathfence.");
        assert!(drained, "slots or queue places were not released on disconnect (upstream still stalls): {after:?}");
        assert_eq!(after[&stat("q", "rejected_timeout")], 0, "q's waiters left; they were not refused");
        // The slots are usable again: fresh requests are admitted (and stall upstream), not refused or queued.
        for path in ["/a/again", "/q/again"] {
            let r = get(envoy.port, path, Duration::from_millis(200));
            assert!(r.is_err(), "{path} should be admitted and stall upstream, not be refused: {:?}", r.map(|r| r.status));
        }
        let later = envoy.stats("pathfence.");
        assert_eq!(later[&stat("a", "granted")], after[&stat("a", "granted")] + 1);
        assert_eq!(later[&stat("q", "granted")], after[&stat("q", "granted")] + 1);
    }
}

both_builds! {
    fn an_invalid_configuration_is_refused_naming_the_field() {
        let Some(bin) = envoy_bin("an_invalid_configuration_is_refused_naming_the_field") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(None, |_| Duration::ZERO);
        let bad = r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurency": 4}]}"#;
        match Envoy::start(&bin, upstream.port, Some(bad)) {
            Ok(envoy) => panic!("Envoy accepted an invalid configuration; log:\n{}", envoy.log_text()),
            Err(log) => assert!(
                log.contains("invalid pathfence configuration: field `paths[0].max_concurency`: unknown field"),
                "the log should name the field by its full path:\n{log}"
            ),
        }
        let bad = r#"{"paths": [{"name": "a", "match": {"regex": "(/a"}, "max_concurrency": 4}]}"#;
        match Envoy::start(&bin, upstream.port, Some(bad)) {
            Ok(envoy) => panic!("Envoy accepted a bad regex; log:\n{}", envoy.log_text()),
            Err(log) => assert!(log.contains("paths[0].match.regex"), "the log should name the field:\n{log}"),
        }
    }
}

both_builds! {
    fn an_injected_pause_shows_up_as_the_configured_stall() {
        let Some(bin) = envoy_bin("an_injected_pause_shows_up_as_the_configured_stall") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(Some(16), |_| Duration::from_millis(1));
        let config = r#"{
          "paths": [
            {"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 100},
            {"name": "b", "match": {"prefix": "/b"}, "max_concurrency": 100}
          ],
          "pause": {"every_requests": 20, "duration_ms": 300, "paths": ["a"]}
        }"#;
        let envoy = Envoy::start(&bin, upstream.port, Some(config)).unwrap();
        let schedule = constant_rate(&["/a/x", "/b/x"], 50, Duration::from_secs(2));
        let outcomes = open_loop(envoy.port, &schedule, Duration::from_secs(3));
        let ms = |p: &str, q: f64| {
            let l: Vec<Duration> = outcomes.iter().filter(|o| o.path.starts_with(p)).map(|o| o.latency).collect();
            quantile_ms(&l, q)
        };
        let a_delayed =
            outcomes.iter().filter(|o| o.path.starts_with("/a") && o.latency > Duration::from_millis(100)).count();
        let stats = envoy.stats("pathfence");
        println!(
            "pause 300 ms every 20 requests on a: a max {:.1} ms, a median {:.1} ms, {a_delayed} of a delayed > 100 ms; \
             a p90 {:.1} ms; b (not paused) p90 {:.1} ms, max {:.1} ms; a.paused = {}",
            ms("/a", 1.0),
            ms("/a", 0.5),
            ms("/a", 0.9),
            ms("/b", 0.9),
            ms("/b", 1.0),
            stats[&stat("a", "paused")]
        );
        assert!(outcomes.iter().all(|o| o.status == 200), "{:?}", outcomes.iter().filter(|o| o.status != 200).collect::<Vec<_>>());
        // The longest wait on a is one pause: at least most of it, and not much more.
        assert!(
            (250.0..=800.0).contains(&ms("/a", 1.0)),
            "a's max latency {:.1} ms is not one 300 ms pause",
            ms("/a", 1.0)
        );
        assert!(a_delayed >= 10, "only {a_delayed} requests of a were held");
        // About 15 of every 35 requests of a arrive during a pause, so a's p90 is deep in it; b, not listed, is the
        // control in the same run and must fail that same check.
        let stalled = |p: &str| ms(p, 0.9) >= 150.0;
        assert!(stalled("/a"), "a's p90 {:.1} ms shows no pause", ms("/a", 0.9));
        assert!(!stalled("/b"), "b was stalled too: p90 {:.1} ms", ms("/b", 0.9));
        assert!(stats[&stat("a", "paused")] >= 10);
        assert_eq!(stats[&stat("b", "paused")], 0);
    }
}

const BEFORE_THE_CHANGE: &str =
    r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 4, "max_queue": 0}]}"#;
const AFTER_THE_CHANGE: &str =
    r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 2, "max_queue": 0}]}"#;

fn slow(_path: &str) -> Duration {
    Duration::from_millis(300)
}

both_builds! {
    fn a_new_configuration_takes_over_and_the_old_one_leaves_no_slot_behind() {
        let Some(bin) = envoy_bin("a_new_configuration_takes_over_and_the_old_one_leaves_no_slot_behind") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(None, slow);
        let envoy = Envoy::start_reloadable(&bin, upstream.port, BEFORE_THE_CHANGE).unwrap();
        // Under the first configuration: 40/s for 1 s, 0.3 s each, is 12 at once against a limit of 4.
        let first = open_loop(envoy.port, &constant_rate(&["/a/x"], 40, Duration::from_secs(1)), Duration::from_secs(2));
        let count = |outcomes: &[Outcome], status: u16| outcomes.iter().filter(|o| o.status == status).count();
        assert!(count(&first, 200) >= 4 && count(&first, 503) > 0, "{first:?}");
        assert_eq!(count(&first, 200) + count(&first, 503), first.len(), "{first:?}");

        // The change: Envoy builds a new root context on each thread and deletes the old ones once the old listener
        // has drained, which shuts down their workers. The native build's old configuration goes once drained, and
        // each thread's fence of it with the thread's next stream (there is no callback on a worker thread without
        // one); its last stream on each thread already gave back what it held.
        envoy.reconfigure(AFTER_THE_CHANGE).unwrap();
        let (line, times) = match build() {
            Build::Wasm => ("shut down with its configuration", 2),
            Build::Native => ("configuration gone", 1),
        };
        let shut_down = eventually(Duration::from_secs(10), || envoy.log_text().matches(line).count() >= times);
        assert!(shut_down, "the old configuration's workers were not shut down:\n{}", envoy.log_text());

        // Exactly the new limit is free: two slow requests are admitted, the third is refused at once.
        let burst: Vec<(String, Duration)> = (0..3).map(|i| ("/a/x".to_string(), Duration::from_millis(i * 30))).collect();
        let after = open_loop(envoy.port, &burst, Duration::from_secs(2));
        assert_eq!((count(&after, 200), count(&after, 503)), (2, 1), "{after:?}");
        let drained = eventually(Duration::from_secs(2), || {
            envoy.stats(&stat_filter("a", "active")).get(&stat("a", "active")) == Some(&0)
        });
        assert!(drained, "{:?}", envoy.stats("pathfence."));
        assert!(!envoy.log_text().contains("panic"), "{}", envoy.log_text());
    }
}

/// Two paths, the first named `first`; `retry_after_s` makes each push a configuration Envoy has not seen (it
/// reuses the root contexts of one it still has).
fn named(first: &str, retry_after_s: u32) -> String {
    format!(
        r#"{{"paths": [{{"name": "{first}", "match": {{"prefix": "/a"}}, "max_concurrency": 2}},
                     {{"name": "b", "match": {{"prefix": "/b"}}, "max_concurrency": 2}}],
            "retry_after_s": {retry_after_s}}}"#
    )
}

/// What each worker logged, as it was configured, of the stats its VM had defined so far.
fn stats_defined(envoy: &Envoy) -> Vec<usize> {
    let log = envoy.log_text();
    log.lines()
        .filter_map(|l| l.split("stats defined on this VM: ").nth(1))
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

both_builds! {
    fn configurations_pushed_again_and_again_define_each_stat_once() {
        let Some(bin) = envoy_bin("configurations_pushed_again_and_again_define_each_stat_once") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(None, |_| Duration::ZERO);
        let envoy = Envoy::start_reloadable(&bin, upstream.port, &named("a", 0)).unwrap();
        // A control plane renaming path `a` to `c` and back on every push: Envoy never frees a stat, and each
        // definition adds to the VM's table of metric ids even for a name it has.
        let pushes = 6;
        for push in 1..=pushes {
            let first = if push % 2 == 0 { "a" } else { "c" };
            envoy.reconfigure(&named(first, push)).unwrap();
            // Envoy configures the new root contexts (one per worker thread, one on the main thread) as it applies the
            // listener, and logs within 100 ms. The native build configures a worker thread on its first stream of
            // the configuration: the request below, one per push (the first configuration saw none).
            let (lines, before_request) = match build() {
                Build::Wasm => (3 * (push as usize + 1), true),
                Build::Native => (push as usize, false),
            };
            let configured = || eventually(Duration::from_secs(5), || stats_defined(&envoy).len() >= lines);
            assert!(!before_request || configured(), "push {push}: {:?}\n{}", stats_defined(&envoy), envoy.log_text());
            assert_eq!(get(envoy.port, "/a/x", Duration::from_secs(2)).map(|r| r.status).ok(), Some(200), "push {push}");
            assert!(before_request || configured(), "push {push}: {:?}\n{}", stats_defined(&envoy), envoy.log_text());
        }
        let defined = stats_defined(&envoy);
        println!("stats defined on the VM, as each worker was configured: {defined:?}");
        // a, b, c and local, six stats each, however often they were configured.
        assert!(defined.iter().all(|n| *n <= 4 * 6), "{defined:?}");
        let shown = envoy.stats(&format!("{}path=", build().stat_namespace()));
        match build() {
            Build::Wasm => assert_eq!(shown.len(), 4 * 6, "{shown:?}"),
            // A dynamic module's stats live in its configuration's scope and go with it: the current configuration's
            // (its first path, b and local), and the last one's while its listener drains.
            Build::Native => assert!((3 * 6..=4 * 6).contains(&shown.len()), "{shown:?}"),
        }
        assert!(shown.values().all(|v| *v >= 0), "a stat below zero: {shown:?}");
        assert!(!envoy.log_text().contains("panic"), "{}", envoy.log_text());
    }
}

both_builds! {
    /// Every worker hands its changes of `active` to Envoy in batches (every 10 ms under load): a slot freed on one
    /// worker and taken on the other could show twice, and `active` read above the limit, while the upstream never saw
    /// more than the limit. An alert on `active > max_concurrency` must not fire.
    fn active_never_reads_above_the_limit_under_overload() {
        let Some(bin) = envoy_bin("active_never_reads_above_the_limit_under_overload") else { return };
        let _serial = exclusive();
        let upstream = Upstream::start(None, |_| Duration::from_millis(2));
        let config = r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 4, "max_queue": 0}]}"#;
        let envoy = Envoy::start(&bin, upstream.port, Some(config)).unwrap();
        // 16 clients on keep-alive connections, both workers, each sending its next request as soon as it has an answer.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let clients: Vec<_> = (0..16)
            .map(|_| {
                let (stop, port) = (std::sync::Arc::clone(&stop), envoy.port);
                std::thread::spawn(move || {
                    let mut answers = [0usize; 2];
                    let Ok(mut client) = Client::connect(port) else { return answers };
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        match client.get("/a/x") {
                            Ok(200) => answers[0] += 1,
                            Ok(_) => answers[1] += 1,
                            Err(_) => break,
                        }
                    }
                    answers
                })
            })
            .collect();
        let key = stat("a", "active");
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        let mut readings = Vec::new();
        while std::time::Instant::now() < deadline {
            readings.extend(envoy.stats(&stat_filter("a", "active")).get(&key).copied());
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let answers = clients.into_iter().map(|c| c.join().unwrap()).fold([0, 0], |a, b| [a[0] + b[0], a[1] + b[1]]);
        let mut counts = std::collections::BTreeMap::new();
        for r in &readings {
            *counts.entry(*r).or_insert(0) += 1;
        }
        println!(
            "{} readings of active (value: times read): {counts:?}; {} admitted, {} refused",
            readings.len(),
            answers[0],
            answers[1]
        );
        // The load must fill the path, or a reading at the limit proves nothing.
        assert!(answers[1] > 0 && counts.get(&4).is_some_and(|n| *n > 0), "the path was never full: {counts:?}");
        let most = readings.iter().copied().max().unwrap_or(0);
        assert!(most <= 4, "active read {most} against a limit of 4: {counts:?}");
        let least = readings.iter().copied().min().unwrap_or(0);
        assert!(least >= 0, "active read {least} (Envoy's unsigned gauge below zero): {counts:?}");
    }
}
