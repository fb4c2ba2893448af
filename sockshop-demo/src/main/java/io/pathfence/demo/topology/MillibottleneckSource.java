package io.pathfence.demo.topology;

import java.util.Arrays;

/**
 * What makes a service stall for a fraction of a second: the causes the millibottleneck
 * study names, and the stop that imitates them.
 */
public enum MillibottleneckSource {

	/** The service's process is stopped (SIGSTOP) and continued (SIGCONT). */
	STOP("stop"),

	/**
	 * Co-located CPU interference: a CPU burner pinned to the core the service is pinned
	 * to, at a higher priority, for the stall's length (the study's first cause).
	 */
	INTERFERENCE("interference"),

	/**
	 * The trace's bursts alone: the bursting path's weakest service (its work slots) is
	 * saturated while a burst lasts (the study's second cause); nothing is injected.
	 */
	BURST("burst");

	private final String id;

	MillibottleneckSource(String id) {
		this.id = id;
	}

	public String id() {
		return this.id;
	}

	public static MillibottleneckSource of(String id) {
		return Arrays.stream(values())
			.filter((source) -> source.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown millibottleneck source '" + id + "'; one of "
					+ Arrays.stream(values()).map(MillibottleneckSource::id).toList()));
	}

	@Override
	public String toString() {
		return this.id;
	}

}
