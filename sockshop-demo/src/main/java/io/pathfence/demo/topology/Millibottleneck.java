package io.pathfence.demo.topology;

import java.time.Duration;

/**
 * Where and when the application's millibottlenecks happen during the faulted time.
 *
 * @param source what causes them
 * @param service the service that stalls (for {@link MillibottleneckSource#BURST}, the
 * bursting path's weakest service)
 * @param length how long each stall lasts
 * @param period how often one begins
 * @param offset when the first begins after the faulted time began (inside a burst)
 */
public record Millibottleneck(MillibottleneckSource source, String service, Duration length, Duration period,
		Duration offset) {

	/** The same millibottleneck with another source. */
	public Millibottleneck withSource(MillibottleneckSource other) {
		return new Millibottleneck(other, this.service, this.length, this.period, this.offset);
	}

}
