//! A round's control request, taken by the worker whose thread it reached (see [`super::rounds`]).

use log::warn;

use super::rounds::{self, Answer, Started, PAUSE_HEADER, ROUND_HEADER, TOKEN_HEADER};
use crate::classifier::{url_path, RequestView};
use crate::host::Host;
use crate::limiter::Worker;

impl<H: Host> Worker<H> {
    /// The answer to `request` if it is a round's control request (in rounds, at the control path), which then goes
    /// no further; `None` for any other request. Only a configuration in rounds reads anything here.
    pub fn control(&mut self, request: &dyn RequestView) -> Option<Answer> {
        let schedule = self.config.pause.as_ref()?;
        let settings = schedule.rounds.as_ref()?;
        let full = request.path().unwrap_or_default();
        if url_path(&full) != settings.control_path.as_bytes() {
            return None;
        }
        if let Some(token) = &settings.token {
            if !rounds::token_matches(request.header(TOKEN_HEADER).as_deref(), token) {
                return Some(Answer::refused(403, &format!("header `{TOKEN_HEADER}` must carry the rounds' token")));
            }
        }
        let max_pause_ms = schedule.duration_ms;
        let control = match rounds::read(
            request.method().as_deref(),
            request.header(ROUND_HEADER).as_deref(),
            request.header(PAUSE_HEADER).as_deref(),
            max_pause_ms,
        ) {
            Ok(control) => control,
            Err(refused) => return Some(refused),
        };
        self.now();
        let now_ms = self.watch.clock.wall_ms();
        Some(match rounds::start(&self.host, &self.keys.pause, control.round, control.pause_ms, max_pause_ms, now_ms) {
            Ok(Started::Paused { until_ms }) => Answer::started(control, until_ms),
            Ok(Started::Stale { last }) => Answer::stale(control, last),
            Err(e) => {
                warn!("pathfence: round {} not started: {e}", control.round);
                Answer::unavailable(&e)
            }
        })
    }
}
