package io.pathfence.discovery.config;

import java.util.List;

import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.PathPlanner;

import static io.pathfence.discovery.Learned.route;

/**
 * A shop whose learned routes need every rule of the writers: a literal, a prefix, a
 * regex, a path of several routes with one method and one with several, a literal route
 * another path's pattern also matches, a local route a path's pattern catches, and a
 * route that is not HTTP.
 */
final class WriterScenario {

	static final List<LearnedRoute> ROUTES = List.of(route("POST", "/orders", 12, "payment", "shipping"),
			route("POST", "/orders/{id}/cancel", 3, "payment", "shipping"),
			route("GET", "/orders/{id}", 20, "user", "carts"), route("GET", "/orders/summary", 4, "reports"),
			route("PUT", "/carts/{id}", 9, "carts"), route("DELETE", "/carts/{id}/items/{item}", 2, "carts"),
			route("", "ProcessRefund", 1, "bank"), route("GET", "/health", 50), route("GET", "/orders/count", 6));

	static final PathPlan PLAN = PathPlanner.withDefaults().plan(ROUTES);

	private WriterScenario() {
	}

}
