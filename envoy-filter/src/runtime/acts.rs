//! The worker's effects made ready to carry out once it is let go, and carried out through the proxy.

use log::warn;

use crate::host::{Host, Proxy};
use crate::limiter::{Effect, Reason, Worker};
use crate::pause::rounds::Answer;

/// The local reply that refuses a request: the rejection contract every binding sends as it is, the starter's
/// (a `503` with `retry-after`, `x-pathfence-path` and an RFC 9457 problem body naming the path and the reason), so
/// that a client handles a refusal the same way whichever of the two fences its service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `retry-after`, in seconds.
    pub retry_after_s: String,
    /// The reservation that refused it, in `x-pathfence-path`.
    pub path: String,
    pub reason: Reason,
    /// The request's URL path without its query, the body's `instance` (see [`instance`]); empty when it was not
    /// kept.
    pub instance: String,
}

/// The most characters of a request's URL path that a refusal repeats, as the starter's: beyond it the path is cut
/// and `...` appended. A client may send a path of tens of kilobytes, each byte of which JSON may escape to six, and
/// a held stream keeps its copy until it is resumed or refused.
pub const MAX_INSTANCE_CHARS: usize = 256;

/// A refusal's `instance` for the URL path `url_path`: read as UTF-8 with each byte that is not part of it as U+FFFD,
/// cut after [`MAX_INSTANCE_CHARS`] characters. Only the head of the path is read: a character takes at most four
/// bytes, so the first `MAX_INSTANCE_CHARS + 1` characters lie within `4 * (MAX_INSTANCE_CHARS + 1)` bytes.
pub fn instance(url_path: &[u8]) -> String {
    let head = url_path.get(..4 * (MAX_INSTANCE_CHARS + 1)).unwrap_or(url_path);
    let mut text = String::from_utf8_lossy(head).into_owned();
    if let Some((cut, _)) = text.char_indices().nth(MAX_INSTANCE_CHARS) {
        text.truncate(cut);
        text.push_str("...");
    }
    text
}

impl Refusal {
    pub const STATUS: u32 = 503;
    pub const CONTENT_TYPE: &'static str = "application/problem+json";

    /// The reply's headers, in the order they are sent.
    pub fn headers(&self) -> [(&'static str, &str); 3] {
        [("retry-after", &self.retry_after_s), ("x-pathfence-path", &self.path), ("content-type", Self::CONTENT_TYPE)]
    }

    /// The problem body, with the starter's fields and wording.
    pub fn body(&self) -> String {
        let path = &self.path;
        let detail = match self.reason {
            Reason::QueueFull => format!("The queue of path '{path}' is full."),
            Reason::Timeout => format!("The request waited longer than the queue timeout of path '{path}'."),
            Reason::Reconfigured => format!("The configuration of path '{path}' changed while the request waited."),
        };
        format!(
            r#"{{"type":"about:blank","title":"Service Unavailable","status":503,"detail":{},"instance":{},"path":{},"reason":"{}"}}"#,
            quote(&detail),
            quote(&self.instance),
            quote(path),
            self.reason.tag()
        )
    }
}

/// A JSON string; the path name is `[A-Za-z0-9_-]+`, but the instance is whatever the client sent.
fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// An effect made ready to carry out without the worker: a refusal carries its reply, taken from the configuration
/// of the worker that refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    Resume {
        stream: u32,
    },
    Refuse {
        stream: u32,
        refusal: Refusal,
    },
    /// A pause round's control request, answered by the filter.
    Answer {
        stream: u32,
        answer: Answer,
    },
}

/// The acts for `effects`, which `worker` returned.
pub fn prepare<H: Host>(worker: &Worker<H>, effects: Vec<Effect>) -> Vec<Act> {
    effects
        .into_iter()
        .map(|effect| match effect {
            Effect::Resume { context } => Act::Resume { stream: context },
            Effect::Reject { context, path, reason } => {
                let config = worker.config();
                let name = config.name(path).to_string();
                Act::Refuse {
                    stream: context,
                    refusal: Refusal {
                        retry_after_s: config.retry_after_s.to_string(),
                        path: name,
                        reason,
                        instance: String::new(),
                    },
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
                    // A stream stopped and never answered would hang until its client gives up: let it go on.
                    warn!("pathfence: local reply failed, the request goes on unfenced: {e}");
                    if let Err(e) = proxy.resume(stream) {
                        warn!("pathfence: resume of stream {stream} failed: {e}");
                    }
                }
            }
            Act::Answer { stream, answer } => {
                if let Err(e) = proxy.answer(stream, &answer) {
                    // The round started (or was refused) all the same; the request must not hang.
                    warn!("pathfence: a round's control request goes on upstream unanswered: {e}");
                    if let Err(e) = proxy.resume(stream) {
                        warn!("pathfence: resume of stream {stream} failed: {e}");
                    }
                }
            }
        }
    }
    proxy.acted(current);
}
