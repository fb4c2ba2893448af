//! The stream whose callback is running on a fence's thread: the stats change through it.

use std::cell::Cell;

use crate::abi::FilterEnvoyPtr;

/// Null when no stream's callback is running, or when the one that was has ended since: Envoy destroys a stream
/// within the callback that refuses it, which may be that stream's own (a tick posted to the stream that times out).
pub struct Current {
    filter: Cell<FilterEnvoyPtr>,
}

impl Default for Current {
    fn default() -> Current {
        Current { filter: Cell::new(std::ptr::null_mut()) }
    }
}

impl Current {
    pub fn get(&self) -> FilterEnvoyPtr {
        self.filter.get()
    }

    /// Runs `f` with `filter` as the current stream; afterwards the stream before is current again if `live` says
    /// it still is, and none otherwise.
    pub fn within<T>(
        &self,
        filter: FilterEnvoyPtr,
        live: impl FnOnce(FilterEnvoyPtr) -> bool,
        f: impl FnOnce() -> T,
    ) -> T {
        let before = self.filter.replace(filter);
        let result = f();
        self.filter.set(if before.is_null() || live(before) { before } else { std::ptr::null_mut() });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(n: usize) -> FilterEnvoyPtr {
        n as FilterEnvoyPtr
    }

    #[test]
    fn a_stream_that_ends_within_a_nested_callback_is_current_no_more() {
        let current = Current::default();
        current.within(
            filter(1),
            |_| true,
            || {
                // Stream 1 is refused and ends: its end runs as a nested callback.
                current.within(filter(1), |_| false, || assert_eq!(current.get(), filter(1)));
                assert!(current.get().is_null(), "the ended stream is not current after its end");
            },
        );
        assert!(current.get().is_null());
    }

    #[test]
    fn a_stream_still_live_is_current_again_after_a_nested_callback() {
        // The control: the same nesting with the outer stream live.
        let current = Current::default();
        current.within(
            filter(1),
            |_| true,
            || {
                current.within(filter(2), |before| before == filter(1), || assert_eq!(current.get(), filter(2)));
                assert_eq!(current.get(), filter(1));
            },
        );
        assert!(current.get().is_null());
    }
}
