package io.pathfence.benchmarks.starter;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Prints the benchmark's tables in Markdown, ready for the README: each variant's figures
 * (medians over the rounds), then each variant against the service without the starter
 * (medians of the per-round differences), then the verdicts on the targets.
 */
final class Report {

	/** At most this much of the throughput lost at saturation (issue 16). */
	static final double MAX_LOSS_PERCENT = 3.0;

	/** At most this much of the throughput lost to discovery at saturation (issue 18). */
	static final double MAX_DISCOVERY_LOSS_PERCENT = 2.0;

	/**
	 * At most this much added to the median latency (issue 16), judged at the moderate
	 * load: in a closed loop at saturation the median is connections / throughput, so
	 * there it only restates the throughput loss.
	 */
	static final double MAX_ADDED_MEDIAN_MICROS = 20.0;

	private final PrintStream out;

	private final Results results;

	private final List<Variant> variants;

	private final List<String> loadLabels;

	Report(PrintStream out, Results results, List<Variant> variants, String moderateLabel, String saturatingLabel) {
		this.out = out;
		this.results = results;
		this.variants = variants;
		this.loadLabels = List.of(moderateLabel, saturatingLabel);
	}

	void print() {
		this.out.println();
		this.out.println("Each variant: medians over the rounds.");
		this.out.println();
		this.out.println("| load | variant | throughput/s | p50 (µs) | p99 (µs) | CPU per request (µs) | errors |");
		this.out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
		for (Load load : Load.values()) {
			for (Variant v : this.variants) {
				this.out.println(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.0f | %.1f | %d |", label(load),
						v.label, this.results.median(load, v, Measure::throughput),
						this.results.median(load, v, Measure::p50Micros),
						this.results.median(load, v, Measure::p99Micros),
						this.results.median(load, v, Measure::cpuMicrosPerRequest), this.results.errors(load, v)));
			}
		}
		this.out.println();
		this.out.println("Against the baseline (the service without the starter; for discovery, the same service with "
				+ "discovery off): medians of the per-round differences.");
		this.out.println();
		this.out.println("| load | variant | against | throughput loss | added median (µs) | added p99 (µs) "
				+ "| added CPU per request (µs) |");
		this.out.println("| --- | --- | --- | ---: | ---: | ---: | ---: |");
		for (Load load : Load.values()) {
			for (Variant v : this.variants) {
				if (v == Variant.WITHOUT) {
					continue;
				}
				this.out.println(String.format(Locale.ROOT, "| %s | %s | %s | %.1f %% | %.0f | %.0f | %.1f |",
						label(load), v.label, v.baseline().id, lossPercent(load, v), added(load, v, Measure::p50Micros),
						added(load, v, Measure::p99Micros), added(load, v, Measure::cpuMicrosPerRequest)));
			}
		}
		this.out.println();
		for (Load load : Load.values()) {
			for (Variant v : this.variants) {
				if (v != Variant.WITHOUT) {
					this.out.println(label(load) + ", " + v.label + ": rounds' throughput ratios, sorted: "
							+ sorted(this.results.throughputRatios(load, v, v.baseline())));
				}
			}
		}
		if (this.variants.contains(Variant.STARTER)) {
			printVerdicts();
		}
		for (Variant v : List.of(Variant.OBSERVE, Variant.ENFORCE)) {
			if (this.variants.contains(v)) {
				printDiscoveryVerdicts(v, v.baseline());
			}
		}
		if (this.variants.contains(Variant.ENFORCE) && this.variants.contains(Variant.CONFIGURED)) {
			printDiscoveryVerdicts(Variant.ENFORCE, Variant.CONFIGURED);
		}
	}

	/**
	 * Discovery against the same service with discovery off (issue 18): without the
	 * paths, or with the learned paths configured by hand.
	 */
	private void printDiscoveryVerdicts(Variant v, Variant baseline) {
		double loss = (1 - Stats.median(this.results.throughputRatios(Load.SATURATING, v, baseline))) * 100;
		double addedModerate = this.results.addedMedian(Load.MODERATE, v, baseline, Measure::p50Micros);
		this.out.println(String.format(Locale.ROOT,
				"Target (%s against %s): at most %.0f %% throughput lost at saturation: %.1f %%, %s; at most %.0f µs "
						+ "added to the median at the moderate load: %.0f µs, %s.",
				v.id, baseline.id, MAX_DISCOVERY_LOSS_PERCENT, loss,
				(loss <= MAX_DISCOVERY_LOSS_PERCENT) ? "met" : "NOT met", MAX_ADDED_MEDIAN_MICROS, addedModerate,
				(addedModerate <= MAX_ADDED_MEDIAN_MICROS) ? "met" : "NOT met"));
	}

	private void printVerdicts() {
		double loss = lossPercent(Load.SATURATING, Variant.STARTER);
		double addedModerate = added(Load.MODERATE, Variant.STARTER, Measure::p50Micros);
		double addedSaturating = added(Load.SATURATING, Variant.STARTER, Measure::p50Micros);
		this.out.println();
		this.out
			.println(String.format(Locale.ROOT, "Target: at most %.0f %% throughput lost at saturation: %.1f %%, %s.",
					MAX_LOSS_PERCENT, loss, (loss <= MAX_LOSS_PERCENT) ? "met" : "NOT met"));
		this.out.println(String.format(Locale.ROOT,
				"Target: at most %.0f µs added to the median at the moderate load: %.0f µs, %s"
						+ " (at saturation %.0f µs, which follows the throughput lost).",
				MAX_ADDED_MEDIAN_MICROS, addedModerate, (addedModerate <= MAX_ADDED_MEDIAN_MICROS) ? "met" : "NOT met",
				addedSaturating));
	}

	private double lossPercent(Load load, Variant v) {
		return (1 - Stats.median(this.results.throughputRatios(load, v, v.baseline()))) * 100;
	}

	private double added(Load load, Variant v, java.util.function.ToDoubleFunction<Measure> figure) {
		return this.results.addedMedian(load, v, v.baseline(), figure);
	}

	private String label(Load load) {
		return this.loadLabels.get(load.ordinal());
	}

	private static String sorted(double[] values) {
		return Arrays.stream(values)
			.sorted()
			.mapToObj((r) -> String.format(Locale.ROOT, "%.3f", r))
			.collect(Collectors.joining(" "));
	}

}
