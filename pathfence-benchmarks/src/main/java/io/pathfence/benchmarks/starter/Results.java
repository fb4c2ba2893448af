package io.pathfence.benchmarks.starter;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Every variant's measures under every load, one per round, and what the benchmark
 * concludes from them: medians over the rounds, and medians of the per-round differences
 * to the service without the starter. A difference is taken within a round, where both
 * processes met the same machine, so that the machine's drift between rounds cancels.
 */
final class Results {

	private final Map<Load, Map<Variant, List<Measure>>> measures = new EnumMap<>(Load.class);

	void add(Load load, Variant variant, Measure measure) {
		this.measures.computeIfAbsent(load, (l) -> new EnumMap<>(Variant.class))
			.computeIfAbsent(variant, (v) -> new ArrayList<>())
			.add(measure);
	}

	List<Measure> of(Load load, Variant variant) {
		return this.measures.getOrDefault(load, Map.of()).getOrDefault(variant, List.of());
	}

	/** The median over the rounds of one figure. */
	double median(Load load, Variant variant, ToDoubleFunction<Measure> figure) {
		return Stats.median(of(load, variant).stream().mapToDouble(figure).toArray());
	}

	long errors(Load load, Variant variant) {
		return of(load, variant).stream().mapToLong(Measure::errors).sum();
	}

	/**
	 * Every round's throughput of {@code variant} over the baseline's, in round order.
	 */
	double[] throughputRatios(Load load, Variant variant, Variant baseline) {
		return paired(load, variant, baseline, (v, b) -> v.throughput() / b.throughput());
	}

	/**
	 * The median of the per-round differences of one figure, {@code variant} minus
	 * baseline.
	 */
	double addedMedian(Load load, Variant variant, Variant baseline, ToDoubleFunction<Measure> figure) {
		return Stats
			.median(paired(load, variant, baseline, (v, b) -> figure.applyAsDouble(v) - figure.applyAsDouble(b)));
	}

	private double[] paired(Load load, Variant variant, Variant baseline, Pair pair) {
		List<Measure> v = of(load, variant);
		List<Measure> b = of(load, baseline);
		double[] values = new double[Math.min(v.size(), b.size())];
		for (int i = 0; i < values.length; i++) {
			values[i] = pair.apply(v.get(i), b.get(i));
		}
		return values;
	}

	private interface Pair {

		double apply(Measure variant, Measure baseline);

	}

}
