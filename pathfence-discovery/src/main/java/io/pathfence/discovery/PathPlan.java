package io.pathfence.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The paths proposed for a service's learned routes.
 *
 * @param paths the paths, sorted by name
 * @param local routes that call nothing, sorted
 * @param leftLocal routes that call downstreams but were left local by a cap, busiest
 * first
 * @param maxPaths the path cap the plan was made with
 * @param maxRoutes the route cap the plan was made with
 */
public record PathPlan(List<ProposedPath> paths, List<LearnedRoute> local, List<LeftLocal> leftLocal, int maxPaths,
		int maxRoutes) {

	public PathPlan {
		paths = List.copyOf(paths);
		local = List.copyOf(local);
		leftLocal = List.copyOf(leftLocal);
	}

	/**
	 * The path a route belongs to in this plan: a path's name, {@value PathNames#LOCAL},
	 * or empty for a route the plan has not seen.
	 */
	public Optional<String> pathOf(Route route) {
		for (ProposedPath path : this.paths) {
			for (LearnedRoute learned : path.routes()) {
				if (learned.route().equals(route)) {
					return Optional.of(path.name());
				}
			}
		}
		boolean local = this.local.stream().anyMatch((learned) -> learned.route().equals(route))
				|| this.leftLocal.stream().anyMatch((left) -> left.route().route().equals(route));
		return local ? Optional.of(PathNames.LOCAL) : Optional.empty();
	}

	/** Every route of the plan with the path it belongs to. */
	public List<Assignment> assignments() {
		List<Assignment> all = new ArrayList<>();
		for (ProposedPath path : this.paths) {
			for (LearnedRoute learned : path.routes()) {
				all.add(new Assignment(learned, path.name()));
			}
		}
		for (LearnedRoute learned : this.local) {
			all.add(new Assignment(learned, PathNames.LOCAL));
		}
		for (LeftLocal left : this.leftLocal) {
			all.add(new Assignment(left.route(), PathNames.LOCAL));
		}
		return all;
	}

	/** What a cap left out, one line each. */
	public List<String> warnings() {
		return this.leftLocal.stream().map((left) -> left.describe(this.maxPaths, this.maxRoutes)).toList();
	}

	/**
	 * A route and its path.
	 *
	 * @param route the route
	 * @param path the path's name, or {@value PathNames#LOCAL}
	 */
	public record Assignment(LearnedRoute route, String path) {
	}

}
