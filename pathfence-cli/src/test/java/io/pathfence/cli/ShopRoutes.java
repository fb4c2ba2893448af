package io.pathfence.cli;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.PathPlanner;
import io.pathfence.discovery.Route;

/**
 * Learned routes whose configuration needs the writers' harder rules: a path that must
 * come before another whose pattern also matches its route, regexes with characters to
 * escape, and a path of routes with different methods.
 */
final class ShopRoutes {

	static final PathPlan PLAN = PathPlanner.withDefaults()
		.plan(List.of(route("GET", "/orders/{id}", 20, "carts", "user"), route("GET", "/orders/summary", 4, "reports"),
				route("POST", "/orders", 12, "payment", "shipping"), route("GET", "/files/{name}.json", 3, "storage"),
				route("PUT", "/a.b/{id}/c+d", 2, "storage"), route("GET", "/health", 9)));

	/** A request of each route and the path it must land on. */
	static final Map<String, String> REQUESTS = new TreeMap<>(
			Map.of("GET /orders/42", "carts_user", "GET /orders/summary", "reports", "POST /orders", "payment_shipping",
					"GET /files/x.json", "storage", "PUT /a.b/7/c+d", "storage", "GET /health", "local",
					"GET /files/x-json", "local", "DELETE /orders", "local"));

	private ShopRoutes() {
	}

	static LearnedRoute route(String method, String pattern, long requests, String... downstreams) {
		TreeMap<String, Long> calls = new TreeMap<>();
		for (String downstream : downstreams) {
			calls.put(downstream, requests);
		}
		return new LearnedRoute(Route.of(method, pattern), requests, calls);
	}

}
