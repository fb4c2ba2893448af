package io.pathfence.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;

import io.pathfence.learning.DiscoveryObservationHandler;
import io.pathfence.learning.LearnedPaths;
import io.pathfence.tuning.PathTuner;

import static org.assertj.core.api.Assertions.assertThat;

/** Discovery, as {@link PathFenceDiscoveryAutoConfiguration} wires it. */
class PathFenceDiscoveryAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PathFenceAutoConfiguration.class,
				PathFenceDiscoveryAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20");

	@Test
	void whenDiscoveryIsNotSetThenNothingIsLearnedOrTuned() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(LearnedPaths.class)
				.doesNotHaveBean(DiscoveryObservationHandler.class)
				.doesNotHaveBean(TaskDecorator.class)
				.doesNotHaveBean(PathTuner.class);
		});
	}

	@Test
	void whenObservingThenTheHandlerLearnsAndNothingIsEnforcedOrTuned() {
		this.contextRunner.withPropertyValues("pathfence.discovery.mode=observe").run((context) -> {
			assertThat(context).hasSingleBean(DiscoveryObservationHandler.class)
				.hasSingleBean(ContextPropagatingTaskDecorator.class)
				.doesNotHaveBean(PathTuner.class);
			assertThat(context.getBean(LearnedPaths.class).isEnforced()).isFalse();
		});
	}

	@Test
	void whenEnforcingThenLearnedPathsAreTunedButConfiguredOnesAreNot() {
		this.contextRunner.withPropertyValues("pathfence.discovery.mode=ENFORCE", "pathfence.paths.payment.permits=2")
			.run((context) -> {
				assertThat(context.getBean(LearnedPaths.class).isEnforced()).isTrue();
				PathTuner tuner = context.getBean(PathTuner.class);
				assertThat(tuner.tunesAddedPaths()).isTrue();
				assertThat(tuner.tunes("payment")).isFalse();
			});
	}

	@Test
	void whenEnforcingWithoutTuningThenNoTuner() {
		this.contextRunner.withPropertyValues("pathfence.discovery.mode=enforce", "pathfence.discovery.tuning=false")
			.run((context) -> assertThat(context).hasSingleBean(LearnedPaths.class).doesNotHaveBean(PathTuner.class));
	}

	@Test
	void whenTheApplicationHasATaskDecoratorThenItIsKept() {
		this.contextRunner.withPropertyValues("pathfence.discovery.mode=observe")
			.withBean("userDecorator", TaskDecorator.class, () -> (runnable) -> runnable)
			.run((context) -> assertThat(context).hasSingleBean(TaskDecorator.class)
				.doesNotHaveBean(ContextPropagatingTaskDecorator.class));
	}

	@Test
	void whenModeIsUnknownThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.discovery.mode=sometimes").run((context) -> {
			FailureAnalysis analysis = ReportedFailureAnalysis.of(context);
			assertThat(analysis.getDescription()).contains("pathfence.discovery.mode").contains("sometimes");
		});
	}

	@Test
	void whenConfirmationsAreZeroThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.discovery.mode=observe", "pathfence.discovery.confirmations=0")
			.run((context) -> {
				FailureAnalysis analysis = ReportedFailureAnalysis.of(context);
				assertThat(analysis.getDescription()).contains("pathfence.discovery.confirmations");
				assertThat(analysis.getAction()).contains("a whole number of 1 or more");
			});
	}

	@Test
	void whenMaxPathsIsNegativeThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.discovery.max-paths=-1").run((context) -> {
			FailureAnalysis analysis = ReportedFailureAnalysis.of(context);
			assertThat(analysis.getDescription()).contains("pathfence.discovery.max-paths");
		});
	}

}
