package io.pathfence.learning;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A learned path none of whose routes was served for {@code retire-after} is retired: its
 * reservation is removed, its permits go back to local with none lost, tasks waiting for
 * it are told rather than left waiting, and its quiet routes learn afresh.
 */
class LearnedPathRetirementTests {

	private static final Duration RETIRE_AFTER = Duration.ofMinutes(1);

	private final PathFence fence = PathFence.builder(10).path("payment", 2, 5, Duration.ZERO).build();

	private final AtomicLong clock = new AtomicLong();

	private final LearnedPaths learned = new LearnedPaths(this.fence, true,
			new LearnedPaths.Settings(16, 256, 16, 2, 2, 5, Duration.ZERO, 1, RETIRE_AFTER), this.clock::get,
			Runnable::run);

	private final List<Ticket> told = new CopyOnWriteArrayList<>();

	private final Waiter waiter = new Waiter() {
		@Override
		public void granted(Ticket ticket) {
			LearnedPathRetirementTests.this.told.add(ticket);
			ticket.release();
		}

		@Override
		public void expired(Ticket ticket) {
			LearnedPathRetirementTests.this.told.add(ticket);
		}
	};

	private void serve(String pattern, int times, String... downstreams) {
		Map<String, Integer> calls = new java.util.LinkedHashMap<>();
		for (String downstream : downstreams) {
			calls.put(downstream, 1);
		}
		for (int i = 0; i < times; i++) {
			this.learned.served("GET", pattern, calls);
		}
	}

	private void later(Duration by) {
		this.clock.addAndGet(by.toNanos());
	}

	private int permitsInAll() {
		return this.fence.figures().stream().mapToInt(PathFigures::permits).sum();
	}

	@Test
	void aPathWhoseRoutesMovedAwayIsRetiredAndItsPermitsGoBackToLocalWithNoWaiterStranded() {
		serve("/orders", 2, "shipping");
		assertThat(this.fence.figures("shipping").permits()).isEqualTo(2);
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
		Ticket first = this.fence.acquire("shipping", this.waiter);
		Ticket second = this.fence.acquire("shipping", this.waiter);
		Ticket waiting = this.fence.acquire("shipping", this.waiter);
		assertThat(waiting.admission()).isEqualTo(Admission.QUEUED);
		serve("/orders", 2);
		assertThat(this.learned.pathOf("GET", "/orders")).isNull();
		later(RETIRE_AFTER.minusSeconds(1));
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).as("kept until retire-after has passed").isTrue();
		later(Duration.ofSeconds(1));
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).isFalse();
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(8);
		assertThat(permitsInAll()).isEqualTo(10);
		// The waiting task has no queue timeout, yet it is told and not left waiting.
		Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> this.told.contains(waiting));
		// Its two running tasks keep their permits until they finish.
		assertThat(this.fence.figures(PathFence.LOCAL).active()).isZero();
		first.release();
		second.release();
		assertThat(this.fence.figures().stream().mapToInt(PathFigures::active).sum()).isZero();
		assertThat(this.learned.report().paths()).isEmpty();
		this.fence.close();
	}

	@Test
	void aQuietRoutesPathIsRetiredAndTheRouteLearnsAfreshUnderTheSameName() {
		serve("/orders", 2, "shipping");
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		later(RETIRE_AFTER);
		this.learned.place();
		assertThat(this.learned.pathOf("GET", "/orders")).isNull();
		assertThat(this.fence.pathNames()).containsExactly("payment", PathFence.LOCAL);
		serve("/orders", 1, "shipping");
		assertThat(this.learned.pathOf("GET", "/orders")).as("one request confirms nothing").isNull();
		serve("/orders", 1, "shipping");
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
		assertThat(permitsInAll()).isEqualTo(10);
	}

	@Test
	void aPathWhoseRoutesAreServedIsKept() {
		serve("/orders", 2, "shipping");
		for (int i = 0; i < 5; i++) {
			later(RETIRE_AFTER.dividedBy(2));
			serve("/orders", 1, "shipping");
			this.learned.place();
		}
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		assertThat(this.fence.hasPath("shipping")).isTrue();
	}

}
