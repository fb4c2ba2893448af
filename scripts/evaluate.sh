#!/usr/bin/env bash
# The PathFence paper's whole evaluation in one command: builds the demo, then runs SockShop-, SocialNetwork- and
# MediaService-shaped applications under the large, quick and slow bursty traces with their millibottlenecks, in
# every mode (baseline, async, pathfence-sct, pathfence, virtual-threads), measures each mode's maximum throughput in
# a closed loop and runs a time-varying path mix on SocialNetwork. It writes, under results/grid/<date>/:
#   table1.md   Table 1 in the paper's layout with the paper's figures beside it, the criteria per cell,
#               Fig. 12 and Fig. 14 in numbers
#   cells.md    every cell's per-path table
#   fig12-max-throughput.png, fig14-*.png, and APP/TRACE/ with each cell's plots
# About 26 minutes on 2 cores on a checkout that is already built. Options go to the grid as they are, e.g.
#   scripts/evaluate.sh --apps social-network --traces large --modes baseline,async,pathfence-sct
#   scripts/evaluate.sh --help
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

./mvnw -q -B -ntp -DskipTests -Dpathfence.without.filter -pl sockshop-demo -am package

# The machine may be shared: say how busy it was, since the figures depend on it.
echo "cores: $(nproc); before the run: $(uptime)"
java -Xmx512m -XX:+UseSerialGC -Xss512k -Djava.awt.headless=true \
  -jar sockshop-demo/target/app/sockshop-demo.jar grid "$@"
echo "after the run: $(uptime)"
