package io.pathfence.testsupport.load;

import java.time.Duration;

/**
 * One request: when it was due, from the start of the load, its latency from then, and
 * what became of it.
 */
public record Sample(Duration due, Duration latency, Outcome outcome) {

	/** When its answer came, from the start of the load. */
	public Duration answered() {
		return this.due.plus(this.latency);
	}

}
