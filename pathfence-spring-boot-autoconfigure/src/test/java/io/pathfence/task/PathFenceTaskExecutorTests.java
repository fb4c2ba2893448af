package io.pathfence.task;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.pathfence.core.PathFence;
import io.pathfence.core.RejectionReason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link PathFenceTaskExecutor} over real threads: one task at a time per permit, fast
 * rejection, timeouts and cancellation that give their place back.
 */
class PathFenceTaskExecutorTests {

	private final ThreadPoolTaskExecutor workers = new ThreadPoolTaskExecutor();

	private final java.util.List<PathFence> fences = new java.util.ArrayList<>();

	private PathFenceTaskExecutor executor(int permits, int maxQueue, Duration queueTimeout) {
		return executor(PathFence.builder(4).path("a", permits, maxQueue, queueTimeout).build());
	}

	private void closeFence(PathFenceTaskExecutor executor) {
		executor.getFence().close();
	}

	private PathFenceTaskExecutor executor(PathFence fence) {
		this.workers.setCorePoolSize(4);
		this.workers.setMaxPoolSize(4);
		this.workers.initialize();
		this.fences.add(fence);
		return new PathFenceTaskExecutor(fence, this.workers, null);
	}

	@AfterEach
	void shutdown() {
		this.workers.shutdown();
		this.fences.forEach(PathFence::close);
	}

	@Test
	void callerThatWaitsForEachTaskIsNeverRejectedByItsOwnPreviousTask() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 0, Duration.ZERO);
		for (int i = 0; i < 20_000; i++) {
			assertThat(executor.submit("a", () -> 1).get(5, TimeUnit.SECONDS)).isEqualTo(1);
			assertThat(executor.submitCompletable("a", () -> 2).get(5, TimeUnit.SECONDS)).isEqualTo(2);
		}
	}

	@Test
	void fullQueueRejectsAtOnce() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 1, Duration.ZERO);
		CountDownLatch gate = new CountDownLatch(1);
		Future<?> running = executor.submit("a", () -> await(gate));
		Future<?> queued = executor.submit("a", () -> "queued");
		assertThatExceptionOfType(PathRejectedException.class).isThrownBy(() -> executor.submit("a", () -> "x"))
			.satisfies((ex) -> {
				assertThat(ex.getPath()).isEqualTo("a");
				assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
			});
		gate.countDown();
		running.get(5, TimeUnit.SECONDS);
		assertThat(queued.get(5, TimeUnit.SECONDS)).isEqualTo("queued");
	}

	@Test
	void taskWaitingPastItsQueueTimeoutFailsWithTheRejection() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 5, Duration.ofMillis(100));
		CountDownLatch gate = new CountDownLatch(1);
		executor.submit("a", () -> await(gate));
		CompletableFuture<String> late = executor.submitCompletable("a", () -> "late");
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> late.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOfSatisfying(PathRejectedException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.TIMEOUT));
		gate.countDown();
	}

	@Test
	void cancelledQueuedTaskGivesUpItsPlaceAtOnce() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 1, Duration.ZERO);
		CountDownLatch gate = new CountDownLatch(1);
		executor.submit("a", () -> await(gate));
		Future<?> queued = executor.submit("a", () -> "never");
		assertThat(executor.getFence().figures("a").queued()).isEqualTo(1);
		assertThat(queued.cancel(false)).isTrue();
		assertThat(executor.getFence().figures("a").queued()).isZero();
		Future<?> next = executor.submit("a", () -> "next");
		gate.countDown();
		assertThat(next.get(5, TimeUnit.SECONDS)).isEqualTo("next");
		Awaitility.await().untilAsserted(() -> assertThat(executor.getFence().figures("a").active()).isZero());
	}

	@Test
	void failingTaskStillGivesItsPermitBack() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 0, Duration.ZERO);
		Future<?> failing = executor.submit("a", () -> {
			throw new IllegalStateException("boom");
		});
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> failing.get(5, TimeUnit.SECONDS));
		assertThat(executor.submit("a", () -> "after").get(5, TimeUnit.SECONDS)).isEqualTo("after");
	}

	@Test
	void executedTaskThatThrowsStillHandsItsPermitToTheNextTask() throws Exception {
		// As in any thread pool, an execute() task's exception ends its worker thread;
		// catch it where it lands.
		java.util.Queue<Throwable> uncaught = new java.util.concurrent.ConcurrentLinkedQueue<>();
		this.workers.setThreadFactory((runnable) -> {
			Thread thread = new Thread(runnable);
			thread.setUncaughtExceptionHandler((t, ex) -> uncaught.add(ex));
			return thread;
		});
		PathFenceTaskExecutor executor = executor(1, 1, Duration.ZERO);
		CountDownLatch gate = new CountDownLatch(1);
		executor.execute("a", () -> {
			await(gate);
			throw new IllegalStateException("boom");
		});
		CountDownLatch next = new CountDownLatch(1);
		executor.execute("a", next::countDown);
		assertThat(executor.getFence().figures("a").queued()).isEqualTo(1);
		gate.countDown();
		assertThat(next.await(5, TimeUnit.SECONDS)).as("the task queued behind the failing one ran").isTrue();
		Awaitility.await().untilAsserted(() -> assertThat(executor.getFence().figures("a").active()).isZero());
		assertThat(uncaught).singleElement().extracting(Throwable::getMessage).isEqualTo("boom");
	}

	@Test
	void slowCallbackOfATimedOutTaskDelaysNoTimeoutOfAnotherPath() throws Exception {
		PathFenceTaskExecutor executor = executor(PathFence.builder(4)
			.path("a", 1, 5, Duration.ofMillis(50))
			.path("b", 1, 5, Duration.ofMillis(50))
			.build());
		CountDownLatch gate = new CountDownLatch(1);
		executor.submit("a", () -> await(gate));
		executor.submit("b", () -> await(gate));
		CountDownLatch slowCallbackRuns = new CountDownLatch(1);
		executor.submitCompletable("a", () -> "late").whenComplete((result, failure) -> {
			slowCallbackRuns.countDown();
			sleep(1500);
		});
		assertThat(slowCallbackRuns.await(5, TimeUnit.SECONDS)).isTrue();
		long submitted = System.nanoTime();
		CompletableFuture<String> late = executor.submitCompletable("b", () -> "late");
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> late.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOfSatisfying(PathRejectedException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.TIMEOUT));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - submitted))
			.as("b's 50 ms timeout, not a's 1.5 s callback")
			.isLessThan(750);
		gate.countDown();
	}

	@Test
	void nextTaskOfAPathStartsWithoutWaitingForTheDependentsOfTheTaskBefore() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 5, Duration.ZERO);
		CountDownLatch gate = new CountDownLatch(1);
		CompletableFuture<String> first = executor.submitCompletable("a", () -> {
			await(gate);
			return "first";
		});
		first.thenRun(() -> sleep(1000));
		CompletableFuture<Long> second = executor.submitCompletable("a", System::nanoTime);
		long opened = System.nanoTime();
		gate.countDown();
		long started = second.get(5, TimeUnit.SECONDS);
		assertThat(TimeUnit.NANOSECONDS.toMillis(started - opened)).as("second task's start after the first's end")
			.isLessThan(500);
	}

	@Test
	void dependentThatWaitsForATaskOfItsOwnPathDoesNotDeadlock() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 5, Duration.ZERO);
		CountDownLatch gate = new CountDownLatch(1);
		CompletableFuture<String> first = executor.submitCompletable("a", () -> {
			await(gate);
			return "first";
		});
		CompletableFuture<String> second = executor.submitCompletable("a", () -> "second");
		CompletableFuture<String> chained = first.thenApply((ignored) -> second.join());
		gate.countDown();
		assertThat(chained.get(5, TimeUnit.SECONDS)).isEqualTo("second");
	}

	@Test
	void interruptStatusOfATaskDoesNotLeakToTheNextTask() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 5, Duration.ZERO);
		CountDownLatch gate = new CountDownLatch(1);
		executor.execute("a", () -> {
			await(gate);
			Thread.currentThread().interrupt();
		});
		Future<Boolean> next = executor.submit("a", () -> Thread.currentThread().isInterrupted());
		gate.countDown();
		assertThat(next.get(5, TimeUnit.SECONDS)).as("next task starts interrupted").isFalse();
	}

	@Test
	void taskCancelledWhileRunningDoesNotInterruptTheNextTask() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 5, Duration.ZERO);
		CountDownLatch started = new CountDownLatch(1);
		Future<?> running = executor.submit("a", () -> {
			started.countDown();
			await(new CountDownLatch(1));
		});
		Future<Boolean> next = executor.submit("a", () -> Thread.currentThread().isInterrupted());
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		running.cancel(true);
		assertThat(next.get(5, TimeUnit.SECONDS)).as("next task starts interrupted").isFalse();
	}

	@Test
	void grantedTasksLeaveNothingHeldForTheirQueueTimeout() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 1000, Duration.ofSeconds(60));
		java.util.Queue<java.lang.ref.WeakReference<Object>> results = new java.util.concurrent.ConcurrentLinkedQueue<>();
		java.util.ArrayDeque<Future<Object>> window = new java.util.ArrayDeque<>();
		for (int i = 0; i < 50_000; i++) {
			window.add(executor.submit("a", () -> {
				Object result = new byte[64];
				results.add(new java.lang.ref.WeakReference<>(result));
				return result;
			}));
			if (window.size() == 200) {
				while (!window.isEmpty()) {
					window.poll().get(5, TimeUnit.SECONDS);
				}
			}
		}
		while (!window.isEmpty()) {
			window.poll().get(5, TimeUnit.SECONDS);
		}
		Awaitility.await().untilAsserted(() -> assertThat(executor.getFence().figures("a").active()).isZero());
		assertThat(results).hasSize(50_000);
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			System.gc();
			assertThat(results.stream().filter((ref) -> ref.get() != null).count())
				.as("results of finished tasks still reachable")
				.isZero();
		});
	}

	@Test
	void afterTheFenceClosesSubmitFailsAndTheTaskNeverRuns() throws Exception {
		PathFenceTaskExecutor executor = executor(1, 5, Duration.ofSeconds(60));
		CountDownLatch gate = new CountDownLatch(1);
		Future<?> holder = executor.submit("a", () -> await(gate));
		closeFence(executor);
		java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
		assertThatExceptionOfType(java.util.concurrent.RejectedExecutionException.class)
			.isThrownBy(() -> executor.submit("a", () -> ran.set(true)));
		gate.countDown();
		holder.get(5, TimeUnit.SECONDS);
		Awaitility.await().untilAsserted(() -> {
			assertThat(executor.getFence().figures("a").active()).isZero();
			assertThat(executor.getFence().figures("a").queued()).isZero();
		});
		assertThat(ran).as("the refused task ran").isFalse();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static Object await(CountDownLatch gate) {
		try {
			gate.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return null;
	}

}
