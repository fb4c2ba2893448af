//! One sampling interval of one path, as sums that add up across workers, and the SCT sample they make.
//!
//! The model's tuple (Q_i, TP_i, RT_i) is a ratio of sums: Q_i = ∫ n(t) dt / I, TP_i = C / I, RT_i = R / C. The
//! sums are what each worker keeps and publishes, because sums of the same interval from several workers simply
//! add, and the path's sample is made from the total; averages from several workers would not combine.

/// The sums of one interval `[start_ns, start_ns + I)`, from one worker or added over several. All integers, so
/// that merging in any order gives exactly the same total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IntervalTotals {
    /// Start of the interval on the clock the workers share, in nanoseconds.
    pub start_ns: u64,
    /// ∫ n(t) dt over the interval, n the requests in service (holding a slot): request-nanoseconds.
    pub in_service_ns: u64,
    /// The same integral for requests waiting for a slot.
    pub waiting_ns: u64,
    /// Requests that finished in the interval.
    pub completions: u64,
    /// Sum of the time in service of those requests, in nanoseconds.
    pub response_ns: u64,
}

impl IntervalTotals {
    /// An interval with nothing in it yet.
    pub fn empty(start_ns: u64) -> IntervalTotals {
        IntervalTotals { start_ns, ..IntervalTotals::default() }
    }

    /// Nothing was in service, waited or finished: the same as no record at all once merged.
    pub fn is_idle(&self) -> bool {
        self.in_service_ns == 0 && self.waiting_ns == 0 && self.completions == 0
    }

    /// Adds another worker's sums of the same interval. Saturates rather than wraps: a record that decoded into
    /// absurd values must not turn the total small.
    pub fn add(&mut self, other: &IntervalTotals) {
        self.in_service_ns = self.in_service_ns.saturating_add(other.in_service_ns);
        self.waiting_ns = self.waiting_ns.saturating_add(other.waiting_ns);
        self.completions = self.completions.saturating_add(other.completions);
        self.response_ns = self.response_ns.saturating_add(other.response_ns);
    }

    /// The SCT sample of this interval, `interval_ns` long.
    pub fn sample(&self, interval_ns: u64) -> Sample {
        let length = interval_ns.max(1) as f64;
        let seconds = length / 1e9;
        let completions = self.completions as f64;
        Sample {
            concurrency: self.in_service_ns as f64 / length,
            throughput: completions / seconds,
            response_time_ms: if self.completions == 0 { 0.0 } else { self.response_ns as f64 / 1e6 / completions },
            waiting: self.waiting_ns as f64 / length,
        }
    }
}

/// One interval of one path in the model's terms (sct-tuner's `Sample` without its timing).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sample {
    /// Q_i: the time-averaged number of requests in service.
    pub concurrency: f64,
    /// TP_i: completions per second.
    pub throughput: f64,
    /// RT_i: mean time in service of the requests that finished in the interval, in milliseconds; 0 if none did.
    pub response_time_ms: f64,
    /// The time-averaged number of requests waiting for a slot.
    pub waiting: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_the_ratio_of_the_sums() {
        let t = IntervalTotals {
            start_ns: 0,
            in_service_ns: 150_000_000,
            waiting_ns: 25_000_000,
            completions: 4,
            response_ns: 120_000_000,
        };
        let s = t.sample(50_000_000);
        assert_eq!(s, Sample { concurrency: 3.0, throughput: 80.0, response_time_ms: 30.0, waiting: 0.5 });
    }

    #[test]
    fn no_completion_means_no_response_time_and_a_zero_interval_divides_by_one() {
        let t = IntervalTotals { in_service_ns: 7, ..IntervalTotals::empty(0) };
        assert_eq!(t.sample(0).response_time_ms, 0.0);
        assert_eq!(t.sample(0).concurrency, 7.0);
    }

    #[test]
    fn adding_saturates() {
        let mut t = IntervalTotals { completions: u64::MAX - 1, ..IntervalTotals::empty(0) };
        t.add(&IntervalTotals { completions: 5, in_service_ns: 3, ..IntervalTotals::empty(0) });
        assert_eq!((t.completions, t.in_service_ns), (u64::MAX, 3));
    }
}
