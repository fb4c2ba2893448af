package io.pathfence.sct;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of the SCT model. Build one with {@link #builder()};
 * {@link #defaults()} is what the CLI and the starter use unless told otherwise.
 */
public final class SctConfig {

	/**
	 * The most intervals one window may hold. The online recorder keeps a window of
	 * intervals in preallocated arrays, one ring per path, and the analysis walks them
	 * every decision: 100 000 is over an hour and a half of 50 ms samples, and 4 MB of
	 * ring per path.
	 */
	public static final int MAX_INTERVALS_PER_WINDOW = 100_000;

	private static final SctConfig DEFAULTS = builder().build();

	private final Duration interval;

	private final Duration window;

	private final int levelWidth;

	private final int minSamplesPerLevel;

	private final int minLevels;

	private final double tolerance;

	private final double confidenceZ;

	private final double responseTimeLimitMillis;

	private final double waitingThreshold;

	private final double exploreFraction;

	private final int exploreMaxStep;

	private SctConfig(Builder b) {
		this.interval = b.interval;
		this.window = b.window;
		this.levelWidth = b.levelWidth;
		this.minSamplesPerLevel = b.minSamplesPerLevel;
		this.minLevels = b.minLevels;
		this.tolerance = b.tolerance;
		this.confidenceZ = b.confidenceZ;
		this.responseTimeLimitMillis = b.responseTimeLimitMillis;
		this.waitingThreshold = b.waitingThreshold;
		this.exploreFraction = b.exploreFraction;
		this.exploreMaxStep = b.exploreMaxStep;
	}

	public static SctConfig defaults() {
		return DEFAULTS;
	}

	public static Builder builder() {
		return new Builder();
	}

	/** A builder preset with this configuration's values. */
	public Builder toBuilder() {
		return new Builder().interval(interval)
			.window(window)
			.levelWidth(levelWidth)
			.minSamplesPerLevel(minSamplesPerLevel)
			.minLevels(minLevels)
			.tolerance(tolerance)
			.confidenceZ(confidenceZ)
			.responseTimeLimitMillis(responseTimeLimitMillis)
			.waitingThreshold(waitingThreshold)
			.exploreFraction(exploreFraction)
			.exploreMaxStep(exploreMaxStep);
	}

	/** Length of one sampling interval. */
	public Duration interval() {
		return interval;
	}

	/** Length of the window of samples one analysis looks at. */
	public Duration window() {
		return window;
	}

	/**
	 * How many intervals one window holds: from 1 to {@link #MAX_INTERVALS_PER_WINDOW}.
	 */
	public int intervalsPerWindow() {
		return (int) window.dividedBy(interval);
	}

	/**
	 * The window divided by {@link #MAX_INTERVALS_PER_WINDOW}, rounded up to the
	 * nanosecond: every interval at least this long is allowed with this window (a round
	 * figure to tell a user, a few nanoseconds above the exact bound).
	 */
	public static Duration minimumInterval(Duration window) {
		long nanos = window.toNanos();
		return Duration.ofNanos(nanos / MAX_INTERVALS_PER_WINDOW + (nanos % MAX_INTERVALS_PER_WINDOW == 0 ? 0 : 1));
	}

	/** Samples are grouped on levels {@code levelWidth * round(Q_i / levelWidth)}. */
	public int levelWidth() {
		return levelWidth;
	}

	/** A level takes part in the decision only with at least this many samples. */
	public int minSamplesPerLevel() {
		return minSamplesPerLevel;
	}

	/**
	 * Below this many qualified levels the verdict is {@link Verdict#INSUFFICIENT_DATA}.
	 */
	public int minLevels() {
		return minLevels;
	}

	/**
	 * A shortfall from the peak smaller than this fraction of the peak never counts as
	 * being below the plateau.
	 */
	public double tolerance() {
		return tolerance;
	}

	/** One-sided z value of the test "significantly below the peak" (1.645: 95 %). */
	public double confidenceZ() {
		return confidenceZ;
	}

	/**
	 * Q_upper stops before the first level whose mean response time exceeds this;
	 * infinite when unset.
	 */
	public double responseTimeLimitMillis() {
		return responseTimeLimitMillis;
	}

	/**
	 * Mean waiting requests at the highest level from which throughput still rising means
	 * "explore".
	 */
	public double waitingThreshold() {
		return waitingThreshold;
	}

	/**
	 * An exploring step is this fraction of the highest observed level (at least 1 and at
	 * most the max step).
	 */
	public double exploreFraction() {
		return exploreFraction;
	}

	/** Upper bound of one exploring step, in permits. */
	public int exploreMaxStep() {
		return exploreMaxStep;
	}

	@Override
	public String toString() {
		return "SctConfig[interval=" + interval + ", window=" + window + ", levelWidth=" + levelWidth
				+ ", minSamplesPerLevel=" + minSamplesPerLevel + ", minLevels=" + minLevels + ", tolerance=" + tolerance
				+ ", confidenceZ=" + confidenceZ + ", responseTimeLimitMillis=" + responseTimeLimitMillis
				+ ", waitingThreshold=" + waitingThreshold + ", exploreFraction=" + exploreFraction
				+ ", exploreMaxStep=" + exploreMaxStep + "]";
	}

	/** Validates each value as it is set; defaults are the field initialisers. */
	public static final class Builder {

		private Duration interval = Duration.ofMillis(50);

		private Duration window = Duration.ofSeconds(60);

		private int levelWidth = 1;

		private int minSamplesPerLevel = 5;

		private int minLevels = 3;

		private double tolerance = 0.03;

		private double confidenceZ = 1.645;

		private double responseTimeLimitMillis = Double.POSITIVE_INFINITY;

		private double waitingThreshold = 0.5;

		private double exploreFraction = 0.25;

		private int exploreMaxStep = 64;

		private Builder() {
		}

		public Builder interval(Duration interval) {
			this.interval = positiveNanos("interval", interval);
			return this;
		}

		public Builder window(Duration window) {
			this.window = positiveNanos("window", window);
			return this;
		}

		public Builder levelWidth(int levelWidth) {
			this.levelWidth = atLeast("levelWidth", levelWidth, 1);
			return this;
		}

		public Builder minSamplesPerLevel(int minSamplesPerLevel) {
			this.minSamplesPerLevel = atLeast("minSamplesPerLevel", minSamplesPerLevel, 1);
			return this;
		}

		public Builder minLevels(int minLevels) {
			this.minLevels = atLeast("minLevels", minLevels, 2);
			return this;
		}

		public Builder tolerance(double tolerance) {
			if (!(tolerance >= 0 && tolerance < 1)) {
				throw new IllegalArgumentException("tolerance must be in [0, 1): " + tolerance);
			}
			this.tolerance = tolerance;
			return this;
		}

		public Builder confidenceZ(double confidenceZ) {
			if (!(confidenceZ >= 0) || Double.isInfinite(confidenceZ)) {
				throw new IllegalArgumentException("confidenceZ must be finite and non-negative: " + confidenceZ);
			}
			this.confidenceZ = confidenceZ;
			return this;
		}

		public Builder responseTimeLimitMillis(double responseTimeLimitMillis) {
			if (!(responseTimeLimitMillis > 0)) {
				throw new IllegalArgumentException(
						"responseTimeLimitMillis must be positive: " + responseTimeLimitMillis);
			}
			this.responseTimeLimitMillis = responseTimeLimitMillis;
			return this;
		}

		public Builder waitingThreshold(double waitingThreshold) {
			if (!(waitingThreshold >= 0) || Double.isInfinite(waitingThreshold)) {
				throw new IllegalArgumentException(
						"waitingThreshold must be finite and non-negative: " + waitingThreshold);
			}
			this.waitingThreshold = waitingThreshold;
			return this;
		}

		public Builder exploreFraction(double exploreFraction) {
			if (!(exploreFraction > 0) || Double.isInfinite(exploreFraction)) {
				throw new IllegalArgumentException("exploreFraction must be positive: " + exploreFraction);
			}
			this.exploreFraction = exploreFraction;
			return this;
		}

		public Builder exploreMaxStep(int exploreMaxStep) {
			this.exploreMaxStep = atLeast("exploreMaxStep", exploreMaxStep, 1);
			return this;
		}

		/**
		 * @throws IllegalArgumentException if the window is shorter than one interval or
		 * holds more than {@link #MAX_INTERVALS_PER_WINDOW} of them
		 */
		public SctConfig build() {
			if (window.compareTo(interval) < 0) {
				throw new IllegalArgumentException("window " + window + " is shorter than interval " + interval);
			}
			long intervals = window.dividedBy(interval);
			if (intervals > MAX_INTERVALS_PER_WINDOW) {
				throw new IllegalArgumentException("window " + window + " holds " + intervals + " intervals of "
						+ interval + "; at most " + MAX_INTERVALS_PER_WINDOW + " are allowed: lengthen the interval"
						+ " to at least " + minimumInterval(window) + " or shorten the window");
			}
			return new SctConfig(this);
		}

		/**
		 * Positive, and short enough that its nanoseconds fit in a long (about 292
		 * years), as the recorder needs.
		 */
		private static Duration positiveNanos(String name, Duration value) {
			Objects.requireNonNull(value, name);
			long nanos;
			try {
				nanos = value.toNanos();
			}
			catch (ArithmeticException e) {
				throw new IllegalArgumentException(name + " is too long: " + value);
			}
			if (nanos <= 0) {
				throw new IllegalArgumentException(name + " must be positive: " + value);
			}
			return value;
		}

		private static int atLeast(String name, int value, int min) {
			if (value < min) {
				throw new IllegalArgumentException(name + " must be at least " + min + ": " + value);
			}
			return value;
		}

	}

}
