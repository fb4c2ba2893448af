//! A path's index, and per-path values read and written by it without a panic: an index beyond the configuration
//! reads as empty (0, false, `None`) and writes nowhere. Every index comes from the configuration the values were
//! made for, so that never happens; but nothing in the data path may panic, since a panic aborts the worker's VM
//! and every stream on it (`clippy::indexing_slicing` is denied outside tests).

use std::fmt;

/// A path's place in the configuration, [`crate::config::Config::reservations`]: the configured paths in match
/// order, then the local path. Its reservation, its shared keys, its stats and every per-path value of a worker are
/// found by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PathIndex(pub usize);

impl PathIndex {
    /// Every path of a configuration of `paths` paths, in order.
    pub fn all(paths: usize) -> impl Iterator<Item = PathIndex> {
        (0..paths).map(PathIndex)
    }
}

impl fmt::Display for PathIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Values kept per path, read by copy.
pub trait PerPath<T> {
    /// The value of `path`, or the default for an index out of range.
    fn at(&self, path: PathIndex) -> T;
    /// Sets the value of `path`; nothing for an index out of range.
    fn put(&mut self, path: PathIndex, value: T);
    /// Replaces the value of `path` by `f` of it; nothing for an index out of range.
    fn update(&mut self, path: PathIndex, f: impl FnOnce(T) -> T);
}

impl<T: Copy + Default> PerPath<T> for [T] {
    fn at(&self, path: PathIndex) -> T {
        self.get(path.0).copied().unwrap_or_default()
    }

    fn put(&mut self, path: PathIndex, value: T) {
        if let Some(slot) = self.get_mut(path.0) {
            *slot = value;
        }
    }

    fn update(&mut self, path: PathIndex, f: impl FnOnce(T) -> T) {
        if let Some(slot) = self.get_mut(path.0) {
            *slot = f(*slot);
        }
    }
}

/// Values kept per path, read by reference.
pub trait OfPath<T> {
    /// The value of `path`; `None` for an index out of range.
    fn of(&self, path: PathIndex) -> Option<&T>;
    fn of_mut(&mut self, path: PathIndex) -> Option<&mut T>;
}

impl<T> OfPath<T> for [T] {
    fn of(&self, path: PathIndex) -> Option<&T> {
        self.get(path.0)
    }

    fn of_mut(&mut self, path: PathIndex) -> Option<&mut T> {
        self.get_mut(path.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_out_of_range_reads_empty_and_writes_nowhere() {
        let mut counts = vec![1u32, 2];
        counts.put(PathIndex(1), 5);
        counts.put(PathIndex(2), 9);
        counts.update(PathIndex(0), |n| n + 1);
        counts.update(PathIndex(7), |n| n + 1);
        assert_eq!((counts.at(PathIndex(0)), counts.at(PathIndex(1)), counts.at(PathIndex(2))), (2, 5, 0));
        assert_eq!(counts, vec![2, 5]);
        assert_eq!((counts.of(PathIndex(1)), counts.of(PathIndex(2))), (Some(&5), None));
    }
}
