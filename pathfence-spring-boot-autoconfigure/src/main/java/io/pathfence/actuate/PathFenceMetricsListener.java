package io.pathfence.actuate;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.pathfence.core.PathFenceListener;
import io.pathfence.core.RejectionReason;

/**
 * Records each path's waits, service times and rejections: timers
 * {@code pathfence.path.wait} and {@code pathfence.path.service}, counter
 * {@code pathfence.path.rejected} tagged {@code reason}. Meters are looked up once per
 * path, not per event.
 */
public class PathFenceMetricsListener implements PathFenceListener {

	private final MeterRegistry registry;

	private final Map<String, PathMeters> meters = new ConcurrentHashMap<>();

	public PathFenceMetricsListener(MeterRegistry registry, Collection<String> paths) {
		this.registry = registry;
		paths.forEach(this::metersOf);
	}

	@Override
	public void onGranted(String path, long waitNanos) {
		metersOf(path).wait.record(waitNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onReleased(String path, long serviceNanos) {
		metersOf(path).service.record(serviceNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onRejected(String path, RejectionReason reason, long waitNanos) {
		metersOf(path).rejected.get(reason).increment();
	}

	private PathMeters metersOf(String path) {
		return this.meters.computeIfAbsent(path, (name) -> new PathMeters(this.registry, name));
	}

	private static final class PathMeters {

		final Timer wait;

		final Timer service;

		final Map<RejectionReason, Counter> rejected = new EnumMap<>(RejectionReason.class);

		PathMeters(MeterRegistry registry, String path) {
			this.wait = Timer.builder("pathfence.path.wait")
				.description("Time tasks of the path waited for a permit")
				.tag("path", path)
				.register(registry);
			this.service = Timer.builder("pathfence.path.service")
				.description("Time tasks of the path held their permit")
				.tag("path", path)
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
