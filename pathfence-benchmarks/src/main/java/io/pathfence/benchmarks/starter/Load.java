package io.pathfence.benchmarks.starter;

/** The two loads every variant is measured under in every round. */
enum Load {

	/**
	 * Paced, far below what the service sustains: every variant at once, so that they
	 * meet the same state of the machine.
	 */
	MODERATE("moderate"),

	/** wrk's closed loop, one variant at a time, the others stopped. */
	SATURATING("saturating");

	final String id;

	Load(String id) {
		this.id = id;
	}

}
