package io.pathfence.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of PathFence: how the service's worker threads are split into path reservations.
 */
@ConfigurationProperties("pathfence")
public class PathFenceProperties {

	/**
	 * Whether PathFence fences the service. When false, neither the executor nor the inbound filter is installed.
	 */
	private boolean enabled = true;

	/**
	 * Permits the reservations share: the number of worker threads the executor keeps and of requests that may be
	 * processed at once. Keep it at or below Tomcat's maximum threads.
	 */
	private int poolSize = 200;

	/**
	 * Value of the Retry-After header sent with a 503 when a path's queue is full or a wait times out.
	 */
	private Duration retryAfter = Duration.ofSeconds(1);

	/**
	 * Execution paths by name, each with its own reservation.
	 */
	private Map<String, Path> paths = new LinkedHashMap<>();

	/**
	 * The local reservation, for requests and tasks of no path; it has priority over the paths.
	 */
	private final Local local = new Local();

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

	public Map<String, Path> getPaths() {
		return this.paths;
	}

	public void setPaths(Map<String, Path> paths) {
		this.paths = paths;
	}

	public Local getLocal() {
		return this.local;
	}

	/**
	 * One execution path: requests or tasks that go on to the same downstream.
	 */
	public static class Path {

		/**
		 * Permits of this path's reservation: how many of its requests or tasks may run at once.
		 */
		private int permits = 10;

		/**
		 * Request path patterns of this path, in PathPattern (Ant-style) syntax such as /orders/** or
		 * /carts/{id}.
		 */
		private List<String> routes = new ArrayList<>();

		/**
		 * HTTP methods the routes are limited to; empty for any method.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * How many requests or tasks may wait for a permit before new ones are rejected at once.
		 */
		private int maxQueue = 50;

		/**
		 * How long a request or task may wait for a permit before it is rejected; 0 to wait without limit.
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
		 * Permits of the local reservation; by default, whatever the paths leave of the pool.
		 */
		private Integer permits;

		/**
		 * How many local requests or tasks may wait for a permit before new ones are rejected at once.
		 */
		private int maxQueue = 100;

		/**
		 * How long a local request or task may wait for a permit before it is rejected; 0 to wait without limit.
		 */
		private Duration queueTimeout = Duration.ofMillis(500);

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

	}

}
