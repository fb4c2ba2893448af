package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static io.pathfence.core.Inspection.isBorrowed;
import static io.pathfence.core.Inspection.isGranted;
import static io.pathfence.core.Inspection.isWaiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Adding a path reservation at run time ({@link PathFence#addPath}): where its permits
 * come from, what happens to the tasks already running and waiting, and what is refused.
 */
class PathFenceAddPathTests {

	private final List<Ticket> granted = new ArrayList<>();

	private final Waiter waiter = Inspection.onGrant(this.granted::add);

	private Ticket acquire(PathFence fence, String path) {
		return fence.acquire(path, this.waiter);
	}

	private static int held(PathFence fence) {
		return fence.figures().stream().mapToInt(PathFigures::active).sum();
	}

	@Test
	void addedPathTakesItsPermitsFromTheLocalRemainder() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).path("b", 4, 2, Duration.ZERO).build();
		fence.addPath("c", 2, 5, Duration.ofSeconds(1));
		assertThat(fence.pathNames()).containsExactly("a", "b", "c", PathFence.LOCAL);
		assertThat(fence.figures("c").permits()).isEqualTo(2);
		assertThat(fence.figures("c").maxQueue()).isEqualTo(5);
		assertThat(fence.queueTimeout("c")).isEqualTo(Duration.ofSeconds(1));
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(1);
		assertThat(isGranted(acquire(fence, "c"))).isTrue();
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void explicitlySizedLocalReservationGivesThePermits() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).local(5, 2, Duration.ZERO).build();
		fence.addPath("c", 2, 2, Duration.ZERO);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(3);
		assertThat(fence.figures("a").permits()).isEqualTo(3);
	}

	@Test
	void resizingAnAddedPathGivesTheLocalRemainderBack() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).build();
		fence.addPath("c", 4, 2, Duration.ZERO);
		fence.resize("c", 1);
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
	}

	@Test
	void localPermitsAboveTheNewSizeRetireAsTheirTasksFinish() {
		PathFence fence = PathFence.builder(4).path("a", 1, 2, Duration.ZERO).build();
		Ticket first = acquire(fence, PathFence.LOCAL);
		Ticket second = acquire(fence, PathFence.LOCAL);
		Ticket third = acquire(fence, PathFence.LOCAL);
		fence.addPath("c", 2, 2, Duration.ZERO);
		// Three local tasks keep running on a local reservation of one permit.
		assertThat(fence.figures(PathFence.LOCAL).active()).isEqualTo(3);
		assertThat(isGranted(acquire(fence, "c"))).isTrue();
		Ticket blocked = acquire(fence, "c");
		// The pool is full, although c has a permit free: the retiring local ones hold
		// its place.
		assertThat(isWaiting(blocked)).isTrue();
		assertThat(held(fence)).isEqualTo(4);
		first.release();
		assertThat(this.granted).containsExactly(blocked);
		Ticket local = acquire(fence, PathFence.LOCAL);
		assertThat(isWaiting(local)).isTrue();
		second.release();
		// Local has no permit above its size left to give, but the retired one's place
		// in the pool lets the waiter borrow path a's idle permit.
		assertThat(isGranted(local)).isTrue();
		assertThat(isBorrowed(local)).isTrue();
		assertThat(held(fence)).isEqualTo(4);
		third.release();
		assertThat(held(fence)).isEqualTo(3);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void waitingLocalTaskBorrowsFromTheNewPathAtOnce() {
		PathFence fence = PathFence.builder(5).path("a", 1, 2, Duration.ZERO).local(2, 2, Duration.ZERO).build();
		acquire(fence, PathFence.LOCAL);
		acquire(fence, PathFence.LOCAL);
		acquire(fence, "a");
		Ticket waiting = acquire(fence, PathFence.LOCAL);
		assertThat(isWaiting(waiting)).isTrue();
		fence.addPath("c", 1, 2, Duration.ZERO);
		assertThat(this.granted).containsExactly(waiting);
		assertThat(isBorrowed(waiting)).isTrue();
		assertThat(fence.figures("c").borrowed()).isEqualTo(1);
		assertThat(Inspection.violations(fence)).isEmpty();
	}

	@Test
	void refusesATakenName() {
		PathFence fence = PathFence.builder(10).path("a", 3, 2, Duration.ZERO).build();
		fence.addPath("c", 1, 2, Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath("a", 1, 2, Duration.ZERO))
			.withMessage("path 'a' exists already");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath("c", 1, 2, Duration.ZERO))
			.withMessage("path 'c' exists already");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath(PathFence.LOCAL, 1, 2, Duration.ZERO))
			.withMessageContaining("not 'local'");
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
	}

	@Test
	void refusesMorePermitsThanTheLocalReservationHasAndLeavesTheFenceAsItWas() {
		PathFence fence = PathFence.builder(10).path("a", 7, 2, Duration.ZERO).build();
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath("c", 4, 2, Duration.ZERO))
			.withMessage("path 'c' asks for 4 permits but the local reservation has 3 to give");
		assertThat(fence.pathNames()).containsExactly("a", PathFence.LOCAL);
		assertThat(fence.hasPath("c")).isFalse();
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(3);
	}

	@Test
	void refusesInvalidNumbers() {
		PathFence fence = PathFence.builder(10).build();
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath("c", -1, 2, Duration.ZERO))
			.withMessage("path 'c' needs permits >= 0 and max-queue >= 0, was -1 and 2");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath("c", 1, -2, Duration.ZERO))
			.withMessage("path 'c' needs permits >= 0 and max-queue >= 0, was 1 and -2");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath("c", 1, 2, Duration.ofMillis(-1)))
			.withMessageContaining("path 'c' needs a queue timeout >= 0");
		assertThatIllegalArgumentException().isThrownBy(() -> fence.addPath(" ", 1, 2, Duration.ZERO))
			.withMessageContaining("non-blank");
		assertThat(fence.pathNames()).containsExactly(PathFence.LOCAL);
	}

	@Test
	void closedFenceRefusesToAddAPath() {
		PathFence fence = PathFence.builder(10).build();
		fence.close();
		assertThatIllegalStateException().isThrownBy(() -> fence.addPath("c", 1, 2, Duration.ZERO))
			.withMessageContaining("closed");
	}

	@Test
	void listenersHearOfTheNewPathEvenWhenOneFails() {
		PathFence fence = PathFence.builder(10).build();
		List<String> heard = new ArrayList<>();
		fence.addListener(new PathFenceListener() {
			@Override
			public void onPathAdded(String path, int permits) {
				throw new IllegalStateException("broken listener");
			}
		});
		fence.addListener(new PathFenceListener() {
			@Override
			public void onPathAdded(String path, int permits) {
				heard.add(path + "=" + permits);
			}
		});
		fence.addPath("c", 3, 2, Duration.ZERO);
		assertThat(heard).containsExactly("c=3");
	}

	@Test
	void waitOnAnAddedPathExpiresOnItsOwnLane() throws InterruptedException {
		PathFence fence = PathFence.builder(4).path("a", 1, 2, Duration.ofMillis(5)).build();
		try {
			CountDownLatch firstExpired = new CountDownLatch(1);
			CountDownLatch expired = new CountDownLatch(1);
			fence.acquire("a", this.waiter);
			fence.acquire("a", Inspection.waiter(this.granted::add, (ticket) -> firstExpired.countDown()));
			// The expiry threads exist before the path is added.
			assertThat(firstExpired.await(10, TimeUnit.SECONDS)).isTrue();
			fence.addPath("c", 0, 2, Duration.ofMillis(5));
			Ticket onNewPath = fence.acquire("c",
					Inspection.waiter(this.granted::add, (ticket) -> expired.countDown()));
			assertThat(expired.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(Inspection.stateOf(onNewPath)).isEqualTo(Ticket.State.EXPIRED);
		}
		finally {
			fence.close();
		}
	}

}
