#!/usr/bin/env bash
# What would the shop's throughput be if one service needed less CPU per call? Builds the demo and the pause agent,
# then runs every service of the shop under a pause agent, pinned (the target alone on one CPU), and answers from
# the throughput measured under coordinated pauses of every other service (Slowpoke, NSDI '26). Prints the table and
# writes a CSV and a plot under results/whatif/<date>/.
#
#   scripts/whatif.sh --target payment --reduce 10..50%/10 [--validate] [--repetitions N]
#   scripts/whatif.sh --target payment --cpu-time payment=6ms --reduce 20%,40% --validate
#   scripts/whatif.sh --help
#
# Bad input, and what makes the run impossible (a target that cannot have a CPU of its own, a service without an
# agent, a load that does not saturate), is one line and exit code 2; every service is continued and ended on any
# exit, Ctrl-C included.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

./mvnw -q -B -ntp -DskipTests -pl pause-agent,sockshop-demo -am package

echo "cores: $(nproc); before the run: $(uptime)"
java -Xmx256m -XX:+UseSerialGC -Xss512k -Djava.awt.headless=true \
  -Dpathfence.pause-agent.binary="$PATHFENCE_ROOT/pause-agent/target/release/pause-agent" \
  -jar sockshop-demo/target/app/sockshop-demo.jar whatif "$@"
echo "after the run: $(uptime)"
