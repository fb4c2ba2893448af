package io.pathfence.task;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Workers shut down with tasks still in their queue: a queue timeout they were to report
 * is reported all the same.
 */
class PathFenceWorkersShutdownTests {

	private final PathFenceWorkers workers = new PathFenceWorkers();

	private final PathFence fence = PathFence.builder(1).path("a", 1, 5, Duration.ofMillis(20)).build();

	private final CountDownLatch gate = new CountDownLatch(1);

	@AfterEach
	void stop() {
		this.gate.countDown();
		this.fence.close();
	}

	@Test
	void futureOfATimedOutTaskCompletesWhenTheWorkersDropItsReportAtShutdown() {
		this.workers.setCorePoolSize(1);
		this.workers.setMaxPoolSize(1);
		this.workers.initialize();
		PathFenceTaskExecutor executor = new PathFenceTaskExecutor(this.fence, this.workers, null);
		executor.execute("a", () -> {
			try {
				this.gate.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		CompletableFuture<String> timedOut = executor.submitCompletable("a", () -> "late");
		// The report of its timeout waits in the workers' queue behind the running task.
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.workers.getQueueSize()).isEqualTo(1));
		this.workers.shutdown();
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(timedOut::isDone);
		assertThat(timedOut).isCompletedExceptionally();
	}

}
