//! What a fence does when the last of its thread's streams ends: with no stream left it has no anchor, so nothing
//! ticks it until the next stream comes, and what only a tick gives back (spares, releases to retry) would stay
//! held meanwhile.

use pathfence_envoy_filter::host::{Host, Proxy};
use pathfence_envoy_filter::pace::TickWork;
use pathfence_envoy_filter::runtime::Runtime;

/// How many ticks a fence whose last stream on its thread ended runs at once, at most, to give back what it holds:
/// one keeps the spares requests took since the tick before, the next gives those back too.
pub const SETTLING_TICKS: usize = 3;

/// Runs the ticks that give back what the fence holds, while no stream is live (`live`) and a tick has work; how
/// many ran.
pub fn settle<H: Host>(runtime: &Runtime<H>, proxy: &dyn Proxy, live: impl Fn() -> bool) -> usize {
    let mut ran = 0;
    for _ in 0..SETTLING_TICKS {
        if live() || runtime.tick_work() == TickWork::None {
            break;
        }
        runtime.on_tick(proxy, 0);
        ran += 1;
    }
    ran
}

#[cfg(test)]
mod tests;
