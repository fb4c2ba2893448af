//! The pause agent: runs a service as its child in its own process group and, on command from a control port, stops
//! the whole group (SIGSTOP) for a precise time and continues it (SIGCONT). It is the slowdown mechanism of a what-if
//! experiment (Slowpoke, NSDI '26): every service but the one to be optimised is paused, in coordinated rounds, for the
//! time the model asks.
//!
//! The pieces: [`options`] (command line), [`quota`] (the refusal under a CPU quota), [`clock`] (precise sleeps),
//! [`ledger`] (oversleep repaid on the next pause), [`protocol`] (the control lines), [`group`] (stop and continue),
//! [`control`] (the port), [`supervise`] (the child, signals, exit).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod clock;
pub mod control;
pub mod group;
pub mod ledger;
pub mod options;
pub mod protocol;
pub mod quota;
pub mod supervise;
