package io.pathfence.task;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Workers that fail in ways other than refusing a task the ordinary way (a
 * {@link java.util.concurrent.RejectedExecutionException}): a permit never stays held for
 * a task that will not run, and a future never stays pending for good.
 */
class PathFenceTaskExecutorFailureTests {

	private final ExecutorService threads = Executors.newFixedThreadPool(4);

	private final PathFence fence = PathFence.builder(4).path("a", 1, 5, Duration.ofMillis(50)).build();

	/** Takes this many tasks, then throws for every other one. */
	private volatile int accepts = Integer.MAX_VALUE;

	private final Executor workers = (task) -> {
		synchronized (this) {
			if (this.accepts == 0) {
				throw new IllegalStateException("workers broke");
			}
			this.accepts--;
		}
		this.threads.execute(task);
	};

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.fence.close();
	}

	@Test
	void workersThatThrowOnATaskGrantedAtOnceLeaveNoPermitHeld() {
		PathFenceTaskExecutor executor = new PathFenceTaskExecutor(this.fence, (task) -> {
			throw new IllegalStateException("workers broke");
		}, null);
		assertThatException().isThrownBy(() -> executor.execute("a", () -> {
		}));
		assertThat(this.fence.figures("a").active()).isZero();
	}

	@Test
	void workersThatThrowOnTheTaskAfterAFailedOneLeaveNoPermitHeld() {
		PathFenceTaskExecutor executor = new PathFenceTaskExecutor(this.fence, this.workers, null);
		this.accepts = 1;
		CountDownLatch gate = new CountDownLatch(1);
		executor.execute("a", () -> {
			await(gate);
			throw new IllegalStateException("task broke");
		});
		executor.execute("a", () -> {
		});
		assertThat(this.fence.figures("a").queued()).isEqualTo(1);
		gate.countDown();
		// The task's own failure ends its worker's loop, as it should: not the test's.
		Awaitility.await()
			.dontCatchUncaughtExceptions()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.fence.figures("a").active()).isZero());
	}

	@Test
	void workersThatThrowWhenATimedOutFutureIsToBeCompletedLeaveItNotPending() throws Exception {
		PathFenceTaskExecutor executor = new PathFenceTaskExecutor(this.fence, this.workers, null);
		CountDownLatch gate = new CountDownLatch(1);
		executor.execute("a", () -> await(gate));
		this.accepts = 0;
		CompletableFuture<String> timedOut = executor.submitCompletable("a", () -> "late");
		try {
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(timedOut::isDone);
			assertThat(timedOut).isCompletedExceptionally();
		}
		finally {
			gate.countDown();
		}
	}

	private static void await(CountDownLatch gate) {
		try {
			gate.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
