"""The Grafana dashboard's every query returns data from a real Prometheus scraping the demo on loopback."""

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
from loopback_prometheus import OPENER, LoopbackPrometheus
from project import ROOT, built, require_commands

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


def run_load(services):
    """Open loop at fixed rates for LOAD_S seconds, payment stopped once in the middle; the answers' statuses."""
    statuses = []
    start = time.monotonic()
    payment = services.pid("payment")
    with ThreadPoolExecutor(max_workers=48) as pool:
        schedule = sorted((i / rate, method, path) for method, path, rate in LOAD.values()
                          for i in range(int(rate * LOAD_S)))
        futures = []
        stopped = False
        try:
            for at, method, path in schedule:
                if not stopped and at >= STALL_AT_S:
                    os.kill(payment, signal.SIGSTOP)
                    stopped = True
                    threading.Timer(STALL_S, os.kill, (payment, signal.SIGCONT)).start()
                time.sleep(max(0.0, start + at - time.monotonic()))
                futures.append(pool.submit(send, method, services.url(SHARED) + path))
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
        built(JAR, "the demo's jar")
        cls.dashboard = dashboard_queries.load(DASHBOARD)
        cls.services = DemoServices(JAR).start()
        try:
            cls.prometheus = LoopbackPrometheus(cls.services.targets(), "/actuator/prometheus", "sockshop").start()
        except BaseException:
            cls.services.close()
            raise
        try:
            cls.start = time.time()
            cls.statuses = run_load(cls.services)
            # Two more scrapes, so that the last seconds of load are in Prometheus.
            time.sleep(3)
            cls.end = time.time()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.prometheus.close()
        cls.services.close()

    def test_the_load_was_served_and_some_of_it_rejected(self):
        self.assertGreater(self.statuses.count(200), len(self.statuses) // 2, f"statuses: {set(self.statuses)}")
        self.assertIn(503, self.statuses, "payment's stall made place-order overflow its reservation")

    def test_every_target_scraped(self):
        targets = self.prometheus.api("targets")["activeTargets"]
        self.assertEqual(len(self.services.targets()), len(targets))
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
