//! The workers of one thread for one filter: the current one, and ones replaced by a new configuration that still
//! hold slots for streams they admitted (their ends must still release them).

use log::info;

use super::acts::{prepare, Act};
use crate::host::Host;
use crate::limiter::Worker;
use crate::pace::TickWork;

pub struct Workers<H: Host> {
    pub current: Option<Worker<H>>,
    pub retired: Vec<Worker<H>>,
}

impl<H: Host> Default for Workers<H> {
    fn default() -> Workers<H> {
        Workers { current: None, retired: Vec::new() }
    }
}

impl<H: Host> Workers<H> {
    /// Makes `worker` the current one. The one it replaces is retired: its waiting and held requests would hang,
    /// since the new worker does not know them, so they are refused (the acts returned); its admitted ones stay
    /// tracked until they end.
    pub fn replace(&mut self, worker: Worker<H>) -> Vec<Act> {
        let Some(mut old) = self.current.replace(worker) else {
            return Vec::new();
        };
        let mut effects = Vec::new();
        old.retire(&mut effects);
        info!("pathfence: worker {} replaced; {} waiting request(s) refused", old.id(), effects.len());
        let acts = prepare(&old, effects);
        old.host().flush();
        self.retired.push(old);
        acts
    }

    /// Ends stream `context` on the worker that knows it; the work that left for the tick.
    pub fn end(&mut self, context: u32, acts: &mut Vec<Act>) -> TickWork {
        let mut effects = Vec::new();
        let owner = self.all_mut().find(|w| w.tracks(context));
        let Some(worker) = owner else {
            return TickWork::None;
        };
        worker.on_stream_end(context, &mut effects);
        acts.extend(prepare(worker, effects));
        worker.tick_work()
    }

    /// Every worker's tick.
    pub fn tick(&mut self, acts: &mut Vec<Act>) {
        for worker in self.all_mut() {
            let mut effects = Vec::new();
            worker.on_tick(&mut effects);
            acts.extend(prepare(worker, effects));
        }
    }

    /// The most pressing work any worker left for the tick.
    pub fn tick_work(&self) -> TickWork {
        self.all().map(Worker::tick_work).max().unwrap_or(TickWork::None)
    }

    /// Hands over the metric deltas: the current worker's when `current` (see [`super::flush`]), a retired
    /// worker's always, since it goes away with its last stream and its deltas with it.
    pub fn flush(&self, current: bool) {
        if current {
            self.current.iter().for_each(|w| w.host().flush());
        }
        self.retired.iter().for_each(|w| w.host().flush());
    }

    /// Drops the retired workers that are done: a retired worker stays until the last stream it admitted has ended
    /// and its tick has nothing left to do (a release still to be retried would otherwise wait for the reclaim).
    pub fn drop_done(&mut self) {
        self.retired.retain(|w| w.tracked() > 0 || w.has_tick_work());
    }

    pub fn all(&self) -> impl Iterator<Item = &Worker<H>> {
        self.current.iter().chain(self.retired.iter())
    }

    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut Worker<H>> {
        self.current.iter_mut().chain(self.retired.iter_mut())
    }
}
