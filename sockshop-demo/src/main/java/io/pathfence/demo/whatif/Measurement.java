package io.pathfence.demo.whatif;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A measured run's throughput in each of its consecutive windows, and the one figure the
 * prediction uses: the whole run's, or, when asked, the mean of the windows nearest their
 * median, so that a short stretch the machine spent elsewhere does not count for the
 * whole. The whole run's is the default because a window a few response times long varies
 * far more than a run does (the closed loop's mix of paths is drawn at random), so
 * keeping a majority of the windows throws away more than an outlier costs.
 *
 * @param windows each window's requests answered 2xx per second, in time order
 * @param nearestMedian whether the figure is the mean of the windows nearest their median
 */
record Measurement(List<Double> windows, boolean nearestMedian) {

	Measurement {
		windows = List.copyOf(windows);
		if (windows.isEmpty()) {
			throw new IllegalArgumentException("a measured run needs at least one window");
		}
		for (double window : windows) {
			if (!Double.isFinite(window)) {
				throw new IllegalArgumentException("a window's throughput must be a finite number, was " + window);
			}
		}
	}

	/** The throughput (req/s). */
	double throughput() {
		return this.nearestMedian ? NearestMedian.mean(this.windows) : wholeRun();
	}

	/** The mean of every window, as the whole run measured it (req/s). */
	double wholeRun() {
		return this.windows.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
	}

	/** The lowest window (req/s). */
	double lowest() {
		return this.windows.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
	}

	/** The highest window (req/s). */
	double highest() {
		return this.windows.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
	}

	/**
	 * The windows as the run's output shows them, with the whole run's mean and that of
	 * the windows nearest their median.
	 */
	String describe() {
		return String.format(Locale.ROOT, "windows %s; whole run %.1f, %d nearest the median %.1f",
				this.windows.stream()
					.map((w) -> String.format(Locale.ROOT, "%.1f", w))
					.collect(Collectors.joining(" ")),
				wholeRun(), NearestMedian.kept(this.windows.size()), NearestMedian.mean(this.windows));
	}

	/** The windows for a CSV cell: separated by semicolons. */
	String csvCell() {
		return this.windows.stream().map((w) -> String.format(Locale.ROOT, "%.2f", w)).collect(Collectors.joining(";"));
	}

}
