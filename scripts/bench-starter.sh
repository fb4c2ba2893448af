#!/usr/bin/env bash
# Benchmark, not a test: what the starter costs a Spring Boot service per inbound request. Builds the benchmark's
# service (pathfence-benchmarks-app) and driver (pathfence-benchmarks), then starts the same service jar as a JVM on
# loopback with the starter and without its auto-configuration, fresh in every round, under a moderate paced load
# (1000/s over the three routes, every variant at once) and a saturating one (wrk, 32 connections, closed loop,
# one variant at a time); prints each variant's figures and the medians of the per-round differences.
#
# Usage: scripts/bench-starter.sh [rounds, default 6] [seconds per variant and load, default 8]
# The defaults take about 10 minutes on 2 cores, build included. PATHFENCE_BENCH_VARIANTS=without,noop,lookup,classify,
# no-metrics,starter adds the variants that show where the cost goes (each variant adds about 40 s per round);
# PATHFENCE_BENCH_VARIANTS=without,calls,configured,observe,enforce measures discovery (enforce against configured: the
# learned paths against the same paths configured by hand); PATHFENCE_BENCH_VARIANTS=without,without-again measures
# the benchmark's resolution (the baseline against itself);
# PATHFENCE_BENCH_WARMUP caps the seconds of wrk that warm each service up until its JIT is quiet (default 60).
# Results: results/bench-starter/ (rounds.csv, warmup.csv, summary.txt, the services' logs), ignored by git.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

# wrk drives the saturating load (a Debian and Ubuntu package), as in the filter's benchmark.
if ! command -v wrk >/dev/null 2>&1; then
  apt-get install -y -q wrk >/dev/null || { echo "bench: wrk is missing and could not be installed: apt-get install wrk" >&2; exit 2; }
fi

./mvnw -B -ntp -q -pl pathfence-benchmarks,pathfence-benchmarks-app -am package -Dmaven.test.skip=true
OUT="${OUT:-$PATHFENCE_ROOT/results/bench-starter}"   # results/ is ignored by git
mkdir -p "$OUT"
rm -f "$OUT"/service-round-*.log "$OUT/rounds.csv" "$OUT/warmup.csv" "$OUT/summary.txt"
java -version 2>&1 | head -1 | tee "$OUT/summary.txt"
java -Xms256m -Xmx256m -XX:+UseSerialGC \
  -Dbench.app.jar="$PATHFENCE_ROOT/pathfence-benchmarks-app/target/bench-app.jar" -Dbench.results="$OUT" \
  -cp pathfence-benchmarks/target/benchmarks.jar io.pathfence.benchmarks.starter.StarterBenchmark "$@" \
  | tee -a "$OUT/summary.txt"
