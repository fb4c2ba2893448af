//! Which paths have requests waiting, on which worker: one key for all paths (`<prefix>waiting_paths`).
//!
//! A worker's tick must know, for every path, whether another worker has waiters, so that newcomers queue behind
//! them and freed slots go to them. Reading every path's waiting list on every tick cost in proportion to the
//! number of paths, waiters or not: 2,000 paths took most of a core while one request waited. So each worker also
//! lists here the paths it has waiters for, and a tick reads this one key, then the waiting lists of the paths it
//! names: the tick's cost follows the paths that have waiters.
//!
//! A worker lists a path here before its waiters appear in the path's list and unlists it after they left it, so a
//! path whose list names waiters is listed here (unless a write lost its race; the worker tries again on its next
//! tick). Paths are named by a 64-bit hash of their name, which workers of every configuration share: a collision
//! only makes a worker read a list that has no waiters. The value is one entry per worker: `worker: u32,
//! listed: u32`, then `listed` hashes (`u64`).

use crate::cas::{self, Step};
use crate::counters::{self, read_u32, read_u64};
use crate::host::{HostError, SharedStore};

/// One worker's paths with waiters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub worker: u32,
    pub paths: Vec<u64>,
}

/// FNV-1a, 64 bits: stable across builds and machines, unlike std's hasher, since workers of several builds may
/// share the key during an upgrade.
pub fn path_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

pub fn decode(bytes: &[u8]) -> Vec<Listed> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while let (Some(worker), Some(listed)) = (read_u32(bytes, at), read_u32(bytes, at.saturating_add(4))) {
        at = at.saturating_add(8);
        let Some(end) = (listed as usize).checked_mul(8).and_then(|n| n.checked_add(at)) else { break };
        if bytes.len() < end {
            break;
        }
        let paths = (0..listed as usize).map(|i| read_u64(bytes, at + i * 8)).collect();
        at = end;
        out.push(Listed { worker, paths });
    }
    out
}

pub fn encode(all: &[Listed]) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in all.iter().filter(|e| !e.paths.is_empty()) {
        out.extend_from_slice(&entry.worker.to_le_bytes());
        out.extend_from_slice(&(entry.paths.len() as u32).to_le_bytes());
        for hash in &entry.paths {
            out.extend_from_slice(&hash.to_le_bytes());
        }
    }
    out
}

/// The paths every worker but `me` lists.
pub fn others(store: &dyn SharedStore, key: &str, me: u32) -> Result<Vec<u64>, HostError> {
    let all = store.get(key)?.map(|(bytes, _)| decode(&bytes)).unwrap_or_default();
    Ok(all.into_iter().filter(|e| e.worker != me).flat_map(|e| e.paths).collect())
}

/// Replaces `mine.worker`'s entry; `false` if other workers kept winning the race.
pub fn publish(store: &dyn SharedStore, key: &str, mine: &Listed) -> Result<bool, HostError> {
    let listed = cas::update(store, key, |value| {
        let mut all = value.map(decode).unwrap_or_default();
        if all.iter().any(|e| e == mine) || (mine.paths.is_empty() && all.iter().all(|e| e.worker != mine.worker)) {
            return Step::Done(true);
        }
        all.retain(|e| e.worker != mine.worker);
        all.push(mine.clone());
        Step::Write(encode(&all), true)
    })?;
    Ok(listed.unwrap_or(false))
}

/// Removes the entries of every worker `is_gone` names.
pub fn reclaim(store: &dyn SharedStore, key: &str, is_gone: &mut dyn FnMut(u32) -> bool) -> Result<(), HostError> {
    counters::remove_gone(store, key, decode, encode, |e| e.worker, is_gone).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::MemStore;

    fn listed(worker: u32, paths: &[u64]) -> Listed {
        Listed { worker, paths: paths.to_vec() }
    }

    #[test]
    fn entries_round_trip_and_empty_ones_are_dropped() {
        let all = vec![listed(1, &[5, 7]), listed(2, &[]), listed(3, &[u64::MAX])];
        assert_eq!(decode(&encode(&all)), vec![listed(1, &[5, 7]), listed(3, &[u64::MAX])]);
        assert_eq!(decode(&encode(&all)[..19]), Vec::<Listed>::new(), "an entry cut short is dropped");
    }

    #[test]
    fn each_worker_replaces_only_its_own_entry_and_an_unchanged_one_is_not_written() {
        let s = MemStore::default();
        assert!(publish(&s, "k", &listed(1, &[10])).unwrap());
        assert!(publish(&s, "k", &listed(2, &[11, 12])).unwrap());
        assert_eq!(others(&s, "k", 1).unwrap(), vec![11, 12]);
        let writes = s.writes();
        assert!(publish(&s, "k", &listed(2, &[11, 12])).unwrap());
        assert!(publish(&s, "k", &listed(3, &[])).unwrap());
        assert_eq!(s.writes(), writes);
        assert!(publish(&s, "k", &listed(2, &[])).unwrap());
        assert_eq!(others(&s, "k", 1).unwrap(), Vec::<u64>::new());
        assert_eq!(others(&s, "k", 2).unwrap(), vec![10]);
    }

    #[test]
    fn reclaim_drops_the_gone_workers_entries() {
        let s = MemStore::default();
        publish(&s, "k", &listed(1, &[10])).unwrap();
        publish(&s, "k", &listed(2, &[11])).unwrap();
        reclaim(&s, "k", &mut |w| w == 1).unwrap();
        assert_eq!(others(&s, "k", 9).unwrap(), vec![11]);
    }

    #[test]
    fn names_hash_apart_and_the_same_on_every_machine() {
        assert_eq!(path_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(path_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(path_hash("orders"), path_hash("order"));
    }
}
