//! Coordinated rounds: the pauses of a what-if run (Slowpoke, NSDI '26), started together at every service.
//!
//! A runner counts the requests the target serves and, every so many, starts a round: it sends each paused
//! service's filter a control request naming the round and that service's pause. Rounds are numbered so that a
//! late or repeated request cannot start a round twice: a round not newer than the last one started is refused,
//! and the one started stands. The pause is kept in the gate's shared value, `(last_round, paused_until_ms)`, so
//! every worker holds requests until it ends, whichever worker took the control request.

use crate::cas::{self, Step};
use crate::host::{HostError, SharedStore};

/// The round's number, a whole number from 1, each round's larger than the last.
pub const ROUND_HEADER: &str = "x-pathfence-round";
/// The round's pause at this service, in milliseconds (0 is a round without a pause).
pub const PAUSE_HEADER: &str = "x-pathfence-pause-ms";
/// The secret of `pause.rounds.token`, when one is set.
pub const TOKEN_HEADER: &str = "x-pathfence-token";
/// The largest round number taken (2^53, still exact as a JSON number): a round numbered `u64::MAX` would leave
/// no newer one, and every later round would be refused until Envoy restarts.
pub const MAX_ROUND: u64 = 1 << 53;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// The round's pause holds requests until this wall-clock millisecond.
    Paused { until_ms: u64 },
    /// The round is not newer than `last`, the last one started, which stands.
    Stale { last: u64 },
}

/// Starts `round` with a pause of `pause_ms` from `now_ms`. A pause still on from an earlier round that ends later
/// is not cut short; one that seems to end more than `max_pause_ms` from now is the wall clock stepping back, and
/// over (as in [`super::holds`]).
pub fn start(
    store: &dyn SharedStore,
    key: &str,
    round: u64,
    pause_ms: u64,
    max_pause_ms: u64,
    now_ms: u64,
) -> Result<Started, HostError> {
    let started = cas::update(store, key, |value| {
        let (last, until_ms) = value.map_or((0, 0), super::decode);
        if round <= last {
            return Step::Done(Started::Stale { last });
        }
        let mut until = now_ms.saturating_add(pause_ms);
        if super::holds(until_ms, now_ms, max_pause_ms) {
            until = until.max(until_ms);
        }
        Step::Write(super::encode(round, until).to_vec(), Started::Paused { until_ms: until })
    })?;
    started.ok_or_else(|| HostError(format!("round {round} lost every race for the pause's shared value")))
}

/// A round's control request, as read from its method and headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Control {
    pub round: u64,
    pub pause_ms: u64,
}

/// The filter's answer to a control request: a status and a JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u32,
    pub body: String,
}

impl Answer {
    pub const CONTENT_TYPE: &'static str = "application/json";

    fn detail(status: u32, detail: &str) -> Answer {
        Answer { status, body: format!(r#"{{"detail":{}}}"#, quote(detail)) }
    }

    /// The round started: its pause ends at `until_ms` (wall clock).
    pub fn started(control: Control, until_ms: u64) -> Answer {
        Answer {
            status: 200,
            body: format!(
                r#"{{"round":{},"pause_ms":{},"paused_until_ms":{until_ms}}}"#,
                control.round, control.pause_ms
            ),
        }
    }

    /// 409: the round is not newer than the last one started.
    pub fn stale(control: Control, last: u64) -> Answer {
        Answer {
            status: 409,
            body: format!(
                r#"{{"round":{},"last_round":{last},"detail":"round {} is not newer than round {last}, started already"}}"#,
                control.round, control.round
            ),
        }
    }

    /// 503: the pause could not be written; the round did not start here.
    pub fn unavailable(error: &HostError) -> Answer {
        Answer::detail(503, &format!("the round did not start: {error}"))
    }

    /// 400, 403 or 405: a request that is not a control request as it should be, and why.
    pub fn refused(status: u32, detail: &str) -> Answer {
        Answer::detail(status, detail)
    }
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// Whether `sent` is the configured `token`. Every byte is compared whatever the first difference, so the time taken
/// does not tell how much of a guess was right.
pub fn token_matches(sent: Option<&[u8]>, token: &str) -> bool {
    let Some(sent) = sent else { return false };
    let token = token.as_bytes();
    sent.len() == token.len() && sent.iter().zip(token).fold(0u8, |differ, (a, b)| differ | (a ^ b)) == 0
}

/// Reads a control request: `POST`, with the round and the pause in their headers; refused (400 naming the header,
/// 405 for another method) otherwise.
pub fn read(
    method: Option<&[u8]>,
    round: Option<&[u8]>,
    pause_ms: Option<&[u8]>,
    max_pause_ms: u64,
) -> Result<Control, Answer> {
    if method != Some(b"POST".as_slice()) {
        return Err(Answer::refused(405, "a round is started with POST"));
    }
    let number = |header: &str, value: Option<&[u8]>, min: u64, max: u64| -> Result<u64, Answer> {
        let text = value.map(String::from_utf8_lossy).unwrap_or_default();
        match text.trim().parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(Answer::refused(
                400,
                &format!("header `{header}` must be a whole number from {min} to {max}, not `{text}`"),
            )),
        }
    };
    let round = number(ROUND_HEADER, round, 1, MAX_ROUND)?;
    let pause_ms = number(PAUSE_HEADER, pause_ms, 0, max_pause_ms)?;
    Ok(Control { round, pause_ms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PauseSchedule;
    use crate::pause::{pass, paused_until, Gate};
    use crate::per_path::PathIndex;
    use crate::testing::MemStore;

    fn rounds() -> PauseSchedule {
        PauseSchedule {
            every_requests: 0,
            duration_ms: 1000,
            rounds: Some(crate::config::Rounds { control_path: "/r".to_string(), token: None }),
            paths: vec![PathIndex(0)],
        }
    }

    #[test]
    fn a_round_holds_requests_for_its_pause_and_requests_start_none() {
        let s = MemStore::default();
        for t in 0..50 {
            assert_eq!(pass(&s, "p", &rounds(), t).unwrap(), Gate::Open, "requests alone never pause");
        }
        assert_eq!(start(&s, "p", 1, 25, 1000, 100).unwrap(), Started::Paused { until_ms: 125 });
        assert_eq!(pass(&s, "p", &rounds(), 124).unwrap(), Gate::Closed { until_ms: 125 });
        assert_eq!(paused_until(&s, "p", &rounds(), 110).unwrap(), Some(125));
        assert_eq!(pass(&s, "p", &rounds(), 125).unwrap(), Gate::Open);
    }

    #[test]
    fn a_round_not_newer_than_the_last_is_refused_and_the_last_stands() {
        let s = MemStore::default();
        start(&s, "p", 5, 40, 1000, 100).unwrap();
        assert_eq!(start(&s, "p", 5, 500, 1000, 101).unwrap(), Started::Stale { last: 5 });
        assert_eq!(start(&s, "p", 3, 500, 1000, 101).unwrap(), Started::Stale { last: 5 });
        assert_eq!(paused_until(&s, "p", &rounds(), 101).unwrap(), Some(140));
        // Rounds may be skipped (a busy runner): 7 after 5 starts.
        assert_eq!(start(&s, "p", 7, 0, 1000, 200).unwrap(), Started::Paused { until_ms: 200 });
        assert_eq!(paused_until(&s, "p", &rounds(), 200).unwrap(), None, "a pause of 0 holds nothing");
    }

    #[test]
    fn a_round_does_not_cut_short_a_pause_still_on_but_a_clock_step_back_ends_it() {
        let s = MemStore::default();
        start(&s, "p", 1, 300, 1000, 1000).unwrap();
        assert_eq!(start(&s, "p", 2, 10, 1000, 1100).unwrap(), Started::Paused { until_ms: 1300 });
        // The wall clock stepped back a minute: the pause that seems to end in a minute is over.
        assert_eq!(start(&s, "p", 3, 10, 1000, 0).unwrap(), Started::Paused { until_ms: 10 });
    }

    #[test]
    fn a_round_that_loses_every_race_is_an_error_not_a_pause() {
        let s = MemStore::default();
        s.fail_next_cas(1000);
        let e = start(&s, "p", 1, 10, 1000, 0).unwrap_err();
        assert!(e.0.contains("round 1 lost every race"), "{e}");
    }

    #[test]
    fn a_control_request_is_a_post_with_its_round_and_pause() {
        let ok = read(Some(b"POST"), Some(b"12"), Some(b" 25"), 100).unwrap();
        assert_eq!(ok, Control { round: 12, pause_ms: 25 });
        assert_eq!(read(Some(b"GET"), Some(b"1"), Some(b"1"), 100).unwrap_err().status, 405);
        let missing = read(Some(b"POST"), None, Some(b"1"), 100).unwrap_err();
        assert_eq!(missing.status, 400);
        assert!(missing.body.contains("x-pathfence-round"), "{}", missing.body);
        let zero = read(Some(b"POST"), Some(b"0"), Some(b"1"), 100).unwrap_err();
        assert!(zero.body.contains("from 1 to"), "{}", zero.body);
        let long = read(Some(b"POST"), Some(b"1"), Some(b"101"), 100).unwrap_err();
        assert_eq!(long.status, 400);
        assert!(
            long.body.contains("`x-pathfence-pause-ms` must be a whole number from 0 to 100, not `101`"),
            "{}",
            long.body
        );
    }

    #[test]
    fn a_round_numbered_past_the_most_is_refused_naming_the_header() {
        let most = MAX_ROUND.to_string();
        assert_eq!(read(Some(b"POST"), Some(most.as_bytes()), Some(b"1"), 100).unwrap().round, MAX_ROUND);
        for over in [(MAX_ROUND + 1).to_string(), u64::MAX.to_string()] {
            let refused = read(Some(b"POST"), Some(over.as_bytes()), Some(b"1"), 100).unwrap_err();
            assert_eq!(refused.status, 400, "{over}");
            assert!(refused.body.contains("`x-pathfence-round` must be a whole number from 1 to 9007199254740992"));
        }
    }

    #[test]
    fn only_the_token_itself_matches() {
        assert!(token_matches(Some(b"s3cret"), "s3cret"));
        for sent in [
            None,
            Some(b"".as_slice()),
            Some(b"s3cres".as_slice()),
            Some(b"s3cre".as_slice()),
            Some(b"s3crets".as_slice()),
        ] {
            assert!(!token_matches(sent, "s3cret"), "{sent:?}");
        }
    }

    #[test]
    fn answers_are_json() {
        let c = Control { round: 3, pause_ms: 25 };
        let started: serde_json::Value = serde_json::from_str(&Answer::started(c, 1025).body).unwrap();
        assert_eq!(started, serde_json::json!({"round": 3, "pause_ms": 25, "paused_until_ms": 1025}));
        let stale: serde_json::Value = serde_json::from_str(&Answer::stale(c, 4).body).unwrap();
        assert_eq!(stale["last_round"], 4);
        let refused: serde_json::Value = serde_json::from_str(&Answer::refused(400, "a \"b\"").body).unwrap();
        assert_eq!(refused["detail"], "a \"b\"");
    }
}
