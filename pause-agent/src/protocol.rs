//! The control protocol: one command per line, one reply line per command, ASCII, over a TCP connection.
//!
//! ```text
//! PAUSE <round> <nanoseconds>   stop the group for that long (less the oversleep carried over), then continue it;
//!                               the reply comes once the group runs again:
//!   PAUSED round=<n> requested_ns=<n> target_ns=<n> stopped_ns=<n> oversleep_ns=<n> at_ns=<n>
//!   STALE round=<n> last_round=<n>          the round is not newer than the last one: nothing was done
//! STATS
//!   STATS child_pid=<n> pauses=<n> requested_ns=<n> stopped_ns=<n> oversleep_ns=<n> last_round=<n>
//! anything else, or a pause that could not be done:
//!   ERR <what went wrong>
//! ```
//!
//! Commands are case-insensitive; replies are not. Numbers are decimal.

use crate::ledger::{PauseRecord, StaleRound};

/// The longest command line accepted; anything longer is refused and the connection closed.
pub const MAX_LINE: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Pause { round: u64, requested_ns: u64 },
    Stats,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub child_pid: i32,
    pub pauses: u64,
    pub requested_ns: u64,
    pub stopped_ns: u64,
    pub oversleep_ns: i64,
    pub last_round: u64,
}

/// Parses one command line (without its line end). `max_pause_ns` bounds a pause, so a mistaken number cannot
/// freeze the service for hours.
pub fn parse(line: &str, max_pause_ns: u64) -> Result<Command, String> {
    let mut words = line.split_ascii_whitespace();
    let verb =
        words.next().ok_or_else(|| "empty command; expected PAUSE <round> <nanoseconds> or STATS".to_string())?;
    let command = if verb.eq_ignore_ascii_case("PAUSE") {
        let round = number(words.next(), "round", "PAUSE <round> <nanoseconds>")?;
        if round == 0 {
            return Err("round must be at least 1".to_string());
        }
        let requested_ns = number(words.next(), "nanoseconds", "PAUSE <round> <nanoseconds>")?;
        if requested_ns > max_pause_ns {
            return Err(format!(
                "a pause of {requested_ns} ns is longer than the limit of {max_pause_ns} ns (--max-pause-ms)"
            ));
        }
        Command::Pause { round, requested_ns }
    } else if verb.eq_ignore_ascii_case("STATS") {
        Command::Stats
    } else {
        return Err(format!("unknown command '{}'; expected PAUSE <round> <nanoseconds> or STATS", printable(verb)));
    };
    match words.next() {
        Some(extra) => Err(format!("unexpected '{}' after the command", printable(extra))),
        None => Ok(command),
    }
}

fn number(word: Option<&str>, name: &str, usage: &str) -> Result<u64, String> {
    let word = word.ok_or_else(|| format!("missing {name}; expected {usage}"))?;
    word.parse::<u64>()
        .map_err(|_| format!("{name} '{}' is not a whole number of at most {}", printable(word), u64::MAX))
}

/// A word as it may appear in a reply: printable ASCII, cut short.
fn printable(word: &str) -> String {
    word.chars().take(32).map(|c| if c.is_ascii_graphic() { c } else { '?' }).collect()
}

pub fn paused(record: &PauseRecord) -> String {
    format!(
        "PAUSED round={} requested_ns={} target_ns={} stopped_ns={} oversleep_ns={} at_ns={}",
        record.round, record.requested_ns, record.target_ns, record.stopped_ns, record.oversleep_ns, record.at_ns
    )
}

pub fn stale(stale: &StaleRound) -> String {
    format!("STALE round={} last_round={}", stale.round, stale.last_round)
}

pub fn stats(stats: &Stats) -> String {
    format!(
        "STATS child_pid={} pauses={} requested_ns={} stopped_ns={} oversleep_ns={} last_round={}",
        stats.child_pid, stats.pauses, stats.requested_ns, stats.stopped_ns, stats.oversleep_ns, stats.last_round
    )
}

pub fn error(message: &str) -> String {
    // One line, whatever the message holds.
    format!("ERR {}", message.replace(['\r', '\n'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: u64 = 10_000_000_000;

    #[test]
    fn parses_the_commands_in_any_case() {
        assert_eq!(parse("PAUSE 1 25000000", LIMIT), Ok(Command::Pause { round: 1, requested_ns: 25_000_000 }));
        assert_eq!(parse("pause 7 0", LIMIT), Ok(Command::Pause { round: 7, requested_ns: 0 }));
        assert_eq!(parse("  Stats ", LIMIT), Ok(Command::Stats));
    }

    #[test]
    fn refuses_bad_commands_saying_why() {
        let cases = [
            ("", "empty command"),
            ("PAUSE", "missing round"),
            ("PAUSE 1", "missing nanoseconds"),
            ("PAUSE 0 5", "round must be at least 1"),
            ("PAUSE one 5", "round 'one' is not a whole number"),
            ("PAUSE 1 -5", "nanoseconds '-5' is not a whole number"),
            ("PAUSE 1 2.5", "nanoseconds '2.5' is not a whole number"),
            ("PAUSE 1 10000000001", "longer than the limit of 10000000000 ns"),
            ("PAUSE 1 5 6", "unexpected '6'"),
            ("STATS now", "unexpected 'now'"),
            ("STOP", "unknown command 'STOP'"),
        ];
        for (line, expected) in cases {
            let message = parse(line, LIMIT).unwrap_err();
            assert!(message.contains(expected), "{line:?} gave {message:?}, expected it to contain {expected:?}");
        }
    }

    #[test]
    fn formats_replies_as_single_lines_of_fields() {
        let record = PauseRecord {
            round: 3,
            requested_ns: 25_000_000,
            target_ns: 24_990_000,
            stopped_ns: 25_002_000,
            oversleep_ns: 12_000,
            at_ns: 99,
        };
        assert_eq!(
            paused(&record),
            "PAUSED round=3 requested_ns=25000000 target_ns=24990000 stopped_ns=25002000 oversleep_ns=12000 at_ns=99"
        );
        assert_eq!(stale(&StaleRound { round: 2, last_round: 3 }), "STALE round=2 last_round=3");
        assert_eq!(error("bad\nthing"), "ERR bad thing");
    }
}
