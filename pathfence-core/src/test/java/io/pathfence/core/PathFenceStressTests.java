package io.pathfence.core;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.RepeatedTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads submit, finish, cancel, expire and resize at random; throughout, never
 * more permits are held than the pool has and no task waits while a permit it may take is
 * free; afterwards every permit is accounted for and every task ended exactly once.
 */
class PathFenceStressTests {

	private static final int THREADS = 8;

	private static final int OPERATIONS_PER_THREAD = 200_000;

	private static final String[] PATHS = { "a", "b", "c", PathFence.LOCAL };

	/**
	 * One submitted task: how often it was granted and released must end at exactly 0 or
	 * 1 each.
	 */
	private static final class Task {

		final AtomicInteger grants = new AtomicInteger();

		volatile Ticket ticket;

	}

	@RepeatedTest(3)
	void permitsAreConservedAndNoWaiterIsStranded() throws Exception {
		PathFence fence = PathFence.builder(16)
			.path("a", 4, 30, Duration.ZERO)
			.path("b", 4, 30, Duration.ZERO)
			.path("c", 3, 30, Duration.ZERO)
			.local(3, 30, Duration.ZERO)
			.build();
		Queue<Task> running = new ConcurrentLinkedQueue<>();
		Queue<Task> waiting = new ConcurrentLinkedQueue<>();
		Queue<Task> all = new ConcurrentLinkedQueue<>();
		AtomicInteger doubleGrants = new AtomicInteger();
		AtomicInteger failedReleases = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		Thread[] threads = new Thread[THREADS];
		for (int t = 0; t < THREADS; t++) {
			threads[t] = new Thread(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				awaitQuietly(start);
				for (int i = 0; i < OPERATIONS_PER_THREAD; i++) {
					int dice = random.nextInt(100);
					if (dice < 45) {
						Task task = new Task();
						all.add(task);
						task.ticket = fence.acquire(PATHS[random.nextInt(PATHS.length)], (ticket) -> {
							// The grant may come before acquire returns, from another
							// thread.
							task.ticket = ticket;
							if (task.grants.incrementAndGet() > 1) {
								doubleGrants.incrementAndGet();
							}
							running.add(task);
						});
						if (task.ticket.admission() == Admission.GRANTED) {
							if (task.grants.incrementAndGet() > 1) {
								doubleGrants.incrementAndGet();
							}
							running.add(task);
						}
						else if (task.ticket.admission() == Admission.QUEUED) {
							waiting.add(task);
						}
					}
					else if (dice < 88) {
						Task task = running.poll();
						if (task != null && !task.ticket.release()) {
							failedReleases.incrementAndGet();
						}
					}
					else if (dice < 97) {
						Task task = waiting.poll();
						if (task != null) {
							// A queue timeout ends a wait the same way as a cancel, and
							// races a grant the same way.
							if (random.nextBoolean()) {
								task.ticket.cancel();
							}
							else {
								task.ticket.expire();
							}
						}
					}
					else {
						try {
							fence.resize(PATHS[random.nextInt(PATHS.length)], random.nextInt(7));
						}
						catch (IllegalArgumentException ex) {
							// Sizes that would overflow the pool are refused; that is
							// part of what is tested.
						}
					}
				}
			});
			threads[t].setUncaughtExceptionHandler((thread, ex) -> failures.add(ex));
			threads[t].start();
		}
		// Invariants must hold at every moment, not only at the end: a stranded waiter
		// may be rescued later by
		// an unrelated release and leave no trace. Each check takes the lock, so it sees
		// a consistent state.
		Queue<String> violations = new ConcurrentLinkedQueue<>();
		java.util.concurrent.atomic.AtomicBoolean stressing = new java.util.concurrent.atomic.AtomicBoolean(true);
		Thread monitor = new Thread(() -> {
			while (stressing.get() && violations.isEmpty()) {
				violations.addAll(fence.invariantViolations());
				Thread.onSpinWait();
			}
		});
		monitor.start();
		start.countDown();
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(60));
			assertThat(thread.isAlive()).as("stress thread finished").isFalse();
		}
		stressing.set(false);
		monitor.join();
		assertThat(violations).as("invariants during the run").isEmpty();

		assertThat(failures).isEmpty();
		assertThat(fence.invariantViolations()).isEmpty();
		assertThat(doubleGrants).hasValue(0);
		assertThat(failedReleases).hasValue(0);
		assertOwnedPermitsMatchRunningTasks(fence, running);

		// Drain: give every reservation room again and finish every task; all waiters
		// must be reached.
		fence.resize(PathFence.LOCAL, 0);
		for (String path : List.of("a", "b", "c")) {
			fence.resize(path, 0);
		}
		for (String path : List.of("a", "b", "c")) {
			fence.resize(path, 4);
		}
		fence.resize(PathFence.LOCAL, 4);
		Task task;
		while ((task = running.poll()) != null) {
			assertThat(task.ticket.release()).isTrue();
		}
		for (PathFigures figures : fence.figures()) {
			assertThat(figures.active()).as("active of %s", figures.path()).isZero();
			assertThat(figures.queued()).as("queued of %s", figures.path()).isZero();
			assertThat(figures.borrowed()).as("borrowed of %s", figures.path()).isZero();
		}
		assertThat(fence.invariantViolations()).isEmpty();
		for (Task submitted : all) {
			Ticket.State state = fence.stateOf(submitted.ticket);
			assertThat(state).isIn(Ticket.State.RELEASED, Ticket.State.CANCELLED, Ticket.State.REJECTED);
			assertThat(submitted.grants.get()).isEqualTo((state == Ticket.State.RELEASED) ? 1 : 0);
		}
	}

	private static void assertOwnedPermitsMatchRunningTasks(PathFence fence, Queue<Task> running) {
		for (String path : PATHS) {
			long holders = running.stream().filter((t) -> fence.ownerOf(t.ticket).name.equals(path)).count();
			long runningOfPath = running.stream().filter((t) -> t.ticket.path().equals(path)).count();
			assertThat(fence.figures(path).active()).as("active of %s", path).isEqualTo(runningOfPath);
			int lentOrOwn = fence.figures(path).active()
					+ (path.equals(PathFence.LOCAL) ? -fence.figures(path).borrowed() : fence.figures(path).borrowed());
			assertThat(lentOrOwn).as("permits of %s in use", path).isEqualTo(holders);
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
