package io.pathfence.demo.whatif;

import java.time.Duration;
import java.util.List;

/**
 * A what-if run's settings, checked.
 *
 * @param target the service whose optimisation is in question
 * @param reductions the fractions of its CPU time per call to take away
 * @param validate whether to measure the ground truth too
 * @param repetitions how many times to measure each
 * @param users the closed loop's users, enough to saturate the shop
 * @param warmUp unmeasured load once the shop has started
 * @param restartWarmUp unmeasured load after the target alone is restarted
 * @param profile the profiling run's length
 * @param measure each measured run's length
 * @param batch the target calls per round, or 0 for rounds of about 25 ms
 * @param baseCpuTime the target's simulated CPU time per call as the run starts
 * @param windows how many windows each measured run is split into, to show its spread
 * @param nearestMedian whether a run's throughput is the mean of the majority of its
 * windows nearest their median rather than of the whole run
 * @param settle unmeasured load before each measured run, under its pauses
 */
record WhatIfOptions(String target, List<Double> reductions, boolean validate, int repetitions, int users,
		Duration warmUp, Duration restartWarmUp, Duration profile, Duration measure, long batch, Duration baseCpuTime,
		int windows, boolean nearestMedian, Duration settle) {

	WhatIfOptions {
		reductions = List.copyOf(reductions);
	}

}
