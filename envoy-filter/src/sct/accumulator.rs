//! A worker's running sums of one path, fed on every admission, release and wait, closed into
//! [`IntervalTotals`] as each sampling interval ends.
//!
//! The number of requests in service is a step function of time that changes only on those events, so its
//! integral is kept exactly by adding `n · (now − last event)` at each event, and at each interval boundary that
//! falls in between. Nothing is allocated after construction: closed intervals wait in a fixed ring until the
//! worker collects them ([`IntervalAccumulator::pop_closed`]) to publish them. An interval in which nothing was in
//! service, waited or finished is not kept at all: merged, it is the same as no record, and leaving it out keeps an
//! idle path from filling the ring.

use super::interval::IntervalTotals;

#[derive(Debug)]
pub struct IntervalAccumulator {
    interval_ns: u64,
    /// The open interval's sums so far; its `start_ns` is the interval's start.
    open: IntervalTotals,
    /// The latest time seen; an earlier timestamp is taken as this one, so a clock stepping back cannot
    /// integrate a negative stretch.
    last_event_ns: u64,
    in_service: u64,
    waiting: u64,
    closed: Box<[IntervalTotals]>,
    closed_head: usize,
    closed_len: usize,
    dropped: u64,
}

impl IntervalAccumulator {
    /// Intervals of `interval_ns` from `origin_ns` on; `pending` closed intervals are held until collected.
    pub fn starting_at(interval_ns: u64, origin_ns: u64, pending: usize) -> IntervalAccumulator {
        IntervalAccumulator {
            interval_ns: interval_ns.max(1),
            open: IntervalTotals::empty(origin_ns),
            last_event_ns: origin_ns,
            in_service: 0,
            waiting: 0,
            closed: vec![IntervalTotals::default(); pending.max(1)].into_boxed_slice(),
            closed_head: 0,
            closed_len: 0,
            dropped: 0,
        }
    }

    /// Intervals on multiples of `interval_ns` of the shared clock, the one holding `now_ns` first: every worker
    /// that does the same cuts time at the same boundaries, so their sums of an interval can be added.
    pub fn aligned(interval_ns: u64, now_ns: u64, pending: usize) -> IntervalAccumulator {
        let interval_ns = interval_ns.max(1);
        IntervalAccumulator::starting_at(interval_ns, now_ns - now_ns % interval_ns, pending)
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// A request of the path took a slot at `now_ns`.
    pub fn admitted(&mut self, now_ns: u64) {
        self.advance(now_ns);
        self.in_service = self.in_service.saturating_add(1);
    }

    /// The request admitted at `admitted_ns` gave its slot back at `now_ns`. A release with nothing in service (a
    /// request admitted before this accumulator existed) still counts as a completion.
    pub fn released(&mut self, admitted_ns: u64, now_ns: u64) {
        self.advance(now_ns);
        self.in_service = self.in_service.saturating_sub(1);
        self.open.completions = self.open.completions.saturating_add(1);
        let response = self.last_event_ns.saturating_sub(admitted_ns);
        self.open.response_ns = self.open.response_ns.saturating_add(response);
    }

    /// A request of the path started waiting for a slot.
    pub fn wait_started(&mut self, now_ns: u64) {
        self.advance(now_ns);
        self.waiting = self.waiting.saturating_add(1);
    }

    /// A waiting request got its slot or gave up.
    pub fn wait_ended(&mut self, now_ns: u64) {
        self.advance(now_ns);
        self.waiting = self.waiting.saturating_sub(1);
    }

    /// Closes every interval that ended by `now_ns`, so that [`IntervalAccumulator::pop_closed`] sees them.
    pub fn close_until(&mut self, now_ns: u64) {
        self.advance(now_ns);
    }

    /// The oldest closed interval not collected yet.
    pub fn pop_closed(&mut self) -> Option<IntervalTotals> {
        if self.closed_len == 0 {
            return None;
        }
        let totals = *self.closed.get(self.closed_head)?;
        self.closed_head = (self.closed_head + 1) % self.closed.len();
        self.closed_len -= 1;
        Some(totals)
    }

    /// How many closed intervals with something in them were lost because nobody collected them in time.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Integrates the current step up to `now_ns`, closing the intervals that end on the way.
    fn advance(&mut self, now_ns: u64) {
        let now = now_ns.max(self.last_event_ns);
        while let Some(end) = self.open.start_ns.checked_add(self.interval_ns).filter(|end| now >= *end) {
            self.integrate(end);
            self.close(end);
            let whole = (now - end) / self.interval_ns;
            if whole == 0 {
                continue;
            }
            if self.in_service == 0 && self.waiting == 0 {
                // Idle intervals hold nothing to keep.
                self.open = IntervalTotals::empty(end + whole * self.interval_ns);
                self.last_event_ns = self.open.start_ns;
            } else if whole > self.closed.len() as u64 {
                // Whole intervals at the same step are all alike; only the last ones fit in the ring.
                let skipped = whole - self.closed.len() as u64;
                self.dropped = self.dropped.saturating_add(skipped);
                self.open = IntervalTotals::empty(end + skipped * self.interval_ns);
                self.last_event_ns = self.open.start_ns;
            }
        }
        self.integrate(now);
    }

    fn integrate(&mut self, until_ns: u64) {
        let span = until_ns.saturating_sub(self.last_event_ns);
        self.open.in_service_ns = self.open.in_service_ns.saturating_add(self.in_service.saturating_mul(span));
        self.open.waiting_ns = self.open.waiting_ns.saturating_add(self.waiting.saturating_mul(span));
        self.last_event_ns = self.last_event_ns.max(until_ns);
    }

    fn close(&mut self, end_ns: u64) {
        let done = std::mem::replace(&mut self.open, IntervalTotals::empty(end_ns));
        self.last_event_ns = end_ns;
        if done.is_idle() {
            return;
        }
        let capacity = self.closed.len();
        if self.closed_len == capacity {
            self.closed_head = (self.closed_head + 1) % capacity;
            self.closed_len -= 1;
            self.dropped = self.dropped.saturating_add(1);
        }
        // The ring has at least one slot, so the index is always in range; were it not, the interval counts as lost.
        match self.closed.get_mut((self.closed_head + self.closed_len) % capacity) {
            Some(slot) => {
                *slot = done;
                self.closed_len += 1;
            }
            None => self.dropped = self.dropped.saturating_add(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn collect(acc: &mut IntervalAccumulator) -> Vec<IntervalTotals> {
        std::iter::from_fn(|| acc.pop_closed()).collect()
    }

    #[test]
    fn a_request_over_two_boundaries_is_split_between_three_intervals() {
        let mut acc = IntervalAccumulator::starting_at(50 * MS, 0, 8);
        acc.admitted(40 * MS);
        acc.released(40 * MS, 120 * MS);
        acc.close_until(150 * MS);
        let closed = collect(&mut acc);
        let in_service: Vec<u64> = closed.iter().map(|t| t.in_service_ns / MS).collect();
        assert_eq!(in_service, vec![10, 50, 20]);
        assert_eq!(closed[2].completions, 1);
        assert_eq!(closed[2].response_ns, 80 * MS);
        assert_eq!(closed.iter().map(|t| t.start_ns / MS).collect::<Vec<_>>(), vec![0, 50, 100]);
    }

    #[test]
    fn a_release_on_a_boundary_counts_in_the_interval_it_opens() {
        let mut acc = IntervalAccumulator::starting_at(50 * MS, 0, 8);
        acc.admitted(10 * MS);
        acc.released(10 * MS, 50 * MS);
        acc.close_until(100 * MS);
        let closed = collect(&mut acc);
        assert_eq!(closed.len(), 2);
        assert_eq!((closed[0].in_service_ns, closed[0].completions), (40 * MS, 0));
        assert_eq!((closed[1].in_service_ns, closed[1].completions), (0, 1));
    }

    #[test]
    fn idle_intervals_are_not_kept_and_an_idle_gap_costs_no_loop() {
        let mut acc = IntervalAccumulator::starting_at(1, 0, 4);
        acc.admitted(0);
        acc.released(0, 1);
        // Far more idle intervals of 1 ns than any loop could walk.
        acc.admitted(u64::MAX / 2);
        acc.released(u64::MAX / 2, u64::MAX / 2 + 1);
        acc.close_until(u64::MAX / 2 + 2);
        let closed = collect(&mut acc);
        let starts: Vec<u64> = closed.iter().map(|t| t.start_ns).collect();
        assert_eq!(starts, vec![0, 1, u64::MAX / 2, u64::MAX / 2 + 1]);
        assert_eq!(acc.dropped(), 0);
    }

    #[test]
    fn a_long_busy_gap_keeps_the_last_intervals_that_fit_and_counts_the_rest() {
        let mut acc = IntervalAccumulator::starting_at(10, 0, 4);
        acc.admitted(5);
        acc.close_until(1_000_005);
        let closed = collect(&mut acc);
        assert_eq!(closed.len(), 4);
        assert_eq!(closed.iter().map(|t| t.start_ns).collect::<Vec<_>>(), vec![999_960, 999_970, 999_980, 999_990]);
        assert!(closed.iter().all(|t| t.in_service_ns == 10));
        assert_eq!(acc.dropped(), 100_000 - 4);
        acc.close_until(1_000_010);
        assert_eq!(collect(&mut acc).len(), 1);
    }

    #[test]
    fn a_clock_stepping_back_is_held_at_the_latest_time() {
        let mut acc = IntervalAccumulator::starting_at(100, 0, 4);
        acc.admitted(50);
        acc.released(50, 30);
        acc.close_until(100);
        let closed = collect(&mut acc);
        assert_eq!((closed[0].in_service_ns, closed[0].response_ns, closed[0].completions), (0, 0, 1));
    }

    #[test]
    fn times_near_the_end_of_the_clock_neither_overflow_nor_loop() {
        let mut acc = IntervalAccumulator::starting_at(10, u64::MAX - 25, 4);
        acc.admitted(u64::MAX - 20);
        acc.close_until(u64::MAX);
        acc.close_until(u64::MAX);
        acc.released(u64::MAX - 20, u64::MAX);
        let closed = collect(&mut acc);
        // The interval that would end past the clock's end never closes.
        let seen: Vec<(u64, u64)> = closed.iter().map(|t| (u64::MAX - t.start_ns, t.in_service_ns)).collect();
        assert_eq!(seen, vec![(25, 5), (15, 10)]);
    }

    #[test]
    fn aligned_intervals_start_on_multiples_of_the_interval() {
        let mut acc = IntervalAccumulator::aligned(50 * MS, 1_234 * MS, 4);
        acc.admitted(1_234 * MS);
        acc.close_until(1_250 * MS);
        assert_eq!(acc.pop_closed().map(|t| t.start_ns), Some(1_200 * MS));
    }
}
