//! The SCT model (PathFence, HPDC'25, section 4.2; `sct-tuner/README.md`) without hostcalls: what the filter
//! needs to size each path's limit online from the requests it admits.
//!
//! - [`accumulator`]: a worker's running sums of one path, fed on admission, release and waits, closed per
//!   sampling interval into [`interval::IntervalTotals`], which add up across workers.
//! - [`wire`]: one worker's interval as a fixed-layout record for Envoy's shared data.
//! - [`window`]: the analysing worker's window of intervals, each summed over every worker's records.
//! - [`levels`] and [`plateau`]: the analysis of a window: levels, the plateau test, the [`verdict::Verdict`].
//! - [`guards`]: from a recommendation to the next limit (max step, hysteresis, min and max).
//! - [`decision`]: what one decision reports to the stats and the log.
//! - [`tuner`]: a path's window, analysis and guards together.
//!
//! Every time is passed in (nanoseconds on a clock the workers share); nothing here reads a clock, allocates per
//! request or panics on what it is given. `docs/sct-model.md` records how this model relates to sct-tuner.

pub mod accumulator;
pub mod decision;
pub mod guards;
pub mod interval;
pub mod levels;
pub mod plateau;
pub mod settings;
pub mod tuner;
pub mod verdict;
pub mod window;
pub mod wire;

#[cfg(test)]
mod cost;
#[cfg(test)]
mod merge_props;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod vectors;
