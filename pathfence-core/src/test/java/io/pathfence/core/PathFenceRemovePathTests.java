package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static io.pathfence.core.Inspection.isBorrowed;
import static io.pathfence.core.Inspection.isGranted;
import static io.pathfence.core.Inspection.isRejected;
import static io.pathfence.core.Inspection.isWaiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Removing a path reservation at run time ({@link PathFence#removePath}): its permits go
 * back to the local reservation without oversubscribing the pool, and no task of it is
 * left waiting.
 */
class PathFenceRemovePathTests {

	private final List<Ticket> granted = new CopyOnWriteArrayList<>();

	private final Waiter waiter = Inspection.onGrant(this.granted::add);

	private Ticket acquire(PathFence fence, String path) {
		return fence.acquire(path, this.waiter);
	}

	private static int held(PathFence fence) {
		return fence.figures().stream().mapToInt(PathFigures::active).sum();
	}

	@Test
	void removedPathsPermitsGoBackToTheLocalRemainder() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).build();
		fence.addPath("c", 4, 2, Duration.ZERO);
		fence.removePath("c");
		assertThat(fence.pathNames()).containsExactly("a", PathFence.LOCAL);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(7);
		assertThatIllegalArgumentException().isThrownBy(() -> acquire(fence, "c"))
			.withMessageContaining("unknown path 'c'");
		// The name is free again.
		fence.addPath("c", 2, 2, Duration.ZERO);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(5);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void explicitlySizedLocalReservationGetsThePermitsBack() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).local(5, 2, Duration.ZERO).build();
		fence.addPath("c", 2, 2, Duration.ZERO);
		fence.removePath("c");
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(5);
		fence.removePath("a");
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(8);
		assertThat(fence.pathNames()).containsExactly(PathFence.LOCAL);
	}

	@Test
	void runningTasksKeepTheirPermitsWhichRetireAsTheyFinishWithoutOversubscribingThePool() {
		PathFence fence = PathFence.builder(4).path("a", 2, 2, Duration.ZERO).build();
		Ticket first = acquire(fence, "a");
		Ticket second = acquire(fence, "a");
		acquire(fence, PathFence.LOCAL);
		acquire(fence, PathFence.LOCAL);
		fence.removePath("a");
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(4);
		Ticket waiting = acquire(fence, PathFence.LOCAL);
		// Local has two free permits now, but the pool is full: the removed path's two
		// tasks still hold theirs, though the fence's figures no longer list the path.
		assertThat(isWaiting(waiting)).isTrue();
		assertThat(held(fence)).isEqualTo(2);
		first.release();
		assertThat(this.granted).containsExactly(waiting);
		assertThat(held(fence)).isEqualTo(3);
		second.release();
		assertThat(held(fence)).isEqualTo(3);
		assertThat(isGranted(acquire(fence, PathFence.LOCAL))).isTrue();
		assertThat(isWaiting(acquire(fence, PathFence.LOCAL))).isTrue();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void aLocalTaskOnABorrowedPermitOfTheRemovedPathReleasesIt() {
		PathFence fence = PathFence.builder(3).path("a", 2, 2, Duration.ZERO).build();
		acquire(fence, PathFence.LOCAL);
		Ticket borrowing = acquire(fence, PathFence.LOCAL);
		assertThat(isBorrowed(borrowing)).isTrue();
		fence.removePath("a");
		borrowing.release();
		assertThat(held(fence)).isEqualTo(1);
		assertThat(isGranted(acquire(fence, PathFence.LOCAL))).isTrue();
		assertThat(isGranted(acquire(fence, PathFence.LOCAL))).isTrue();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void tasksWaitingForTheRemovedPathExpireAtOnceEvenWithoutAQueueTimeout() throws Exception {
		PathFence fence = PathFence.builder(4).path("a", 1, 5, Duration.ZERO).build();
		List<String> heard = new CopyOnWriteArrayList<>();
		fence.addListener(new PathFenceListener() {
			@Override
			public void onRejected(String path, RejectionReason reason, long waitNanos) {
				heard.add("rejected " + path + " " + reason);
			}

			@Override
			public void onPathRemoved(String path, int permits) {
				heard.add("removed " + path + " " + permits);
			}
		});
		Ticket running = acquire(fence, "a");
		CountDownLatch expired = new CountDownLatch(2);
		List<Ticket> expiredTickets = new CopyOnWriteArrayList<>();
		Waiter told = Inspection.waiter(this.granted::add, (ticket) -> {
			expiredTickets.add(ticket);
			expired.countDown();
		});
		Ticket w1 = fence.acquire("a", told);
		Ticket w2 = fence.acquire("a", told);
		assertThat(isWaiting(w1)).isTrue();
		fence.removePath("a");
		assertThat(expired.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(expiredTickets).containsExactly(w1, w2);
		running.release();
		assertThat(this.granted).isEmpty();
		assertThat(held(fence)).isZero();
		assertThat(heard).contains("removed a 1", "rejected a TIMEOUT");
		assertThat(Inspection.violations(fence)).isEmpty();
		fence.close();
	}

	@Test
	void aListenerThatBlocksOnRemovalDelaysNoWaitersExpiry() throws Exception {
		PathFence fence = PathFence.builder(4).path("a", 1, 5, Duration.ZERO).build();
		CountDownLatch listenerEntered = new CountDownLatch(1);
		CountDownLatch unblock = new CountDownLatch(1);
		fence.addListener(new PathFenceListener() {
			@Override
			public void onPathRemoved(String path, int permits) {
				listenerEntered.countDown();
				try {
					unblock.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		});
		Ticket running = acquire(fence, "a");
		CountDownLatch expired = new CountDownLatch(1);
		Waiter told = Inspection.waiter(this.granted::add, (ticket) -> expired.countDown());
		Ticket waiting = fence.acquire("a", told);
		assertThat(isWaiting(waiting)).isTrue();
		Thread remover = new Thread(() -> fence.removePath("a"));
		remover.start();
		try {
			assertThat(listenerEntered.await(5, TimeUnit.SECONDS)).isTrue();
			// The user's listener still blocks; the waiter is told all the same.
			assertThat(expired.await(5, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			unblock.countDown();
			remover.join();
		}
		running.release();
		assertThat(Inspection.violations(fence)).isEmpty();
		fence.close();
	}

	@Test
	void removingIfIdleKeepsAPathWhileATaskOfItRunsOrWaits() {
		PathFence fence = PathFence.builder(4).path("a", 1, 5, Duration.ZERO).build();
		Ticket running = acquire(fence, "a");
		assertThat(fence.removePathIfIdle("a")).as("a task runs").isFalse();
		Ticket waiting = acquire(fence, "a");
		assertThat(isWaiting(waiting)).isTrue();
		running.release();
		assertThat(this.granted).containsExactly(waiting);
		assertThat(fence.removePathIfIdle("a")).as("the granted waiter runs").isFalse();
		waiting.release();
		// A local task on the path's lent permit does not keep the path.
		acquire(fence, PathFence.LOCAL);
		acquire(fence, PathFence.LOCAL);
		acquire(fence, PathFence.LOCAL);
		Ticket borrowing = acquire(fence, PathFence.LOCAL);
		assertThat(isBorrowed(borrowing)).isTrue();
		assertThat(fence.removePathIfIdle("a")).isTrue();
		assertThat(fence.pathNames()).containsExactly(PathFence.LOCAL);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(4);
		borrowing.release();
		assertThat(held(fence)).isEqualTo(3);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void removingIfIdleKeepsAPathWithAWaiterAndTellsTheWaiterNothing() {
		PathFence fence = PathFence.builder(2).path("a", 1, 5, Duration.ZERO).build();
		Ticket running = acquire(fence, "a");
		List<Ticket> expired = new CopyOnWriteArrayList<>();
		Ticket waiting = fence.acquire("a", Inspection.waiter(this.granted::add, expired::add));
		assertThat(isWaiting(waiting)).isTrue();
		assertThat(fence.removePathIfIdle("a")).isFalse();
		assertThat(fence.hasPath("a")).isTrue();
		assertThat(isWaiting(waiting)).isTrue();
		assertThat(expired).isEmpty();
		running.release();
		waiting.release();
		assertThat(fence.removePathIfIdle("a")).isTrue();
		assertThat(held(fence)).isZero();
		assertThat(Inspection.violations(fence)).isEmpty();
		fence.close();
	}

	@Test
	void refusesLocalUnknownAndAClosedFence() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).build();
		assertThatIllegalArgumentException().isThrownBy(() -> fence.removePath(PathFence.LOCAL))
			.withMessageContaining("cannot be removed");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.removePath("c"))
			.withMessageContaining("unknown path 'c'");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.removePathIfIdle(PathFence.LOCAL))
			.withMessageContaining("cannot be removed");
		fence.close();
		assertThatIllegalStateException().isThrownBy(() -> fence.removePath("a")).withMessageContaining("closed");
		assertThatIllegalStateException().isThrownBy(() -> fence.removePathIfIdle("a")).withMessageContaining("closed");
	}

	/**
	 * Many threads acquire and release on a path while it is removed and added again: the
	 * permits held never outnumber the pool, every ticket ends, and the permits add up to
	 * the pool at the end.
	 */
	@Test
	void removingAndAddingUnderLoadConservesPermitsAndStrandsNoWaiter() throws Exception {
		PathFence fence = PathFence.builder(6).path("a", 2, 4, Duration.ZERO).build();
		List<String> problems = new CopyOnWriteArrayList<>();
		List<Ticket> open = new CopyOnWriteArrayList<>();
		Waiter waiter = Inspection.waiter((ticket) -> {
			if (held(fence) > 6) {
				problems.add("more than the pool held");
			}
			ticket.release();
			open.remove(ticket);
		}, open::remove);
		List<Thread> threads = new ArrayList<>();
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
		for (int t = 0; t < 4; t++) {
			String path = (t % 2 == 0) ? "a" : PathFence.LOCAL;
			Thread thread = new Thread(() -> {
				while (System.nanoTime() < until) {
					Ticket ticket;
					try {
						ticket = fence.acquire(path, waiter);
					}
					catch (IllegalArgumentException removed) {
						continue;
					}
					if (isWaiting(ticket)) {
						open.add(ticket);
						if (!isWaiting(ticket)) {
							open.remove(ticket);
						}
					}
					else if (!isRejected(ticket)) {
						ticket.release();
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		while (System.nanoTime() < until) {
			fence.removePath("a");
			fence.addPath("a", 2, 4, Duration.ZERO);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!open.isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(problems).isEmpty();
		assertThat(open).as("tickets left waiting").isEmpty();
		assertThat(held(fence)).isZero();
		assertThat(fence.figures().stream().mapToInt(PathFigures::permits).sum()).isEqualTo(6);
		assertThat(Inspection.violations(fence)).isEmpty();
		fence.close();
	}

}
