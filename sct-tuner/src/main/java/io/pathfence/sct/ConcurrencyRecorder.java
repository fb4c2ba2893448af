package io.pathfence.sct;

import java.util.List;

/**
 * Turns one path's arrivals and departures into {@link Sample}s, one per sampling
 * interval, online.
 *
 * <p>
 * For each interval [start, start + I) it keeps the integral over time of the number of
 * requests in service (so Q_i = integral / I), the number of completions (TP_i =
 * completions / I) and the sum of their response times (RT_i = sum / completions), and
 * the same integral for requests waiting for a permit. Intervals are aligned on the
 * origin given at creation. Recording a request allocates nothing; an interval that ends
 * is written into a preallocated ring that holds one window of intervals, oldest
 * overwritten first. Read it either with {@link #drain} (hand over and forget; an
 * interval overwritten before any drain or snapshot saw it is reported to
 * {@link SctMetrics#samplesDropped}) or with {@link #snapshot} (a sliding window).
 *
 * <p>
 * Timestamps are nanoseconds from the injected clock ({@code System::nanoTime} in
 * production). A timestamp earlier than the latest one seen is treated as equal to it, so
 * a clock that steps back cannot corrupt the integrals.
 *
 * <p>
 * Thread safety: implementations from {@link Sct#recorder} are safe for concurrent use;
 * each call holds the recorder's own monitor for a constant time (plus closing the
 * intervals that ended since the previous call). A caller that already serialises calls
 * under its own lock pays only an uncontended monitor.
 */
public interface ConcurrencyRecorder {

	/**
	 * A request of this path starts service (it holds a permit from now on).
	 * @return the arrival timestamp read from the clock, to be handed back to
	 * {@link #departed(long)}
	 */
	long arrived();

	/** A request of this path starts service at {@code nowNanos}. */
	void arrived(long nowNanos);

	/**
	 * The request that {@link #arrived()} at {@code arrivalNanos} finished, now by the
	 * clock.
	 */
	void departed(long arrivalNanos);

	/** The request that arrived at {@code arrivalNanos} finished at {@code nowNanos}. */
	void departed(long arrivalNanos, long nowNanos);

	/**
	 * A request of this path starts waiting for a permit (optional; feeds
	 * {@link Verdict#EXPLORE}).
	 */
	void waitStarted(long nowNanos);

	/** A request that {@link #waitStarted waited} got its permit or gave up. */
	void waitEnded(long nowNanos);

	/**
	 * Closes every interval that ended by now on the clock and hands them over, oldest
	 * first.
	 */
	List<Sample> drain();

	/**
	 * Closes every interval that ended by {@code nowNanos} and returns a copy of the last
	 * window of them, oldest first, keeping them: for deciding more often than once a
	 * window on a sliding window of samples.
	 */
	List<Sample> snapshot(long nowNanos);

	/**
	 * Closes every interval that ended by {@code nowNanos} and hands them over, oldest
	 * first.
	 */
	List<Sample> drain(long nowNanos);

}
