package io.pathfence.autoconfigure;

import java.util.Collections;
import java.util.concurrent.ThreadPoolExecutor;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.SimpleAutowireCandidateResolver;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.micrometer.metrics.autoconfigure.task.TaskExecutorMetricsAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.pathfence.task.PathFenceTaskExecutor;

/**
 * Keeps Boot's {@code executor.*} meters of the {@code applicationTaskExecutor} when
 * PathFence takes its place. Boot binds them only to a {@link ThreadPoolTaskExecutor}
 * bean; the fenced executor runs its tasks on one, so its worker pool is bound under the
 * executor's bean name, as Boot would have bound its own. They describe the threads:
 * tasks waiting for a permit wait in the fence, and are counted by
 * {@code pathfence.path.queued}, not {@code executor.queued}. Virtual-thread workers have
 * no pool to measure, as with Boot's own executor.
 */
@AutoConfiguration(after = { PathFenceAutoConfiguration.class, TaskExecutorMetricsAutoConfiguration.class })
@ConditionalOnClass({ ExecutorServiceMetrics.class, TaskExecutorMetricsAutoConfiguration.class })
@ConditionalOnBean({ PathFenceTaskExecutor.class, MeterRegistry.class })
public final class PathFenceTaskExecutorMetricsAutoConfiguration {

	@Autowired
	void bindWorkersToRegistry(ConfigurableListableBeanFactory beanFactory, MeterRegistry registry) {
		SimpleAutowireCandidateResolver.resolveAutowireCandidates(beanFactory, PathFenceTaskExecutor.class)
			.forEach((beanName, executor) -> {
				if (executor.getWorkers() instanceof ThreadPoolTaskExecutor workers) {
					ThreadPoolExecutor pool = threadPoolOf(workers);
					if (pool != null) {
						new ExecutorServiceMetrics(pool, beanName, Collections.emptyList()).bindTo(registry);
					}
				}
			});
	}

	/**
	 * The executor is lazy; like Boot's, its meters are bound at startup all the same.
	 */
	@Bean
	static LazyInitializationExcludeFilter eagerPathFenceTaskExecutorMetrics() {
		return LazyInitializationExcludeFilter.forBeanTypes(PathFenceTaskExecutorMetricsAutoConfiguration.class);
	}

	private static ThreadPoolExecutor threadPoolOf(ThreadPoolTaskExecutor workers) {
		try {
			return workers.getThreadPoolExecutor();
		}
		catch (IllegalStateException ex) {
			// Not initialized: nothing runs on it, so there is nothing to measure.
			return null;
		}
	}

}
