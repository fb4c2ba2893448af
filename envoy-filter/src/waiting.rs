//! Who waits for a slot of a path, shared by all workers, one key per path (`<prefix><path>.waiting`).
//!
//! Each worker publishes how many of its requests wait and when the oldest of them arrived, oldest first. A
//! worker then lets a newcomer go ahead only when nobody waits anywhere, and hands a freed slot to its own first
//! waiter only when no other worker's waiter arrived earlier; otherwise the slot goes back to the shared count
//! at once, for the worker whose waiter has waited longest. The value is one entry per worker:
//! `worker: u32, waiting: u32, listed: u32`, then `listed` arrival times (`u64` ms). Only the oldest
//! [`MAX_LISTED`] are listed: the comparison needs only the waiters older than one given arrival.

use crate::cas::{self, Step};
use crate::counters::{self, read_u32, read_u64};
use crate::host::{HostError, SharedStore};

/// Arrival times listed per worker; a longer queue is summarised by its count.
pub const MAX_LISTED: usize = 16;

/// One worker's waiters of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiters {
    pub worker: u32,
    pub waiting: u32,
    /// Arrival times in ms of the oldest waiters, oldest first.
    pub arrivals_ms: Vec<u64>,
}

pub fn decode(bytes: &[u8]) -> Vec<Waiters> {
    let mut out = Vec::new();
    let mut at = 0;
    while let (Some(worker), Some(waiting), Some(listed)) =
        (read_u32(bytes, at), read_u32(bytes, at + 4), read_u32(bytes, at + 8))
    {
        at += 12;
        let listed = (listed as usize).min(MAX_LISTED);
        if bytes.len() < at + listed * 8 {
            break;
        }
        let arrivals_ms = (0..listed).map(|i| read_u64(bytes, at + i * 8)).collect();
        at += listed * 8;
        out.push(Waiters { worker, waiting, arrivals_ms });
    }
    out
}

pub fn encode(all: &[Waiters]) -> Vec<u8> {
    let mut out = Vec::new();
    for w in all.iter().filter(|w| w.waiting > 0) {
        let listed = w.arrivals_ms.get(..w.arrivals_ms.len().min(MAX_LISTED)).unwrap_or_default();
        out.extend_from_slice(&w.worker.to_le_bytes());
        out.extend_from_slice(&w.waiting.to_le_bytes());
        out.extend_from_slice(&(listed.len() as u32).to_le_bytes());
        for a in listed {
            out.extend_from_slice(&a.to_le_bytes());
        }
    }
    out
}

/// The waiters of every worker but `me`.
pub fn others(store: &dyn SharedStore, key: &str, me: u32) -> Result<Vec<Waiters>, HostError> {
    let all = store.get(key)?.map(|(bytes, _)| decode(&bytes)).unwrap_or_default();
    Ok(all.into_iter().filter(|w| w.worker != me).collect())
}

/// Replaces `mine.worker`'s entry: how many waiters the entry it replaced listed (0 if there was none), or `None`
/// if contended.
pub fn publish(store: &dyn SharedStore, key: &str, mine: &Waiters) -> Result<Option<u32>, HostError> {
    cas::update(store, key, |value| {
        let mut all = value.map(decode).unwrap_or_default();
        let before = all.iter().find(|w| w.worker == mine.worker).map_or(0, |w| w.waiting);
        all.retain(|w| w.worker != mine.worker);
        all.push(mine.clone());
        Step::Write(encode(&all), before)
    })
}

/// Removes the entries of every worker `is_gone` names and returns them.
pub fn reclaim(
    store: &dyn SharedStore,
    key: &str,
    is_gone: &mut dyn FnMut(u32) -> bool,
) -> Result<Vec<Waiters>, HostError> {
    counters::remove_gone(store, key, decode, encode, |w| w.worker, is_gone)
}

/// How many waiters of other workers arrived before `arrival_ms`, counting only those that arrived at or after
/// `live_since_ms` (older ones are past their timeout: their worker refuses them, or it went away). A queue
/// longer than its listed part counts whole once every listed waiter is older.
pub fn older_than(others: &[Waiters], arrival_ms: u64, live_since_ms: u64) -> u64 {
    let mut older = 0u64;
    for w in others {
        let live = w.arrivals_ms.iter().filter(|a| **a >= live_since_ms);
        let listed_older = live.clone().filter(|a| **a < arrival_ms).count();
        older += listed_older as u64;
        if listed_older > 0 && listed_older == live.count() && w.arrivals_ms.len() == MAX_LISTED {
            older += u64::from(w.waiting).saturating_sub(MAX_LISTED as u64);
        }
    }
    older
}

/// Whether any other worker has a waiter.
pub fn any(others: &[Waiters]) -> bool {
    others.iter().any(|w| w.waiting > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::MemStore;

    fn waiters(worker: u32, arrivals_ms: &[u64]) -> Waiters {
        Waiters { worker, waiting: arrivals_ms.len() as u32, arrivals_ms: arrivals_ms.to_vec() }
    }

    #[test]
    fn entries_round_trip_and_empty_ones_are_dropped() {
        let all = vec![waiters(1, &[5, 7]), waiters(2, &[]), waiters(3, &[9])];
        assert_eq!(decode(&encode(&all)), vec![waiters(1, &[5, 7]), waiters(3, &[9])]);
    }

    #[test]
    fn each_worker_replaces_only_its_own_entry() {
        let s = MemStore::default();
        assert_eq!(publish(&s, "w", &waiters(1, &[10])).unwrap(), Some(0));
        assert_eq!(publish(&s, "w", &waiters(2, &[11, 12])).unwrap(), Some(0));
        assert_eq!(publish(&s, "w", &waiters(1, &[])).unwrap(), Some(1), "it replaced an entry of one waiter");
        assert_eq!(others(&s, "w", 9).unwrap(), vec![waiters(2, &[11, 12])]);
        assert_eq!(others(&s, "w", 2).unwrap(), vec![]);
    }

    #[test]
    fn only_live_waiters_that_came_earlier_count_as_older() {
        let others = vec![waiters(2, &[100, 200, 300])];
        assert_eq!(older_than(&others, 250, 0), 2);
        assert_eq!(older_than(&others, 250, 150), 1);
        assert_eq!(older_than(&others, 100, 0), 0);
    }

    #[test]
    fn a_long_queue_counts_whole_once_its_listed_part_is_older() {
        let listed: Vec<u64> = (0..MAX_LISTED as u64).collect();
        let others = vec![Waiters { worker: 2, waiting: 40, arrivals_ms: listed }];
        assert_eq!(older_than(&others, 1000, 0), 40);
        assert_eq!(older_than(&others, 3, 0), 3);
    }

    #[test]
    fn reclaim_drops_the_gone_workers_entries() {
        let s = MemStore::default();
        publish(&s, "w", &waiters(1, &[10])).unwrap();
        publish(&s, "w", &waiters(2, &[11])).unwrap();
        assert_eq!(reclaim(&s, "w", &mut |w| w == 1).unwrap(), vec![waiters(1, &[10])]);
        assert_eq!(others(&s, "w", 9).unwrap(), vec![waiters(2, &[11])]);
    }
}
