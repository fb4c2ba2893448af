//! The SCT analysis of one window (PathFence, HPDC'25, section 4.2; sct-tuner's README): the least concurrency
//! that reaches peak throughput, and what to do when the window cannot show it.
//!
//! 1. Samples are grouped by level ([`super::levels`]).
//! 2. The peak m is the qualified level with the most mean throughput (the lowest, on a tie).
//! 3. Level n is on the plateau unless its shortfall is both significant and relevant:
//!    `TP_m − TP_n ≤ max(tolerance · TP_m, z · √(SE_n² + SE_m²))`, a one-sided test at z with a tolerance below
//!    which a difference is not worth response time.
//! 4. Q_lower is the least level from which every level up to m is on the plateau; Q_upper the highest level up to
//!    which every level from Q_lower is, stopping before a level whose response time passes the limit.
//! 5. A plateau whose lower end is the highest level is a curve still rising: explore one step up if requests wait
//!    there, else the load never reached the knee. The same step up when the peak is the highest level, requests
//!    wait there, and throughput rose to it from Q_lower significantly and by at least half of what proportional
//!    growth would give (the utilization law below saturation): the limit is cutting the curve, and the tolerance
//!    measured from that cut peak would walk the limit down a few percent every window.
//! 6. With too few qualified levels, requests waiting at the highest one call for one probe: towards the level
//!    with more throughput, down from a single pinned level (less contention; the next window compares), up from
//!    a single level of 1, below which nothing lies.
//!
//! An exploring step from level h is `min(explore_max_step, max(1, ⌈h · explore_fraction⌉))`.

use std::fmt::Write;

use super::interval::Sample;
use super::levels::{Grouping, Level};
use super::settings::ModelSettings;
use super::verdict::{Analysis, Verdict};

/// Analyses windows with one set of settings, reusing its buffers from one window to the next.
#[derive(Debug)]
pub struct Analyzer {
    settings: ModelSettings,
    grouping: Grouping,
}

impl Analyzer {
    pub fn new(settings: ModelSettings) -> Analyzer {
        Analyzer { settings, grouping: Grouping::default() }
    }

    pub fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    /// The levels of the last window analysed.
    pub fn levels(&self) -> &[Level] {
        self.grouping.levels()
    }

    pub fn analyze(&mut self, samples: &[Sample]) -> Analysis {
        let s = &self.settings;
        self.grouping.group(samples, s.level_width, s.min_samples_per_level);
        let levels = self.grouping.levels();
        let qualified = levels.iter().take_while(|l| l.qualified).count();
        let levels = levels.get(..qualified).unwrap_or_default();
        let Some((peak, peak_level)) = peak_of(levels) else { return self.insufficient(samples.len(), 0) };
        if qualified < s.min_levels as usize {
            return self.probe(samples.len(), levels, peak, peak_level);
        }
        let on_plateau = |n: usize| levels.get(n).is_some_and(|level| self.on_plateau(level, peak_level));
        let mut lower = peak;
        while lower > 0 && on_plateau(lower - 1) {
            lower -= 1;
        }
        let mut upper = lower;
        let mut too_slow = None;
        while let Some(next) = levels.get(upper + 1).filter(|next| self.on_plateau(next, peak_level)) {
            if s.response_time_limit_ms.is_some_and(|limit| next.mean_response_time_ms > limit) {
                too_slow = Some(next);
                break;
            }
            upper += 1;
        }
        let plateau_throughput = self.grouping.mean_throughput(samples, lower, upper);
        // `lower ≤ upper < qualified`, the length of `levels`: the refusal is never taken.
        let (Some(low), Some(high), Some(top)) = (levels.get(lower), levels.get(upper), levels.last()) else {
            return self.insufficient(samples.len(), qualified);
        };
        let waits = top.mean_waiting >= s.waiting_threshold;
        let mut reason = String::new();
        let (verdict, recommended) = if lower == qualified - 1 {
            if waits {
                let next = top.level.saturating_add(s.explore_step(top.level));
                let _ = write!(
                    reason,
                    "throughput still rises at the highest level observed, {} ({:.1}/s), where {:.2} requests wait \
                     on average: trying {next}",
                    top.level, top.mean_throughput, top.mean_waiting
                );
                (Verdict::Explore, Some(next))
            } else {
                let _ = write!(
                    reason,
                    "throughput still rises at the highest level observed, {} ({:.1}/s), and only {:.2} requests \
                     wait there on average: the load has not reached the knee",
                    top.level, top.mean_throughput, top.mean_waiting
                );
                (Verdict::NoPlateau, None)
            }
        } else if peak == qualified - 1 && waits && too_slow.is_none() && self.still_proportional(low, top) {
            let next = top.level.saturating_add(s.explore_step(top.level));
            let _ = write!(
                reason,
                "throughput rises from level {} ({:.1}/s) to the highest level {} ({:.1}/s) about in proportion to \
                 concurrency, while {:.2} requests wait there on average: the limit cuts the curve below its \
                 plateau; trying {next}",
                low.level, low.mean_throughput, top.level, top.mean_throughput, top.mean_waiting
            );
            (Verdict::Explore, Some(next))
        } else {
            let _ = write!(
                reason,
                "throughput is on a plateau of {plateau_throughput:.1}/s from level {} to {} (peak {:.1}/s at {}); it \
                 ends at {} because ",
                low.level, high.level, peak_level.mean_throughput, peak_level.level, high.level
            );
            let _ = match too_slow {
                Some(next) => write!(
                    reason,
                    "level {} answers in {:.1} ms, over the limit",
                    next.level, next.mean_response_time_ms
                ),
                None if upper + 1 < qualified => write!(reason, "throughput falls above it"),
                None => write!(reason, "no higher level was observed"),
            };
            (Verdict::Plateau, Some(low.level))
        };
        Analysis {
            verdict,
            q_lower: Some(low.level),
            q_upper: Some(high.level),
            recommended,
            plateau_throughput: Some(plateau_throughput),
            samples: samples.len(),
            reason,
        }
    }

    /// Too few levels to place a plateau. A limit that binds pins the concurrency to a level or two, so waiting
    /// for more levels would freeze the tuner: one step shows what lies beyond.
    fn probe(&self, samples: usize, levels: &[Level], peak: usize, peak_level: &Level) -> Analysis {
        let s = &self.settings;
        let (Some(lowest), Some(highest)) = (levels.first(), levels.last()) else {
            return self.insufficient(samples, levels.len());
        };
        if highest.mean_waiting < s.waiting_threshold {
            return self.insufficient(samples, levels.len());
        }
        let up = || highest.level.saturating_add(s.explore_step(highest.level));
        let down_from = |level: u32| level.saturating_sub(s.explore_step(level)).max(1);
        let top_peaks = peak == levels.len() - 1;
        let (next, why) = if levels.len() == 1 && highest.level > 1 {
            (down_from(highest.level), "the concurrency is pinned there")
        } else if levels.len() == 1 {
            (up(), "the concurrency is pinned at 1, where no step down is left")
        } else if top_peaks && !self.on_plateau(lowest, peak_level) {
            (up(), "throughput is significantly highest at the highest level")
        } else if top_peaks && lowest.level > 1 {
            // The same throughput with less concurrency is the better limit: look below for Q_lower.
            (down_from(lowest.level), "the lowest level is within the noise of the highest")
        } else if peak == 0 {
            (down_from(lowest.level), "throughput is highest at the lowest level")
        } else {
            return self.insufficient(samples, levels.len());
        };
        let reason = format!(
            "only {} level(s) with {} samples or more; {why} ({:.1}/s at {}) and {:.2} requests wait at {} on average: \
             trying {next}",
            levels.len(),
            s.min_samples_per_level,
            peak_level.mean_throughput,
            peak_level.level,
            highest.mean_waiting,
            highest.level
        );
        Analysis {
            verdict: Verdict::Explore,
            q_lower: Some(peak_level.level),
            q_upper: Some(peak_level.level),
            recommended: Some(next),
            plateau_throughput: Some(peak_level.mean_throughput),
            samples,
            reason,
        }
    }

    fn insufficient(&self, samples: usize, qualified: usize) -> Analysis {
        let s = &self.settings;
        Analysis {
            verdict: Verdict::InsufficientData,
            q_lower: None,
            q_upper: None,
            recommended: None,
            plateau_throughput: None,
            samples,
            reason: format!(
                "only {qualified} level(s) with {} samples or more among {samples} samples; {} are needed",
                s.min_samples_per_level, s.min_levels
            ),
        }
    }

    fn noise(&self, a: &Level, b: &Level) -> f64 {
        self.settings.confidence_z * (a.squared_error + b.squared_error).sqrt()
    }

    fn on_plateau(&self, level: &Level, peak: &Level) -> bool {
        let shortfall = peak.mean_throughput - level.mean_throughput;
        shortfall <= (self.settings.tolerance * peak.mean_throughput).max(self.noise(level, peak))
    }

    /// Whether throughput from `low` to `high` still grows as below saturation: significantly, and by at least
    /// half the proportional gain. A flat plateau's rise is noise and a knee's a fraction of proportional.
    fn still_proportional(&self, low: &Level, high: &Level) -> bool {
        let gain = high.mean_throughput - low.mean_throughput;
        let proportional =
            low.mean_throughput * f64::from(high.level.saturating_sub(low.level)) / f64::from(low.level.max(1));
        gain > self.noise(low, high) && gain >= 0.5 * proportional
    }
}

/// The level with the most throughput and its index, the lowest on a tie.
fn peak_of(levels: &[Level]) -> Option<(usize, &Level)> {
    let mut peak: Option<(usize, &Level)> = None;
    for (i, level) in levels.iter().enumerate() {
        if peak.is_none_or(|(_, p)| level.mean_throughput > p.mean_throughput) {
            peak = Some((i, level));
        }
    }
    peak
}
