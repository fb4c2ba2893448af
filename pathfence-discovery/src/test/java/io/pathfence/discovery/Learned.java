package io.pathfence.discovery;

import java.util.TreeMap;

/**
 * Learned routes for tests.
 */
public final class Learned {

	private Learned() {
	}

	/** A route whose every request called each of {@code downstreams} once. */
	public static LearnedRoute route(String method, String pattern, long requests, String... downstreams) {
		TreeMap<String, Long> calls = new TreeMap<>();
		for (String downstream : downstreams) {
			calls.merge(downstream, requests, Long::sum);
		}
		return new LearnedRoute(Route.of(method, pattern), requests, calls);
	}

}
