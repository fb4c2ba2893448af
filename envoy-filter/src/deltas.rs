//! The metric deltas a worker keeps between two hand-overs to Envoy.
//!
//! A worker adds to its stats in batches (one hostcall per changed stat per flush, not three per request), except
//! where a delta must reach Envoy at once ([`crate::host::Metrics::add_now`]). A delta handed over at once takes the
//! kept deltas of its stat along: a slot's `+1` to `active` may still be kept when its `-1` goes at once, and Envoy's
//! gauges are unsigned, so the `-1` alone would show the gauge 1 below zero, read as 2^64 - 1. Taken together, what
//! Envoy shows of a worker's part of a gauge is exact after each hand-over, and in between lags behind only by
//! what the worker has added since.

use crate::host::Metric;
use crate::per_path::{OfPath, PathIndex};

/// Kept deltas, by path and metric.
#[derive(Debug, Default)]
pub struct Deltas {
    kept: Vec<[i64; Metric::COUNT]>,
}

impl Deltas {
    /// Keeps `delta` for the next hand-over.
    pub fn add(&mut self, path: PathIndex, metric: Metric, delta: i64) {
        if self.kept.len() <= path.0 {
            self.kept.resize(path.0 + 1, [0; Metric::COUNT]);
        }
        if let Some(total) = self.kept.of_mut(path).and_then(|deltas| deltas.get_mut(metric.index())) {
            *total = total.saturating_add(delta);
        }
    }

    /// What to hand over at once for `delta`: `delta` with the stat's kept deltas, which are no longer kept.
    pub fn now(&mut self, path: PathIndex, metric: Metric, delta: i64) -> i64 {
        let kept = self.kept.of_mut(path).and_then(|deltas| deltas.get_mut(metric.index()));
        kept.map_or(delta, |kept| std::mem::take(kept).saturating_add(delta))
    }

    /// The delta kept for a stat.
    pub fn kept(&self, path: PathIndex, metric: Metric) -> i64 {
        self.kept.of(path).and_then(|deltas| deltas.get(metric.index())).copied().unwrap_or(0)
    }

    /// Every non-zero kept delta, which are no longer kept.
    pub fn take_all(&mut self) -> Vec<(PathIndex, Metric, i64)> {
        let mut all = Vec::new();
        for (path, deltas) in self.kept.iter_mut().enumerate() {
            for (metric, delta) in Metric::ALL.iter().zip(deltas.iter_mut()) {
                if *delta != 0 {
                    all.push((PathIndex(path), *metric, std::mem::take(delta)));
                }
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delta_handed_over_at_once_takes_the_kept_deltas_of_its_stat_along() {
        let mut deltas = Deltas::default();
        deltas.add(PathIndex(1), Metric::Active, 1);
        deltas.add(PathIndex(1), Metric::Active, 1);
        deltas.add(PathIndex(1), Metric::Granted, 2);
        deltas.add(PathIndex(0), Metric::Active, 5);
        assert_eq!(deltas.now(PathIndex(1), Metric::Active, -1), 1);
        assert_eq!(deltas.kept(PathIndex(1), Metric::Active), 0);
        assert_eq!(deltas.now(PathIndex(1), Metric::Active, -1), -1);
        assert_eq!(deltas.now(PathIndex(7), Metric::Queued, 3), 3, "nothing kept for that stat");
        assert_eq!(deltas.take_all(), vec![(PathIndex(0), Metric::Active, 5), (PathIndex(1), Metric::Granted, 2)]);
        assert!(deltas.take_all().is_empty());
    }
}
