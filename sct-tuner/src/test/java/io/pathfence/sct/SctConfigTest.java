package io.pathfence.sct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SctConfigTest {

	@Test
	void aWindowOfTheMostIntervalsAllowedIsAccepted() {
		SctConfig config = SctConfig.builder()
			.interval(Duration.ofNanos(600_000))
			.window(Duration.ofSeconds(60))
			.build();

		assertThat(config.intervalsPerWindow()).isEqualTo(SctConfig.MAX_INTERVALS_PER_WINDOW).isEqualTo(100_000);
		assertThat(SctConfig.minimumInterval(Duration.ofSeconds(60))).isEqualTo(Duration.ofNanos(600_000));
	}

	@Test
	void oneIntervalMoreThanAllowedIsRefusedNamingTheShortestIntervalThatFits() {
		SctConfig.Builder builder = SctConfig.builder()
			.interval(Duration.ofNanos(599_994))
			.window(Duration.ofSeconds(60));

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessage("window PT1M holds 100001 intervals of PT0.000599994S; at most 100000 are allowed:"
					+ " lengthen the interval to at least PT0.0006S or shorten the window");
	}

	@Test
	void aNanosecondIntervalIsRefusedInsteadOfOverflowing() {
		SctConfig.Builder builder = SctConfig.builder().interval(Duration.ofNanos(1)).window(Duration.ofSeconds(60));

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("holds 60000000000 intervals")
			.withMessageContaining("at most 100000");
	}

	@Test
	void aWindowBeyondWhatNanosecondsCanCountIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> SctConfig.builder().window(Duration.ofDays(365L * 300)))
			.withMessageStartingWith("window is too long");
	}

}
