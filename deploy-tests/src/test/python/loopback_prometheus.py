"""A real Prometheus (Debian's prometheus package) on 127.0.0.1, scraping given targets, for one test class."""

import json
import shutil
import signal
import socket
import subprocess
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

from loopback_ready import await_ready
from loopback_registry import _stop_with_parent

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LoopbackPrometheus:
    """Scrapes `targets` (host:port) at `metrics_path` every second into a temporary folder, and each of `more_jobs`
    (job, metrics path, targets) alike; stopped, and its folder removed, by close(). Prometheus cannot listen on a
    port the kernel picks, so one is picked just before."""

    def __init__(self, targets, metrics_path, job, binary="prometheus", more_jobs=()):
        self.targets = targets
        self.metrics_path = metrics_path
        self.job = job
        self.more_jobs = list(more_jobs)
        self.binary = binary
        self.url = None
        self._process = None
        self._folder = None

    def start(self, timeout_s=60):
        self._folder = Path(tempfile.mkdtemp(prefix="pathfence-prometheus-"))
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [{"job_name": job, "metrics_path": path, "static_configs": [{"targets": targets}]}
                               for job, path, targets in [(self.job, self.metrics_path, self.targets),
                                                          *self.more_jobs]],
        }
        (self._folder / "prometheus.yml").write_text(json.dumps(config))
        address = f"127.0.0.1:{free_port()}"
        self.url = f"http://{address}"
        self._log = self._folder / "prometheus.log"
        with open(self._log, "wb") as log:
            self._process = subprocess.Popen(
                [self.binary, f"--config.file={self._folder / 'prometheus.yml'}",
                 f"--storage.tsdb.path={self._folder / 'data'}", f"--web.listen-address={address}"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_stop_with_parent)
        return await_ready(self, OPENER, f"{self.url}/-/ready", timeout_s, "Prometheus")

    def log(self):
        return self._log.read_text(errors="replace") if self._log.exists() else ""

    def api(self, endpoint, **parameters):
        """GET /api/v1/<endpoint>; the `data` of a success, or an AssertionError with Prometheus's error."""
        query = urllib.parse.urlencode(parameters, doseq=True)
        try:
            with OPENER.open(f"{self.url}/api/v1/{endpoint}?{query}", timeout=30) as answer:
                body = json.load(answer)
        except urllib.error.HTTPError as error:
            body = json.load(error)
        if body.get("status") != "success":
            raise AssertionError(f"{endpoint} {parameters}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def close(self):
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
