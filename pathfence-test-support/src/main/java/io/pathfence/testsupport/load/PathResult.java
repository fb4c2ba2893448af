package io.pathfence.testsupport.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * What one path's stream saw: answers by outcome, 503s by the reason and the path the
 * fence gave, latencies from the due time of every request and of the answered ones, and
 * every request in the order they were due.
 */
public final class PathResult {

	private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(2);

	private final String path;

	private final Histogram all = histogram();

	private final Histogram ok = histogram();

	private final Map<String, Histogram> rejectedByReason = new LinkedHashMap<>();

	private final Map<String, Integer> rejectedByPath = new LinkedHashMap<>();

	private int rejected;

	private int failed;

	private final List<Sample> samples = new ArrayList<>();

	public PathResult(String path) {
		this.path = path;
	}

	synchronized void record(double dueSeconds, long latencyMicros, Answer answer) {
		Outcome outcome = answer.outcome();
		this.samples.add(new Sample(Duration.ofNanos(Math.round(dueSeconds * 1e9)),
				Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(latencyMicros)), outcome));
		long micros = Math.min(Math.max(0, latencyMicros), HIGHEST_MICROS);
		this.all.recordValue(micros);
		switch (outcome) {
			case OK -> this.ok.recordValue(micros);
			case REJECTED -> {
				this.rejected++;
				String reason = (answer.reason() != null) ? answer.reason() : "unknown";
				this.rejectedByReason.computeIfAbsent(reason, (key) -> histogram()).recordValue(micros);
				if (answer.fencedPath() != null) {
					this.rejectedByPath.merge(answer.fencedPath(), 1, Integer::sum);
				}
			}
			default -> this.failed++;
		}
	}

	public String path() {
		return this.path;
	}

	/** Requests recorded, whatever became of them. */
	public synchronized long count() {
		return this.all.getTotalCount();
	}

	/** Answered 2xx. */
	public synchronized int ok() {
		return (int) this.ok.getTotalCount();
	}

	/** Answered 503. */
	public synchronized int rejected() {
		return this.rejected;
	}

	/**
	 * 503s whose problem body gave {@code reason} ({@code queue-full}, {@code timeout}).
	 */
	public synchronized long rejected(String reason) {
		Histogram histogram = this.rejectedByReason.get(reason);
		return (histogram != null) ? histogram.getTotalCount() : 0;
	}

	/** Neither 2xx nor 503: no answer, or another status. */
	public synchronized int failed() {
		return this.failed;
	}

	/** 503s by the path their {@code x-pathfence-path} header named. */
	public synchronized Map<String, Integer> rejectedByPath() {
		return Map.copyOf(this.rejectedByPath);
	}

	/** Every request, in the order they were due. */
	public synchronized List<Sample> samples() {
		return this.samples.stream().sorted(Comparator.comparing(Sample::due)).toList();
	}

	/** A percentile of every request's latency, answered or not. */
	public synchronized Duration percentile(double percentile) {
		return micros(this.all.getValueAtPercentile(percentile));
	}

	/** A percentile of the 2xx answers' latency. */
	public synchronized Duration okPercentile(double percentile) {
		return micros(this.ok.getValueAtPercentile(percentile));
	}

	/** A percentile of the latency of the 503s that gave {@code reason}. */
	public synchronized Duration rejectedPercentile(String reason, double percentile) {
		Histogram histogram = this.rejectedByReason.get(reason);
		return micros((histogram != null) ? histogram.getValueAtPercentile(percentile) : 0);
	}

	public synchronized Duration max() {
		return micros(this.all.getMaxValue());
	}

	@Override
	public synchronized String toString() {
		return String.format("%-8s sent %4d  ok %4d  503 %4d  failed %3d  p50 %5d ms  p99 %5d ms  max %5d ms",
				this.path, count(), ok(), this.rejected, this.failed, percentile(50).toMillis(),
				percentile(99).toMillis(), max().toMillis());
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(micros));
	}

	private static Histogram histogram() {
		return new Histogram(HIGHEST_MICROS, 3);
	}

}
