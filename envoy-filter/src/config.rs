//! Plugin configuration: the JSON that Envoy (or Istio's `pluginConfig`) hands to `on_configure`.
//!
//! Parsing is strict on purpose: an unknown field or a zero limit is more likely a typo than an intent, and a
//! fence that silently does nothing is worse than a sidecar that refuses to start.

use std::collections::HashSet;
use std::fmt;

use crate::per_path::{OfPath, PathIndex};
use matchers::matcher;
pub use matchers::{HeaderMatch, Matcher, PathMatch, ValueMatch};
use objects::Object;
use raw::{default_local_max_queue, default_queue_timeout_ms};
pub use raw::{RawConfig, RawHeaderMatch, RawLocal, RawMatch, RawPath, RawPause, RawRounds};
pub use tuning::{Bounds, RawPathTuning, RawTuning, Tuning};

mod matchers;
mod objects;
mod raw;
mod tuning;

/// Name under which requests that match no configured path are accounted.
pub const LOCAL_PATH: &str = "local";

/// A worker writes its heartbeat about every second (on the first tick after it is due, see [`crate::pace`]), and
/// another worker's reclaim pass, about every second too, may see a new one a second late: a live worker's
/// heartbeat can look unchanged for over two seconds, three if the observer stalled. A shorter lease would
/// reclaim the slots of workers that are alive.
pub const MIN_WORKER_LEASE_MS: u64 = 4000;

/// Waits, pauses and leases are added to a clock reading in milliseconds; an hour is far beyond any sensible
/// setting, so a larger value is a typo (or seconds written as milliseconds), not an intent.
pub const MAX_TIME_MS: u64 = 3_600_000;
/// A day: clients told to come back later than that would rather be told the service is gone.
pub const MAX_RETRY_AFTER_S: u32 = 86_400;
/// Paths beyond this many are refused. Each costs for good: six stats that Envoy never frees and two shared-data
/// keys; and while it is configured, a comparison for every request that matches no path before it, and three
/// shared-data reads a second on every worker (the reclaim pass).
pub const MAX_PATHS: usize = 10_000;
/// Paths beyond this many are accepted with a warning: those per-path costs become measurable (see the README).
pub const PATHS_WITHOUT_WARNING: usize = 1_000;

/// A configuration error, with the JSON field it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid pathfence configuration: field `{}`: {}", self.field, self.message)
    }
}

fn error(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError { field: field.into(), message: message.into() }
}

/// One reservation, validated. Index `i < paths.len()` is a configured path; the local one comes last.
#[derive(Debug, Clone)]
pub struct Reservation {
    pub name: String,
    /// `None` only for an unbounded local reservation.
    pub max_concurrency: Option<u32>,
    pub max_queue: u32,
    pub queue_timeout_ms: u64,
    /// The bounds of its limit where tuning sizes it (then `max_concurrency` is the limit it started with, or
    /// the one last applied, see [`Config::set_limit`]); `None` for a fixed limit.
    pub tuning: Option<Bounds>,
}

#[derive(Debug, Clone)]
pub struct PauseSchedule {
    /// Counted pauses: every this many requests start one; 0 in rounds, where the requests start none.
    pub every_requests: u64,
    /// Counted pauses: each one's length; in rounds, the longest a round may ask for. Either way no pause is held
    /// longer than this from now (see `crate::pause`).
    pub duration_ms: u64,
    /// Coordinated rounds, when pauses are started by control requests rather than counted here.
    pub rounds: Option<Rounds>,
    /// Indexes into [`Config::reservations`].
    pub paths: Vec<PathIndex>,
}

/// Coordinated rounds (see `crate::pause::rounds`): held requests are never refused for the pause, since a
/// what-if run measures the application slowed, not refusing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rounds {
    /// The URL path of the control request that starts a round.
    pub control_path: String,
    /// The secret a control request must carry (see `crate::pause::rounds::TOKEN_HEADER`), if set.
    pub token: Option<String>,
}

impl PauseSchedule {
    /// Whether pauses come in coordinated rounds.
    pub fn in_rounds(&self) -> bool {
        self.rounds.is_some()
    }
}

/// The validated configuration the filter runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// Configured paths in match order, then the local reservation.
    pub reservations: Vec<Reservation>,
    /// One matcher per configured path (the local reservation has none).
    pub matchers: Vec<Matcher>,
    pub local_borrows: bool,
    pub pause: Option<PauseSchedule>,
    pub retry_after_s: u32,
    pub worker_lease_ms: u64,
    /// The tuning settings, if tuning is on.
    pub tuning: Option<Tuning>,
    /// Settings given that have no effect, named as in the configuration.
    unused: Vec<&'static str>,
    /// Paths given tuning bounds without the top-level `tuning`, by index.
    untuned_bounds: Vec<usize>,
}

impl Config {
    /// The local path, the last one.
    pub fn local(&self) -> PathIndex {
        PathIndex(self.matchers.len())
    }

    /// The reservation at `index`, if there is one.
    pub fn reservation(&self, index: PathIndex) -> Option<&Reservation> {
        self.reservations.of(index)
    }

    /// The limit of the reservation at `index`; `None` if it is unbounded (or there is none).
    pub fn limit(&self, index: PathIndex) -> Option<u32> {
        self.reservation(index).and_then(|r| r.max_concurrency)
    }

    /// The bounds of the reservation at `index` if tuning sizes its limit.
    pub fn tuned(&self, index: PathIndex) -> Option<Bounds> {
        self.reservation(index).and_then(|r| r.tuning)
    }

    /// Applies a tuned limit, held within the path's bounds; nothing for a path tuning does not size. Requests
    /// already holding slots above a lower limit keep them: the path takes no new one until it is under it.
    pub fn set_limit(&mut self, index: PathIndex, limit: u32) {
        if let Some(r) = self.reservations.get_mut(index.0) {
            if let (Some(bounds), Some(_)) = (r.tuning, r.max_concurrency) {
                r.max_concurrency = Some(bounds.clamp(limit));
            }
        }
    }

    /// The name of the reservation at `index`, for the logs; empty if there is none.
    pub fn name(&self, index: PathIndex) -> &str {
        self.reservation(index).map_or("", |r| r.name.as_str())
    }

    pub fn parse(json: &[u8]) -> Result<Config, ConfigError> {
        let mut document = serde_json::Deserializer::from_slice(json);
        let Object(raw): Object<RawConfig> =
            serde_path_to_error::deserialize(&mut document).map_err(|e| decoding_error(&e))?;
        // Text after the configuration is as much a typo as text inside it.
        document.end().map_err(|e| error(WHOLE_DOCUMENT, e.to_string()))?;
        Config::validate(raw)
    }

    /// Settings that are valid but probably not what the operator meant, to be logged when the configuration is
    /// applied. They are not refused: a what-if experiment may want exactly that.
    pub fn warnings(&self) -> Vec<String> {
        let unused = self.unused.iter().map(|field| {
            format!(
                "`{field}` has no effect without a local limit (`local.max_concurrency`): local requests never wait"
            )
        });
        let pause = self.pause.iter().flat_map(|p| p.paths.iter().filter_map(|&index| self.pause_warning(p, index)));
        let many = (self.matchers.len() > PATHS_WITHOUT_WARNING).then(|| {
            format!(
                "`paths` has {} paths, more than {PATHS_WITHOUT_WARNING}: every request that matches none of the first \
                 ones is compared with each in turn, and every worker reads each path's shared count every second",
                self.matchers.len()
            )
        });
        let bounds = self.untuned_bounds.iter().map(|i| {
            format!("`paths[{i}].tuning` has no effect without the top-level `tuning`: the path keeps its limit")
        });
        unused.chain(pause).chain(many).chain(bounds).collect()
    }

    /// Why the pause would refuse requests of the reservation at `index` with a 503 rather than delay them.
    fn pause_warning(&self, pause: &PauseSchedule, index: PathIndex) -> Option<String> {
        if pause.in_rounds() {
            // Rounds hold requests, and release them to wait for a slot, whatever `max_queue`; their queue timeout
            // starts on release.
            return None;
        }
        let reservation = self.reservation(index)?;
        let (name, field) = (&reservation.name, self.field_of(index));
        if reservation.max_queue == 0 {
            return Some(format!(
                "`{field}.max_queue` is 0 on paused path `{name}`: every request arriving during a pause gets a 503"
            ));
        }
        if pause.duration_ms >= reservation.queue_timeout_ms {
            return Some(format!(
                "`pause.duration_ms` ({}) is at least `{field}.queue_timeout_ms` ({}) of paused path `{name}`: \
                 requests a pause holds that long get a 503 instead of going through when it ends",
                pause.duration_ms, reservation.queue_timeout_ms
            ));
        }
        None
    }

    /// The configuration field of the reservation at `index`: `paths[i]`, or `local` for the last one.
    fn field_of(&self, index: PathIndex) -> String {
        if index == self.local() {
            LOCAL_PATH.to_string()
        } else {
            format!("paths[{index}]")
        }
    }

    pub fn validate(raw: RawConfig) -> Result<Config, ConfigError> {
        if raw.paths.len() > MAX_PATHS {
            return Err(error(
                "paths",
                format!(
                    "at most {MAX_PATHS} paths, not {}: each keeps six stats for the life of Envoy's VM and costs \
                     every worker shared-data reads every second",
                    raw.paths.len()
                ),
            ));
        }
        let tuning = raw.tuning.as_ref().map(Tuning::validate).transpose()?;
        let mut untuned_bounds = Vec::new();
        let mut names = HashSet::new();
        let mut reservations = Vec::with_capacity(raw.paths.len() + 1);
        let mut matchers = Vec::with_capacity(raw.paths.len());
        for (i, path) in raw.paths.iter().enumerate() {
            let at = |field: &str| format!("paths[{i}].{field}");
            if path.name.is_empty() {
                return Err(error(at("name"), "must not be empty"));
            }
            if !path.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                return Err(error(at("name"), "may only hold ASCII letters, digits, '_' and '-' (it names stats)"));
            }
            if path.name == LOCAL_PATH {
                return Err(error(at("name"), "`local` is reserved for unmatched requests"));
            }
            if !names.insert(path.name.clone()) {
                return Err(error(at("name"), format!("duplicate path `{}`", path.name)));
            }
            if path.max_concurrency == 0 {
                return Err(error(at("max_concurrency"), "must be at least 1"));
            }
            if path.queue_timeout_ms == 0 && path.max_queue > 0 {
                return Err(error(at("queue_timeout_ms"), "must be at least 1 when max_queue is above 0"));
            }
            at_most(&at("queue_timeout_ms"), path.queue_timeout_ms, 0, MAX_TIME_MS)?;
            matchers.push(matcher(&path.matcher, &format!("paths[{i}].match"))?);
            let bounds = match &tuning {
                Some(_) => Some(Bounds::validate(path.tuning.as_ref(), path.max_concurrency, &at)?),
                None => {
                    if path.tuning.is_some() {
                        untuned_bounds.push(i);
                    }
                    None
                }
            };
            reservations.push(Reservation {
                name: path.name.clone(),
                max_concurrency: Some(path.max_concurrency),
                max_queue: path.max_queue,
                queue_timeout_ms: path.queue_timeout_ms,
                tuning: bounds,
            });
        }
        let (local, unused) = local(&raw.local, raw.pause.as_ref())?;
        reservations.push(local);
        let pause = match raw.pause {
            None => None,
            Some(p) => Some(pause(&p, &reservations)?),
        };
        if raw.worker_lease_ms < MIN_WORKER_LEASE_MS {
            return Err(error(
                "worker_lease_ms",
                format!("must be at least {MIN_WORKER_LEASE_MS} (a heartbeat comes about every second and may be seen a second late)"),
            ));
        }
        at_most("worker_lease_ms", raw.worker_lease_ms, MIN_WORKER_LEASE_MS, MAX_TIME_MS)?;
        at_most("retry_after_s", raw.retry_after_s.into(), 0, MAX_RETRY_AFTER_S.into())?;
        Ok(Config {
            reservations,
            matchers,
            local_borrows: raw.local.borrow,
            pause,
            retry_after_s: raw.retry_after_s,
            worker_lease_ms: raw.worker_lease_ms,
            tuning,
            unused,
            untuned_bounds,
        })
    }
}

/// Refuses `value` above `max`, naming the whole allowed range `min..=max` so the operator sees what fits.
fn at_most(field: &str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if value > max {
        return Err(error(field, format!("must be from {min} to {max}, not {value}")));
    }
    Ok(())
}

/// The local reservation, and the settings given for it that have no effect (warned about, not refused: a
/// template that writes every field, defaults included, must still be accepted).
fn local(raw: &RawLocal, pause: Option<&RawPause>) -> Result<(Reservation, Vec<&'static str>), ConfigError> {
    if raw.max_concurrency == Some(0) {
        return Err(error("local.max_concurrency", "must be at least 1 (leave it out for no limit)"));
    }
    // An unbounded local request never waits for a slot, so its queue bounds only matter for holds by a pause.
    let paused = pause.is_some_and(|p| p.paths.iter().any(|name| name == LOCAL_PATH));
    let mut unused = Vec::new();
    if raw.max_concurrency.is_none() && !paused {
        if raw.max_queue.is_some() {
            unused.push("local.max_queue");
        }
        if raw.queue_timeout_ms.is_some() {
            unused.push("local.queue_timeout_ms");
        }
    }
    let max_queue = raw.max_queue.unwrap_or_else(default_local_max_queue);
    let queue_timeout_ms = raw.queue_timeout_ms.unwrap_or_else(default_queue_timeout_ms);
    if queue_timeout_ms == 0 && max_queue > 0 && (raw.max_concurrency.is_some() || paused) {
        return Err(error("local.queue_timeout_ms", "must be at least 1 when max_queue is above 0"));
    }
    at_most("local.queue_timeout_ms", queue_timeout_ms, 0, MAX_TIME_MS)?;
    let reservation = Reservation {
        name: LOCAL_PATH.to_string(),
        max_concurrency: raw.max_concurrency,
        max_queue,
        queue_timeout_ms,
        tuning: None,
    };
    Ok((reservation, unused))
}

fn pause(raw: &RawPause, reservations: &[Reservation]) -> Result<PauseSchedule, ConfigError> {
    let (every_requests, duration_ms, rounds) = match &raw.rounds {
        Some(rounds) => pause_rounds(raw, rounds)?,
        None => pause_counted(raw)?,
    };
    if raw.paths.is_empty() {
        return Err(error("pause.paths", "must name at least one path"));
    }
    let mut paths = Vec::with_capacity(raw.paths.len());
    for (i, name) in raw.paths.iter().enumerate() {
        match reservations.iter().position(|r| &r.name == name).map(PathIndex) {
            Some(index) if !paths.contains(&index) => paths.push(index),
            Some(_) => return Err(error(format!("pause.paths[{i}]"), format!("path `{name}` is listed twice"))),
            None => return Err(error(format!("pause.paths[{i}]"), format!("no path is named `{name}`"))),
        }
    }
    Ok(PauseSchedule { every_requests, duration_ms, rounds, paths })
}

fn pause_counted(raw: &RawPause) -> Result<(u64, u64, Option<Rounds>), ConfigError> {
    let needed = "is needed unless `pause.rounds` is given";
    let every_requests = raw.every_requests.ok_or_else(|| error("pause.every_requests", needed))?;
    let duration_ms = raw.duration_ms.ok_or_else(|| error("pause.duration_ms", needed))?;
    if every_requests == 0 {
        return Err(error("pause.every_requests", "must be at least 1"));
    }
    if duration_ms == 0 {
        return Err(error("pause.duration_ms", "must be at least 1"));
    }
    at_most("pause.duration_ms", duration_ms, 1, MAX_TIME_MS)?;
    Ok((every_requests, duration_ms, None))
}

fn pause_rounds(raw: &RawPause, rounds: &RawRounds) -> Result<(u64, u64, Option<Rounds>), ConfigError> {
    let counted = "must be left out with `pause.rounds`: rounds are started by control requests, not counted";
    if raw.every_requests.is_some() {
        return Err(error("pause.every_requests", counted));
    }
    if raw.duration_ms.is_some() {
        return Err(error("pause.duration_ms", counted));
    }
    let path = &rounds.control_path;
    if !path.starts_with('/') || path.contains(['?', '#']) || path.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err(error(
            "pause.rounds.control_path",
            format!("must be a URL path starting with `/`, without query or spaces, not `{path}`"),
        ));
    }
    if rounds.max_pause_ms == 0 {
        return Err(error("pause.rounds.max_pause_ms", "must be at least 1"));
    }
    at_most("pause.rounds.max_pause_ms", rounds.max_pause_ms, 1, MAX_TIME_MS)?;
    if rounds.token.as_ref().is_some_and(String::is_empty) {
        return Err(error(
            "pause.rounds.token",
            "must not be empty: leave it out to take control requests without one",
        ));
    }
    Ok((0, rounds.max_pause_ms, Some(Rounds { control_path: path.clone(), token: rounds.token.clone() })))
}

/// The field named by an error that is about the JSON text as a whole (its syntax) rather than one value.
const WHOLE_DOCUMENT: &str = "<document>";
/// How serde_json's message for a number beyond the range of `f64` begins; its kind is not public otherwise.
const NUMBER_OUT_OF_RANGE: &str = "number out of range";

/// Names the full path of the value a decoding error is about, e.g. `paths[1].max_concurrency`. A syntax error
/// keeps `<document>`: the parser's position is not a field, and serde_json's message gives its line and column.
/// A number too large for any numeric type (`1e400`) is valid JSON that serde_json counts as a syntax error: it
/// is about a value, and is named by its field.
fn decoding_error(e: &serde_path_to_error::Error<serde_json::Error>) -> ConfigError {
    let message = e.inner().to_string();
    let about_a_value = e.inner().is_data() || message.starts_with(NUMBER_OUT_OF_RANGE);
    if !about_a_value {
        return error(WHOLE_DOCUMENT, message);
    }
    // The top-level object has an empty path: an error about it (a missing `paths`) is about the document.
    let at = e.path().iter().next().map(|_| e.path().to_string());
    // serde reports a missing or repeated field at the object that holds it; the operator looks for the field.
    let field = match (at, named_field(&message)) {
        (Some(at), Some(named)) => format!("{at}.{named}"),
        (Some(at), None) => at,
        (None, Some(named)) => named.to_string(),
        (None, None) => WHOLE_DOCUMENT.to_string(),
    };
    error(field, message)
}

/// The name in serde's fixed "missing field `name`" or "duplicate field `name`" message, its only mention of it.
fn named_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `").or_else(|| message.strip_prefix("duplicate field `"))?;
    rest.split('`').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Config, ConfigError> {
        Config::parse(json.as_bytes())
    }

    #[test]
    fn the_issue_example_parses_with_defaults_filled_in() {
        let c = parse(
            r#"{"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 6, "max_queue": 8, "queue_timeout_ms": 300}],
                "local": {"max_concurrency": 2},
                "pause": {"every_requests": 100, "duration_ms": 200, "paths": ["a"]}}"#,
        )
        .unwrap();
        assert_eq!(c.reservations.len(), 2);
        assert_eq!(c.reservations[0].max_concurrency, Some(6));
        assert_eq!(c.reservations[0].max_queue, 8);
        assert_eq!(c.reservations[1].name, "local");
        assert_eq!(c.reservations[1].max_queue, 100);
        assert_eq!(c.reservations[1].queue_timeout_ms, 500);
        assert!(c.local_borrows);
        let p = c.pause.unwrap();
        assert_eq!((p.every_requests, p.duration_ms, p.paths), (100, 200, vec![PathIndex(0)]));
        assert_eq!(c.retry_after_s, 1);
    }

    #[test]
    fn an_unknown_field_is_refused_by_its_full_path() {
        let e = parse(r#"{"paths": [{"name": "a", "max_concurrency": 1, "max_concurency": 2}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].max_concurency");
        assert!(e.to_string().starts_with("invalid pathfence configuration: field `paths[0].max_concurency`: "), "{e}");
        let e = parse(r#"{"paths": [{"name": "a", "match": {"prefx": "/a"}, "max_concurrency": 1}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].match.prefx");
    }

    #[test]
    fn an_unknown_field_deep_in_a_header_match_is_refused_by_its_full_path() {
        let e = parse(
            r#"{"paths": [{"name": "a", "max_concurrency": 1},
                          {"name": "b", "match": {"headers": [{"name": "x"}, {"name": "y", "exactt": "1"}]}, "max_concurrency": 1}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "paths[1].match.headers[1].exactt");
    }

    #[test]
    fn a_type_error_deep_in_a_path_is_refused_by_its_full_path() {
        let two_paths = |value: &str| {
            format!(
                r#"{{"paths": [{{"name": "a", "max_concurrency": 1}}, {{"name": "b", "max_concurrency": {value}}}]}}"#
            )
        };
        for value in ["-1", r#""4""#, "4.5", "4294967296"] {
            let e = parse(&two_paths(value)).unwrap_err();
            assert_eq!(e.field, "paths[1].max_concurrency", "{value}: {e}");
        }
        let e = parse(r#"{"paths": [], "local": {"borrow": "no"}}"#).unwrap_err();
        assert_eq!(e.field, "local.borrow");
    }

    #[test]
    fn a_missing_or_repeated_field_is_refused_by_its_full_path() {
        let e = parse(r#"{"paths": [{"max_concurrency": 1}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].name");
        let e = parse(r#"{"paths": [{"name": "a", "match": {"headers": [{"exact": "1"}]}, "max_concurrency": 1}]}"#)
            .unwrap_err();
        assert_eq!(e.field, "paths[0].match.headers[0].name");
        let e = parse(r#"{"paths": [{"name": "a", "max_concurrency": 1, "max_concurrency": 2}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].max_concurrency");
        let e = parse(r#"{"local": {}}"#).unwrap_err();
        assert_eq!(e.field, "paths");
    }

    #[test]
    fn a_duplicate_path_is_refused() {
        let e = parse(r#"{"paths": [{"name": "a", "max_concurrency": 1}, {"name": "a", "max_concurrency": 1}]}"#)
            .unwrap_err();
        assert_eq!(e.field, "paths[1].name");
    }

    #[test]
    fn zero_limits_are_refused() {
        let e = parse(r#"{"paths": [{"name": "a", "max_concurrency": 0}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].max_concurrency");
        let e = parse(r#"{"paths": [], "local": {"max_concurrency": 0}}"#).unwrap_err();
        assert_eq!(e.field, "local.max_concurrency");
        let e = parse(r#"{"paths": [{"name": "a", "max_concurrency": 1}], "pause": {"every_requests": 0, "duration_ms": 5, "paths": ["a"]}}"#).unwrap_err();
        assert_eq!(e.field, "pause.every_requests");
    }

    #[test]
    fn a_lease_a_live_worker_could_outlast_is_refused() {
        let e = parse(r#"{"paths": [], "worker_lease_ms": 3999}"#).unwrap_err();
        assert_eq!(e.field, "worker_lease_ms");
        assert!(e.to_string().contains("at least 4000"), "{e}");
        assert!(parse(r#"{"paths": [], "worker_lease_ms": 4000}"#).is_ok());
    }

    #[test]
    fn a_bad_regex_is_refused_with_its_field() {
        let e = parse(r#"{"paths": [{"name": "a", "match": {"regex": "/a/(["}, "max_concurrency": 1}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].match.regex");
        let e = parse(
            r#"{"paths": [{"name": "a", "match": {"headers": [{"name": "x", "regex": "("}]}, "max_concurrency": 1}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "paths[0].match.headers[0].regex");
    }

    #[test]
    fn a_regex_that_is_valid_only_once_anchored_is_refused_with_its_field() {
        // Wrapped as `^(?:/x)|(.*)$`, this would be valid and match every path.
        let e =
            parse(r#"{"paths": [{"name": "a", "match": {"regex": "/x)|(.*"}, "max_concurrency": 1}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].match.regex");
        assert!(e.message.starts_with("invalid regex: "), "{e}");
        let e = parse(
            r#"{"paths": [{"name": "a", "match": {"headers": [{"name": "x", "regex": "gold)|(.*"}]}, "max_concurrency": 1}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "paths[0].match.headers[0].regex");
    }

    #[test]
    fn only_a_json_object_is_accepted_where_the_configuration_expects_one() {
        let cases = [
            // The whole configuration as serde's array form of its structs: it fenced `/a` before.
            (r#"[[["pos", {"prefix": "/a"}, 1, 0]]]"#, "<document>"),
            (r#"{"paths": [["pos", {"prefix": "/a"}, 1, 0]]}"#, "paths[0]"),
            (r#"{"paths": [{"name": "a", "match": ["/a"], "max_concurrency": 1}]}"#, "paths[0].match"),
            (
                r#"{"paths": [{"name": "a", "match": {"headers": [{"name": "x"}, ["y", "1"]]}, "max_concurrency": 1}]}"#,
                "paths[0].match.headers[1]",
            ),
            (r#"{"paths": [], "local": [1]}"#, "local"),
            (r#"{"paths": [], "local": "none"}"#, "local"),
            (r#"{"paths": [{"name": "a", "max_concurrency": 1}], "pause": [1, 5, ["a"]]}"#, "pause"),
        ];
        for (json, field) in cases {
            let e = parse(json).unwrap_err();
            assert_eq!(e.field, field, "{json}: {e}");
            assert!(e.message.contains("expected a JSON object"), "{json}: {e}");
        }
        assert!(parse(r#"{"paths": [], "pause": null}"#).unwrap().pause.is_none(), "null is no pause");
    }

    #[test]
    fn a_number_beyond_every_range_is_refused_at_its_field() {
        let cases = [
            (r#"{"paths": [{"name": "a", "max_concurrency": 1e400}]}"#, "paths[0].max_concurrency"),
            (r#"{"paths": [], "local": {"queue_timeout_ms": 1e400}}"#, "local.queue_timeout_ms"),
            (r#"{"paths": [], "worker_lease_ms": -1e400}"#, "worker_lease_ms"),
        ];
        for (json, field) in cases {
            let e = parse(json).unwrap_err();
            assert_eq!(e.field, field, "{json}: {e}");
            assert!(e.message.starts_with("number out of range"), "{json}: {e}");
        }
    }

    #[test]
    fn rounds_replace_the_count_and_their_settings_are_checked_by_name() {
        let paths = r#""paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 1, "max_queue": 0, "queue_timeout_ms": 10}]"#;
        let with = |pause: &str| parse(&format!("{{{paths}, \"pause\": {pause}}}"));
        let c =
            with(r#"{"rounds": {"control_path": "/.pathfence/round", "max_pause_ms": 200}, "paths": ["a"]}"#).unwrap();
        let p = c.pause.as_ref().unwrap();
        assert_eq!(p.rounds, Some(Rounds { control_path: "/.pathfence/round".to_string(), token: None }));
        let t =
            with(r#"{"rounds": {"control_path": "/r", "max_pause_ms": 5, "token": "s3"}, "paths": ["a"]}"#).unwrap();
        assert_eq!(t.pause.unwrap().rounds.unwrap().token.as_deref(), Some("s3"));
        assert_eq!((p.every_requests, p.duration_ms), (0, 200));
        assert!(c.warnings().is_empty(), "a hold in rounds is never refused: {:?}", c.warnings());
        for (pause, field) in [
            (
                r#"{"rounds": {"control_path": "/r", "max_pause_ms": 5}, "every_requests": 3, "paths": ["a"]}"#,
                "pause.every_requests",
            ),
            (
                r#"{"rounds": {"control_path": "/r", "max_pause_ms": 5}, "duration_ms": 3, "paths": ["a"]}"#,
                "pause.duration_ms",
            ),
            (r#"{"rounds": {"control_path": "r", "max_pause_ms": 5}, "paths": ["a"]}"#, "pause.rounds.control_path"),
            (r#"{"rounds": {"control_path": "/r?x", "max_pause_ms": 5}, "paths": ["a"]}"#, "pause.rounds.control_path"),
            (r#"{"rounds": {"control_path": "/r", "max_pause_ms": 0}, "paths": ["a"]}"#, "pause.rounds.max_pause_ms"),
            (
                r#"{"rounds": {"control_path": "/r", "max_pause_ms": 3600001}, "paths": ["a"]}"#,
                "pause.rounds.max_pause_ms",
            ),
            (
                r#"{"rounds": {"control_path": "/r", "max_pause_ms": 5, "every": 1}, "paths": ["a"]}"#,
                "pause.rounds.every",
            ),
            (r#"{"rounds": {"max_pause_ms": 5}, "paths": ["a"]}"#, "pause.rounds.control_path"),
            (
                r#"{"rounds": {"control_path": "/r", "max_pause_ms": 5, "token": ""}, "paths": ["a"]}"#,
                "pause.rounds.token",
            ),
            (r#"{"duration_ms": 5, "paths": ["a"]}"#, "pause.every_requests"),
            (r#"{"every_requests": 5, "paths": ["a"]}"#, "pause.duration_ms"),
        ] {
            let e = with(pause).unwrap_err();
            assert_eq!(e.field, field, "{pause}: {e}");
        }
        // Counted pauses keep their warning about holds refused.
        let counted = with(r#"{"every_requests": 2, "duration_ms": 50, "paths": ["a"]}"#).unwrap();
        assert_eq!(counted.warnings().len(), 1, "{:?}", counted.warnings());
    }

    #[test]
    fn the_local_name_is_reserved_and_pause_names_must_exist() {
        let e = parse(r#"{"paths": [{"name": "local", "max_concurrency": 1}]}"#).unwrap_err();
        assert_eq!(e.field, "paths[0].name");
        let e =
            parse(r#"{"paths": [], "pause": {"every_requests": 1, "duration_ms": 5, "paths": ["nope"]}}"#).unwrap_err();
        assert_eq!(e.field, "pause.paths[0]");
        assert!(parse(r#"{"paths": [], "pause": {"every_requests": 1, "duration_ms": 5, "paths": ["local"]}}"#).is_ok());
    }

    #[test]
    fn two_path_matchers_in_one_match_are_refused() {
        let e = parse(r#"{"paths": [{"name": "a", "match": {"prefix": "/a", "exact": "/a"}, "max_concurrency": 1}]}"#)
            .unwrap_err();
        assert_eq!(e.field, "paths[0].match");
    }

    #[test]
    fn malformed_json_is_refused_with_its_line_and_column() {
        for (json, at) in
            [("{", "line 1 column 1"), ("", "line 1 column 0"), ("{\n\"paths\": [,]}", "line 2 column 11")]
        {
            let e = parse(json).unwrap_err();
            assert_eq!(e.field, "<document>");
            assert!(e.message.ends_with(at), "{json:?}: {e}");
        }
        let e = parse(r#"{"paths": []} {}"#).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("<document>", "trailing characters at line 1 column 15"));
    }

    #[test]
    fn times_beyond_an_hour_are_refused_naming_the_field_and_the_range() {
        // One valid configuration with room for a field in the path, in `local` and at the top level.
        let config = |path: &str, local: &str, top: &str| {
            format!(
                r#"{{"paths": [{{"name": "a", "max_concurrency": 1{path}}}], "local": {{"max_concurrency": 1{local}}}{top}}}"#
            )
        };
        let pause = r#", "pause": {"every_requests": 1, "duration_ms": 3600001, "paths": ["a"]}"#;
        let cases = [
            (config(r#", "queue_timeout_ms": 3600001"#, "", ""), "paths[0].queue_timeout_ms", "from 0 to 3600000"),
            (config("", r#", "queue_timeout_ms": 3600001"#, ""), "local.queue_timeout_ms", "from 0 to 3600000"),
            (config("", "", pause), "pause.duration_ms", "from 1 to 3600000"),
            (config("", "", r#", "worker_lease_ms": 3600001"#), "worker_lease_ms", "from 4000 to 3600000"),
            (config("", "", r#", "retry_after_s": 86401"#), "retry_after_s", "from 0 to 86400"),
        ];
        for (json, field, range) in cases {
            let e = parse(&json).unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(range), "{e}");
            let largest = json.replace("3600001", "3600000").replace("86401", "86400");
            assert!(parse(&largest).is_ok(), "{largest}");
        }
    }

    #[test]
    fn more_paths_than_the_maximum_are_refused_and_many_are_accepted_with_a_warning() {
        let config = |n: usize| {
            let paths: Vec<String> = (0..n).map(|i| format!(r#"{{"name": "p{i}", "max_concurrency": 1}}"#)).collect();
            format!(r#"{{"paths": [{}]}}"#, paths.join(","))
        };
        let e = parse(&config(MAX_PATHS + 1)).unwrap_err();
        assert_eq!(e.field, "paths");
        assert!(e.message.starts_with("at most 10000 paths, not 10001"), "{e}");
        let most = parse(&config(MAX_PATHS)).unwrap();
        assert_eq!(most.warnings().len(), 1);
        assert!(most.warnings()[0].starts_with("`paths` has 10000 paths, more than 1000"), "{:?}", most.warnings());
        assert!(parse(&config(PATHS_WITHOUT_WARNING)).unwrap().warnings().is_empty());
    }

    #[test]
    fn local_queue_bounds_without_a_local_limit_are_accepted_with_a_warning() {
        for field in ["max_queue", "queue_timeout_ms"] {
            let unbounded = parse(&format!(r#"{{"paths": [], "local": {{"{field}": 5}}}}"#)).unwrap();
            let warnings = unbounded.warnings();
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert!(warnings[0].contains(&format!("`local.{field}` has no effect")), "{warnings:?}");
            let bounded = parse(&format!(r#"{{"paths": [], "local": {{"max_concurrency": 1, "{field}": 5}}}}"#));
            assert_eq!(bounded.unwrap().warnings(), Vec::<String>::new(), "{field}");
            // A pause holds unbounded local requests too, within these bounds.
            let paused = format!(
                r#"{{"paths": [], "local": {{"{field}": 5}}, "pause": {{"every_requests": 1, "duration_ms": 1, "paths": ["local"]}}}}"#
            );
            assert!(parse(&paused).unwrap().warnings().iter().all(|w| !w.contains("no effect")), "{paused}");
        }
        assert!(parse(r#"{"paths": [], "local": {"max_queue": 16, "queue_timeout_ms": 1000}}"#).is_ok());
        let c = parse(r#"{"paths": [], "local": {"max_concurrency": 1}}"#).unwrap();
        assert_eq!((c.reservations[0].max_queue, c.reservations[0].queue_timeout_ms), (100, 500));
    }

    #[test]
    fn the_queue_bounds_left_out_are_the_starters_defaults() {
        let c = parse(r#"{"paths": [{"name": "a", "max_concurrency": 1}], "local": {"max_concurrency": 1}}"#).unwrap();
        let bounds: Vec<(u32, u64)> = c.reservations.iter().map(|r| (r.max_queue, r.queue_timeout_ms)).collect();
        assert_eq!(bounds, vec![(50, 500), (100, 500)]);
    }

    #[test]
    fn a_pause_as_long_as_a_paused_queue_timeout_is_accepted_with_a_warning() {
        let config = |duration_ms: u64, paths: &str| {
            format!(
                r#"{{"paths": [{{"name": "a", "max_concurrency": 1, "queue_timeout_ms": 300}},
                               {{"name": "b", "max_concurrency": 1, "max_queue": 0}}],
                    "local": {{"max_concurrency": 1, "queue_timeout_ms": 200}},
                    "pause": {{"every_requests": 1, "duration_ms": {duration_ms}, "paths": [{paths}]}}}}"#
            )
        };
        assert_eq!(parse(&config(199, r#""a", "local""#)).unwrap().warnings(), Vec::<String>::new());
        let warnings = parse(&config(300, r#""a", "local", "b""#)).unwrap().warnings();
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].contains("`pause.duration_ms` (300) is at least `paths[0].queue_timeout_ms` (300)"));
        assert!(warnings[1].contains("`local.queue_timeout_ms` (200)"), "{}", warnings[1]);
        assert!(warnings[2].contains("`paths[1].max_queue` is 0"), "{}", warnings[2]);
        assert!(parse(r#"{"paths": []}"#).unwrap().warnings().is_empty());
    }

    #[test]
    fn case_insensitive_regexes_match_either_case() {
        let c = parse(
            r#"{"paths": [{"name": "a", "match": {"regex": "(?i)/admin/.*", "headers": [{"name": "x-Tier", "regex": "(?i)gold"}]},
                          "max_concurrency": 1}]}"#,
        )
        .unwrap();
        let PathMatch::Regex(path) = &c.matchers[0].path else { panic!("a path regex") };
        assert!(path.is_match("/ADMIN/users") && path.is_match("/Admin/x") && !path.is_match("/user/ADMIN/x"));
        let ValueMatch::Regex(value) = &c.matchers[0].headers[0].value else { panic!("a header regex") };
        assert!(value.is_match("GOLD") && value.is_match("gold") && !value.is_match("silver"));
    }
}

#[cfg(test)]
mod deploy_tests {
    use super::*;

    /// The configuration embedded in deploy/envoyfilter.yaml (the block under `value: |`) must be valid.
    #[test]
    fn the_envoyfilter_example_configuration_is_valid() {
        let yaml = include_str!("../deploy/envoyfilter.yaml");
        let start = yaml.find("value: |").unwrap() + "value: |".len();
        let json: String = yaml[start..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("                  "))
            .collect::<Vec<_>>()
            .join("\n");
        let config = Config::parse(json.as_bytes()).unwrap();
        assert_eq!(config.reservations.len(), 3);
    }
}
