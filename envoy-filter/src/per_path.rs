//! Per-path values, read and written by a path's index without a panic: an index beyond the configuration reads
//! as empty (0, false) and writes nowhere. Every index comes from the configuration the values were made for, so
//! that never happens; but nothing in the data path may panic, since a panic aborts the worker's VM and every
//! stream on it (`clippy::indexing_slicing` is denied outside tests).

pub trait PerPath<T> {
    /// The value of `path`, or the default for an index out of range.
    fn at(&self, path: usize) -> T;
    /// Sets the value of `path`; nothing for an index out of range.
    fn put(&mut self, path: usize, value: T);
    /// Replaces the value of `path` by `f` of it; nothing for an index out of range.
    fn update(&mut self, path: usize, f: impl FnOnce(T) -> T);
}

impl<T: Copy + Default> PerPath<T> for [T] {
    fn at(&self, path: usize) -> T {
        self.get(path).copied().unwrap_or_default()
    }

    fn put(&mut self, path: usize, value: T) {
        if let Some(slot) = self.get_mut(path) {
            *slot = value;
        }
    }

    fn update(&mut self, path: usize, f: impl FnOnce(T) -> T) {
        if let Some(slot) = self.get_mut(path) {
            *slot = f(*slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_out_of_range_reads_empty_and_writes_nowhere() {
        let mut counts = vec![1u32, 2];
        counts.put(1, 5);
        counts.put(2, 9);
        counts.update(0, |n| n + 1);
        counts.update(7, |n| n + 1);
        assert_eq!((counts.at(0), counts.at(1), counts.at(2)), (2, 5, 0));
        assert_eq!(counts, vec![2, 5]);
    }
}
