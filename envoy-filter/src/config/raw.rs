//! The configuration as the operator writes it, before validation: serde's view of the JSON, with the defaults of
//! the fields left out.

use serde::Deserialize;

use super::objects::{object, objects, optional_object};
use super::tuning::{RawPathTuning, RawTuning};

// The starter's defaults (`max-queue` 50 for a path and 100 for local, `queue-timeout` 500 ms), so that a path
// moved from one fence to the other keeps its bounds; the queue here is per Envoy worker thread.
pub(super) fn default_max_queue() -> u32 {
    50
}
pub(super) fn default_local_max_queue() -> u32 {
    100
}
pub(super) fn default_queue_timeout_ms() -> u64 {
    500
}
fn default_retry_after_s() -> u32 {
    1
}
fn default_worker_lease_ms() -> u64 {
    10_000
}

/// The whole plugin configuration as written by the operator.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Execution paths, matched in order; the first match wins.
    #[serde(deserialize_with = "objects")]
    pub paths: Vec<RawPath>,
    /// The reservation of requests that match no path.
    #[serde(default, deserialize_with = "object")]
    pub local: RawLocal,
    /// Optional request-counted pause injection.
    #[serde(default, deserialize_with = "optional_object")]
    pub pause: Option<RawPause>,
    /// Seconds put in the `retry-after` header of a refusal.
    #[serde(default = "default_retry_after_s")]
    pub retry_after_s: u32,
    /// A worker that has not shown a sign of life for this long has its in-flight counts reclaimed.
    #[serde(default = "default_worker_lease_ms")]
    pub worker_lease_ms: u64,
    /// Present, it sizes each configured path's limit online (see [`RawTuning`]).
    #[serde(default, deserialize_with = "optional_object")]
    pub tuning: Option<RawTuning>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPath {
    pub name: String,
    #[serde(rename = "match", default, deserialize_with = "object")]
    pub matcher: RawMatch,
    pub max_concurrency: u32,
    #[serde(default = "default_max_queue")]
    pub max_queue: u32,
    #[serde(default = "default_queue_timeout_ms")]
    pub queue_timeout_ms: u64,
    /// The bounds of its tuned limit, with the top-level `tuning` on.
    #[serde(default, deserialize_with = "optional_object")]
    pub tuning: Option<RawPathTuning>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMatch {
    pub prefix: Option<String>,
    pub exact: Option<String>,
    pub regex: Option<String>,
    pub method: Option<String>,
    #[serde(default, deserialize_with = "objects")]
    pub headers: Vec<RawHeaderMatch>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeaderMatch {
    pub name: String,
    pub exact: Option<String>,
    pub prefix: Option<String>,
    pub regex: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLocal {
    /// `None` leaves local requests unbounded, so they never wait.
    pub max_concurrency: Option<u32>,
    /// `None` when not given, so that a queue bound on an unbounded reservation can be refused; 100 otherwise.
    pub max_queue: Option<u32>,
    /// `None` when not given, for the same reason; 500 otherwise.
    pub queue_timeout_ms: Option<u64>,
    /// Whether a local request may take a free slot of another path when the local reservation is full.
    #[serde(default = "default_true")]
    pub borrow: bool,
}

fn default_true() -> bool {
    true
}

impl Default for RawLocal {
    fn default() -> Self {
        RawLocal { max_concurrency: None, max_queue: None, queue_timeout_ms: None, borrow: true }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPause {
    /// Counted pauses: every this many requests on the listed paths start one. Not with `rounds`.
    pub every_requests: Option<u64>,
    /// Counted pauses: each one's length. Not with `rounds`.
    pub duration_ms: Option<u64>,
    /// Coordinated rounds instead: pauses started by a control request (see [`RawRounds`]).
    pub rounds: Option<RawRounds>,
    pub paths: Vec<String>,
}

/// A what-if run's coordinated pauses: a runner that counts the target's requests starts each round with a
/// control request to every filter, naming the round and its pause.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRounds {
    /// The URL path of the control request (`POST`, answered by the filter, never sent upstream).
    pub control_path: String,
    /// The longest pause a round may ask for.
    pub max_pause_ms: u64,
    /// The secret a control request must carry in its token header, if set.
    pub token: Option<String>,
}
