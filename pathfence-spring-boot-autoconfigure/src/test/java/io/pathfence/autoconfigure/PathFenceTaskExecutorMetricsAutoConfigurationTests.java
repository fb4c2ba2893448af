package io.pathfence.autoconfigure;

import java.util.Set;
import java.util.TreeSet;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.task.TaskExecutorMetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boot's {@code executor.*} meters of the {@code applicationTaskExecutor}, with Boot's
 * own executor and with PathFence's in its place: the same series either way.
 */
class PathFenceTaskExecutorMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
						TaskExecutionAutoConfiguration.class, TaskExecutorMetricsAutoConfiguration.class,
						PathFenceAutoConfiguration.class, PathFenceTaskExecutorMetricsAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=4");

	@Test
	void bootsExecutorSeriesAreKeptWhenPathFenceReplacesTheExecutor() {
		Set<String> withoutPathFence = new TreeSet<>();
		this.contextRunner.withPropertyValues("pathfence.enabled=false").run((context) -> {
			assertThat(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME))
				.isNotInstanceOf(PathFenceTaskExecutor.class);
			withoutPathFence.addAll(executorSeries(context.getBean(MeterRegistry.class)));
		});
		assertThat(withoutPathFence).as("Boot's own series").isNotEmpty();
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME))
				.isInstanceOf(PathFenceTaskExecutor.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(executorSeries(registry)).isEqualTo(withoutPathFence);
			// They measure the fence's workers: as many threads as the pool has permits.
			assertThat(registry.get("executor.pool.max").tag("name", "applicationTaskExecutor").gauge().value())
				.isEqualTo(20);
		});
	}

	private static Set<String> executorSeries(MeterRegistry registry) {
		Set<String> series = new TreeSet<>();
		for (Meter meter : registry.getMeters()) {
			Meter.Id id = meter.getId();
			if (id.getName().startsWith("executor")) {
				series.add(id.getName() + id.getTags());
			}
		}
		return series;
	}

}
