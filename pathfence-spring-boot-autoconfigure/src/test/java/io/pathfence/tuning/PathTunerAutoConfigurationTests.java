package io.pathfence.tuning;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.pathfence.autoconfigure.PathFenceAutoConfiguration;
import io.pathfence.core.InvalidPathFenceConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;

/** How {@code pathfence.tuning.interval} and {@code .window} are bounded at startup. */
class PathTunerAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(PathFenceAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=4",
				"pathfence.tuning.enabled=true");

	@Test
	void whenTheWindowHoldsTooManyIntervalsThenStartupFailsNamingTheIntervalAndWhatIsAllowed() {
		this.contextRunner.withPropertyValues("pathfence.tuning.interval=1ns", "pathfence.tuning.window=60s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidPathFenceConfigurationException.class)
				.hasMessage("Invalid value 'PT0.000000001S' for pathfence.tuning.interval: expected at least PT0.0006S,"
						+ " so that pathfence.tuning.window (PT1M) holds at most 100000 intervals; or a shorter"
						+ " pathfence.tuning.window"));
	}

	@Test
	void whenTheWindowHoldsTheMostIntervalsAllowedThenTheTunerStarts() {
		this.contextRunner.withPropertyValues("pathfence.tuning.interval=600us", "pathfence.tuning.window=60s")
			.run((context) -> assertThat(context.getBean(PathTuner.class).getConfig().intervalsPerWindow())
				.isEqualTo(100_000));
	}

	@Test
	void whenTheWindowIsLongerThanNanosecondsCanCountThenStartupFailsNamingTheWindow() {
		this.contextRunner.withPropertyValues("pathfence.tuning.interval=1d", "pathfence.tuning.window=109500d")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidPathFenceConfigurationException.class)
				.hasMessageContaining("for pathfence.tuning.window: expected at most"));
	}

}
