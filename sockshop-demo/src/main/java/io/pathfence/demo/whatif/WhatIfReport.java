package io.pathfence.demo.whatif;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

import io.pathfence.demo.run.Plots;
import io.pathfence.whatif.Accuracy;

/**
 * A what-if run's table, its CSV and its plot: predicted against ground truth, with the
 * baseline.
 */
final class WhatIfReport {

	private WhatIfReport() {
	}

	static String table(WhatIfResult result) {
		boolean truth = hasTruth(result);
		StringBuilder table = new StringBuilder();
		// Each measured figure with the range of its run's windows, so that the spread
		// the
		// figure was taken from shows.
		table.append("| reduction | rep | predicted req/s | with pauses req/s [windows] |");
		table.append(truth ? " ground truth req/s [windows] | error |\n" : "\n");
		table.append("| ---: | ---: | ---: | ---: |").append(truth ? " ---: | ---: |\n" : "\n");
		for (WhatIfResult.Row row : result.rows()) {
			table.append(String.format(Locale.ROOT, "| %s | %d | %s | %s |", WhatIfRun.percent(row.reduction()),
					row.repetition(), number(row.predicted()), withRange(row.withPauses())));
			if (truth) {
				table.append(String.format(Locale.ROOT, " %s | %s |", withRange(row.truth()),
						Double.isNaN(row.error()) ? "-" : String.format(Locale.ROOT, "%+.1f %%", row.error() * 100)));
			}
			table.append('\n');
		}
		return table.toString();
	}

	/** The baselines and, with ground truth, the accuracy, in a line each. */
	static List<String> summary(WhatIfResult result) {
		List<String> lines = new ArrayList<>();
		StringBuilder baselines = new StringBuilder("baseline (no pauses, " + result.target() + " as it is):");
		result.baselines()
			.forEach((repetition, run) -> baselines
				.append(String.format(Locale.ROOT, " %s req/s (rep %d)", withRange(run), repetition)));
		lines.add(baselines.toString());
		if (!result.pausesOfZero().isEmpty()) {
			StringBuilder zero = new StringBuilder("pauses of 0 (the mechanism's own cost), against the baseline:");
			result.pausesOfZero()
				.forEach((repetition, run) -> zero.append(String.format(Locale.ROOT, " %s req/s %+.1f %% (rep %d)",
						withRange(run), (run.throughput() / result.baseline(repetition) - 1) * 100, repetition)));
			lines.add(zero.toString());
		}
		List<Accuracy.Comparison> comparisons = comparisons(result);
		if (!comparisons.isEmpty()) {
			Accuracy accuracy = Accuracy.of(comparisons);
			lines.add(String.format(Locale.ROOT,
					"accuracy over %d predictions: RMSE %.1f %%, worst %+.1f %%, mean %+.1f %%", accuracy.count(),
					accuracy.rmse() * 100, accuracy.worstError() * 100, accuracy.meanError() * 100));
		}
		return lines;
	}

	static Path csv(WhatIfResult result, Path folder) throws IOException {
		StringBuilder csv = new StringBuilder(
				"target,reduction,repetition,batch_calls,round_pause_ms,baseline_rps,with_pauses_rps,predicted_rps,"
						+ "ground_truth_rps,error,baseline_windows_rps,with_pauses_windows_rps,ground_truth_windows_rps\n");
		// The pauses of 0 are a row of reduction 0 whose ground truth is the baseline.
		result.pausesOfZero().forEach((repetition, run) -> {
			double throughput = run.throughput();
			double baseline = result.baseline(repetition);
			Measurement baselineRun = result.baselines().get(repetition);
			csv.append(String.format(Locale.ROOT, "%s,0.0000,%d,,0.000,%.2f,%.2f,%.2f,%.2f,%.4f,%s,%s,%s%n",
					result.target(), repetition, baseline, throughput, throughput, baseline, throughput / baseline - 1,
					baselineRun.csvCell(), run.csvCell(), baselineRun.csvCell()));
		});
		for (WhatIfResult.Row row : result.rows()) {
			csv.append(String.format(Locale.ROOT, "%s,%.4f,%d,%d,%.3f,%.2f,%.2f,%s,%s,%s,%s,%s,%s%n", result.target(),
					row.reduction(), row.repetition(), row.batch(), row.roundPauseMillis(),
					result.baseline(row.repetition()), row.withPauses().throughput(), csvNumber(row.predicted()),
					csvNumber(row.truthThroughput()), csvNumber(row.error()),
					result.baselines().get(row.repetition()).csvCell(), row.withPauses().csvCell(),
					(row.truth() != null) ? row.truth().csvCell() : ""));
		}
		Path file = folder.resolve("whatif.csv");
		Files.writeString(file, csv);
		return file;
	}

	/**
	 * Predicted (and ground truth) throughput by reduction, each the mean over
	 * repetitions.
	 */
	static Path plot(WhatIfResult result, Path folder) throws IOException {
		XYChart chart = Plots.chart("What if " + result.target() + " needed less CPU per call?", "throughput [req/s]");
		chart.setXAxisTitle("reduction of " + result.target() + "'s CPU time per call [%]");
		chart.getStyler().setMarkerSize(7);
		Map<Double, double[]> predicted = means(result, WhatIfResult.Row::predicted);
		Map<Double, double[]> truth = means(result, WhatIfResult.Row::truthThroughput);
		List<Double> x = predicted.keySet().stream().map((r) -> r * 100).toList();
		double baseline = result.baselines().values().stream().mapToDouble(Measurement::throughput).average().orElse(0);
		List<Double> span = List.of(0.0, x.isEmpty() ? 100.0 : x.get(x.size() - 1));
		XYSeries base = Plots.line(chart, "baseline (as it is)", span, List.of(baseline, baseline), true);
		base.setLineColor(Color.GRAY);
		series(chart, "predicted", x, mean(predicted), new Color(30, 90, 200));
		if (hasTruth(result)) {
			series(chart, "ground truth", x, mean(truth), new Color(220, 110, 0));
		}
		return Plots.save(chart, folder.resolve("whatif"));
	}

	private static void series(XYChart chart, String name, List<Double> x, List<Double> y, Color colour) {
		XYSeries series = chart.addSeries(name, x, y);
		series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
		series.setMarker(SeriesMarkers.CIRCLE);
		series.setMarkerColor(colour);
		series.setLineColor(colour);
	}

	private static Map<Double, double[]> means(WhatIfResult result,
			java.util.function.ToDoubleFunction<WhatIfResult.Row> value) {
		Map<Double, double[]> sums = new TreeMap<>();
		for (WhatIfResult.Row row : result.rows()) {
			double v = value.applyAsDouble(row);
			double[] sum = sums.computeIfAbsent(row.reduction(), (r) -> new double[2]);
			if (!Double.isNaN(v)) {
				sum[0] += v;
				sum[1]++;
			}
		}
		return sums;
	}

	private static List<Double> mean(Map<Double, double[]> sums) {
		// A reduction with no value at all is drawn at 0 rather than dropped, so the x
		// values stay paired.
		return sums.values().stream().map((sum) -> (sum[1] > 0) ? sum[0] / sum[1] : 0.0).toList();
	}

	private static List<Accuracy.Comparison> comparisons(WhatIfResult result) {
		List<Accuracy.Comparison> comparisons = new ArrayList<>();
		for (WhatIfResult.Row row : result.rows()) {
			double truth = row.truthThroughput();
			if (!Double.isNaN(truth) && row.predicted() > 0 && truth > 0) {
				comparisons.add(new Accuracy.Comparison(row.predicted(), truth));
			}
		}
		return comparisons;
	}

	private static boolean hasTruth(WhatIfResult result) {
		return result.rows().stream().anyMatch((row) -> row.truth() != null);
	}

	/** "120.3 [114.0..122.5]": the figure and the range of the windows it came from. */
	private static String withRange(Measurement run) {
		if (run == null) {
			return "-";
		}
		return String.format(Locale.ROOT, "%.1f [%.1f..%.1f]", run.throughput(), run.lowest(), run.highest());
	}

	private static String number(double value) {
		return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
	}

	private static String csvNumber(double value) {
		return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.4f", value);
	}

}
