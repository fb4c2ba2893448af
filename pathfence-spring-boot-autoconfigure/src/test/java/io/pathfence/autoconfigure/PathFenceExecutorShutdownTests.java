package io.pathfence.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.TaskRejectedException;

import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the fenced {@code applicationTaskExecutor} does with its tasks when the context
 * closes: like Boot's own executor, tasks that have not started are cancelled, and
 * {@code spring.task.execution.shutdown.await-termination} decides whether running ones
 * are interrupted or awaited.
 */
class PathFenceExecutorShutdownTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(PathFenceAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=4", "pathfence.paths.a.permits=1", "pathfence.paths.a.max-queue=30",
				"pathfence.paths.a.queue-timeout=0");

	@Test
	void whenTheContextClosesThenQueuedTasksAreCancelledAndTheRunningOneIsInterrupted() {
		this.contextRunner.run((context) -> {
			PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
			CountDownLatch running = new CountDownLatch(1);
			AtomicBoolean interrupted = new AtomicBoolean();
			Future<?> first = executor.submit("a", () -> {
				running.countDown();
				interrupted.set(!awaitQuietly(new CountDownLatch(1), 10));
			});
			AtomicInteger started = new AtomicInteger();
			List<Future<?>> queued = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				queued.add(executor.submit("a", started::incrementAndGet));
			}
			assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
			context.close();
			Awaitility.await().untilAsserted(() -> assertThat(first.isDone()).isTrue());
			assertThat(interrupted).as("running task interrupted").isTrue();
			assertThat(queued).allSatisfy((future) -> assertThat(future.isCancelled()).isTrue());
			assertThat(started).as("queued tasks that started after the shutdown").hasValue(0);
			assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> executor.execute("a", () -> {
			})).withMessageContaining("shut down");
		});
	}

	@Test
	void whenShutdownAwaitsTerminationThenTheRunningTaskFinishesAndQueuedTasksAreCancelled() {
		this.contextRunner
			.withPropertyValues("spring.task.execution.shutdown.await-termination=true",
					"spring.task.execution.shutdown.await-termination-period=10s")
			.run((context) -> {
				PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
				CountDownLatch running = new CountDownLatch(1);
				CountDownLatch gate = new CountDownLatch(1);
				Future<String> first = executor.submit("a", () -> {
					running.countDown();
					return awaitQuietly(gate, 10) ? "finished" : "interrupted";
				});
				AtomicInteger started = new AtomicInteger();
				List<Future<?>> queued = new ArrayList<>();
				for (int i = 0; i < 20; i++) {
					queued.add(executor.submit("a", started::incrementAndGet));
				}
				assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
				Thread opener = new Thread(() -> {
					sleepQuietly(300);
					gate.countDown();
				});
				opener.start();
				context.close();
				assertThat(first.isDone()).as("close waited for the running task").isTrue();
				assertThat(first.get()).isEqualTo("finished");
				assertThat(queued).allSatisfy((future) -> assertThat(future.isCancelled()).isTrue());
				assertThat(started).hasValue(0);
			});
	}

	private static boolean awaitQuietly(CountDownLatch latch, int seconds) {
		try {
			return latch.await(seconds, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
