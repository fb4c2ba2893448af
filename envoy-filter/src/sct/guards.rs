//! Between what SCT recommends and the limit a path gets (the starter's `ReservationStep`, without its pool):
//!
//! `next = current + clamp(clamp(recommended, min, max) − current, −max_step, max_step)`
//!
//! A plateau recommendation closer to the current limit than `hysteresis` is ignored, so a limit does not flap on
//! noise; an exploring step is always taken, as it is how the tuner learns what it has not seen.

use super::settings::SettingError;
use super::verdict::Verdict;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guards {
    /// The least a tuned limit may be.
    pub min: u32,
    /// The most a tuned limit may be.
    pub max: u32,
    /// The most one decision may change a limit by.
    pub max_step: u32,
    /// The least change a plateau recommendation must ask for to be applied.
    pub hysteresis: u32,
}

/// Which guards kept the limit from the recommendation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Held {
    /// The recommendation was outside `[min, max]`.
    pub bounds: bool,
    /// A plateau recommendation asked for less than `hysteresis`.
    pub hysteresis: bool,
    /// The change was cut to `max_step`.
    pub max_step: bool,
    /// A plateau would have lowered the limit although the window showed no saturation (no request waited for a
    /// slot, the response time did not grow across the plateau): the load's limit, not the path's (see
    /// [`super::tuner::PathTuner::decide`]).
    pub demand: bool,
}

impl Held {
    pub fn any(self) -> bool {
        self.bounds || self.hysteresis || self.max_step || self.demand
    }
}

/// The limit one decision sets, and what held it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub limit: u32,
    pub held: Held,
}

impl Guards {
    /// At least 1 ≤ min ≤ max (a limit of 0 would refuse the path for good) and a step of at least 1.
    pub fn check(&self) -> Result<(), SettingError> {
        let refuse = |field, allowed| Err(SettingError { field, allowed });
        if self.min < 1 {
            return refuse("min", "at least 1");
        }
        if self.max < self.min {
            return refuse("max", "at least min");
        }
        if self.max_step < 1 {
            return refuse("max_step", "at least 1");
        }
        Ok(())
    }

    /// The next limit from `current`; `current` itself when nothing is recommended.
    pub fn next(&self, verdict: Verdict, recommended: Option<u32>, current: u32) -> Step {
        let mut held = Held::default();
        let Some(recommended) = recommended else { return Step { limit: current, held } };
        // Written so that a max below min (refused by check) cannot panic.
        let target = recommended.max(self.min).min(self.max.max(self.min));
        held.bounds = target != recommended;
        let change = i64::from(target) - i64::from(current);
        if verdict == Verdict::Plateau && change.abs() < i64::from(self.hysteresis) {
            held.hysteresis = change != 0;
            return Step { limit: current, held };
        }
        let step = change.clamp(-i64::from(self.max_step), i64::from(self.max_step));
        held.max_step = step != change;
        let limit = u32::try_from((i64::from(current) + step).max(0)).unwrap_or(u32::MAX);
        Step { limit, held }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Guards = Guards { min: 2, max: 40, max_step: 4, hysteresis: 2 };

    fn limit(verdict: Verdict, recommended: Option<u32>, current: u32) -> (u32, Held) {
        let step = G.next(verdict, recommended, current);
        (step.limit, step.held)
    }

    #[test]
    fn nothing_recommended_keeps_the_limit() {
        assert_eq!(limit(Verdict::NoPlateau, None, 17), (17, Held::default()));
    }

    #[test]
    fn a_change_is_cut_to_the_max_step_either_way() {
        assert_eq!(limit(Verdict::Plateau, Some(10), 24), (20, Held { max_step: true, ..Held::default() }));
        assert_eq!(limit(Verdict::Explore, Some(30), 24), (28, Held { max_step: true, ..Held::default() }));
        assert_eq!(limit(Verdict::Plateau, Some(21), 24), (21, Held::default()));
    }

    #[test]
    fn a_small_plateau_change_is_ignored_but_an_exploring_step_is_taken() {
        assert_eq!(limit(Verdict::Plateau, Some(23), 24), (24, Held { hysteresis: true, ..Held::default() }));
        assert_eq!(limit(Verdict::Plateau, Some(24), 24), (24, Held::default()));
        assert_eq!(limit(Verdict::Plateau, Some(22), 24), (22, Held::default()), "a change of hysteresis applies");
        assert_eq!(limit(Verdict::Explore, Some(25), 24), (25, Held::default()));
    }

    #[test]
    fn the_recommendation_is_kept_within_min_and_max() {
        assert_eq!(limit(Verdict::Explore, Some(1), 3), (2, Held { bounds: true, ..Held::default() }));
        assert_eq!(limit(Verdict::Explore, Some(64), 39), (40, Held { bounds: true, ..Held::default() }));
        let both = Held { bounds: true, max_step: true, ..Held::default() };
        assert_eq!(limit(Verdict::Explore, Some(500), 10), (14, both));
    }

    #[test]
    fn a_limit_outside_the_bounds_moves_towards_them_by_steps() {
        assert_eq!(limit(Verdict::Plateau, Some(30), 100), (96, Held { max_step: true, ..Held::default() }));
    }

    #[test]
    fn check_names_the_field() {
        assert_eq!(G.check(), Ok(()));
        assert_eq!(Guards { min: 0, ..G }.check().map_err(|e| e.field), Err("min"));
        assert_eq!(Guards { max: 1, ..G }.check().map_err(|e| e.field), Err("max"));
        assert_eq!(Guards { max_step: 0, ..G }.check().map_err(|e| e.field), Err("max_step"));
    }

    #[test]
    fn unchecked_guards_never_panic() {
        let odd = Guards { min: 9, max: 3, max_step: 0, hysteresis: u32::MAX };
        for verdict in Verdict::ALL {
            for rec in [None, Some(0), Some(5), Some(u32::MAX)] {
                for current in [0, 5, u32::MAX] {
                    let _ = odd.next(verdict, rec, current);
                }
            }
        }
        let wide = Guards { min: 1, max: u32::MAX, max_step: u32::MAX, hysteresis: 0 };
        assert_eq!(wide.next(Verdict::Explore, Some(u32::MAX), 1).limit, u32::MAX);
    }
}
