//! What one tuning decision of a path reports: the stats (`.limit`, `.q_lower`, `.q_upper`, a counter per
//! verdict) and one log line at info level with its reason.

use std::fmt;

use super::guards::{Held, Step};
use super::verdict::{Analysis, Verdict};

/// The per-path gauges a decision sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gauge {
    Limit,
    QLower,
    QUpper,
}

impl Gauge {
    pub const ALL: [Gauge; 3] = [Gauge::Limit, Gauge::QLower, Gauge::QUpper];

    /// The stat's name after `pathfence.<path>.`.
    pub fn suffix(self) -> &'static str {
        match self {
            Gauge::Limit => "limit",
            Gauge::QLower => "q_lower",
            Gauge::QUpper => "q_upper",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub verdict: Verdict,
    pub q_lower: Option<u32>,
    pub q_upper: Option<u32>,
    pub recommended: Option<u32>,
    pub plateau_throughput: Option<f64>,
    pub samples: usize,
    /// The limit before the decision and after it.
    pub previous_limit: u32,
    pub limit: u32,
    /// Which guards kept the limit from the recommendation.
    pub held: Held,
    /// The analysis's reason.
    pub reason: String,
}

impl Decision {
    pub fn new(analysis: Analysis, previous_limit: u32, step: Step) -> Decision {
        Decision {
            verdict: analysis.verdict,
            q_lower: analysis.q_lower,
            q_upper: analysis.q_upper,
            recommended: analysis.recommended,
            plateau_throughput: analysis.plateau_throughput,
            samples: analysis.samples,
            previous_limit,
            limit: step.limit,
            held: step.held,
            reason: analysis.reason,
        }
    }

    /// The gauge's value: the range's ends are 0 while the analysis finds none.
    pub fn gauge(&self, gauge: Gauge) -> i64 {
        i64::from(match gauge {
            Gauge::Limit => self.limit,
            Gauge::QLower => self.q_lower.unwrap_or(0),
            Gauge::QUpper => self.q_upper.unwrap_or(0),
        })
    }
}

/// The log line: `PLATEAU: limit 24 -> 20 (range [16, 20], recommended 16, held by max_step): <reason>`.
impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: limit ", self.verdict.name())?;
        if self.limit == self.previous_limit {
            write!(f, "{} kept", self.limit)?;
        } else {
            write!(f, "{} -> {}", self.previous_limit, self.limit)?;
        }
        match (self.q_lower, self.q_upper) {
            (Some(lower), Some(upper)) => write!(f, " (range [{lower}, {upper}]")?,
            _ => write!(f, " (no range")?,
        }
        if let Some(recommended) = self.recommended {
            write!(f, ", recommended {recommended}")?;
        }
        if self.held.any() {
            let names = [
                (self.held.bounds, "min/max"),
                (self.held.hysteresis, "hysteresis"),
                (self.held.max_step, "max_step"),
                (self.held.demand, "a light load"),
            ];
            let mut held = names.iter().filter(|(on, _)| *on).map(|(_, name)| *name);
            write!(f, ", held by {}", held.next().unwrap_or_default())?;
            for name in held {
                write!(f, " and {name}")?;
            }
        }
        write!(f, ", {} samples): {}", self.samples, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plateau() -> Analysis {
        Analysis {
            verdict: Verdict::Plateau,
            q_lower: Some(16),
            q_upper: Some(20),
            recommended: Some(16),
            plateau_throughput: Some(1757.9),
            samples: 1200,
            reason: "throughput is on a plateau".to_string(),
        }
    }

    #[test]
    fn the_log_line_says_what_moved_and_why() {
        let held = Held { max_step: true, ..Held::default() };
        let d = Decision::new(plateau(), 24, Step { limit: 20, held });
        assert_eq!(
            d.to_string(),
            "PLATEAU: limit 24 -> 20 (range [16, 20], recommended 16, held by max_step, 1200 samples): throughput is \
             on a plateau"
        );
        let held = Held { bounds: true, hysteresis: true, ..Held::default() };
        let kept = Decision::new(plateau(), 17, Step { limit: 17, held });
        assert!(
            kept.to_string()
                .starts_with("PLATEAU: limit 17 kept (range [16, 20], recommended 16, held by min/max and hysteresis,"),
            "{kept}"
        );
    }

    #[test]
    fn without_a_range_the_gauges_read_zero() {
        let none = Analysis {
            verdict: Verdict::InsufficientData,
            q_lower: None,
            q_upper: None,
            recommended: None,
            plateau_throughput: None,
            samples: 3,
            reason: "too few".to_string(),
        };
        let d = Decision::new(none, 8, Step { limit: 8, held: Held::default() });
        assert_eq!(d.to_string(), "INSUFFICIENT_DATA: limit 8 kept (no range, 3 samples): too few");
        let gauges: Vec<i64> = Gauge::ALL.iter().map(|g| d.gauge(*g)).collect();
        assert_eq!(gauges, vec![8, 0, 0]);
        let d = Decision::new(plateau(), 24, Step { limit: 20, held: Held::default() });
        assert_eq!(Gauge::ALL.map(|g| d.gauge(g)), [20, 16, 20]);
    }
}
