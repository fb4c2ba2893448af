//! The metronome's steps at exact instants, its thread simulated: it steps whenever it is woken and whenever its
//! sleep ends.

use super::*;

const FENCE: u64 = 7;
const PERIOD: Duration = Duration::from_millis(5);

struct Simulated {
    beats: Beats,
    start: Instant,
    sleeps_until: Instant,
    /// Each commit: when, in µs from the start, and which scheduler.
    commits: Vec<(u64, usize)>,
    wakes: u32,
}

impl Simulated {
    /// A fence just configured with `PERIOD`, as `Fence::of` leaves it, and the thread asleep.
    fn new() -> Simulated {
        let start = Instant::now();
        let mut simulated =
            Simulated { beats: Beats::new(), start, sleeps_until: start, commits: Vec::new(), wakes: 0 };
        simulated.beats.set_period(FENCE, PERIOD, start);
        simulated.step(start);
        simulated
    }

    fn at(&self, us: u64) -> Instant {
        self.start + Duration::from_micros(us)
    }

    /// The thread's sleeps that end by `us`.
    fn run_until(&mut self, us: u64) {
        let until = self.at(us);
        while self.sleeps_until <= until {
            self.step(self.sleeps_until);
        }
    }

    fn step(&mut self, now: Instant) {
        let (start, commits) = (self.start, &mut self.commits);
        self.sleeps_until = self.beats.tick(now, |scheduler, fence| {
            assert_eq!(fence, FENCE);
            commits.push((now.duration_since(start).as_micros() as u64, scheduler));
        });
    }

    fn anchor(&mut self, us: u64, scheduler: Option<usize>) {
        self.run_until(us);
        let now = self.at(us);
        let (_, wake) = self.beats.anchor(FENCE, scheduler, now);
        if wake {
            self.wakes += 1;
            self.step(now);
        }
    }

    /// A stream alone on its worker from `from` to `to` (µs), anchoring the tick while it lasts.
    fn stream(&mut self, scheduler: usize, from: u64, to: u64) {
        self.anchor(from, Some(scheduler));
        self.anchor(to, None);
    }
}

#[test]
fn streams_that_come_farther_apart_than_the_period_are_not_each_ticked_across_threads() {
    // A light load: 15 streams of 300 µs on the worker, one every 6 ms, with a 5 ms period. Each finds the tick it
    // left due meanwhile; ticking it at once would post a tick across threads to every one of them.
    let mut simulated = Simulated::new();
    for i in 0..15 {
        simulated.stream(100 + i as usize, 1_000 + i * 6_000, 1_300 + i * 6_000);
    }
    simulated.run_until(100_000);
    assert_eq!(simulated.commits, vec![], "no stream was live when its tick came due");
    assert_eq!(
        simulated.wakes, 15,
        "the thread is woken once for each stream that brings a nearer tick, not at its end"
    );
}

#[test]
fn while_streams_are_live_a_tick_comes_every_period_however_often_the_anchor_moves() {
    let mut simulated = Simulated::new();
    // The anchor moves to another live stream every 2 ms for 60 ms.
    for i in 0..30 {
        simulated.anchor(1_000 + i * 2_000, Some(100 + i as usize));
    }
    simulated.run_until(61_000);
    let times: Vec<u64> = simulated.commits.iter().map(|(at, _)| *at).collect();
    assert_eq!(times, (1..=12).map(|i| i * 5_000).collect::<Vec<_>>(), "the cadence the fence was configured with");
    assert_eq!(simulated.commits[1], (10_000, 104), "the anchor of the moment is the one committed");
    assert_eq!(simulated.wakes, 1, "only the first anchor brought a tick nearer than the thread's sleep");
}

#[test]
fn a_fence_anchored_again_within_the_period_keeps_the_tick_it_had_pending() {
    let mut simulated = Simulated::new();
    simulated.stream(1, 1_000, 1_300);
    simulated.stream(2, 3_000, 5_500);
    simulated.run_until(20_000);
    assert_eq!(simulated.commits, vec![(5_000, 2)], "due 5 ms after the fence was configured, not 5 ms after 3 ms");
    assert_eq!(simulated.wakes, 1, "the second stream brings no nearer tick");
}

#[test]
fn a_fence_anchored_again_after_going_without_a_tick_for_the_idle_pace_is_ticked_at_once() {
    // Its heartbeat and reclaim ride on its ticks.
    let mut simulated = Simulated::new();
    simulated.stream(1, 150_000, 150_300);
    simulated.stream(2, 156_000, 156_300);
    simulated.run_until(300_000);
    assert_eq!(simulated.commits, vec![(150_000, 1)], "ticked at once, then one period later only if live");
}

#[test]
fn a_shorter_period_takes_effect_at_once_and_wakes_the_thread_only_when_anchored() {
    let mut simulated = Simulated::new();
    simulated.anchor(1_000, Some(1));
    simulated.run_until(5_000);
    let now = simulated.at(5_000);
    assert!(!simulated.beats.set_period(FENCE, Duration::from_millis(100), now), "a longer one waits for the tick");
    assert!(simulated.beats.set_period(FENCE, Duration::from_millis(2), now), "a shorter one is nearer");
    simulated.step(now);
    simulated.run_until(9_000);
    assert_eq!(simulated.commits, vec![(5_000, 1), (7_000, 1), (9_000, 1)]);
    simulated.anchor(9_500, None);
    assert!(!simulated.beats.set_period(FENCE, Duration::from_millis(1), simulated.at(9_500)), "nothing to tick");
}
