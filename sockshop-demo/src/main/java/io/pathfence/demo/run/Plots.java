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

import io.pathfence.demo.service.WorkerPool;
import io.pathfence.demo.topology.LoadStream;
import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Topology;
import io.pathfence.testsupport.load.Outcome;

/**
 * The run's PNG plots: each request's response time over time per path, and the requests
 * of each path that the shared service is working on and that wait there, per mode; and
 * the first other path of every mode in one chart, the picture of the whole story.
 */
public final class Plots {

	private static final Color STALL = new Color(200, 0, 0, 45);

	/**
	 * Columns of a sample, as {@link io.pathfence.demo.service.Occupancy} writes them
	 * after time and path.
	 */
	private static final int WORKING = 0;

	private static final int CALLING = 1;

	private static final int FENCE_ACTIVE = 2;

	private static final int FENCE_QUEUED = 3;

	private static final int FENCE_PERMITS = 4;

	/** One colour per path, in the topology's order, the same in every chart. */
	private static final List<Color> PATH_COLOURS = List.of(new Color(30, 90, 200), new Color(0, 150, 60),
			new Color(150, 80, 180), new Color(140, 140, 140), new Color(200, 120, 0));

	/** One colour per mode, the same in every chart. */
	public static final Map<String, Color> MODE_COLOURS = Map.of("baseline", new Color(220, 110, 0), "pathfence",
			new Color(0, 150, 60), "pathfence-sct", new Color(0, 100, 160), "virtual-threads", new Color(120, 60, 200),
			"async", new Color(200, 40, 90), "envoy", new Color(90, 160, 160));

	private Plots() {
	}

	/** Writes every plot into {@code folder} and returns the files written. */
	public static List<Path> write(List<ModeResult> results, Settings settings, Path folder) throws IOException {
		System.setProperty("java.awt.headless", "true");
		Files.createDirectories(folder);
		Topology topology = settings.topology();
		String shared = topology.sharedService().map(Service::name).orElse("shared");
		List<Path> written = new ArrayList<>();
		// One y range for every mode's response times, so that the modes compare at a
		// glance.
		double top = highest(results.stream().flatMap((result) -> result.points().values().stream()).toList());
		for (ModeResult result : results) {
			written
				.add(save(responseTimes(result, settings, top), folder.resolve("response-time-" + result.mode().id())));
			if (result.sharedOccupancy() != null) {
				written.add(
						save(occupancy(result, settings), folder.resolve(shared + "-occupancy-" + result.mode().id())));
			}
		}
		List<String> others = topology.otherSharedPaths();
		if (!others.isEmpty()) {
			written.add(save(otherPathByMode(results, settings, others.get(0)),
					folder.resolve(others.get(0) + "-by-mode")));
		}
		return written;
	}

	/**
	 * Each request's response time per path, up to {@code top} ms (the same for every
	 * mode of a run). Requests answered 503 are drawn apart, as crosses: they are
	 * refusals given at once, and among the answers they would read as the path getting
	 * faster while it is being turned away.
	 */
	static XYChart responseTimes(ModeResult result, Settings settings, double top) {
		XYChart chart = chart(String.format("%s, %s: response time per path (%s trace, %s)", settings.topology().name(),
				result.mode(), result.trace(), Faults.describe(settings)), "response time [ms] (log)");
		chart.getStyler().setYAxisLogarithmic(true);
		chart.getStyler().setYAxisMin(1.0);
		chart.getStyler().setYAxisMax(top);
		shadeStalls(chart, result.stalls(), top, settings);
		for (Map.Entry<String, List<PathRecord.Point>> path : result.points().entrySet()) {
			Color colour = pathColour(settings.topology(), path.getKey());
			List<PathRecord.Point> rejected = path.getValue()
				.stream()
				.filter((point) -> point.outcome() == Outcome.REJECTED)
				.toList();
			List<PathRecord.Point> others = path.getValue()
				.stream()
				.filter((point) -> point.outcome() != Outcome.REJECTED)
				.toList();
			scatter(chart, path.getKey(), others, colour);
			XYSeries refusals = scatter(chart, path.getKey() + ": 503 rejected", rejected, colour);
			if (refusals != null) {
				refusals.setMarker(SeriesMarkers.CROSS);
			}
		}
		return chart;
	}

	static XYChart otherPathByMode(List<ModeResult> results, Settings settings, String path) {
		XYChart chart = chart(String.format("%s response time while %s (%s trace)", path, Faults.describe(settings),
				settings.trace()), "response time [ms] (log)");
		chart.getStyler().setYAxisLogarithmic(true);
		if (!results.isEmpty()) {
			shadeStalls(chart, results.get(0).stalls(),
					highest(results.stream().map((result) -> result.points().get(path)).toList()), settings);
		}
		for (ModeResult result : results) {
			scatter(chart, result.mode().id(), result.points().get(path),
					MODE_COLOURS.getOrDefault(result.mode().id(), Color.DARK_GRAY));
		}
		return chart;
	}

	/**
	 * Per path at the shared service: with PathFence, what its fence records (requests
	 * holding a permit, requests parked in the path's queue); without it, the requests in
	 * a handler and those the gateway has sent that are not in one yet (in Tomcat's
	 * queue, the accept queue or a SYN retransmission), which nothing at the shared
	 * service can count. Event-driven, also its workers computing and the workers SCT
	 * allows.
	 */
	static XYChart occupancy(ModeResult result, Settings settings) throws IOException {
		Topology topology = settings.topology();
		String shared = topology.sharedService().map(Service::name).orElse("shared");
		Map<Long, Map<String, int[]>> gateway = readOccupancy(result.gatewayOccupancy());
		Map<Long, Map<String, int[]>> service = readOccupancy(result.sharedOccupancy());
		boolean fenced = recordsFence(service, topology.paths());
		XYChart chart = chart(result.mode() + (fenced
				? ": requests at " + shared
						+ "'s fence per path (active = holding a permit; queued = parked in the path's queue)"
				: ": requests at " + shared
						+ " per path (active = in a handler; waiting = sent by the gateway, not yet in a handler)"),
				"requests");
		double top = 1;
		Map<String, List<List<Double>>> lines = new LinkedHashMap<>();
		for (String path : pathsThrough(topology, shared)) {
			List<Double> x = new ArrayList<>();
			List<Double> active = new ArrayList<>();
			List<Double> waiting = new ArrayList<>();
			for (Long at : service.keySet()) {
				double t = (at - result.measureStartEpochMillis()) / 1000.0;
				if (at < result.measureStartEpochMillis() || at > result.measureEndEpochMillis()) {
					continue;
				}
				int inHandler = valueAt(service, at, path, WORKING);
				int activeNow = fenced ? valueAt(service, at, path, FENCE_ACTIVE) : inHandler;
				int waitingNow = fenced ? valueAt(service, at, path, FENCE_QUEUED)
						: Math.max(0, valueAt(gateway, at, path, CALLING) - inHandler);
				x.add(t);
				active.add((double) activeNow);
				waiting.add((double) waitingNow);
				top = Math.max(top, Math.max(activeNow, waitingNow));
			}
			if (!x.isEmpty()) {
				lines.put(path, List.of(x, active, waiting));
			}
		}
		List<List<Double>> workers = workers(service, result);
		if (workers != null) {
			top = Math.max(top, workers.get(2).stream().mapToDouble(Double::doubleValue).max().orElse(1));
		}
		shadeStalls(chart, result.stalls(), top, settings);
		lines.forEach((path, xy) -> {
			Color colour = pathColour(topology, path);
			line(chart, "active " + path, xy.get(0), xy.get(1), false).setLineColor(colour);
			line(chart, (fenced ? "queued " : "waiting ") + path, xy.get(0), xy.get(2), true).setLineColor(colour);
		});
		if (workers != null) {
			line(chart, "workers computing", workers.get(0), workers.get(1), false).setLineColor(Color.BLACK);
			line(chart, "workers allowed (SCT)", workers.get(0), workers.get(2), true).setLineColor(Color.BLACK);
		}
		return chart;
	}

	/**
	 * The event-driven worker pool's computing and allowed workers over time, or null.
	 */
	private static List<List<Double>> workers(Map<Long, Map<String, int[]>> samples, ModeResult result) {
		List<Double> x = new ArrayList<>();
		List<Double> computing = new ArrayList<>();
		List<Double> allowed = new ArrayList<>();
		samples.forEach((at, paths) -> {
			int[] values = paths.get(WorkerPool.WORKERS);
			if (values != null && at >= result.measureStartEpochMillis() && at <= result.measureEndEpochMillis()) {
				x.add((at - result.measureStartEpochMillis()) / 1000.0);
				computing.add((double) Math.max(0, values[FENCE_ACTIVE]));
				allowed.add((double) Math.max(0, values[FENCE_PERMITS]));
			}
		});
		return x.isEmpty() ? null : List.of(x, computing, allowed);
	}

	/** The topology's paths that pass the service. */
	static List<String> pathsThrough(Topology topology, String service) {
		return topology.load()
			.stream()
			.filter((stream) -> topology.servicesOn(stream).contains(service))
			.map(LoadStream::path)
			.toList();
	}

	static Color pathColour(Topology topology, String path) {
		int index = topology.paths().indexOf(path);
		return (index >= 0) ? PATH_COLOURS.get(index % PATH_COLOURS.size()) : Color.DARK_GRAY;
	}

	public static XYChart chart(String title, String yTitle) {
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

	/** The points as a scatter series, or null (and no series) when there are none. */
	static XYSeries scatter(XYChart chart, String name, List<PathRecord.Point> points, Color colour) {
		if (points == null || points.isEmpty()) {
			return null;
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
		series.setMarkerColor(colour);
		return series;
	}

	public static XYSeries line(XYChart chart, String name, List<Double> x, List<Double> y, boolean dashed) {
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
	 * Each stall (or burst) as a shaded band from the bottom of the chart up to
	 * {@code top} (the highest value plotted), drawn before the data so that every point
	 * stays visible on it. The fault-free time is everything before the first band.
	 */
	static void shadeStalls(XYChart chart, List<double[]> stalls, double top, Settings settings) {
		String name = switch (settings.millibottleneck().source()) {
			case STOP -> settings.stalledService() + " stopped";
			case INTERFERENCE -> "CPU burner on " + settings.stalledService();
			case BURST -> "burst";
		};
		for (int i = 0; i < stalls.size(); i++) {
			double[] stall = stalls.get(i);
			XYSeries band = chart.addSeries((i == 0) ? name : name + " " + (i + 1), new double[] { stall[0], stall[1] },
					new double[] { top, top });
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

	public static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path withoutExtension)
			throws IOException {
		BitmapEncoder.saveBitmap(chart, withoutExtension.toString(), BitmapEncoder.BitmapFormat.PNG);
		return withoutExtension.resolveSibling(withoutExtension.getFileName() + ".png");
	}

	/**
	 * Samples by time, then by path: {working, calling, fence active, fence queued, fence
	 * permits}; -1 where not recorded.
	 */
	public static Map<Long, Map<String, int[]>> readOccupancy(Path file) throws IOException {
		Map<Long, Map<String, int[]>> samples = new TreeMap<>();
		if (file == null || !Files.exists(file)) {
			return samples;
		}
		for (String line : Files.readAllLines(file)) {
			String[] cells = line.split(",");
			if (cells.length < 4 || !Character.isDigit(cells[0].charAt(0))) {
				continue;
			}
			int[] values = { -1, -1, -1, -1, -1 };
			for (int column = 0; column < values.length && column + 2 < cells.length; column++) {
				values[column] = Integer.parseInt(cells[column + 2]);
			}
			samples.computeIfAbsent(Long.parseLong(cells[0]), (t) -> new TreeMap<>()).put(cells[1], values);
		}
		return samples;
	}

	/**
	 * Whether the fence's own figures were recorded for the paths: the service ran with
	 * PathFence.
	 */
	private static boolean recordsFence(Map<Long, Map<String, int[]>> samples, List<String> paths) {
		return samples.values()
			.stream()
			.flatMap((byPath) -> byPath.entrySet().stream())
			.anyMatch((entry) -> paths.contains(entry.getKey()) && entry.getValue()[FENCE_ACTIVE] >= 0);
	}

	/**
	 * The latest sample at or before {@code at} (the two services sample independently);
	 * 0 when none.
	 */
	static int valueAt(Map<Long, Map<String, int[]>> samples, long at, String path, int column) {
		Map.Entry<Long, Map<String, int[]>> entry = ((TreeMap<Long, Map<String, int[]>>) samples).floorEntry(at);
		if (entry == null) {
			return 0;
		}
		int[] values = entry.getValue().get(path);
		return (values != null) ? Math.max(0, values[column]) : 0;
	}

}
