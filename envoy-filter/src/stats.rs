//! The ids of the paths' stats, defined once per name for the life of the VM.
//!
//! Envoy never frees a stat a module defines: its name and value stay (in `/stats`, and in memory) as long as the
//! VM, and every definition also adds an entry to the VM's table of metric ids, even for a name it already has. A
//! worker started for a new configuration therefore reuses the ids this thread defined for earlier configurations
//! rather than defining them again: pushing a configuration again, or going back to earlier path names, costs
//! nothing; only a name never configured before on this VM adds its six stats (thirteen for a tuned path), for good.

use std::collections::HashMap;

use crate::config::Config;
use crate::host::{HostError, Metric};

/// A reservation's stat ids, in the order of [`Metric::ALL`]; `None` where the host refused the definition.
pub type Ids = [Option<u32>; Metric::COUNT];

/// The stat ids defined on this thread's VM so far, by stat name.
#[derive(Default)]
pub struct StatIds {
    ids: HashMap<String, u32>,
}

/// The name a stat is defined under (Envoy adds its `wasmcustom.` prefix), every stat's, the tuning's too: the path,
/// and the reason of a refusal or the verdict of a decision, written in Istio's tag form, `path=.=<path>;.;`, ahead
/// of the name Prometheus shows. An Envoy whose `stats_tags` extract them (the regexes of [`TAG_REGEXES`], which
/// Istio writes for `extraStatTags: [path, reason, verdict]`) takes them out of the name as tags, so Prometheus reads
/// `pathfence_path_rejected_total{path="a",reason="timeout"}`, as from the starter. Without them the stat is still
/// there, its tags left in the name.
pub fn stat_name(path: &str, metric: Metric) -> String {
    match (metric.reason(), metric.verdict()) {
        (Some(reason), _) => format!("path=.={path};.;reason=.={};.;{}", reason.tag(), metric.name()),
        (None, Some(verdict)) => format!("path=.={path};.;verdict=.={verdict};.;{}", metric.name()),
        (None, None) => format!("path=.={path};.;{}", metric.name()),
    }
}

/// The `stats_tags` that extract the path, the reason and the verdict, as (tag name, regex): the first group is cut
/// out of the name, the second is the tag's value. Path names are `[A-Za-z0-9_-]+`, so none ends a value early.
pub const TAG_REGEXES: [(&str, &str); 3] =
    [("path", r"(path=\.=(.*?);\.;)"), ("reason", r"(reason=\.=(.*?);\.;)"), ("verdict", r"(verdict=\.=(.*?);\.;)")];

impl StatIds {
    /// The ids of every reservation's stats, defining with `define` only the names not defined before. A
    /// definition that fails is logged by the caller's `define` and tried again with the next configuration.
    pub fn for_config(
        &mut self,
        config: &Config,
        mut define: impl FnMut(Metric, &str) -> Result<u32, HostError>,
    ) -> Vec<Ids> {
        config
            .reservations
            .iter()
            .map(|reservation| {
                Metric::ALL.map(|metric| {
                    // A path tuning does not size has no tuning stats: they would stay for the life of the VM.
                    if metric.is_tuning() && reservation.tuning.is_none() {
                        return None;
                    }
                    let name = stat_name(&reservation.name, metric);
                    if let Some(id) = self.ids.get(&name) {
                        return Some(*id);
                    }
                    let id = define(metric, &name).ok()?;
                    self.ids.insert(name, id);
                    Some(id)
                })
            })
            .collect()
    }

    /// How many stats have been defined on this VM.
    pub fn defined(&self) -> usize {
        self.ids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(names: &[&str]) -> Config {
        let paths: Vec<String> = names.iter().map(|n| format!(r#"{{"name": "{n}", "max_concurrency": 1}}"#)).collect();
        Config::parse(format!(r#"{{"paths": [{}]}}"#, paths.join(", ")).as_bytes()).unwrap()
    }

    #[test]
    fn configurations_pushed_again_and_again_define_each_stat_name_once() {
        let mut ids = StatIds::default();
        let mut defined: Vec<String> = Vec::new();
        let mut first_ids: HashMap<String, u32> = HashMap::new();
        // A control plane pushing a configuration 200 times, renaming `a` to `c` and back every time.
        for push in 0..200 {
            let names: &[&str] = if push % 2 == 0 { &["a", "b"] } else { &["c", "b"] };
            let config = config(names);
            let got = ids.for_config(&config, |_, name| {
                defined.push(name.to_string());
                Ok(u32::try_from(defined.len()).unwrap())
            });
            for (reservation, ids) in config.reservations.iter().zip(&got) {
                for (metric, id) in Metric::ALL.iter().zip(ids).filter(|(m, _)| !m.is_tuning()) {
                    let id = id.expect("every stat of an untuned path has an id");
                    let first = *first_ids.entry(stat_name(&reservation.name, *metric)).or_insert(id);
                    assert_eq!(id, first, "push {push}: {} {metric:?} got another id", reservation.name);
                }
            }
        }
        // a, b, c and local: six stats each, defined once.
        assert_eq!(defined.len(), 4 * 6, "{defined:?}");
        assert_eq!(ids.defined(), 4 * 6);
    }

    /// What Envoy's tag extraction does with the recipe: each regex's first group is cut out of the name and its
    /// second is the tag's value, leaving the name Prometheus shows.
    fn extracted(name: &str) -> (String, Vec<(String, String)>) {
        let mut name = name.to_string();
        let mut tags = Vec::new();
        for (tag, pattern) in TAG_REGEXES {
            let regex = regex::Regex::new(pattern).unwrap();
            if let Some(found) = regex.captures(&name) {
                tags.push((tag.to_string(), found[2].to_string()));
                name = name.replacen(&found[1], "", 1);
            }
        }
        (name, tags)
    }

    #[test]
    fn the_recipe_turns_each_stat_name_into_the_starters_name_and_its_tags() {
        let tags = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        assert_eq!(
            extracted(&stat_name("place-order", Metric::Active)),
            ("pathfence_path_active".to_string(), tags(&[("path", "place-order")]))
        );
        assert_eq!(
            extracted(&stat_name("a_b", Metric::Granted)),
            ("pathfence_path_granted_total".to_string(), tags(&[("path", "a_b")]))
        );
        assert_eq!(
            extracted(&stat_name("path", Metric::RejectedTimeout)),
            ("pathfence_path_rejected_total".to_string(), tags(&[("path", "path"), ("reason", "timeout")]))
        );
        assert_eq!(
            extracted(&stat_name("reason", Metric::RejectedQueueFull)),
            ("pathfence_path_rejected_total".to_string(), tags(&[("path", "reason"), ("reason", "queue-full")]))
        );
    }

    #[test]
    fn a_tuned_path_has_the_tuning_stats_too_named_like_the_others() {
        let config = Config::parse(br#"{"paths": [{"name": "a", "max_concurrency": 4}], "tuning": {}}"#).unwrap();
        let mut names = Vec::new();
        let got = StatIds::default().for_config(&config, |_, name| {
            names.push(name.to_string());
            Ok(u32::try_from(names.len()).unwrap())
        });
        assert!(got[0].iter().all(Option::is_some), "{names:?}");
        assert!(got[1].iter().zip(Metric::ALL).all(|(id, m)| id.is_some() != m.is_tuning()), "local is not tuned");
        for name in [
            "path=.=a;.;pathfence_path_permits",
            "path=.=a;.;pathfence_tuning_q_lower",
            "path=.=a;.;pathfence_tuning_q_upper",
            "path=.=a;.;verdict=.=explore;.;pathfence_tuning_decisions_total",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert_eq!(
            extracted(&stat_name("a", Metric::DecisionsNoPlateau)),
            (
                "pathfence_tuning_decisions_total".to_string(),
                vec![("path".to_string(), "a".to_string()), ("verdict".to_string(), "no-plateau".to_string())]
            )
        );
        assert_eq!(names.len(), 13 + 6);
    }

    #[test]
    fn a_definition_the_host_refused_is_tried_again_with_the_next_configuration() {
        let mut ids = StatIds::default();
        let refused = ids.for_config(&config(&["a"]), |_, _| Err(HostError("no".to_string())));
        assert!(refused.iter().flatten().all(Option::is_none));
        let mut n = 0;
        let got = ids.for_config(&config(&["a"]), |_, _| {
            n += 1;
            Ok(n)
        });
        let untuned = Metric::ALL.map(|m| !m.is_tuning());
        assert!(got.iter().all(|ids| ids.iter().zip(untuned).all(|(id, defined)| id.is_some() == defined)));
        assert_eq!(n, 2 * 6);
    }
}
