package io.pathfence.learning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.pathfence.core.PathFence;
import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.LeftLocal;
import io.pathfence.discovery.PathNames;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.ProposedPath;
import io.pathfence.discovery.Route;
import io.pathfence.discovery.config.StarterYaml;
import io.pathfence.web.LearnedClassification;

/**
 * What discovery learned of the service's routes, and the paths it gave them.
 * <p>
 * Each served request of a route reports the set of downstreams it called. A route's path
 * is the set its requests agree on: it takes a set once that many consecutive requests
 * (the confirmations) called exactly that set, so one odd request moves nothing. Routes
 * with the same set share one path, named from the set by the same rule as the offline
 * {@code pathfence paths} command ({@link PathNames}); routes calling nothing are local.
 * A set gets a path the first time a route confirms it, and keeps it: a reservation, once
 * added, is never taken away from under running tasks. Beyond {@code maxPaths} sets, or
 * {@code maxRoutes} routes, the rest stay local, with a warning in the log and the
 * report.
 * <p>
 * In enforce mode a new path gets its reservation at once through
 * {@link PathFence#addPath}, from the local reservation; paths configured by hand keep
 * their names, and a learned one that would clash is given another.
 * <p>
 * Recording a request is a map lookup and a short lock on its route; only a route that
 * moves to another set takes the lock of the whole, which happens about once per route.
 */
public class LearnedPaths implements LearnedClassification {

	private static final Log logger = LogFactory.getLog(LearnedPaths.class);

	private final PathFence fence;

	private final boolean enforce;

	private final Settings settings;

	private final ConcurrentHashMap<Route, RouteState> routes = new ConcurrentHashMap<>();

	/** Each set's path, in the order they were given; guarded by {@code this}. */
	private final Map<SortedSet<String>, String> pathOfSet = new LinkedHashMap<>();

	/** Routes a cap left local, with the reason; guarded by {@code this}. */
	private final Map<Route, LeftLocal.Reason> leftLocal = new TreeMap<>();

	private final Set<String> warnings = Collections.newSetFromMap(new ConcurrentHashMap<>());

	/** The learned path of each route placed on one; replaced whole. */
	private volatile Map<Route, String> classification = Map.of();

	/**
	 * @param fence the fence learned paths are added to
	 * @param enforce whether learned paths get reservations and classify requests
	 * @param settings caps, confirmations and the new reservations' sizes
	 */
	public LearnedPaths(PathFence fence, boolean enforce, Settings settings) {
		this.fence = fence;
		this.enforce = enforce;
		this.settings = settings;
	}

	/**
	 * What the learning is bounded by and what a learned path's reservation starts with.
	 *
	 * @param maxPaths the most paths learned
	 * @param maxRoutes the most routes learned
	 * @param confirmations consecutive requests agreeing on a set before a route takes it
	 * @param permits permits of a new path's reservation
	 * @param maxQueue tasks of a new path that may wait
	 * @param queueTimeout how long they may wait; zero for no limit
	 * @param localFloor permits the local reservation keeps when paths are added
	 */
	public record Settings(int maxPaths, int maxRoutes, int confirmations, int permits, int maxQueue,
			Duration queueTimeout, int localFloor) {
	}

	public boolean isEnforced() {
		return this.enforce;
	}

	/**
	 * One request of a route was served and called these downstreams, each so many times.
	 */
	public void served(String method, String pattern, Map<String, Integer> calls) {
		Route route = route(method, pattern);
		if (route == null) {
			return;
		}
		RouteState state = this.routes.get(route);
		if (state == null) {
			if (this.routes.size() >= this.settings.maxRoutes()) {
				warn("Route " + route + " is not learned and stays local: more than " + this.settings.maxRoutes()
						+ " routes (pathfence.discovery.max-routes)");
				return;
			}
			state = this.routes.computeIfAbsent(route, RouteState::new);
		}
		if (state.served(calls, this.settings.confirmations())) {
			placeRoutes();
		}
	}

	@Override
	public String pathOf(String method, String pattern) {
		Map<Route, String> current = this.classification;
		if (current.isEmpty()) {
			return null;
		}
		Route route = route(method, pattern);
		return (route != null) ? current.get(route) : null;
	}

	/**
	 * The route, or null for a method no route can have (an extension method with a
	 * dash): such requests are neither learned nor classified by what was learned.
	 */
	private static Route route(String method, String pattern) {
		try {
			return Route.of(method, pattern);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public boolean isEmpty() {
		return !this.enforce || this.classification.isEmpty();
	}

	/** Gives every route that confirmed a set the set's path, adding paths as needed. */
	private synchronized void placeRoutes() {
		Map<Route, String> placed = new LinkedHashMap<>();
		for (RouteState state : sortedStates()) {
			SortedSet<String> set = state.confirmed();
			if (set == null || set.isEmpty()) {
				this.leftLocal.remove(state.route);
				continue;
			}
			String path = this.pathOfSet.get(set);
			if (path == null) {
				path = newPath(state.route, set);
			}
			if (path != null) {
				this.leftLocal.remove(state.route);
				placed.put(state.route, path);
			}
		}
		this.classification = Collections.unmodifiableMap(placed);
	}

	/** A path for a set confirmed for the first time, or null when it stays local. */
	private String newPath(Route route, SortedSet<String> set) {
		String what = "Route " + route + " (calls " + PathNames.setName(set) + ") stays local: ";
		if (this.pathOfSet.size() >= this.settings.maxPaths()) {
			this.leftLocal.put(route, LeftLocal.Reason.TOO_MANY_PATHS);
			warn(what + "more than " + this.settings.maxPaths() + " paths (pathfence.discovery.max-paths)");
			return null;
		}
		Set<String> taken = new HashSet<>(this.pathOfSet.values());
		taken.addAll(this.fence.pathNames());
		String name = PathNames.unique(PathNames.pathName(set), taken);
		if (this.enforce) {
			int local = this.fence.figures(PathFence.LOCAL).permits();
			int permits = Math.min(this.settings.permits(), local - this.settings.localFloor());
			if (permits < 1) {
				warn(what + "the local reservation has no permit to give path '" + name + "'");
				return null;
			}
			try {
				this.fence.addPath(name, permits, this.settings.maxQueue(), this.settings.queueTimeout());
			}
			catch (IllegalArgumentException | IllegalStateException ex) {
				warn(what + "path '" + name + "' could not be added: " + ex.getMessage());
				return null;
			}
			logger.info("Added learned path '" + name + "' with " + permits + " permits for the routes calling "
					+ PathNames.setName(set));
		}
		this.pathOfSet.put(set, name);
		return name;
	}

	private List<RouteState> sortedStates() {
		List<RouteState> states = new ArrayList<>(this.routes.values());
		states.sort((a, b) -> a.route.compareTo(b.route));
		return states;
	}

	private void warn(String warning) {
		if (this.warnings.add(warning)) {
			logger.warn(warning);
		}
	}

	/** What has been learned so far, for the endpoint. */
	public synchronized Report report() {
		Map<Route, String> placed = this.classification;
		List<RouteReport> routeReports = new ArrayList<>();
		Map<String, List<LearnedRoute>> routesOfPath = new LinkedHashMap<>();
		this.pathOfSet.values().forEach((path) -> routesOfPath.put(path, new ArrayList<>()));
		List<LearnedRoute> local = new ArrayList<>();
		List<LeftLocal> left = new ArrayList<>();
		for (RouteState state : sortedStates()) {
			RouteState.Snapshot snapshot = state.snapshot();
			String path = placed.getOrDefault(state.route, PathFence.LOCAL);
			routeReports.add(new RouteReport(state.route.method(), state.route.pattern(), snapshot.requests(),
					snapshot.calls(), snapshot.confirmed(), snapshot.pending(), snapshot.pendingRequests(), path));
			if (snapshot.confirmed() == null) {
				continue;
			}
			SortedMap<String, Long> calls = new TreeMap<>();
			snapshot.confirmed().forEach((downstream) -> calls.put(downstream, snapshot.calls().get(downstream)));
			LearnedRoute learned = new LearnedRoute(state.route, snapshot.requests(), calls);
			if (calls.isEmpty()) {
				local.add(learned);
			}
			else if (routesOfPath.containsKey(path)) {
				routesOfPath.get(path).add(learned);
			}
			else if (this.leftLocal.containsKey(state.route)) {
				left.add(new LeftLocal(learned, this.leftLocal.get(state.route)));
			}
		}
		List<PathReport> pathReports = new ArrayList<>();
		List<ProposedPath> proposed = new ArrayList<>();
		this.pathOfSet.forEach((set, path) -> {
			List<LearnedRoute> members = routesOfPath.get(path);
			pathReports.add(new PathReport(path, PathNames.setName(set),
					members.stream().map((learned) -> learned.route().toString()).toList(),
					this.enforce && this.fence.hasPath(path)));
			if (!members.isEmpty()) {
				proposed.add(new ProposedPath(path, set, members));
			}
		});
		PathPlan plan = new PathPlan(proposed, local, left, this.settings.maxPaths(), this.settings.maxRoutes());
		String yaml = StarterYaml
			.write(plan, this.settings.permits(),
					List.of("Learned by pathfence.discovery; paste into application.yaml"))
			.text();
		return new Report(this.enforce ? "enforce" : "observe", routeReports, pathReports, yaml,
				List.copyOf(new TreeSet<>(this.warnings)));
	}

	/**
	 * Discovery as the endpoint shows it.
	 *
	 * @param mode observe or enforce
	 * @param routes every learned route, sorted
	 * @param paths the learned paths, in the order they were learned
	 * @param yaml a {@code pathfence.paths} block for the learned paths, to configure
	 * them by hand
	 * @param warnings what the caps left local
	 */
	public record Report(String mode, List<RouteReport> routes, List<PathReport> paths, String yaml,
			List<String> warnings) {
	}

	/**
	 * One learned route.
	 *
	 * @param method its HTTP method
	 * @param pattern its request path pattern
	 * @param requests its requests seen
	 * @param calls calls its requests made, by downstream
	 * @param downstreams the set its requests agreed on; null until they have
	 * @param pending another set its latest requests called, waiting for confirmation;
	 * null when none
	 * @param pendingRequests consecutive requests that called the pending set
	 * @param path the path it is placed on, or {@code local}
	 */
	public record RouteReport(String method, String pattern, long requests, SortedMap<String, Long> calls,
			SortedSet<String> downstreams, SortedSet<String> pending, int pendingRequests, String path) {
	}

	/**
	 * One learned path.
	 *
	 * @param name its name
	 * @param downstreams its set of downstreams, e.g. {@code payment+shipping}
	 * @param routes its routes
	 * @param reserved whether it has a reservation in the fence (enforce mode)
	 */
	public record PathReport(String name, String downstreams, List<String> routes, boolean reserved) {
	}

	/** What one route's requests called, and the set they agreed on. */
	private static final class RouteState {

		final Route route;

		private long requests;

		private final SortedMap<String, Long> calls = new TreeMap<>();

		private SortedSet<String> confirmed;

		private SortedSet<String> pending;

		private int pendingRequests;

		RouteState(Route route) {
			this.route = route;
		}

		/** Records a request; returns whether the route moved to another set. */
		synchronized boolean served(Map<String, Integer> called, int confirmations) {
			this.requests++;
			called.forEach((downstream, count) -> this.calls.merge(downstream, (long) count, Long::sum));
			SortedSet<String> set = new TreeSet<>(called.keySet());
			if (set.equals(this.confirmed)) {
				this.pending = null;
				this.pendingRequests = 0;
				return false;
			}
			if (set.equals(this.pending)) {
				this.pendingRequests++;
			}
			else {
				this.pending = set;
				this.pendingRequests = 1;
			}
			if (this.pendingRequests < confirmations) {
				return false;
			}
			this.confirmed = Collections.unmodifiableSortedSet(set);
			this.pending = null;
			this.pendingRequests = 0;
			return true;
		}

		synchronized SortedSet<String> confirmed() {
			return this.confirmed;
		}

		synchronized Snapshot snapshot() {
			return new Snapshot(this.requests, Collections.unmodifiableSortedMap(new TreeMap<>(this.calls)),
					this.confirmed, (this.pending != null) ? Collections.unmodifiableSortedSet(this.pending) : null,
					this.pendingRequests);
		}

		record Snapshot(long requests, SortedMap<String, Long> calls, SortedSet<String> confirmed,
				SortedSet<String> pending, int pendingRequests) {
		}

	}

	/** The downstreams one request called, filled from whichever threads it used. */
	static final class Calls {

		private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

		void add(String downstream) {
			this.counts.merge(downstream, 1, Integer::sum);
		}

		Map<String, Integer> snapshot() {
			return new LinkedHashMap<>(this.counts);
		}

	}

	/** For tests: the routes, as sets of downstreams they confirmed. */
	Map<String, Set<String>> confirmedSets() {
		Map<String, Set<String>> sets = new TreeMap<>();
		for (RouteState state : sortedStates()) {
			SortedSet<String> set = state.confirmed();
			if (set != null) {
				sets.put(state.route.toString(), new LinkedHashSet<>(set));
			}
		}
		return sets;
	}

}
