package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The scheduling rules of {@link PathFence}, one at a time, with exact counts and no
 * threads.
 */
class PathFenceTests {

	private final List<Ticket> granted = new ArrayList<>();

	private final AtomicLong clock = new AtomicLong();

	private PathFence fence(int pool, int a, int b) {
		return PathFence.builder(pool)
			.path("a", a, 2, Duration.ZERO)
			.path("b", b, 2, Duration.ZERO)
			.nanoClock(this.clock::get)
			.build();
	}

	private Ticket acquire(PathFence fence, String path) {
		return fence.acquire(path, this.granted::add);
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
		assertThat(first.isGranted()).isTrue();
		assertThat(second.isWaiting()).isTrue();
		assertThat(third.isWaiting()).isTrue();
		assertThat(fence.figures("b").active()).isZero();
		first.release();
		assertThat(this.granted).containsExactly(second);
		assertThat(third.isWaiting()).isTrue();
	}

	@Test
	void fullQueueRejectsAtOnce() {
		PathFence fence = fence(10, 1, 4);
		acquire(fence, "a");
		acquire(fence, "a");
		acquire(fence, "a");
		Ticket overflow = acquire(fence, "a");
		assertThat(overflow.isRejected()).isTrue();
		assertThat(overflow.release()).isFalse();
		assertThat(fence.figures("a").queued()).isEqualTo(2);
	}

	@Test
	void localTaskBorrowsFromThePathWithFewestActiveTasksWhenLocalIsFull() {
		PathFence fence = fence(5, 2, 2);
		Ticket local = acquire(fence, PathFence.LOCAL);
		acquire(fence, "a");
		Ticket borrower = acquire(fence, PathFence.LOCAL);
		assertThat(local.isBorrowed()).isFalse();
		assertThat(borrower.isGranted()).isTrue();
		assertThat(borrower.isBorrowed()).isTrue();
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
		assertThat(first.isBorrowed()).isTrue();
		assertThat(second.isBorrowed()).isTrue();
		assertThat(fence.figures("a").borrowed()).isEqualTo(1);
		assertThat(fence.figures("b").borrowed()).isEqualTo(1);
	}

	@Test
	void failingGrantListenerGivesItsPermitOnAndSparesTheReleasingThread() {
		PathFence fence = fence(10, 1, 1);
		Ticket holder = acquire(fence, "a");
		Ticket failing = fence.acquire("a", (ticket) -> {
			throw new IllegalStateException("request already completed");
		});
		Ticket next = acquire(fence, "a");
		assertThat(holder.release()).isTrue();
		assertThat(failing.isGranted()).isFalse();
		assertThat(next.isGranted()).isTrue();
		assertThat(this.granted).containsExactly(next);
		assertThat(fence.invariantViolations()).isEmpty();
	}

	@Test
	void aLongRunOfFailingGrantListenersIsWalkedWithoutRecursion() {
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
			fence.acquire("a", (ticket) -> {
				throw new java.util.concurrent.RejectedExecutionException("workers are shutting down");
			});
		}
		Ticket last = acquire(fence, "a");
		// Each failed grant hands the permit to the next waiter; one level of stack each
		// would overflow here.
		assertThat(holder.release()).isTrue();
		assertThat(this.granted).containsExactly(last);
		assertThat(fence.figures("a").queued()).isZero();
		assertThat(fence.invariantViolations()).isEmpty();
	}

	@Test
	void failingGrantListenerDoesNotStopAResizeGrantingTheOthers() {
		PathFence fence = PathFence.builder(10).path("a", 0, 3, Duration.ZERO).build();
		Ticket failing = fence.acquire("a", (ticket) -> {
			throw new IllegalStateException("request already completed");
		});
		Ticket second = acquire(fence, "a");
		Ticket third = acquire(fence, "a");
		fence.resize("a", 2);
		assertThat(failing.isGranted()).isFalse();
		assertThat(this.granted).containsExactlyInAnyOrder(second, third);
		assertThat(fence.figures("a").active()).isEqualTo(2);
	}

	@Test
	void releasedPathPermitGoesToWaitingLocalTaskBeforeItsOwnPath() {
		PathFence fence = fence(3, 1, 1);
		acquire(fence, PathFence.LOCAL);
		Ticket a = acquire(fence, "a");
		Ticket b = acquire(fence, "b");
		Ticket waitingA = acquire(fence, "a");
		Ticket waitingLocal = acquire(fence, PathFence.LOCAL);
		assertThat(waitingLocal.isWaiting()).isTrue();
		a.release();
		assertThat(this.granted).containsExactly(waitingLocal);
		assertThat(waitingLocal.isBorrowed()).isTrue();
		assertThat(waitingA.isWaiting()).isTrue();
		b.release();
		assertThat(waitingA.isWaiting()).isTrue();
		assertThat(fence.figures("b").active()).isZero();
	}

	@Test
	void borrowedPermitReturnsToItsOwner() {
		PathFence fence = fence(3, 1, 1);
		acquire(fence, PathFence.LOCAL);
		acquire(fence, "b");
		Ticket borrower = acquire(fence, PathFence.LOCAL);
		Ticket waitingA = acquire(fence, "a");
		assertThat(borrower.isBorrowed()).isTrue();
		assertThat(waitingA.isWaiting()).isTrue();
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
		assertThat(waiting.isGranted()).isTrue();
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
		assertThat(waiting.isWaiting()).isTrue();
		a2.release();
		assertThat(this.granted).containsExactly(waiting);
		assertThat(fence.invariantViolations()).isEmpty();
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
		assertThat(b3.isWaiting()).isTrue();
		a1.release();
		assertThat(this.granted).containsExactly(b3);
		assertThat(b4.isWaiting()).isTrue();
		assertThat(fence.invariantViolations()).isEmpty();
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

	@Test
	void listenerHearsWaitAndServiceTimes() {
		List<String> events = new ArrayList<>();
		PathFence fence = PathFence.builder(1)
			.path("a", 1, 1, Duration.ZERO)
			.nanoClock(this.clock::get)
			.listener(new PathFenceListener() {
				@Override
				public void onGranted(String path, long waitNanos) {
					events.add("granted " + path + " " + waitNanos);
				}

				@Override
				public void onReleased(String path, long serviceNanos) {
					events.add("released " + path + " " + serviceNanos);
				}

				@Override
				public void onRejected(String path, RejectionReason reason) {
					events.add("rejected " + path + " " + reason.tag());
				}
			})
			.build();
		Ticket first = acquire(fence, "a");
		this.clock.set(100);
		Ticket second = acquire(fence, "a");
		acquire(fence, "a");
		this.clock.set(250);
		first.release();
		second.expire();
		assertThat(events).containsExactly("granted a 0", "rejected a queue-full", "released a 250", "granted a 150");
	}

}
