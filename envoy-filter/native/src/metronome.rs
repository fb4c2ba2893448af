//! The tick of every worker thread's fence.
//!
//! The filter's runtime needs a tick on each worker thread, at a period it changes as its work changes (see
//! `pathfence_envoy_filter::pace`). Proxy-wasm gives each root context a timer; ABI v0.2.0 gives an HTTP filter no
//! timer at all. What it has is a scheduler per stream (`http_filter_scheduler_new`): committed from any thread,
//! it posts an event to the worker thread that owns the stream, which Envoy hands to
//! `envoy_dynamic_module_on_http_filter_scheduled` as long as the stream is still there. So each fence keeps the
//! scheduler of one of its live streams (its *anchor*), and one thread of the module, this metronome, commits each
//! anchor when its fence's tick is due. A fence without a live stream on its thread has no anchor and does not tick
//! (see `fence.rs` for what it does instead).
//!
//! A scheduler is committed only under the lock, and taken out of the table under the lock before its fence deletes
//! it, so no commit can reach a deleted one.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use pathfence_envoy_filter::pace::IDLE_TICK_MS;

use crate::abi::{SchedulerCommitFn, SchedulerPtr};

/// When nothing is due, the metronome still wakes this often, to look again.
const IDLE_WAKE: Duration = Duration::from_secs(1);

/// A fence anchored again after going this long without a tick is ticked at once: its heartbeat and its reclaim of
/// other workers' leftovers ride on its ticks, and the idle pace is the slowest they are paced for.
const OVERDUE: Duration = Duration::from_millis(IDLE_TICK_MS);

struct Beat {
    /// The anchor's scheduler, kept as an address: it is only ever used under the lock.
    scheduler: Option<usize>,
    period: Duration,
    due: Instant,
    /// When the metronome last committed this fence's anchor.
    ticked: Instant,
}

/// Every fence's beat, and when the metronome's thread wakes next: the state under the lock. Each step takes the
/// time, so that the tests feed it exact instants.
struct Beats {
    of: HashMap<u64, Beat>,
    /// When the thread wakes next, as it went to sleep; `None` before it first did.
    wakes_at: Option<Instant>,
}

impl Beats {
    fn new() -> Beats {
        Beats { of: HashMap::new(), wakes_at: None }
    }

    fn beat(&mut self, fence: u64, now: Instant) -> &mut Beat {
        self.of.entry(fence).or_insert(Beat { scheduler: None, period: IDLE_WAKE, due: now + IDLE_WAKE, ticked: now })
    }

    /// Whether the thread must be woken for `fence`'s beat: only if it is anchored and due before the thread would
    /// wake anyway.
    fn must_wake(&self, fence: u64) -> bool {
        let Some(beat) = self.of.get(&fence) else { return false };
        beat.scheduler.is_some() && self.wakes_at.is_none_or(|wakes_at| beat.due < wakes_at)
    }

    /// Sets `fence`'s period; a shorter one takes effect at once. Whether to wake the thread.
    fn set_period(&mut self, fence: u64, period: Duration, now: Instant) -> bool {
        let beat = self.beat(fence, now);
        beat.period = period;
        beat.due = beat.due.min(now + period);
        self.must_wake(fence)
    }

    /// Makes `scheduler` `fence`'s anchor; the one it replaces, and whether to wake the thread.
    ///
    /// An anchor that takes over from another keeps its due time: the fence had live streams all along, so its ticks
    /// keep their cadence. A fence anchored again after a spell without streams was not ticked meanwhile, and needed
    /// not be (its last stream gave back what it held as it ended): its tick comes one period after it is anchored,
    /// or sooner if one was already due sooner, so that streams that come and go faster than the period do not each
    /// post a tick across threads. Unless its last tick is [`OVERDUE`].
    fn anchor(&mut self, fence: u64, scheduler: Option<usize>, now: Instant) -> (Option<usize>, bool) {
        let beat = self.beat(fence, now);
        let old = std::mem::replace(&mut beat.scheduler, scheduler);
        if old.is_some() || scheduler.is_none() {
            return (old, false);
        }
        beat.due = if now.saturating_duration_since(beat.ticked) >= OVERDUE {
            now
        } else if beat.due > now {
            beat.due
        } else {
            now + beat.period
        };
        (old, self.must_wake(fence))
    }

    /// Commits (through `commit`) each anchor whose tick is due at `now`; when the thread is to wake next.
    fn tick(&mut self, now: Instant, mut commit: impl FnMut(usize, u64)) -> Instant {
        let mut next = now + IDLE_WAKE;
        for (fence, beat) in &mut self.of {
            let Some(scheduler) = beat.scheduler else { continue };
            if beat.due <= now {
                commit(scheduler, *fence);
                beat.due = now + beat.period;
                beat.ticked = now;
            }
            next = next.min(beat.due);
        }
        self.wakes_at = Some(next);
        next
    }
}

pub struct Metronome {
    beats: Mutex<Beats>,
    changed: Condvar,
    commit: SchedulerCommitFn,
}

impl Metronome {
    /// The module's metronome, its thread started on first use; `None` if the thread cannot be started.
    pub fn get(commit: SchedulerCommitFn) -> Option<&'static Metronome> {
        static METRONOME: OnceLock<Option<&'static Metronome>> = OnceLock::new();
        *METRONOME.get_or_init(|| {
            let metronome: &'static Metronome =
                Box::leak(Box::new(Metronome { beats: Mutex::new(Beats::new()), changed: Condvar::new(), commit }));
            thread::Builder::new().name("pathfence-tick".to_string()).spawn(move || metronome.run()).ok()?;
            Some(metronome)
        })
    }

    fn lock(&self) -> MutexGuard<'_, Beats> {
        self.beats.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets the tick period of fence `fence`; a shorter one takes effect at once.
    pub fn set_period(&self, fence: u64, period: Duration) {
        if self.lock().set_period(fence, period, Instant::now()) {
            self.changed.notify_one();
        }
    }

    /// Makes `scheduler` the anchor of fence `fence`; returns the one it replaces, no longer committed, for the
    /// caller to delete.
    pub fn anchor(&self, fence: u64, scheduler: Option<SchedulerPtr>) -> Option<SchedulerPtr> {
        let (old, wake) = self.lock().anchor(fence, scheduler.map(|s| s as usize), Instant::now());
        if wake {
            self.changed.notify_one();
        }
        old.map(|s| s as SchedulerPtr)
    }

    /// Forgets fence `fence`; returns its anchor, no longer committed, for the caller to delete.
    pub fn forget(&self, fence: u64) -> Option<SchedulerPtr> {
        self.lock().of.remove(&fence).and_then(|beat| beat.scheduler).map(|s| s as SchedulerPtr)
    }

    fn run(&self) {
        let mut beats = self.lock();
        loop {
            let next = beats.tick(Instant::now(), |scheduler, fence| {
                // SAFETY: the scheduler is in the table, so its fence has not deleted it (see the module doc).
                unsafe { (self.commit)(scheduler as SchedulerPtr, fence) };
            });
            let wait = next.saturating_duration_since(Instant::now());
            beats = match self.changed.wait_timeout(beats, wait) {
                Ok((beats, _)) => beats,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests;
