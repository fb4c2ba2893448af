#!/usr/bin/env bash
# Benchmark of what the number of configured paths costs while a request waits (not a test): Envoy's CPU and
# another path's latency, with 2, 2000 and 10000 paths by default; see examples/many_paths.rs.
# Usage: envoy-filter/bench/many_paths.sh [seconds per run, default 10] [paths...]
# PATHFENCE_BENCH_AGAINST=<module.wasm> measures another build beside this one.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/../scripts/env.sh"
"$here/../scripts/tools.sh"
cd "$here"
cargo build --release --locked --target wasm32-wasip1 --lib
cargo run --locked --quiet -p pathfence-wasm-trim -- target/wasm32-wasip1/release/pathfence_envoy_filter.wasm target/pathfence_envoy_filter.wasm
exec cargo run --release --locked --example many_paths -- "$@"
