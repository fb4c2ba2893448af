//! Request-counted pause injection (the Slowpoke mechanism, applied to admission).
//!
//! Every `every_requests`-th request that passes the gate on a listed path starts a pause of `duration_ms`:
//! until it ends, new requests on the listed paths are held before admission. The count and the pause's end
//! live in one shared value, `(passed: u64, paused_until_ms: u64)`, so all workers count together and see the
//! same pause. In rounds (see [`rounds`]) a control request starts each pause instead, and the value's first half
//! is the last round started.

mod control;
mod gate;
pub mod rounds;

use crate::cas::{self, Step};
use crate::config::PauseSchedule;
use crate::counters::read_u64;
use crate::host::{HostError, SharedStore};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Go on to admission; the request was counted.
    Open,
    /// A pause is on until this wall-clock millisecond.
    Closed { until_ms: u64 },
}

pub(crate) fn decode(bytes: &[u8]) -> (u64, u64) {
    (read_u64(bytes, 0), read_u64(bytes, 8))
}

pub(crate) fn encode(passed: u64, until_ms: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&passed.to_le_bytes());
    out[8..].copy_from_slice(&until_ms.to_le_bytes());
    out
}

/// Whether a pause that ends at `until_ms` holds requests at `now_ms`. A pause never lasts longer than
/// `duration_ms` from now: if it seems to, the wall clock (on which pause ends are kept, see `crate::clock`)
/// stepped back, and holding on would stall the paths for as long as the clock is off.
fn holds(until_ms: u64, now_ms: u64, duration_ms: u64) -> bool {
    now_ms < until_ms && until_ms <= now_ms.saturating_add(duration_ms)
}

/// The end of the current pause, if one is on at `now_ms`.
pub fn paused_until(
    store: &dyn SharedStore,
    key: &str,
    schedule: &PauseSchedule,
    now_ms: u64,
) -> Result<Option<u64>, HostError> {
    let until = store.get(key)?.map(|(b, _)| decode(&b).1).unwrap_or(0);
    Ok(holds(until, now_ms, schedule.duration_ms).then_some(until))
}

/// Counts one request through the gate, or says it must wait for the pause in progress.
pub fn pass(store: &dyn SharedStore, key: &str, schedule: &PauseSchedule, now_ms: u64) -> Result<Gate, HostError> {
    if schedule.in_rounds() {
        // Requests start no pause in rounds: only a read, no count to write.
        return Ok(match paused_until(store, key, schedule, now_ms)? {
            Some(until_ms) => Gate::Closed { until_ms },
            None => Gate::Open,
        });
    }
    let gate = cas::update(store, key, |value| {
        let (passed, until_ms) = value.map_or((0, 0), decode);
        if holds(until_ms, now_ms, schedule.duration_ms) {
            return Step::Done(Gate::Closed { until_ms });
        }
        let passed = passed.saturating_add(1);
        let until_ms =
            // `every_requests` is at least 1 (validated); a remainder by 0 would be no pause rather than a panic.
            if passed.checked_rem(schedule.every_requests) == Some(0) {
                now_ms.saturating_add(schedule.duration_ms)
            } else {
                until_ms
            };
        Step::Write(encode(passed, until_ms).to_vec(), Gate::Open)
    })?;
    // Losing every race is itself a sign of heavy traffic; letting the request through uncounted only makes
    // the next pause come one request later.
    Ok(gate.unwrap_or(Gate::Open))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::per_path::PathIndex;
    use crate::testing::MemStore;

    fn schedule() -> PauseSchedule {
        PauseSchedule { every_requests: 3, duration_ms: 200, rounds: None, paths: vec![PathIndex(0)] }
    }

    #[test]
    fn the_nth_request_starts_a_pause_that_holds_the_next_ones() {
        let s = MemStore::default();
        assert_eq!(pass(&s, "p", &schedule(), 1000).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &schedule(), 1001).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &schedule(), 1002).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &schedule(), 1003).unwrap(), Gate::Closed { until_ms: 1202 });
        assert_eq!(paused_until(&s, "p", &schedule(), 1100).unwrap(), Some(1202));
        assert_eq!(paused_until(&s, "p", &schedule(), 1202).unwrap(), None);
        assert_eq!(pass(&s, "p", &schedule(), 1202).unwrap(), Gate::Open);
    }

    #[test]
    fn held_requests_do_not_count_until_they_pass() {
        let s = MemStore::default();
        for t in 0..3 {
            pass(&s, "p", &schedule(), t).unwrap();
        }
        for _ in 0..10 {
            assert!(matches!(pass(&s, "p", &schedule(), 50).unwrap(), Gate::Closed { .. }));
        }
        // After the pause, exactly three more passes start the next one.
        assert_eq!(pass(&s, "p", &schedule(), 300).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &schedule(), 300).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &schedule(), 300).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &schedule(), 300).unwrap(), Gate::Closed { until_ms: 500 });
    }

    #[test]
    fn a_pause_never_outlasts_its_length_when_the_clock_steps_back() {
        let s = MemStore::default();
        for t in 0..3 {
            pass(&s, "p", &schedule(), 10_000 + t).unwrap();
        }
        assert_eq!(paused_until(&s, "p", &schedule(), 10_100).unwrap(), Some(10_202));
        // The wall clock stepped back a minute: the pause is over, not a minute long.
        assert_eq!(paused_until(&s, "p", &schedule(), 9_000).unwrap(), None);
        assert_eq!(pass(&s, "p", &schedule(), 0).unwrap(), Gate::Open);
    }

    #[test]
    fn a_pause_ending_past_the_end_of_time_ends_there() {
        let s = MemStore::default();
        let long = PauseSchedule { every_requests: 1, duration_ms: u64::MAX, rounds: None, paths: vec![PathIndex(0)] };
        assert_eq!(pass(&s, "p", &long, 5).unwrap(), Gate::Open);
        assert_eq!(pass(&s, "p", &long, 6).unwrap(), Gate::Closed { until_ms: u64::MAX });
    }
}
