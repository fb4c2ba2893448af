package io.pathfence.discovery;

import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A path to configure: the routes that call the same set of downstream services.
 *
 * @param name a valid path name derived from the set (see {@link PathNames})
 * @param downstreams the services every route of the path calls, sorted
 * @param routes the routes, sorted
 */
public record ProposedPath(String name, SortedSet<String> downstreams, List<LearnedRoute> routes) {

	public ProposedPath {
		downstreams = Collections.unmodifiableSortedSet(new TreeSet<>(downstreams));
		routes = List.copyOf(routes);
	}

	/** The set as people read it, e.g. {@code payment+shipping}. */
	public String downstreamSet() {
		return PathNames.setName(this.downstreams);
	}

	/** Requests of all the path's routes. */
	public long requests() {
		return this.routes.stream().mapToLong(LearnedRoute::requests).sum();
	}

}
