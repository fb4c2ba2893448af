package io.pathfence.demo.whatif;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class WindowCounterTests {

	private static final long SECOND = 1_000_000_000L;

	@Test
	void eachAnswerCountsInTheWindowItEndedInAsRequestsPerSecond() {
		WindowCounter counter = new WindowCounter(1000 * SECOND, Duration.ofSeconds(10), 5);
		// 2-second windows: 200, 240, 160, 200 and 220 answers.
		int[] answers = { 200, 240, 160, 200, 220 };
		for (int window = 0; window < answers.length; window++) {
			for (int i = 0; i < answers[window]; i++) {
				counter.count(1000 * SECOND + window * 2 * SECOND + i * (2 * SECOND / answers[window]));
			}
		}

		Measurement run = counter.measurement(true);

		assertThat(run.windows()).containsExactly(100.0, 120.0, 80.0, 100.0, 110.0);
		assertThat(run.wholeRun()).isCloseTo(102.0, within(1e-9));
		// 100, 100 and 110 are nearest the median of 100.
		assertThat(run.throughput()).isCloseTo(310.0 / 3, within(1e-9));
		assertThat(run.lowest()).isEqualTo(80.0);
		assertThat(run.highest()).isEqualTo(120.0);
		assertThat(run.csvCell()).isEqualTo("100.00;120.00;80.00;100.00;110.00");
	}

	@Test
	void theWholeRunIsTheFigureUnlessTheWindowsNearestTheMedianAreAskedFor() {
		List<Double> windows = List.of(100.0, 120.0, 80.0, 100.0, 110.0);

		assertThat(new Measurement(windows, false).throughput()).isCloseTo(102.0, within(1e-9));
		assertThat(new Measurement(windows, true).throughput()).isCloseTo(310.0 / 3, within(1e-9));
	}

	@Test
	void answersInTheRampOrAfterTheLastWindowAreNotCounted() {
		WindowCounter counter = new WindowCounter(1000 * SECOND, Duration.ofSeconds(2), 2);
		counter.count(1000 * SECOND - 1);
		counter.count(1000 * SECOND);
		counter.count(1001 * SECOND - 1);
		counter.count(1001 * SECOND);
		counter.count(1002 * SECOND);

		assertThat(counter.measurement(true).windows()).containsExactly(2.0, 1.0);
	}

	@Test
	void oneWindowIsTheWholeRunAsBefore() {
		WindowCounter counter = new WindowCounter(0, Duration.ofSeconds(4), 1);
		for (int i = 0; i < 400; i++) {
			counter.count(i * (4 * SECOND / 400));
		}

		assertThat(counter.measurement(true).throughput()).isEqualTo(100.0);
	}

	@Test
	void aRunWithoutWindowsOrWithOneNotFiniteIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Measurement(List.of(), false))
			.withMessageContaining("at least one window");
		assertThatIllegalArgumentException().isThrownBy(() -> new Measurement(List.of(100.0, Double.NaN), false))
			.withMessageContaining("must be a finite number, was NaN");
	}

	@Test
	void noWindowIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new WindowCounter(0, Duration.ofSeconds(4), 0))
			.withMessageContaining("at least one window");
	}

}
