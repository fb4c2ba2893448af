package io.pathfence.sct.cli;

import io.pathfence.sct.Sample;
import io.pathfence.sct.SctResult;
import java.awt.BasicStroke;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The SCT scatter of one path: throughput (left axis) and response time (right axis)
 * against concurrency.
 */
final class ScatterPlot {

	private ScatterPlot() {
	}

	/** Writes {@code base.png} and {@code base.svg}. */
	static void write(String path, List<Sample> samples, SctResult result, Path base) throws IOException {
		XYChart chart = new XYChartBuilder().width(960)
			.height(600)
			.title("SCT " + path + ": " + result.verdict())
			.xAxisTitle("concurrency Q_i (time-averaged, per interval)")
			.yAxisTitle("throughput TP_i (req/s)")
			.build();
		chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
		chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
		chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
		chart.getStyler().setMarkerSize(4);
		chart.setYAxisGroupTitle(0, "throughput TP_i (req/s)");
		chart.setYAxisGroupTitle(1, "response time RT_i (ms)");

		int n = samples.size();
		double[] q = new double[n];
		double[] tp = new double[n];
		double[] rt = new double[n];
		double maxTp = 1;
		for (int i = 0; i < n; i++) {
			Sample s = samples.get(i);
			q[i] = s.concurrency();
			tp[i] = s.throughput();
			rt[i] = s.responseTimeMillis();
			maxTp = Math.max(maxTp, tp[i]);
		}
		if (n == 0) {
			q = new double[] { 0 };
			tp = new double[] { 0 };
			rt = new double[] { 0 };
		}
		chart.addSeries("throughput", q, tp).setMarker(SeriesMarkers.CIRCLE);
		XYSeries response = chart.addSeries("response time", q, rt);
		response.setMarker(SeriesMarkers.DIAMOND);
		response.setYAxisGroup(1);

		if (result.qLower().isPresent()) {
			boundary(chart, "Q_lower = " + result.qLower().getAsInt(), result.qLower().getAsInt(), maxTp);
		}
		if (result.qUpper().isPresent() && !result.qUpper().equals(result.qLower())) {
			boundary(chart, "Q_upper = " + result.qUpper().getAsInt(), result.qUpper().getAsInt(), maxTp);
		}
		String file = base.toString();
		BitmapEncoder.saveBitmap(chart, file, BitmapEncoder.BitmapFormat.PNG);
		VectorGraphicsEncoder.saveVectorGraphic(chart, file, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
	}

	private static void boundary(XYChart chart, String name, int level, double height) {
		XYSeries line = chart.addSeries(name, new double[] { level, level }, new double[] { 0, height });
		line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
		line.setMarker(SeriesMarkers.NONE);
		line.setLineStyle(
				new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] { 6f, 4f }, 0f));
	}

}
