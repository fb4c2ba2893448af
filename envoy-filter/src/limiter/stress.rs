//! Randomised interleavings of two workers over one shared store (arrivals, releases, resets while waiting,
//! ticks, clock steps, a worker going away and being reclaimed), with the invariants checked after every step.
//! Deterministic: a fixed seed per run, no threads.

use std::collections::HashMap;

use super::*;
use crate::pace::Pace;
use crate::per_path::PathIndex;
use crate::testing::MockHost;

const A: usize = 0;
const B: usize = 1;
const LOCAL: usize = 2;
const LIMITS: [u64; 2] = [3, 2];
const LEASE_MS: u64 = 4000;

/// xorshift64*: enough spread for picking operations, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Held by a pause or waiting for a slot.
    Pending,
    Admitted,
}

struct Run {
    host: MockHost,
    /// The watch both workers share when they model two configurations on one thread; `None` when they model two
    /// threads, each with its own.
    one_thread: Option<Rc<Watch>>,
    workers: [Worker<MockHost>; 2],
    /// Every stream the test opened and has not seen end: (worker, class, phase).
    streams: HashMap<u32, (usize, usize, Phase)>,
    next_context: u32,
    admitted: u64,
    released: u64,
    /// Unbounded local requests of workers that went away: not in any shared count, so nothing can reclaim
    /// their part of `active` (a known limit, see the README).
    abandoned_local: i64,
    rng: Rng,
    /// When each worker hands its metric deltas over (its own sequence, so that the run's steps stay the same).
    flushes: Rng,
    /// Whether a worker was seen, at the end of a phase, not keeping spares and keeping them: both ways of
    /// releasing a slot must be exercised.
    spares_seen: [bool; 2],
    /// Each worker's tick pace, driven as the Wasm layer drives it: after every stream event and every tick.
    paces: [Pace; 2],
    /// The tick periods the workers were seen at: each pace must be entered, and left, for the checks to mean
    /// anything.
    periods_seen: std::collections::BTreeSet<u64>,
    /// Time as the test moves it, without the steps of the wall clock: waits are measured on it.
    elapsed_ms: u64,
    /// Wall clock steps so far, back or forward.
    clock_steps: u64,
    /// When each stream started to wait (on `elapsed_ms`) and how many clock steps had been taken then.
    waiting_since: HashMap<u32, (u64, u64)>,
}

/// Steps per phase: in every other phase the clock runs slowly against arrivals, so that workers keep spares (a
/// high arrival rate) in some phases and give freed slots straight back in the others.
const PHASE_STEPS: usize = 500;

fn config() -> Config {
    Config::parse(
        br#"{"paths": [
            {"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 3, "max_queue": 4, "queue_timeout_ms": 60},
            {"name": "b", "match": {"prefix": "/b"}, "max_concurrency": 2, "max_queue": 3, "queue_timeout_ms": 40}
        ],
        "pause": {"every_requests": 7, "duration_ms": 20, "paths": ["b"]},
        "worker_lease_ms": 4000}"#,
    )
    .unwrap()
}

impl Run {
    fn new(seed: u64, one_thread: bool) -> Run {
        let host = MockHost::default();
        host.clock.set(1_000_000);
        let one_thread = one_thread.then(|| Rc::new(Watch::starting_at(host.clock.get())));
        let start = || match &one_thread {
            Some(watch) => Worker::start_watching(host.batching(), config(), Rc::clone(watch)).unwrap(),
            None => Worker::start(host.batching(), config()).unwrap(),
        };
        let workers = [start(), start()];
        Run {
            host,
            one_thread,
            workers,
            streams: HashMap::new(),
            next_context: 1,
            admitted: 0,
            released: 0,
            abandoned_local: 0,
            rng: Rng(seed),
            flushes: Rng(seed ^ 0x5eed),
            spares_seen: [false; 2],
            paces: [Pace::default(); 2],
            periods_seen: std::collections::BTreeSet::new(),
            elapsed_ms: 0,
            clock_steps: 0,
            waiting_since: HashMap::new(),
        }
    }

    /// Applies a worker's effects to the model: each must be about one of its own pending streams.
    fn settle(&mut self, w: usize, effects: Vec<Effect>) {
        for effect in effects {
            let (context, admitted) = match effect {
                Effect::Resume { context } => (context, true),
                Effect::Reject { context, .. } => (context, false),
            };
            let pending_here = matches!(self.streams.get(&context), Some((owner, _, Phase::Pending)) if *owner == w);
            assert!(
                pending_here,
                "{effect:?} from worker {w} on a stream not pending there: {:?}",
                self.streams.get(&context)
            );
            if admitted {
                if let Some(stream) = self.streams.get_mut(&context) {
                    stream.2 = Phase::Admitted;
                }
                self.admitted += 1;
            } else {
                self.streams.remove(&context);
            }
        }
    }

    fn arrive(&mut self, w: usize) {
        let class = self.rng.below(3) as usize;
        let context = self.next_context;
        self.next_context += 1;
        let mut fx = Vec::new();
        let decision = self.workers[w].on_request(context, PathIndex(class), &mut fx);
        self.paces[w].after_event(self.workers[w].tick_work());
        // A refusal sent from one stream's callback stops that stream too in Envoy (see held.rs).
        let refused_other = fx.iter().any(|e| matches!(e, Effect::Reject { context: c, .. } if *c != context));
        assert!(!refused_other, "the arrival of {context} refused another stream: {fx:?}");
        match decision {
            Decision::Continue => {
                self.streams.insert(context, (w, class, Phase::Admitted));
                self.admitted += 1;
            }
            Decision::Wait => {
                self.streams.insert(context, (w, class, Phase::Pending));
                self.waiting_since.insert(context, (self.elapsed_ms, self.clock_steps));
            }
            Decision::Reject { path, .. } => assert_eq!(path, PathIndex(class)),
        }
        self.settle(w, fx);
    }

    /// Ends one of worker `w`'s streams in `phase`, sometimes twice, as a stream's end could be reported twice.
    fn end(&mut self, w: usize, phase: Phase) {
        let mut mine: Vec<u32> =
            self.streams.iter().filter(|(_, s)| s.0 == w && s.2 == phase).map(|(c, _)| *c).collect();
        if mine.is_empty() {
            return;
        }
        mine.sort_unstable();
        let context = mine[self.rng.below(mine.len() as u64) as usize];
        self.streams.remove(&context);
        if phase == Phase::Admitted {
            self.released += 1;
        }
        let times = 1 + self.rng.below(2);
        for _ in 0..times {
            let mut fx = Vec::new();
            self.workers[w].on_stream_end(context, &mut fx);
            self.paces[w].after_event(self.workers[w].tick_work());
            self.settle(w, fx);
        }
    }

    /// Every stream ends, then worker `w` serves one request at a time for a while, then nothing at all, both
    /// workers ticking throughout: long enough for `w`'s pace to slow down (to the spares pace while its requests
    /// leave spares, then to idle), so that the events after must bring it back up.
    fn quiet(&mut self, w: usize, step: usize) {
        for worker in 0..2 {
            for phase in [Phase::Pending, Phase::Admitted] {
                while self.streams.values().any(|s| s.0 == worker && s.2 == phase) {
                    self.end(worker, phase);
                }
            }
        }
        // The pace counts ticks, not the clock: leaving the clock alone keeps the phase's arrival rate.
        for round in 0..120 {
            if round < 60 {
                self.arrive(w);
                self.end(w, Phase::Admitted);
            }
            self.tick(0);
            self.tick(1);
            self.check(step);
        }
    }

    fn tick(&mut self, w: usize) {
        let mut fx = Vec::new();
        self.workers[w].on_tick(&mut fx);
        self.paces[w].after_tick(self.workers[w].tick_work());
        self.settle(w, fx);
        self.check_no_wait_past_its_timeout(w);
    }

    /// A tick leaves no stream of its worker pending past its path's timeout (no lost wake-up, no stuck wait),
    /// unless the wall clock stepped since it began to wait: then the worker's clock may count the gap short.
    fn check_no_wait_past_its_timeout(&self, w: usize) {
        for (context, (owner, class, phase)) in &self.streams {
            let Some(&(since, steps)) = self.waiting_since.get(context) else { continue };
            let timeout = config().reservations[*class].queue_timeout_ms;
            let overdue = *owner == w && *phase == Phase::Pending && steps == self.clock_steps;
            assert!(
                !(overdue && self.elapsed_ms >= since + timeout),
                "stream {context} of class {class} on worker {w} still pending {} ms after it began to wait",
                self.elapsed_ms - since
            );
        }
    }

    fn advance(&mut self, ms: u64) {
        self.host.advance(ms);
        self.elapsed_ms += ms;
    }

    /// The wall clock steps back up to a minute, or forward up to an hour, as NTP or a resumed VM makes it.
    fn step_clock(&mut self, forward: bool) {
        let now = self.host.clock.get();
        let step = 1 + self.rng.below(if forward { 3_600_000 } else { 60_000 });
        self.host.clock.set(if forward { now + step } else { now.saturating_sub(step) });
        self.clock_steps += 1;
    }

    /// Worker `w` goes away with its streams; a new one takes its place and, after the lease, the shares and
    /// waiters left behind are reclaimed while the other worker keeps ticking.
    fn replace_and_reclaim(&mut self, w: usize) {
        let fresh = match &self.one_thread {
            Some(watch) => Worker::start_watching(self.host.batching(), config(), Rc::clone(watch)).unwrap(),
            None => Worker::start(self.host.batching(), config()).unwrap(),
        };
        // Its last deltas reach Envoy (a VM that fails loses them, and `active` stays off by them: see the README).
        self.workers[w].host().flush();
        drop(std::mem::replace(&mut self.workers[w], fresh));
        self.paces[w] = Pace::default();
        let gone: Vec<u32> = self.streams.iter().filter(|(_, s)| s.0 == w).map(|(c, _)| *c).collect();
        for context in gone {
            if let Some((_, class, Phase::Admitted)) = self.streams.remove(&context) {
                // Its slot comes back through the reclaim, not through a release.
                self.admitted -= 1;
                if class == LOCAL {
                    self.abandoned_local += 1;
                }
            }
        }
        // A lease runs from the other worker's first sight of the heartbeat that no longer changes, and the
        // reclaim passes come every second.
        for _ in 0..=(LEASE_MS / 250 + 12) {
            self.advance(250);
            self.tick(0);
            self.tick(1);
        }
    }

    fn inflight(&self, pool: usize) -> u64 {
        let name = ["a", "b"][pool];
        counters::load(&self.host, &format!("{KEY_PREFIX}{name}.inflight")).unwrap()
    }

    /// A metric with the deltas the workers still keep: what Envoy shows once they have handed them over.
    fn metric(&self, pool: usize, metric: Metric) -> i64 {
        self.host.metric(PathIndex(pool), metric)
            + self.workers.iter().map(|w| w.host().unflushed(PathIndex(pool), metric)).sum::<i64>()
    }

    fn check(&mut self, step: usize) {
        for pool in [A, B] {
            let in_use = self.streams.values().filter(|s| s.1 == pool && s.2 == Phase::Admitted).count() as u64;
            let idle: u64 = self.workers.iter().map(|w| u64::from(w.idle_slots(PathIndex(pool)))).sum();
            let total = self.inflight(pool);
            assert_eq!(total, in_use + idle, "step {step}: shared count of pool {pool} is not in-use + idle");
            assert!(total <= LIMITS[pool], "step {step}: pool {pool} holds {total}, over its limit");
            // What Envoy shows, whenever it looks: never above the shared count, so never above the limit.
            let shown = self.host.metric(PathIndex(pool), Metric::Active);
            assert!(shown <= total as i64, "step {step}: active of pool {pool} shows {shown}, the count is {total}");
            // Nor below zero: Envoy's gauges are unsigned, and would read 2^64 - 1.
            assert!(shown >= 0, "step {step}: active of pool {pool} shows {shown}");
            // Slots on their way back to the count, that kept losing the race, are off `active` already.
            let off: i64 = self.workers.iter().map(|w| i64::from(w.off_active(PathIndex(pool)))).sum();
            assert_eq!(self.metric(pool, Metric::Active) + off, total as i64, "step {step}: active of pool {pool}");
            let queued: usize = self.workers.iter().map(|w| w.queued(PathIndex(pool))).sum();
            assert_eq!(self.metric(pool, Metric::Queued), queued as i64, "step {step}: queued of pool {pool}");
        }
        let local = self.streams.values().filter(|s| s.1 == LOCAL && s.2 == Phase::Admitted).count() as i64
            + self.abandoned_local;
        assert_eq!(self.metric(LOCAL, Metric::Active), local, "step {step}: active of the unbounded local path");
        for (w, worker) in self.workers.iter().enumerate() {
            let work = worker.tick_work();
            assert!(
                self.paces[w].serves(work),
                "step {step}: worker {w} ticks at {} ms with {work:?} to do",
                self.paces[w].period_ms()
            );
        }
        self.periods_seen.extend(self.paces.iter().map(Pace::period_ms));
        let tracked: usize = self.workers.iter().map(Worker::tracked).sum();
        assert_eq!(tracked, self.streams.len(), "step {step}: the workers track other streams than were opened");
    }

    /// After two rounds of ticks (the first gives back spares), nobody waits while a slot is free.
    fn check_no_waiter_beside_a_free_slot(&mut self, step: usize) {
        for _ in 0..2 {
            self.tick(0);
            self.tick(1);
        }
        for pool in [A, B] {
            let queued: usize = self.workers.iter().map(|w| w.queued(PathIndex(pool))).sum();
            if queued > 0 {
                assert_eq!(
                    self.inflight(pool),
                    LIMITS[pool],
                    "step {step}: {queued} waiting on pool {pool} beside a free slot"
                );
            }
        }
    }

    fn step(&mut self, step: usize) {
        let w = self.rng.below(2) as usize;
        let fast = (step / PHASE_STEPS) % 2 == 1;
        match self.rng.below(100) {
            0..=39 => self.arrive(w),
            40..=61 => self.end(w, Phase::Admitted),
            62..=69 => self.end(w, Phase::Pending),
            70..=82 => self.tick(w),
            83 if !fast => {
                let forward = self.rng.below(2) == 0;
                self.step_clock(forward);
            }
            83..=93 if fast => self.advance(1),
            83..=93 => {
                let ms = self.rng.below(8);
                self.advance(ms);
            }
            94..=97 => self.check_no_waiter_beside_a_free_slot(step),
            98 => self.quiet(w, step),
            // The reclaim waits out the lease, seconds of the clock: a fast phase has them only in its first half,
            // so that workers holding spares go away too and the rate is high again by the phase's end.
            _ if fast && step % PHASE_STEPS >= PHASE_STEPS / 2 => self.tick(w),
            _ => self.replace_and_reclaim(w),
        }
        // Each worker hands its deltas over from time to time, as the Wasm layer does every 10 to 100 ms.
        if self.flushes.below(3) == 0 {
            let w = self.flushes.below(2) as usize;
            self.workers[w].host().flush();
        }
        // At the end of each phase but the first (a new worker keeps spares until it has measured the rate).
        if step >= PHASE_STEPS && step % PHASE_STEPS == PHASE_STEPS - 1 {
            for worker in &self.workers {
                self.spares_seen[usize::from(worker.keeps_spares())] = true;
            }
        }
        self.check(step);
    }

    /// Ends every stream and lets the ticks give everything back.
    fn finish(&mut self) {
        for w in 0..2 {
            while self.streams.values().any(|s| s.0 == w && s.2 == Phase::Pending) {
                self.end(w, Phase::Pending);
            }
            while self.streams.values().any(|s| s.0 == w) {
                self.end(w, Phase::Admitted);
            }
        }
        // The first round keeps the spares requests took since the round before; the second gives them back.
        for _ in 0..2 {
            self.tick(0);
            self.tick(1);
        }
        self.check(usize::MAX);
        assert_eq!(self.admitted, self.released, "every admitted stream is released exactly once");
        for pool in [A, B] {
            assert_eq!(self.inflight(pool), 0);
        }
    }
}

#[test]
fn two_workers_interleaved_at_random_keep_every_invariant() {
    interleave_at_random(false);
}

/// Two configurations' workers on one thread, sharing its clock and its view of the heartbeats; the one replaced
/// is a configuration's worker gone without handing anything over.
#[test]
fn two_workers_of_one_thread_interleaved_at_random_keep_every_invariant() {
    interleave_at_random(true);
}

fn interleave_at_random(one_thread: bool) {
    for seed in [0x9e37_79b9_7f4a_7c15, 42, 7, 2024, 0xdead_beef] {
        let mut run = Run::new(seed, one_thread);
        for step in 0..3000 {
            run.step(step);
        }
        assert!(run.admitted > 500, "seed {seed}: too few admissions ({}) to prove anything", run.admitted);
        assert_eq!(run.spares_seen, [true, true], "seed {seed}: workers must both keep spares and not");
        assert_eq!(
            run.periods_seen.iter().copied().collect::<Vec<_>>(),
            vec![2, 5, 100],
            "seed {seed}: every pace must be seen"
        );
        run.finish();
    }
}
