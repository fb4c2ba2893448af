//! PathFence as an Envoy filter: per-path concurrency reservations with a prioritised local path, and
//! request-counted pause injection, for services that cannot embed the PathFence starter.
//!
//! The logic (config, classifier, counters, waiting, pause, limiter, pace) makes no hostcall; it reaches the host
//! through the traits in [`host`]. The [`runtime`] takes Envoy's callbacks on a worker thread and makes every
//! decision between them and the workers. The `wasm` module binds the host traits to proxy-wasm, forwards the
//! callbacks to the runtime, and exists only in the Wasm build.
// Nothing in the data path may panic: a panic aborts the worker's VM and every stream on it.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::string_slice,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
// RefCell::borrow and borrow_mut panic on a conflicting borrow; clippy.toml lists them, use try_borrow*.
#![deny(clippy::disallowed_methods)]

pub mod cas;
pub mod classifier;
pub mod clock;
pub mod config;
pub mod counters;
pub mod deltas;
pub mod host;
pub mod limiter;
pub mod pace;
pub mod pause;
pub mod per_path;
pub mod runtime;
pub mod sct;
pub mod stats;
pub mod tuning;
pub mod waiting;
pub mod waiting_paths;

#[cfg(test)]
mod testing;

#[cfg(target_arch = "wasm32")]
mod wasm;
