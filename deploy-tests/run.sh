#!/usr/bin/env bash
# Runs the deployment checks; Maven's integration-test phase of this module calls it, after envoy-filter has built
# the image. They run in the project-local venv that scripts/tools.sh makes (.tools/deploy-venv, with
# kubernetes-validate); without it they are skipped with the reason, or fail under CI=true.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="$here/../.tools/deploy-venv/bin/python"
if [ ! -x "$python" ]; then
  echo "deploy-tests: $python is missing: scripts/tools.sh makes it" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "deploy-tests: SKIPPED, every deployment check (image through a registry, manifest schemas)"
  exit 0
fi
cd "$here/src/test/python"
# -B: no __pycache__ folders among the sources.
exec "$python" -B -m unittest -v test_filter_image test_manifests test_pause_agent_wrapping test_dashboard
