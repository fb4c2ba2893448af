//! One path's tuning as the analysing worker runs it: the window of summed intervals, the analysis and the guards,
//! from the limit the path started with.

use super::decision::Decision;
use super::guards::{Guards, Held, Step};
use super::interval::Sample;
use super::plateau::Analyzer;
use super::settings::ModelSettings;
use super::verdict::Verdict;
use super::window::{Refused, SampleWindow};
use super::wire::WorkerInterval;

#[derive(Debug)]
pub struct PathTuner {
    window: SampleWindow,
    analyzer: Analyzer,
    guards: Guards,
    limit: u32,
    /// The window's samples, reused from one decision to the next.
    samples: Vec<Sample>,
}

impl PathTuner {
    pub fn new(window: SampleWindow, settings: ModelSettings, guards: Guards, starting_limit: u32) -> PathTuner {
        PathTuner { window, analyzer: Analyzer::new(settings), guards, limit: starting_limit, samples: Vec::new() }
    }

    /// The limit the last decision set (the starting one before any).
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Goes on from a limit set elsewhere (by the worker that analysed before this one).
    pub fn adopt(&mut self, limit: u32) {
        self.limit = limit;
    }

    /// Adds a worker's record to its interval of the window.
    pub fn merge(&mut self, record: &WorkerInterval, now_ns: u64) -> Result<(), Refused> {
        self.window.merge(record, now_ns)
    }

    /// Analyses the window of intervals that ended by `through_ns` and moves the limit through the guards.
    ///
    /// A plateau lowers the limit only if the window shows the path saturated: requests waited for a slot (at
    /// some level, as many on average as the waiting threshold), or the response time grew across the plateau as
    /// a saturated path's does (by the utilization law, in proportion to concurrency; at least half of that is
    /// asked). A light load shows neither: it reaches a few levels by chance, at the same response time, with a
    /// throughput that may look flat across them, and lowering on that would cut the path to its quiet time's
    /// concurrency just before its next burst.
    pub fn decide(&mut self, through_ns: u64) -> Decision {
        self.window.samples_through(through_ns, &mut self.samples);
        let analysis = self.analyzer.analyze(&self.samples);
        let mut step = self.guards.next(analysis.verdict, analysis.recommended, self.limit);
        if analysis.verdict == Verdict::Plateau
            && step.limit < self.limit
            && !self.limit_bound()
            && !self.response_time_rises(analysis.q_lower, analysis.q_upper)
        {
            // Held within the guards: a limit adopted from elsewhere may lie outside them.
            let held = self.limit.min(self.guards.max).max(self.guards.min);
            step = Step { limit: held, held: Held { demand: true, ..step.held } };
        }
        let decision = Decision::new(analysis, self.limit, step);
        self.limit = step.limit;
        decision
    }

    /// Whether the limit held the path back in the last window analysed: at some level, requests waited for a
    /// slot as much as the waiting threshold on average.
    fn limit_bound(&self) -> bool {
        let threshold = self.analyzer.settings().waiting_threshold;
        self.analyzer.levels().iter().any(|level| level.samples > 0 && level.mean_waiting >= threshold)
    }

    /// Whether the response time at `q_upper` is above the one at `q_lower` by at least half of what proportional
    /// growth with concurrency gives: `RT_upper − RT_lower ≥ 0.5 · RT_lower · (Q_upper − Q_lower) / Q_lower`.
    fn response_time_rises(&self, q_lower: Option<u32>, q_upper: Option<u32>) -> bool {
        let at = |q: Option<u32>| q.and_then(|q| self.analyzer.levels().iter().find(|level| level.level == q));
        let (Some(low), Some(high)) = (at(q_lower), at(q_upper)) else { return false };
        if high.level <= low.level || low.mean_response_time_ms <= 0.0 {
            return false;
        }
        let proportional = low.mean_response_time_ms * f64::from(high.level - low.level) / f64::from(low.level);
        high.mean_response_time_ms - low.mean_response_time_ms >= 0.5 * proportional
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{Rng, Upstream};
    use super::super::verdict::Verdict;
    use super::*;

    const INTERVAL: u64 = 50_000_000;
    /// 60 s windows, a decision every 20 s.
    const WINDOW: usize = 1200;
    const PERIOD: u64 = 400;
    const KNEE: u32 = 16;

    fn tuner(starting_limit: u32) -> PathTuner {
        let guards = Guards { min: 1, max: 1000, max_step: 8, hysteresis: 2 };
        PathTuner::new(SampleWindow::new(INTERVAL, 0, WINDOW, 4), ModelSettings::default(), guards, starting_limit)
    }

    /// Runs `decisions` periods of the upstream, `clients(k)` wanting service in interval k; returns every
    /// decision.
    fn run(tuner: &mut PathTuner, decisions: u64, clients: impl Fn(u64) -> f64) -> Vec<Decision> {
        let mut upstream =
            Upstream { knee: f64::from(KNEE), per_slot: 100.0, interval_ns: INTERVAL, rng: Rng::new(KNEE.into()) };
        let mut out = Vec::new();
        for k in 0..decisions * PERIOD {
            let start = k * INTERVAL;
            for record in upstream.interval(start, clients(k), tuner.limit()) {
                tuner.merge(&record, start + INTERVAL).unwrap();
            }
            if (k + 1) % PERIOD == 0 {
                out.push(tuner.decide(start + INTERVAL));
            }
        }
        out
    }

    /// Between 2 and 40 clients and back every 12 s, as the load of sct-tuner's validation swings.
    fn swinging(k: u64) -> f64 {
        let phase = (k % 240) as f64 / 240.0;
        2.0 + 38.0 * (1.0 - (2.0 * phase - 1.0).abs())
    }

    /// Within 20 % of the knee.
    fn near_knee(limit: u32) -> bool {
        limit.abs_diff(KNEE) * 5 <= KNEE
    }

    #[test]
    fn a_limit_four_times_the_knee_settles_near_the_knee_within_a_few_decisions() {
        let mut t = tuner(4 * KNEE);
        let decisions = run(&mut t, 12, swinging);
        let limits: Vec<u32> = decisions.iter().map(|d| d.limit).collect();
        let settled = limits.iter().position(|l| near_knee(*l)).expect("never near the knee");
        assert!(settled <= 6, "{limits:?}");
        for d in &decisions[settled..] {
            // Once the window holds no level above the limit, a step up shows whether the curve still rises there;
            // the next plateau takes it back. At the knee or above, the path keeps its throughput.
            assert!(near_knee(d.limit) || d.verdict == Verdict::Explore, "{d}");
            assert!(d.limit >= KNEE, "{d}");
            if d.verdict == Verdict::Plateau {
                assert!(d.recommended.is_some_and(near_knee), "{d}");
            }
        }
        assert!(near_knee(t.limit()), "{limits:?}");
    }

    #[test]
    fn a_limit_of_one_with_requests_waiting_explores_upward() {
        let mut t = tuner(1);
        let decisions = run(&mut t, 12, |_| 40.0);
        let limits: Vec<u32> = decisions.iter().map(|d| d.limit).collect();
        assert_eq!(decisions[0].verdict, Verdict::Explore, "{}", decisions[0]);
        assert!(limits.windows(2).take(6).all(|w| w[1] > w[0]), "{limits:?}");
        assert!(*limits.last().unwrap_or(&0) * 5 >= KNEE * 4, "{limits:?}");
    }

    /// Levels 2 to 6, ten intervals each, one request finishing per interval whatever the level (a flat
    /// throughput), with `waiting_at_top` requests waiting at 6; each took `response_ms` at level 2 and, if
    /// `saturated`, longer in proportion to the level above (Little's law), else as long at every level (a light
    /// load's levels, reached by chance). Returns the end of the last interval.
    fn flat_throughput_from_two_to_six(
        tuner: &mut PathTuner,
        waiting_at_top: f64,
        response_ms: u64,
        saturated: bool,
    ) -> u64 {
        let mut start = 0;
        for level in 2..=6u64 {
            for _ in 0..10 {
                let waiting = if level == 6 { waiting_at_top } else { 0.0 };
                let response_ns = response_ms * 1_000_000 * if saturated { level } else { 2 } / 2;
                let totals = super::super::interval::IntervalTotals {
                    start_ns: start,
                    in_service_ns: level * INTERVAL,
                    waiting_ns: (waiting * INTERVAL as f64) as u64,
                    completions: 1,
                    response_ns,
                };
                let record = WorkerInterval { worker: 1, interval_ns: INTERVAL, totals };
                tuner.merge(&record, start + INTERVAL).unwrap();
                start += INTERVAL;
            }
        }
        start
    }

    #[test]
    fn a_plateau_of_a_light_load_keeps_the_limit() {
        // Nothing waited and every level answered in the same time: nothing saturated.
        let mut t = tuner(8);
        let end = flat_throughput_from_two_to_six(&mut t, 0.0, 45, false);
        let d = t.decide(end);
        assert_eq!((d.verdict, d.recommended), (Verdict::Plateau, Some(2)), "{d}");
        assert_eq!((d.limit, d.held.demand), (8, true), "{d}");
        assert!(d.to_string().contains("held by a light load"), "{d}");
        assert_eq!(t.limit(), 8);
    }

    #[test]
    fn a_light_load_holds_an_adopted_limit_above_the_most_at_the_most() {
        let guards = Guards { min: 1, max: 6, max_step: 8, hysteresis: 2 };
        let mut t = PathTuner::new(SampleWindow::new(INTERVAL, 0, WINDOW, 4), ModelSettings::default(), guards, 4);
        t.adopt(8);
        let end = flat_throughput_from_two_to_six(&mut t, 0.0, 45, false);
        let d = t.decide(end);
        assert_eq!((d.verdict, d.limit, d.held.demand), (Verdict::Plateau, 6, true), "{d}");
        assert_eq!(t.limit(), 6);
    }

    #[test]
    fn a_plateau_seen_while_requests_waited_or_the_response_time_grew_lowers_the_limit() {
        for (waiting, saturated) in [(1.0, false), (0.0, true)] {
            let mut t = tuner(8);
            let end = flat_throughput_from_two_to_six(&mut t, waiting, 45, saturated);
            let d = t.decide(end);
            let outcome = (d.verdict, d.recommended, d.limit, d.held.demand);
            assert_eq!(outcome, (Verdict::Plateau, Some(2), 2, false), "waiting {waiting}, saturated {saturated}: {d}");
        }
    }

    #[test]
    fn a_limit_taken_over_goes_on_from_there() {
        let mut t = tuner(40);
        t.adopt(20);
        let d = t.decide(0);
        assert_eq!((d.previous_limit, d.limit, d.verdict), (20, 20, Verdict::InsufficientData));
    }
}
