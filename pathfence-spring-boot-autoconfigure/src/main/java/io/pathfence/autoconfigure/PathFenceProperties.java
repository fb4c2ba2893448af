package io.pathfence.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

import io.pathfence.core.LocalPriority;

/**
 * Configuration of PathFence: how the service's worker threads are split into path
 * reservations. Checked once, as soon as it is bound, so every bean that reads it can
 * trust it and a mistake is reported as the property at fault.
 */
@ConfigurationProperties("pathfence")
public class PathFenceProperties implements InitializingBean {

	/**
	 * Whether PathFence fences the service. When false, neither the executor nor the
	 * inbound filter is installed.
	 */
	private boolean enabled = true;

	/**
	 * Permits the reservations share: the number of worker threads the executor keeps and
	 * of requests that may be processed at once. Keep it at or below Tomcat's maximum
	 * threads.
	 */
	private int poolSize = 200;

	/**
	 * Value of the Retry-After header sent with a 503 when a path's queue is full or a
	 * wait times out.
	 */
	private Duration retryAfter = Duration.ofSeconds(1);

	/**
	 * Request path patterns that bypass the fence altogether, such as health probes that
	 * must answer however loaded the service is.
	 */
	private List<String> exemptRoutes = new ArrayList<>(List.of("/actuator/**"));

	/**
	 * Execution paths by name, each with its own reservation.
	 */
	private Map<String, Path> paths = new LinkedHashMap<>();

	/**
	 * The local reservation, for requests and tasks of no path; it has priority over the
	 * paths.
	 */
	private final Local local = new Local();

	/**
	 * Online sizing of the path reservations by the SCT model.
	 */
	private final Tuning tuning = new Tuning();

	/**
	 * Learning each route's path from the downstream calls its requests make.
	 */
	private final Discovery discovery = new Discovery();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getPoolSize() {
		return this.poolSize;
	}

	public void setPoolSize(int poolSize) {
		this.poolSize = poolSize;
	}

	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	public void setRetryAfter(Duration retryAfter) {
		this.retryAfter = retryAfter;
	}

	public List<String> getExemptRoutes() {
		return this.exemptRoutes;
	}

	public void setExemptRoutes(List<String> exemptRoutes) {
		this.exemptRoutes = exemptRoutes;
	}

	public Map<String, Path> getPaths() {
		return this.paths;
	}

	public void setPaths(Map<String, Path> paths) {
		this.paths = paths;
	}

	public Local getLocal() {
		return this.local;
	}

	public Tuning getTuning() {
		return this.tuning;
	}

	public Discovery getDiscovery() {
		return this.discovery;
	}

	@Override
	public void afterPropertiesSet() {
		PathFenceFactory.check(this);
	}

	/**
	 * One execution path: requests or tasks that go on to the same downstream.
	 */
	public static class Path {

		/**
		 * Permits of this path's reservation: how many of its requests or tasks may run
		 * at once.
		 */
		private int permits = 10;

		/**
		 * Request path patterns of this path, in PathPattern (Ant-style) syntax such as
		 * /orders/** or /carts/{id}.
		 */
		private List<String> routes = new ArrayList<>();

		/**
		 * HTTP methods the routes are limited to; empty for any method.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * How many requests or tasks may wait for a permit before new ones are rejected
		 * at once.
		 */
		private int maxQueue = 50;

		/**
		 * How long a request or task may wait for a permit before it is rejected; 0 to
		 * wait without limit.
		 */
		private Duration queueTimeout = Duration.ofMillis(500);

		public int getPermits() {
			return this.permits;
		}

		public void setPermits(int permits) {
			this.permits = permits;
		}

		public List<String> getRoutes() {
			return this.routes;
		}

		public void setRoutes(List<String> routes) {
			this.routes = routes;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public int getMaxQueue() {
			return this.maxQueue;
		}

		public void setMaxQueue(int maxQueue) {
			this.maxQueue = maxQueue;
		}

		public Duration getQueueTimeout() {
			return this.queueTimeout;
		}

		public void setQueueTimeout(Duration queueTimeout) {
			this.queueTimeout = queueTimeout;
		}

	}

	/**
	 * The local reservation.
	 */
	public static class Local {

		/**
		 * Permits of the local reservation; by default, whatever the paths leave of the
		 * pool.
		 */
		private Integer permits;

		/**
		 * How many local requests or tasks may wait for a permit before new ones are
		 * rejected at once.
		 */
		private int maxQueue = 100;

		/**
		 * How long a local request or task may wait for a permit before it is rejected; 0
		 * to wait without limit.
		 */
		private Duration queueTimeout = Duration.ofMillis(500);

		/**
		 * Who gets a path's released permit when local requests or tasks wait too.
		 * idle-permits: the path's own waiting requests first; local work takes only
		 * permits no request of the path waits for. strict: local work first, as in the
		 * paper, even while the path's own requests wait.
		 */
		private LocalPriority priority = LocalPriority.IDLE_PERMITS;

		public Integer getPermits() {
			return this.permits;
		}

		public void setPermits(Integer permits) {
			this.permits = permits;
		}

		public int getMaxQueue() {
			return this.maxQueue;
		}

		public void setMaxQueue(int maxQueue) {
			this.maxQueue = maxQueue;
		}

		public Duration getQueueTimeout() {
			return this.queueTimeout;
		}

		public void setQueueTimeout(Duration queueTimeout) {
			this.queueTimeout = queueTimeout;
		}

		public LocalPriority getPriority() {
			return this.priority;
		}

		public void setPriority(LocalPriority priority) {
			this.priority = priority;
		}

	}

	/**
	 * Online sizing of each path's reservation to the least concurrency that reaches its
	 * peak throughput.
	 */
	public static class Tuning {

		/**
		 * Whether the SCT model resizes the path reservations at run time.
		 */
		private boolean enabled = false;

		/**
		 * Length of one sampling interval: each yields the path's mean concurrency,
		 * throughput and response time.
		 */
		private Duration interval = Duration.ofMillis(50);

		/**
		 * Window of samples each analysis looks at.
		 */
		private Duration window = Duration.ofSeconds(60);

		/**
		 * How often the tuner decides, on a window that slides by this much; by default a
		 * quarter of the window.
		 */
		private Duration period;

		/**
		 * The least permits the tuner gives a path.
		 */
		private int minPermits = 1;

		/**
		 * The most permits the tuner gives a path; by default as many as the pool can
		 * spare.
		 */
		private Integer maxPermits;

		/**
		 * The most one decision changes a reservation by, in permits.
		 */
		private int maxStep = 4;

		/**
		 * The least change, in permits, that a plateau recommendation must ask for to be
		 * applied.
		 */
		private int hysteresis = 2;

		/**
		 * The least permits the local reservation keeps when it takes what the paths
		 * leave of the pool.
		 */
		private int localFloor = 1;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public int getMinPermits() {
			return this.minPermits;
		}

		public void setMinPermits(int minPermits) {
			this.minPermits = minPermits;
		}

		public Integer getMaxPermits() {
			return this.maxPermits;
		}

		public void setMaxPermits(Integer maxPermits) {
			this.maxPermits = maxPermits;
		}

		public int getMaxStep() {
			return this.maxStep;
		}

		public void setMaxStep(int maxStep) {
			this.maxStep = maxStep;
		}

		public int getHysteresis() {
			return this.hysteresis;
		}

		public void setHysteresis(int hysteresis) {
			this.hysteresis = hysteresis;
		}

		public int getLocalFloor() {
			return this.localFloor;
		}

		public void setLocalFloor(int localFloor) {
			this.localFloor = localFloor;
		}

	}

	/**
	 * Learning each route's execution path from the outbound calls its requests make,
	 * seen through Micrometer's Observation API.
	 */
	public static class Discovery {

		/**
		 * Whether routes' paths are learned: off, observe (learn and report on the
		 * pathfence endpoint) or enforce (also give learned paths reservations and
		 * classify requests by them).
		 */
		private DiscoveryMode mode = DiscoveryMode.OFF;

		/**
		 * Most paths learned; routes calling a further set of downstreams stay local.
		 */
		private int maxPaths = 16;

		/**
		 * Most routes learned; requests of further routes are not learned and stay local.
		 */
		private int maxRoutes = 256;

		/**
		 * Most distinct downstreams one route may call; a route calling more (URLs built
		 * from request data, say) goes local and is no longer learned.
		 */
		private int maxDownstreamsPerRoute = 16;

		/**
		 * How long a learned path may go without a request of its routes (they moved to
		 * another set, or went quiet) before it is retired and its permits go back to
		 * local; 0 never to retire one.
		 */
		private Duration retireAfter = Duration.ofMinutes(10);

		/**
		 * Consecutive requests of a route that must call the same set of downstreams
		 * before the route moves to that set's path.
		 */
		private int confirmations = 3;

		/**
		 * Permits a learned path's reservation starts with, taken from the local
		 * reservation.
		 */
		private int permits = 4;

		/**
		 * Most tasks of a learned path that may wait for a permit.
		 */
		private int maxQueue = 50;

		/**
		 * How long a task of a learned path may wait for a permit; 0 for no limit.
		 */
		private Duration queueTimeout = Duration.ofMillis(500);

		/**
		 * Whether the SCT model sizes learned paths' reservations in enforce mode, with
		 * the settings of pathfence.tuning, even when pathfence.tuning.enabled is false.
		 */
		private boolean tuning = true;

		public DiscoveryMode getMode() {
			return this.mode;
		}

		public void setMode(DiscoveryMode mode) {
			this.mode = mode;
		}

		public int getMaxPaths() {
			return this.maxPaths;
		}

		public void setMaxPaths(int maxPaths) {
			this.maxPaths = maxPaths;
		}

		public int getMaxRoutes() {
			return this.maxRoutes;
		}

		public void setMaxRoutes(int maxRoutes) {
			this.maxRoutes = maxRoutes;
		}

		public int getMaxDownstreamsPerRoute() {
			return this.maxDownstreamsPerRoute;
		}

		public void setMaxDownstreamsPerRoute(int maxDownstreamsPerRoute) {
			this.maxDownstreamsPerRoute = maxDownstreamsPerRoute;
		}

		public Duration getRetireAfter() {
			return this.retireAfter;
		}

		public void setRetireAfter(Duration retireAfter) {
			this.retireAfter = retireAfter;
		}

		public int getConfirmations() {
			return this.confirmations;
		}

		public void setConfirmations(int confirmations) {
			this.confirmations = confirmations;
		}

		public int getPermits() {
			return this.permits;
		}

		public void setPermits(int permits) {
			this.permits = permits;
		}

		public int getMaxQueue() {
			return this.maxQueue;
		}

		public void setMaxQueue(int maxQueue) {
			this.maxQueue = maxQueue;
		}

		public Duration getQueueTimeout() {
			return this.queueTimeout;
		}

		public void setQueueTimeout(Duration queueTimeout) {
			this.queueTimeout = queueTimeout;
		}

		public boolean isTuning() {
			return this.tuning;
		}

		public void setTuning(boolean tuning) {
			this.tuning = tuning;
		}

	}

	/**
	 * What discovery does with what it learns.
	 */
	public enum DiscoveryMode {

		/** Nothing is learned. */
		OFF,

		/** Routes' paths are learned and reported; nothing is enforced. */
		OBSERVE,

		/** Learned paths get reservations and requests are classified by them. */
		ENFORCE

	}

}
