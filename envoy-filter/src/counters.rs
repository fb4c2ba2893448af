//! In-flight counts shared by all worker threads, one key per reservation.
//!
//! The value lists each worker's share, `(worker id, count)` pairs, so the total is their sum and the share of a
//! worker that went away can be removed without guessing. Every change is one compare-and-swap on the whole value.

use crate::cas::{self, token, Step};
use crate::host::{HostError, SharedStore};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquire {
    Granted,
    Full,
    /// Other workers kept winning the race; try again later.
    Contended,
}

pub fn decode(bytes: &[u8]) -> Vec<(u32, u32)> {
    bytes.chunks_exact(8).filter_map(|c| Some((read_u32(c, 0)?, read_u32(c, 4)?))).collect()
}

pub fn encode(shares: &[(u32, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(shares.len() * 8);
    for (w, n) in shares.iter().filter(|(_, n)| *n > 0) {
        out.extend_from_slice(&w.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
    }
    out
}

/// Each worker's share of a reservation: `(worker id, slots held)`.
pub type Shares = Vec<(u32, u32)>;

fn read(store: &dyn SharedStore, key: &str) -> Result<(Shares, Option<u32>), HostError> {
    Ok(match store.get(key)? {
        Some((bytes, cas)) => (decode(&bytes), Some(cas)),
        None => (Vec::new(), None),
    })
}

pub fn total(shares: &[(u32, u32)]) -> u64 {
    shares.iter().map(|(_, n)| u64::from(*n)).sum()
}

/// The current total of a reservation, across workers.
pub fn load(store: &dyn SharedStore, key: &str) -> Result<u64, HostError> {
    Ok(total(&read(store, key)?.0))
}

/// Creates the key empty if it is missing, so the first request does not race on creating it. A worker that
/// creates it at the same moment as another, or after another already counted in it, leaves it as it is.
pub fn create(store: &dyn SharedStore, key: &str) -> Result<(), HostError> {
    if store.get(key)?.is_none() {
        store.set(key, &[], token(None))?;
    }
    Ok(())
}

/// Takes one slot for `worker` if the total is below `limit`.
pub fn try_acquire(store: &dyn SharedStore, key: &str, worker: u32, limit: u32) -> Result<Acquire, HostError> {
    let acquired = cas::update(store, key, |value| {
        let mut shares = value.map(decode).unwrap_or_default();
        if total(&shares) >= u64::from(limit) {
            return Step::Done(Acquire::Full);
        }
        match shares.iter_mut().find(|(w, _)| *w == worker) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => shares.push((worker, 1)),
        }
        Step::Write(encode(&shares), Acquire::Granted)
    })?;
    Ok(acquired.unwrap_or(Acquire::Contended))
}

/// Gives back `count` slots of `worker`: how many left the shared count, or `None` if contended. A worker never
/// goes below zero, so a share that was reclaimed while the worker was thought gone is not released twice, and
/// the caller learns that fewer slots left than it gave back (the reclaim already took the rest off `active`).
pub fn release(store: &dyn SharedStore, key: &str, worker: u32, count: u32) -> Result<Option<u32>, HostError> {
    cas::update(store, key, |value| {
        let mut shares = value.map(decode).unwrap_or_default();
        let Some(entry) = shares.iter_mut().find(|(w, _)| *w == worker) else {
            return Step::Done(0);
        };
        let left = entry.1.min(count);
        entry.1 -= left;
        Step::Write(encode(&shares), left)
    })
}

/// Sets `worker`'s share to `count`, whatever it was: how a worker puts back what it holds after another worker
/// reclaimed its share while it stalled past its lease. Returns the share it replaced, or `None` if contended. No
/// limit applies: the slots are in use, and until enough of them end the path takes no new request.
pub fn set_share(store: &dyn SharedStore, key: &str, worker: u32, count: u32) -> Result<Option<u32>, HostError> {
    cas::update(store, key, |value| {
        let mut shares = value.map(decode).unwrap_or_default();
        let before = shares.iter().find(|(w, _)| *w == worker).map_or(0, |(_, n)| *n);
        if before == count {
            return Step::Done(before);
        }
        shares.retain(|(w, _)| *w != worker);
        shares.push((worker, count));
        Step::Write(encode(&shares), before)
    })
}

/// Removes the shares of every worker `is_gone` names and returns what was removed.
pub fn reclaim(
    store: &dyn SharedStore,
    key: &str,
    is_gone: &mut dyn FnMut(u32) -> bool,
) -> Result<Vec<(u32, u32)>, HostError> {
    remove_gone(store, key, decode, encode, |(w, _)| *w, is_gone)
}

/// Removes, in one compare-and-swap, the entries of a per-worker list whose worker `is_gone` names, and returns
/// them: how both the in-flight shares and the waiters of a worker that went away are taken back.
pub fn remove_gone<T>(
    store: &dyn SharedStore,
    key: &str,
    decode: fn(&[u8]) -> Vec<T>,
    encode: fn(&[T]) -> Vec<u8>,
    worker_of: fn(&T) -> u32,
    is_gone: &mut dyn FnMut(u32) -> bool,
) -> Result<Vec<T>, HostError> {
    let removed = cas::update(store, key, |value| {
        let Some(bytes) = value else { return Step::Done(Vec::new()) };
        let (gone, kept): (Vec<T>, Vec<T>) = decode(bytes).into_iter().partition(|e| is_gone(worker_of(e)));
        if gone.is_empty() {
            Step::Done(gone)
        } else {
            Step::Write(encode(&kept), gone)
        }
    })?;
    Ok(removed.unwrap_or_default())
}

/// Adds one to a plain `u64` counter key and returns the new value (used to hand out worker ids).
pub fn increment(store: &dyn SharedStore, key: &str) -> Result<Option<u64>, HostError> {
    // Of two workers that both read the key as missing, one creates it and the other loses and counts on.
    cas::update(store, key, |value| {
        let next = value.map_or(0, |bytes| read_u64(bytes, 0)).saturating_add(1);
        Step::Write(next.to_le_bytes().to_vec(), next)
    })
}

/// Reads the little-endian `u64` at `offset`, 0 if the bytes are short.
pub fn read_u64(bytes: &[u8], offset: usize) -> u64 {
    bytes
        .get(offset..offset.saturating_add(8))
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0)
}

/// Reads the little-endian `u32` at `offset`, if the bytes hold one there.
pub fn read_u32(bytes: &[u8], offset: usize) -> Option<u32> {
    bytes.get(offset..offset.saturating_add(4)).and_then(|b| <[u8; 4]>::try_from(b).ok()).map(u32::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;
    use crate::testing::MemStore;

    #[test]
    fn shares_round_trip_and_zero_shares_are_dropped() {
        let bytes = encode(&[(1, 2), (7, 0), (9, 5)]);
        assert_eq!(decode(&bytes), vec![(1, 2), (9, 5)]);
    }

    #[test]
    fn acquire_stops_at_the_limit_across_workers() {
        let s = MemStore::default();
        create(&s, "k").unwrap();
        assert_eq!(try_acquire(&s, "k", 1, 3).unwrap(), Acquire::Granted);
        assert_eq!(try_acquire(&s, "k", 2, 3).unwrap(), Acquire::Granted);
        assert_eq!(try_acquire(&s, "k", 2, 3).unwrap(), Acquire::Granted);
        assert_eq!(try_acquire(&s, "k", 1, 3).unwrap(), Acquire::Full);
        assert_eq!(release(&s, "k", 2, 1).unwrap(), Some(1));
        assert_eq!(load(&s, "k").unwrap(), 2);
        assert_eq!(try_acquire(&s, "k", 1, 3).unwrap(), Acquire::Granted);
    }

    #[test]
    fn a_release_never_takes_another_workers_share() {
        let s = MemStore::default();
        try_acquire(&s, "k", 1, 9).unwrap();
        assert_eq!(release(&s, "k", 2, 1).unwrap(), Some(0), "worker 2 has no share");
        assert_eq!(release(&s, "k", 1, 5).unwrap(), Some(1), "worker 1 had one slot, not five");
        assert_eq!(load(&s, "k").unwrap(), 0);
    }

    #[test]
    fn reclaim_removes_only_the_gone_workers() {
        let s = MemStore::default();
        for _ in 0..3 {
            try_acquire(&s, "k", 4, 9).unwrap();
        }
        try_acquire(&s, "k", 5, 9).unwrap();
        let gone = reclaim(&s, "k", &mut |w| w == 4).unwrap();
        assert_eq!(gone, vec![(4, 3)]);
        assert_eq!(load(&s, "k").unwrap(), 1);
    }

    #[test]
    fn set_share_replaces_one_workers_share_beyond_the_limit_and_says_what_it_was() {
        let s = MemStore::default();
        try_acquire(&s, "k", 1, 2).unwrap();
        try_acquire(&s, "k", 2, 2).unwrap();
        assert_eq!(set_share(&s, "k", 1, 3).unwrap(), Some(1));
        assert_eq!(load(&s, "k").unwrap(), 4, "no limit: the slots are in use");
        assert_eq!(set_share(&s, "k", 3, 2).unwrap(), Some(0), "a worker with no entry had none");
        assert_eq!(set_share(&s, "k", 2, 0).unwrap(), Some(1));
        assert_eq!(decode(&s.get("k").unwrap().unwrap().0), vec![(1, 3), (3, 2)]);
        let writes = s.writes();
        assert_eq!(set_share(&s, "k", 1, 3).unwrap(), Some(3));
        assert_eq!(s.writes(), writes, "an unchanged share is not written");
    }

    #[test]
    fn a_lost_race_is_retried() {
        let s = MemStore::default();
        create(&s, "k").unwrap();
        s.fail_next_cas(3);
        assert_eq!(try_acquire(&s, "k", 1, 1).unwrap(), Acquire::Granted);
        s.fail_next_cas(crate::cas::MAX_CAS_TRIES);
        assert_eq!(release(&s, "k", 1, 1).unwrap(), None);
        assert_eq!(release(&s, "k", 1, 1).unwrap(), Some(1));
    }

    #[test]
    fn increment_hands_out_distinct_values() {
        let s = MemStore::default();
        assert_eq!(increment(&s, "ids").unwrap(), Some(1));
        assert_eq!(increment(&s, "ids").unwrap(), Some(2));
    }

    #[test]
    fn two_workers_taking_an_id_at_the_same_moment_get_different_ids() {
        let s = MemStore::default();
        let other = Rc::new(Cell::new(None));
        let seen = Rc::clone(&other);
        // The other worker reads and writes the missing key between this worker's read and its write.
        s.before_next_set(move |s| seen.set(increment(s, "ids").unwrap()));
        let mine = increment(&s, "ids").unwrap();
        assert_eq!(other.get(), Some(1));
        assert_eq!(mine, Some(2));
    }

    #[test]
    fn creating_a_key_another_worker_already_counted_in_keeps_the_count() {
        let s = MemStore::default();
        s.before_next_set(|s| {
            create(s, "k").unwrap();
            try_acquire(s, "k", 7, 9).unwrap();
        });
        create(&s, "k").unwrap();
        assert_eq!(load(&s, "k").unwrap(), 1);
    }
}
