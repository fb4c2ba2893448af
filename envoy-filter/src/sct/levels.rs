//! Step one of the analysis: samples grouped by concurrency level, with each level's throughput statistics.
//!
//! Sample i falls on level `w · round(Q_i / w)` (w the level width); level 0, an idle interval, on none. Walking
//! up from the lowest level, neighbouring levels are pooled until the group holds `min_samples_per_level`
//! samples; the group then stands at the sample-weighted mean of its levels, rounded to the width. When a load
//! swings between light and pinned, the transitions leave many levels with a sample or two: pooling them keeps
//! what they measured, where dropping them would let a plateau bridge levels that were never measured. Every group
//! but a last short one qualifies.

use super::interval::Sample;

/// What the analysis saw on one level, or on a group of sparse neighbouring levels.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// Where the group stands.
    pub level: u32,
    /// Its lowest and highest level.
    pub from: u32,
    pub to: u32,
    pub samples: usize,
    /// TP_n: the mean throughput of its samples, per second.
    pub mean_throughput: f64,
    /// SE_n²: the squared standard error of that mean (sample variance over the count; 0 for one sample).
    pub squared_error: f64,
    /// RT_n: the mean response time of the requests that finished in its samples (throughput-weighted), ms.
    pub mean_response_time_ms: f64,
    pub mean_waiting: f64,
    /// Whether it has enough samples to take part in the decision.
    pub qualified: bool,
    /// Its samples are `order[first..end]` of the grouping.
    first: usize,
    end: usize,
}

/// Reusable buffers of the grouping, so that analysing a window allocates only while they grow.
#[derive(Debug, Default)]
pub struct Grouping {
    /// (level, sample index), sorted: the samples of a group are consecutive here.
    order: Vec<(u32, usize)>,
    levels: Vec<Level>,
}

impl Grouping {
    /// Groups `samples` into [`Grouping::levels`].
    pub fn group(&mut self, samples: &[Sample], width: u32, min_samples: u32) {
        let width = width.max(1);
        let w = f64::from(width);
        self.order.clear();
        self.levels.clear();
        for (i, s) in samples.iter().enumerate() {
            // `as` saturates, and takes NaN to 0.
            let level = ((s.concurrency / w).round() * w) as u32;
            if level > 0 {
                self.order.push((level, i));
            }
        }
        self.order.sort_unstable();
        let mut first = 0;
        let mut end = 0;
        for same_level in self.order.chunk_by(|a, b| a.0 == b.0) {
            end += same_level.len();
            if end - first >= min_samples as usize || end == self.order.len() {
                let qualified = end - first >= min_samples as usize;
                let group = self.order.get(first..end).unwrap_or_default();
                self.levels.push(stats(group, samples, width, first, qualified));
                first = end;
            }
        }
    }

    /// The levels of the last grouping in increasing order: the qualified ones, then at most one that is not.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// The mean throughput of the samples of levels `from..=to` (indices into the levels returned).
    pub fn mean_throughput(&self, samples: &[Sample], from: usize, to: usize) -> f64 {
        let (Some(low), Some(high)) = (self.levels.get(from), self.levels.get(to)) else { return 0.0 };
        let pooled = self.order.get(low.first..high.end).unwrap_or(&[]);
        mean(pooled.iter().filter_map(|&(_, i)| samples.get(i)).map(|s| s.throughput), pooled.len())
    }
}

fn mean(values: impl Iterator<Item = f64>, count: usize) -> f64 {
    if count == 0 {
        0.0
    } else {
        values.sum::<f64>() / count as f64
    }
}

fn stats(group: &[(u32, usize)], samples: &[Sample], width: u32, first: usize, qualified: bool) -> Level {
    let k = group.len();
    let of = |f: fn(&Sample) -> f64| group.iter().filter_map(|&(_, i)| samples.get(i)).map(f);
    let mean_throughput = mean(of(|s| s.throughput), k);
    let squared_error = if k < 2 {
        0.0
    } else {
        let m2: f64 = of(|s| s.throughput).map(|tp| (tp - mean_throughput).powi(2)).sum();
        m2 / (k - 1) as f64 / k as f64
    };
    let completed: f64 = of(|s| s.throughput).sum();
    let mean_response_time_ms =
        if completed == 0.0 { 0.0 } else { of(|s| s.throughput * s.response_time_ms).sum::<f64>() / completed };
    let raw_levels: u64 = group.iter().map(|&(level, _)| u64::from(level)).sum();
    let w = f64::from(width);
    let level = ((raw_levels as f64 / k as f64 / w).round() * w) as u32;
    Level {
        level,
        from: group.first().map_or(0, |g| g.0),
        to: group.last().map_or(0, |g| g.0),
        samples: k,
        mean_throughput,
        squared_error,
        mean_response_time_ms,
        mean_waiting: mean(of(|s| s.waiting), k),
        qualified,
        first,
        end: first + k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(q: f64, tp: f64) -> Sample {
        Sample { concurrency: q, throughput: tp, response_time_ms: 10.0, waiting: 0.0 }
    }

    #[test]
    fn sparse_levels_pool_until_a_group_is_full_and_a_short_tail_does_not_qualify() {
        let samples = [
            at(1.0, 10.0),
            at(2.2, 20.0),
            at(1.6, 30.0),
            at(3.0, 30.0),
            at(3.1, 30.0),
            at(2.6, 31.0),
            at(0.4, 99.0),
            at(7.0, 70.0),
        ];
        let mut g = Grouping::default();
        g.group(&samples, 1, 3);
        let levels = g.levels();
        let shape: Vec<_> = levels.iter().map(|l| (l.level, l.from, l.to, l.samples, l.qualified)).collect();
        // Level 1 (one sample) pools with level 2 (two), standing at round(5 / 3) = 2; then level 3; 7 alone.
        assert_eq!(shape, vec![(2, 1, 2, 3, true), (3, 3, 3, 3, true), (7, 7, 7, 1, false)]);
        assert_eq!(levels[0].mean_throughput, 20.0);
        // Level 3: 30, 30, 31: the variance is (1/9 + 1/9 + 4/9) / 2 = 1/3, over 3 samples.
        assert!((levels[1].squared_error - 1.0 / 9.0).abs() < 1e-12, "{}", levels[1].squared_error);
        assert_eq!(g.mean_throughput(&samples, 0, 1), (10.0 + 20.0 + 30.0 + 30.0 + 30.0 + 31.0) / 6.0);
    }

    #[test]
    fn response_time_is_weighted_by_completions_and_idle_samples_fall_on_no_level() {
        let samples = [
            Sample { concurrency: 4.0, throughput: 100.0, response_time_ms: 10.0, waiting: 1.0 },
            Sample { concurrency: 4.0, throughput: 300.0, response_time_ms: 30.0, waiting: 3.0 },
            Sample { concurrency: 4.0, throughput: 0.0, response_time_ms: 0.0, waiting: 2.0 },
            Sample { concurrency: 0.3, throughput: 0.0, response_time_ms: 0.0, waiting: 0.0 },
        ];
        let mut g = Grouping::default();
        g.group(&samples, 1, 1);
        let levels = g.levels();
        assert_eq!(levels.len(), 1);
        assert_eq!(levels[0].mean_response_time_ms, (100.0 * 10.0 + 300.0 * 30.0) / 400.0);
        assert_eq!(levels[0].mean_waiting, 2.0);
    }

    #[test]
    fn a_width_groups_on_its_multiples() {
        let samples = [at(12.4, 1.0), at(13.9, 1.0), at(14.1, 1.0), at(1.9, 1.0), at(f64::NAN, 1.0)];
        let mut g = Grouping::default();
        g.group(&samples, 4, 1);
        let levels: Vec<u32> = g.levels().iter().map(|l| l.level).collect();
        assert_eq!(levels, vec![12, 16], "1.9 rounds to 0, NaN is no level");
    }
}
