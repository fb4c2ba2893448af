//! Tuning across Envoy's workers, in shared data (issue 19): what each worker publishes, which worker analyses,
//! and the limits it decides. The model itself is in [`crate::sct`]; the worker's part in `limiter/tuning.rs`.
//!
//! - [`samples`]: every worker's closed intervals of a path, kept for a window, so that any analyst finds them.
//! - [`lease`]: the one worker that analyses, taken over when its heartbeat stands still.
//! - [`published`]: each path's decided limit and range, and a count of rounds of decisions that every worker
//!   reads on its tick.

pub mod lease;
pub mod published;
pub mod samples;
