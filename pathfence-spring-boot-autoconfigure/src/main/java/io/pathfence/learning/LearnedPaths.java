package io.pathfence.learning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
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
 * <p>
 * Bounded, since clients choose what they send: only the standard HTTP methods are
 * learned; at most {@code maxRoutes} routes and {@code maxPaths} paths, and a route that
 * calls more than {@code maxDownstreams} distinct downstreams goes local and stops being
 * learned; what a cap leaves local is warned of, and past a fixed number of warnings they
 * are only counted.
 * <p>
 * Request threads only record: a map lookup and a short lock on their route. Placing
 * routes on paths, adding a path's reservation through {@link PathFence#addPath} (whose
 * listeners run on the calling thread) and retiring paths run on one applier thread, and
 * the endpoint reads what the applier last published; neither waits for the other nor for
 * a request.
 * <p>
 * A learned path none of whose routes had a request for {@code retireAfter} (they moved
 * to other sets, or went quiet) is retired. A request counts when it is classified to the
 * path (seen by the next placement pass), not only when it is served, so requests waiting
 * for their permits keep the path; and a path is never retired while a task of it runs or
 * waits, so a stall longer than {@code retireAfter} does not send its routes to local.
 * Its routes are classified local first; then, in enforce mode, its reservation is
 * removed once idle ({@link PathFence#removePathIfIdle}), its permits going back to the
 * local reservation. Its quiet routes learn afresh.
 */
public class LearnedPaths implements LearnedClassification, AutoCloseable {

	/**
	 * The methods learned: a request with any other is neither learned nor classified.
	 */
	static final Set<String> STANDARD_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	/** Distinct warnings kept and logged; further ones are only counted. */
	static final int MAX_WARNINGS = 64;

	private static final Log logger = LogFactory.getLog(LearnedPaths.class);

	private final PathFence fence;

	private final boolean enforce;

	private final Settings settings;

	private final LongSupplier nanoClock;

	private final Executor applier;

	/** The applier's own thread, when it was not given one; shut down on close. */
	private final ScheduledExecutorService ownApplier;

	private final AtomicBoolean placementPending = new AtomicBoolean();

	/** Routes by pattern, then method, so that a lookup builds no key. */
	private final ConcurrentHashMap<String, ConcurrentHashMap<String, RouteState>> routes = new ConcurrentHashMap<>();

	/** Routes learned; changed only under {@link #newRouteLock}. */
	private volatile int routeCount;

	private final Object newRouteLock = new Object();

	private final Warnings warnings = new Warnings(MAX_WARNINGS, logger);

	private final LongAdder ignoredMethods = new LongAdder();

	/** Held by a placement pass only, never by a request thread or the endpoint. */
	private final Object placementLock = new Object();

	/** Each set's path, in the order they were given; guarded by the placement lock. */
	private final Map<SortedSet<String>, LearnedPath> pathOfSet = new LinkedHashMap<>();

	/** Routes a cap left local, with the reason; guarded by the placement lock. */
	private final Map<Route, LeftLocal.Reason> leftLocal = new TreeMap<>();

	/** What the latest placement pass decided; replaced whole. */
	private volatile Placement placement = Placement.NONE;

	/**
	 * Retired paths whose reservation is still to be removed: a task classified to one
	 * before it was retired came in meanwhile. Guarded by the placement lock.
	 */
	private final Set<String> retiring = new LinkedHashSet<>();

	/**
	 * Learned paths placed by a thread of their own, which also retires quiet paths.
	 * @param fence the fence learned paths are added to
	 * @param enforce whether learned paths get reservations and classify requests
	 * @param settings caps, confirmations and the new reservations' sizes
	 */
	public LearnedPaths(PathFence fence, boolean enforce, Settings settings) {
		this(fence, enforce, settings, System::nanoTime, applierThread());
	}

	private LearnedPaths(PathFence fence, boolean enforce, Settings settings, LongSupplier nanoClock,
			ScheduledExecutorService applier) {
		this(fence, enforce, settings, nanoClock, applier, applier);
		if (!settings.retireAfter().isZero()) {
			long period = Math.max(Duration.ofSeconds(1).toNanos(),
					Math.min(settings.retireAfter().toNanos() / 4, Duration.ofMinutes(1).toNanos()));
			applier.scheduleWithFixedDelay(this::place, period, period, TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * For tests: placement passes run on {@code applier} (the calling thread, say) and
	 * retirement is checked only when a pass runs.
	 */
	LearnedPaths(PathFence fence, boolean enforce, Settings settings, LongSupplier nanoClock, Executor applier) {
		this(fence, enforce, settings, nanoClock, applier, null);
	}

	private LearnedPaths(PathFence fence, boolean enforce, Settings settings, LongSupplier nanoClock, Executor applier,
			ScheduledExecutorService ownApplier) {
		this.fence = fence;
		this.enforce = enforce;
		this.settings = settings;
		this.nanoClock = nanoClock;
		this.applier = applier;
		this.ownApplier = ownApplier;
	}

	private static ScheduledExecutorService applierThread() {
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "pathfence-discovery");
			thread.setDaemon(true);
			return thread;
		});
		executor.setRemoveOnCancelPolicy(true);
		return executor;
	}

	/**
	 * What the learning is bounded by and what a learned path's reservation starts with.
	 *
	 * @param maxPaths the most paths learned
	 * @param maxRoutes the most routes learned
	 * @param maxDownstreams the most distinct downstreams a route may call and still be
	 * placed on a path
	 * @param confirmations consecutive requests agreeing on a set before a route takes it
	 * @param permits permits of a new path's reservation
	 * @param maxQueue tasks of a new path that may wait
	 * @param queueTimeout how long they may wait; zero for no limit
	 * @param localFloor permits the local reservation keeps when paths are added
	 * @param retireAfter how long a learned path may go without a request of its routes
	 * before it is retired; zero never to retire one
	 */
	public record Settings(int maxPaths, int maxRoutes, int maxDownstreams, int confirmations, int permits,
			int maxQueue, Duration queueTimeout, int localFloor, Duration retireAfter) {
	}

	public boolean isEnforced() {
		return this.enforce;
	}

	/**
	 * The most downstreams worth recording for one request: one more than a route may
	 * have is enough to see that it has too many.
	 */
	int maxDownstreamsPerRequest() {
		return this.settings.maxDownstreams() + 1;
	}

	/**
	 * One request of a route was served and called these downstreams, each so many times.
	 */
	public void served(String method, String pattern, Map<String, Integer> calls) {
		if (method == null || !STANDARD_METHODS.contains(method)) {
			this.ignoredMethods.increment();
			return;
		}
		if (pattern == null || pattern.isBlank()) {
			return;
		}
		RouteState state = lookUp(method, pattern);
		if (state == null) {
			state = newRoute(method, pattern);
			if (state == null) {
				return;
			}
		}
		boolean moved = state.served(calls, this.settings.confirmations(), this.settings.maxDownstreams(),
				this.nanoClock.getAsLong());
		if (moved) {
			if (state.overflowed()) {
				this.warnings.warn("Route " + state.route
						+ " stays local and is no longer learned: it called more than " + this.settings.maxDownstreams()
						+ " distinct downstreams (pathfence.discovery.max-downstreams-per-route)");
			}
			requestPlacement();
		}
	}

	private RouteState lookUp(String method, String pattern) {
		ConcurrentHashMap<String, RouteState> byMethod = this.routes.get(pattern);
		return (byMethod != null) ? byMethod.get(method) : null;
	}

	/**
	 * The state of a route seen for the first time, or null beyond the route cap; the
	 * check and the insertion are one step, so the cap holds however many threads race.
	 */
	private RouteState newRoute(String method, String pattern) {
		Route route = Route.of(method, pattern);
		if (this.routeCount < this.settings.maxRoutes()) {
			synchronized (this.newRouteLock) {
				RouteState state = lookUp(method, pattern);
				if (state != null) {
					return state;
				}
				if (this.routeCount < this.settings.maxRoutes()) {
					state = new RouteState(route);
					this.routes.computeIfAbsent(pattern, (p) -> new ConcurrentHashMap<>()).put(method, state);
					this.routeCount++;
					return state;
				}
			}
		}
		this.warnings.warn("Route " + route + " is not learned and stays local: more than " + this.settings.maxRoutes()
				+ " routes (pathfence.discovery.max-routes)");
		return null;
	}

	@Override
	public String pathOf(String method, String pattern) {
		Map<String, Map<String, LearnedPath>> byPattern = this.placement.byPattern;
		if (byPattern.isEmpty()) {
			return null;
		}
		Map<String, LearnedPath> byMethod = byPattern.get(pattern);
		LearnedPath path = (byMethod != null) ? byMethod.get(method) : null;
		if (path == null) {
			return null;
		}
		path.classified();
		return path.name;
	}

	@Override
	public boolean isEmpty() {
		return !this.enforce || this.placement.byPattern.isEmpty();
	}

	/** Asks the applier for a placement pass; passes asked for meanwhile are one. */
	private void requestPlacement() {
		if (this.placementPending.compareAndSet(false, true)) {
			try {
				this.applier.execute(() -> {
					this.placementPending.set(false);
					place();
				});
			}
			catch (RejectedExecutionException ex) {
				// Closed: nothing is placed any more.
				this.placementPending.set(false);
			}
		}
	}

	/**
	 * Gives every route that confirmed a set the set's path, adding paths as needed, and
	 * retires paths that went quiet; then publishes the result.
	 */
	void place() {
		try {
			synchronized (this.placementLock) {
				long now = this.nanoClock.getAsLong();
				Map<Route, LearnedPath> placed = new LinkedHashMap<>();
				Map<String, List<RouteState>> members = new LinkedHashMap<>();
				for (RouteState state : sortedStates()) {
					if (state.overflowed()) {
						this.leftLocal.put(state.route, LeftLocal.Reason.TOO_MANY_DOWNSTREAMS);
						continue;
					}
					SortedSet<String> set = state.confirmed();
					if (set == null || set.isEmpty()) {
						this.leftLocal.remove(state.route);
						continue;
					}
					LearnedPath path = this.pathOfSet.get(set);
					if (path == null) {
						path = newPath(state.route, set, now);
					}
					if (path != null) {
						this.leftLocal.remove(state.route);
						placed.put(state.route, path);
						members.computeIfAbsent(path.name, (name) -> new ArrayList<>()).add(state);
						path.lastUsedNanos = Math.max(path.lastUsedNanos, state.lastServedNanos());
					}
				}
				List<String> retired = retireQuietPaths(now, placed, members);
				// Published before any reservation is removed, so no request is
				// classified
				// to a path that is gone.
				publish(placed);
				this.retiring.addAll(retired);
				removeRetiredReservations();
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Discovery could not place the learned routes; it tries again on the next change", ex);
		}
	}

	/** A path for a set confirmed for the first time, or null when it stays local. */
	private LearnedPath newPath(Route route, SortedSet<String> set, long now) {
		String what = "Route " + route + " (calls " + PathNames.setName(set) + ") stays local: ";
		if (this.pathOfSet.size() >= this.settings.maxPaths()) {
			this.leftLocal.put(route, LeftLocal.Reason.TOO_MANY_PATHS);
			this.warnings
				.warn(what + "more than " + this.settings.maxPaths() + " paths (pathfence.discovery.max-paths)");
			return null;
		}
		Set<String> taken = new HashSet<>();
		this.pathOfSet.values().forEach((path) -> taken.add(path.name));
		taken.addAll(this.fence.pathNames());
		String name = PathNames.unique(PathNames.pathName(set), taken);
		if (this.enforce) {
			int local = this.fence.figures(PathFence.LOCAL).permits();
			int permits = Math.min(this.settings.permits(), local - this.settings.localFloor());
			if (permits < 1) {
				this.warnings.warn(what + "the local reservation has no permit to give path '" + name + "'");
				return null;
			}
			try {
				this.fence.addPath(name, permits, this.settings.maxQueue(), this.settings.queueTimeout());
			}
			catch (IllegalArgumentException | IllegalStateException ex) {
				this.warnings.warn(what + "path '" + name + "' could not be added: " + ex.getMessage());
				return null;
			}
			logger.info("Added learned path '" + name + "' with " + permits + " permits for the routes calling "
					+ PathNames.setName(set));
		}
		LearnedPath path = new LearnedPath(name, now);
		this.pathOfSet.put(set, path);
		return path;
	}

	/**
	 * Retires every learned path none of whose routes had a request for the retirement
	 * time and of which no task runs or waits: its routes that still confirm its set
	 * learn afresh. Returns the retired paths, whose reservations are removed once the
	 * placement without them is published.
	 */
	private List<String> retireQuietPaths(long now, Map<Route, LearnedPath> placed,
			Map<String, List<RouteState>> members) {
		long retireAfter = this.settings.retireAfter().toNanos();
		if (retireAfter == 0) {
			return List.of();
		}
		List<String> retired = new ArrayList<>();
		for (var entry : new ArrayList<>(this.pathOfSet.entrySet())) {
			LearnedPath path = entry.getValue();
			if (path.takeClassified() || inUse(path.name)) {
				path.lastUsedNanos = now;
			}
			if (now - path.lastUsedNanos < retireAfter) {
				continue;
			}
			this.pathOfSet.remove(entry.getKey());
			for (RouteState state : members.getOrDefault(path.name, List.of())) {
				state.forget(entry.getKey());
				placed.remove(state.route);
			}
			retired.add(path.name);
			logger.info("Retired learned path '" + path.name + "' (calls " + PathNames.setName(entry.getKey())
					+ "): no request of its routes for " + this.settings.retireAfter()
					+ " (pathfence.discovery.retire-after)");
		}
		return retired;
	}

	/** Whether a task of the path runs or waits now. */
	private boolean inUse(String path) {
		if (!this.enforce || !this.fence.hasPath(path)) {
			return false;
		}
		try {
			PathFigures figures = this.fence.figures(path);
			return figures.active() > 0 || figures.queued() > 0;
		}
		catch (IllegalArgumentException ex) {
			// Removed meanwhile: nothing of it runs any more.
			return false;
		}
	}

	/**
	 * Removes the reservations of retired paths of which no task runs or waits; one that
	 * a request classified before its retirement still uses is removed on a later pass.
	 */
	private void removeRetiredReservations() {
		if (!this.enforce) {
			this.retiring.clear();
			return;
		}
		for (var iterator = this.retiring.iterator(); iterator.hasNext();) {
			String name = iterator.next();
			try {
				if (!this.fence.hasPath(name) || this.fence.removePathIfIdle(name)) {
					iterator.remove();
				}
			}
			catch (IllegalArgumentException | IllegalStateException ex) {
				// Removed or closed meanwhile: nothing is left to give back.
				iterator.remove();
			}
		}
	}

	private void publish(Map<Route, LearnedPath> placed) {
		Map<String, Map<String, LearnedPath>> byPattern = new HashMap<>();
		Map<Route, String> classification = new LinkedHashMap<>();
		placed.forEach((route, path) -> {
			byPattern.computeIfAbsent(route.pattern(), (p) -> new HashMap<>()).put(route.method(), path);
			classification.put(route, path.name);
		});
		byPattern.replaceAll((pattern, byMethod) -> Map.copyOf(byMethod));
		Map<SortedSet<String>, String> paths = new LinkedHashMap<>();
		this.pathOfSet.forEach((set, path) -> paths.put(set, path.name));
		this.placement = new Placement(Collections.unmodifiableMap(classification), Map.copyOf(byPattern),
				Collections.unmodifiableMap(paths), Collections.unmodifiableMap(new TreeMap<>(this.leftLocal)));
	}

	private List<RouteState> sortedStates() {
		List<RouteState> states = new ArrayList<>();
		this.routes.values().forEach((byMethod) -> states.addAll(byMethod.values()));
		states.sort((a, b) -> a.route.compareTo(b.route));
		return states;
	}

	/** Stops the applier thread; nothing is placed or retired any more. */
	@Override
	public void close() {
		if (this.ownApplier != null) {
			this.ownApplier.shutdownNow();
		}
	}

	/** What has been learned so far, for the endpoint. */
	public Report report() {
		Placement current = this.placement;
		Map<Route, String> placed = current.classification;
		List<RouteReport> routeReports = new ArrayList<>();
		Map<String, List<LearnedRoute>> routesOfPath = new LinkedHashMap<>();
		current.pathOfSet.values().forEach((path) -> routesOfPath.put(path, new ArrayList<>()));
		List<LearnedRoute> local = new ArrayList<>();
		List<LeftLocal> left = new ArrayList<>();
		for (RouteState state : sortedStates()) {
			RouteState.Snapshot snapshot = state.snapshot();
			String path = placed.getOrDefault(state.route, PathFence.LOCAL);
			routeReports.add(new RouteReport(state.route.method(), state.route.pattern(), snapshot.requests(),
					snapshot.calls(), snapshot.confirmed(), snapshot.pending(), snapshot.pendingRequests(), path));
			if (snapshot.overflowed() && current.leftLocal.containsKey(state.route)) {
				left.add(new LeftLocal(new LearnedRoute(state.route, snapshot.requests(), snapshot.calls()),
						LeftLocal.Reason.TOO_MANY_DOWNSTREAMS));
				continue;
			}
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
			else if (current.leftLocal.containsKey(state.route)) {
				left.add(new LeftLocal(learned, current.leftLocal.get(state.route)));
			}
		}
		List<PathReport> pathReports = new ArrayList<>();
		List<ProposedPath> proposed = new ArrayList<>();
		current.pathOfSet.forEach((set, path) -> {
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
		return new Report(this.enforce ? "enforce" : "observe", routeReports, pathReports, yaml, this.warnings.kept(),
				this.warnings.dropped(), this.ignoredMethods.sum());
	}

	/**
	 * What the latest placement pass decided, published whole for request threads and the
	 * endpoint.
	 *
	 * @param classification each placed route's path
	 * @param byPattern the same, by pattern then method, for lookups that build no key
	 * @param pathOfSet each learned set's path, in the order they were given
	 * @param leftLocal routes a cap left local, with the reason
	 */
	private record Placement(Map<Route, String> classification, Map<String, Map<String, LearnedPath>> byPattern,
			Map<SortedSet<String>, String> pathOfSet, Map<Route, LeftLocal.Reason> leftLocal) {

		static final Placement NONE = new Placement(Map.of(), Map.of(), Map.of(), Map.of());

	}

	/**
	 * A learned path and when a request of its routes was last seen. Request threads only
	 * mark it classified; the rest is the placement's.
	 */
	private static final class LearnedPath {

		final String name;

		/** Set when a request is classified to the path, cleared by a placement pass. */
		private volatile boolean classified;

		long lastUsedNanos;

		LearnedPath(String name, long now) {
			this.name = name;
			this.lastUsedNanos = now;
		}

		void classified() {
			// Read first: once set, the many requests of a busy path write nothing, so
			// they do not contend for the field's cache line.
			if (!this.classified) {
				this.classified = true;
			}
		}

		/**
		 * Whether a request was classified to the path since the last call; clears it.
		 */
		boolean takeClassified() {
			if (!this.classified) {
				return false;
			}
			this.classified = false;
			return true;
		}

	}

	/**
	 * Discovery as the endpoint shows it.
	 *
	 * @param mode observe or enforce
	 * @param routes every learned route, sorted
	 * @param paths the learned paths, in the order they were learned
	 * @param yaml a {@code pathfence.paths} block for the learned paths, to configure
	 * them by hand
	 * @param warnings what the caps left local, at most {@value #MAX_WARNINGS} of them
	 * @param warningsDropped further warnings, counted only
	 * @param ignoredMethods requests not learned because their HTTP method is not a
	 * standard one
	 */
	public record Report(String mode, List<RouteReport> routes, List<PathReport> paths, String yaml,
			List<String> warnings, long warningsDropped, long ignoredMethods) {
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

	/** The downstreams one request called, filled from whichever threads it used. */
	static final class Calls {

		private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

		private final int maxDownstreams;

		/**
		 * @param maxDownstreams the most distinct downstreams recorded; calls to further
		 * ones are not
		 */
		Calls(int maxDownstreams) {
			this.maxDownstreams = maxDownstreams;
		}

		void add(String downstream) {
			if (this.counts.size() < this.maxDownstreams || this.counts.containsKey(downstream)) {
				this.counts.merge(downstream, 1, Integer::sum);
			}
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
