package io.pathfence.benchmarks.starter;

import java.util.Arrays;

final class Stats {

	private Stats() {
	}

	/** The median; of an even count, the mean of the two middle values. */
	static double median(double[] values) {
		if (values.length == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int mid = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	}

}
