"""Reads a Grafana dashboard's queries and asks a Prometheus whether each returns data."""

import json
import math
import re

VARIABLE = re.compile(r"\$\{?(\w+)\}?")


def panels(dashboard):
    """Every panel with targets, those inside collapsed rows included."""
    for panel in dashboard.get("panels", []):
        if panel.get("targets"):
            yield panel
        for inner in panel.get("panels", []):
            if inner.get("targets"):
                yield inner


def substitute(expr, values):
    """The expression as Grafana sends it, with every variable replaced; an unknown variable is an error."""
    def value(match):
        name = match.group(1)
        if name not in values:
            raise AssertionError(f"${name} in {expr!r} is no variable of the dashboard nor one Grafana provides")
        return values[name]
    return VARIABLE.sub(value, expr)


def variable_values(dashboard, rate_interval):
    """The All value of every query variable (its allValue), and Grafana's own $__rate_interval."""
    values = {"__rate_interval": rate_interval}
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            values[variable["name"]] = variable.get("allValue") or ".*"
    return values


def has_finite_value(result):
    return any(not math.isnan(float(value)) for series in result for _, value in series.get("values", []))


# Panels whose gauges read NaN by definition while their value is unknown: SCT's range and recommendation exist only
# once a window showed a plateau, and a run whose only saturation was a stall shows none, since the tuner leaves a
# stall's intervals out of its window. For these a series of the right name and labels is the data; a misspelt
# name still has no series at all.
UNKNOWN_IS_NAN = {"Tuning range"}


def panels_without_data(dashboard, prometheus, start, end, rate_interval):
    """The (panel title, refId, expression, why) of every target that returns no finite sample between start and end."""
    values = variable_values(dashboard, rate_interval)
    missing = []
    for panel in panels(dashboard):
        for target in panel["targets"]:
            expr = substitute(target["expr"], values)
            try:
                data = prometheus.api("query_range", query=expr, start=start, end=end, step="1s")
            except AssertionError as error:
                missing.append((panel["title"], target["refId"], expr, str(error)))
                continue
            if not data["result"]:
                missing.append((panel["title"], target["refId"], expr, "no series"))
            elif not has_finite_value(data["result"]) and panel["title"] not in UNKNOWN_IS_NAN:
                missing.append((panel["title"], target["refId"], expr,
                                f"{len(data['result'])} series, every sample NaN"))
    return missing


def load(path):
    return json.loads(path.read_text())
