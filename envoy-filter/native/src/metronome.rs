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

use crate::abi::{SchedulerCommitFn, SchedulerPtr};

/// When nothing is due, the metronome still wakes this often, to look again.
const IDLE_WAKE: Duration = Duration::from_secs(1);

struct Beat {
    /// The anchor's scheduler, kept as an address: it is only ever used under the lock.
    scheduler: Option<usize>,
    period: Duration,
    due: Instant,
}

pub struct Metronome {
    beats: Mutex<HashMap<u64, Beat>>,
    changed: Condvar,
    commit: SchedulerCommitFn,
}

impl Metronome {
    /// The module's metronome, its thread started on first use; `None` if the thread cannot be started.
    pub fn get(commit: SchedulerCommitFn) -> Option<&'static Metronome> {
        static METRONOME: OnceLock<Option<&'static Metronome>> = OnceLock::new();
        *METRONOME.get_or_init(|| {
            let metronome: &'static Metronome =
                Box::leak(Box::new(Metronome { beats: Mutex::new(HashMap::new()), changed: Condvar::new(), commit }));
            thread::Builder::new().name("pathfence-tick".to_string()).spawn(move || metronome.run()).ok()?;
            Some(metronome)
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Beat>> {
        self.beats.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets the tick period of fence `fence`; a shorter one takes effect at once.
    pub fn set_period(&self, fence: u64, period: Duration) {
        let now = Instant::now();
        let mut beats = self.lock();
        let beat = beats.entry(fence).or_insert(Beat { scheduler: None, period, due: now + period });
        beat.period = period;
        if beat.due > now + period {
            beat.due = now + period;
            self.changed.notify_one();
        }
    }

    /// Makes `scheduler` the anchor of fence `fence`; returns the one it replaces, no longer committed, for the
    /// caller to delete.
    pub fn anchor(&self, fence: u64, scheduler: Option<SchedulerPtr>) -> Option<SchedulerPtr> {
        let now = Instant::now();
        let mut beats = self.lock();
        let beat = beats.entry(fence).or_insert(Beat { scheduler: None, period: IDLE_WAKE, due: now + IDLE_WAKE });
        let old = std::mem::replace(&mut beat.scheduler, scheduler.map(|s| s as usize));
        self.changed.notify_one();
        old.map(|s| s as SchedulerPtr)
    }

    /// Forgets fence `fence`; returns its anchor, no longer committed, for the caller to delete.
    pub fn forget(&self, fence: u64) -> Option<SchedulerPtr> {
        self.lock().remove(&fence).and_then(|beat| beat.scheduler).map(|s| s as SchedulerPtr)
    }

    fn run(&self) {
        let mut beats = self.lock();
        loop {
            let now = Instant::now();
            let mut next = now + IDLE_WAKE;
            for (fence, beat) in beats.iter_mut() {
                let Some(scheduler) = beat.scheduler else { continue };
                if beat.due <= now {
                    // SAFETY: the scheduler is in the table, so its fence has not deleted it (see the module doc).
                    unsafe { (self.commit)(scheduler as SchedulerPtr, *fence) };
                    beat.due = now + beat.period;
                }
                next = next.min(beat.due);
            }
            let wait = next.saturating_duration_since(Instant::now());
            beats = match self.changed.wait_timeout(beats, wait) {
                Ok((beats, _)) => beats,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}
