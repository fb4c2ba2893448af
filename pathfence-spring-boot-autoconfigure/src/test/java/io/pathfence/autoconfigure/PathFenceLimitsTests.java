package io.pathfence.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.pathfence.actuate.PathFenceEndpoint;
import io.pathfence.core.InvalidPathFenceConfigurationException;
import io.pathfence.core.PathFence;
import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Settings at the edges of the int range, and selectors nobody checked: reported or
 * handled, never wrapped round or written to the log as they came.
 */
@ExtendWith(OutputCaptureExtension.class)
class PathFenceLimitsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(PathFenceAutoConfiguration.class, TaskExecutionAutoConfiguration.class));

	@Test
	void whenPermitsAddUpPastTheIntRangeThenStartupFailsNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=2147483647",
					"pathfence.paths.shipping.permits=2")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable cause = context.getStartupFailure();
				while (cause.getCause() != null && !(cause instanceof InvalidPathFenceConfigurationException)) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(InvalidPathFenceConfigurationException.class);
				assertThat(((InvalidPathFenceConfigurationException) cause).getProperty())
					.isEqualTo("pathfence.paths.*.permits");
			});
	}

	@Test
	void whenThePoolIsAsLargeAsAnIntAllowsThenTheExecutorStarts() {
		this.contextRunner.withPropertyValues("pathfence.pool-size=2147483647").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(PathFenceTaskExecutor.class);
		});
	}

	@Test
	void selectorOfAnUnknownPathIsLoggedWithoutItsLineBreaks(CapturedOutput output) {
		PathFence fence = PathFence.builder(4).path("a", 1, 1, Duration.ZERO).build();
		assertThatException().isThrownBy(() -> new PathFenceEndpoint(fence, null).resize("a\r\nINFO forged line", 1));
		assertThat(output).contains("Refused to resize path 'a__INFO forged line'").doesNotContain("\nINFO forged");
	}

}
