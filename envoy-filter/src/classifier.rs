//! Decides which execution path a request belongs to, from its path, method and headers.
//!
//! Header values are bytes: HTTP/2 lets a `:path` or a header value hold bytes that are not UTF-8 (HTTP/1.1 lets a
//! header value hold them), and reading one as text failed. `prefix` and `exact` compare bytes, so `/a/\xff` has the
//! prefix `/a`; a regex reads the value as text in which every byte that is not part of UTF-8 stands for U+FFFD, so
//! `/a/.*` matches `/a/\xff` too, and no such value is left out of the paths it looks like.

use std::borrow::Cow;
use std::cell::OnceCell;

use regex::Regex;

use crate::config::{Config, HeaderMatch, Matcher, PathMatch, ValueMatch};
use crate::per_path::PathIndex;

/// What the classifier may read of a request. The Wasm layer reads Envoy's header map; tests use a map.
pub trait RequestView {
    /// The `:path` pseudo-header, query string included.
    fn path(&self) -> Option<Vec<u8>>;
    /// The `:method` pseudo-header.
    fn method(&self) -> Option<Vec<u8>>;
    /// A request header by lower-case name.
    fn header(&self, name: &str) -> Option<Vec<u8>>;
}

/// The first configured path the request matches, or the local path.
pub fn classify(config: &Config, request: &dyn RequestView) -> PathIndex {
    let full = request.path().unwrap_or_default();
    let path = Value::new(url_path(&full));
    // Read only when a matcher asks for it: every header read is a hostcall.
    let mut method: Option<Option<Vec<u8>>> = None;
    config
        .matchers
        .iter()
        .position(|m| matches(m, &path, &mut method, request))
        .map(PathIndex)
        .unwrap_or_else(|| config.local())
}

/// A `:path` without its query string (or fragment): what paths are matched on.
pub fn url_path(full: &[u8]) -> &[u8] {
    let end = full.iter().position(|b| *b == b'?' || *b == b'#').unwrap_or(full.len());
    full.get(..end).unwrap_or_default()
}

/// A header value, and its text for regexes, made once when the first regex asks for it.
struct Value<'a> {
    bytes: &'a [u8],
    text: OnceCell<Cow<'a, str>>,
}

impl<'a> Value<'a> {
    fn new(bytes: &'a [u8]) -> Value<'a> {
        Value { bytes, text: OnceCell::new() }
    }

    fn is_match(&self, regex: &Regex) -> bool {
        regex.is_match(self.text.get_or_init(|| String::from_utf8_lossy(self.bytes)))
    }
}

fn matches(m: &Matcher, path: &Value, method: &mut Option<Option<Vec<u8>>>, request: &dyn RequestView) -> bool {
    let path_ok = match &m.path {
        PathMatch::Any => true,
        PathMatch::Prefix(p) => path.bytes.starts_with(p.as_bytes()),
        PathMatch::Exact(e) => path.bytes == e.as_bytes(),
        PathMatch::Regex(r) => path.is_match(r),
    };
    path_ok
        && m.method.as_deref().is_none_or(|want| {
            let got = method.get_or_insert_with(|| request.method());
            got.as_deref().is_some_and(|got| got.eq_ignore_ascii_case(want.as_bytes()))
        })
        && m.headers.iter().all(|h| header_matches(h, request))
}

fn header_matches(h: &HeaderMatch, request: &dyn RequestView) -> bool {
    let Some(value) = request.header(&h.name) else {
        return false;
    };
    let value = Value::new(&value);
    match &h.value {
        ValueMatch::Present => true,
        ValueMatch::Exact(e) => value.bytes == e.as_bytes(),
        ValueMatch::Prefix(p) => value.bytes.starts_with(p.as_bytes()),
        ValueMatch::Regex(r) => value.is_match(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Req(HashMap<String, Vec<u8>>);

    fn req(pairs: &[(&str, &str)]) -> Req {
        Req(pairs.iter().map(|(k, v)| (k.to_string(), v.as_bytes().to_vec())).collect())
    }

    /// A request whose values are bytes that need not be UTF-8.
    fn raw(pairs: &[(&str, &[u8])]) -> Req {
        Req(pairs.iter().map(|(k, v)| (k.to_string(), v.to_vec())).collect())
    }

    impl RequestView for Req {
        fn path(&self) -> Option<Vec<u8>> {
            self.0.get(":path").cloned()
        }
        fn method(&self) -> Option<Vec<u8>> {
            self.0.get(":method").cloned()
        }
        fn header(&self, name: &str) -> Option<Vec<u8>> {
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
        assert_eq!(classify(&c, &req(&[(":path", "/orders/7"), (":method", "POST")])), PathIndex(0));
        assert_eq!(classify(&c, &req(&[(":path", "/orders/7"), (":method", "GET")])), c.local());
    }

    #[test]
    fn exact_ignores_the_query_string() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/health?verbose=1")])), PathIndex(1));
        assert_eq!(classify(&c, &req(&[(":path", "/healthz")])), c.local());
    }

    #[test]
    fn regex_is_anchored_on_the_whole_path() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/items/42")])), PathIndex(2));
        assert_eq!(classify(&c, &req(&[(":path", "/items/42/reviews")])), c.local());
    }

    #[test]
    fn every_header_condition_must_hold() {
        let c = config();
        assert_eq!(classify(&c, &req(&[(":path", "/x"), ("x-tier", "gold"), ("x-trace", "1")])), PathIndex(3));
        assert_eq!(classify(&c, &req(&[(":path", "/x"), ("x-tier", "gold")])), c.local());
        assert_eq!(classify(&c, &req(&[(":path", "/x"), ("x-tier", "silver"), ("x-trace", "1")])), c.local());
    }

    #[test]
    fn a_path_that_is_not_utf8_matches_prefixes_and_exact_paths_byte_for_byte() {
        let c = Config::parse(
            br#"{"paths": [
                {"name": "exact", "match": {"exact": "/e/x"}, "max_concurrency": 1},
                {"name": "a", "match": {"prefix": "/a/"}, "max_concurrency": 1}
            ]}"#,
        )
        .unwrap();
        assert_eq!(classify(&c, &raw(&[(":path", b"/a/\xff")])), PathIndex(1));
        assert_eq!(classify(&c, &raw(&[(":path", b"/a/\xc3")])), PathIndex(1), "a UTF-8 sequence cut short");
        assert_eq!(classify(&c, &raw(&[(":path", b"/e/x?q=\xff")])), PathIndex(0), "the query string is not compared");
        assert_eq!(classify(&c, &raw(&[(":path", b"/e/\xff")])), c.local());
        assert_eq!(classify(&c, &raw(&[(":path", b"\xff/a/")])), c.local());
    }

    #[test]
    fn a_regex_reads_each_byte_that_is_not_utf8_as_the_replacement_character() {
        let c = Config::parse(
            br#"{"paths": [
                {"name": "digits", "match": {"regex": "/d/[0-9]+"}, "max_concurrency": 1},
                {"name": "any", "match": {"regex": "/a/.*"}, "max_concurrency": 1},
                {"name": "marked", "match": {"regex": "/m/\\x{FFFD}"}, "max_concurrency": 1}
            ]}"#,
        )
        .unwrap();
        assert_eq!(classify(&c, &raw(&[(":path", b"/a/\xff\xfe")])), PathIndex(1));
        assert_eq!(classify(&c, &raw(&[(":path", b"/d/1\xff")])), c.local(), "a digit class does not match it");
        assert_eq!(classify(&c, &raw(&[(":path", b"/m/\xff")])), PathIndex(2));
    }

    #[test]
    fn header_values_and_methods_that_are_not_utf8_are_compared_as_bytes() {
        let c = config();
        let gold = |tier: &[u8]| raw(&[(":path", b"/x"), ("x-tier", tier), ("x-trace", b"\xff")]);
        assert_eq!(classify(&c, &gold(b"gold")), PathIndex(3), "a present header may hold any bytes");
        assert_eq!(classify(&c, &gold(b"gold\xff")), c.local(), "not exactly `gold`");
        let prefixed = Config::parse(
            br#"{"paths": [{"name": "t", "match": {"headers": [{"name": "x-tier", "prefix": "gold"}]}, "max_concurrency": 1},
                           {"name": "r", "match": {"headers": [{"name": "x-tier", "regex": "silver.?"}]}, "max_concurrency": 1}]}"#,
        )
        .unwrap();
        assert_eq!(classify(&prefixed, &raw(&[("x-tier", b"gold\xff")])), PathIndex(0));
        assert_eq!(classify(&prefixed, &raw(&[("x-tier", b"silver\xff")])), PathIndex(1));
        assert_eq!(classify(&c, &raw(&[(":path", b"/orders/1"), (":method", b"PO\xffST")])), c.local());
    }

    #[test]
    fn a_request_without_path_is_local() {
        let c = config();
        assert_eq!(classify(&c, &req(&[])), c.local());
    }
}
