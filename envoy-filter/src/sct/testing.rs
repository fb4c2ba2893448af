//! Test helpers: a small seeded generator (the same seed gives the same cases on every run) and a simulated
//! upstream.

/// SplitMix64 (Steele, Lea and Flood, 2014): enough spread for test cases, one line of state.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform enough in `[0, bound)`; 0 for a bound of 0.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            0
        } else {
            self.next() % bound
        }
    }
}

/// A simulated path in front of an upstream whose throughput grows with concurrency up to `knee` requests and
/// stays flat above it (more concurrency only queues), driven by closed-loop clients: it writes the interval
/// records two workers would publish.
pub struct Upstream {
    pub knee: f64,
    /// Completions per second of one request in service below the knee.
    pub per_slot: f64,
    pub interval_ns: u64,
    pub rng: Rng,
}

impl Upstream {
    /// The two workers' records of the interval starting at `start_ns`, with `clients` wanting service under
    /// `limit`: in service `min(clients, limit)`, the rest waiting, throughput `per_slot · min(q, knee)` within
    /// ±2 % of noise.
    pub fn interval(&mut self, start_ns: u64, clients: f64, limit: u32) -> [super::wire::WorkerInterval; 2] {
        let jitter = |rng: &mut Rng, spread: f64| (rng.below(2001) as f64 / 1000.0 - 1.0) * spread;
        let q = (clients.min(f64::from(limit)) + jitter(&mut self.rng, 0.2)).max(0.0);
        let waiting = (clients - f64::from(limit)).max(0.0);
        let throughput = self.per_slot * q.min(self.knee) * (1.0 + jitter(&mut self.rng, 0.02));
        let seconds = self.interval_ns as f64 / 1e9;
        let completions = (throughput * seconds).round() as u64;
        // Little's law: the time in service of a request is q / throughput.
        let response_ns = if throughput > 0.0 { (q / throughput * 1e9) as u64 * completions } else { 0 };
        let whole = super::interval::IntervalTotals {
            start_ns,
            in_service_ns: (q * self.interval_ns as f64) as u64,
            waiting_ns: (waiting * self.interval_ns as f64) as u64,
            completions,
            response_ns: if completions == 0 { 0 } else { response_ns },
        };
        // Split between two workers, unevenly, so that the window has to add them up.
        let first = super::interval::IntervalTotals {
            start_ns,
            in_service_ns: whole.in_service_ns / 3,
            waiting_ns: whole.waiting_ns / 3,
            completions: whole.completions / 3,
            response_ns: whole.response_ns / 3,
        };
        let second = super::interval::IntervalTotals {
            start_ns,
            in_service_ns: whole.in_service_ns - first.in_service_ns,
            waiting_ns: whole.waiting_ns - first.waiting_ns,
            completions: whole.completions - first.completions,
            response_ns: whole.response_ns - first.response_ns,
        };
        let record = |worker, totals| super::wire::WorkerInterval { worker, interval_ns: self.interval_ns, totals };
        [record(1, first), record(2, second)]
    }
}
