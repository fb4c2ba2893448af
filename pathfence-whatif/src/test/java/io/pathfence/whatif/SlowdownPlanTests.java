package io.pathfence.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SlowdownPlanTests {

	@Test
	void theThreeServiceExampleOfThePaper() {
		// Slowpoke's Fig. 5: A, B and C each called once per request, single-threaded,
		// taking 1, 3 and 2 time units; B is cut by 1 unit (a third of its time).
		CallProfile profile = CallProfile.of(Map.of("A", 1, "B", 1, "C", 1));
		SlowdownPlan plan = SlowdownPlan.of(profile, new Optimization("B", 1.0 / 3, Duration.ofMillis(3), 1), 100);

		assertThat(plan.pausesPerCall()).containsOnlyKeys("A", "C");
		assertThat(plan.pauseNanosPerCall("A")).isCloseTo(1_000_000, within(1e-3));
		assertThat(plan.pauseNanosPerCall("C")).isCloseTo(1_000_000, within(1e-3));
		// Slowed down, B is still the bottleneck at 3 units a request: 1/3 per ms.
		assertThat(plan.predictThroughput(1000.0 / 3)).isCloseTo(500, within(1e-6));
	}

	@Test
	void pausesFollowTheCallRatiosAndRoundsAreTheSameForEveryService() {
		Map<String, Double> calls = new LinkedHashMap<>();
		calls.put("front-end", 1.0);
		calls.put("orders", 1.0);
		calls.put("payment", 0.5);
		calls.put("carts", 2.0);
		calls.put("unused", 0.0);
		Optimization faster = new Optimization("payment", 0.4, Duration.ofNanos(500_000), 2);
		SlowdownPlan plan = SlowdownPlan.of(CallProfile.of(calls), faster);

		// d = 200 µs, c_t = 0.5, q_t = 2: p_i = d c_t / (q_t c_i).
		assertThat(plan.pausesPerCall()).containsOnlyKeys("front-end", "orders", "carts");
		assertThat(plan.pauseNanosPerCall("front-end")).isCloseTo(50_000, within(1e-6));
		assertThat(plan.pauseNanosPerCall("carts")).isCloseTo(25_000, within(1e-6));
		assertThat(plan.callsPerTargetCall("carts")).isEqualTo(4);
		// The default batch puts a round's pause at 25 ms: B = 25 ms * q_t / d.
		assertThat(plan.batch()).isEqualTo(250);
		assertThat(plan.roundPauseNanos()).isCloseTo(25_000_000, within(1e-3));
		assertThat(plan.batch() * plan.callsPerTargetCall("carts") * plan.pauseNanosPerCall("carts"))
			.isCloseTo(plan.roundPauseNanos(), within(1e-3));
		// 1 / t_opt = 1 / t_vs - d c_t / q_t = 1 ms - 50 µs.
		assertThat(plan.secondsPerRequest()).isCloseTo(50e-6, within(1e-12));
		assertThat(plan.predictThroughput(1000)).isCloseTo(1 / 950e-6, within(1e-6));
	}

	@Test
	void thePredictionSolvesTheOptimisedApplicationsLinearProgram() {
		// The model's claim (Slowpoke eq. 6 to 9): for any application whose throughput
		// is
		// set by its CPU constraints, the throughput under the pauses, put through the
		// prediction, is the optimised application's throughput. Checked on random
		// applications whose throughput is computed from their constraints.
		Random random = new Random(20);
		for (int app = 0; app < 200; app++) {
			int n = 2 + random.nextInt(6);
			Map<String, Double> calls = new LinkedHashMap<>();
			double[] cpu = new double[n];
			double[] cores = new double[n];
			for (int i = 0; i < n; i++) {
				calls.put("s" + i, (i == 0) ? 0.2 + random.nextDouble() : random.nextDouble() * 3);
				cpu[i] = 100_000 + random.nextInt(2_000_000);
				cores[i] = 1 + random.nextInt(4);
			}
			int target = random.nextInt(n);
			if (calls.get("s" + target) == 0) {
				continue;
			}
			double reduction = 0.05 + 0.9 * random.nextDouble();
			SlowdownPlan plan = SlowdownPlan.of(CallProfile.of(calls),
					new Optimization("s" + target, reduction, Duration.ofNanos((long) cpu[target]), cores[target]),
					100);

			double optimised = Double.MAX_VALUE;
			double slowedDown = Double.MAX_VALUE;
			for (int i = 0; i < n; i++) {
				double c = calls.get("s" + i);
				if (c == 0) {
					continue;
				}
				// Seconds of the service's capacity one call takes: its CPU time over its
				// cores.
				// A pause stops all its cores at once, so it adds its full length.
				double perCall = cpu[i] / cores[i];
				double perCallOptimised = (i == target)
						? (cpu[i] - plan.optimization().reductionNanosPerCall()) / cores[i] : perCall;
				double perCallSlowed = (i == target) ? perCall : perCall + plan.pauseNanosPerCall("s" + i);
				optimised = Math.min(optimised, 1e9 / (perCallOptimised * c));
				slowedDown = Math.min(slowedDown, 1e9 / (perCallSlowed * c));
			}
			assertThat(plan.predictThroughput(slowedDown)).as("application %d", app)
				.isCloseTo(optimised, within(optimised * 1e-9));
		}
	}

	@Test
	void aZeroReductionPausesZeroAndNeedsItsBatchGiven() {
		CallProfile profile = CallProfile.of(Map.of("a", 1, "b", 1));
		Optimization none = new Optimization("b", 0, Duration.ofMillis(1), 1);

		SlowdownPlan plan = SlowdownPlan.of(profile, none, 40);
		assertThat(plan.pauseNanosPerCall("a")).isZero();
		assertThat(plan.predictThroughput(123.0)).isCloseTo(123.0, within(1e-9));
		assertThatIllegalArgumentException().isThrownBy(() -> SlowdownPlan.of(profile, none))
			.withMessageContaining("a reduction of 0 pauses nothing")
			.withMessageContaining("give the batch explicitly");
	}

	@Test
	void badInputIsRefusedSayingWhatIsAllowed() {
		CallProfile profile = CallProfile.of(Map.of("a", 1, "b", 0));
		Duration ms = Duration.ofMillis(1);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SlowdownPlan.of(profile, new Optimization("payment", 0.3, ms, 1)))
			.withMessageStartingWith("target 'payment' is not a service of the call profile (known: [");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SlowdownPlan.of(profile, new Optimization("b", 0.3, ms, 1)))
			.withMessageContaining("target 'b' receives no calls");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SlowdownPlan.of(profile, new Optimization("a", 0.3, ms, 1), 0))
			.withMessage("batch must be at least 1 target call per round, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new Optimization("a", 1, ms, 1))
			.withMessage("reduction must be a fraction from 0 up to but excluding 1 (0 to 100 %), was 1.0");
		assertThatIllegalArgumentException().isThrownBy(() -> new Optimization("a", -0.1, ms, 1))
			.withMessageStartingWith("reduction must be a fraction");
		assertThatIllegalArgumentException().isThrownBy(() -> new Optimization("a", Double.NaN, ms, 1))
			.withMessageStartingWith("reduction must be a fraction");
		assertThatIllegalArgumentException().isThrownBy(() -> new Optimization("a", 0.3, Duration.ZERO, 1))
			.withMessage("the target's CPU time per call must be positive, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new Optimization("a", 0.3, ms, 0))
			.withMessage("the target's cores must be a positive number, was 0.0");
	}

	@Test
	void aMeasuredThroughputThePausesCannotAllowIsRefused() {
		SlowdownPlan plan = SlowdownPlan.of(CallProfile.of(Map.of("a", 1, "b", 1)),
				new Optimization("b", 0.5, Duration.ofMillis(2), 1));
		// d c_t / q_t = 1 ms: nothing paused that long per request completes 1000 a
		// second.
		assertThatIllegalArgumentException().isThrownBy(() -> plan.predictThroughput(1000))
			.withMessageContaining("a measured throughput of 1000.0/s is at or above 1000.0/s");
		assertThatIllegalArgumentException().isThrownBy(() -> plan.predictThroughput(0))
			.withMessageContaining("must be a positive number");
		assertThat(plan.predictThroughput(500)).isCloseTo(1000, within(1e-9));
		assertThatIllegalArgumentException().isThrownBy(() -> plan.pauseNanosPerCall("b"))
			.withMessage("'b' is not paused by this plan (paused: [a])");
	}

}
