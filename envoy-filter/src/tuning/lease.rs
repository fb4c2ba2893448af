//! Which worker analyses: the one named in one shared key. It keeps the lease as long as its heartbeat (the one
//! every worker writes for the reclaim of its slots) moves; another worker takes the lease once it has stood
//! still for the worker lease, or once its holder gave it up (a worker that retires or shuts down does).

use crate::cas::{self, Step};
use crate::counters;
use crate::host::{HostError, SharedStore};

fn holder_of(value: Option<&[u8]>) -> Option<u32> {
    value.and_then(|bytes| counters::read_u32(bytes, 0))
}

/// The worker named in the lease, if any.
pub fn holder(store: &dyn SharedStore, key: &str) -> Result<Option<u32>, HostError> {
    Ok(holder_of(store.get(key)?.as_ref().map(|(bytes, _)| bytes.as_slice())))
}

/// Whether `me` holds the lease after this call: it already did, nobody did, or the holder is gone by `is_gone`.
/// Every write is a compare-and-swap on the value read, so of two workers that see the same holder gone, one
/// takes the lease and the other finds it taken.
pub fn take(
    store: &dyn SharedStore,
    key: &str,
    me: u32,
    is_gone: &mut dyn FnMut(u32) -> bool,
) -> Result<bool, HostError> {
    let mine = cas::update(store, key, |value| match holder_of(value) {
        Some(holder) if holder == me => Step::Done(true),
        Some(holder) if !is_gone(holder) => Step::Done(false),
        _ => Step::Write(me.to_le_bytes().to_vec(), true),
    })?;
    Ok(mine.unwrap_or(false))
}

/// Gives the lease up if `me` holds it, so that another worker takes it at its next look rather than a lease later.
pub fn give_up(store: &dyn SharedStore, key: &str, me: u32) -> Result<(), HostError> {
    cas::update(store, key, |value| match holder_of(value) {
        Some(holder) if holder == me => Step::Write(Vec::new(), ()),
        _ => Step::Done(()),
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::MemStore;

    const KEY: &str = "lease";

    #[test]
    fn the_first_worker_takes_it_and_keeps_it_while_it_lives() {
        let store = MemStore::default();
        assert_eq!(take(&store, KEY, 1, &mut |_| false), Ok(true));
        assert_eq!(take(&store, KEY, 2, &mut |_| false), Ok(false));
        assert_eq!(take(&store, KEY, 1, &mut |_| false), Ok(true));
        assert_eq!(holder(&store, KEY), Ok(Some(1)));
    }

    #[test]
    fn a_holder_gone_or_given_up_is_replaced() {
        let store = MemStore::default();
        take(&store, KEY, 1, &mut |_| false).unwrap();
        assert_eq!(take(&store, KEY, 2, &mut |w| w == 1), Ok(true));
        give_up(&store, KEY, 1).unwrap();
        assert_eq!(holder(&store, KEY), Ok(Some(2)), "only the holder gives it up");
        give_up(&store, KEY, 2).unwrap();
        assert_eq!(holder(&store, KEY), Ok(None));
        assert_eq!(take(&store, KEY, 3, &mut |_| false), Ok(true));
    }

    #[test]
    fn of_two_workers_racing_for_a_gone_holder_one_wins() {
        let store = std::rc::Rc::new(MemStore::default());
        take(&*store, KEY, 1, &mut |_| false).unwrap();
        // Worker 3 takes it between worker 2's read and write.
        store.before_next_set(|s| {
            assert_eq!(take(s, KEY, 3, &mut |w| w == 1), Ok(true));
        });
        assert_eq!(take(&*store, KEY, 2, &mut |w| w == 1), Ok(false));
        assert_eq!(holder(&*store, KEY), Ok(Some(3)));
    }
}
