package io.pathfence.tuning;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.pathfence.actuate.PathFenceMeterBinder;
import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.sct.SctConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path held at one permit while a task always waits for it, on a clock the test moves:
 * one tuning decision must grow the reservation, and the decision must show in
 * {@code pathfence.tuning.decisions}.
 */
class PathTunerMeterTests {

	private static final long TASK_NANOS = Duration.ofMillis(10).toNanos();

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void decisionOnAPathPinnedAtOnePermitGrowsItAndIsCountedByVerdict() {
		SctConfig config = SctConfig.builder().interval(Duration.ofMillis(50)).window(Duration.ofSeconds(1)).build();
		PathFence fence = PathFence.builder(4).nanoClock(this.now::get).path("work", 1, 10, Duration.ZERO).build();
		PathTuner tuner = new PathTuner(fence, List.of("work"), config, new ReservationStep(1, 3, 4, 1), 1,
				this.now::get, Clock.systemUTC());
		fence.addListener(tuner);
		new PathFenceMeterBinder(fence, tuner).bindTo(this.registry);
		keepOneTaskRunningAndOneWaiting(fence, Duration.ofSeconds(1));

		TuningDecision decision = tuner.decide().get("work");

		assertThat(decision.verdict()).as(decision.reason()).isEqualTo("EXPLORE");
		assertThat(decision.permitsAfter()).isEqualTo(2);
		assertThat(fence.figures("work").permits()).isEqualTo(2);
		assertThat(decisions("explore")).isEqualTo(1.0);
		assertThat(decisions("plateau")).isZero();
		assertThat(decisions("no-plateau")).isZero();
		assertThat(decisions("insufficient-data")).isZero();
	}

	/**
	 * Tasks of 10 ms back to back through the fence, each next one queued before the
	 * running one ends.
	 */
	private void keepOneTaskRunningAndOneWaiting(PathFence fence, Duration duration) {
		Deque<Ticket> granted = new ArrayDeque<>();
		Waiter waiter = new Waiter() {
			@Override
			public void granted(Ticket ticket) {
				granted.add(ticket);
			}

			@Override
			public void expired(Ticket ticket) {
				throw new AssertionError("no queue timeout here");
			}
		};
		Ticket first = fence.acquire("work", waiter);
		assertThat(first.admission()).isEqualTo(Admission.GRANTED);
		granted.add(first);
		fence.acquire("work", waiter);
		for (long t = 0; t < duration.toNanos(); t += TASK_NANOS) {
			this.now.addAndGet(TASK_NANOS);
			granted.removeFirst().release();
			assertThat(granted).as("the waiting task took the freed permit").hasSize(1);
			assertThat(fence.acquire("work", waiter).admission()).isEqualTo(Admission.QUEUED);
		}
	}

	private double decisions(String verdict) {
		return this.registry.get("pathfence.tuning.decisions")
			.tags("path", "work", "verdict", verdict)
			.functionCounter()
			.count();
	}

}
