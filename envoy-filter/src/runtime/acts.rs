//! The worker's effects made ready to carry out once it is let go, and carried out through the proxy.

use log::warn;

use crate::host::{Host, Proxy};
use crate::limiter::{Effect, Worker};

/// The local reply that refuses a request: the rejection contract every binding sends as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `retry-after`, in seconds.
    pub retry_after_s: String,
    /// The reservation that refused it, in `x-pathfence-path`.
    pub path: String,
}

impl Refusal {
    pub const STATUS: u32 = 503;
    pub const BODY: &'static [u8] = b"pathfence: path is over its limit\n";

    /// The reply's headers, in the order they are sent.
    pub fn headers(&self) -> [(&'static str, &str); 3] {
        [("retry-after", &self.retry_after_s), ("x-pathfence-path", &self.path), ("content-type", "text/plain")]
    }
}

/// An effect made ready to carry out without the worker: a refusal carries its reply, taken from the configuration
/// of the worker that refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    Resume { stream: u32 },
    Refuse { stream: u32, refusal: Refusal },
}

/// The acts for `effects`, which `worker` returned.
pub fn prepare<H: Host>(worker: &Worker<H>, effects: Vec<Effect>) -> Vec<Act> {
    effects
        .into_iter()
        .map(|effect| match effect {
            Effect::Resume { context } => Act::Resume { stream: context },
            Effect::Reject { context, path } => {
                let config = worker.config();
                let name = config.name(path).to_string();
                Act::Refuse {
                    stream: context,
                    refusal: Refusal { retry_after_s: config.retry_after_s.to_string(), path: name },
                }
            }
        })
        .collect()
}

/// Carries out acts once the workers are no longer borrowed: a local reply may end the stream synchronously, which
/// calls back into the runtime. `current` is the stream (or root) the proxy's later calls are about, which the proxy
/// makes current again afterwards.
pub fn apply(proxy: &dyn Proxy, acts: Vec<Act>, current: u32) {
    if acts.is_empty() {
        return;
    }
    for act in acts {
        match act {
            Act::Resume { stream } => {
                if let Err(e) = proxy.resume(stream) {
                    warn!("pathfence: resume of stream {stream} failed: {e}");
                }
            }
            Act::Refuse { stream, refusal } => {
                if let Err(e) = proxy.refuse(stream, &refusal) {
                    warn!("pathfence: local reply failed: {e}");
                }
            }
        }
    }
    proxy.acted(current);
}
