//! The pause ledger: what was asked for, what was spent stopped, and the oversleep still to repay.
//!
//! A stop always lasts a little longer than asked (the signals' delivery, the wake-up, the continue). Left alone, those
//! small excesses add up over a run into a slowdown the model never asked for. The ledger keeps the total time stopped
//! equal to the total asked for: each pause is shortened by the oversleep of the pauses before it, never below zero.

/// The outcome of one pause, for the reply to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PauseRecord {
    pub round: u64,
    pub requested_ns: u64,
    /// What the agent aimed for: the request less the oversleep carried over, at least zero.
    pub target_ns: u64,
    /// From the stop signal sent to the continue signal sent, on the monotonic clock.
    pub stopped_ns: u64,
    /// The oversleep still to repay after this pause: everything stopped so far less everything asked for.
    pub oversleep_ns: i64,
    /// The monotonic time the stop signal was sent at.
    pub at_ns: u64,
}

/// A round that is not newer than the last one paused for: nothing is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaleRound {
    pub round: u64,
    pub last_round: u64,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ledger {
    pauses: u64,
    requested_ns: u64,
    stopped_ns: u64,
    last_round: u64,
}

impl Ledger {
    /// Claims `round` for a pause. Rounds start at 1 and only go up, so a round message that arrives twice, or late,
    /// never pauses the service twice.
    pub fn claim(&mut self, round: u64) -> Result<(), StaleRound> {
        if round <= self.last_round {
            return Err(StaleRound { round, last_round: self.last_round });
        }
        self.last_round = round;
        Ok(())
    }

    /// How long to stop for a request of `requested_ns`: the request less the oversleep carried over.
    pub fn target_ns(&self, requested_ns: u64) -> u64 {
        let target = i128::from(requested_ns) - i128::from(self.oversleep_ns());
        u64::try_from(target.max(0)).unwrap_or(u64::MAX)
    }

    /// Books a pause that asked for `requested_ns` and stopped the service for `stopped_ns`.
    pub fn record(&mut self, round: u64, requested_ns: u64, stopped_ns: u64, at_ns: u64) -> PauseRecord {
        let target_ns = self.target_ns(requested_ns);
        self.pauses += 1;
        self.requested_ns = self.requested_ns.saturating_add(requested_ns);
        self.stopped_ns = self.stopped_ns.saturating_add(stopped_ns);
        PauseRecord { round, requested_ns, target_ns, stopped_ns, oversleep_ns: self.oversleep_ns(), at_ns }
    }

    /// Everything stopped so far less everything asked for; positive when the service owes running time back.
    pub fn oversleep_ns(&self) -> i64 {
        let difference = i128::from(self.stopped_ns) - i128::from(self.requested_ns);
        i64::try_from(difference).unwrap_or(if difference > 0 { i64::MAX } else { i64::MIN })
    }

    pub fn pauses(&self) -> u64 {
        self.pauses
    }

    pub fn requested_ns(&self) -> u64 {
        self.requested_ns
    }

    pub fn stopped_ns(&self) -> u64 {
        self.stopped_ns
    }

    /// The newest round paused for, 0 before the first.
    pub fn last_round(&self) -> u64 {
        self.last_round
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversleep_is_taken_off_the_next_pause() {
        let mut ledger = Ledger::default();
        assert_eq!(ledger.target_ns(25_000_000), 25_000_000);
        let first = ledger.record(1, 25_000_000, 25_300_000, 0);
        assert_eq!(first.target_ns, 25_000_000);
        assert_eq!(first.oversleep_ns, 300_000);
        assert_eq!(ledger.target_ns(25_000_000), 24_700_000);
        let second = ledger.record(2, 25_000_000, 24_750_000, 0);
        assert_eq!(second.target_ns, 24_700_000);
        assert_eq!(second.oversleep_ns, 50_000);
        assert_eq!((ledger.pauses(), ledger.requested_ns(), ledger.stopped_ns()), (2, 50_000_000, 50_050_000));
    }

    #[test]
    fn a_target_is_never_below_zero_and_the_rest_carries_over() {
        let mut ledger = Ledger::default();
        ledger.record(1, 1_000_000, 4_000_000, 0);
        assert_eq!(ledger.target_ns(1_000_000), 0);
        let record = ledger.record(2, 1_000_000, 20_000, 0);
        assert_eq!(record.target_ns, 0);
        assert_eq!(record.oversleep_ns, 2_020_000);
        assert_eq!(ledger.target_ns(5_000_000), 2_980_000);
    }

    #[test]
    fn a_round_pauses_once_and_rounds_only_go_up() {
        let mut ledger = Ledger::default();
        assert_eq!(ledger.claim(0), Err(StaleRound { round: 0, last_round: 0 }));
        assert_eq!(ledger.claim(3), Ok(()));
        assert_eq!(ledger.claim(3), Err(StaleRound { round: 3, last_round: 3 }));
        assert_eq!(ledger.claim(2), Err(StaleRound { round: 2, last_round: 3 }));
        assert_eq!(ledger.claim(7), Ok(()));
        assert_eq!(ledger.last_round(), 7);
    }

    #[test]
    fn huge_totals_saturate_instead_of_wrapping() {
        let mut ledger = Ledger::default();
        ledger.record(1, 0, u64::MAX, 0);
        ledger.record(2, 0, u64::MAX, 0);
        assert_eq!(ledger.oversleep_ns(), i64::MAX);
        assert_eq!(ledger.target_ns(1_000_000), 0);
    }
}
