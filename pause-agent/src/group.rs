//! The service's process group: stopping it for a pause, continuing it, and closing it for good.
//!
//! Pauses run one at a time. The state that says whether the group is stopped is changed under a lock together
//! with the signal, so that closing (on a terminating signal or the child's exit) and a pause in progress never
//! leave the group stopped: either the pause stops the group before closing takes the lock, and closing continues
//! it, or closing comes first and the pause is refused.

use std::sync::{Mutex, MutexGuard, PoisonError};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::clock::{self, Waited};
use crate::ledger::{Ledger, PauseRecord, StaleRound};
use crate::protocol::Stats;

#[derive(Debug, PartialEq, Eq)]
pub enum PauseError {
    Stale(StaleRound),
    /// The agent is closing: the service is exiting or has been told to.
    Closing,
    /// The pause was cut short because the agent began closing during it; the group runs again.
    CutShort(PauseRecord),
    /// Whoever asked for the pause went away during it (its connection closed): the group was continued at once,
    /// and the rest of the pause is not owed.
    Abandoned(PauseRecord),
    Signal(Errno),
    Clock(Errno),
}

impl std::fmt::Display for PauseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PauseError::Stale(stale) => write!(f, "round {} is not newer than round {}", stale.round, stale.last_round),
            PauseError::Closing => write!(f, "the agent is closing: the service is exiting; no more pauses"),
            PauseError::CutShort(record) => write!(
                f,
                "the pause of round {} was cut short after {} ns: the agent is closing and the service runs again",
                record.round, record.stopped_ns
            ),
            PauseError::Abandoned(record) => write!(
                f,
                "the control connection closed during the pause of round {}: the service was continued after {} ns",
                record.round, record.stopped_ns
            ),
            PauseError::Signal(errno) => write!(f, "could not signal the service's process group: {errno}"),
            PauseError::Clock(errno) => write!(f, "could not read the monotonic clock: {errno}"),
        }
    }
}

/// How often a pause looks whether the agent has begun closing.
const CLOSING_CHECK_NS: u64 = 10_000_000;

#[derive(Debug, Default)]
struct State {
    stopped: bool,
    closing: bool,
    ledger: Ledger,
}

pub struct Group {
    pgid: Pid,
    /// How long the end of each pause is spun rather than slept (see [`clock::sleep_until`]).
    spin_ns: u64,
    /// Held for the whole of a pause, so that pauses never overlap.
    turn: Mutex<()>,
    state: Mutex<State>,
}

impl Group {
    /// The group led by the child `pgid` (the child was started as the leader of a new group).
    pub fn new(pgid: Pid, spin_ns: u64) -> Group {
        Group { pgid, spin_ns, turn: Mutex::new(()), state: Mutex::new(State::default()) }
    }

    /// Stops the group for `requested_ns` less the oversleep carried over, then continues it.
    ///
    /// `abandoned(wake_ns)` waits until `wake_ns` on the monotonic clock, or less when the requester goes away, and
    /// says whether it did (see [`clock::sleep_until_watching`]); the group is then continued at once.
    pub fn pause(
        &self,
        round: u64,
        requested_ns: u64,
        mut abandoned: impl FnMut(u64) -> nix::Result<bool>,
    ) -> Result<PauseRecord, PauseError> {
        // Refused at once when closing, rather than after the pause in progress.
        if lock(&self.state).closing {
            return Err(PauseError::Closing);
        }
        let _turn = lock(&self.turn);
        let (at_ns, target_ns) = {
            let mut state = lock(&self.state);
            if state.closing {
                return Err(PauseError::Closing);
            }
            state.ledger.claim(round).map_err(PauseError::Stale)?;
            let target_ns = state.ledger.target_ns(requested_ns);
            let at_ns = clock::now_ns().map_err(PauseError::Clock)?;
            killpg(self.pgid, Signal::SIGSTOP).map_err(PauseError::Signal)?;
            state.stopped = true;
            (at_ns, target_ns)
        };
        // Whatever happens to the wait, the group is continued below. The wait is cut into slices so that a pause the
        // closing agent has already ended is answered within a slice, not at its planned end.
        let waited = clock::sleep_until_watching(at_ns.saturating_add(target_ns), self.spin_ns, |wake_ns| {
            if !lock(&self.state).stopped {
                return Ok(true);
            }
            let slice_end_ns = clock::now_ns()?.saturating_add(CLOSING_CHECK_NS).min(wake_ns);
            abandoned(slice_end_ns)
        });
        let mut state = lock(&self.state);
        let cut_short = !state.stopped;
        let continued = if state.stopped { killpg(self.pgid, Signal::SIGCONT) } else { Ok(()) };
        state.stopped = false;
        let end_ns = clock::now_ns().map_err(PauseError::Clock)?;
        let stopped_ns = end_ns.saturating_sub(at_ns);
        let gone = !cut_short && waited == Ok(Waited::Abandoned);
        // An abandoned pause is booked as asked for what it lasted: nobody is there to want the rest, and a debt
        // carried over would lengthen the next requester's pause by it.
        let booked_ns = if gone { stopped_ns.min(requested_ns) } else { requested_ns };
        let record = state.ledger.record(round, booked_ns, stopped_ns, at_ns);
        continued.map_err(PauseError::Signal)?;
        waited.map_err(PauseError::Clock)?;
        if cut_short {
            Err(PauseError::CutShort(record))
        } else if gone {
            Err(PauseError::Abandoned(record))
        } else {
            Ok(record)
        }
    }

    /// Continues the group now and refuses every later pause: the service is exiting or is told to. Safe to call
    /// more than once.
    pub fn close(&self) {
        let mut state = lock(&self.state);
        state.closing = true;
        continue_group(self.pgid);
        state.stopped = false;
    }

    pub fn stats(&self) -> Stats {
        let state = lock(&self.state);
        Stats {
            child_pid: self.pgid.as_raw(),
            pauses: state.ledger.pauses(),
            requested_ns: state.ledger.requested_ns(),
            stopped_ns: state.ledger.stopped_ns(),
            oversleep_ns: state.ledger.oversleep_ns(),
            last_round: state.ledger.last_round(),
        }
    }
}

/// Sends SIGCONT to the whole group; a group that is gone needs nothing.
pub fn continue_group(pgid: Pid) {
    let _ = killpg(pgid, Signal::SIGCONT);
}

/// A poisoned lock only means another thread panicked while holding it, and the release build aborts on a panic:
/// the state is still the last one written.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
