package io.pathfence.demo.whatif;

import java.util.Locale;

/**
 * What pays the what-if's rounds of pauses ({@code --mechanism}), spelt in lower case on
 * the command line and in the results.
 */
enum Mechanism {

	/** Each paused service stopped by its pause agent. */
	AGENT,

	/**
	 * Every paused service behind an Envoy sidecar whose PathFence filter holds its new
	 * requests in rounds ({@link FilterSidecars}).
	 */
	FILTER;

	@Override
	public String toString() {
		return name().toLowerCase(Locale.ROOT);
	}

}
