//! PathFence as an Envoy filter: per-path concurrency reservations with a prioritised local path, and
//! request-counted pause injection, for services that cannot embed the PathFence starter.
//!
//! The logic (config, classifier, counters, pause, limiter) makes no hostcall; it reaches the host through the
//! traits in [`host`]. The `wasm` module binds those traits to proxy-wasm and exists only in the Wasm build.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod classifier;
pub mod config;
pub mod counters;
pub mod host;
pub mod limiter;
pub mod pause;

#[cfg(test)]
mod testing;

#[cfg(target_arch = "wasm32")]
mod wasm;
