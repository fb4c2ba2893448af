package io.pathfence.actuate;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;

import io.pathfence.core.PathFenceListener;
import io.pathfence.core.RejectionReason;

/**
 * Records each path's waits, grants, service times and rejections: timers
 * {@code pathfence.path.wait} and {@code pathfence.path.service}, counters
 * {@code pathfence.path.granted} and {@code pathfence.path.rejected} tagged
 * {@code reason}. Meters are looked up once per path, not per event.
 * <p>
 * The wait timer samples the tasks that waited in their path's queue, whether they were
 * granted a permit or timed out; a task granted at once waited no time and is only
 * counted by {@code pathfence.path.granted}. Most tasks of a service within its capacity
 * are granted at once, and a timer sample costs as much as the rest of the fence's work
 * for a request; so the wait timer's maximum and percentiles describe the waits there
 * were, and the share of tasks that waited is its count over the grants and timeouts.
 */
public class PathFenceMetricsListener implements PathFenceListener {

	private final MeterRegistry registry;

	private final Map<String, PathMeters> meters = new ConcurrentHashMap<>();

	public PathFenceMetricsListener(MeterRegistry registry, Collection<String> paths) {
		this.registry = registry;
		paths.forEach(this::metersOf);
	}

	/** A path added at run time has its meters before its first task. */
	@Override
	public void onPathAdded(String path, int permits) {
		metersOf(path);
	}

	@Override
	public void onGranted(String path, long waitNanos) {
		PathMeters meters = metersOf(path);
		meters.granted.increment();
		if (waitNanos > 0) {
			meters.wait.record(waitNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void onReleased(String path, long serviceNanos) {
		metersOf(path).service.record(serviceNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onRejected(String path, RejectionReason reason, long waitNanos) {
		PathMeters meters = metersOf(path);
		meters.rejected.get(reason).increment();
		if (waitNanos > 0) {
			meters.wait.record(waitNanos, TimeUnit.NANOSECONDS);
		}
	}

	private PathMeters metersOf(String path) {
		// Looked up first: computeIfAbsent's lambda, which captures this listener, would
		// be allocated on every event.
		PathMeters known = this.meters.get(path);
		if (known != null) {
			return known;
		}
		return this.meters.computeIfAbsent(path, (name) -> new PathMeters(this.registry, name));
	}

	private static final class PathMeters {

		final Timer wait;

		final Timer service;

		final LongAdder granted = new LongAdder();

		final Map<RejectionReason, Counter> rejected = new EnumMap<>(RejectionReason.class);

		PathMeters(MeterRegistry registry, String path) {
			this.wait = Timer.builder("pathfence.path.wait")
				.description("Time tasks of the path waited in its queue, until granted or timed out")
				.tag("path", path)
				.register(registry);
			FunctionCounter.builder("pathfence.path.granted", this.granted, LongAdder::sum)
				.description("Tasks of the path granted a permit, at once or after a wait")
				.tag("path", path)
				.register(registry);
			// Sampled for every task, so without the registry's pause detector: its
			// estimate of the interval between samples updates state shared by every
			// thread on each sample, which costs more than the rest of the sample under
			// contention. It only adds samples for the time a JVM pause hid, which a
			// permit's holding time, timed inside the process, does not need.
			this.service = Timer.builder("pathfence.path.service")
				.description("Time tasks of the path held their permit")
				.tag("path", path)
				.pauseDetector(new NoPauseDetector())
				.register(registry);
			for (RejectionReason reason : RejectionReason.values()) {
				this.rejected.put(reason,
						Counter.builder("pathfence.path.rejected")
							.description("Tasks of the path turned away")
							.tag("path", path)
							.tag("reason", reason.tag())
							.register(registry));
			}
		}

	}

}
