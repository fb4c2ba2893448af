//! The native module in the real Envoy 1.40 (`.venv/bin/envoy`, `--concurrency 2`): Envoy loads it, and the ABI
//! calls work both ways (the module reads `:path`, sets a response header, counts in Envoy's stats, answers
//! locally); a module built for another ABI, or given a bad configuration, is refused with a log line saying why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod harness;

use std::time::Duration;

use harness::{envoy_bin, get, module_claiming_abi, module_dir, Filter, Proxy, Upstream};

const PROBE: &str =
    r#"{"path_header": "x-pathfence-native-path", "refuse_prefix": "/blocked", "count_requests": true}"#;
const TIMEOUT: Duration = Duration::from_secs(5);

fn upstream() -> Upstream {
    // A pool, so that the upstream counts what reaches it per first path segment.
    Upstream::start(Some(4), |_| Duration::ZERO)
}

#[test]
fn requests_pass_through_the_module_and_it_sees_their_path() {
    let Some(bin) = envoy_bin("requests_pass_through_the_module_and_it_sees_their_path") else { return };
    let upstream = upstream();
    let dir = module_dir();
    let envoy =
        Proxy::start(&bin, Some(upstream.port), Filter::Native { dir: &dir, filter_name: "probe", config: PROBE })
            .unwrap_or_else(|log| panic!("Envoy did not start with the module: {log}"));
    let matched = "Dynamic module ABI version v0.2.0 matched.";
    let log = envoy.log_with(matched);
    assert!(log.contains(matched), "Envoy's own check:\n{log}");
    let loaded = "pathfence-native: built against the dynamic-modules ABI v0.2.0, running in Envoy 1.40.0";
    assert!(log.contains(loaded), "{log}");

    // Fresh connections, spread over both workers: each request's path comes back as the module read it.
    let paths: Vec<String> = (0..20).map(|i| format!("/orders/{i}?page={}", i * 7)).collect();
    for path in &paths {
        let r = get(envoy.port, path, TIMEOUT).unwrap();
        assert_eq!((r.status, r.body.as_str()), (200, "ok\n"), "{path} reached the upstream");
        assert_eq!(r.header("x-pathfence-native-path"), Some(path.as_str()));
    }
    let refused = get(envoy.port, "/blocked/1", TIMEOUT).unwrap();
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("x-pathfence-path"), Some("probe"));
    assert_eq!(refused.body, "refused by pathfence-native\n");
    assert_eq!(upstream.max_in_flight("blocked"), 0, "a refused request must not reach the upstream");
    assert_eq!(upstream.max_in_flight("orders"), 1);
    // Counted on both workers, into one counter.
    assert_eq!(envoy.stats("requests").get("dynamicmodulescustom.requests"), Some(&21), "{:?}", envoy.stats(""));
    let connections = envoy.stats("downstream_cx_total");
    let workers = connections.iter().filter(|(k, v)| k.contains(".worker_") && **v > 0).count();
    assert_eq!(workers, 2, "both Envoy workers served requests: {connections:?}");

    // The control: the same requests through Envoy without the module get neither the header nor the refusal.
    let plain = Proxy::start(&bin, Some(upstream.port), Filter::None).unwrap();
    let r = get(plain.port, &paths[0], TIMEOUT).unwrap();
    assert_eq!((r.status, r.header("x-pathfence-native-path")), (200, None));
    assert_eq!(get(plain.port, "/blocked/1", TIMEOUT).unwrap().status, 200);
}

#[test]
fn a_module_built_for_another_abi_version_is_refused() {
    let Some(bin) = envoy_bin("a_module_built_for_another_abi_version_is_refused") else { return };
    let upstream = upstream();
    // The version Envoy 1.38 and 1.39 declare: a module built against their header.
    let dir = module_claiming_abi("v0.1.0");
    let log = Proxy::start(&bin, Some(upstream.port), Filter::Native { dir: &dir, filter_name: "probe", config: "" })
        .err()
        .expect("Envoy must not start with a module built for another ABI");
    assert!(
        log.contains(
            "pathfence-native: not loading: built against the dynamic-modules ABI v0.1.0, but this Envoy 1.40.0 \
             (revision 9e5580933739775e8bce696a57a2e1bc99368f23) implements v0.2.0"
        ),
        "{log}"
    );
    assert!(log.contains("Failed to initialize dynamic module"), "Envoy's refusal:\n{log}");
}

#[test]
fn a_bad_configuration_is_refused_naming_the_field() {
    let Some(bin) = envoy_bin("a_bad_configuration_is_refused_naming_the_field") else { return };
    let upstream = upstream();
    let dir = module_dir();
    let refused = |filter_name: &str, config: &str| {
        Proxy::start(&bin, Some(upstream.port), Filter::Native { dir: &dir, filter_name, config })
            .err()
            .unwrap_or_else(|| panic!("Envoy started with filter {filter_name} configured {config}"))
    };
    let log = refused("probe", r#"{"path_heder": "x-path"}"#);
    assert!(log.contains("pathfence-native: invalid probe configuration: unknown field `path_heder`"), "{log}");
    let log = refused("probe", r#"{"path_header": "X Path"}"#);
    assert!(log.contains("field `path_header`: `X Path` is not a lowercase header name"), "{log}");
    let log = refused("fence", "");
    assert!(
        log.contains("pathfence-native: unknown filter_name `fence`: this module has `pathfence` and `probe`"),
        "{log}"
    );
}
