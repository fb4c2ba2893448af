//! The SCT model's parameters, with sct-tuner's defaults and names (`SctConfig`, in snake case as in the shared
//! test vectors), so that one set of values means the same in the starter and in the filter.

use std::fmt;

use serde::Deserialize;

/// What the analysis of a window needs to know besides its samples.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelSettings {
    /// Samples are grouped on multiples of this concurrency.
    pub level_width: u32,
    /// Neighbouring sparse levels are merged until a group holds this many samples.
    pub min_samples_per_level: u32,
    /// With fewer qualified groups than this there is no range to find (only a probe, if requests wait).
    pub min_levels: u32,
    /// A shortfall under this fraction of the peak throughput is never "below the plateau".
    pub tolerance: f64,
    /// One-sided z of "significantly below the peak" (1.645: 95 %).
    pub confidence_z: f64,
    /// Q_upper stops before a level whose mean response time exceeds this; `None` for no limit.
    pub response_time_limit_ms: Option<f64>,
    /// Mean waiting requests at the top level from which a rising curve is explored rather than left alone.
    pub waiting_threshold: f64,
    /// An exploring step as a fraction of the level it starts from.
    pub explore_fraction: f64,
    /// The largest exploring step.
    pub explore_max_step: u32,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            level_width: 1,
            min_samples_per_level: 5,
            min_levels: 3,
            tolerance: 0.03,
            confidence_z: 1.645,
            response_time_limit_ms: None,
            waiting_threshold: 0.5,
            explore_fraction: 0.25,
            explore_max_step: 64,
        }
    }
}

/// A parameter out of its range: names the field and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    pub field: &'static str,
    pub allowed: &'static str,
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: must be {}", self.field, self.allowed)
    }
}

impl ModelSettings {
    /// The same ranges as sct-tuner's builder; NaN is refused everywhere.
    pub fn check(&self) -> Result<(), SettingError> {
        let refuse = |field, allowed| Err(SettingError { field, allowed });
        if self.level_width < 1 {
            return refuse("level_width", "at least 1");
        }
        if self.min_samples_per_level < 1 {
            return refuse("min_samples_per_level", "at least 1");
        }
        if self.min_levels < 2 {
            return refuse("min_levels", "at least 2");
        }
        if !(0.0..1.0).contains(&self.tolerance) {
            return refuse("tolerance", "in [0, 1)");
        }
        if !(self.confidence_z >= 0.0 && self.confidence_z.is_finite()) {
            return refuse("confidence_z", "finite and non-negative");
        }
        if let Some(limit) = self.response_time_limit_ms {
            if limit.is_nan() || limit <= 0.0 {
                return refuse("response_time_limit_ms", "positive (leave it out for no limit)");
            }
        }
        if !(self.waiting_threshold >= 0.0 && self.waiting_threshold.is_finite()) {
            return refuse("waiting_threshold", "finite and non-negative");
        }
        if !(self.explore_fraction > 0.0 && self.explore_fraction.is_finite()) {
            return refuse("explore_fraction", "finite and positive");
        }
        if self.explore_max_step < 1 {
            return refuse("explore_max_step", "at least 1");
        }
        Ok(())
    }

    /// One exploring step from `level`: a fraction of it, at least 1, at most `explore_max_step`.
    pub fn explore_step(&self, level: u32) -> u32 {
        let step = (f64::from(level) * self.explore_fraction).ceil().max(1.0);
        // `as` saturates; a step beyond u32 is capped by explore_max_step anyway.
        (step as u32).min(self.explore_max_step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_sct_tuners_and_pass_the_check() {
        let d = ModelSettings::default();
        assert_eq!((d.level_width, d.min_samples_per_level, d.min_levels, d.explore_max_step), (1, 5, 3, 64));
        assert_eq!((d.tolerance, d.confidence_z, d.waiting_threshold, d.explore_fraction), (0.03, 1.645, 0.5, 0.25));
        assert_eq!(d.response_time_limit_ms, None);
        assert_eq!(d.check(), Ok(()));
    }

    #[test]
    fn each_value_out_of_range_is_refused_naming_its_field() {
        type Spoil = fn(&mut ModelSettings);
        let cases: [(&str, Spoil); 11] = [
            ("level_width", |s| s.level_width = 0),
            ("min_samples_per_level", |s| s.min_samples_per_level = 0),
            ("min_levels", |s| s.min_levels = 1),
            ("tolerance", |s| s.tolerance = 1.0),
            ("tolerance", |s| s.tolerance = f64::NAN),
            ("confidence_z", |s| s.confidence_z = f64::INFINITY),
            ("response_time_limit_ms", |s| s.response_time_limit_ms = Some(0.0)),
            ("response_time_limit_ms", |s| s.response_time_limit_ms = Some(f64::NAN)),
            ("waiting_threshold", |s| s.waiting_threshold = -1.0),
            ("explore_fraction", |s| s.explore_fraction = 0.0),
            ("explore_max_step", |s| s.explore_max_step = 0),
        ];
        for (field, spoil) in cases {
            let mut s = ModelSettings::default();
            spoil(&mut s);
            assert_eq!(s.check().map_err(|e| e.field), Err(field));
        }
    }

    #[test]
    fn unknown_fields_are_refused() {
        let err = serde_json::from_str::<ModelSettings>(r#"{"tolerence": 0.1}"#).unwrap_err();
        assert!(err.to_string().contains("tolerence"), "{err}");
    }

    #[test]
    fn the_exploring_step_is_a_fraction_at_least_one_at_most_the_cap() {
        let s = ModelSettings { explore_max_step: 8, ..ModelSettings::default() };
        assert_eq!(s.explore_step(1), 1);
        assert_eq!(s.explore_step(8), 2);
        assert_eq!(s.explore_step(9), 3);
        assert_eq!(s.explore_step(40), 8);
        assert_eq!(s.explore_step(u32::MAX), 8);
    }
}
