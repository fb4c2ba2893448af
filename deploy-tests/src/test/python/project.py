"""Where the project's files are, and how a check that lacks a tool ends: skipped with the reason, or failed in CI."""

import os
import shutil
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
TOOLS = ROOT / ".tools"
ENVOY_FILTER = ROOT / "envoy-filter"
IN_CI = os.environ.get("CI") == "true"


def require(available, missing, remedy="scripts/tools.sh installs it"):
    """Skips the test (or the class, from setUpClass) when `available` is false, saying what is `missing` and how
    to get it; under CI=true a missing tool fails instead, so that CI never passes on checks that did not run."""
    if available:
        return
    if IN_CI:
        raise AssertionError(f"{missing}: {remedy} (CI=true: a missing tool is a failure)")
    raise unittest.SkipTest(f"{missing}: {remedy}")


def require_commands(*names, remedy="scripts/tools.sh installs it"):
    for name in names:
        require(shutil.which(name) is not None, f"`{name}` is not on PATH", remedy)


def built(path, what):
    """A build output the checks read; missing, it is a failure: Maven builds envoy-filter before this module."""
    if not path.exists():
        raise AssertionError(f"{path} is missing: {what} (./mvnw -B -ntp -pl envoy-filter package builds it)")
    return path
