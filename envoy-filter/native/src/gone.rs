//! The configurations Envoy destroyed, for each worker thread to drop its fence of them on its next stream, and how
//! many threads still have one: a configuration is forgotten once it is gone and no thread has a fence of it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};

#[derive(Default)]
struct Tally {
    /// Worker threads with a fence of the configuration.
    fences: usize,
    gone: bool,
}

#[derive(Default)]
pub struct Configs {
    of: HashMap<u64, Tally>,
}

impl Configs {
    pub fn fence_made(&mut self, config: u64) {
        self.of.entry(config).or_default().fences += 1;
    }

    pub fn fence_dropped(&mut self, config: u64) {
        if let Some(tally) = self.of.get_mut(&config) {
            tally.fences = tally.fences.saturating_sub(1);
            self.forget_if_done(config);
        }
    }

    pub fn gone(&mut self, config: u64) {
        self.of.entry(config).or_default().gone = true;
        self.forget_if_done(config);
    }

    /// The configurations gone whose fences some threads still have.
    pub fn gone_ones(&self) -> Vec<u64> {
        self.of.iter().filter(|(_, tally)| tally.gone).map(|(config, _)| *config).collect()
    }

    fn forget_if_done(&mut self, config: u64) {
        if self.of.get(&config).is_some_and(|tally| tally.gone && tally.fences == 0) {
            self.of.remove(&config);
        }
    }
}

static CONFIGS: LazyLock<Mutex<Configs>> = LazyLock::new(|| Mutex::new(Configs::default()));
/// How many configurations went: a thread that has seen this many has nothing to look for.
static GONE_COUNT: AtomicU64 = AtomicU64::new(0);

/// The process's tally, for `f`; not to be called again within `f`.
pub fn configs<T>(f: impl FnOnce(&mut Configs) -> T) -> T {
    f(&mut CONFIGS.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Configuration `config` is gone.
pub fn went(config: u64) {
    configs(|configs| configs.gone(config));
    GONE_COUNT.fetch_add(1, Ordering::Release);
}

pub fn gone_count() -> u64 {
    GONE_COUNT.load(Ordering::Acquire)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_configuration_is_forgotten_when_its_last_fence_is_dropped() {
        let mut configs = Configs::default();
        configs.fence_made(1);
        configs.fence_made(1);
        configs.fence_made(2);
        configs.gone(1);
        assert_eq!(configs.gone_ones(), vec![1]);
        configs.fence_dropped(1);
        assert_eq!(configs.gone_ones(), vec![1], "one thread still has a fence of it");
        configs.fence_dropped(1);
        assert_eq!(configs.gone_ones(), Vec::<u64>::new());
        assert_eq!(configs.of.len(), 1, "only the live configuration is left");
    }

    #[test]
    fn a_configuration_gone_before_any_thread_made_a_fence_of_it_is_forgotten_at_once() {
        let mut configs = Configs::default();
        configs.gone(3);
        assert!(configs.of.is_empty());
    }
}
