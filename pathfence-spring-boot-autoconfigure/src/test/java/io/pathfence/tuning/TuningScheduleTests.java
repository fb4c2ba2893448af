package io.pathfence.tuning;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;
import io.pathfence.sct.SctConfig;

import static org.assertj.core.api.Assertions.assertThat;

/** The schedule outlives a decision that fails. */
class TuningScheduleTests {

	@Test
	void anErrorInOneDecisionDoesNotEndTheLaterOnes() throws Exception {
		PathFence fence = PathFence.builder(4).path("work", 1, 10, Duration.ZERO).build();
		SctConfig config = SctConfig.builder().interval(Duration.ofMillis(50)).window(Duration.ofSeconds(1)).build();
		AtomicInteger decisions = new AtomicInteger();
		CountDownLatch laterDecision = new CountDownLatch(1);
		PathTuner tuner = new PathTuner(fence, List.of("work"), config, new ReservationStep(1, 3, 4, 1), 1,
				System::nanoTime, Clock.systemUTC()) {

			@Override
			public Map<String, TuningDecision> decide() {
				if (decisions.incrementAndGet() == 1) {
					throw new AssertionError("decision broke");
				}
				laterDecision.countDown();
				return Map.of();
			}

		};
		TuningSchedule schedule = new TuningSchedule(tuner, Duration.ofMillis(20));
		schedule.start();
		try {
			assertThat(laterDecision.await(2, TimeUnit.SECONDS)).as("a decision after the failed one").isTrue();
		}
		finally {
			schedule.stop();
			fence.close();
		}
	}

}
