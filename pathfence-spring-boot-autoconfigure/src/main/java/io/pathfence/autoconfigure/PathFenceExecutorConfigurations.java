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

import io.pathfence.core.PathFence;
import io.pathfence.task.PathFenceTaskExecutor;
import io.pathfence.task.PathFenceWorkers;

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
		 * own executor, running tasks are interrupted, not awaited, at shutdown) and the
		 * application's {@code ThreadPoolTaskExecutorCustomizer}s apply; the sizes, the
		 * queue and the decorator stay the fence's.
		 */
		@Lazy
		@Bean(name = { TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME,
				AsyncAnnotationBeanPostProcessor.DEFAULT_TASK_EXECUTOR_BEAN_NAME })
		PathFenceTaskExecutor applicationTaskExecutor(PathFence fence, PathFenceProperties properties,
				ObjectProvider<TaskDecorator> taskDecorator, ObjectProvider<ThreadPoolTaskExecutorBuilder> builder) {
			PathFenceWorkers workers = builder.getIfAvailable(ThreadPoolTaskExecutorBuilder::new)
				.threadNamePrefix("pathfence-")
				.allowCoreThreadTimeOut(true)
				.configure(new PathFenceWorkers());
			// The builder applies the application's customizers last; whatever they set,
			// these stay the fence's. Every permit must find a thread at once: the fence,
			// not the pool's queue, decides who waits. Up to as many threads again serve
			// the dependents of CompletableFutures, which run after their task gave its
			// permit back, so that the next task never waits for them.
			workers.setCorePoolSize(properties.getPoolSize());
			workers.setMaxPoolSize((int) Math.min(Integer.MAX_VALUE, 2L * properties.getPoolSize()));
			// The fence decorates each task on the submitting thread; decorating again on
			// a worker would capture the context of whichever thread freed the permit.
			workers.setTaskDecorator(null);
			workers.initialize();
			return new ManagedPathFenceTaskExecutor(fence, workers, decorator(taskDecorator), workers::shutdown);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnThreading(Threading.VIRTUAL)
	@ConditionalOnMissingBean(Executor.class)
	static class VirtualThreadsConfiguration {

		@Lazy
		@Bean(name = { TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME,
				AsyncAnnotationBeanPostProcessor.DEFAULT_TASK_EXECUTOR_BEAN_NAME })
		PathFenceTaskExecutor applicationTaskExecutor(PathFence fence, ObjectProvider<TaskDecorator> taskDecorator) {
			// Virtual threads are cheap, so the permits alone bound the concurrency of
			// each path.
			SimpleAsyncTaskExecutor workers = new SimpleAsyncTaskExecutor("pathfence-");
			workers.setVirtualThreads(true);
			workers.setTaskTerminationTimeout(10_000);
			return new ManagedPathFenceTaskExecutor(fence, workers, decorator(taskDecorator), workers::close);
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

	/**
	 * Shuts down with the context: tasks that have not started are cancelled, then the
	 * workers shut down as configured.
	 */
	static final class ManagedPathFenceTaskExecutor extends PathFenceTaskExecutor
			implements org.springframework.beans.factory.DisposableBean {

		private final Runnable workersShutdown;

		ManagedPathFenceTaskExecutor(PathFence fence, Executor workers, TaskDecorator decorator,
				Runnable workersShutdown) {
			super(fence, workers, decorator);
			this.workersShutdown = workersShutdown;
		}

		@Override
		public void destroy() {
			shutdown();
			this.workersShutdown.run();
		}

	}

}
