//! PathFence's native build: an Envoy dynamic module (`envoy.filters.http.dynamic_modules`), a shared library
//! Envoy loads with `dlopen` and calls directly, without a Wasm VM between them.
//!
//! So far it holds the binding to Envoy's dynamic-modules ABI ([`abi`], [`host`], [`hooks`]), the check that the
//! Envoy loading it has the ABI it was built against ([`compat`], [`build_id`]), and a first filter ([`probe`]) that
//! reads each request's path. The fence's logic joins it through the filter's host-agnostic runtime layer.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]
#![cfg(all(target_os = "linux", target_pointer_width = "64"))]

pub mod abi;
pub mod build_id;
pub mod compat;
pub mod hooks;
pub mod host;
pub mod probe;
