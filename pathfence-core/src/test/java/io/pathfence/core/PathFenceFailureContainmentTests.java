package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import static io.pathfence.core.Inspection.isGranted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failures the fence does not cause but must survive: an {@link Error} from a waiter, a
 * listener, a predicate or the clock may fail the call that ran it, but never leaves a
 * permit held, a waiter untold, or a path without its timeouts.
 */
class PathFenceFailureContainmentTests {

	private final List<Ticket> granted = new ArrayList<>();

	@Test
	void anErrorInOneExpiryCallbackDoesNotEndThePathsLaterTimeouts() throws Exception {
		PathFence fence = PathFence.builder(1).path("a", 1, 5, Duration.ofMillis(20)).build();
		try {
			fence.acquire("a", Inspection.onGrant(this.granted::add));
			fence.acquire("a", Inspection.waiter(this.granted::add, (ticket) -> {
				throw new StackOverflowError();
			}));
			Thread.sleep(100);
			CountDownLatch expired = new CountDownLatch(1);
			fence.acquire("a", Inspection.waiter(this.granted::add, (ticket) -> expired.countDown()));
			assertThat(expired.await(1, TimeUnit.SECONDS)).as("the next waiter's expiry").isTrue();
		}
		finally {
			fence.close();
		}
	}

	@Test
	void aClockThatFailsOnceOnTheTimerThreadDoesNotEndTheTimeouts() throws Exception {
		AtomicInteger timerReads = new AtomicInteger();
		LongSupplier clock = () -> {
			if (Thread.currentThread().getName().equals("pathfence-wait-timer") && timerReads.incrementAndGet() == 3) {
				throw new StackOverflowError();
			}
			return System.nanoTime();
		};
		PathFence fence = PathFence.builder(1).path("a", 1, 5, Duration.ofMillis(20)).nanoClock(clock).build();
		try {
			fence.acquire("a", Inspection.onGrant(this.granted::add));
			for (int i = 0; i < 10; i++) {
				CountDownLatch expired = new CountDownLatch(1);
				fence.acquire("a", Inspection.waiter(this.granted::add, (ticket) -> expired.countDown()));
				assertThat(expired.await(200, TimeUnit.MILLISECONDS)).as("expiry of waiter %d", i).isTrue();
			}
			assertThat(timerReads.get()).as("reads of the clock by the timer").isGreaterThan(3);
		}
		finally {
			fence.close();
		}
	}

	@Test
	void anErrorFromOneGrantedWaiterDuringAResizeStrandsNoOtherGrant() {
		PathFence fence = PathFence.builder(10).path("a", 0, 3, Duration.ZERO).build();
		Ticket failing = fence.acquire("a", Inspection.onGrant((ticket) -> {
			throw new AssertionError("waiter broke");
		}));
		Ticket second = fence.acquire("a", Inspection.onGrant(this.granted::add));
		assertThatThrownBy(() -> fence.resize("a", 2)).isInstanceOf(AssertionError.class);
		assertThat(isGranted(failing)).isFalse();
		assertThat(this.granted).containsExactly(second);
		assertThat(fence.figures("a").active()).isEqualTo(1);
		second.release();
		assertThat(fence.figures("a").active()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void anErrorFromOneGrantedWaiterWhenAPathIsAddedStrandsNoOtherGrant() {
		PathFence fence = PathFence.builder(10).local(2, 5, Duration.ZERO).build();
		Ticket running = fence.acquire(PathFence.LOCAL, Inspection.onGrant(this.granted::add));
		Ticket alsoRunning = fence.acquire(PathFence.LOCAL, Inspection.onGrant(this.granted::add));
		Ticket failing = fence.acquire(PathFence.LOCAL, Inspection.onGrant((ticket) -> {
			throw new AssertionError("waiter broke");
		}));
		Ticket second = fence.acquire(PathFence.LOCAL, Inspection.onGrant(this.granted::add));
		assertThat(Inspection.isWaiting(failing)).isTrue();
		assertThat(Inspection.isWaiting(second)).isTrue();
		// The new path's idle permits are lent at once to the two local tasks waiting.
		assertThatThrownBy(() -> fence.addPath("b", 2, 3, Duration.ZERO)).isInstanceOf(AssertionError.class);
		assertThat(this.granted).as("the waiter after the one that failed").contains(second);
		assertThat(Inspection.isBorrowed(second)).isTrue();
		assertThat(isGranted(failing)).as("the failed waiter's permit went back").isFalse();
		assertThat(fence.figures("b").borrowed()).as("b's permits lent").isEqualTo(1);
		second.release();
		alsoRunning.release();
		running.release();
		assertThat(fence.figures("b").borrowed()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void anErrorFromAListenerOfTheAddedPathStrandsNoGrant() {
		PathFence fence = PathFence.builder(10).local(1, 5, Duration.ZERO).build();
		Ticket running = fence.acquire(PathFence.LOCAL, Inspection.onGrant(this.granted::add));
		Ticket waiting = fence.acquire(PathFence.LOCAL, Inspection.onGrant(this.granted::add));
		fence.addListener(new PathFenceListener() {
			@Override
			public void onPathAdded(String path, int permits) {
				throw new StackOverflowError();
			}
		});
		assertThatThrownBy(() -> fence.addPath("b", 1, 3, Duration.ZERO)).isInstanceOf(StackOverflowError.class);
		assertThat(this.granted).as("the local task that borrowed the new path's permit").contains(waiting);
		assertThat(fence.figures("b").borrowed()).as("b's permit lent").isEqualTo(1);
		waiting.release();
		running.release();
		assertThat(fence.figures("b").borrowed()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void aFatalErrorFromAListenerOnAnImmediateGrantLeavesNoPermitHeld() {
		PathFence fence = PathFence.builder(1).path("a", 1, 5, Duration.ZERO).build();
		fence.addListener(new PathFenceListener() {
			@Override
			public void onGranted(String path, long waitNanos) {
				throw new StackOverflowError();
			}
		});
		assertThatThrownBy(() -> fence.acquire("a", Inspection.onGrant(this.granted::add)))
			.isInstanceOf(StackOverflowError.class);
		assertThat(fence.figures("a").active()).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void aFatalErrorFromAListenerOnQueueingLeavesNothingWaiting() {
		PathFence fence = PathFence.builder(1).path("a", 1, 5, Duration.ZERO).build();
		Ticket holder = fence.acquire("a", Inspection.onGrant(this.granted::add));
		fence.addListener(new PathFenceListener() {
			@Override
			public void onQueued(String path) {
				throw new StackOverflowError();
			}
		});
		assertThatThrownBy(() -> fence.acquire("a", Inspection.onGrant(this.granted::add)))
			.isInstanceOf(StackOverflowError.class);
		assertThat(fence.figures("a").queued()).isZero();
		holder.release();
		assertThat(this.granted).as("a task whose acquire failed is never granted").isEmpty();
		assertThat(fence.figures("a").active()).isZero();
	}

	@Test
	void aPredicateThatThrowsWhileCancellingLeavesEveryTicketWaitingOrHeardOf() {
		AtomicInteger dequeued = new AtomicInteger();
		PathFence fence = PathFence.builder(1).path("a", 1, 5, Duration.ZERO).build();
		fence.acquire("a", Inspection.onGrant(this.granted::add));
		fence.addListener(new PathFenceListener() {
			@Override
			public void onDequeued(String path) {
				dequeued.incrementAndGet();
			}
		});
		List<Waiter> waiters = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Waiter waiter = Inspection.onGrant(this.granted::add);
			waiters.add(waiter);
			fence.acquire("a", waiter);
		}
		assertThatThrownBy(() -> fence.cancelWaiting((waiter) -> {
			if (waiter == waiters.get(1)) {
				throw new IllegalStateException("predicate broke");
			}
			return true;
		})).isInstanceOf(IllegalStateException.class);
		assertThat(fence.figures("a").queued() + dequeued.get()).as("waiting, or heard leaving the queue").isEqualTo(3);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

}
