package io.pathfence.discovery.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.PathNames;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.ProposedPath;
import io.pathfence.discovery.Route;

/**
 * The part of a plan configuration can express: each path's HTTP routes with their parsed
 * patterns, and the request paths to check a configuration with. Operation names
 * (requests that are not HTTP) and patterns that do not parse are left out, with a
 * warning each; a path left with no route is left out altogether, since a reservation
 * without a route would fence nothing, or, in the filter, everything.
 */
final class HttpRoutes {

	final Map<ProposedPath, List<Parsed>> byPath = new LinkedHashMap<>();

	final List<Probe> probes = new ArrayList<>();

	final List<String> warnings = new ArrayList<>();

	HttpRoutes(PathPlan plan) {
		for (ProposedPath path : plan.paths()) {
			List<Parsed> parsed = new ArrayList<>();
			List<String> leftOut = new ArrayList<>();
			for (LearnedRoute learned : path.routes()) {
				Route route = learned.route();
				String problem = problem(route);
				if (problem == null) {
					parsed.add(new Parsed(route, RoutePattern.parse(route.pattern())));
				}
				else {
					leftOut.add("route " + route + " of path " + path.name() + " is left out: " + problem);
				}
			}
			if (parsed.isEmpty()) {
				this.warnings.add("path " + path.name() + " is left out: none of its routes can be configured ("
						+ String.join(", ", path.routes().stream().map((r) -> r.route().toString()).toList()) + ")");
			}
			else {
				this.warnings.addAll(leftOut);
				this.byPath.put(path, parsed);
			}
		}
		for (PathPlan.Assignment assignment : plan.assignments()) {
			Route route = assignment.route().route();
			String expected = assignment.path();
			boolean configured = expected.equals(PathNames.LOCAL)
					|| this.byPath.keySet().stream().anyMatch((p) -> p.name().equals(expected));
			if (!route.isHttp() || !configured) {
				continue;
			}
			try {
				String sample = RoutePattern.parse(route.pattern()).sample();
				if (sample != null) {
					String method = route.method().isEmpty() ? "GET" : route.method();
					this.probes.add(new Probe(route, expected, method, sample));
				}
			}
			catch (IllegalArgumentException ex) {
				// A local route's pattern is not written anywhere; nothing to check it
				// with.
			}
		}
	}

	/**
	 * The method every route of the path is limited to, or null when they differ or one
	 * takes any.
	 */
	static String commonMethod(List<Parsed> routes) {
		Set<String> methods = methods(routes);
		return (methods.size() == 1) ? methods.iterator().next() : null;
	}

	/** Every method of the path's routes, or empty when one of them takes any. */
	static Set<String> methods(List<Parsed> routes) {
		Set<String> methods = new TreeSet<>();
		for (Parsed route : routes) {
			if (route.route().method().isEmpty()) {
				return Set.of();
			}
			methods.add(route.route().method());
		}
		return methods;
	}

	/** Why configuration cannot match the route, or null when it can. */
	private static String problem(Route route) {
		if (!route.isHttp()) {
			return "it is not an HTTP route";
		}
		try {
			RoutePattern.parse(route.pattern());
			return null;
		}
		catch (IllegalArgumentException ex) {
			return ex.getMessage();
		}
	}

	/**
	 * A route with its parsed pattern.
	 */
	record Parsed(Route route, RoutePattern pattern) {
	}

	/**
	 * A request made up for a learned route, and the path it must land on.
	 */
	record Probe(Route route, String expected, String method, String path) {
	}

}
