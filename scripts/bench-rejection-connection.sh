#!/usr/bin/env bash
# Measures what Tomcat's "Connection: close" on every 503 costs a client: the fence's rejection (a new connection
# each time, as Tomcat forces) against a small answer on one kept connection and on a new connection each time,
# in alternating rounds against one Spring Boot service on loopback. Not part of the test command; about a minute
# on 2 cores, build included. Prints a table and the medians of per-round differences and ratios.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"

module=pathfence-spring-boot-autoconfigure
./mvnw -B -ntp -q -pl "$module" -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test -Dspring-javaformat.skip=true
echo "cores: $(nproc); load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
java -version 2>&1 | head -1
java -cp "$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench-classpath.txt")" \
  io.pathfence.web.RejectionConnectionCost
