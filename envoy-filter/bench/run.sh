#!/usr/bin/env bash
# Benchmark of the filter's overhead (not a test): Envoy without a filter, with an empty proxy-wasm filter, with
# PathFence as Wasm, with PathFence as a native dynamic module and with the native module's probe reading :path (the
# native floor), side by side in one run, at a moderate, a busy and a saturating load.
# Usage: envoy-filter/bench/run.sh [seconds per run, default 3] [rounds, default 5]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/../scripts/env.sh"
"$here/../scripts/tools.sh"
# wrk drives the saturating load (a Debian and Ubuntu package).
if ! command -v wrk >/dev/null 2>&1; then
  apt-get install -y -q wrk >/dev/null || { echo "bench: wrk is missing and could not be installed: apt-get install wrk" >&2; exit 2; }
fi
cd "$here"
cargo build --release --locked --target wasm32-wasip1 --lib
cargo build --release --locked --target wasm32-wasip1 -p pathfence-bench-empty-filter
# Both trimmed the same way, so that Envoy enters each module for the same callbacks.
trim() { cargo run --locked --quiet -p pathfence-wasm-trim -- "target/wasm32-wasip1/release/$1" "target/$2"; }
trim pathfence_envoy_filter.wasm pathfence_envoy_filter.wasm
trim pathfence_bench_empty_filter.wasm empty_filter.wasm
(cd native && cargo build --release --locked --lib)
exec cargo run --release --locked --example bench -- "$@"
