package io.pathfence.sct;

/**
 * The few things the model reports about itself, so a host can turn them into meters
 * without this library depending on a metrics framework. Every method has a no-op
 * default; {@link #NONE} ignores everything.
 */
public interface SctMetrics {

	/** Ignores everything. */
	SctMetrics NONE = new SctMetrics() {
	};

	/** Called once per analysis with its result. */
	default void analyzed(SctResult result) {
	}

	/**
	 * Called when a recorder overwrote samples that were not drained in time (its buffer
	 * holds one window).
	 * @param count how many samples were lost in this call
	 */
	default void samplesDropped(int count) {
	}

}
