package io.pathfence.discovery.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.pathfence.discovery.PathNames;

/**
 * Puts paths in the order a configuration lists them so that each learned route lands on
 * its own path, and names the routes that still would not.
 * <p>
 * The starter and the filter both take the first path whose routes match a request, so
 * when a made-up request of a route of path A also matches path B, A must come first. The
 * order is the topological order of those constraints, ties broken by name; where they
 * form a cycle (A's routes catch B's and B's catch A's), the name decides and the routes
 * that then land elsewhere are reported.
 */
final class Precedence {

	private Precedence() {
	}

	/**
	 * One configured path as the configuration matches it.
	 */
	interface Rule {

		String path();

		boolean matches(String method, String path);

	}

	static <R extends Rule> List<R> order(List<R> rules, List<HttpRoutes.Probe> probes) {
		Map<String, R> byName = new LinkedHashMap<>();
		rules.forEach((rule) -> byName.put(rule.path(), rule));
		Map<String, Set<String>> after = new HashMap<>();
		Map<String, Integer> before = new HashMap<>();
		byName.keySet().forEach((name) -> before.put(name, 0));
		for (HttpRoutes.Probe probe : probes) {
			R own = byName.get(probe.expected());
			if (own == null || !own.matches(probe.method(), probe.path())) {
				continue;
			}
			for (R other : byName.values()) {
				if (other != own && other.matches(probe.method(), probe.path())
						&& after.computeIfAbsent(own.path(), (k) -> new TreeSet<>()).add(other.path())) {
					before.merge(other.path(), 1, Integer::sum);
				}
			}
		}
		List<R> ordered = new ArrayList<>();
		TreeSet<String> remaining = new TreeSet<>(byName.keySet());
		while (!remaining.isEmpty()) {
			String next = remaining.stream()
				.filter((name) -> before.get(name) == 0)
				.findFirst()
				.orElse(remaining.first());
			remaining.remove(next);
			ordered.add(byName.get(next));
			for (String later : after.getOrDefault(next, Set.of())) {
				before.merge(later, -1, Integer::sum);
			}
		}
		return ordered;
	}

	/**
	 * One line for each learned route that the rules, in this order, would not put on its
	 * own path.
	 */
	static List<String> misclassified(List<? extends Rule> ordered, List<HttpRoutes.Probe> probes, String by) {
		List<String> warnings = new ArrayList<>();
		for (HttpRoutes.Probe probe : probes) {
			String got = PathNames.LOCAL;
			for (Rule rule : ordered) {
				if (rule.matches(probe.method(), probe.path())) {
					got = rule.path();
					break;
				}
			}
			if (got.equals(probe.expected())) {
				continue;
			}
			String request = probe.method() + " " + probe.path();
			if (probe.expected().equals(PathNames.LOCAL)) {
				warnings.add("local route " + probe.route() + " would be fenced in path " + got + " by " + by + " ("
						+ request + " matches it)");
			}
			else if (got.equals(PathNames.LOCAL)) {
				warnings.add("route " + probe.route() + " of path " + probe.expected() + " would be local by " + by
						+ " (" + request + " matches no path)");
			}
			else {
				warnings.add("route " + probe.route() + " of path " + probe.expected() + " would go to path " + got
						+ " by " + by + " (" + request + " matches both)");
			}
		}
		return warnings;
	}

}
