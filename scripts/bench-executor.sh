#!/usr/bin/env bash
# Builds pathfence-benchmarks and runs ExecutorBenchmark: the per-task cost of PathFenceTaskExecutor against the
# plain ThreadPoolTaskExecutor and Resilience4j's ThreadPoolBulkhead and SemaphoreBulkhead, in one JMH run.
# Prints JMH's table, then each executor's ratio to the plain one. Not part of the test command.
#
# The defaults suit a 2-core machine (8 parameter combinations x 2 forks x (3 + 4) iterations of 2 s: about
# 4-5 minutes). Override them through the environment, e.g. FORKS=1 ITERATIONS=3 scripts/bench-executor.sh;
# further arguments go to JMH as they are, e.g. scripts/bench-executor.sh -p inFlight=1024
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

FORKS="${FORKS:-2}"
WARMUP_ITERATIONS="${WARMUP_ITERATIONS:-3}"
ITERATIONS="${ITERATIONS:-4}"
ITERATION_TIME="${ITERATION_TIME:-2s}"
OUT="${OUT:-$PATHFENCE_ROOT/results/bench-executor}"   # results/ is ignored by git

./mvnw -B -ntp -q -pl pathfence-benchmarks -am package -Dmaven.test.skip=true
mkdir -p "$OUT"

# The machine may be shared: say how busy it was, since the figures depend on it.
echo "cores: $(nproc); before the run: $(uptime)"
java -version 2>&1 | head -1
java -jar pathfence-benchmarks/target/benchmarks.jar ExecutorBenchmark \
  -f "$FORKS" -wi "$WARMUP_ITERATIONS" -i "$ITERATIONS" -w "$ITERATION_TIME" -r "$ITERATION_TIME" \
  -rf json -rff "$OUT/executor.json" "$@" | tee "$OUT/executor.txt"
echo "after the run: $(uptime)"

python3 - "$OUT/executor.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
def key(r):
    p = dict(r["params"]); p.pop("executor")
    return tuple(sorted(p.items()))
plain = {key(r): r["primaryMetric"] for r in rows if r["params"]["executor"] == "plain"}
print()
print("Ratio to the plain ThreadPoolTaskExecutor (lower is better; range from the 99.9% error bars):")
print(f"{'executor':<16}{'params':<26}{'ns/task':>10}{'ratio':>8}   range")
for r in rows:
    base = plain.get(key(r))
    if base is None:
        continue
    m = r["primaryMetric"]
    s, e, bs, be = m["score"], m["scoreError"], base["score"], base["scoreError"]
    e = 0.0 if e != e else e          # NaN with a single iteration
    be = 0.0 if be != be else be
    ratio = s / bs
    lo = (s - e) / (bs + be)
    hi = (s + e) / (bs - be) if bs > be else float("inf")
    params = " ".join(f"{k}={v}" for k, v in key(r))
    note = ""
    if r["params"]["executor"] == "pathfence":
        note = "  target <= 1.15: " + ("met" if ratio <= 1.15 else "NOT met")
    print(f"{r['params']['executor']:<16}{params:<26}{s:>10.0f}{ratio:>8.2f}   {lo:.2f}-{hi:.2f}{note}")
PY
