package io.pathfence.discovery;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What was learned of one route: how many of its requests were seen and how many calls
 * they made to each downstream service. The downstreams it calls are its execution path.
 *
 * @param route the route
 * @param requests inbound requests of the route that were seen
 * @param calls outbound calls by downstream service (a name, or host:port when the client
 * has no name), made while serving those requests
 */
public record LearnedRoute(Route route, long requests, SortedMap<String, Long> calls) {

	public LearnedRoute {
		Objects.requireNonNull(route, "route");
		if (requests < 0) {
			throw new IllegalArgumentException("requests must be 0 or more, not " + requests);
		}
		TreeMap<String, Long> copy = new TreeMap<>();
		for (Map.Entry<String, Long> call : calls.entrySet()) {
			if (call.getKey() == null || call.getKey().isBlank()) {
				throw new IllegalArgumentException("a downstream needs a name");
			}
			if (call.getValue() == null || call.getValue() <= 0) {
				throw new IllegalArgumentException("calls to " + call.getKey() + " must be 1 or more");
			}
			copy.put(call.getKey(), call.getValue());
		}
		calls = Collections.unmodifiableSortedMap(copy);
	}

	/** A route that calls nothing. */
	public static LearnedRoute local(Route route, long requests) {
		return new LearnedRoute(route, requests, new TreeMap<>());
	}

	/** The downstream services the route calls, sorted. */
	public SortedSet<String> downstreams() {
		return Collections.unmodifiableSortedSet(new TreeSet<>(this.calls.keySet()));
	}

	/** Whether the route calls no downstream, so it belongs to the local path. */
	public boolean isLocal() {
		return this.calls.isEmpty();
	}

	/** The same route seen twice (two sources, two files): requests and calls add up. */
	public LearnedRoute merge(LearnedRoute other) {
		if (!this.route.equals(other.route)) {
			throw new IllegalArgumentException("cannot merge " + this.route + " with " + other.route);
		}
		TreeMap<String, Long> sum = new TreeMap<>(this.calls);
		other.calls.forEach((downstream, count) -> sum.merge(downstream, count, Long::sum));
		return new LearnedRoute(this.route, this.requests + other.requests, sum);
	}

}
