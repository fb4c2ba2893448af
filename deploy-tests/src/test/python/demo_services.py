"""The demo's shared service (SockShop's orders) and its downstreams as processes from the built jar, on loopback,
fenced by the starter with SCT tuning on: what the dashboard's queries need, and nothing more (no front-end, no
catalogue, no load generator of the demo's)."""

import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from loopback_prometheus import OPENER, free_port
from loopback_registry import _stop_with_parent

SHARED = "orders"
DOWNSTREAMS = ("payment", "shipping", "user", "carts")
JVM = ["-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k"]
# The demo tunes over a 20 s window; a short window lets SCT decide within the test's seconds.
TUNING = ["--pathfence.tuning.window=4s", "--pathfence.tuning.period=2s"]


class DemoServices:

    def __init__(self, jar):
        self.jar = jar
        # The JDK the build used (scripts/env.sh sets it): the jar's classes need it, the default java may be older.
        home = os.environ.get("JAVA_HOME")
        self.java = os.path.join(home, "bin", "java") if home else "java"
        self.ports = {name: free_port() for name in (SHARED, *DOWNSTREAMS)}
        self.processes = {}
        self.logs = Path(tempfile.mkdtemp(prefix="pathfence-demo-"))

    def url(self, service):
        return f"http://127.0.0.1:{self.ports[service]}"

    def targets(self):
        return [f"127.0.0.1:{port}" for port in self.ports.values()]

    def start(self, timeout_s=120):
        for service in (*DOWNSTREAMS, SHARED):
            command = [self.java, *JVM, "-jar", str(self.jar), "--topology=sock-shop", f"--role={service}",
                       f"--server.port={self.ports[service]}"]
            if service == SHARED:
                command += [f"--downstream.{name}={self.url(name)}" for name in DOWNSTREAMS]
                command += ["--pathfence.enabled=true", "--pathfence.tuning.enabled=true", *TUNING]
            with open(self.logs / f"{service}.log", "wb") as log:
                self.processes[service] = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                                           stdin=subprocess.DEVNULL, preexec_fn=_stop_with_parent)
        deadline = time.monotonic() + timeout_s
        for service, process in self.processes.items():
            while True:
                try:
                    with OPENER.open(f"{self.url(service)}/actuator/health", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    text = self.log(service)
                    self.close()
                    raise RuntimeError(f"{service} did not start; its log:\n{text}")
                time.sleep(0.2)
        return self

    def log(self, service):
        path = self.logs / f"{service}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def pid(self, service):
        return self.processes[service].pid

    def close(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
        self.processes = {}
        shutil.rmtree(self.logs, ignore_errors=True)
