package io.pathfence.demo.run;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;

import io.pathfence.testsupport.load.Outcome;

/**
 * The requests of one path in one phase of one mode: the response-time histogram of every
 * request (answered, rejected or failed; each counted from its intended send time), the
 * count of each outcome and each request's point for the plots.
 */
final class PathRecord {

	/**
	 * Response times are recorded in microseconds, up to a minute, to three significant
	 * digits.
	 */
	private final Histogram micros = new Histogram(60_000_000L, 3);

	private final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);

	private final List<Point> points = new ArrayList<>();

	private int overOneSecond;

	synchronized void record(double sentAtSeconds, long responseMicros, Outcome outcome) {
		this.micros.recordValue(Math.min(Math.max(responseMicros, 1), this.micros.getHighestTrackableValue()));
		this.outcomes.merge(outcome, 1, Integer::sum);
		if (responseMicros > 1_000_000) {
			this.overOneSecond++;
		}
		this.points.add(new Point(sentAtSeconds, responseMicros / 1000.0, outcome));
	}

	synchronized PathStats stats() {
		return new PathStats(this.micros.getTotalCount(), this.micros.getMean() / 1000.0,
				this.micros.getValueAtPercentile(50) / 1000.0, this.micros.getValueAtPercentile(99) / 1000.0,
				this.micros.getValueAtPercentile(99.9) / 1000.0, this.micros.getMaxValue() / 1000.0,
				this.outcomes.getOrDefault(Outcome.OK, 0), this.outcomes.getOrDefault(Outcome.REJECTED, 0),
				this.overOneSecond, this.outcomes.getOrDefault(Outcome.CONNECTION_OR_TIMEOUT, 0),
				this.outcomes.getOrDefault(Outcome.OTHER_ERROR, 0));
	}

	synchronized List<Point> points() {
		return List.copyOf(this.points);
	}

	/**
	 * One request: when it was meant to be sent (seconds since measuring began) and how
	 * long it took.
	 */
	record Point(double sentAtSeconds, double responseMillis, Outcome outcome) {
	}

}
