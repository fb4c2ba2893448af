//! What one analysis of a window concludes.

/// The four outcomes of the SCT analysis, as sct-tuner names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A throughput plateau: the recommendation is its lower end, Q_lower.
    Plateau,
    /// The window cannot settle the range but requests wait, so the limit is what holds the path back: one
    /// bounded step to a level not seen yet. The next analysis, which still holds this window's samples, compares.
    Explore,
    /// Throughput still rises at the highest level observed and nobody waits: the load never reached the knee.
    NoPlateau,
    /// Too few levels with enough samples each, and no waiting to act on.
    InsufficientData,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [Verdict::Plateau, Verdict::Explore, Verdict::NoPlateau, Verdict::InsufficientData];

    /// The name in logs and in the shared test vectors.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Plateau => "PLATEAU",
            Verdict::Explore => "EXPLORE",
            Verdict::NoPlateau => "NO_PLATEAU",
            Verdict::InsufficientData => "INSUFFICIENT_DATA",
        }
    }

    /// The name in a stat, such as `decisions.<stat_name>`.
    pub fn stat_name(self) -> &'static str {
        match self {
            Verdict::Plateau => "plateau",
            Verdict::Explore => "explore",
            Verdict::NoPlateau => "no_plateau",
            Verdict::InsufficientData => "insufficient_data",
        }
    }

    /// Whether an analysis with this verdict recommends a limit.
    pub fn recommends(self) -> bool {
        matches!(self, Verdict::Plateau | Verdict::Explore)
    }
}

/// The outcome of analysing one window of one path.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub verdict: Verdict,
    /// Q_lower: the least level whose throughput is on the plateau. For a rising curve the highest level
    /// observed; for a probe, the level with the most throughput; `None` with insufficient data.
    pub q_lower: Option<u32>,
    /// Q_upper: the largest level before throughput falls off the plateau or the response time passes its limit;
    /// `None` when `q_lower` is.
    pub q_upper: Option<u32>,
    /// The limit to move to: Q_lower on a plateau, one bounded step when exploring, `None` otherwise.
    pub recommended: Option<u32>,
    /// The mean throughput (per second) of the samples on levels Q_lower to Q_upper; `None` when `q_lower` is.
    pub plateau_throughput: Option<f64>,
    /// How many samples the window held, idle ones included.
    pub samples: usize,
    /// Why, in one sentence for an operator.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_only_plateau_and_explore_recommend() {
        let names: std::collections::HashSet<_> = Verdict::ALL.iter().map(|v| v.name()).collect();
        let stats: std::collections::HashSet<_> = Verdict::ALL.iter().map(|v| v.stat_name()).collect();
        assert_eq!((names.len(), stats.len()), (4, 4));
        let recommending: Vec<_> = Verdict::ALL.into_iter().filter(|v| v.recommends()).collect();
        assert_eq!(recommending, vec![Verdict::Plateau, Verdict::Explore]);
    }
}
