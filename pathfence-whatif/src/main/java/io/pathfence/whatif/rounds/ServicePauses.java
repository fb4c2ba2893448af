package io.pathfence.whatif.rounds;

/**
 * What one service was paused for, over a run of rounds.
 *
 * @param service the service
 * @param roundsPaid rounds in which it was paused (a pause of 0 included)
 * @param roundsSkipped rounds that found it still paused for an earlier one; what they
 * would have paid was carried to its next round
 * @param requestedNanos the pause time asked of it
 * @param stoppedNanos the time it was stopped, as its agent reported
 * @param owedNanos the debt accrued and not yet asked for
 * @param failures pauses that failed
 * @param lastFailure the last failure's message, or {@code null}
 */
public record ServicePauses(String service, long roundsPaid, long roundsSkipped, long requestedNanos, long stoppedNanos,
		double owedNanos, long failures, String lastFailure) {

}
