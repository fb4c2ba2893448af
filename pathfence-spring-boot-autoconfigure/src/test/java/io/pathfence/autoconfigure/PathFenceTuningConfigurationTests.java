package io.pathfence.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.pathfence.actuate.PathFenceEndpoint;
import io.pathfence.core.InvalidPathFenceConfigurationException;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.TuningSchedule;

import static org.assertj.core.api.Assertions.assertThat;

/** Online tuning, as {@link PathFenceAutoConfiguration} wires it. */
class PathFenceTuningConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PathFenceAutoConfiguration.class,
				PathFenceEndpointAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=4",
				"pathfence.paths.shipping.permits=6");

	@Test
	void whenTuningIsOffThenNoTuner() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(PathTuner.class));
	}

	@Test
	void whenTuningIsOnThenTunerListensToTheFenceAndDecisionsAreReported() {
		this.contextRunner
			.withPropertyValues("pathfence.tuning.enabled=true", "pathfence.tuning.window=1s",
					"management.endpoints.web.exposure.include=pathfence")
			.run((context) -> {
				assertThat(context).hasSingleBean(PathTuner.class).hasSingleBean(TuningSchedule.class);
				assertThat(context.getBean(TuningSchedule.class).isRunning()).isTrue();
				PathTuner tuner = context.getBean(PathTuner.class);
				assertThat(tuner.getConfig().window()).isEqualTo(java.time.Duration.ofSeconds(1));
				tuner.decide();
				PathFenceEndpoint.FenceDescriptor read = context.getBean(PathFenceEndpoint.class).fence();
				assertThat(read.tuning()).containsOnlyKeys("payment", "shipping");
				assertThat(read.tuning().get("payment").verdict()).isEqualTo("INSUFFICIENT_DATA");
				assertThat(read.tuning().get("payment").permitsAfter()).isEqualTo(4);
			});
	}

	@Test
	void whenTuningWindowIsShorterThanTheIntervalThenStartupFailsNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("pathfence.tuning.enabled=true", "pathfence.tuning.interval=2s",
					"pathfence.tuning.window=1s")
			.run((context) -> assertThat(ReportedFailureAnalysis.of(context).getDescription())
				.contains("pathfence.tuning.window"));
	}

	@Test
	void whenTuningMaxPermitsExceedsThePoolThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.tuning.enabled=true", "pathfence.tuning.max-permits=21")
			.run((context) -> assertThat(ReportedFailureAnalysis.of(context).getAction())
				.contains("pathfence.pool-size (20)"));
	}

	@Test
	void whenTheWindowHoldsTooManyIntervalsThenStartupFailsNamingTheIntervalAndWhatIsAllowed() {
		this.contextRunner
			.withPropertyValues("pathfence.tuning.enabled=true", "pathfence.tuning.interval=1ns",
					"pathfence.tuning.window=60s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidPathFenceConfigurationException.class)
				.hasMessage("Invalid value 'PT0.000000001S' for pathfence.tuning.interval: expected at least PT0.0006S,"
						+ " so that pathfence.tuning.window (PT1M) holds at most 100000 intervals; or a shorter"
						+ " pathfence.tuning.window"));
	}

	@Test
	void whenTheWindowHoldsTheMostIntervalsAllowedThenTheTunerStarts() {
		this.contextRunner
			.withPropertyValues("pathfence.tuning.enabled=true", "pathfence.tuning.interval=600us",
					"pathfence.tuning.window=60s")
			.run((context) -> assertThat(context.getBean(PathTuner.class).getConfig().intervalsPerWindow())
				.isEqualTo(100_000));
	}

	@Test
	void whenTheWindowIsLongerThanNanosecondsCanCountThenStartupFailsNamingTheWindow() {
		this.contextRunner
			.withPropertyValues("pathfence.tuning.enabled=true", "pathfence.tuning.interval=1d",
					"pathfence.tuning.window=109500d")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidPathFenceConfigurationException.class)
				.hasMessageContaining("for pathfence.tuning.window: expected at most"));
	}

}
