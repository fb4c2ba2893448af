#!/usr/bin/env bash
# The demo in one command: builds it, then runs an application (SockShop by default: payment stopped for 1 s every
# 10 s) under the large bursty trace, once without and once with PathFence, prints the paper's Table 1 for the run
# and writes the plots under results/APP/<date>/. Takes about 3 minutes on 2 cores on a checkout that is already
# built; the first run also builds the modules the demo needs (after Maven has downloaded their dependencies).
# The whole evaluation (three applications, three traces, every mode) is scripts/evaluate.sh.
#
# Options go to the runner as they are, e.g.
#   scripts/demo.sh --app social-network          # or media-service, sock-shop (the default), or a topology file
#   scripts/demo.sh --trace quick --modes baseline,async,pathfence-sct,pathfence,virtual-threads
#   scripts/demo.sh --modes baseline,pathfence-learned   # orders learns its paths (no pathfence.paths)
#   scripts/demo.sh --modes baseline,envoy-learned       # Envoy's filter configured from the warm-up's traces
#   scripts/demo.sh --fault interference --stall-length 600ms --stall-period 5s
#   scripts/demo.sh --help
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

./mvnw -q -B -ntp -DskipTests -Dpathfence.without.filter -pl sockshop-demo -am package
# The envoy mode puts Envoy with the PathFence filter in front of the shared service: install Envoy, build the filter.
if [[ " $* " == *envoy* ]]; then
  "$PATHFENCE_ROOT/scripts/tools.sh"
  ./mvnw -q -B -ntp -DskipTests -pl envoy-filter package
fi

# The machine may be shared: say how busy it was, since the figures depend on it.
echo "cores: $(nproc); before the run: $(uptime)"
java -Xmx256m -XX:+UseSerialGC -Xss512k -Djava.awt.headless=true \
  -jar sockshop-demo/target/app/sockshop-demo.jar run "$@"
echo "after the run: $(uptime)"
