//! One worker's sums of one interval as bytes, for publication through Envoy's shared data.
//!
//! A record has a fixed layout of [`RECORD_LEN`] bytes, integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..3 | `SCT` |
//! | 3 | layout version, [`VERSION`] |
//! | 4..8 | worker id (`u32`) |
//! | 8..16 | interval length, ns |
//! | 16..24 | interval start, ns |
//! | 24..32 | ∫ requests in service dt, request-ns |
//! | 32..40 | ∫ requests waiting dt, request-ns |
//! | 40..48 | completions |
//! | 48..56 | sum of their times in service, ns |
//!
//! Records of several workers or intervals go one after another in one value. Shared data outlives a module
//! (a new version of the filter may read what an old one wrote) and a bug elsewhere could write anything, so
//! decoding trusts nothing: a record of the wrong magic or version, or whose values no accumulator can produce, is
//! skipped, and the records after it are still read. A value whose length is not a whole number of records is
//! skipped whole: where its records begin is not known, and read from its first byte, a stray byte would shift every
//! record after it.

use super::interval::IntervalTotals;

pub const RECORD_LEN: usize = 56;
pub const VERSION: u8 = 1;
/// The longest sampling interval a record may carry. SCT samples last tens to hundreds of milliseconds; an hour
/// is far beyond any sensible setting, and the bound turns most garbage with a valid header away.
pub const MAX_INTERVAL_NS: u64 = 3_600_000_000_000;
const MAGIC: [u8; 3] = *b"SCT";

/// What a worker publishes for one closed interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerInterval {
    pub worker: u32,
    pub interval_ns: u64,
    pub totals: IntervalTotals,
}

impl WorkerInterval {
    pub fn encode(&self) -> [u8; RECORD_LEN] {
        let t = &self.totals;
        let words = [self.interval_ns, t.start_ns, t.in_service_ns, t.waiting_ns, t.completions, t.response_ns];
        let header = MAGIC.into_iter().chain([VERSION]).chain(self.worker.to_le_bytes());
        // The header and the six words fill the record exactly (the layout test checks where each byte lands).
        let mut out = [0u8; RECORD_LEN];
        for (byte, value) in out.iter_mut().zip(header.chain(words.into_iter().flat_map(u64::to_le_bytes))) {
            *byte = value;
        }
        out
    }

    /// Appends the record to a value holding others.
    pub fn encode_into(&self, value: &mut Vec<u8>) {
        value.extend_from_slice(&self.encode());
    }

    /// The record in exactly these bytes, or `None` if they are not one.
    pub fn decode(bytes: &[u8]) -> Option<WorkerInterval> {
        if bytes.len() != RECORD_LEN {
            return None;
        }
        let (magic, rest) = bytes.split_first_chunk::<3>()?;
        let (&version, rest) = rest.split_first()?;
        let (&worker, words) = rest.split_first_chunk::<4>()?;
        if *magic != MAGIC || version != VERSION {
            return None;
        }
        let worker = u32::from_le_bytes(worker);
        let word = |i: usize| words.get(8 * i..8 * i + 8)?.try_into().ok().map(u64::from_le_bytes);
        let record = WorkerInterval {
            worker,
            interval_ns: word(0)?,
            totals: IntervalTotals {
                start_ns: word(1)?,
                in_service_ns: word(2)?,
                waiting_ns: word(3)?,
                completions: word(4)?,
                response_ns: word(5)?,
            },
        };
        record.is_possible().then_some(record)
    }

    /// What an accumulator could have written: an interval of up to [`MAX_INTERVAL_NS`] that ends on the clock, at
    /// most `u32::MAX`
    /// requests in service or waiting on average (a worker admits far fewer), and no time in service without a
    /// completion.
    fn is_possible(&self) -> bool {
        let t = &self.totals;
        let most = self.interval_ns.saturating_mul(u64::from(u32::MAX));
        (1..=MAX_INTERVAL_NS).contains(&self.interval_ns)
            && t.start_ns.checked_add(self.interval_ns).is_some()
            && t.in_service_ns <= most
            && t.waiting_ns <= most
            && (t.completions > 0 || t.response_ns == 0)
    }
}

/// The records in a value written by [`WorkerInterval::encode_into`], skipping any that do not decode; none of a
/// value that is not a whole number of records.
pub fn decode_all(value: &[u8]) -> impl Iterator<Item = WorkerInterval> + '_ {
    let whole = if value.len().is_multiple_of(RECORD_LEN) { value } else { &[] };
    whole.chunks_exact(RECORD_LEN).filter_map(WorkerInterval::decode)
}

#[cfg(test)]
mod tests {
    use super::super::testing::Rng;
    use super::*;

    fn record() -> WorkerInterval {
        WorkerInterval {
            worker: 7,
            interval_ns: 50_000_000,
            totals: IntervalTotals {
                start_ns: 1_700_000_000_000_000_000,
                in_service_ns: 123_456_789,
                waiting_ns: 5,
                completions: 42,
                response_ns: 987_654_321,
            },
        }
    }

    #[test]
    fn a_record_round_trips() {
        let r = record();
        assert_eq!(WorkerInterval::decode(&r.encode()), Some(r));
    }

    #[test]
    fn any_record_an_accumulator_can_write_round_trips_alone_and_in_a_value() {
        let mut rng = Rng::new(23);
        let mut value = Vec::new();
        let mut written = Vec::new();
        for _ in 0..10_000 {
            // Values from the smallest to the largest allowed, biased to the edges.
            let mut edge = |most: u64| match rng.below(4) {
                0 => 0,
                1 => most,
                _ => rng.below(most.saturating_add(1)),
            };
            let interval_ns = edge(MAX_INTERVAL_NS).max(1);
            let most = interval_ns.saturating_mul(u64::from(u32::MAX));
            let completions = edge(u64::MAX);
            let r = WorkerInterval {
                worker: edge(u64::from(u32::MAX)) as u32,
                interval_ns,
                totals: IntervalTotals {
                    start_ns: edge(u64::MAX - interval_ns),
                    in_service_ns: edge(most),
                    waiting_ns: edge(most),
                    completions,
                    response_ns: if completions == 0 { 0 } else { edge(u64::MAX) },
                },
            };
            assert_eq!(WorkerInterval::decode(&r.encode()), Some(r), "{r:?}");
            r.encode_into(&mut value);
            written.push(r);
        }
        assert_eq!(value.len(), written.len() * RECORD_LEN);
        assert_eq!(decode_all(&value).collect::<Vec<_>>(), written);
    }

    #[test]
    fn the_layout_is_fixed() {
        let bytes = record().encode();
        assert_eq!(&bytes[0..4], b"SCT\x01");
        assert_eq!(bytes[4..8], 7u32.to_le_bytes());
        assert_eq!(bytes[8..16], 50_000_000u64.to_le_bytes());
        assert_eq!(bytes[40..48], 42u64.to_le_bytes());
    }

    #[test]
    fn several_records_in_one_value_come_back_in_order() {
        let mut value = Vec::new();
        let mut b = record();
        b.worker = 8;
        record().encode_into(&mut value);
        b.encode_into(&mut value);
        assert_eq!(decode_all(&value).collect::<Vec<_>>(), vec![record(), b]);
    }

    #[test]
    fn wrong_length_magic_or_version_is_refused() {
        let good = record().encode();
        assert_eq!(WorkerInterval::decode(&good[..RECORD_LEN - 1]), None);
        assert_eq!(WorkerInterval::decode(&[&good[..], &[0]].concat()), None);
        assert_eq!(WorkerInterval::decode(&[]), None);
        for at in [0, 1, 2, 3] {
            let mut bad = good;
            bad[at] ^= 0x01;
            assert_eq!(WorkerInterval::decode(&bad), None, "byte {at}");
        }
    }

    #[test]
    fn values_no_accumulator_writes_are_refused() {
        let spoil: [fn(&mut WorkerInterval); 6] = [
            |r| r.interval_ns = 0,
            |r| r.interval_ns = MAX_INTERVAL_NS + 1,
            |r| r.totals.start_ns = u64::MAX - 1,
            |r| r.totals.in_service_ns = u64::MAX,
            |r| r.totals.waiting_ns = u64::MAX,
            |r| r.totals.completions = 0,
        ];
        for (i, spoil) in spoil.iter().enumerate() {
            let mut r = record();
            spoil(&mut r);
            assert_eq!(WorkerInterval::decode(&r.encode()), None, "case {i}");
        }
    }

    #[test]
    fn a_bad_record_is_skipped_and_the_rest_still_read() {
        let mut value = Vec::new();
        record().encode_into(&mut value);
        value.extend_from_slice(&[0xff; RECORD_LEN]);
        record().encode_into(&mut value);
        assert_eq!(decode_all(&value).count(), 2);
    }

    #[test]
    fn a_value_that_is_not_a_whole_number_of_records_is_skipped_whole() {
        let mut value = Vec::new();
        record().encode_into(&mut value);
        value.extend_from_slice(&[1, 2, 3]);
        assert_eq!(decode_all(&value).count(), 0, "a short tail");
        // Records of another length (60 bytes, say, from another layout) whose bytes, read in steps of 56 from the
        // first, happen to hold a record: it is not theirs, and not read.
        let mut other = vec![0xee; RECORD_LEN];
        record().encode_into(&mut other);
        other.extend_from_slice(&[0xee; 2 * 60 - 2 * RECORD_LEN]);
        assert_eq!(other.len(), 2 * 60);
        assert_eq!(decode_all(&other).count(), 0, "records of another length");
        // A stray byte in front of whole records.
        let mut shifted = vec![0];
        record().encode_into(&mut shifted);
        record().encode_into(&mut shifted);
        assert_eq!(decode_all(&shifted).count(), 0, "a stray byte");
    }

    #[test]
    fn random_bytes_never_panic_and_rarely_decode() {
        let mut rng = Rng::new(19);
        let mut decoded = 0;
        for _ in 0..20_000 {
            let len = rng.below(3 * RECORD_LEN as u64) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            if rng.below(2) == 0 && len >= 4 {
                // Past the header, so that the checks of the values are reached too.
                bytes[0..4].copy_from_slice(b"SCT\x01");
            }
            decoded += decode_all(&bytes).count();
            let _ = WorkerInterval::decode(&bytes);
        }
        // With a valid header, random values are refused as impossible nearly always.
        assert!(decoded < 100, "{decoded} random records decoded");
    }

    #[test]
    fn no_byte_of_a_record_is_ignored() {
        let good = record().encode();
        for at in 0..RECORD_LEN {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bytes = good;
                bytes[at] ^= flip;
                assert_ne!(WorkerInterval::decode(&bytes), Some(record()), "byte {at} ^ {flip:#x}");
            }
        }
    }
}
