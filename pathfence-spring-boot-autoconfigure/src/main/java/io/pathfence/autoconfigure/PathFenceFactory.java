package io.pathfence.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

import io.pathfence.core.InvalidPathFenceConfigurationException;
import io.pathfence.core.PathFence;
import io.pathfence.core.PathFenceBuilder;

/**
 * Checks {@link PathFenceProperties} and describes the {@link PathFence} they configure.
 * Every check names the property it is about, so a mistake is reported as that property,
 * not as a stack trace from the scheduler.
 */
final class PathFenceFactory {

	private static final Pattern PATH_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

	private PathFenceFactory() {
	}

	/** A builder of the fence that checked properties describe. */
	static PathFenceBuilder builder(PathFenceProperties properties) {
		PathFenceBuilder builder = PathFence.builder(properties.getPoolSize());
		properties.getPaths()
			.forEach((name, path) -> builder.path(name, path.getPermits(), path.getMaxQueue(), path.getQueueTimeout()));
		PathFenceProperties.Local local = properties.getLocal();
		if (local.getPermits() != null) {
			builder.local(local.getPermits(), local.getMaxQueue(), local.getQueueTimeout());
		}
		else {
			builder.localQueue(local.getMaxQueue(), local.getQueueTimeout());
		}
		builder.localPriority(local.getPriority());
		return builder;
	}

	static void check(PathFenceProperties properties) {
		if (properties.getPoolSize() <= 0) {
			throw new InvalidPathFenceConfigurationException("pathfence.pool-size", properties.getPoolSize(),
					"a whole number greater than 0");
		}
		// Counted in a long: permits near the int range must be reported, not wrap round
		// and pass.
		long sum = 0;
		for (Map.Entry<String, PathFenceProperties.Path> entry : properties.getPaths().entrySet()) {
			String name = entry.getKey();
			String prefix = "pathfence.paths." + name;
			if (!PATH_NAME.matcher(name).matches() || PathFence.LOCAL.equals(name)) {
				throw new InvalidPathFenceConfigurationException("pathfence.paths", name,
						"path names of letters, digits, '_', '.' and '-', other than '" + PathFence.LOCAL + "'");
			}
			PathFenceProperties.Path path = entry.getValue();
			nonNegative(prefix + ".permits", path.getPermits());
			nonNegative(prefix + ".max-queue", path.getMaxQueue());
			queueTimeout(prefix + ".queue-timeout", path.getQueueTimeout());
			for (String method : path.getMethods()) {
				if (method == null || !method.matches("[A-Z]+")) {
					throw new InvalidPathFenceConfigurationException(prefix + ".methods", method,
							"HTTP method names in upper case, such as GET or POST");
				}
			}
			if (!path.getMethods().isEmpty() && path.getRoutes().isEmpty()) {
				throw new InvalidPathFenceConfigurationException(prefix + ".methods", path.getMethods(),
						"no methods unless " + prefix + ".routes lists the routes they narrow");
			}
			sum += path.getPermits();
		}
		if (sum > properties.getPoolSize()) {
			throw new InvalidPathFenceConfigurationException("pathfence.paths.*.permits", sum,
					"permits adding up to at most pathfence.pool-size (" + properties.getPoolSize() + ")");
		}
		PathFenceProperties.Local local = properties.getLocal();
		if (local.getPermits() != null) {
			nonNegative("pathfence.local.permits", local.getPermits());
			if (sum + local.getPermits() > properties.getPoolSize()) {
				throw new InvalidPathFenceConfigurationException("pathfence.local.permits", local.getPermits(),
						"at most what the paths leave of pathfence.pool-size (" + (properties.getPoolSize() - sum)
								+ ")");
			}
		}
		nonNegative("pathfence.local.max-queue", local.getMaxQueue());
		queueTimeout("pathfence.local.queue-timeout", local.getQueueTimeout());
		if (local.getPriority() == null) {
			throw new InvalidPathFenceConfigurationException("pathfence.local.priority", null,
					"idle-permits (the default) or strict");
		}
		checkTuning(properties.getTuning(), properties.getPoolSize());
		checkDiscovery(properties.getDiscovery());
		if (properties.getRetryAfter() == null || properties.getRetryAfter().isNegative()) {
			throw new InvalidPathFenceConfigurationException("pathfence.retry-after", properties.getRetryAfter(),
					"a duration of 0 or more");
		}
	}

	private static void checkTuning(PathFenceProperties.Tuning tuning, int poolSize) {
		positive("pathfence.tuning.interval", tuning.getInterval());
		positive("pathfence.tuning.window", tuning.getWindow());
		if (tuning.getWindow().compareTo(tuning.getInterval()) < 0) {
			throw new InvalidPathFenceConfigurationException("pathfence.tuning.window", tuning.getWindow(),
					"at least pathfence.tuning.interval (" + tuning.getInterval() + ")");
		}
		Duration longestWindow = Duration.ofNanos(Long.MAX_VALUE);
		if (tuning.getWindow().compareTo(longestWindow) > 0) {
			throw new InvalidPathFenceConfigurationException("pathfence.tuning.window", tuning.getWindow(),
					"at most " + longestWindow + ", the most nanoseconds the clock of the samples can count");
		}
		// Each path keeps a window of intervals in preallocated arrays, so their ratio is
		// what costs memory.
		int mostIntervals = io.pathfence.sct.SctConfig.MAX_INTERVALS_PER_WINDOW;
		if (tuning.getWindow().dividedBy(tuning.getInterval()) > mostIntervals) {
			throw new InvalidPathFenceConfigurationException("pathfence.tuning.interval", tuning.getInterval(),
					"at least " + io.pathfence.sct.SctConfig.minimumInterval(tuning.getWindow())
							+ ", so that pathfence.tuning.window (" + tuning.getWindow() + ") holds at most "
							+ mostIntervals + " intervals; or a shorter pathfence.tuning.window");
		}
		if (tuning.getPeriod() != null) {
			positive("pathfence.tuning.period", tuning.getPeriod());
		}
		nonNegative("pathfence.tuning.min-permits", tuning.getMinPermits());
		if (tuning.getMaxPermits() != null
				&& (tuning.getMaxPermits() < tuning.getMinPermits() || tuning.getMaxPermits() > poolSize)) {
			throw new InvalidPathFenceConfigurationException("pathfence.tuning.max-permits", tuning.getMaxPermits(),
					"a number from pathfence.tuning.min-permits (" + tuning.getMinPermits()
							+ ") to pathfence.pool-size (" + poolSize + ")");
		}
		if (tuning.getMaxStep() < 1) {
			throw new InvalidPathFenceConfigurationException("pathfence.tuning.max-step", tuning.getMaxStep(),
					"a whole number of 1 or more");
		}
		nonNegative("pathfence.tuning.hysteresis", tuning.getHysteresis());
		nonNegative("pathfence.tuning.local-floor", tuning.getLocalFloor());
	}

	private static void checkDiscovery(PathFenceProperties.Discovery discovery) {
		if (discovery.getMode() == null) {
			throw new InvalidPathFenceConfigurationException("pathfence.discovery.mode", null,
					"off (the default), observe or enforce");
		}
		nonNegative("pathfence.discovery.max-paths", discovery.getMaxPaths());
		nonNegative("pathfence.discovery.max-routes", discovery.getMaxRoutes());
		if (discovery.getMaxDownstreamsPerRoute() < 1) {
			throw new InvalidPathFenceConfigurationException("pathfence.discovery.max-downstreams-per-route",
					discovery.getMaxDownstreamsPerRoute(), "a whole number of 1 or more");
		}
		if (discovery.getRetireAfter() == null || discovery.getRetireAfter().isNegative()) {
			throw new InvalidPathFenceConfigurationException("pathfence.discovery.retire-after",
					discovery.getRetireAfter(), "a duration of 0 (never) or more");
		}
		if (discovery.getConfirmations() < 1) {
			throw new InvalidPathFenceConfigurationException("pathfence.discovery.confirmations",
					discovery.getConfirmations(), "a whole number of 1 or more");
		}
		if (discovery.getPermits() < 1) {
			throw new InvalidPathFenceConfigurationException("pathfence.discovery.permits", discovery.getPermits(),
					"a whole number of 1 or more");
		}
		nonNegative("pathfence.discovery.max-queue", discovery.getMaxQueue());
		queueTimeout("pathfence.discovery.queue-timeout", discovery.getQueueTimeout());
	}

	private static void positive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidPathFenceConfigurationException(property, value, "a duration greater than 0");
		}
	}

	private static void nonNegative(String property, int value) {
		if (value < 0) {
			throw new InvalidPathFenceConfigurationException(property, value, "a whole number of 0 or more");
		}
	}

	/** The fence times waits in nanoseconds of a {@code long}. */
	private static void queueTimeout(String property, Duration value) {
		Duration longest = Duration.ofNanos(Long.MAX_VALUE);
		if (value == null || value.isNegative() || value.compareTo(longest) > 0) {
			throw new InvalidPathFenceConfigurationException(property, value,
					"a duration from 0 (no limit) to " + longest);
		}
	}

	private static void nonNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidPathFenceConfigurationException(property, value, "a duration of 0 or more");
		}
	}

}
