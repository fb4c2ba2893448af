#!/usr/bin/env bash
# Benchmark of the filters' floors (not a test): Envoy without a filter, with the empty proxy-wasm filter and with
# the native dynamic module that only reads :path, side by side in one run (envoy-filter/native/examples/floor.rs).
# Usage: envoy-filter/bench/floor.sh [seconds per run, default 3] [rounds, default 6]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/../scripts/env.sh"
"$here/../scripts/tools.sh"
if ! command -v wrk >/dev/null 2>&1; then
  apt-get install -y -q wrk >/dev/null || { echo "floor: wrk is missing and could not be installed: apt-get install wrk" >&2; exit 2; }
fi
cd "$here"
cargo build --release --locked --target wasm32-wasip1 -p pathfence-bench-empty-filter
# Trimmed as the filter's benchmark trims it, so that Envoy enters the VM for the same callbacks.
cargo run --locked --quiet -p pathfence-wasm-trim -- target/wasm32-wasip1/release/pathfence_bench_empty_filter.wasm target/empty_filter.wasm
cd native
cargo build --release --locked --lib
exec cargo run --release --locked --example floor -- "$@"
