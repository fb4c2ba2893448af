package io.pathfence.sct.validation;

import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * Ground truth by brute force: throughput measured at each of a set of fixed concurrency
 * levels. The knee is the least swept level whose throughput reaches
 * {@value #KNEE_FRACTION} of the sweep's maximum.
 */
public record Sweep(NavigableMap<Integer, SimulatedServer.Measurement> points) {

	public static final double KNEE_FRACTION = 0.95;

	public Sweep {
		points = Collections.unmodifiableNavigableMap(new TreeMap<>(points));
	}

	/** Measures {@code measure.apply(level)} at every level in {@code levels}. */
	public static Sweep of(int[] levels, IntFunction<SimulatedServer.Measurement> measure) {
		TreeMap<Integer, SimulatedServer.Measurement> points = new TreeMap<>();
		for (int level : levels) {
			points.put(level, measure.apply(level));
		}
		return new Sweep(points);
	}

	public double maxThroughput() {
		return points.values().stream().mapToDouble(SimulatedServer.Measurement::throughput).max().orElse(0);
	}

	public int knee() {
		double max = maxThroughput();
		for (Map.Entry<Integer, SimulatedServer.Measurement> e : points.entrySet()) {
			if (e.getValue().throughput() >= KNEE_FRACTION * max) {
				return e.getKey();
			}
		}
		throw new IllegalStateException("empty sweep");
	}

	/** Levels 1, 2, ... up to {@code top} in steps of {@code max(1, top / count)}. */
	public static int[] levels(int top, int count) {
		int stride = Math.max(1, top / count);
		int n = (top + stride - 1) / stride;
		int[] out = new int[n];
		for (int i = 0; i < n; i++) {
			out[i] = Math.max(1, (i + 1) * stride);
		}
		if (stride > 1) {
			out[0] = 1;
		}
		return out;
	}

	@Override
	public String toString() {
		StringBuilder b = new StringBuilder();
		points.forEach((level, m) -> b.append(String.format(java.util.Locale.ROOT, "%d:%.0f ", level, m.throughput())));
		return b.toString().trim();
	}
}
