package io.pathfence.tuning;

import io.pathfence.sct.SctResult;
import io.pathfence.sct.Verdict;

/**
 * The guards between what SCT recommends and what a reservation becomes:
 * {@code next = current + clamp(clamp(recommended, min, min(max, room)) - current, -maxStep, maxStep)},
 * where {@code room} is the most this path can hold without the reservations outgrowing
 * the pool. A plateau recommendation closer to the current size than {@code hysteresis}
 * permits is ignored, so a reservation does not flap on noise; an exploring step is
 * always taken, since it is how the tuner learns what it has not seen.
 *
 * @param minPermits the least a tuned reservation may have
 * @param maxPermits the most a tuned reservation may have
 * @param maxStep the most one decision may change a reservation by
 * @param hysteresis the least change a plateau recommendation must ask for to be applied
 */
public record ReservationStep(int minPermits, int maxPermits, int maxStep, int hysteresis) {

	public ReservationStep {
		if (minPermits < 0 || maxPermits < minPermits || maxStep < 1 || hysteresis < 0) {
			throw new IllegalArgumentException("need 0 <= min-permits <= max-permits, max-step >= 1 and "
					+ "hysteresis >= 0: " + minPermits + ", " + maxPermits + ", " + maxStep + ", " + hysteresis);
		}
	}

	/**
	 * The reservation's next size; {@code current} when the result recommends nothing or
	 * the guards hold it.
	 */
	public int next(SctResult result, int current, int room) {
		if (result.recommended().isEmpty()) {
			return current;
		}
		int ceiling = Math.max(this.minPermits, Math.min(this.maxPermits, room));
		int target = Math.max(this.minPermits, Math.min(ceiling, result.recommended().getAsInt()));
		int change = target - current;
		if (result.verdict() == Verdict.PLATEAU && Math.abs(change) < this.hysteresis) {
			return current;
		}
		change = Math.max(-this.maxStep, Math.min(this.maxStep, change));
		return Math.max(0, current + change);
	}

}
