package io.pathfence.demo.topology;

import java.time.Duration;
import java.util.List;

/**
 * One execution path's reservation at a fenced service: the starter's
 * {@code pathfence.paths.NAME.*} settings.
 *
 * @param name the path's name, as the load names it
 * @param permits the reservation's size
 * @param routes the request path patterns of the path
 * @param methods the HTTP methods the routes are limited to; empty for any
 * @param maxQueue how many of its requests may wait for a permit
 * @param queueTimeout how long one may wait
 */
public record FencePath(String name, int permits, List<String> routes, List<String> methods, int maxQueue,
		Duration queueTimeout) {

	public FencePath {
		routes = List.copyOf(routes);
		methods = List.copyOf(methods);
	}

}
