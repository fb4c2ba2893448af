//! PathFence's native build: an Envoy dynamic module (`envoy.filters.http.dynamic_modules`), a shared library
//! Envoy loads with `dlopen` and calls directly, without a Wasm VM between them.
//!
//! It holds the binding to Envoy's dynamic-modules ABI ([`abi`], [`host`], [`hooks`], [`logger`]), the check that
//! the Envoy loading it has the ABI it was built against ([`compat`], [`build_id`]), and two filters: `pathfence`
//! ([`fence`]), the filter's runtime (the logic crate the Wasm build is made of) with the process's shared store
//! ([`store`]) and a tick ([`metronome`]); and `probe` ([`probe`]), which only reads each request's path, for the
//! floor benchmark.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]
#![cfg(all(target_os = "linux", target_pointer_width = "64"))]

pub mod abi;
pub mod build_id;
pub mod compat;
pub mod current;
pub mod fence;
pub mod gone;
pub mod hooks;
pub mod host;
pub mod logger;
pub mod metronome;
pub mod probe;
pub mod settle;
pub mod store;
