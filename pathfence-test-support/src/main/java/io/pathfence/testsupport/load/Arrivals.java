package io.pathfence.testsupport.load;

import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;

/**
 * When a stream's requests are due: at a fixed rate, or as a Poisson process whose rate
 * may vary with time. A stream yields candidate times at gaps from {@link #gapNanos}, and
 * sends a candidate when {@link #keep} says so.
 */
public interface Arrivals {

	/** Whether the stream sends anything at all. */
	boolean active();

	/** Nanoseconds from the start to the first candidate. */
	long firstNanos(SplittableRandom random);

	/** Nanoseconds from one candidate to the next. */
	long gapNanos(SplittableRandom random);

	/** Whether the candidate at {@code atSeconds} since the start is sent. */
	boolean keep(SplittableRandom random, double atSeconds);

	/**
	 * One request every {@code 1 / perSecond} seconds, the first at the start: a fixed
	 * number of requests in a given time, whatever the seed.
	 */
	static Arrivals fixed(double perSecond) {
		long gap = (perSecond > 0) ? Math.round(1e9 / perSecond) : Long.MAX_VALUE;
		return new Arrivals() {

			@Override
			public boolean active() {
				return perSecond > 0;
			}

			@Override
			public long firstNanos(SplittableRandom random) {
				return 0;
			}

			@Override
			public long gapNanos(SplittableRandom random) {
				return gap;
			}

			@Override
			public boolean keep(SplittableRandom random, double atSeconds) {
				return true;
			}

		};
	}

	/**
	 * A Poisson process of {@code rate} requests per second, a function of seconds since
	 * the start, made by thinning one of {@code maxRate}: a candidate of the max-rate
	 * process is kept with probability {@code rate(t) / maxRate}. {@code rate} must never
	 * exceed {@code maxRate}.
	 */
	static Arrivals poisson(DoubleUnaryOperator rate, double maxRate) {
		return new Arrivals() {

			@Override
			public boolean active() {
				return maxRate > 0;
			}

			@Override
			public long firstNanos(SplittableRandom random) {
				return gapNanos(random);
			}

			@Override
			public long gapNanos(SplittableRandom random) {
				return (long) (-Math.log(1 - random.nextDouble()) / maxRate * 1e9);
			}

			@Override
			public boolean keep(SplittableRandom random, double atSeconds) {
				return random.nextDouble() * maxRate < rate.applyAsDouble(atSeconds);
			}

		};
	}

}
