package io.pathfence.demo.whatif;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A measured run's throughput in each of its consecutive windows, and the one figure the
 * prediction uses: the mean of the windows nearest their median, so that a stretch of the
 * run the machine spent elsewhere does not count for the whole.
 *
 * @param windows each window's requests answered 2xx per second, in time order
 */
record Measurement(List<Double> windows) {

	Measurement {
		windows = List.copyOf(windows);
		NearestMedian.nearest(windows);
	}

	/** The throughput: the mean of the windows nearest their median (req/s). */
	double throughput() {
		return NearestMedian.mean(this.windows);
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
	 * The windows as the run's output shows them, with how many are kept and their plain
	 * mean.
	 */
	String describe() {
		return String.format(Locale.ROOT, "windows %s, %d kept, whole run %.1f",
				this.windows.stream()
					.map((w) -> String.format(Locale.ROOT, "%.1f", w))
					.collect(Collectors.joining(" ")),
				NearestMedian.kept(this.windows.size()), wholeRun());
	}

	/** The windows for a CSV cell: separated by semicolons. */
	String csvCell() {
		return this.windows.stream().map((w) -> String.format(Locale.ROOT, "%.2f", w)).collect(Collectors.joining(";"));
	}

}
