package io.pathfence.demo.run;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
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
 * The run's PNG plots: each request's response time over time per path, and the requests
 * of each path that orders is working on and that wait at orders, per mode; and the
 * order-history path of every mode in one chart, the picture of the whole story.
 */
public final class Plots {

	private static final List<String> ORDERS_PATHS = List.of(Paths.PLACE_ORDER, Paths.ORDER_HISTORY, Paths.LOCAL);

	private static final Color STALL = new Color(200, 0, 0, 45);

	/**
	 * Columns of a sample, as {@link io.pathfence.demo.service.Occupancy} writes them
	 * after time and path.
	 */
	private static final int WORKING = 0;

	private static final int CALLING = 1;

	private static final int FENCE_ACTIVE = 2;

	private static final int FENCE_QUEUED = 3;

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
				written
					.add(save(occupancy(result, settings), folder.resolve("orders-occupancy-" + result.mode().id())));
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
		shadeStalls(chart, result.stalls(), highest(result.points().values()));
		for (Map.Entry<String, List<PathRecord.Point>> path : result.points().entrySet()) {
			scatter(chart, path.getKey(), path.getValue());
		}
		return chart;
	}

	static XYChart otherPathByMode(List<ModeResult> results, Settings settings) {
		XYChart chart = chart(String.format("order-history response time while %s stalls on place-order (%s trace)",
				settings.stalledService(), settings.trace()), "response time [ms] (log)");
		chart.getStyler().setYAxisLogarithmic(true);
		if (!results.isEmpty()) {
			shadeStalls(chart, results.get(0).stalls(),
					highest(results.stream().map((result) -> result.points().get(Paths.ORDER_HISTORY)).toList()));
		}
		for (ModeResult result : results) {
			scatter(chart, result.mode().id(), result.points().get(Paths.ORDER_HISTORY));
		}
		return chart;
	}

	/**
	 * Per path at orders: with PathFence, what its fence records (requests holding a
	 * permit, requests parked in the path's queue); without it, the requests in a handler
	 * and those the front-end has sent that are not in one yet (in Tomcat's queue, the
	 * accept queue or a SYN retransmission), which nothing at orders can count.
	 */
	static XYChart occupancy(ModeResult result, Settings settings) throws IOException {
		Map<Long, Map<String, int[]>> frontEnd = readOccupancy(result.frontEndOccupancy());
		Map<Long, Map<String, int[]>> orders = readOccupancy(result.ordersOccupancy());
		boolean fenced = recordsFence(orders);
		XYChart chart = chart(result.mode() + (fenced
				? ": requests at orders' fence per path (active = holding a permit; queued = parked in the path's queue)"
				: ": requests at orders per path (active = in a handler; waiting = sent by front-end, not yet in a handler)"),
				"requests");
		double top = 1;
		double measuredSeconds = result.faultFreeSeconds() + settings.faulted().toNanos() / 1e9;
		Map<String, List<List<Double>>> lines = new LinkedHashMap<>();
		for (String path : ORDERS_PATHS) {
			List<Double> x = new ArrayList<>();
			List<Double> active = new ArrayList<>();
			List<Double> waiting = new ArrayList<>();
			for (Long at : orders.keySet()) {
				double t = (at - result.measureStartEpochMillis()) / 1000.0;
				if (t < 0 || t > measuredSeconds) {
					continue;
				}
				int inHandler = valueAt(orders, at, path, WORKING);
				int activeNow = fenced ? valueAt(orders, at, path, FENCE_ACTIVE) : inHandler;
				int waitingNow = fenced ? valueAt(orders, at, path, FENCE_QUEUED)
						: Math.max(0, valueAt(frontEnd, at, path, CALLING) - inHandler);
				x.add(t);
				active.add((double) activeNow);
				waiting.add((double) waitingNow);
				top = Math.max(top, Math.max(activeNow, waitingNow));
			}
			if (!x.isEmpty()) {
				lines.put(path, List.of(x, active, waiting));
			}
		}
		shadeStalls(chart, result.stalls(), top);
		lines.forEach((path, xy) -> {
			line(chart, "active " + path, xy.get(0), xy.get(1), false).setLineColor(COLOURS.get(path));
			line(chart, (fenced ? "queued " : "waiting ") + path, xy.get(0), xy.get(2), true)
				.setLineColor(COLOURS.get(path));
		});
		return chart;
	}

	private static XYChart chart(String title, String yTitle) {
		XYChart chart = new XYChartBuilder().width(1100)
			.height(420)
			.title(title)
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
			series.setLineStyle(
					new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] { 4, 3 }, 0));
		}
		return series;
	}

	/**
	 * Each stall as a shaded band from the bottom of the chart up to {@code top} (the
	 * highest value plotted), drawn before the data so that every point stays visible on
	 * it. The fault-free time is everything before the first band.
	 */
	private static void shadeStalls(XYChart chart, List<double[]> stalls, double top) {
		for (int i = 0; i < stalls.size(); i++) {
			double[] stall = stalls.get(i);
			XYSeries band = chart.addSeries((i == 0) ? "service stopped" : "service stopped " + (i + 1),
					new double[] { stall[0], stall[1] }, new double[] { top, top });
			band.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Area);
			band.setMarker(SeriesMarkers.NONE);
			band.setFillColor(STALL);
			band.setLineColor(STALL);
			band.setShowInLegend(i == 0);
		}
	}

	/**
	 * The longest response time among the points, at least 1 ms (the charts' log scale
	 * starts there).
	 */
	private static double highest(Collection<List<PathRecord.Point>> paths) {
		double highest = 1;
		for (List<PathRecord.Point> points : paths) {
			if (points != null) {
				for (PathRecord.Point point : points) {
					highest = Math.max(highest, point.responseMillis());
				}
			}
		}
		return highest;
	}

	private static Path save(XYChart chart, Path withoutExtension) throws IOException {
		BitmapEncoder.saveBitmap(chart, withoutExtension.toString(), BitmapEncoder.BitmapFormat.PNG);
		return withoutExtension.resolveSibling(withoutExtension.getFileName() + ".png");
	}

	/**
	 * Samples by time, then by path: {working, calling, fence active, fence queued}; -1
	 * where not recorded.
	 */
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
			int[] values = { -1, -1, -1, -1 };
			for (int column = 0; column < values.length && column + 2 < cells.length; column++) {
				values[column] = Integer.parseInt(cells[column + 2]);
			}
			samples.computeIfAbsent(Long.parseLong(cells[0]), (t) -> new TreeMap<>()).put(cells[1], values);
		}
		return samples;
	}

	/** Whether the fence's own figures were recorded: the service ran with PathFence. */
	private static boolean recordsFence(Map<Long, Map<String, int[]>> samples) {
		return samples.values()
			.stream()
			.flatMap((paths) -> paths.values().stream())
			.anyMatch((values) -> values[FENCE_ACTIVE] >= 0);
	}

	/**
	 * The latest sample at or before {@code at} (the two services sample independently);
	 * 0 when none.
	 */
	private static int valueAt(Map<Long, Map<String, int[]>> samples, long at, String path, int column) {
		Map.Entry<Long, Map<String, int[]>> entry = ((TreeMap<Long, Map<String, int[]>>) samples).floorEntry(at);
		if (entry == null) {
			return 0;
		}
		int[] values = entry.getValue().get(path);
		return (values != null) ? Math.max(0, values[column]) : 0;
	}

}
