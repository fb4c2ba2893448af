"""The Grafana dashboard's every query returns data from a real Prometheus scraping the demo on loopback, and the
panels of the meters the Envoy filter exports too return its data, from a real Envoy in front of the demo."""

import copy
import json
import os
import signal
import threading
import time
import unittest
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import dashboard_queries
from demo_services import SHARED, DemoServices
from loopback_envoy import LoopbackEnvoy, envoy_binary
from loopback_prometheus import OPENER, LoopbackPrometheus
from project import ENVOY_FILTER, ROOT, built, require, require_commands

DASHBOARD = ROOT / "dashboards" / "pathfence.json"
JAR = ROOT / "sockshop-demo" / "target" / "app" / "sockshop-demo.jar"
# Grafana's $__rate_interval is at least four scrape intervals; the test scrapes every second.
RATE_INTERVAL = "5s"
LOAD_S = 20
# Requests per second of each path straight to orders (its routes), and payment stopped once, long enough for
# place-order to fill its queue (rejections as queue-full) and outwait its queue timeout (as timeout).
LOAD = {"place-order": ("POST", "/orders", 20), "order-history": ("GET", "/orders/history", 10),
        "local": ("GET", "/orders/status", 5)}
STALL_AT_S, STALL_S = 8, 1.5
# The filter in front of orders, with the starter's path names and a place-order narrower than the starter's, so
# that payment's stall overflows it; and the load sent through it, on top of LOAD.
ENVOY_JOB = "envoy"
FILTER = {"paths": [
    {"name": "place-order", "match": {"exact": "/orders", "method": "POST"}, "max_concurrency": 3, "max_queue": 2,
     "queue_timeout_ms": 300},
    {"name": "order-history", "match": {"prefix": "/orders/history"}, "max_concurrency": 4}]}
ENVOY_LOAD = {"place-order": ("POST", "/orders", 10), "order-history": ("GET", "/orders/history", 5),
              "local": ("GET", "/orders/status", 2)}
# Panels of meters only the starter has (envoy-filter/README.md, Refusals: what still differs).
STARTER_ONLY = ["Borrowed (starter)", "Permit held (service time): mean", "Permits", "Tuning decisions by verdict",
                "Tuning range", "Wait for a permit: mean and max", "Wait for a permit: percentiles"]


def send(method, url):
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    try:
        with OPENER.open(request, timeout=10) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def run_load(services, envoy):
    """Open loop at fixed rates for LOAD_S seconds, to orders and through the Envoy in front of it, payment stopped
    once in the middle; the answers' statuses."""
    statuses = []
    start = time.monotonic()
    payment = services.pid("payment")
    with ThreadPoolExecutor(max_workers=64) as pool:
        schedule = sorted((i / rate, method, base + path)
                          for base, load in ((services.url(SHARED), LOAD), (envoy.url(), ENVOY_LOAD))
                          for method, path, rate in load.values() for i in range(int(rate * LOAD_S)))
        futures = []
        stopped = False
        try:
            for at, method, url in schedule:
                if not stopped and at >= STALL_AT_S:
                    os.kill(payment, signal.SIGSTOP)
                    stopped = True
                    threading.Timer(STALL_S, os.kill, (payment, signal.SIGCONT)).start()
                time.sleep(max(0.0, start + at - time.monotonic()))
                futures.append(pool.submit(send, method, url))
        finally:
            if stopped:
                time.sleep(STALL_S)
            os.kill(payment, signal.SIGCONT)
        statuses = [future.result() for future in futures]
    return statuses


class DashboardAgainstPrometheusTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        require_commands("prometheus", "java")
        require(envoy_binary().is_file(), f"Envoy is not at {envoy_binary()} (nor ENVOY_BIN)")
        built(JAR, "the demo's jar")
        module = built(ENVOY_FILTER / "target" / "pathfence_envoy_filter.wasm", "the filter's module")
        cls.dashboard = dashboard_queries.load(DASHBOARD)
        cls.services = DemoServices(JAR).start()
        cls.envoy = cls.prometheus = None
        try:
            cls.envoy = LoopbackEnvoy(module, cls.services.ports[SHARED], FILTER).start()
            cls.prometheus = LoopbackPrometheus(
                cls.services.targets(), "/actuator/prometheus", "sockshop",
                more_jobs=[(ENVOY_JOB, "/stats/prometheus", [cls.envoy.admin_target()])]).start()
        except BaseException:
            cls.tearDownClass()
            raise
        try:
            cls.start = time.time()
            cls.statuses = run_load(cls.services, cls.envoy)
            # Two more scrapes, so that the last seconds of load are in Prometheus.
            time.sleep(3)
            cls.end = time.time()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.prometheus is not None:
            cls.prometheus.close()
        if cls.envoy is not None:
            cls.envoy.close()
        cls.services.close()

    def test_the_load_was_served_and_some_of_it_rejected(self):
        self.assertGreater(self.statuses.count(200), len(self.statuses) // 2, f"statuses: {set(self.statuses)}")
        self.assertIn(503, self.statuses, "payment's stall made place-order overflow its reservation")

    def test_every_target_scraped(self):
        targets = self.prometheus.api("targets")["activeTargets"]
        self.assertEqual(len(self.services.targets()) + 1, len(targets))
        for target in targets:
            self.assertEqual("up", target["health"], f"{target['scrapeUrl']}: {target.get('lastError')}")

    def test_every_variable_has_values(self):
        for variable in self.dashboard["templating"]["list"]:
            if variable["type"] != "query":
                continue
            query = dashboard_queries.substitute(variable["query"],
                                                 dashboard_queries.variable_values(self.dashboard, RATE_INTERVAL))
            # label_values(METRIC{SELECTOR}, LABEL) is Grafana's: Prometheus's label values with a match.
            metric, label = query[len("label_values("):-1].rsplit(",", 1)
            values = self.prometheus.api(f"label/{label.strip()}/values", **{"match[]": metric.strip(),
                                                                            "start": self.start, "end": self.end})
            self.assertTrue(values, f"variable {variable['name']}: {query} has no value")
            if variable["name"] == "path":
                self.assertEqual(["local", "order-history", "place-order"], sorted(values))
            if variable["name"] == "application":
                self.assertEqual([SHARED], values)

    def test_every_panel_query_returns_data(self):
        missing = dashboard_queries.panels_without_data(self.dashboard, self.prometheus, self.start, self.end,
                                                        RATE_INTERVAL)
        self.assertEqual([], missing, "panel queries without data:\n" + "\n".join(map(str, missing)))
        self.assertGreaterEqual(sum(len(p["targets"]) for p in dashboard_queries.panels(self.dashboard)), 10)

    def test_every_panel_query_returns_data_for_one_path(self):
        one = copy.deepcopy(self.dashboard)
        for variable in one["templating"]["list"]:
            if variable["name"] == "path":
                variable["allValue"] = "place-order"
        missing = dashboard_queries.panels_without_data(one, self.prometheus, self.start, self.end, RATE_INTERVAL)
        self.assertEqual([], missing, "panel queries without data for place-order:\n" + "\n".join(map(str, missing)))

    def test_the_filters_stats_fill_the_panels_of_the_meters_it_exports(self):
        only_envoy = copy.deepcopy(self.dashboard)
        for variable in only_envoy["templating"]["list"]:
            if variable["name"] == "job":
                variable["allValue"] = ENVOY_JOB
        paths = self.prometheus.api("label/path/values", **{"match[]": f'pathfence_path_active{{job="{ENVOY_JOB}"}}',
                                                            "start": self.start, "end": self.end})
        self.assertEqual(["local", "order-history", "place-order"], sorted(paths))
        missing = dashboard_queries.panels_without_data(only_envoy, self.prometheus, self.start, self.end,
                                                        RATE_INTERVAL)
        self.assertEqual(STARTER_ONLY, sorted({title for title, *_ in missing}),
                         "panels without the filter's data:\n" + "\n".join(map(str, missing)))
        reasons = self.prometheus.api("label/reason/values", **{
            "match[]": f'pathfence_path_rejected_total{{job="{ENVOY_JOB}",path="place-order"}}',
            "start": self.start, "end": self.end})
        self.assertEqual(["queue-full", "timeout"], sorted(reasons))

    def test_a_misspelt_metric_is_caught(self):
        # The control: the same check, on the same Prometheus, fails for a panel whose metric name is misspelt.
        broken = json.loads(json.dumps(self.dashboard).replace("pathfence_path_queued", "pathfence_path_queue"))
        missing = dashboard_queries.panels_without_data(broken, self.prometheus, self.start, self.end, RATE_INTERVAL)
        self.assertEqual(["Queued"], [title for title, *_ in missing])

    def test_an_unknown_variable_is_caught(self):
        with self.assertRaisesRegex(AssertionError, r"\$pth"):
            dashboard_queries.substitute('pathfence_path_active{path=~"$pth"}', {"path": ".*"})


if __name__ == "__main__":
    unittest.main()


class DashboardShapeTests(unittest.TestCase):
    """What Grafana's import needs, without a Prometheus: the data source as a variable, the filters, unique ids."""

    def setUp(self):
        self.dashboard = dashboard_queries.load(DASHBOARD)

    def test_the_data_source_is_a_variable_every_query_uses(self):
        variables = {variable["name"]: variable for variable in self.dashboard["templating"]["list"]}
        self.assertEqual("datasource", variables["datasource"]["type"])
        self.assertEqual("prometheus", variables["datasource"]["query"])
        for panel in dashboard_queries.panels(self.dashboard):
            for target in panel["targets"]:
                self.assertEqual("${datasource}", target["datasource"]["uid"], panel["title"])
        for name in ("job", "application", "instance", "path"):
            self.assertTrue(variables[name]["query"].startswith("label_values("), name)

    def test_panel_ids_are_unique(self):
        ids = [panel["id"] for panel in self.dashboard["panels"]]
        self.assertEqual(len(ids), len(set(ids)))
