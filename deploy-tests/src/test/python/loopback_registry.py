"""A real Distribution registry (Debian's docker-registry) on 127.0.0.1, for one test class."""

import ctypes
import json
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

LISTENING = re.compile(r"listening on (127\.0\.0\.1:\d+)")
PR_SET_PDEATHSIG = 1


def _stop_with_parent():
    # Runs in the child before exec: the kernel sends the registry SIGTERM when the test process dies, however it
    # dies, so no registry outlives the run.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class LoopbackRegistry:
    """Serves on a port the kernel picks (read back from the registry's log), stores in a temporary folder, and is
    stopped and its folder removed by close()."""

    def __init__(self, binary="docker-registry"):
        self.binary = binary
        self.address = None
        self._process = None
        self._folder = None

    def start(self, timeout_s=30):
        self._folder = Path(tempfile.mkdtemp(prefix="pathfence-registry-"))
        config = {
            "version": 0.1,
            "log": {"level": "info", "accesslog": {"disabled": True}},
            "storage": {"filesystem": {"rootdirectory": str(self._folder / "data")}},
            "http": {"addr": "127.0.0.1:0", "secret": secrets.token_hex(16)},
        }
        # JSON is YAML, which is what the registry reads.
        (self._folder / "config.yml").write_text(json.dumps(config))
        log_path = self._folder / "registry.log"
        with open(log_path, "wb") as log:
            self._process = subprocess.Popen([self.binary, "serve", str(self._folder / "config.yml")],
                                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             preexec_fn=_stop_with_parent)
        deadline = time.monotonic() + timeout_s
        while self.address is None:
            found = LISTENING.search(log_path.read_text(errors="replace"))
            if found:
                self.address = found.group(1)
            elif self._process.poll() is not None or time.monotonic() > deadline:
                log_text = log_path.read_text(errors="replace")
                self.close()
                raise RuntimeError(f"the registry did not start listening; its log:\n{log_text}")
            else:
                time.sleep(0.05)
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"http://{self.address}/v2/",
                                                                             timeout=10) as answer:
            if answer.status != 200:
                raise RuntimeError(f"GET /v2/ answered {answer.status}")
        return self

    def close(self):
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
