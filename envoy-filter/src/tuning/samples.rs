//! Every worker's closed intervals of one path in shared data, where whichever worker analyses finds the whole
//! window: records stay until they leave the window, rather than being handed to one analyst, so that a new
//! analyst taking over loses nothing and a worker that goes away loses only the interval it had open.
//!
//! A window is cut into segments of [`SEGMENT_INTERVALS`] intervals; each segment has its key, reused around a
//! ring of keys that covers the window and some lag, so that one publication rewrites one small value rather than
//! the whole window. Whoever appends to a key drops the records that left the ring's span, which are those of the
//! key's earlier round.

use crate::cas::{self, Step};
use crate::host::{HostError, SharedStore};
use crate::sct::wire::{decode_all, WorkerInterval, RECORD_LEN};

/// Intervals per segment key.
pub const SEGMENT_INTERVALS: u64 = 20;
/// Segments kept beyond the window, for records published late and for the segment being filled.
const SPARE_SEGMENTS: u64 = 2;

/// The keys of one path's records and the span they cover.
#[derive(Debug, Clone)]
pub struct SampleKeys {
    prefix: String,
    interval_ns: u64,
    segments: u64,
}

impl SampleKeys {
    /// The keys of path `path` (under the filter's key prefix `prefix`) for a window of `window_intervals`.
    pub fn new(prefix: &str, path: &str, interval_ns: u64, window_intervals: u64) -> SampleKeys {
        let segments = window_intervals.div_ceil(SEGMENT_INTERVALS).saturating_add(SPARE_SEGMENTS);
        SampleKeys {
            prefix: format!("{prefix}{path}.sct."),
            interval_ns: interval_ns.max(1),
            segments: segments.max(1),
        }
    }

    fn segment_of(&self, start_ns: u64) -> u64 {
        start_ns / self.interval_ns / SEGMENT_INTERVALS
    }

    fn key(&self, segment: u64) -> String {
        format!("{}{}", self.prefix, segment % self.segments)
    }

    /// The earliest interval start the ring still covers at `newest_ns`.
    fn horizon_ns(&self, newest_ns: u64) -> u64 {
        let segment = self.segment_of(newest_ns).saturating_sub(self.segments - 1);
        segment.saturating_mul(SEGMENT_INTERVALS).saturating_mul(self.interval_ns)
    }

    /// Appends `records` (one worker's, oldest first) to their segments' keys. Those that could not be written
    /// (contended, or the host failed) are left in `records` to try again; those already out of the ring are
    /// dropped, counted in the answer.
    pub fn publish(&self, store: &dyn SharedStore, records: &mut Vec<WorkerInterval>) -> Result<u64, HostError> {
        let Some(newest) = records.iter().map(|r| r.totals.start_ns).max() else { return Ok(0) };
        let horizon = self.horizon_ns(newest);
        let before = records.len();
        records.retain(|r| r.totals.start_ns >= horizon);
        let dropped = (before - records.len()) as u64;
        let mut left = Vec::new();
        let mut result = Ok(dropped);
        while let Some(first) = records.first() {
            let segment = self.segment_of(first.totals.start_ns);
            let (mine, rest): (Vec<WorkerInterval>, Vec<WorkerInterval>) =
                records.drain(..).partition(|r| self.segment_of(r.totals.start_ns) == segment);
            *records = rest;
            let written = cas::update(store, &self.key(segment), |value| {
                let mut out = Vec::with_capacity(value.map_or(0, <[u8]>::len) + mine.len() * RECORD_LEN);
                for kept in
                    value.into_iter().flat_map(decode_all).filter(|r| self.segment_of(r.totals.start_ns) == segment)
                {
                    kept.encode_into(&mut out);
                }
                for record in &mine {
                    record.encode_into(&mut out);
                }
                Step::Write(out, ())
            });
            match written {
                Ok(Some(())) => {}
                Ok(None) => left.extend(mine),
                Err(e) => {
                    left.extend(mine);
                    result = Err(e);
                }
            }
        }
        *records = left;
        result
    }

    /// Every record of the ring, of every worker; keys that cannot be read are skipped.
    pub fn read_all(&self, store: &dyn SharedStore) -> Vec<WorkerInterval> {
        let mut all = Vec::new();
        for slot in 0..self.segments {
            if let Ok(Some((value, _))) = store.get(&self.key(slot)) {
                all.extend(decode_all(&value));
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sct::interval::IntervalTotals;
    use crate::testing::MemStore;

    const I: u64 = 50_000_000;

    fn record(worker: u32, k: u64) -> WorkerInterval {
        WorkerInterval {
            worker,
            interval_ns: I,
            totals: IntervalTotals { start_ns: k * I, in_service_ns: I, waiting_ns: 0, completions: 1, response_ns: 1 },
        }
    }

    #[test]
    fn records_of_several_workers_come_back_whole_until_they_leave_the_ring() {
        let store = MemStore::default();
        let keys = SampleKeys::new("p.", "a", I, 40);
        for k in 0..100 {
            for worker in [1, 2] {
                let mut records = vec![record(worker, k)];
                assert_eq!(keys.publish(&store, &mut records), Ok(0));
                assert!(records.is_empty());
            }
        }
        let mut starts: Vec<u64> = keys.read_all(&store).iter().map(|r| r.totals.start_ns / I).collect();
        starts.sort_unstable();
        // Four segments of twenty: the window of 40 and two spare, the newest being filled.
        let expected: Vec<u64> = (20..100).flat_map(|k| [k, k]).collect();
        assert_eq!(starts, expected);
    }

    #[test]
    fn a_write_that_keeps_losing_its_race_is_kept_for_the_next_try() {
        let store = MemStore::default();
        let keys = SampleKeys::new("p.", "a", I, 40);
        let mut records = vec![record(1, 0), record(1, 1)];
        store.fail_next_cas(crate::cas::MAX_CAS_TRIES);
        assert_eq!(keys.publish(&store, &mut records), Ok(0));
        assert_eq!(records.len(), 2);
        assert_eq!(keys.publish(&store, &mut records), Ok(0));
        assert!(records.is_empty());
        assert_eq!(keys.read_all(&store).len(), 2);
    }

    #[test]
    fn records_already_out_of_the_ring_are_dropped_and_counted() {
        let store = MemStore::default();
        let keys = SampleKeys::new("p.", "a", I, 40);
        let mut records = vec![record(1, 0), record(1, 500)];
        assert_eq!(keys.publish(&store, &mut records), Ok(1));
        assert_eq!(keys.read_all(&store), vec![record(1, 500)]);
    }

    #[test]
    fn a_value_that_is_not_a_whole_number_of_records_is_skipped_whole_and_overwritten() {
        let store = MemStore::default();
        let keys = SampleKeys::new("p.", "a", I, 40);
        let mut value = vec![0xee; RECORD_LEN];
        record(2, 1).encode_into(&mut value);
        value.extend_from_slice(&[0xee; 8]);
        store.set("p.a.sct.0", &value, None).unwrap();
        assert_eq!(keys.read_all(&store), vec![], "no record is read out of step");
        let mut records = vec![record(1, 3)];
        keys.publish(&store, &mut records).unwrap();
        assert_eq!(keys.read_all(&store), vec![record(1, 3)]);
    }

    #[test]
    fn garbage_in_a_key_is_skipped_and_overwritten() {
        let store = MemStore::default();
        let keys = SampleKeys::new("p.", "a", I, 40);
        store.set("p.a.sct.0", &[0xff; 3 * RECORD_LEN + 5], None).unwrap();
        let mut records = vec![record(1, 3)];
        keys.publish(&store, &mut records).unwrap();
        assert_eq!(keys.read_all(&store), vec![record(1, 3)]);
    }
}
