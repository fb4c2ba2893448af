//! What the logic needs from its host, as small traits: the Wasm layer implements them with proxy-wasm
//! hostcalls, the unit tests with in-memory doubles.

use std::fmt;

use crate::limiter::Reason;
use crate::pause::rounds::Answer;
use crate::per_path::PathIndex;
use crate::runtime::Refusal;

/// A host call failed; the logic then fails open (admits) rather than stall traffic on its own fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError(pub String);

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A key-value store shared by every worker thread, with compare-and-swap (Envoy's shared data).
pub trait SharedStore {
    /// The value and its CAS token, or `None` if the key does not exist.
    fn get(&self, key: &str) -> Result<Option<(Vec<u8>, u32)>, HostError>;
    /// Stores `value` if the key's token is still `cas` (always, for `None`); `Ok(false)` on a CAS mismatch.
    fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> Result<bool, HostError>;
}

/// Wall-clock milliseconds; the same clock on every worker, so deadlines written by one are read by another.
pub trait Clock {
    fn now_ms(&self) -> u64;

    /// The same clock in nanoseconds, for the tuning's samples, whose response times are often under a
    /// millisecond; a host that cannot tell finer gives whole milliseconds.
    fn now_ns(&self) -> u64 {
        self.now_ms().saturating_mul(1_000_000)
    }
}

/// The per-path statistics: the starter's meters of the same names, which Prometheus shows with the path (and the
/// reason of a refusal) as labels once Envoy extracts them as tags (see [`crate::stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Gauge: requests holding a slot of this reservation.
    Active,
    /// Gauge: requests of this path waiting for a slot.
    Queued,
    /// Counter: requests of this path let through (granted a slot, at once or after waiting).
    Granted,
    /// Counter: requests refused because the wait queue was full.
    RejectedQueueFull,
    /// Counter: requests refused because their wait outlasted `queue_timeout_ms`.
    RejectedTimeout,
    /// Counter: requests held back by an injected pause.
    Paused,
    /// Gauge: the limit tuning set (tuned paths only).
    Limit,
    /// Gauge: the lower end of the last decision's rational range, 0 while none was found (tuned paths only).
    QLower,
    /// Gauge: its upper end.
    QUpper,
    /// Counters: tuning decisions by verdict (tuned paths only).
    DecisionsPlateau,
    DecisionsExplore,
    DecisionsNoPlateau,
    DecisionsInsufficientData,
}

impl Metric {
    /// In the order of their declaration, which [`Metric::index`] follows.
    pub const ALL: [Metric; Metric::COUNT] = [
        Metric::Active,
        Metric::Queued,
        Metric::Granted,
        Metric::RejectedQueueFull,
        Metric::RejectedTimeout,
        Metric::Paused,
        Metric::Limit,
        Metric::QLower,
        Metric::QUpper,
        Metric::DecisionsPlateau,
        Metric::DecisionsExplore,
        Metric::DecisionsNoPlateau,
        Metric::DecisionsInsufficientData,
    ];
    pub const COUNT: usize = 13;

    /// Its place in [`Metric::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name Prometheus shows, as the starter's meter is named there: counters end in `_total` like
    /// Micrometer's, since Envoy prints a counter under its name as it is.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Active => "pathfence_path_active",
            Metric::Queued => "pathfence_path_queued",
            Metric::Granted => "pathfence_path_granted_total",
            Metric::RejectedQueueFull | Metric::RejectedTimeout => "pathfence_path_rejected_total",
            Metric::Paused => "pathfence_path_paused_total",
            // The reservation's size, which is what the starter's permits gauge shows too.
            Metric::Limit => "pathfence_path_permits",
            Metric::QLower => "pathfence_tuning_q_lower",
            Metric::QUpper => "pathfence_tuning_q_upper",
            Metric::DecisionsPlateau
            | Metric::DecisionsExplore
            | Metric::DecisionsNoPlateau
            | Metric::DecisionsInsufficientData => "pathfence_tuning_decisions_total",
        }
    }

    /// The `reason` tag of a refusal's counter.
    pub fn reason(self) -> Option<Reason> {
        match self {
            Metric::RejectedQueueFull => Some(Reason::QueueFull),
            Metric::RejectedTimeout => Some(Reason::Timeout),
            _ => None,
        }
    }

    /// The `verdict` tag of a decisions counter, in the starter's words.
    pub fn verdict(self) -> Option<&'static str> {
        match self {
            Metric::DecisionsPlateau => Some("plateau"),
            Metric::DecisionsExplore => Some("explore"),
            Metric::DecisionsNoPlateau => Some("no-plateau"),
            Metric::DecisionsInsufficientData => Some("insufficient-data"),
            _ => None,
        }
    }

    pub fn is_gauge(self) -> bool {
        matches!(self, Metric::Active | Metric::Queued | Metric::Limit | Metric::QLower | Metric::QUpper)
    }

    /// Whether only a tuned path has it.
    pub fn is_tuning(self) -> bool {
        self.index() >= Metric::Limit.index()
    }

    /// The counter of decisions with `verdict`.
    pub fn decisions(verdict: crate::sct::verdict::Verdict) -> Metric {
        use crate::sct::verdict::Verdict;
        match verdict {
            Verdict::Plateau => Metric::DecisionsPlateau,
            Verdict::Explore => Metric::DecisionsExplore,
            Verdict::NoPlateau => Metric::DecisionsNoPlateau,
            Verdict::InsufficientData => Metric::DecisionsInsufficientData,
        }
    }
}

/// Metrics are only ever changed by deltas, so that every worker adding to the same stat sums correctly.
pub trait Metrics {
    /// Adds `delta`; the host may hand it to Envoy later, batched with others.
    fn add(&self, path: PathIndex, metric: Metric, delta: i64);

    /// Adds `delta` at once, with the deltas of the same stat still batched (a slot's `+1` to `active` must not
    /// come after its `-1`): for a slot taken off `active` before it goes back to the shared count, where another
    /// worker may take it and report it as its own.
    fn add_now(&self, path: PathIndex, metric: Metric, delta: i64) {
        self.add(path, metric, delta);
    }

    /// Hands the deltas `add` kept over to the host's stats; nothing on a host that adds them at once. The runtime
    /// paces the calls (see [`crate::runtime::flush`]).
    fn flush(&self) {}
}

/// What the runtime needs from the proxy beyond a worker's host: carrying out its decisions on streams other than
/// the one whose callback is running, and its timer. Every call is made with no worker borrowed, so that one that
/// calls back into the runtime (a local reply may end its stream at once) finds it free.
pub trait Proxy {
    /// Sets the thread's tick period; Envoy re-arms the timer when it changes.
    fn set_tick_period(&self, ms: u64) -> Result<(), HostError>;

    /// Lets the held stream `stream` go on. A stream the proxy no longer knows has nothing to resume: `Ok`.
    fn resume(&self, stream: u32) -> Result<(), HostError>;

    /// Answers the held stream `stream` with `refusal` instead of passing it on. A stream the proxy no longer knows
    /// has nothing to refuse: `Ok`.
    fn refuse(&self, stream: u32, refusal: &Refusal) -> Result<(), HostError>;

    /// Answers the held stream `stream`, a pause round's control request, with `answer` (JSON) instead of passing it
    /// on. A binding that cannot answer says so; the runtime then lets the request go on upstream.
    fn answer(&self, _stream: u32, _answer: &Answer) -> Result<(), HostError> {
        Err(HostError("this build of the filter does not answer a round's control request".to_string()))
    }

    /// Called after acting on other streams from the callback of `current` (a stream, or the root), for a proxy
    /// whose calls act on a current context (proxy-wasm's effective context): it makes `current` current again.
    fn acted(&self, _current: u32) {}
}

/// Everything a worker needs from its host.
pub trait Host: SharedStore + Clock + Metrics {}

impl<T: SharedStore + Clock + Metrics> Host for T {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_metric_has_its_place_in_the_list_of_all() {
        assert!(Metric::ALL.iter().enumerate().all(|(place, metric)| metric.index() == place));
    }

    #[test]
    fn each_verdict_has_its_counter_named_after_it() {
        use crate::sct::verdict::Verdict;
        for verdict in Verdict::ALL {
            let metric = Metric::decisions(verdict);
            assert!(metric.is_tuning() && !metric.is_gauge());
            assert_eq!(metric.name(), "pathfence_tuning_decisions_total");
            assert_eq!(metric.verdict().map(str::to_string), Some(verdict.stat_name().replace('_', "-")));
        }
        let tuning: Vec<&str> = Metric::ALL.iter().filter(|m| m.is_tuning()).map(|m| m.name()).collect();
        assert_eq!(tuning.len(), 7);
        assert!(tuning.starts_with(&[
            "pathfence_path_permits",
            "pathfence_tuning_q_lower",
            "pathfence_tuning_q_upper"
        ]));
    }
}
