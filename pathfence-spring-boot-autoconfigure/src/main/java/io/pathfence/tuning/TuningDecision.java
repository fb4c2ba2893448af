package io.pathfence.tuning;

import java.time.Instant;

import io.pathfence.sct.SctResult;

/**
 * The latest tuning decision of one path, as the actuator endpoint and the meters show
 * it.
 *
 * @param path the path
 * @param verdict what SCT concluded from the window
 * @param qLower the lower end of the rational concurrency range, or {@code null} when
 * unknown
 * @param qUpper the upper end of the range, or {@code null} when unknown
 * @param recommended what SCT recommended, or {@code null} when it recommended nothing
 * @param plateauThroughput throughput on the plateau per second, or {@code null}
 * @param permitsBefore the reservation before the decision
 * @param permitsAfter the reservation after it
 * @param samples how many samples the window held
 * @param reason why, in one sentence
 * @param decidedAt when
 */
public record TuningDecision(String path, String verdict, Integer qLower, Integer qUpper, Integer recommended,
		Double plateauThroughput, int permitsBefore, int permitsAfter, int samples, String reason, Instant decidedAt) {

	static TuningDecision of(String path, SctResult result, int before, int after, String guard, Instant now) {
		String reason = result.reason() + ((guard != null) ? " " + guard : "");
		return new TuningDecision(path, result.verdict().name(),
				result.qLower().isPresent() ? result.qLower().getAsInt() : null,
				result.qUpper().isPresent() ? result.qUpper().getAsInt() : null,
				result.recommended().isPresent() ? result.recommended().getAsInt() : null,
				result.plateauThroughput().isPresent() ? result.plateauThroughput().getAsDouble() : null, before, after,
				result.samples(), reason, now);
	}

}
