package io.pathfence.discovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Groups learned routes into paths: routes that call the same set of downstream services
 * share one path, named from the set; routes that call nothing are local.
 * <p>
 * Both caps keep the busiest: at most {@code maxRoutes} routes that call downstreams are
 * placed (by requests, then by route), then at most {@code maxPaths} sets become paths
 * (by their routes' requests, then by the set's name). What a cap leaves out stays local
 * and is reported. The result depends only on the learned routes, not on their order.
 */
public final class PathPlanner {

	/** The default path cap. */
	public static final int DEFAULT_MAX_PATHS = 16;

	/** The default route cap. */
	public static final int DEFAULT_MAX_ROUTES = 256;

	private static final Comparator<LearnedRoute> BUSIEST_FIRST = Comparator.comparingLong(LearnedRoute::requests)
		.reversed()
		.thenComparing(LearnedRoute::route);

	private final int maxPaths;

	private final int maxRoutes;

	/**
	 * @param maxPaths the most paths proposed; 0 leaves every route local
	 * @param maxRoutes the most routes placed on paths
	 */
	public PathPlanner(int maxPaths, int maxRoutes) {
		if (maxPaths < 0) {
			throw new IllegalArgumentException("maxPaths must be 0 or more, not " + maxPaths);
		}
		if (maxRoutes < 0) {
			throw new IllegalArgumentException("maxRoutes must be 0 or more, not " + maxRoutes);
		}
		this.maxPaths = maxPaths;
		this.maxRoutes = maxRoutes;
	}

	/** A planner with the default caps. */
	public static PathPlanner withDefaults() {
		return new PathPlanner(DEFAULT_MAX_PATHS, DEFAULT_MAX_ROUTES);
	}

	/**
	 * Proposes paths for {@code learned}; a route listed twice counts as the sum of both.
	 */
	public PathPlan plan(Collection<LearnedRoute> learned) {
		List<LearnedRoute> routes = merged(learned);
		List<LearnedRoute> local = new ArrayList<>();
		List<LearnedRoute> calling = new ArrayList<>();
		for (LearnedRoute route : routes) {
			(route.isLocal() ? local : calling).add(route);
		}
		local.sort(Comparator.comparing(LearnedRoute::route));
		calling.sort(BUSIEST_FIRST);
		List<LeftLocal> leftLocal = new ArrayList<>();
		Map<SortedSet<String>, List<LearnedRoute>> bySet = new LinkedHashMap<>();
		for (int i = 0; i < calling.size(); i++) {
			LearnedRoute route = calling.get(i);
			if (i < this.maxRoutes) {
				bySet.computeIfAbsent(route.downstreams(), (set) -> new ArrayList<>()).add(route);
			}
			else {
				leftLocal.add(new LeftLocal(route, LeftLocal.Reason.TOO_MANY_ROUTES));
			}
		}
		List<Map.Entry<SortedSet<String>, List<LearnedRoute>>> sets = new ArrayList<>(bySet.entrySet());
		sets.sort(Comparator.<Map.Entry<SortedSet<String>, List<LearnedRoute>>>comparingLong(
				(set) -> -requests(set.getValue()))
			.thenComparing((set) -> PathNames.setName(set.getKey())));
		List<ProposedPath> paths = new ArrayList<>();
		Set<String> taken = new HashSet<>();
		for (int i = 0; i < sets.size(); i++) {
			SortedSet<String> set = sets.get(i).getKey();
			List<LearnedRoute> members = sets.get(i).getValue();
			if (i < this.maxPaths) {
				String name = PathNames.unique(PathNames.pathName(set), taken);
				taken.add(name);
				members.sort(Comparator.comparing(LearnedRoute::route));
				paths.add(new ProposedPath(name, set, members));
			}
			else {
				members.forEach((route) -> leftLocal.add(new LeftLocal(route, LeftLocal.Reason.TOO_MANY_PATHS)));
			}
		}
		paths.sort(Comparator.comparing(ProposedPath::name));
		leftLocal.sort(Comparator.comparing(LeftLocal::route, BUSIEST_FIRST));
		return new PathPlan(paths, local, leftLocal, this.maxPaths, this.maxRoutes);
	}

	private static List<LearnedRoute> merged(Collection<LearnedRoute> learned) {
		Map<Route, LearnedRoute> byRoute = new TreeMap<>();
		for (LearnedRoute route : learned) {
			byRoute.merge(route.route(), route, LearnedRoute::merge);
		}
		return new ArrayList<>(byRoute.values());
	}

	private static long requests(List<LearnedRoute> routes) {
		return routes.stream().mapToLong(LearnedRoute::requests).sum();
	}

}
