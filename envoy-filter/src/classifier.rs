//! Decides which execution path a request belongs to, from its path, method and headers.

use crate::config::{Config, HeaderMatch, Matcher, PathMatch, ValueMatch};

/// What the classifier may read of a request. The Wasm layer reads Envoy's pseudo-headers; tests use a map.
pub trait RequestView {
    /// The `:path` pseudo-header, query string included.
    fn path(&self) -> Option<String>;
    /// The `:method` pseudo-header.
    fn method(&self) -> Option<String>;
    /// A request header by lower-case name.
    fn header(&self, name: &str) -> Option<String>;
}

/// Returns the index of the first configured path the request matches, or the local reservation's index.
pub fn classify(config: &Config, request: &dyn RequestView) -> usize {
    let full = request.path().unwrap_or_default();
    let path = full.split(['?', '#']).next().unwrap_or("");
    // Read only when a matcher asks for it: every header read is a hostcall.
    let mut method: Option<Option<String>> = None;
    config.matchers.iter().position(|m| matches(m, path, &mut method, request)).unwrap_or_else(|| config.local())
}

fn matches(m: &Matcher, path: &str, method: &mut Option<Option<String>>, request: &dyn RequestView) -> bool {
    let path_ok = match &m.path {
        PathMatch::Any => true,
        PathMatch::Prefix(p) => path.starts_with(p.as_str()),
        PathMatch::Exact(e) => path == e,
        PathMatch::Regex(r) => r.is_match(path),
    };
    path_ok
        && m.method.as_deref().is_none_or(|want| {
            method.get_or_insert_with(|| request.method()).as_deref().is_some_and(|got| got.eq_ignore_ascii_case(want))
        })
        && m.headers.iter().all(|h| header_matches(h, request))
}

fn header_matches(h: &HeaderMatch, request: &dyn RequestView) -> bool {
    let Some(value) = request.header(&h.name) else {
        return false;
    };
    match &h.value {
        ValueMatch::Present => true,
        ValueMatch::Exact(e) => &value == e,
        ValueMatch::Prefix(p) => value.starts_with(p.as_str()),
        ValueMatch::Regex(r) => r.is_match(&value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Req(HashMap<String, String>);

    fn req(pairs: &[(&str, &str)]) -> Req {
        Req(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    impl RequestView for Req {
        fn path(&self) -> Option<String> {
            self.0.get(":path").cloned()
        }
        fn method(&self) -> Option<String> {
            self.0.get(":method").cloned()
        }
        fn header(&self, name: &str) -> Option<String> {
            self.0.get(name).cloned()
        }
    }

    fn config() -> Config {
        Config::parse(
            br#"{"paths": [
                {"name": "orders", "match": {"prefix": "/orders", "method": "post"}, "max_concurrency": 1},
                {"name": "health", "match": {"exact": "/health"}, "max_concurrency": 1},
                {"name": "items", "match": {"regex": "/items/[0-9]+"}, "max_concurrency": 1},
                {"name": "gold", "match": {"headers": [{"name": "X-Tier", "exact": "gold"}, {"name": "x-trace"}]}, "max_concurrency": 1}
            ]}"#,
        )
        .unwrap()
    }

    #[test]
    fn prefix_and_method_must_both_match() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/orders/7"), (":method", "POST")])), 0);
        assert_eq!(classify(&c, &req(&[(":path", "/orders/7"), (":method", "GET")])), c.local());
    }

    #[test]
    fn exact_ignores_the_query_string() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/health?verbose=1")])), 1);
        assert_eq!(classify(&c, &req(&[(":path", "/healthz")])), c.local());
    }

    #[test]
    fn regex_is_anchored_on_the_whole_path() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/items/42")])), 2);
        assert_eq!(classify(&c, &req(&[(":path", "/items/42/reviews")])), c.local());
    }

    #[test]
    fn every_header_condition_must_hold() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/x"), ("x-tier", "gold"), ("x-trace", "1")])), 3);
        assert_eq!(classify(&c, &req(&[(":path", "/x"), ("x-tier", "gold")])), c.local());
        assert_eq!(classify(&c, &req(&[(":path", "/x"), ("x-tier", "silver"), ("x-trace", "1")])), c.local());
    }

    #[test]
    fn a_request_without_path_is_local() {
        let c = config();
        assert_eq!(classify(&c, &req(&[])), c.local());
    }
}
