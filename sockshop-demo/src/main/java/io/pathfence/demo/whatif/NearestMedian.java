package io.pathfence.demo.whatif;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One figure from several measurements of the same thing that a bad stretch cannot drag
 * far: the mean of the majority nearest their median, as Slowpoke keeps the three of five
 * runs nearest the median. The majority is {@code n / 2 + 1} of {@code n} (three of five,
 * two of three, one of one); the values left out are the farthest from the median, either
 * way, so one value off by any amount moves the figure by at most the spread of the
 * others.
 */
final class NearestMedian {

	private NearestMedian() {
	}

	/**
	 * How many of {@code n} values the figure keeps.
	 * @param n the values, at least one
	 * @return {@code n / 2 + 1}
	 */
	static int kept(int n) {
		if (n < 1) {
			throw new IllegalArgumentException("no values to keep any of");
		}
		return n / 2 + 1;
	}

	/**
	 * The mean of the {@link #kept} values nearest the median.
	 * @param values finite, at least one
	 * @return their figure
	 */
	static double mean(List<Double> values) {
		return nearest(values).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
	}

	/**
	 * The values the figure keeps, in ascending order.
	 * @param values finite, at least one
	 * @return the {@link #kept} values nearest the median
	 */
	static List<Double> nearest(List<Double> values) {
		if (values.isEmpty()) {
			throw new IllegalArgumentException("no values to take a median of");
		}
		for (double value : values) {
			if (!Double.isFinite(value)) {
				throw new IllegalArgumentException("a measurement must be a finite number, was " + value);
			}
		}
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(Comparator.naturalOrder());
		int n = sorted.size();
		double median = (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
		// The values nearest the median are a run of the sorted ones: slide a run of the
		// kept length and take the first whose farthest member is nearest.
		int keep = kept(n);
		int best = 0;
		double bestReach = Double.POSITIVE_INFINITY;
		for (int from = 0; from + keep <= n; from++) {
			double reach = Math.max(median - sorted.get(from), sorted.get(from + keep - 1) - median);
			if (reach < bestReach) {
				bestReach = reach;
				best = from;
			}
		}
		return List.copyOf(sorted.subList(best, best + keep));
	}

}
