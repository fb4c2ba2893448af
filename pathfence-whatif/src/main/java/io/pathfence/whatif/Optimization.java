package io.pathfence.whatif;

import java.time.Duration;
import java.util.Objects;

/**
 * The optimisation asked about: the target service's CPU time per call cut by a fraction.
 *
 * @param target the service that would be optimised
 * @param reduction the fraction of its CPU time per call removed, from 0 (the mechanism's
 * own cost, pauses of zero) up to but excluding 1
 * @param cpuTimePerCall the target's measured CPU time per call, {@code u_t}
 * @param cores the CPU time the target gets per second, {@code q_t}: its cores when
 * pinned, or its pod's CPU request
 */
public record Optimization(String target, double reduction, Duration cpuTimePerCall, double cores) {

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException naming the value and what is allowed
	 */
	public Optimization {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull(cpuTimePerCall, "cpuTimePerCall");
		if (!(reduction >= 0 && reduction < 1)) {
			throw new IllegalArgumentException(
					"reduction must be a fraction from 0 up to but excluding 1 (0 to 100 %), was " + reduction);
		}
		if (cpuTimePerCall.isNegative() || cpuTimePerCall.isZero()) {
			throw new IllegalArgumentException(
					"the target's CPU time per call must be positive, was " + cpuTimePerCall);
		}
		if (!(Double.isFinite(cores) && cores > 0)) {
			throw new IllegalArgumentException("the target's cores must be a positive number, was " + cores);
		}
	}

	/**
	 * The CPU time per call the optimisation removes, Slowpoke's {@code d}.
	 * @return {@code reduction * cpuTimePerCall}, in nanoseconds
	 */
	public double reductionNanosPerCall() {
		return this.reduction * this.cpuTimePerCall.toNanos();
	}

}
