//! How often a worker ticks.
//!
//! A tick costs Envoy a timer wake-up, an entry into the VM and several hostcalls whether or not there is anything
//! to do: on the bench machine, ticking every 2 ms on two workers cost about 40 ms of CPU per second with no traffic
//! at all, and about 2 µs of Envoy's CPU per request at saturation. So a worker ticks only as often as its most
//! pressing work calls for ([`TickWork`]): every 2 ms while requests wait or are held, here or on another worker
//! it has seen; every 5 ms while all it has are spare slots; every 100 ms otherwise, which still keeps its
//! heartbeat and the reclaim on time. A stream event that leaves more pressing work brings the faster pace back
//! at once (Envoy re-arms a worker's tick timer when its period changes); the pace slows down only after 100 ms
//! in which neither the ticks nor the events between them had work for it, so that a trickle of requests does not
//! reset the timer on every tick. Spares in particular may all go back on a tick (when requests took none since
//! the tick before): then what keeps the spares pace is the stream events that leave new ones between ticks.

/// What a worker's next tick has to do, from the least to the most pressing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TickWork {
    /// Heartbeat and reclaim only.
    None,
    /// Spare slots to give back. They keep another worker's waiters from a slot only until this worker's next
    /// tick, which reads those waiters and from then on ticks at the prompt pace.
    Spares,
    /// Requests waiting or held (here, or seen on another worker), releases to retry, waiters to publish.
    Prompt,
}

/// The pace while requests wait: a waiter on another worker is resumed within about two of these.
pub const PROMPT_TICK_MS: u64 = 2;
/// The pace with spare slots and nobody waiting anywhere this worker has seen. A waiter that appears on another
/// worker meanwhile waits about this long, plus a prompt tick of its own worker, for a spare parked here.
pub const SPARES_TICK_MS: u64 = 5;
/// The pace with nothing to do; well under the heartbeat interval, see [`crate::config::MIN_WORKER_LEASE_MS`].
pub const IDLE_TICK_MS: u64 = 100;
/// How long a worker keeps a pace after the last work that called for it.
const SLOW_DOWN_AFTER_MS: u64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The work this pace is for.
    level: TickWork,
    /// Time ticked at this pace since work of its level was last seen.
    calm_ms: u64,
    /// The most pressing work stream events left since the last tick.
    since_tick: TickWork,
}

impl Default for Pace {
    /// A new worker starts at the prompt pace.
    fn default() -> Pace {
        Pace { level: TickWork::Prompt, calm_ms: 0, since_tick: TickWork::None }
    }
}

impl Pace {
    /// Whether this pace ticks at least as often as `work` calls for.
    #[cfg(test)]
    pub fn serves(&self, work: TickWork) -> bool {
        self.level >= work
    }

    pub fn is_idle(&self) -> bool {
        self.level == TickWork::None
    }

    pub fn period_ms(&self) -> u64 {
        period_ms(self.level)
    }

    /// After a tick, given the work left for later ticks; the new period if it changes.
    pub fn after_tick(&mut self, work: TickWork) -> Option<u64> {
        let seen = work.max(std::mem::replace(&mut self.since_tick, TickWork::None));
        if seen >= self.level {
            return self.keep_up_with(seen);
        }
        self.calm_ms = self.calm_ms.saturating_add(self.period_ms());
        if self.calm_ms >= SLOW_DOWN_AFTER_MS {
            return self.set(seen);
        }
        None
    }

    /// After a stream event, given the work it left for the tick; the new period if it changes. An event never
    /// slows the pace down.
    pub fn after_event(&mut self, work: TickWork) -> Option<u64> {
        self.since_tick = self.since_tick.max(work);
        if work < self.level {
            return None;
        }
        self.keep_up_with(work)
    }

    /// Work at this pace's level or above: the calm run starts over, and more pressing work speeds the pace up.
    fn keep_up_with(&mut self, work: TickWork) -> Option<u64> {
        self.calm_ms = 0;
        if work == self.level {
            return None;
        }
        self.set(work)
    }

    fn set(&mut self, level: TickWork) -> Option<u64> {
        let before = self.period_ms();
        self.level = level;
        self.calm_ms = 0;
        (self.period_ms() != before).then(|| self.period_ms())
    }
}

fn period_ms(level: TickWork) -> u64 {
    match level {
        TickWork::Prompt => PROMPT_TICK_MS,
        TickWork::Spares => SPARES_TICK_MS,
        TickWork::None => IDLE_TICK_MS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks at the current pace with `work` left after each, until the pace changes or `max` ticks went by;
    /// the time that took and the new period.
    fn tick_until_change(pace: &mut Pace, work: TickWork, max: u32) -> (u64, Option<u64>) {
        let mut elapsed = 0;
        for _ in 0..max {
            elapsed += pace.period_ms();
            if let Some(period) = pace.after_tick(work) {
                return (elapsed, Some(period));
            }
        }
        (elapsed, None)
    }

    #[test]
    fn with_nothing_to_do_the_prompt_pace_slows_to_idle_after_100_ms() {
        let mut pace = Pace::default();
        assert_eq!(pace.period_ms(), PROMPT_TICK_MS);
        assert_eq!(tick_until_change(&mut pace, TickWork::None, 1000), (SLOW_DOWN_AFTER_MS, Some(IDLE_TICK_MS)));
        assert!(pace.is_idle());
        assert_eq!(pace.after_tick(TickWork::None), None, "already idle");
    }

    /// Under load without waiters, where every stream end leaves a spare and every tick gives them all back: the
    /// events alone keep the pace.
    fn spares_between_ticks(pace: &mut Pace, ms: u64) -> Vec<u64> {
        let mut changes = Vec::new();
        let mut elapsed = 0;
        while elapsed < ms {
            changes.extend(pace.after_event(TickWork::Spares));
            elapsed += pace.period_ms();
            changes.extend(pace.after_tick(TickWork::None));
        }
        changes
    }

    #[test]
    fn spares_left_between_ticks_slow_the_prompt_pace_to_the_spares_pace_and_keep_it() {
        let mut pace = Pace::default();
        assert_eq!(spares_between_ticks(&mut pace, 1000), vec![SPARES_TICK_MS], "straight to 5 ms, never idle");
        assert_eq!(pace.period_ms(), SPARES_TICK_MS);
        assert_eq!(tick_until_change(&mut pace, TickWork::None, 1000), (SLOW_DOWN_AFTER_MS, Some(IDLE_TICK_MS)));
    }

    #[test]
    fn from_idle_the_first_spare_brings_the_spares_pace_at_once() {
        let mut pace = Pace::default();
        tick_until_change(&mut pace, TickWork::None, 1000);
        assert_eq!(pace.after_event(TickWork::Spares), Some(SPARES_TICK_MS));
        assert_eq!(spares_between_ticks(&mut pace, 1000), Vec::<u64>::new());
    }

    #[test]
    fn more_pressing_work_brings_its_pace_back_at_once() {
        let mut pace = Pace::default();
        tick_until_change(&mut pace, TickWork::None, 1000);
        assert_eq!(pace.after_event(TickWork::None), None, "an event that leaves nothing to do changes nothing");
        assert_eq!(pace.after_event(TickWork::Spares), Some(SPARES_TICK_MS));
        assert_eq!(pace.after_tick(TickWork::Prompt), Some(PROMPT_TICK_MS), "from a tick as well as an event");
        assert_eq!(pace.after_event(TickWork::Prompt), None, "already prompt");
        assert_eq!(pace.after_event(TickWork::Spares), None, "an event never slows the pace down");
    }

    #[test]
    fn work_of_the_current_level_restarts_the_calm_run() {
        let mut pace = Pace::default();
        for _ in 0..SLOW_DOWN_AFTER_MS / PROMPT_TICK_MS - 1 {
            assert_eq!(pace.after_tick(TickWork::None), None);
        }
        pace.after_event(TickWork::Prompt);
        assert_eq!(pace.after_tick(TickWork::None), None, "the run of calm ticks started again");
        assert_eq!(pace.period_ms(), PROMPT_TICK_MS);
    }
}
