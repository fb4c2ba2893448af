package io.pathfence.autoconfigure;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

class PathFenceMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(MetricsAutoConfiguration.class, PathFenceMetricsAutoConfiguration.class,
						PathFenceAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=4",
				"pathfence.paths.shipping.permits=6");

	@Test
	void metersArePublishedPerPath() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
			executor.submit("payment", () -> "done").get(5, TimeUnit.SECONDS);
			// The future completes just before the worker gives the permit back.
			Awaitility.await()
				.untilAsserted(
						() -> assertThat(registry.get("pathfence.path.service").tag("path", "payment").timer().count())
							.isEqualTo(1));
			assertThat(registry.get("pathfence.path.permits").tag("path", "payment").gauge().value()).isEqualTo(4);
			assertThat(registry.get("pathfence.path.permits").tag("path", "local").gauge().value()).isEqualTo(10);
			assertThat(registry.get("pathfence.path.active").tag("path", "payment").gauge().value()).isZero();
			assertThat(registry.get("pathfence.path.queued").tag("path", "shipping").gauge().value()).isZero();
			assertThat(registry.get("pathfence.path.borrowed").tag("path", "shipping").gauge().value()).isZero();
			assertThat(registry.get("pathfence.path.wait").tag("path", "payment").timer().count()).isEqualTo(1);
			assertThat(registry.get("pathfence.path.service").tag("path", "payment").timer().count()).isEqualTo(1);
			assertThat(registry.get("pathfence.path.rejected")
				.tags("path", "payment", "reason", "queue-full")
				.counter()
				.count()).isZero();
			assertThat(registry.get("pathfence.path.rejected")
				.tags("path", "payment", "reason", "timeout")
				.counter()
				.count()).isZero();
		});
	}

}
