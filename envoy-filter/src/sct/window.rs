//! The analysing worker's window: the last intervals of one path, each the sum of what every worker published
//! for it.
//!
//! Intervals are numbered on the clock the workers share (`start = phase + k · I`); a record lands in the slot of
//! its interval, whichever worker sent it and in whatever order records arrive. An interval nobody published is
//! one in which no worker had anything in service, waiting or finishing: it reads as an idle sample. The ring
//! holds the analysed window plus a few intervals of lag, so that records of the newest intervals can still
//! arrive while older ones are analysed.

use super::interval::{IntervalTotals, Sample};
use super::wire::WorkerInterval;

/// Why a record was not merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// It was cut with another interval length.
    OtherInterval,
    /// Its interval does not start on this window's boundaries.
    Misaligned,
    /// Its interval starts after the time it was merged at: no worker closes an interval before it begins.
    FromTheFuture,
    /// Its interval already left the window.
    TooOld,
}

#[derive(Debug)]
pub struct SampleWindow {
    interval_ns: u64,
    phase_ns: u64,
    /// How many intervals one analysis looks at.
    analysed: u64,
    /// The first interval this window reports: the one it started in.
    first: u64,
    /// The newest interval a record has reached, if any.
    newest: Option<u64>,
    slots: Box<[IntervalTotals]>,
}

impl SampleWindow {
    /// A window of `analysed` intervals of `interval_ns` (at least 1), reporting from the interval that holds
    /// `since_ns` on, with room for records up to `lag` intervals newer than the newest analysed one.
    pub fn new(interval_ns: u64, since_ns: u64, analysed: usize, lag: usize) -> SampleWindow {
        let interval_ns = interval_ns.max(1);
        let analysed = analysed.max(1);
        SampleWindow {
            interval_ns,
            phase_ns: since_ns % interval_ns,
            analysed: analysed as u64,
            first: since_ns / interval_ns,
            newest: None,
            slots: vec![IntervalTotals::default(); analysed.saturating_add(lag)].into_boxed_slice(),
        }
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// Adds one worker's record of one interval to that interval's total.
    pub fn merge(&mut self, record: &WorkerInterval, now_ns: u64) -> Result<(), Refused> {
        let start = record.totals.start_ns;
        if record.interval_ns != self.interval_ns {
            return Err(Refused::OtherInterval);
        }
        if start % self.interval_ns != self.phase_ns {
            return Err(Refused::Misaligned);
        }
        if start > now_ns {
            return Err(Refused::FromTheFuture);
        }
        let k = start / self.interval_ns;
        let capacity = self.slots.len() as u64;
        let newest = self.newest.unwrap_or(k).max(k);
        if k < self.first || k.saturating_add(capacity) <= newest {
            return Err(Refused::TooOld);
        }
        // The ring has at least one slot, so `k % capacity` always names one.
        let Some(slot) = self.slots.get_mut((k % capacity) as usize) else { return Err(Refused::TooOld) };
        self.newest = Some(newest);
        if slot.start_ns != start {
            // The slot still holds an interval a whole ring older.
            *slot = IntervalTotals::empty(start);
        }
        slot.add(&record.totals);
        Ok(())
    }

    /// The summed totals of interval `k`, idle if no record reached it (or it left the ring).
    fn totals(&self, k: u64) -> IntervalTotals {
        // Saturating: a record's start comes from shared data, and must not wrap in a release build.
        let start = k.saturating_mul(self.interval_ns).saturating_add(self.phase_ns);
        let held = self.newest.is_some_and(|newest| k <= newest && k.saturating_add(self.slots.len() as u64) > newest);
        match self.slots.get((k % self.slots.len() as u64) as usize) {
            Some(slot) if held && slot.start_ns == start => *slot,
            _ => IntervalTotals::empty(start),
        }
    }

    /// Replaces `out` with the samples of the last analysed intervals that ended by `through_ns`, oldest first:
    /// never more than the window, and none before the window started.
    pub fn samples_through(&self, through_ns: u64, out: &mut Vec<Sample>) {
        out.clear();
        for k in self.analysed_range(through_ns) {
            out.push(self.totals(k).sample(self.interval_ns));
        }
    }

    /// The summed totals of the same intervals as [`SampleWindow::samples_through`].
    pub fn totals_through(&self, through_ns: u64) -> impl Iterator<Item = IntervalTotals> + '_ {
        self.analysed_range(through_ns).map(|k| self.totals(k))
    }

    fn analysed_range(&self, through_ns: u64) -> std::ops::Range<u64> {
        // Intervals k with phase + (k + 1) · I <= through.
        let Some(since_phase) = through_ns.checked_sub(self.phase_ns) else { return 0..0 };
        let end = since_phase / self.interval_ns;
        let start = end.saturating_sub(self.analysed).max(self.first);
        start..end.max(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: u64 = 100;

    fn record(worker: u32, start_ns: u64, in_service_ns: u64, completions: u64) -> WorkerInterval {
        WorkerInterval {
            worker,
            interval_ns: I,
            totals: IntervalTotals { start_ns, in_service_ns, waiting_ns: 0, completions, response_ns: 0 },
        }
    }

    fn concurrency(window: &SampleWindow, through_ns: u64) -> Vec<f64> {
        let mut out = Vec::new();
        window.samples_through(through_ns, &mut out);
        out.iter().map(|s| s.concurrency).collect()
    }

    #[test]
    fn records_of_one_interval_from_several_workers_add_up() {
        let mut w = SampleWindow::new(I, 1_000, 4, 1);
        w.merge(&record(1, 1_000, 100, 2), 1_100).unwrap();
        w.merge(&record(2, 1_000, 250, 3), 1_100).unwrap();
        w.merge(&record(2, 1_100, 50, 1), 1_200).unwrap();
        assert_eq!(concurrency(&w, 1_200), vec![3.5, 0.5]);
        let totals: Vec<u64> = w.totals_through(1_200).map(|t| t.completions).collect();
        assert_eq!(totals, vec![5, 1]);
    }

    #[test]
    fn an_interval_nobody_published_is_idle_and_an_unfinished_one_is_left_out() {
        let mut w = SampleWindow::new(I, 1_000, 4, 1);
        w.merge(&record(1, 1_000, 100, 1), 1_100).unwrap();
        w.merge(&record(1, 1_200, 100, 1), 1_300).unwrap();
        assert_eq!(concurrency(&w, 1_299), vec![1.0, 0.0]);
        assert_eq!(concurrency(&w, 1_300), vec![1.0, 0.0, 1.0]);
    }

    #[test]
    fn the_window_slides_and_never_reports_before_it_started() {
        let mut w = SampleWindow::new(I, 1_000, 3, 1);
        assert_eq!(concurrency(&w, 900), Vec::<f64>::new());
        assert_eq!(concurrency(&w, 1_100), vec![0.0]);
        for k in 0..6 {
            w.merge(&record(1, 1_000 + k * I, (k + 1) * I, 0), 1_000 + (k + 1) * I).unwrap();
        }
        assert_eq!(concurrency(&w, 1_600), vec![4.0, 5.0, 6.0]);
        assert_eq!(concurrency(&w, 1_500), vec![3.0, 4.0, 5.0]);
        assert_eq!(concurrency(&w, 1_400), vec![0.0, 3.0, 4.0], "interval 11 left the ring of 3 + 1 of lag");
    }

    #[test]
    fn records_at_the_end_of_the_clock_neither_wrap_nor_panic() {
        let end = u64::MAX - 2;
        let mut w = SampleWindow::new(1, end - 8, 4, 1);
        for start in end - 4..end {
            let mut one = record(1, start, 1, 1);
            one.interval_ns = 1;
            w.merge(&one, end).unwrap();
        }
        let totals: Vec<u64> = w.totals_through(end).map(|t| t.completions).collect();
        assert!(totals.iter().sum::<u64>() <= 4, "{totals:?}");
    }

    #[test]
    fn records_that_do_not_fit_are_refused() {
        let mut w = SampleWindow::new(I, 1_000, 3, 1);
        let mut other = record(1, 1_000, 1, 1);
        other.interval_ns = 50;
        assert_eq!(w.merge(&other, 2_000), Err(Refused::OtherInterval));
        assert_eq!(w.merge(&record(1, 1_050, 1, 1), 2_000), Err(Refused::Misaligned));
        assert_eq!(w.merge(&record(1, 2_100, 1, 1), 2_000), Err(Refused::FromTheFuture));
        assert_eq!(w.merge(&record(1, 900, 1, 1), 2_000), Err(Refused::TooOld), "before the window started");
        w.merge(&record(1, 2_000, 1, 1), 2_000).unwrap();
        assert_eq!(w.merge(&record(1, 1_600, 1, 1), 2_000), Err(Refused::TooOld));
        w.merge(&record(1, 1_700, 1, 1), 2_000).unwrap();
        assert_eq!(concurrency(&w, 2_000), vec![0.01, 0.0, 0.0]);
    }

    #[test]
    fn a_record_far_in_the_future_cannot_wipe_the_window() {
        let mut w = SampleWindow::new(I, 1_000, 3, 1);
        w.merge(&record(1, 1_000, 100, 1), 1_100).unwrap();
        assert_eq!(w.merge(&record(9, u64::MAX - 15, 1, 1), 1_100), Err(Refused::FromTheFuture));
        assert_eq!(concurrency(&w, 1_100), vec![1.0]);
    }
}
