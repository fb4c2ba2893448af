package io.pathfence.tuning;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.Verdict;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path added at run time is tuned; once removed (a retired learned path), it is tuned
 * no more: no decision, no resize and no failure, even for its tasks that end after it
 * went, and a path of its name added later starts afresh.
 */
class PathTunerRemovedPathTests {

	private static final long TASK_NANOS = Duration.ofMillis(10).toNanos();

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final SctConfig config = SctConfig.builder()
		.interval(Duration.ofMillis(50))
		.window(Duration.ofSeconds(1))
		.build();

	private final PathFence fence = PathFence.builder(8).nanoClock(this.now::get).build();

	private final Deque<Ticket> granted = new ArrayDeque<>();

	private final Waiter waiter = new Waiter() {
		@Override
		public void granted(Ticket ticket) {
			PathTunerRemovedPathTests.this.granted.add(ticket);
		}

		@Override
		public void expired(Ticket ticket) {
			// The removal turns the waiting task away.
		}
	};

	private PathTuner tuner(Clock clock) {
		PathTuner tuner = new PathTuner(this.fence, List.of(), true, this.config, new ReservationStep(1, 4, 8, 1), 1,
				this.now::get, clock);
		this.fence.addListener(tuner);
		return tuner;
	}

	@Test
	void aRemovedPathIsTunedNoMoreAndItsLateTasksChangeNothing() {
		PathTuner tuner = tuner(Clock.systemUTC());
		this.fence.addPath("shipping", 1, 10, Duration.ZERO);
		assertThat(tuner.tunes("shipping")).isTrue();
		keepOneTaskRunningAndOneWaiting(Duration.ofSeconds(1));
		assertThat(tuner.decide()).containsKey("shipping");
		assertThat(this.fence.figures("shipping").permits()).as("grown by the decision").isGreaterThan(1);
		Ticket running = this.granted.removeFirst();

		this.fence.removePath("shipping");

		assertThat(tuner.tunes("shipping")).isFalse();
		assertThat(tuner.decisions()).isEmpty();
		assertThat(tuner.decision("shipping")).isEmpty();
		assertThat(tuner.decisionCount("shipping", Verdict.EXPLORE)).isZero();
		this.now.addAndGet(TASK_NANOS);
		running.release();
		this.now.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(tuner.decide()).isEmpty();
		assertThat(this.fence.pathNames()).containsExactly(PathFence.LOCAL);
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(8);
		assertThat(this.fence.figures(PathFence.LOCAL).active()).isZero();

		this.fence.addPath("shipping", 1, 10, Duration.ZERO);
		assertThat(tuner.tunes("shipping")).isTrue();
		assertThat(tuner.decisionCount("shipping", Verdict.EXPLORE)).as("afresh").isZero();
		this.fence.close();
	}

	/**
	 * The path goes while a decision on it is being made (here when the decision is
	 * stamped): the decision is not kept for a path that is gone.
	 */
	@Test
	void aPathRemovedDuringADecisionKeepsNoDecision() {
		Clock removingClock = new Clock() {
			@Override
			public Instant instant() {
				if (PathTunerRemovedPathTests.this.fence.hasPath("shipping")) {
					PathTunerRemovedPathTests.this.fence.removePath("shipping");
				}
				return Instant.EPOCH;
			}

			@Override
			public ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				return this;
			}
		};
		PathTuner tuner = tuner(removingClock);
		this.fence.addPath("shipping", 1, 10, Duration.ZERO);
		keepOneTaskRunningAndOneWaiting(Duration.ofSeconds(1));

		assertThat(tuner.decide()).isEmpty();

		assertThat(this.fence.hasPath("shipping")).isFalse();
		assertThat(tuner.decisions()).isEmpty();
		assertThat(tuner.decisionCount("shipping", Verdict.EXPLORE)).isZero();
		this.fence.close();
	}

	/**
	 * Tasks of 10 ms back to back on a path of one permit, each next one queued before
	 * the running one ends; one task runs and one waits at the end.
	 */
	private void keepOneTaskRunningAndOneWaiting(Duration duration) {
		Ticket first = this.fence.acquire("shipping", this.waiter);
		assertThat(first.admission()).isEqualTo(Admission.GRANTED);
		this.granted.add(first);
		this.fence.acquire("shipping", this.waiter);
		for (long t = 0; t < duration.toNanos(); t += TASK_NANOS) {
			this.now.addAndGet(TASK_NANOS);
			this.granted.removeFirst().release();
			assertThat(this.granted).as("the waiting task took the freed permit").hasSize(1);
			assertThat(this.fence.acquire("shipping", this.waiter).admission()).isEqualTo(Admission.QUEUED);
		}
	}

}
