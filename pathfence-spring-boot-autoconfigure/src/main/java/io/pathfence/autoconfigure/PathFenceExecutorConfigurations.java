package io.pathfence.autoconfigure;

import java.util.concurrent.Executor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.annotation.AsyncAnnotationBeanPostProcessor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.pathfence.core.PathFence;
import io.pathfence.core.WaitTimer;
import io.pathfence.task.PathFenceTaskExecutor;

/**
 * The path-fenced {@code applicationTaskExecutor}, over platform threads or virtual
 * threads. Either backs off when the application defines an {@link Executor} of its own,
 * as Boot's executor does.
 */
final class PathFenceExecutorConfigurations {

	private PathFenceExecutorConfigurations() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnThreading(Threading.PLATFORM)
	@ConditionalOnMissingBean(Executor.class)
	static class PlatformThreadsConfiguration {

		/**
		 * The workers come from Boot's {@link ThreadPoolTaskExecutorBuilder} when there
		 * is one, so {@code spring.task.execution.shutdown.*} (by default, as for Boot's
		 * own executor, running tasks are not awaited at shutdown) and the application's
		 * {@code ThreadPoolTaskExecutorCustomizer}s apply; the sizes, the queue and the
		 * decorator stay the fence's.
		 */
		@Lazy
		@Bean(name = { TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME,
				AsyncAnnotationBeanPostProcessor.DEFAULT_TASK_EXECUTOR_BEAN_NAME })
		PathFenceTaskExecutor applicationTaskExecutor(PathFence fence, WaitTimer waitTimer,
				PathFenceProperties properties, ObjectProvider<TaskDecorator> taskDecorator,
				ObjectProvider<ThreadPoolTaskExecutorBuilder> builder) {
			ThreadPoolTaskExecutor workers = builder.getIfAvailable(ThreadPoolTaskExecutorBuilder::new)
				// Every permit must find a thread at once: the fence, not the pool's
				// queue, decides who waits. The
				// queue only bridges the moment between a permit's release and its
				// thread's return to the pool.
				.corePoolSize(properties.getPoolSize())
				.maxPoolSize(properties.getPoolSize())
				.queueCapacity(Integer.MAX_VALUE)
				.allowCoreThreadTimeOut(true)
				.threadNamePrefix("pathfence-")
				// The fence decorates each task on the submitting thread; decorating
				// again on a worker would
				// capture the context of whichever thread freed the permit.
				.taskDecorator(null)
				.build();
			// The builder applies the application's customizers last; whatever they set,
			// these stay the fence's.
			workers.setCorePoolSize(properties.getPoolSize());
			workers.setMaxPoolSize(properties.getPoolSize());
			workers.setQueueCapacity(Integer.MAX_VALUE);
			workers.setTaskDecorator(null);
			workers.initialize();
			return new ManagedPathFenceTaskExecutor(fence, workers, waitTimer, decorator(taskDecorator),
					workers::shutdown);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnThreading(Threading.VIRTUAL)
	@ConditionalOnMissingBean(Executor.class)
	static class VirtualThreadsConfiguration {

		@Lazy
		@Bean(name = { TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME,
				AsyncAnnotationBeanPostProcessor.DEFAULT_TASK_EXECUTOR_BEAN_NAME })
		PathFenceTaskExecutor applicationTaskExecutor(PathFence fence, WaitTimer waitTimer,
				ObjectProvider<TaskDecorator> taskDecorator) {
			// Virtual threads are cheap, so the permits alone bound the concurrency of
			// each path.
			SimpleAsyncTaskExecutor workers = new SimpleAsyncTaskExecutor("pathfence-");
			workers.setVirtualThreads(true);
			workers.setTaskTerminationTimeout(10_000);
			return new ManagedPathFenceTaskExecutor(fence, workers, waitTimer, decorator(taskDecorator),
					workers::close);
		}

	}

	/** Like Boot's executor: one decorator as it is, several composed in their order. */
	static TaskDecorator decorator(ObjectProvider<TaskDecorator> decorators) {
		java.util.List<TaskDecorator> all = decorators.orderedStream().toList();
		if (all.isEmpty()) {
			return null;
		}
		return (all.size() == 1) ? all.get(0) : new org.springframework.core.task.support.CompositeTaskDecorator(all);
	}

	/** Shuts the workers down with the context. */
	static final class ManagedPathFenceTaskExecutor extends PathFenceTaskExecutor
			implements org.springframework.beans.factory.DisposableBean {

		private final Runnable shutdown;

		ManagedPathFenceTaskExecutor(PathFence fence, Executor workers, WaitTimer waitTimer, TaskDecorator decorator,
				Runnable shutdown) {
			super(fence, workers, waitTimer, decorator);
			this.shutdown = shutdown;
		}

		@Override
		public void destroy() {
			this.shutdown.run();
		}

	}

}
