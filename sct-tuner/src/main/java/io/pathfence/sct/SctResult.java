package io.pathfence.sct;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The immutable outcome of analysing one window of one path.
 *
 * @param verdict what the analysis concluded
 * @param qLower Q_lower, the least concurrency level whose throughput is on the plateau;
 * for {@link Verdict#NO_PLATEAU} and an upward {@link Verdict#EXPLORE} the highest
 * observed level, for a downward {@link Verdict#EXPLORE} the level with the most
 * throughput; empty for {@link Verdict#INSUFFICIENT_DATA}
 * @param qUpper Q_upper, the largest level before throughput falls off the plateau or the
 * response time passes the configured limit; same emptiness as {@code qLower}
 * @param recommended the concurrency to reserve: Q_lower for {@link Verdict#PLATEAU}, one
 * bounded step up or down for {@link Verdict#EXPLORE}, empty otherwise
 * @param plateauThroughput the mean throughput (per second) of the samples on levels
 * [Q_lower, Q_upper]; empty when {@code qLower} is
 * @param reason one sentence for an operator saying why
 * @param samples how many samples the window held
 * @param levels per-level statistics in increasing level order
 */
public record SctResult(Verdict verdict, OptionalInt qLower, OptionalInt qUpper, OptionalInt recommended,
		OptionalDouble plateauThroughput, String reason, int samples, List<LevelStats> levels) {

	public SctResult {
		Objects.requireNonNull(verdict, "verdict");
		Objects.requireNonNull(qLower, "qLower");
		Objects.requireNonNull(qUpper, "qUpper");
		Objects.requireNonNull(recommended, "recommended");
		Objects.requireNonNull(plateauThroughput, "plateauThroughput");
		Objects.requireNonNull(reason, "reason");
		levels = List.copyOf(levels);
		if (verdict.recommends() != recommended.isPresent()) {
			throw new IllegalArgumentException(
					verdict + " must " + (verdict.recommends() ? "" : "not ") + "carry a recommendation");
		}
	}
}
