package io.pathfence.demo.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;
import io.pathfence.testsupport.load.Outcome;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The response-time plot draws the 503s apart from the answers, and every mode on the
 * same y range.
 */
class PlotsTests {

	private final Topology shop = Topologies.load("sock-shop");

	private final Settings settings = Settings.defaults("sock-shop", this.shop, Path.of("demo.jar"),
			Path.of("results"));

	@Test
	void rejectionsAreASeriesOfTheirOwnBesideThePathsAnswers() {
		ModeResult fenced = result(Mode.PATHFENCE, List.of(point(1.0, 60, Outcome.OK), point(1.5, 3, Outcome.REJECTED),
				point(2.0, 4, Outcome.REJECTED), point(2.5, 1000, Outcome.OK)));

		XYChart chart = Plots.responseTimes(fenced, this.settings, 1000);

		Map<String, XYSeries> series = chart.getSeriesMap();
		assertThat(series).containsKeys("place-order", "place-order: 503 rejected");
		assertThat(series.get("place-order").getYData()).containsExactly(60, 1000);
		assertThat(series.get("place-order: 503 rejected").getYData()).containsExactly(3, 4);
		assertThat(series.get("place-order: 503 rejected").getMarker())
			.isNotEqualTo(series.get("place-order").getMarker());
	}

	@Test
	void noRejectionsNoRejectionSeries() {
		XYChart chart = Plots.responseTimes(result(Mode.BASELINE, List.of(point(1.0, 60, Outcome.OK))), this.settings,
				60);

		assertThat(chart.getSeriesMap()).containsKey("place-order").doesNotContainKey("place-order: 503 rejected");
	}

	@Test
	void everyModeSharesTheYRangeItIsGiven() {
		XYChart baseline = Plots.responseTimes(result(Mode.BASELINE, List.of(point(1.0, 10000, Outcome.OK))),
				this.settings, 10000);
		XYChart fenced = Plots.responseTimes(result(Mode.PATHFENCE, List.of(point(1.0, 60, Outcome.OK))), this.settings,
				10000);

		assertThat(fenced.getStyler().getYAxisMax()).isEqualTo(10000.0).isEqualTo(baseline.getStyler().getYAxisMax());
		assertThat(fenced.getStyler().getYAxisMin()).isEqualTo(1.0).isEqualTo(baseline.getStyler().getYAxisMin());
	}

	private static PathRecord.Point point(double at, double millis, Outcome outcome) {
		return new PathRecord.Point(at, millis, outcome);
	}

	private static ModeResult result(Mode mode, List<PathRecord.Point> placeOrder) {
		return new ModeResult(mode, Trace.LARGE, Map.of(), Map.of(), null, Map.of("place-order", placeOrder), 20,
				List.of(), 0, 30_000, null, null, 0);
	}

}
