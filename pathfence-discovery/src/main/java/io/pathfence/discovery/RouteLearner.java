package io.pathfence.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Collects, request by request, which downstream services each route calls. Safe for use
 * by many threads at once (the request threads of a running service); counting is a
 * {@link LongAdder} increment after the first sighting of a route or downstream.
 */
public final class RouteLearner {

	private final ConcurrentHashMap<Route, Tally> routes = new ConcurrentHashMap<>();

	/** One inbound request of {@code route} was served. */
	public void served(Route route) {
		tally(route).requests.increment();
	}

	/** A request of {@code route} made one call to {@code downstream}. */
	public void called(Route route, String downstream) {
		if (downstream == null || downstream.isBlank()) {
			throw new IllegalArgumentException("a downstream needs a name");
		}
		tally(route).calls.computeIfAbsent(downstream, (name) -> new LongAdder()).increment();
	}

	/** Routes seen so far. */
	public int size() {
		return this.routes.size();
	}

	/** What has been learned so far, sorted by route. */
	public List<LearnedRoute> routes() {
		List<LearnedRoute> learned = new ArrayList<>(this.routes.size());
		this.routes.forEach((route, tally) -> {
			TreeMap<String, Long> calls = new TreeMap<>();
			for (Map.Entry<String, LongAdder> call : tally.calls.entrySet()) {
				calls.put(call.getKey(), call.getValue().sum());
			}
			learned.add(new LearnedRoute(route, tally.requests.sum(), calls));
		});
		learned.sort((a, b) -> a.route().compareTo(b.route()));
		return learned;
	}

	private Tally tally(Route route) {
		return this.routes.computeIfAbsent(route, (r) -> new Tally());
	}

	private static final class Tally {

		final LongAdder requests = new LongAdder();

		final ConcurrentHashMap<String, LongAdder> calls = new ConcurrentHashMap<>();

	}

}
