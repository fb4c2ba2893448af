#!/usr/bin/env bash
# The SockShop demo in one command: builds the demo, then runs the shop under the large bursty trace with payment
# stopped for 1 s every 10 s, once without and once with PathFence, prints the paper's Table 1 for the run and
# writes the plots under results/sockshop/<date>/. Takes about 3 minutes on 2 cores on a checkout that is already
# built; the first run also builds the modules the demo needs (after Maven has downloaded their dependencies).
#
# Options go to the runner as they are, e.g.
#   scripts/demo.sh --trace quick --modes baseline,pathfence,virtual-threads
#   scripts/demo.sh --stall-length 600ms --stall-period 5s
#   scripts/demo.sh --help
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

./mvnw -q -B -ntp -DskipTests -pl sockshop-demo -am package
# The envoy mode puts Envoy with the PathFence filter in front of orders: install Envoy and build the filter.
if [[ " $* " == *envoy* ]]; then
  "$PATHFENCE_ROOT/scripts/tools.sh"
  ./mvnw -q -B -ntp -DskipTests -pl envoy-filter package
fi

# The machine may be shared: say how busy it was, since the figures depend on it.
echo "cores: $(nproc); before the run: $(uptime)"
java -Xmx256m -XX:+UseSerialGC -Xss512k -Djava.awt.headless=true \
  -jar sockshop-demo/target/app/sockshop-demo.jar run --results results/sockshop "$@"
echo "after the run: $(uptime)"
