package io.pathfence.tuning;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.pathfence.core.PathFence;
import io.pathfence.sct.SctConfig;

/**
 * The simulated path the light-load tuner tests drive: path {@code work} of a pool of 12
 * on a clock the test moves, its tuner (steps of 1 to 12 permits), and the exponential
 * times of its Poisson arrivals and 45 ms requests.
 */
final class LightLoadSimulation {

	private LightLoadSimulation() {
	}

	static PathFence fence(AtomicLong now, int permits) {
		return PathFence.builder(12).nanoClock(now::get).path("work", permits, 10, Duration.ZERO).build();
	}

	static PathTuner tuner(PathFence fence, SctConfig config, AtomicLong now) {
		PathTuner tuner = new PathTuner(fence, List.of("work"), config, new ReservationStep(1, 12, 4, 2), 1, now::get,
				Clock.systemUTC());
		fence.addListener(tuner);
		return tuner;
	}

	static long serviceNanos(SplittableRandom random) {
		return exponentialNanos(random, Duration.ofMillis(45).toNanos());
	}

	static long exponentialNanos(SplittableRandom random, double meanNanos) {
		return (long) (-Math.log(1 - random.nextDouble()) * meanNanos);
	}

}
