#!/usr/bin/env bash
# Builds pathfence-benchmarks and runs ExecutorBenchmark: the per-task cost of PathFenceTaskExecutor against the
# plain ThreadPoolTaskExecutor and Resilience4j's ThreadPoolBulkhead and SemaphoreBulkhead. Not part of the test
# command. Prints JMH's table for each run, then a summary with each executor's ratio to the plain one.
#
# The machine these figures come from is a shared 2-core box whose load drifts while the benchmark runs, so the
# executors are measured in ROUNDS rounds (one JMH fork each, the executor order reversed every other round) and
# each ratio is taken within a round, then summarised by its median: a drift hits both sides of a ratio alike.
# Defaults: 3 rounds x 2 in-flight limits x 4 executors x (2 warmup iterations of 1 s + 3 of 2 s), 24 JVMs in all:
# about 4-5 minutes on 2 cores, build included.
# Override through the environment, e.g. ROUNDS=1 IN_FLIGHT=1024 scripts/bench-executor.sh; further arguments go
# to JMH as they are.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

ROUNDS="${ROUNDS:-3}"
IN_FLIGHT="${IN_FLIGHT:-1024 8}"
WARMUP_ITERATIONS="${WARMUP_ITERATIONS:-2}"
ITERATIONS="${ITERATIONS:-3}"
WARMUP_TIME="${WARMUP_TIME:-1s}"
ITERATION_TIME="${ITERATION_TIME:-2s}"
OUT="${OUT:-$PATHFENCE_ROOT/results/bench-executor}"   # results/ is ignored by git
EXECUTORS=(plain pathfence r4j-threadpool r4j-semaphore)

./mvnw -B -ntp -q -pl pathfence-benchmarks -am package -Dmaven.test.skip=true
mkdir -p "$OUT"
rm -f "$OUT"/round-*.json "$OUT/executor.txt"

# Say how busy the machine was: the figures depend on it.
echo "cores: $(nproc); load before the run: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/executor.txt"
java -version 2>&1 | head -1 | tee -a "$OUT/executor.txt"
for round in $(seq 1 "$ROUNDS"); do
  if (( round % 2 )); then order=("${EXECUTORS[@]}"); else order=(r4j-semaphore r4j-threadpool pathfence plain); fi
  for in_flight in $IN_FLIGHT; do
    echo "== round $round, inFlight=$in_flight, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/executor.txt"
    java -jar pathfence-benchmarks/target/benchmarks.jar ExecutorBenchmark \
      -p executor="$(IFS=,; echo "${order[*]}")" -p inFlight="$in_flight" \
      -f 1 -wi "$WARMUP_ITERATIONS" -i "$ITERATIONS" -w "$WARMUP_TIME" -r "$ITERATION_TIME" \
      -rf json -rff "$OUT/round-$round-inflight-$in_flight.json" "$@" \
      2> >(grep -vE 'SLF4J|sun\.misc\.Unsafe|terminally deprecated|consider reporting' >&2) \
      | sed -n '/^Benchmark /,$p' | grep -v '^Benchmark result' | tee -a "$OUT/executor.txt"
  done
done
echo "load after the run: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/executor.txt"

python3 - "$OUT" <<'PY' | tee -a "$OUT/executor.txt"
import glob, json, os, re, statistics, sys
scores = {}   # (inFlight, executor) -> {round: ns/task}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "round-*.json"))):
    rnd = int(re.search(r"round-(\d+)-", path).group(1))
    for r in json.load(open(path)):
        p = r["params"]
        scores.setdefault((int(p["inFlight"]), p["executor"]), {})[rnd] = r["primaryMetric"]["score"]
order = ["plain", "pathfence", "r4j-threadpool", "r4j-semaphore"]
print()
print("Summary: ns/task is the median of the rounds' means; the ratio to the plain executor is taken within each")
print("round and summarised by its median (min-max over rounds). Lower is better.")
print(f"{'inFlight':>8}  {'executor':<15}{'ns/task':>9}  {'per round':<24}{'ratio':>6}  {'range':<11}")
for in_flight in sorted({k[0] for k in scores}, reverse=True):
    plain = scores.get((in_flight, "plain"), {})
    for ex in order:
        s = scores.get((in_flight, ex))
        if not s:
            continue
        rounds = sorted(s)
        ratios = [s[r] / plain[r] for r in rounds if r in plain]
        per_round = " ".join(f"{s[r]:.0f}" for r in rounds)
        line = f"{in_flight:>8}  {ex:<15}{statistics.median(s.values()):>9.0f}  {per_round:<24}"
        if ratios:
            line += f"{statistics.median(ratios):>6.2f}  {min(ratios):.2f}-{max(ratios):.2f}"
            if ex == "pathfence":
                line += "   target <= 1.15: " + ("met" if statistics.median(ratios) <= 1.15 else "NOT met")
        print(line)
PY
