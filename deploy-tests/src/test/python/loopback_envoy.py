"""A real Envoy 1.40 on 127.0.0.1 with the PathFence filter in front of one service, its stats tagged by path and
reason as the envoy-filter README's recipe says: what a Prometheus scraping /stats/prometheus sees of the filter."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from loopback_prometheus import OPENER, free_port
from loopback_ready import await_ready
from loopback_registry import _stop_with_parent
from project import ROOT

# The recipe (envoy-filter/README.md, Metrics): the regexes Istio writes for `extraStatTags: [path, reason, verdict]`.
STATS_TAGS = [{"tag_name": "path", "regex": r"(path=\.=(.*?);\.;)"},
              {"tag_name": "reason", "regex": r"(reason=\.=(.*?);\.;)"},
              {"tag_name": "verdict", "regex": r"(verdict=\.=(.*?);\.;)"}]


def envoy_binary():
    return Path(os.environ.get("ENVOY_BIN") or ROOT / ".venv" / "bin" / "envoy")


class LoopbackEnvoy:
    """Envoy (`--concurrency 2`, as Istio's sidecar) routing everything to 127.0.0.1:`upstream_port` through the
    filter `module` configured with `filter_config`; stopped, and its folder removed, by close()."""

    def __init__(self, module, upstream_port, filter_config, binary=None):
        self.module = module
        self.upstream_port = upstream_port
        self.filter_config = filter_config
        self.binary = binary or envoy_binary()
        self.port = free_port()
        self.admin_port = free_port()
        self._process = None
        self._folder = None

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def admin_target(self):
        return f"127.0.0.1:{self.admin_port}"

    def bootstrap(self):
        wasm = {"name": "envoy.filters.http.wasm", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm",
            "config": {"name": "pathfence", "root_id": "pathfence",
                       "vm_config": {"vm_id": "pathfence-orders", "runtime": "envoy.wasm.runtime.v8",
                                     "code": {"local": {"filename": str(self.module)}}},
                       "configuration": {"@type": "type.googleapis.com/google.protobuf.StringValue",
                                         "value": json.dumps(self.filter_config)}}}}
        router = {"name": "envoy.filters.http.router", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}
        manager = {"name": "envoy.filters.network.http_connection_manager", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3"
                     ".HttpConnectionManager",
            "stat_prefix": "inbound",
            "route_config": {"virtual_hosts": [{"name": "service", "domains": ["*"], "routes": [
                {"match": {"prefix": "/"}, "route": {"cluster": "service", "timeout": "0s"}}]}]},
            "http_filters": [wasm, router]}}
        cluster = {"name": "service", "type": "STATIC", "connect_timeout": "2s",
                   "load_assignment": {"cluster_name": "service", "endpoints": [{"lb_endpoints": [{"endpoint": {
                       "address": {"socket_address": {"address": "127.0.0.1",
                                                      "port_value": self.upstream_port}}}}]}]}}
        return {
            "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": self.admin_port}}},
            "stats_config": {"stats_tags": STATS_TAGS},
            "static_resources": {
                "listeners": [{"name": "inbound", "address": {"socket_address": {
                    "address": "127.0.0.1", "port_value": self.port}}, "filter_chains": [{"filters": [manager]}]}],
                "clusters": [cluster]},
        }

    def start(self, timeout_s=60):
        self._folder = Path(tempfile.mkdtemp(prefix="pathfence-envoy-"))
        (self._folder / "envoy.json").write_text(json.dumps(self.bootstrap()))
        self._log = self._folder / "envoy.log"
        with open(self._log, "wb") as log:
            self._process = subprocess.Popen(
                [str(self.binary), "-c", str(self._folder / "envoy.json"), "--concurrency", "2",
                 "--disable-hot-restart", "-l", "warning"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_stop_with_parent)
        return await_ready(self, OPENER, f"http://{self.admin_target()}/ready", timeout_s, "Envoy")

    def log(self):
        return self._log.read_text(errors="replace")[-4000:] if self._log.exists() else ""

    def close(self):
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
