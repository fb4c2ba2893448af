#!/usr/bin/env bash
# Benchmark of the filter's overhead (not a test): Envoy with and without the filter, side by side in one run,
# at a moderate and a saturating load. Usage: envoy-filter/bench/run.sh [seconds per run, default 3] [rounds, default 5]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/../scripts/env.sh"
"$here/../scripts/tools.sh"
cd "$here"
cargo build --release --locked --target wasm32-wasip1 --lib
cargo run --locked --quiet -p pathfence-wasm-trim -- \
  target/wasm32-wasip1/release/pathfence_envoy_filter.wasm target/pathfence_envoy_filter.wasm
exec cargo run --release --locked --example bench -- "$@"
