package io.pathfence.task;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PathFenceWorkers} over real threads: a thread is added whenever none is idle, up
 * to the maximum, and only beyond it is a task queued, never refused.
 */
class PathFenceWorkersTests {

	private final PathFenceWorkers workers = new PathFenceWorkers();

	private final CountDownLatch gate = new CountDownLatch(1);

	@AfterEach
	void shutdown() {
		this.gate.countDown();
		this.workers.shutdown();
	}

	@Test
	void taskFindsANewThreadWhileEveryThreadIsBusyAndWaitsOnlyBeyondTheMaximum() throws Exception {
		this.workers.setCorePoolSize(1);
		this.workers.setMaxPoolSize(2);
		this.workers.initialize();
		CountDownLatch bothRunning = new CountDownLatch(2);
		for (int i = 0; i < 2; i++) {
			this.workers.execute(() -> {
				bothRunning.countDown();
				awaitQuietly(this.gate);
			});
		}
		assertThat(bothRunning.await(5, TimeUnit.SECONDS)).as("second task ran beside the first").isTrue();
		CountDownLatch third = new CountDownLatch(1);
		this.workers.execute(third::countDown);
		assertThat(this.workers.getPoolSize()).isEqualTo(2);
		assertThat(this.workers.getQueueSize()).isEqualTo(1);
		this.gate.countDown();
		assertThat(third.await(5, TimeUnit.SECONDS)).as("queued task ran once a thread was free").isTrue();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
