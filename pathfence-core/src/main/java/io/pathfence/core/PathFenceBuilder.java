package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/** Describes a {@link PathFence} before it is built: {@link PathFence#builder(int)}. */
public final class PathFenceBuilder {

	record PathSpec(String name, int permits, int maxQueue, long timeoutNanos) {
	}

	final int poolSize;

	final List<PathSpec> paths = new ArrayList<>();

	int localPermits = -1;

	int localMaxQueue = Integer.MAX_VALUE;

	long localTimeoutNanos;

	LongSupplier nanoClock = System::nanoTime;

	LocalPriority localPriority = LocalPriority.IDLE_PERMITS;

	PathFenceBuilder(int poolSize) {
		if (poolSize <= 0) {
			throw new IllegalArgumentException("pool size must be > 0, was " + poolSize);
		}
		this.poolSize = poolSize;
	}

	/**
	 * Adds a path reservation; {@code queueTimeout} of zero means a task may wait without
	 * limit.
	 */
	public PathFenceBuilder path(String name, int permits, int maxQueue, Duration queueTimeout) {
		PathSpec spec = spec(name, permits, maxQueue, queueTimeout);
		if (this.paths.stream().anyMatch((defined) -> defined.name().equals(name))) {
			throw new IllegalArgumentException("path '" + name + "' is defined twice");
		}
		this.paths.add(spec);
		return this;
	}

	/**
	 * A path reservation's description, checked; shared with {@link PathFence#addPath}.
	 */
	static PathSpec spec(String name, int permits, int maxQueue, Duration queueTimeout) {
		Objects.requireNonNull(name, "name");
		if (name.isBlank() || PathFence.LOCAL.equals(name)) {
			throw new IllegalArgumentException(
					"path name must be non-blank and not '" + PathFence.LOCAL + "': '" + name + "'");
		}
		if (permits < 0 || maxQueue < 0) {
			throw new IllegalArgumentException(
					"path '" + name + "' needs permits >= 0 and max-queue >= 0, was " + permits + " and " + maxQueue);
		}
		return new PathSpec(name, permits, maxQueue, timeoutNanos("path '" + name + "'", queueTimeout));
	}

	/**
	 * Sizes the local reservation; by default it takes what the paths leave of the pool.
	 */
	public PathFenceBuilder local(int permits, int maxQueue, Duration queueTimeout) {
		if (permits < 0) {
			throw new IllegalArgumentException("local reservation needs permits >= 0");
		}
		localQueue(maxQueue, queueTimeout);
		this.localPermits = permits;
		return this;
	}

	/**
	 * Bounds the local queue while the local reservation keeps taking what the paths
	 * leave of the pool.
	 */
	public PathFenceBuilder localQueue(int maxQueue, Duration queueTimeout) {
		if (maxQueue < 0) {
			throw new IllegalArgumentException("local queue needs max-queue >= 0");
		}
		this.localMaxQueue = maxQueue;
		this.localTimeoutNanos = timeoutNanos("the local reservation", queueTimeout);
		return this;
	}

	/**
	 * Which waiting task a path's released permit goes to when a local task waits too;
	 * {@link LocalPriority#IDLE_PERMITS} by default.
	 */
	public PathFenceBuilder localPriority(LocalPriority localPriority) {
		this.localPriority = Objects.requireNonNull(localPriority, "localPriority");
		return this;
	}

	/**
	 * The clock of wait and service times and of queue timeouts, in nanoseconds;
	 * {@link System#nanoTime()} by default. The timer sleeps by its differences, so it
	 * must run at the pace of real time.
	 */
	public PathFenceBuilder nanoClock(LongSupplier nanoClock) {
		this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
		return this;
	}

	public PathFence build() {
		return new PathFence(this);
	}

	private static long timeoutNanos(String whose, Duration queueTimeout) {
		Objects.requireNonNull(queueTimeout, "queueTimeout");
		if (queueTimeout.isNegative()) {
			throw new IllegalArgumentException(whose + " needs a queue timeout >= 0, was " + queueTimeout);
		}
		try {
			return queueTimeout.toNanos();
		}
		catch (ArithmeticException ex) {
			throw new IllegalArgumentException(whose + " needs a queue timeout of at most "
					+ Duration.ofNanos(Long.MAX_VALUE) + ", was " + queueTimeout);
		}
	}

}
