//! The monotonic clock, and sleeping until an absolute point of it.
//!
//! A pause is measured and ended on `CLOCK_MONOTONIC` in nanoseconds, the clock `System.nanoTime()` and Python's
//! `time.monotonic_ns()` read on Linux, so a caller can line the agent's reports up with its own observations.

use nix::errno::Errno;
use nix::sys::time::TimeSpec;
use nix::time::{ClockId, ClockNanosleepFlags, clock_gettime, clock_nanosleep};

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// Now on the monotonic clock, in nanoseconds.
pub fn now_ns() -> nix::Result<u64> {
    let now = clock_gettime(ClockId::CLOCK_MONOTONIC)?;
    // The monotonic clock counts from boot: both fields are non-negative.
    Ok(now.tv_sec() as u64 * NANOS_PER_SECOND + now.tv_nsec() as u64)
}

/// How a wait for a deadline ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// The monotonic clock reached the deadline.
    Elapsed,
    /// The watcher saw the one waiting for the deadline go away first.
    Abandoned,
}

/// Returns once the monotonic clock has reached `deadline_ns`, not before.
pub fn sleep_until(deadline_ns: u64, spin_ns: u64) -> nix::Result<()> {
    sleep_until_watching(deadline_ns, spin_ns, |wake_ns| {
        match clock_nanosleep(ClockId::CLOCK_MONOTONIC, ClockNanosleepFlags::TIMER_ABSTIME, &timespec(wake_ns)) {
            Ok(_) | Err(Errno::EINTR) => Ok(false),
            Err(errno) => Err(errno),
        }
    })
    .map(|_| ())
}

/// Returns once the monotonic clock has reached `deadline_ns`, or earlier when `abandoned` says so.
///
/// `abandoned(wake_ns)` blocks until `wake_ns` or until it sees a reason to stop waiting, and returns whether it did;
/// it may return early without one (a signal), and is then called again. It is called until `deadline_ns - spin_ns`;
/// the rest is spun on the clock: the kernel's timer slack and wake-up latency would otherwise end every wait some
/// tens of microseconds late. Deadlines are absolute, so a late wake-up never adds to the next wait.
pub fn sleep_until_watching(
    deadline_ns: u64,
    spin_ns: u64,
    mut abandoned: impl FnMut(u64) -> nix::Result<bool>,
) -> nix::Result<Waited> {
    let wake_ns = deadline_ns.saturating_sub(spin_ns);
    while now_ns()? < wake_ns {
        if abandoned(wake_ns)? {
            return Ok(Waited::Abandoned);
        }
    }
    while now_ns()? < deadline_ns {
        std::hint::spin_loop();
    }
    Ok(Waited::Elapsed)
}

/// An interval on the clock as a `TimeSpec`, for a relative timeout.
pub fn timespec(ns: u64) -> TimeSpec {
    TimeSpec::new((ns / NANOS_PER_SECOND) as _, (ns % NANOS_PER_SECOND) as _)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_at_least_until_the_deadline() {
        for spin_ns in [0, 200_000, 5_000_000] {
            let start = now_ns().unwrap();
            let deadline = start + 3_000_000;
            sleep_until(deadline, spin_ns).unwrap();
            assert!(now_ns().unwrap() >= deadline, "woke before the deadline with spin {spin_ns}");
        }
    }

    #[test]
    fn a_watcher_that_sees_its_requester_gone_ends_the_wait_early() {
        let start = now_ns().unwrap();
        let mut calls = 0;
        let waited = sleep_until_watching(start + 5_000_000_000, 200_000, |_| {
            calls += 1;
            Ok(calls == 3)
        })
        .unwrap();
        assert_eq!((waited, calls), (Waited::Abandoned, 3));
        assert!(now_ns().unwrap() - start < 1_000_000_000, "it waited for the deadline anyway");
    }

    #[test]
    fn a_deadline_in_the_past_returns_at_once() {
        let start = now_ns().unwrap();
        sleep_until(start.saturating_sub(1_000_000), 200_000).unwrap();
        // Generous: only that it did not sleep anything like a scheduler tick's worth.
        assert!(now_ns().unwrap() - start < 50_000_000);
    }
}
