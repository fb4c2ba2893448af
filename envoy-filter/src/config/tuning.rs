//! The `tuning` settings: sizing each bounded path's limit online with the SCT model (`src/sct/`), with the
//! defaults of the starter's tuner (`pathfence.tuning.*`) where the filter has the same setting.

use serde::Deserialize;

use super::objects::object;
use super::{error, ConfigError, MAX_TIME_MS};
use crate::sct::guards::Guards;
use crate::sct::settings::ModelSettings;

fn default_interval_ms() -> u64 {
    50
}
fn default_window_s() -> u64 {
    60
}
fn default_max_step() -> u32 {
    4
}
fn default_hysteresis() -> u32 {
    2
}
fn default_min() -> u32 {
    1
}

/// A window holds at most this many intervals: the analysing worker reads every worker's record of each from
/// shared data once a period, 56 bytes a record.
pub const MAX_WINDOW_INTERVALS: u64 = 10_000;

/// The top-level `tuning` object as written; present, it turns tuning on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTuning {
    /// Length of one sampling interval.
    #[serde(default = "default_interval_ms")]
    pub interval_ms: u64,
    /// The window of intervals each analysis looks at.
    #[serde(default = "default_window_s")]
    pub window_s: u64,
    /// How often a decision is made; a quarter of the window when left out.
    pub period_s: Option<u64>,
    /// The most one decision changes a limit by.
    #[serde(default = "default_max_step")]
    pub max_step: u32,
    /// The least change a plateau recommendation must ask for to be applied.
    #[serde(default = "default_hysteresis")]
    pub hysteresis: u32,
    /// The model's own parameters, with sct-tuner's names and defaults.
    #[serde(default, deserialize_with = "object")]
    pub model: ModelSettings,
}

/// A path's `tuning` object: the bounds of its tuned limit.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPathTuning {
    #[serde(default = "default_min")]
    pub min: u32,
    /// No upper bound when left out.
    pub max: Option<u32>,
}

/// The validated tuning settings, shared by every tuned path.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    pub interval_ns: u64,
    /// How many intervals one analysis looks at.
    pub window_intervals: u64,
    pub period_ns: u64,
    pub max_step: u32,
    pub hysteresis: u32,
    pub model: ModelSettings,
}

const NS_PER_MS: u64 = 1_000_000;

impl Tuning {
    pub fn validate(raw: &RawTuning) -> Result<Tuning, ConfigError> {
        if raw.interval_ms == 0 {
            return Err(error("tuning.interval_ms", "must be at least 1"));
        }
        if raw.interval_ms > MAX_TIME_MS {
            return Err(error(
                "tuning.interval_ms",
                format!("must be from 1 to {MAX_TIME_MS}, not {}", raw.interval_ms),
            ));
        }
        let window_ms = raw.window_s.saturating_mul(1000);
        if raw.window_s == 0 || raw.window_s > MAX_TIME_MS / 1000 {
            return Err(error(
                "tuning.window_s",
                format!("must be from 1 to {}, not {}", MAX_TIME_MS / 1000, raw.window_s),
            ));
        }
        let window_intervals = window_ms / raw.interval_ms;
        if window_intervals < 2 {
            return Err(error("tuning.window_s", "must hold at least two intervals of `tuning.interval_ms`"));
        }
        if window_intervals > MAX_WINDOW_INTERVALS {
            return Err(error(
                "tuning.window_s",
                format!(
                    "holds {window_intervals} intervals of `tuning.interval_ms`, more than {MAX_WINDOW_INTERVALS}: \
                     lengthen the interval or shorten the window"
                ),
            ));
        }
        let period_s = raw.period_s.unwrap_or((raw.window_s / 4).max(1));
        if period_s == 0 || period_s > raw.window_s {
            return Err(error(
                "tuning.period_s",
                format!("must be from 1 to `tuning.window_s` ({}), not {period_s}", raw.window_s),
            ));
        }
        if raw.max_step == 0 {
            return Err(error("tuning.max_step", "must be at least 1"));
        }
        raw.model.check().map_err(|e| error(format!("tuning.model.{}", e.field), format!("must be {}", e.allowed)))?;
        Ok(Tuning {
            interval_ns: raw.interval_ms * NS_PER_MS,
            window_intervals,
            period_ns: period_s * 1000 * NS_PER_MS,
            max_step: raw.max_step,
            hysteresis: raw.hysteresis,
            model: raw.model.clone(),
        })
    }

    /// The guards of a path tuned within `bounds`.
    pub fn guards(&self, bounds: Bounds) -> Guards {
        Guards { min: bounds.min, max: bounds.max, max_step: self.max_step, hysteresis: self.hysteresis }
    }
}

/// The least and the most a tuned path's limit may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub min: u32,
    pub max: u32,
}

impl Bounds {
    /// The bounds of `paths[i]` (`at` names its fields), whose starting limit `start` must lie within them.
    pub fn validate(
        raw: Option<&RawPathTuning>,
        start: u32,
        at: &dyn Fn(&str) -> String,
    ) -> Result<Bounds, ConfigError> {
        let min = raw.map_or(default_min(), |r| r.min);
        let max = raw.and_then(|r| r.max).unwrap_or(u32::MAX);
        if min == 0 {
            return Err(error(at("tuning.min"), "must be at least 1 (a limit of 0 would refuse the path for good)"));
        }
        if max < min {
            return Err(error(at("tuning.max"), format!("must be at least `tuning.min` ({min}), not {max}")));
        }
        if !(min..=max).contains(&start) {
            return Err(error(
                at("max_concurrency"),
                format!("is the starting limit of a tuned path and must be from `tuning.min` ({min}) to `tuning.max` ({max}), not {start}"),
            ));
        }
        Ok(Bounds { min, max })
    }

    pub fn clamp(self, limit: u32) -> u32 {
        limit.clamp(self.min, self.max.max(self.min))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Config, ConfigError};
    use super::*;
    use crate::per_path::PathIndex;

    fn parse(json: &str) -> Result<Config, ConfigError> {
        Config::parse(json.as_bytes())
    }

    fn with(tuning: &str, path_tuning: &str) -> Result<Config, ConfigError> {
        parse(&format!(
            r#"{{"paths": [{{"name": "a", "max_concurrency": 8{path_tuning}}}, {{"name": "b", "max_concurrency": 2}}],
                "local": {{"max_concurrency": 2}}{tuning}}}"#
        ))
    }

    fn refused(tuning: &str, path_tuning: &str) -> String {
        with(tuning, path_tuning).map(|_| ()).unwrap_err().field
    }

    #[test]
    fn without_tuning_no_path_is_tuned() {
        let c = with("", "").unwrap();
        assert_eq!(c.tuning, None);
        assert!(c.reservations.iter().all(|r| r.tuning.is_none()));
    }

    #[test]
    fn an_empty_tuning_object_turns_tuning_on_with_the_starters_defaults_for_every_configured_path() {
        let c = with(r#", "tuning": {}"#, "").unwrap();
        let t = c.tuning.clone().unwrap();
        assert_eq!((t.interval_ns, t.window_intervals, t.period_ns), (50_000_000, 1200, 15_000_000_000));
        assert_eq!((t.max_step, t.hysteresis), (4, 2));
        assert_eq!(t.model, ModelSettings::default());
        assert_eq!(c.reservations[0].tuning, Some(Bounds { min: 1, max: u32::MAX }));
        assert_eq!(c.reservations[1].tuning, Some(Bounds { min: 1, max: u32::MAX }));
        // The local path keeps its limit: it takes what the paths leave, and borrows.
        assert_eq!(c.reservations[2].tuning, None);
        assert_eq!(c.tuned(PathIndex(0)), Some(Bounds { min: 1, max: u32::MAX }));
        assert_eq!(c.tuned(c.local()), None);
    }

    #[test]
    fn every_setting_is_read() {
        let c = with(
            r#", "tuning": {"interval_ms": 20, "window_s": 4, "period_s": 1, "max_step": 8, "hysteresis": 0,
                            "model": {"tolerance": 0.05}}"#,
            r#", "tuning": {"min": 2, "max": 12}"#,
        )
        .unwrap();
        let t = c.tuning.clone().unwrap();
        assert_eq!((t.interval_ns, t.window_intervals, t.period_ns), (20_000_000, 200, 1_000_000_000));
        assert_eq!((t.max_step, t.hysteresis, t.model.tolerance), (8, 0, 0.05));
        assert_eq!(c.reservations[0].tuning, Some(Bounds { min: 2, max: 12 }));
        assert_eq!(t.guards(Bounds { min: 2, max: 12 }), Guards { min: 2, max: 12, max_step: 8, hysteresis: 0 });
    }

    #[test]
    fn each_invalid_value_is_refused_naming_its_field() {
        let cases = [
            (r#", "tuning": {"interval_ms": 0}"#, "", "tuning.interval_ms"),
            (r#", "tuning": {"interval_ms": 3600001}"#, "", "tuning.interval_ms"),
            (r#", "tuning": {"interval_ms": -5}"#, "", "tuning.interval_ms"),
            (r#", "tuning": {"window_s": 0}"#, "", "tuning.window_s"),
            (r#", "tuning": {"window_s": 1, "interval_ms": 600}"#, "", "tuning.window_s"),
            (r#", "tuning": {"window_s": 600, "interval_ms": 1}"#, "", "tuning.window_s"),
            (r#", "tuning": {"window_s": 4, "period_s": 5}"#, "", "tuning.period_s"),
            (r#", "tuning": {"period_s": 0}"#, "", "tuning.period_s"),
            (r#", "tuning": {"max_step": 0}"#, "", "tuning.max_step"),
            (r#", "tuning": {"hysteresis": "2"}"#, "", "tuning.hysteresis"),
            (r#", "tuning": {"max_stepp": 2}"#, "", "tuning.max_stepp"),
            (r#", "tuning": {"model": {"tolerance": 1.5}}"#, "", "tuning.model.tolerance"),
            (r#", "tuning": {"model": {"tolerence": 0.1}}"#, "", "tuning.model.tolerence"),
            (r#", "tuning": {"model": [1]}"#, "", "tuning.model"),
            (r#", "tuning": [50]"#, "", "tuning"),
            (r#", "tuning": {}"#, r#", "tuning": {"min": 0}"#, "paths[0].tuning.min"),
            (r#", "tuning": {}"#, r#", "tuning": {"min": 4, "max": 3}"#, "paths[0].tuning.max"),
            (r#", "tuning": {}"#, r#", "tuning": {"min": 9}"#, "paths[0].max_concurrency"),
            (r#", "tuning": {}"#, r#", "tuning": {"max": 7}"#, "paths[0].max_concurrency"),
            (r#", "tuning": {}"#, r#", "tuning": {"maximum": 7}"#, "paths[0].tuning.maximum"),
            (r#", "tuning": {}"#, r#", "tuning": 7"#, "paths[0].tuning"),
        ];
        for (tuning, path_tuning, field) in cases {
            assert_eq!(refused(tuning, path_tuning), field, "{tuning} {path_tuning}");
        }
    }

    #[test]
    fn a_tuned_limit_is_applied_within_the_bounds_and_a_fixed_one_never_moves() {
        let mut c = with(r#", "tuning": {}"#, r#", "tuning": {"min": 2, "max": 12}"#).unwrap();
        c.set_limit(PathIndex(0), 30);
        assert_eq!(c.limit(PathIndex(0)), Some(12));
        c.set_limit(PathIndex(0), 0);
        assert_eq!(c.limit(PathIndex(0)), Some(2));
        c.set_limit(PathIndex(0), 5);
        assert_eq!(c.limit(PathIndex(0)), Some(5));
        let local = c.local();
        c.set_limit(local, 9);
        c.set_limit(PathIndex(7), 9);
        assert_eq!(c.limit(local), Some(2));
        let mut fixed = with("", "").unwrap();
        fixed.set_limit(PathIndex(0), 3);
        assert_eq!(fixed.limit(PathIndex(0)), Some(8));
    }

    #[test]
    fn the_local_path_takes_no_tuning_bounds() {
        let e =
            parse(r#"{"paths": [], "local": {"max_concurrency": 2, "tuning": {"min": 1}}, "tuning": {}}"#).unwrap_err();
        assert_eq!(e.field, "local.tuning");
    }

    #[test]
    fn path_bounds_without_tuning_are_accepted_with_a_warning() {
        let c = with("", r#", "tuning": {"min": 2}"#).unwrap();
        assert_eq!(c.reservations[0].tuning, None);
        let warnings = c.warnings();
        assert!(warnings.iter().any(|w| w.contains("`paths[0].tuning`")), "{warnings:?}");
    }
}
