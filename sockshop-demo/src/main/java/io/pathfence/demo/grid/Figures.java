package io.pathfence.demo.grid;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;

import io.pathfence.demo.run.MixResult;
import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.Plots;
import io.pathfence.demo.service.WorkerPool;

/**
 * The grid's charts: Fig. 12 (maximum throughput per application and mode) and Fig. 14
 * (the path mix: mean response time, the shared service's CPU, and its active workers,
 * per mode over time).
 */
final class Figures {

	/** Columns of an occupancy sample after time and path (see Occupancy). */
	private static final int WORKING = 0;

	private static final int FENCE_ACTIVE = 2;

	private static final int FENCE_PERMITS = 4;

	private Figures() {
	}

	static List<Path> write(GridPlan plan, GridResult result, Path folder) throws IOException {
		System.setProperty("java.awt.headless", "true");
		List<Path> written = new ArrayList<>();
		written.add(Plots.save(figure12(plan, result), folder.resolve("fig12-max-throughput")));
		if (!result.mixes().isEmpty()) {
			written.add(Plots.save(responseTime(result), folder.resolve("fig14-response-time")));
			written.add(Plots.save(cpu(result), folder.resolve("fig14-cpu")));
			written.add(Plots.save(activeWorkers(result), folder.resolve("fig14-active-workers")));
		}
		return written;
	}

	private static CategoryChart figure12(GridPlan plan, GridResult result) {
		CategoryChart chart = new CategoryChartBuilder().width(1000)
			.height(420)
			.title("Fig. 12: maximum throughput, closed loop (the best of " + plan.users() + " users)")
			.xAxisTitle("application")
			.yAxisTitle("requests answered 2xx per second")
			.build();
		chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
		List<String> apps = new ArrayList<>(result.throughput().keySet());
		for (Mode mode : plan.columns()) {
			List<Double> values = new ArrayList<>();
			for (String app : apps) {
				values.add(result.maxThroughput(app, mode));
			}
			chart.addSeries(mode.id(), apps, values).setFillColor(colour(mode));
		}
		return chart;
	}

	private static XYChart responseTime(GridResult result) {
		XYChart chart = Plots.chart(
				"Fig. 14 (i): mean response time per second under the path mix on " + result.mixApp().name(),
				"mean response time [ms] (log)");
		chart.getStyler().setYAxisLogarithmic(true);
		chart.getStyler().setXAxisTitleVisible(true);
		for (MixResult mix : result.mixes()) {
			List<Double> x = new ArrayList<>();
			List<Double> y = new ArrayList<>();
			for (double[] bin : mix.responseTime()) {
				if (bin[2] > 0) {
					x.add(bin[0] + 0.5);
					y.add(Math.max(1, bin[1]));
				}
			}
			if (!x.isEmpty()) {
				Plots.line(chart, mix.mode().id(), x, y, false).setLineColor(colour(mix.mode()));
			}
		}
		return chart;
	}

	private static XYChart cpu(GridResult result) {
		String shared = result.mixApp().sharedService().map((s) -> s.name()).orElse("shared service");
		XYChart chart = Plots.chart("Fig. 14 (ii): CPU of " + shared + " under the path mix",
				"CPU utilization [cores]");
		for (MixResult mix : result.mixes()) {
			List<Double> x = new ArrayList<>();
			List<Double> y = new ArrayList<>();
			for (double[] sample : mix.sharedCpu()) {
				x.add(sample[0]);
				y.add(sample[1]);
			}
			if (!x.isEmpty()) {
				Plots.line(chart, mix.mode().id(), x, y, false).setLineColor(colour(mix.mode()));
			}
		}
		return chart;
	}

	private static XYChart activeWorkers(GridResult result) throws IOException {
		String shared = result.mixApp().sharedService().map((s) -> s.name()).orElse("shared service");
		XYChart chart = Plots.chart("Fig. 14 (iii): active workers of " + shared
				+ " (permits held with PathFence; computing workers event-driven; threads in a handler otherwise);"
				+ " dashed: the permits of the paths' reservations, or the workers SCT allows", "workers");
		for (MixResult mix : result.mixes()) {
			List<double[]> series = activeWorkerSeries(mix);
			List<Double> x = new ArrayList<>();
			List<Double> active = new ArrayList<>();
			List<Double> allowed = new ArrayList<>();
			for (double[] point : series) {
				x.add(point[0]);
				active.add(point[1]);
				allowed.add(point[2]);
			}
			if (!x.isEmpty()) {
				Plots.line(chart, mix.mode().id(), x, active, false).setLineColor(colour(mix.mode()));
				if (allowed.stream().anyMatch((value) -> value >= 0)) {
					Plots.line(chart, mix.mode().id() + " allowed", x, allowed, true).setLineColor(colour(mix.mode()));
				}
			}
		}
		return chart;
	}

	/**
	 * The shared service's active workers over the mix, from its occupancy samples: the
	 * permits held at the fence (with PathFence), the computing workers (event-driven),
	 * or the requests in a handler, each holding a thread (otherwise).
	 */
	static List<double[]> activeWorkerSeries(MixResult mix) throws IOException {
		List<double[]> series = new ArrayList<>();
		if (mix.sharedOccupancy() == null) {
			return series;
		}
		Map<Long, Map<String, int[]>> samples = Plots.readOccupancy(mix.sharedOccupancy());
		for (Map.Entry<Long, Map<String, int[]>> sample : samples.entrySet()) {
			long at = sample.getKey();
			if (at < mix.startEpochMillis() || at > mix.endEpochMillis()) {
				continue;
			}
			int fenced = 0;
			int reserved = 0;
			int working = 0;
			boolean hasFence = false;
			int[] workers = null;
			for (Map.Entry<String, int[]> path : sample.getValue().entrySet()) {
				int[] values = path.getValue();
				if (path.getKey().equals(WorkerPool.WORKERS)) {
					workers = values;
					continue;
				}
				working += Math.max(0, values[WORKING]);
				if (values[FENCE_ACTIVE] >= 0) {
					hasFence = true;
					fenced += values[FENCE_ACTIVE];
					if (!path.getKey().equals("local")) {
						reserved += Math.max(0, values[FENCE_PERMITS]);
					}
				}
			}
			double t = (at - mix.startEpochMillis()) / 1000.0;
			if (workers != null) {
				series.add(new double[] { t, Math.max(0, workers[FENCE_ACTIVE]), workers[FENCE_PERMITS] });
			}
			else if (hasFence) {
				series.add(new double[] { t, fenced, reserved });
			}
			else {
				series.add(new double[] { t, working, -1 });
			}
		}
		return series;
	}

	/** The mean of a column of {@link #activeWorkerSeries}: 1 active, 2 allowed. */
	static double meanWorkers(MixResult mix, int column) {
		try {
			return activeWorkerSeries(mix).stream().mapToDouble((point) -> point[column]).average().orElse(0);
		}
		catch (IOException ex) {
			return Double.NaN;
		}
	}

	/**
	 * The mean response time of the requests sent from second {@code from} to {@code to}.
	 */
	static double meanOver(MixResult mix, int from, int to) {
		double sum = 0;
		double count = 0;
		for (double[] bin : mix.responseTime()) {
			if (bin[0] >= from && bin[0] < to) {
				sum += bin[1] * bin[2];
				count += bin[2];
			}
		}
		return (count > 0) ? sum / count : 0;
	}

	private static Color colour(Mode mode) {
		return Plots.MODE_COLOURS.getOrDefault(mode.id(), Color.DARK_GRAY);
	}

}
