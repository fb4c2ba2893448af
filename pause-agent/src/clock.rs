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

/// Returns once the monotonic clock has reached `deadline_ns`, not before.
///
/// The thread sleeps on the absolute deadline less `spin_ns`, so a late wake-up never accumulates into the next
/// sleep, then spins on the clock for the rest: the kernel's timer slack and wake-up latency would otherwise make
/// every pause end some tens of microseconds late.
pub fn sleep_until(deadline_ns: u64, spin_ns: u64) -> nix::Result<()> {
    let wake_ns = deadline_ns.saturating_sub(spin_ns);
    let wake = timespec(wake_ns);
    while now_ns()? < wake_ns {
        match clock_nanosleep(ClockId::CLOCK_MONOTONIC, ClockNanosleepFlags::TIMER_ABSTIME, &wake) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(errno) => return Err(errno),
        }
    }
    while now_ns()? < deadline_ns {
        std::hint::spin_loop();
    }
    Ok(())
}

fn timespec(ns: u64) -> TimeSpec {
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
    fn a_deadline_in_the_past_returns_at_once() {
        let start = now_ns().unwrap();
        sleep_until(start.saturating_sub(1_000_000), 200_000).unwrap();
        // Generous: only that it did not sleep anything like a scheduler tick's worth.
        assert!(now_ns().unwrap() - start < 50_000_000);
    }
}
