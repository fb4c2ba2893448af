package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.pathfence.core.Inspection.isBorrowed;
import static io.pathfence.core.Inspection.isGranted;
import static io.pathfence.core.Inspection.isRejected;
import static io.pathfence.core.Inspection.isWaiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The scheduling rules of {@link PathFence}, one at a time, with exact counts and no
 * threads.
 */
class PathFenceTests {

	private final List<Ticket> granted = new ArrayList<>();

	private final Waiter waiter = Inspection.onGrant(this.granted::add);

	private final AtomicLong clock = new AtomicLong();

	private PathFence fence(int pool, int a, int b) {
		return PathFence.builder(pool)
			.path("a", a, 2, Duration.ZERO)
			.path("b", b, 2, Duration.ZERO)
			.nanoClock(this.clock::get)
			.build();
	}

	private Ticket acquire(PathFence fence, String path) {
		return fence.acquire(path, this.waiter);
	}

	@Test
	void localReservationTakesWhatThePathsLeaveOfThePool() {
		PathFence fence = fence(10, 3, 4);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(3);
		assertThat(fence.pathNames()).containsExactly("a", "b", "local");
	}

	@Test
	void taskOfPathRunsOnlyOnItsOwnPermitsAndThenQueuesInOrder() {
		PathFence fence = fence(10, 1, 4);
		Ticket first = acquire(fence, "a");
		Ticket second = acquire(fence, "a");
		Ticket third = acquire(fence, "a");
		assertThat(isGranted(first)).isTrue();
		assertThat(isWaiting(second)).isTrue();
		assertThat(isWaiting(third)).isTrue();
		assertThat(fence.figures("b").active()).isZero();
		first.release();
		assertThat(this.granted).containsExactly(second);
		assertThat(isWaiting(third)).isTrue();
	}

	@Test
	void fullQueueRejectsAtOnce() {
		PathFence fence = fence(10, 1, 4);
		acquire(fence, "a");
		acquire(fence, "a");
		acquire(fence, "a");
		Ticket overflow = acquire(fence, "a");
		assertThat(isRejected(overflow)).isTrue();
		assertThat(overflow.release()).isFalse();
		assertThat(fence.figures("a").queued()).isEqualTo(2);
	}

	@Test
	void localTaskBorrowsFromThePathWithFewestActiveTasksWhenLocalIsFull() {
		PathFence fence = fence(5, 2, 2);
		Ticket local = acquire(fence, PathFence.LOCAL);
		acquire(fence, "a");
		Ticket borrower = acquire(fence, PathFence.LOCAL);
		assertThat(isBorrowed(local)).isFalse();
		assertThat(isGranted(borrower)).isTrue();
		assertThat(isBorrowed(borrower)).isTrue();
		assertThat(fence.figures("b").borrowed()).isEqualTo(1);
		assertThat(fence.figures("a").borrowed()).isZero();
		assertThat(fence.figures(PathFence.LOCAL).borrowed()).isEqualTo(1);
	}

	@Test
	void repeatedBorrowingSpreadsOverThePathsByPermitsInUse() {
		PathFence fence = fence(5, 2, 2);
		acquire(fence, PathFence.LOCAL);
		Ticket first = acquire(fence, PathFence.LOCAL);
		Ticket second = acquire(fence, PathFence.LOCAL);
		// Neither path runs a task of its own; the second borrower goes to the path that
		// has not lent yet.
		assertThat(isBorrowed(first)).isTrue();
		assertThat(isBorrowed(second)).isTrue();
		assertThat(fence.figures("a").borrowed()).isEqualTo(1);
		assertThat(fence.figures("b").borrowed()).isEqualTo(1);
	}

	@Test
	void failingWaiterGivesItsPermitOnAndSparesTheReleasingThread() {
		PathFence fence = fence(10, 1, 1);
		Ticket holder = acquire(fence, "a");
		Ticket failing = fence.acquire("a", Inspection.onGrant((ticket) -> {
			throw new IllegalStateException("request already completed");
		}));
		Ticket next = acquire(fence, "a");
		assertThat(holder.release()).isTrue();
		assertThat(isGranted(failing)).isFalse();
		assertThat(isGranted(next)).isTrue();
		assertThat(this.granted).containsExactly(next);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void aLongRunOfFailingWaitersIsWalkedWithoutRecursion() {
		// 100,000 warnings with stack traces would drown the test's output.
		java.util.logging.Logger fenceLog = java.util.logging.Logger.getLogger(PathFence.class.getName());
		java.util.logging.Level level = fenceLog.getLevel();
		fenceLog.setLevel(java.util.logging.Level.OFF);
		try {
			walkFailingGrants();
		}
		finally {
			fenceLog.setLevel(level);
		}
	}

	private void walkFailingGrants() {
		PathFence fence = PathFence.builder(1).path("a", 1, 200_000, Duration.ZERO).build();
		Ticket holder = acquire(fence, "a");
		for (int i = 0; i < 100_000; i++) {
			fence.acquire("a", Inspection.onGrant((ticket) -> {
				throw new java.util.concurrent.RejectedExecutionException("workers are shutting down");
			}));
		}
		Ticket last = acquire(fence, "a");
		// Each failed grant hands the permit to the next waiter; one level of stack each
		// would overflow here.
		assertThat(holder.release()).isTrue();
		assertThat(this.granted).containsExactly(last);
		assertThat(fence.figures("a").queued()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void failingWaiterDoesNotStopAResizeGrantingTheOthers() {
		PathFence fence = PathFence.builder(10).path("a", 0, 3, Duration.ZERO).build();
		Ticket failing = fence.acquire("a", Inspection.onGrant((ticket) -> {
			throw new IllegalStateException("request already completed");
		}));
		Ticket second = acquire(fence, "a");
		Ticket third = acquire(fence, "a");
		fence.resize("a", 2);
		assertThat(isGranted(failing)).isFalse();
		assertThat(this.granted).containsExactlyInAnyOrder(second, third);
		assertThat(fence.figures("a").active()).isEqualTo(2);
	}

	@Test
	void releasedPathPermitGoesToItsOwnWaitingTaskBeforeALocalOne() {
		PathFence fence = fence(3, 1, 1);
		acquire(fence, PathFence.LOCAL);
		Ticket a = acquire(fence, "a");
		acquire(fence, "b");
		Ticket waitingA = acquire(fence, "a");
		Ticket waitingLocal = acquire(fence, PathFence.LOCAL);
		a.release();
		assertThat(this.granted).containsExactly(waitingA);
		assertThat(isWaiting(waitingLocal)).isTrue();
		waitingA.release();
		assertThat(this.granted).containsExactly(waitingA, waitingLocal);
		assertThat(isBorrowed(waitingLocal)).isTrue();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void underTheStrictRuleAReleasedPathPermitGoesToAWaitingLocalTaskFirst() {
		PathFence fence = PathFence.builder(3)
			.path("a", 1, 2, Duration.ZERO)
			.path("b", 1, 2, Duration.ZERO)
			.localPriority(LocalPriority.STRICT)
			.build();
		acquire(fence, PathFence.LOCAL);
		Ticket a = acquire(fence, "a");
		Ticket b = acquire(fence, "b");
		Ticket waitingA = acquire(fence, "a");
		Ticket waitingLocal = acquire(fence, PathFence.LOCAL);
		assertThat(isWaiting(waitingLocal)).isTrue();
		a.release();
		assertThat(this.granted).containsExactly(waitingLocal);
		assertThat(isBorrowed(waitingLocal)).isTrue();
		assertThat(isWaiting(waitingA)).isTrue();
		b.release();
		assertThat(isWaiting(waitingA)).isTrue();
		assertThat(fence.figures("b").active()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void borrowedPermitReturnsToItsOwner() {
		PathFence fence = fence(3, 1, 1);
		acquire(fence, PathFence.LOCAL);
		acquire(fence, "b");
		Ticket borrower = acquire(fence, PathFence.LOCAL);
		Ticket waitingA = acquire(fence, "a");
		assertThat(isBorrowed(borrower)).isTrue();
		assertThat(isWaiting(waitingA)).isTrue();
		borrower.release();
		assertThat(this.granted).containsExactly(waitingA);
		assertThat(fence.figures("a").borrowed()).isZero();
		assertThat(fence.figures(PathFence.LOCAL).borrowed()).isZero();
	}

	@Test
	void releaseTakesEffectExactlyOnce() {
		PathFence fence = fence(10, 1, 1);
		Ticket a = acquire(fence, "a");
		Ticket waiting = acquire(fence, "a");
		assertThat(a.release()).isTrue();
		assertThat(a.release()).isFalse();
		assertThat(fence.figures("a").active()).isEqualTo(1);
		assertThat(isGranted(waiting)).isTrue();
	}

	@Test
	void cancelledWaiterIsNeverGranted() {
		PathFence fence = fence(10, 1, 1);
		Ticket a = acquire(fence, "a");
		Ticket waiting = acquire(fence, "a");
		assertThat(waiting.cancel()).isTrue();
		assertThat(waiting.cancel()).isFalse();
		a.release();
		assertThat(this.granted).isEmpty();
		assertThat(fence.figures("a").active()).isZero();
	}

	@Test
	void growingReservationGrantsWaitersAtOnce() {
		PathFence fence = fence(10, 1, 1);
		acquire(fence, "a");
		Ticket w1 = acquire(fence, "a");
		Ticket w2 = acquire(fence, "a");
		fence.resize("a", 3);
		assertThat(this.granted).containsExactly(w1, w2);
		assertThat(fence.figures("a").active()).isEqualTo(3);
	}

	@Test
	void shrinkingReservationRetiresPermitsAsTasksFinish() {
		PathFence fence = fence(10, 2, 1);
		Ticket a1 = acquire(fence, "a");
		Ticket a2 = acquire(fence, "a");
		Ticket waiting = acquire(fence, "a");
		fence.resize("a", 1);
		a1.release();
		assertThat(isWaiting(waiting)).isTrue();
		a2.release();
		assertThat(this.granted).containsExactly(waiting);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void grownReservationWaitsForTheShrunkOnesPermitsToRetireBeforeThePoolIsExceeded() {
		PathFence fence = PathFence.builder(4)
			.path("a", 2, 2, Duration.ZERO)
			.path("b", 2, 4, Duration.ZERO)
			.local(0, 2, Duration.ZERO)
			.build();
		Ticket a1 = acquire(fence, "a");
		acquire(fence, "a");
		acquire(fence, "b");
		acquire(fence, "b");
		Ticket b3 = acquire(fence, "b");
		Ticket b4 = acquire(fence, "b");
		fence.resize("a", 0);
		fence.resize("b", 4);
		// b may have 4 permits, but a's 2 still run: the pool of 4 is full until they
		// finish.
		assertThat(this.granted).isEmpty();
		assertThat(isWaiting(b3)).isTrue();
		a1.release();
		assertThat(this.granted).containsExactly(b3);
		assertThat(isWaiting(b4)).isTrue();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void localRemainderFollowsPathResizes() {
		PathFence fence = fence(10, 2, 2);
		fence.resize("a", 5);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(3);
		assertThatIllegalArgumentException().isThrownBy(() -> fence.resize(PathFence.LOCAL, 2));
	}

	@Test
	void resizeBeyondThePoolIsRefused() {
		PathFence fence = PathFence.builder(10)
			.path("a", 2, 1, Duration.ZERO)
			.path("b", 2, 1, Duration.ZERO)
			.local(2, 1, Duration.ZERO)
			.build();
		assertThatIllegalArgumentException().isThrownBy(() -> fence.resize("a", 7)).withMessageContaining("pool of 10");
		fence.resize("a", 6);
		assertThat(fence.figures("a").permits()).isEqualTo(6);
	}

	@Test
	void pathsExceedingThePoolAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> PathFence.builder(4).path("a", 3, 1, Duration.ZERO).path("b", 2, 1, Duration.ZERO).build())
			.withMessageContaining("pool of 4");
	}

	@Test
	void unknownPathIsRefusedWithTheKnownOnes() {
		PathFence fence = fence(10, 1, 1);
		assertThatIllegalArgumentException().isThrownBy(() -> acquire(fence, "zzz"))
			.withMessageContaining("[a, b, local]");
	}

	@ParameterizedTest
	@ValueSource(strings = { "onQueued", "onDequeued", "onGranted", "onReleased", "onRejected" })
	void listenerThatThrowsLosesNoPermitAndStrandsNoTask(String failingEvent) {
		PathFence fence = withListener(PathFence.builder(1).path("a", 1, 3, Duration.ZERO),
				new ThrowingListener(failingEvent));
		Ticket holder = acquire(fence, "a");
		Ticket first = acquire(fence, "a");
		Ticket second = acquire(fence, "a");
		Ticket third = acquire(fence, "a");
		Ticket overflow = acquire(fence, "a");
		assertThat(holder.admission()).isEqualTo(Admission.GRANTED);
		assertThat(overflow.admission()).isEqualTo(Admission.REJECTED);
		assertThat(holder.release()).isTrue();
		assertThat(first.release()).isTrue();
		assertThat(second.release()).isTrue();
		assertThat(third.release()).isTrue();
		assertThat(this.granted).containsExactly(first, second, third);
		assertThat(fence.figures("a")).satisfies((figures) -> {
			assertThat(figures.active()).isZero();
			assertThat(figures.queued()).isZero();
		});
	}

	@Test
	void aWaitIsReportedOverOnlyAfterItIsReportedQueued() throws Exception {
		java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();
		java.util.concurrent.atomic.AtomicInteger lowest = new java.util.concurrent.atomic.AtomicInteger();
		PathFence fence = withListener(PathFence.builder(1).path("a", 1, 1, Duration.ZERO), new PathFenceListener() {
			@Override
			public void onQueued(String path) {
				// The acquiring thread is slow to report: the permit is freed meanwhile.
				try {
					released.await(2, java.util.concurrent.TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				waiting.incrementAndGet();
			}

			@Override
			public void onDequeued(String path) {
				lowest.accumulateAndGet(waiting.decrementAndGet(), Math::min);
			}
		});
		Ticket holder = acquire(fence, "a");
		java.util.concurrent.CompletableFuture<Ticket> waiter = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> fence.acquire("a", this.waiter));
		awaitTrue(() -> fence.figures("a").queued() == 1);
		holder.release();
		released.countDown();
		Ticket ticket = waiter.get(5, java.util.concurrent.TimeUnit.SECONDS);
		assertThat(this.granted).containsExactly(ticket);
		assertThat(lowest).as("fewest waiting as the listener counted them").hasValue(0);
		assertThat(waiting).hasValue(0);
	}

	@Test
	void resizeBeyondWhatThePoolCanHoldIsRefusedWithoutOverflow() {
		PathFence fence = fence(10, 2, 2);
		assertThatIllegalArgumentException().isThrownBy(() -> fence.resize("a", Integer.MAX_VALUE))
			.withMessageContaining("pool of 10");
		assertThat(fence.figures("a").permits()).isEqualTo(2);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
		assertThat(acquire(fence, "b").admission()).isEqualTo(Admission.GRANTED);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PathFence.builder(10)
				.path("a", Integer.MAX_VALUE, 1, Duration.ZERO)
				.path("b", Integer.MAX_VALUE, 1, Duration.ZERO)
				.build())
			.withMessageContaining("pool of 10");
	}

	@Test
	void byDefaultALocalFloodDoesNotStarveAPathOfItsOwnPermits() {
		PathFence fence = PathFence.builder(4).path("a", 2, 100, Duration.ZERO).local(2, 300, Duration.ZERO).build();
		Flood flood = flood(fence, 200, 40);
		assertThat(flood.pathGrantsBeforeLocalGrant(100)).as("tasks of a run before the 100th local task")
			.isEqualTo(40);
	}

	@Test
	void underTheStrictRuleALocalFloodTakesAPathsPermitsBeforeItsOwnTasks() {
		PathFence fence = PathFence.builder(4)
			.path("a", 2, 100, Duration.ZERO)
			.local(2, 300, Duration.ZERO)
			.localPriority(LocalPriority.STRICT)
			.build();
		Flood flood = flood(fence, 200, 40);
		assertThat(flood.pathGrantsBeforeLocalGrant(200)).as("tasks of a run before the last local task").isZero();
	}

	@Test
	void waitPastTheQueueTimeoutExpiresOnAnExpiryThreadAndIsHeardWithItsLength() throws Exception {
		List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
		PathFence fence = withListener(PathFence.builder(2).path("a", 1, 5, Duration.ofMillis(50)),
				new PathFenceListener() {
					@Override
					public void onDequeued(String path) {
						events.add("dequeued " + path);
					}

					@Override
					public void onRejected(String path, RejectionReason reason, long waitNanos) {
						events.add("rejected " + path + " " + reason.tag() + " "
								+ (waitNanos >= Duration.ofMillis(50).toNanos()));
					}
				});
		try {
			acquire(fence, "a");
			java.util.concurrent.CompletableFuture<String> expiredOn = new java.util.concurrent.CompletableFuture<>();
			long queued = System.nanoTime();
			Ticket waiting = fence.acquire("a", Inspection.waiter(this.granted::add,
					(ticket) -> expiredOn.complete(Thread.currentThread().getName())));
			assertThat(waiting.admission()).isEqualTo(Admission.QUEUED);
			assertThat(expiredOn.get(5, java.util.concurrent.TimeUnit.SECONDS)).startsWith("pathfence-expiry-");
			assertThat(System.nanoTime() - queued).isGreaterThanOrEqualTo(Duration.ofMillis(50).toNanos());
			assertThat(Inspection.stateOf(waiting)).isEqualTo(Ticket.State.EXPIRED);
			assertThat(waiting.cancel()).isFalse();
			assertThat(fence.figures("a").queued()).isZero();
			assertThat(events).containsExactly("dequeued a", "rejected a timeout true");
			assertThat(this.granted).isEmpty();
		}
		finally {
			fence.close();
		}
	}

	@Test
	void slowExpiryCallbackOfOnePathDelaysNoExpiryOfAnother() throws Exception {
		PathFence fence = PathFence.builder(2)
			.path("a", 1, 5, Duration.ofMillis(50))
			.path("b", 1, 5, Duration.ofMillis(50))
			.build();
		try {
			acquire(fence, "a");
			acquire(fence, "b");
			java.util.concurrent.CountDownLatch slowCallbackRuns = new java.util.concurrent.CountDownLatch(1);
			fence.acquire("a", Inspection.waiter(this.granted::add, (ticket) -> {
				slowCallbackRuns.countDown();
				sleep(1500);
			}));
			assertThat(slowCallbackRuns.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			java.util.concurrent.CompletableFuture<Long> expiredAt = new java.util.concurrent.CompletableFuture<>();
			long queued = System.nanoTime();
			fence.acquire("b", Inspection.waiter(this.granted::add, (ticket) -> expiredAt.complete(System.nanoTime())));
			long tookMillis = java.util.concurrent.TimeUnit.NANOSECONDS
				.toMillis(expiredAt.get(5, java.util.concurrent.TimeUnit.SECONDS) - queued);
			assertThat(tookMillis).as("b's 50 ms timeout, not a's 1.5 s callback").isLessThan(750);
		}
		finally {
			fence.close();
		}
	}

	@Test
	void waitThatEndsBeforeItIsReportedIsToldByTheAcquiringThreadAfterTheQueuedEvent() throws Exception {
		List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
		PathFence[] fence = new PathFence[1];
		fence[0] = withListener(PathFence.builder(1).path("a", 1, 5, Duration.ofMillis(1)), new PathFenceListener() {
			@Override
			public void onQueued(String path) {
				// Slow to report: the ticket expires, and its lane gets to it, meanwhile.
				long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
				while (fence[0].figures("a").queued() > 0 && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
				sleep(100);
				events.add("queued");
			}

			@Override
			public void onDequeued(String path) {
				events.add("dequeued");
			}

			@Override
			public void onRejected(String path, RejectionReason reason, long waitNanos) {
				events.add("rejected " + reason.tag());
			}
		});
		try {
			acquire(fence[0], "a");
			List<String> expiredOn = new java.util.concurrent.CopyOnWriteArrayList<>();
			Ticket waiting = fence[0].acquire("a",
					Inspection.waiter(this.granted::add, (ticket) -> expiredOn.add(Thread.currentThread().getName())));
			assertThat(waiting.admission()).isEqualTo(Admission.QUEUED);
			awaitTrue(() -> events.size() == 3);
			assertThat(events).containsExactly("queued", "dequeued", "rejected timeout");
			assertThat(expiredOn).hasSize(1);
		}
		finally {
			fence[0].close();
		}
	}

	@Test
	void closedFenceAdmitsNoTaskAndExpiresEveryWaiter() throws Exception {
		PathFence fence = PathFence.builder(2).path("a", 1, 5, Duration.ZERO).build();
		Ticket holder = acquire(fence, "a");
		java.util.concurrent.CompletableFuture<Ticket> expired = new java.util.concurrent.CompletableFuture<>();
		Ticket waiting = fence.acquire("a", Inspection.waiter(this.granted::add, expired::complete));
		fence.close();
		assertThat(expired.get(5, java.util.concurrent.TimeUnit.SECONDS)).isSameAs(waiting);
		assertThatIllegalStateException().isThrownBy(() -> acquire(fence, "a")).withMessageContaining("closed");
		assertThat(holder.release()).isTrue();
		assertThat(this.granted).isEmpty();
		assertThat(fence.figures("a").active()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void cancelWaitingTakesBackOnlyTheMatchingWaiters() {
		PathFence fence = fence(2, 1, 1);
		acquire(fence, "a");
		acquire(fence, "b");
		Waiter mine = Inspection.onGrant(this.granted::add);
		Ticket myA = fence.acquire("a", mine);
		Ticket other = acquire(fence, "a");
		Ticket myB = fence.acquire("b", mine);
		assertThat(fence.cancelWaiting((waiter) -> waiter == mine)).containsExactly(mine, mine);
		assertThat(Inspection.stateOf(myA)).isEqualTo(Ticket.State.CANCELLED);
		assertThat(Inspection.stateOf(myB)).isEqualTo(Ticket.State.CANCELLED);
		assertThat(isWaiting(other)).isTrue();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void queueTimeoutBeyondWhatNanosecondsCanCountIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PathFence.builder(1).path("a", 1, 1, Duration.ofDays(106_752)))
			.withMessageContaining("path 'a' needs a queue timeout of at most");
	}

	@Test
	void cancellingQueuedWorkTakesConstantTimeEach() {
		PathFence fence = PathFence.builder(1).path("a", 1, 200_000, Duration.ZERO).build();
		acquire(fence, "a");
		List<Ticket> waiting = new ArrayList<>();
		for (int i = 0; i < 100_000; i++) {
			waiting.add(acquire(fence, "a"));
		}
		long started = System.nanoTime();
		for (int i = waiting.size() - 1; i >= 0; i--) {
			assertThat(waiting.get(i).cancel()).isTrue();
		}
		long tookMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		assertThat(fence.figures("a").queued()).isZero();
		assertThat(tookMillis).as("100,000 cancels, last queued first").isLessThan(2000);
	}

	/**
	 * Local tasks flood the fence while a path's own tasks queue; then, one at a time,
	 * the task that has run longest finishes. Records the order in which tasks got
	 * permits.
	 */
	private Flood flood(PathFence fence, int localTasks, int pathTasks) {
		List<Ticket> order = new ArrayList<>();
		java.util.ArrayDeque<Ticket> running = new java.util.ArrayDeque<>();
		Waiter onGrant = Inspection.onGrant((ticket) -> {
			order.add(ticket);
			running.add(ticket);
		});
		for (int i = 0; i < localTasks; i++) {
			Ticket ticket = fence.acquire(PathFence.LOCAL, onGrant);
			if (ticket.admission() == Admission.GRANTED) {
				onGrant.granted(ticket);
			}
		}
		for (int i = 0; i < pathTasks; i++) {
			Ticket ticket = fence.acquire("a", onGrant);
			if (ticket.admission() == Admission.GRANTED) {
				onGrant.granted(ticket);
			}
		}
		Ticket finished;
		while ((finished = running.poll()) != null) {
			finished.release();
		}
		assertThat(order).hasSize(localTasks + pathTasks);
		return new Flood(order);
	}

	private record Flood(List<Ticket> order) {

		/** How many tasks of path a got a permit before the n-th local task did. */
		long pathGrantsBeforeLocalGrant(int n) {
			int locals = 0;
			long paths = 0;
			for (Ticket ticket : this.order) {
				if (ticket.path().equals(PathFence.LOCAL)) {
					if (++locals == n) {
						return paths;
					}
				}
				else {
					paths++;
				}
			}
			return paths;
		}

	}

	private static PathFence withListener(PathFenceBuilder builder, PathFenceListener listener) {
		PathFence fence = builder.build();
		fence.addListener(listener);
		return fence;
	}

	/** Throws from one kind of event. */
	private record ThrowingListener(String event) implements PathFenceListener {

		private void fail(String called) {
			if (called.equals(this.event)) {
				throw new IllegalStateException(called + " failed");
			}
		}

		@Override
		public void onQueued(String path) {
			fail("onQueued");
		}

		@Override
		public void onDequeued(String path) {
			fail("onDequeued");
		}

		@Override
		public void onGranted(String path, long waitNanos) {
			fail("onGranted");
		}

		@Override
		public void onReleased(String path, long serviceNanos) {
			fail("onReleased");
		}

		@Override
		public void onRejected(String path, RejectionReason reason, long waitNanos) {
			fail("onRejected");
		}

	}

	@Test
	void listenerHearsWaitAndServiceTimes() {
		List<String> events = new ArrayList<>();
		PathFence fence = withListener(PathFence.builder(1).path("a", 1, 1, Duration.ZERO).nanoClock(this.clock::get),
				new PathFenceListener() {
					@Override
					public void onQueued(String path) {
						events.add("queued " + path);
					}

					@Override
					public void onDequeued(String path) {
						events.add("dequeued " + path);
					}

					@Override
					public void onGranted(String path, long waitNanos) {
						events.add("granted " + path + " " + waitNanos);
					}

					@Override
					public void onReleased(String path, long serviceNanos) {
						events.add("released " + path + " " + serviceNanos);
					}

					@Override
					public void onRejected(String path, RejectionReason reason, long waitNanos) {
						events.add("rejected " + path + " " + reason.tag() + " " + waitNanos);
					}
				});
		Ticket first = acquire(fence, "a");
		this.clock.set(100);
		acquire(fence, "a");
		acquire(fence, "a");
		this.clock.set(250);
		first.release();
		assertThat(events).containsExactly("granted a 0", "queued a", "rejected a queue-full 0", "released a 250",
				"dequeued a", "granted a 150");
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void awaitTrue(java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("waited 5 s for a condition").isNegative();
			Thread.onSpinWait();
		}
	}

}
