package io.pathfence.sct;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConcurrencyAnalyzerTest {

	private final List<SctResult> reported = new ArrayList<>();

	private final ConcurrencyAnalyzer analyzer = Sct.analyzer(SctConfig.defaults(), new SctMetrics() {
		@Override
		public void analyzed(SctResult result) {
			reported.add(result);
		}
	});

	@Test
	void reportsEveryResultToTheMetrics() {
		SctResult result = analyzer.analyze(List.of());

		assertThat(reported).containsExactly(result);
		assertThat(result.reason())
			.isEqualTo("only 0 concurrency level(s) with at least 5 samples each among 0 samples; need 3 levels");
	}

	@Test
	void levelStatsMarkThePlateauAndTheUnqualifiedLevels() {
		List<Sample> window = new ArrayList<>();
		addLevel(window, 1, 100, 5);
		addLevel(window, 2, 200, 5);
		addLevel(window, 3, 200, 5);
		addLevel(window, 4, 150, 5);
		addLevel(window, 7, 900, 2);

		SctResult result = analyzer.analyze(window);

		assertThat(result.levels()).extracting(LevelStats::level).containsExactly(1, 2, 3, 4, 7);
		assertThat(result.levels()).extracting(LevelStats::onPlateau).containsExactly(false, true, true, false, false);
		assertThat(result.levels()).extracting(LevelStats::qualified).containsExactly(true, true, true, true, false);
		assertThat(result.levels().get(1).meanResponseTimeMillis()).isEqualTo(20.0);
		assertThat(result.reason()).isEqualTo("throughput plateau of 200.0/s from level 2 to 3 (peak 200.0/s at 2);"
				+ " Q_upper=3 because throughput falls above it");
	}

	@Test
	void theResultDoesNotDependOnSampleOrder() {
		List<Sample> window = new ArrayList<>();
		addLevel(window, 1, 100, 6);
		addLevel(window, 2, 180, 6);
		addLevel(window, 3, 200, 6);
		addLevel(window, 4, 195, 6);
		List<Sample> reversed = new ArrayList<>(window);
		java.util.Collections.reverse(reversed);

		assertThat(analyzer.analyze(reversed)).isEqualTo(analyzer.analyze(window));
	}

	private static void addLevel(List<Sample> window, int level, double throughput, int count) {
		for (int i = 0; i < count; i++) {
			double wobble = (i % 2 == 0 ? 1 : -1) * (count % 2 == 1 && i == count - 1 ? 0 : 0.01);
			window.add(Sample.of(level + 0.2, throughput * (1 + wobble), 10.0 * level));
		}
	}

}
