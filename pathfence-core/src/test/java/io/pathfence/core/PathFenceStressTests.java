package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads submit, finish, cancel, resize and (in one variant) add paths at random
 * while the fence's own timer expires waits, listeners and waiters fail now and then,
 * clients withdraw all their waiting work at once, and at last the fence is closed under
 * load. Throughout, never more permits are held than the pool has and no task waits while
 * a permit it may take is free (no lost wake-up); afterwards every task ended exactly
 * once, every permit is back, and the listeners heard a consistent story.
 */
class PathFenceStressTests {

	private static final int THREADS = 8;

	private static final int OPERATIONS_PER_THREAD = 150_000;

	private static final String[] PATHS = { "a", "b", "c", PathFence.LOCAL };

	private static final int CLIENTS = 4;

	/** How many names the adding variant draws from; drawing one twice is refused. */
	private static final int ADDABLE_PATHS = 12;

	@ParameterizedTest
	@EnumSource(LocalPriority.class)
	void permitsAreConservedAndEveryTaskEndsExactlyOnce(LocalPriority rule) throws Exception {
		for (int round = 0; round < 2; round++) {
			stress(rule, false);
		}
	}

	@ParameterizedTest
	@EnumSource(LocalPriority.class)
	void pathsAddedUnderLoadConservePermitsAndStrandNoWaiter(LocalPriority rule) throws Exception {
		for (int round = 0; round < 2; round++) {
			stress(rule, true);
		}
	}

	private void stress(LocalPriority rule, boolean addsPaths) throws Exception {
		PathFenceBuilder builder = PathFence.builder(addsPaths ? 24 : 16)
			.path("a", 4, 30, Duration.ofMillis(2))
			.path("b", 4, 30, Duration.ZERO)
			.path("c", 3, 30, Duration.ofMillis(1))
			.localPriority(rule);
		// Paths are added from the local remainder, so that it shrinks under running
		// local tasks; the other variant sizes local to resize it too.
		PathFence fence = (addsPaths ? builder.localQueue(30, Duration.ofMillis(3))
				: builder.local(3, 30, Duration.ofMillis(3)))
			.build();
		List<String> paths = new CopyOnWriteArrayList<>(PATHS);
		AtomicInteger added = new AtomicInteger();
		fence.addListener(new FlakyListener());
		CheckingListener heard = new CheckingListener();
		fence.addListener(heard);
		Queue<Task> all = new ConcurrentLinkedQueue<>();
		Queue<Task> running = new ConcurrentLinkedQueue<>();
		Queue<Task> waiting = new ConcurrentLinkedQueue<>();
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		AtomicInteger refusedByClosedFence = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		CountDownLatch halfDone = new CountDownLatch(THREADS);
		AtomicBoolean closed = new AtomicBoolean();
		Thread[] threads = new Thread[THREADS];
		for (int t = 0; t < THREADS; t++) {
			threads[t] = new Thread(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				awaitQuietly(start);
				// Every thread goes on until it has met the closed fence for a while.
				int afterClose = 0;
				for (int i = 0; i < OPERATIONS_PER_THREAD || afterClose < 10_000; i++) {
					if (i == OPERATIONS_PER_THREAD / 2) {
						halfDone.countDown();
					}
					if (closed.get()) {
						afterClose++;
					}
					int dice = random.nextInt(100);
					if (dice < 45) {
						Task task = new Task(random.nextInt(CLIENTS), random.nextInt(100) == 0,
								random.nextInt(100) == 0, running);
						try {
							Ticket ticket = fence.acquire(paths.get(random.nextInt(paths.size())), task);
							task.ticket = ticket;
							all.add(task);
							switch (ticket.admission()) {
								case GRANTED -> task.grantedOnArrival();
								case QUEUED -> waiting.add(task);
								case REJECTED -> task.rejected.incrementAndGet();
							}
						}
						catch (IllegalStateException ex) {
							refusedByClosedFence.incrementAndGet();
						}
					}
					else if (dice < 85) {
						Task task = running.poll();
						if (task != null && task.ticket.release()) {
							task.releases.incrementAndGet();
						}
					}
					else if (dice < 94) {
						Task task = waiting.poll();
						if (task != null && task.ticket.cancel()) {
							task.cancels.incrementAndGet();
						}
					}
					else if (dice < 97) {
						int client = random.nextInt(CLIENTS);
						for (Waiter withdrawn : fence.cancelWaiting((waiter) -> ((Task) waiter).client == client)) {
							((Task) withdrawn).cancels.incrementAndGet();
						}
					}
					else if (addsPaths && random.nextBoolean()) {
						String name = "added-" + random.nextInt(ADDABLE_PATHS);
						try {
							fence.addPath(name, random.nextInt(4), 30, Duration.ofMillis(random.nextInt(3)));
							paths.add(name);
							added.incrementAndGet();
						}
						catch (IllegalArgumentException | IllegalStateException ex) {
							// A taken name, more than local has, or a closed fence:
							// refused, and that is part of what is tested.
						}
					}
					else {
						try {
							fence.resize(paths.get(random.nextInt(paths.size())), random.nextInt(7));
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
		// may be rescued later by an unrelated release and leave no trace. Each check
		// takes the lock, so it sees a consistent state.
		Queue<String> violations = new ConcurrentLinkedQueue<>();
		AtomicBoolean stressing = new AtomicBoolean(true);
		Thread monitor = new Thread(() -> {
			while (stressing.get() && violations.isEmpty()) {
				violations.addAll(Inspection.violations(fence));
				Thread.onSpinWait();
			}
		});
		monitor.start();
		start.countDown();
		assertThat(halfDone.await(60, TimeUnit.SECONDS)).as("stress threads half done").isTrue();
		// Shut down under load: the rest of the run meets a closed fence.
		fence.close();
		closed.set(true);
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(60));
			assertThat(thread.isAlive()).as("stress thread finished").isFalse();
		}
		stressing.set(false);
		monitor.join();
		assertThat(violations).as("invariants during the run").isEmpty();
		assertThat(failures).isEmpty();
		assertThat(refusedByClosedFence).as("tasks refused by the closed fence").hasPositiveValue();
		if (addsPaths) {
			assertThat(added).as("paths added under load").hasPositiveValue();
			assertThat(fence.pathNames()).hasSize(PATHS.length + added.get());
		}

		Task task;
		while ((task = running.poll()) != null) {
			assertThat(task.ticket.release()).isTrue();
			task.releases.incrementAndGet();
		}
		// Expiries of the close reach their waiters on the expiry threads.
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (all.stream().anyMatch(Task::open) && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(Inspection.violations(fence)).isEmpty();
		for (PathFigures figures : fence.figures()) {
			assertThat(figures.active()).as("active of %s", figures.path()).isZero();
			assertThat(figures.queued()).as("queued of %s", figures.path()).isZero();
			assertThat(figures.borrowed()).as("borrowed of %s", figures.path()).isZero();
		}
		long expiries = 0;
		long releases = 0;
		for (Task submitted : all) {
			assertThat(submitted.endings()).as("ways %s ended", submitted).isEqualTo(1);
			assertThat(submitted.grants.get()).as("grants of %s", submitted).isLessThanOrEqualTo(1);
			expiries += submitted.expiries.get();
			releases += submitted.releases.get() + submitted.refusals.get();
		}
		assertThat(expiries).as("expiries (timeouts and the close)").isPositive();
		assertThat(heard.lowestWaiting.get()).as("fewest waiting as a listener counted them").isZero();
		heard.paths.addAll(fence.pathNames());
		for (String path : fence.pathNames()) {
			assertThat(heard.count("queued", path)).as("queued and dequeued of %s", path)
				.isEqualTo(heard.count("dequeued", path));
			assertThat(heard.count("granted", path)).as("granted and released of %s", path)
				.isEqualTo(heard.count("released", path));
		}
		assertThat(heard.total("released")).isEqualTo(releases);
		assertThat(heard.total("timeout")).isEqualTo(expiries);
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * One submitted task and every way it ended; exactly one must have happened. Refusing
	 * tasks throw when granted, as workers do that shut down; failing ones throw when
	 * they expire.
	 */
	private static final class Task implements Waiter {

		final int client;

		private final boolean refusesGrant;

		private final boolean failsOnExpiry;

		private final Queue<Task> running;

		volatile Ticket ticket;

		final AtomicInteger grants = new AtomicInteger();

		final AtomicInteger releases = new AtomicInteger();

		final AtomicInteger refusals = new AtomicInteger();

		final AtomicInteger expiries = new AtomicInteger();

		final AtomicInteger cancels = new AtomicInteger();

		final AtomicInteger rejected = new AtomicInteger();

		Task(int client, boolean refusesGrant, boolean failsOnExpiry, Queue<Task> running) {
			this.client = client;
			this.refusesGrant = refusesGrant;
			this.failsOnExpiry = failsOnExpiry;
			this.running = running;
		}

		void grantedOnArrival() {
			this.grants.incrementAndGet();
			this.running.add(this);
		}

		@Override
		public void granted(Ticket granted) {
			// The grant may come before acquire returns, from another thread.
			this.ticket = granted;
			this.grants.incrementAndGet();
			if (this.refusesGrant) {
				this.refusals.incrementAndGet();
				throw new IllegalStateException("refused");
			}
			this.running.add(this);
		}

		@Override
		public void expired(Ticket expired) {
			this.expiries.incrementAndGet();
			if (this.failsOnExpiry) {
				throw new IllegalStateException("failed on expiry");
			}
		}

		/** Whether the task has not ended yet. */
		boolean open() {
			return this.rejected.get() + this.expiries.get() + this.cancels.get() + this.releases.get()
					+ this.refusals.get() == 0;
		}

		int endings() {
			return this.rejected.get() + this.expiries.get() + this.cancels.get() + this.releases.get()
					+ this.refusals.get();
		}

		@Override
		public String toString() {
			return "Task[" + this.ticket + ", grants=" + this.grants + ", releases=" + this.releases + ", refusals="
					+ this.refusals + ", expiries=" + this.expiries + ", cancels=" + this.cancels + ", rejected="
					+ this.rejected + "]";
		}

	}

	/** Throws from about one call in a hundred, whatever the event. */
	private static final class FlakyListener implements PathFenceListener {

		private void maybeFail() {
			if (ThreadLocalRandom.current().nextInt(100) == 0) {
				throw new IllegalStateException("listener failed");
			}
		}

		@Override
		public void onQueued(String path) {
			maybeFail();
		}

		@Override
		public void onDequeued(String path) {
			maybeFail();
		}

		@Override
		public void onGranted(String path, long waitNanos) {
			maybeFail();
		}

		@Override
		public void onReleased(String path, long serviceNanos) {
			maybeFail();
		}

		@Override
		public void onRejected(String path, RejectionReason reason, long waitNanos) {
			maybeFail();
		}

	}

	/** Counts every event by kind and path, and how few tasks it saw waiting at least. */
	private static final class CheckingListener implements PathFenceListener {

		private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

		private final AtomicInteger waiting = new AtomicInteger();

		/** The paths to total over, set once the run is over. */
		final List<String> paths = new ArrayList<>();

		final AtomicInteger lowestWaiting = new AtomicInteger();

		private void add(String event, String path) {
			this.counts.computeIfAbsent(event + " " + path, (key) -> new AtomicLong()).incrementAndGet();
		}

		long count(String event, String path) {
			AtomicLong count = this.counts.get(event + " " + path);
			return (count != null) ? count.get() : 0;
		}

		long total(String event) {
			long total = 0;
			for (String path : this.paths) {
				total += count(event, path);
			}
			return total;
		}

		@Override
		public void onQueued(String path) {
			this.waiting.incrementAndGet();
			add("queued", path);
		}

		@Override
		public void onDequeued(String path) {
			this.lowestWaiting.accumulateAndGet(this.waiting.decrementAndGet(), Math::min);
			add("dequeued", path);
		}

		@Override
		public void onGranted(String path, long waitNanos) {
			add("granted", path);
		}

		@Override
		public void onReleased(String path, long serviceNanos) {
			add("released", path);
		}

		@Override
		public void onRejected(String path, RejectionReason reason, long waitNanos) {
			add(reason.tag(), path);
		}

	}

}
