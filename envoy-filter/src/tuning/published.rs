//! The limits the analyst decided, in shared data: one key per path with its limit and range, and one count of
//! decisions published, which every worker reads on its tick to learn at one read whether any limit changed.

use crate::cas::{self, Step};
use crate::config::Bounds;
use crate::counters;
use crate::host::{HostError, SharedStore};

/// A path's published limit and the range of the decision that set it (0 while none was found).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Published {
    pub limit: u32,
    pub q_lower: u32,
    pub q_upper: u32,
}

impl Published {
    fn encode(self) -> Vec<u8> {
        [self.limit, self.q_lower, self.q_upper].iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn decode(bytes: &[u8]) -> Option<Published> {
        let limit = counters::read_u32(bytes, 0).filter(|l| *l > 0)?;
        Some(Published {
            limit,
            q_lower: counters::read_u32(bytes, 4).unwrap_or(0),
            q_upper: counters::read_u32(bytes, 8).unwrap_or(0),
        })
    }
}

/// The limit of a path as published, if it is.
pub fn read(store: &dyn SharedStore, key: &str) -> Result<Option<Published>, HostError> {
    Ok(store.get(key)?.and_then(|(bytes, _)| Published::decode(&bytes)))
}

/// What a worker starting with a tuned path finds: the limit published before (by the workers of an earlier
/// configuration) held within this configuration's bounds, or `start` if none was. It writes what it found if
/// that differs, and answers with what was there before (for the gauges) and what is there now.
pub fn start(
    store: &dyn SharedStore,
    key: &str,
    bounds: Bounds,
    start: u32,
) -> Result<Option<(Option<Published>, Published)>, HostError> {
    cas::update(store, key, |value| {
        let before = value.and_then(Published::decode);
        let now = match before {
            Some(p) => Published { limit: bounds.clamp(p.limit), ..p },
            None => Published { limit: start, q_lower: 0, q_upper: 0 },
        };
        if before == Some(now) {
            Step::Done((before, now))
        } else {
            Step::Write(now.encode(), (before, now))
        }
    })
}

/// Publishes a decision: the path's new limit and range; what was published before, for the gauges.
pub fn publish(store: &dyn SharedStore, key: &str, now: Published) -> Result<Option<Option<Published>>, HostError> {
    cas::update(store, key, |value| Step::Write(now.encode(), value.and_then(Published::decode)))
}

/// Counts one more round of decisions published.
pub fn bump(store: &dyn SharedStore, key: &str) -> Result<Option<u64>, HostError> {
    counters::increment(store, key)
}

/// How many rounds of decisions were published; 0 before any.
pub fn rounds(store: &dyn SharedStore, key: &str) -> Result<u64, HostError> {
    Ok(store.get(key)?.map_or(0, |(bytes, _)| counters::read_u64(&bytes, 0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::MemStore;

    const B: Bounds = Bounds { min: 2, max: 20 };

    #[test]
    fn the_first_worker_publishes_the_starting_limit_and_later_ones_go_on_from_the_published_one() {
        let store = MemStore::default();
        let first = Published { limit: 16, q_lower: 0, q_upper: 0 };
        assert_eq!(start(&store, "k", B, 16), Ok(Some((None, first))));
        assert_eq!(start(&store, "k", B, 16), Ok(Some((Some(first), first))));
        let decided = Published { limit: 9, q_lower: 8, q_upper: 12 };
        publish(&store, "k", decided).unwrap();
        assert_eq!(start(&store, "k", B, 16), Ok(Some((Some(decided), decided))), "a new configuration goes on");
        let narrower = Bounds { min: 10, max: 20 };
        let held = Published { limit: 10, ..decided };
        assert_eq!(start(&store, "k", narrower, 16), Ok(Some((Some(decided), held))));
        assert_eq!(read(&store, "k"), Ok(Some(held)));
    }

    #[test]
    fn garbage_or_a_zero_limit_reads_as_none_published() {
        let store = MemStore::default();
        store.set("k", &[0, 0, 0, 0, 1, 0, 0, 0], None).unwrap();
        assert_eq!(read(&store, "k"), Ok(None));
        store.set("k", &[1], None).unwrap();
        assert_eq!(read(&store, "k"), Ok(None));
        assert_eq!(start(&store, "k", B, 5).unwrap().map(|(_, p)| p.limit), Some(5));
    }

    #[test]
    fn rounds_count_up_from_zero() {
        let store = MemStore::default();
        assert_eq!(rounds(&store, "r"), Ok(0));
        bump(&store, "r").unwrap();
        bump(&store, "r").unwrap();
        assert_eq!(rounds(&store, "r"), Ok(2));
    }
}
