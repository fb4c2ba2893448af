package io.pathfence.sct;

/**
 * One sampling interval of one path: the tuple (Q_i, TP_i, RT_i) of the SCT model, plus
 * how many requests waited.
 *
 * @param startNanos start of the interval on the recorder's clock (nanoseconds; only
 * differences are meaningful)
 * @param intervalNanos length of the interval in nanoseconds
 * @param concurrency Q_i, the time-averaged number of requests in service during the
 * interval
 * @param throughput TP_i, completions in the interval divided by its length, per second
 * @param responseTimeMillis RT_i, mean response time of the requests that completed in
 * the interval, in milliseconds; 0 when none completed
 * @param waiting time-averaged number of requests that waited for a permit during the
 * interval (0 when unknown)
 */
public record Sample(long startNanos, long intervalNanos, double concurrency, double throughput,
		double responseTimeMillis, double waiting) {

	public Sample {
		if (intervalNanos <= 0) {
			throw new IllegalArgumentException("intervalNanos must be positive: " + intervalNanos);
		}
		requireFiniteNonNegative("concurrency", concurrency);
		requireFiniteNonNegative("throughput", throughput);
		requireFiniteNonNegative("responseTimeMillis", responseTimeMillis);
		requireFiniteNonNegative("waiting", waiting);
	}

	/**
	 * A pre-aggregated sample with no timing information and no waiting, e.g. read from
	 * another tool.
	 */
	public static Sample of(double concurrency, double throughput, double responseTimeMillis) {
		return new Sample(0, 1_000_000_000L, concurrency, throughput, responseTimeMillis, 0);
	}

	private static void requireFiniteNonNegative(String name, double value) {
		if (!(value >= 0) || Double.isInfinite(value)) {
			throw new IllegalArgumentException(name + " must be finite and non-negative: " + value);
		}
	}
}
