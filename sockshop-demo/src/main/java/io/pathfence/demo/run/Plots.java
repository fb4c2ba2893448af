package io.pathfence.demo.run;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

import io.pathfence.demo.service.Paths;

/**
 * The run's PNG plots: each request's response time over time per path, and the requests of each path that
 * orders is working on and that wait at orders, per mode; and the order-history path of every mode in one
 * chart, the picture of the whole story.
 */
public final class Plots {

	private static final List<String> ORDERS_PATHS = List.of(Paths.PLACE_ORDER, Paths.ORDER_HISTORY, Paths.LOCAL);

	private static final Color STALL = new Color(200, 0, 0, 90);

	/** One colour per path, and per mode in the comparison, the same in every chart. */
	private static final Map<String, Color> COLOURS = Map.of(Paths.PLACE_ORDER, new Color(30, 90, 200),
			Paths.ORDER_HISTORY, new Color(0, 150, 60), Paths.LOCAL, new Color(150, 80, 180), "catalogue",
			new Color(140, 140, 140), "baseline", new Color(220, 110, 0), "pathfence", new Color(0, 150, 60),
			"virtual-threads", new Color(120, 60, 200));

	private Plots() {
	}

	/** Writes every plot into {@code folder} and returns the files written. */
	public static List<Path> write(List<ModeResult> results, Settings settings, Path folder) throws IOException {
		System.setProperty("java.awt.headless", "true");
		Files.createDirectories(folder);
		List<Path> written = new ArrayList<>();
		for (ModeResult result : results) {
			written.add(save(responseTimes(result, settings), folder.resolve("response-time-" + result.mode().id())));
			if (result.ordersOccupancy() != null) {
				written.add(save(occupancy(result, settings),
						folder.resolve("orders-occupancy-" + result.mode().id())));
			}
		}
		written.add(save(otherPathByMode(results, settings), folder.resolve("order-history-by-mode")));
		return written;
	}

	static XYChart responseTimes(ModeResult result, Settings settings) {
		XYChart chart = chart(String.format("%s: response time per path (%s trace, %s stopped %d ms every %d s)",
				result.mode(), settings.trace(), settings.stalledService(), settings.stallLength().toMillis(),
				settings.stallPeriod().toSeconds()), "response time [ms] (log)");
		chart.getStyler().setYAxisLogarithmic(true);
		for (Map.Entry<String, List<PathRecord.Point>> path : result.points().entrySet()) {
			scatter(chart, path.getKey(), path.getValue());
		}
		markStalls(chart, result, 1, 10_000);
		return chart;
	}

	static XYChart otherPathByMode(List<ModeResult> results, Settings settings) {
		XYChart chart = chart(String.format("order-history response time while %s stalls on place-order (%s trace)",
				settings.stalledService(), settings.trace()), "response time [ms] (log)");
		chart.getStyler().setYAxisLogarithmic(true);
		for (ModeResult result : results) {
			scatter(chart, result.mode().id(), result.points().get(Paths.ORDER_HISTORY));
		}
		if (!results.isEmpty()) {
			markStalls(chart, results.get(0), 1, 10_000);
		}
		return chart;
	}

	static XYChart occupancy(ModeResult result, Settings settings) throws IOException {
		XYChart chart = chart(result.mode() + ": requests at orders per path (active = in a handler; waiting = sent "
				+ "by front-end, not yet in a handler)", "requests");
		Map<Long, Map<String, int[]>> frontEnd = readOccupancy(result.frontEndOccupancy());
		Map<Long, Map<String, int[]>> orders = readOccupancy(result.ordersOccupancy());
		double top = 1;
		double measuredSeconds = result.faultFreeSeconds() + settings.faulted().toNanos() / 1e9;
		for (String path : ORDERS_PATHS) {
			List<Double> x = new ArrayList<>();
			List<Double> active = new ArrayList<>();
			List<Double> waiting = new ArrayList<>();
			for (Map.Entry<Long, Map<String, int[]>> sample : orders.entrySet()) {
				double t = (sample.getKey() - result.measureStartEpochMillis()) / 1000.0;
				if (t < 0 || t > measuredSeconds) {
					continue;
				}
				int working = valueAt(orders, sample.getKey(), path, 0);
				int calling = valueAt(frontEnd, sample.getKey(), path, 1);
				x.add(t);
				active.add((double) working);
				waiting.add((double) Math.max(0, calling - working));
				top = Math.max(top, Math.max(working, calling - working));
			}
			if (x.isEmpty()) {
				continue;
			}
			line(chart, "active " + path, x, active, false).setLineColor(COLOURS.get(path));
			line(chart, "waiting " + path, x, waiting, true).setLineColor(COLOURS.get(path));
		}
		markStalls(chart, result, 0, top);
		return chart;
	}

	private static XYChart chart(String title, String yTitle) {
		XYChart chart = new XYChartBuilder().width(1100).height(420).title(title)
			.xAxisTitle("time since measuring began [s]")
			.yAxisTitle(yTitle)
			.build();
		chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
		chart.getStyler().setMarkerSize(3);
		chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(13f));
		return chart;
	}

	private static void scatter(XYChart chart, String name, List<PathRecord.Point> points) {
		if (points == null || points.isEmpty()) {
			return;
		}
		double[] x = new double[points.size()];
		double[] y = new double[points.size()];
		for (int i = 0; i < points.size(); i++) {
			x[i] = points.get(i).sentAtSeconds();
			y[i] = Math.max(1, points.get(i).responseMillis());
		}
		XYSeries series = chart.addSeries(name, x, y);
		series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
		series.setMarker(SeriesMarkers.CIRCLE);
		series.setMarkerColor(COLOURS.getOrDefault(name, Color.DARK_GRAY));
	}

	private static XYSeries line(XYChart chart, String name, List<Double> x, List<Double> y, boolean dashed) {
		XYSeries series = chart.addSeries(name, x, y);
		series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
		series.setMarker(SeriesMarkers.NONE);
		if (dashed) {
			series.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10,
					new float[] { 4, 3 }, 0));
		}
		return series;
	}

	/** Each stall as a bar at the top of the chart (the fault-free time is everything before the first). */
	private static void markStalls(XYChart chart, ModeResult result, double bottom, double top) {
		if (result.stalls().isEmpty()) {
			return;
		}
		List<Double> x = new ArrayList<>();
		List<Double> y = new ArrayList<>();
		for (double[] stall : result.stalls()) {
			x.add(stall[0]);
			y.add(top);
			x.add(stall[1]);
			y.add(top);
			x.add(stall[1]);
			y.add(null);
		}
		XYSeries series = chart.addSeries("service stopped", x, y);
		series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
		series.setMarker(SeriesMarkers.NONE);
		series.setLineColor(STALL);
		series.setLineStyle(new BasicStroke(8f));
	}

	private static Path save(XYChart chart, Path withoutExtension) throws IOException {
		BitmapEncoder.saveBitmap(chart, withoutExtension.toString(), BitmapEncoder.BitmapFormat.PNG);
		return withoutExtension.resolveSibling(withoutExtension.getFileName() + ".png");
	}

	/** Samples by time, then by path: {working, calling}. */
	private static Map<Long, Map<String, int[]>> readOccupancy(Path file) throws IOException {
		Map<Long, Map<String, int[]>> samples = new TreeMap<>();
		if (file == null || !Files.exists(file)) {
			return samples;
		}
		for (String line : Files.readAllLines(file)) {
			String[] cells = line.split(",");
			if (cells.length < 4 || !Character.isDigit(cells[0].charAt(0))) {
				continue;
			}
			samples.computeIfAbsent(Long.parseLong(cells[0]), (t) -> new TreeMap<>())
				.put(cells[1], new int[] { Integer.parseInt(cells[2]), Integer.parseInt(cells[3]) });
		}
		return samples;
	}

	/** The latest sample at or before {@code at} (the two services sample independently). */
	private static int valueAt(Map<Long, Map<String, int[]>> samples, long at, String path, int column) {
		Map.Entry<Long, Map<String, int[]>> entry = ((TreeMap<Long, Map<String, int[]>>) samples).floorEntry(at);
		if (entry == null) {
			return 0;
		}
		int[] values = entry.getValue().get(path);
		return (values != null) ? values[column] : 0;
	}

}
