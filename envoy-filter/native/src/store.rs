//! The shared counts of every worker thread: one store for the whole Envoy process, with the compare-and-swap
//! contract of Envoy's shared data, which the filter's logic is written against (see
//! `pathfence_envoy_filter::host::SharedStore`).
//!
//! The Wasm build reaches Envoy's shared data through a hostcall; a dynamic module has no such callback in ABI
//! v0.2.0, and needs none: every worker thread runs in the one process that loaded the library, so a map in the
//! library is already shared by all of them.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Values and their tokens. A token is never 0, which the contract reads as "unconditional".
#[derive(Default)]
pub struct Store {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    values: HashMap<String, (Vec<u8>, u32)>,
    last_token: u32,
}

impl Entries {
    fn next_token(&mut self) -> u32 {
        self.last_token = self.last_token.checked_add(1).unwrap_or(1);
        self.last_token
    }
}

impl Store {
    /// The process's store.
    pub fn process() -> &'static Store {
        static STORE: OnceLock<Store> = OnceLock::new();
        STORE.get_or_init(Store::default)
    }

    // A thread that panicked while holding the lock left the map whole (no write is half done), so it is used on.
    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The value and its token, or `None` if the key was never written.
    pub fn get(&self, key: &str) -> Option<(Vec<u8>, u32)> {
        self.lock().values.get(key).cloned()
    }

    /// Writes `value` unless `cas` is a token other than the key's current one; `false` on such a mismatch. As in
    /// Envoy's shared data, `None` (or 0) writes unconditionally, and a key not yet written takes any token.
    pub fn set(&self, key: &str, value: &[u8], cas: Option<u32>) -> bool {
        let mut entries = self.lock();
        let token = entries.next_token();
        match entries.values.get_mut(key) {
            Some(entry) => {
                if cas.is_some_and(|cas| cas != 0 && cas != entry.1) {
                    return false;
                }
                *entry = (value.to_vec(), token);
            }
            None => {
                entries.values.insert(key.to_string(), (value.to_vec(), token));
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::thread;

    fn read(store: &Store, key: &str) -> (u64, Option<u32>) {
        match store.get(key) {
            Some((bytes, token)) => (u64::from_le_bytes(bytes.try_into().unwrap()), Some(token)),
            None => (0, None),
        }
    }

    /// Threads adding one at a time, each retrying until its write holds; with `use_token` false they write
    /// without a token, as a store without compare-and-swap would let them. The final count and the mismatches.
    fn add_concurrently(use_token: bool) -> (u64, u64) {
        const THREADS: u64 = 8;
        const ADDS: u64 = 2000;
        let store = Store::default();
        store.set("count", &0u64.to_le_bytes(), None);
        let mismatches = AtomicU64::new(0);
        thread::scope(|scope| {
            for _ in 0..THREADS {
                scope.spawn(|| {
                    for _ in 0..ADDS {
                        loop {
                            let (count, token) = read(&store, "count");
                            // Widens the window between reading and writing, as the filter's logic has one.
                            thread::yield_now();
                            let cas = if use_token { token } else { None };
                            if store.set("count", &(count + 1).to_le_bytes(), cas) {
                                break;
                            }
                            mismatches.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(THREADS * ADDS, 16_000);
        (read(&store, "count").0, mismatches.into_inner())
    }

    #[test]
    fn concurrent_adds_through_compare_and_swap_lose_none() {
        let (count, mismatches) = add_concurrently(true);
        assert_eq!(count, 16_000);
        assert!(mismatches > 0, "the threads never raced, so this proves nothing");
    }

    #[test]
    fn control_without_the_token_the_same_adds_lose_some() {
        let (count, _) = add_concurrently(false);
        assert!(count < 16_000, "without compare-and-swap every add still held: the test cannot tell");
    }

    #[test]
    fn a_stale_token_is_refused_and_a_missing_key_takes_any() {
        let store = Store::default();
        assert!(store.get("k").is_none());
        assert!(store.set("k", b"a", Some(42)));
        let (_, first) = store.get("k").unwrap();
        assert_ne!(first, 0);
        assert!(store.set("k", b"b", Some(first)));
        assert!(!store.set("k", b"c", Some(first)));
        assert_eq!(store.get("k").unwrap().0, b"b");
        assert!(store.set("k", b"d", None));
        assert!(store.set("k", b"e", Some(0)));
        assert_eq!(store.get("k").unwrap().0, b"e");
    }
}
