package io.pathfence.sct.internal;

import io.pathfence.sct.ConcurrencyRecorder;
import io.pathfence.sct.Sample;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The recorder behind {@link io.pathfence.sct.Sct#recorder}. For the interval [s, s + I)
 * it accumulates
 *
 * <pre>
 *   A = ∫ n(t) dt      (n = requests in service; a step function changed only by arrivals and departures)
 *   W = ∫ w(t) dt      (w = requests waiting for a permit)
 *   C = completions,   R = Σ (departure − arrival) over those completions
 * </pre>
 *
 * and closes it into the sample Q = A / I, TP = C / I, RT = R / C (0 if C = 0), waiting =
 * W / I. Every update is one {@link #advance} (integrate the current step up to now,
 * closing the intervals that ended) followed by a constant-time change of n, w, C or R.
 * Closed intervals go into parallel primitive arrays used as a ring, so recording
 * allocates nothing.
 */
public final class IntervalRecorder implements ConcurrencyRecorder {

	private final LongSupplier clock;

	private final SctMetrics metrics;

	private final long intervalNanos;

	private final int capacity;

	private final long[] ringStart;

	private final long[] ringArea;

	private final long[] ringWaitArea;

	private final long[] ringCompletions;

	private final long[] ringResponseNanos;

	private int ringHead;

	private int ringSize;

	private int unseen;

	private long currentStart;

	private long lastEvent;

	private int inService;

	private int waiting;

	private long area;

	private long waitArea;

	private long completions;

	private long responseNanos;

	/**
	 * @param originNanos start of the first interval
	 */
	public IntervalRecorder(SctConfig config, LongSupplier clock, long originNanos, SctMetrics metrics) {
		this(config.interval().toNanos(), config.intervalsPerWindow(), clock, originNanos, metrics);
	}

	/**
	 * @param capacity how many closed intervals are kept before the oldest is overwritten
	 */
	public IntervalRecorder(long intervalNanos, int capacity, LongSupplier clock, long originNanos,
			SctMetrics metrics) {
		if (intervalNanos <= 0 || capacity < 1) {
			throw new IllegalArgumentException("need a positive interval and capacity");
		}
		this.intervalNanos = intervalNanos;
		this.capacity = capacity;
		this.clock = Objects.requireNonNull(clock, "clock");
		this.metrics = Objects.requireNonNull(metrics, "metrics");
		this.ringStart = new long[capacity];
		this.ringArea = new long[capacity];
		this.ringWaitArea = new long[capacity];
		this.ringCompletions = new long[capacity];
		this.ringResponseNanos = new long[capacity];
		this.currentStart = originNanos;
		this.lastEvent = originNanos;
	}

	@Override
	public long arrived() {
		long now = clock.getAsLong();
		arrived(now);
		return now;
	}

	@Override
	public synchronized void arrived(long nowNanos) {
		advance(nowNanos);
		inService++;
	}

	@Override
	public void departed(long arrivalNanos) {
		departed(arrivalNanos, clock.getAsLong());
	}

	@Override
	public synchronized void departed(long arrivalNanos, long nowNanos) {
		advance(nowNanos);
		if (inService > 0) {
			inService--;
		}
		completions++;
		responseNanos += Math.max(0, lastEvent - arrivalNanos);
	}

	@Override
	public synchronized void waitStarted(long nowNanos) {
		advance(nowNanos);
		waiting++;
	}

	@Override
	public synchronized void waitEnded(long nowNanos) {
		advance(nowNanos);
		if (waiting > 0) {
			waiting--;
		}
	}

	@Override
	public List<Sample> drain() {
		return drain(clock.getAsLong());
	}

	@Override
	public synchronized List<Sample> drain(long nowNanos) {
		List<Sample> out = snapshot(nowNanos);
		ringHead = 0;
		ringSize = 0;
		return out;
	}

	@Override
	public synchronized List<Sample> snapshot(long nowNanos) {
		advance(nowNanos);
		List<Sample> out = new ArrayList<>(ringSize);
		double seconds = intervalNanos / 1e9;
		for (int k = 0; k < ringSize; k++) {
			int i = (ringHead + k) % capacity;
			long c = ringCompletions[i];
			out.add(new Sample(ringStart[i], intervalNanos, (double) ringArea[i] / intervalNanos, c / seconds,
					c == 0 ? 0.0 : ringResponseNanos[i] / 1e6 / c, (double) ringWaitArea[i] / intervalNanos));
		}
		unseen = 0;
		return out;
	}

	/**
	 * Integrates the current step up to {@code now}, closing every interval that ended on
	 * the way.
	 */
	private void advance(long now) {
		if (now < lastEvent) {
			now = lastEvent;
		}
		if (now >= currentStart + intervalNanos) {
			int dropped = close();
			long idle = (now - currentStart) / intervalNanos;
			if (idle > capacity) {
				// Intervals with no event that would be overwritten before anyone could
				// drain them.
				long skip = idle - capacity;
				currentStart += skip * intervalNanos;
				lastEvent = currentStart;
				dropped += (int) Math.min(Integer.MAX_VALUE, skip);
			}
			while (now >= currentStart + intervalNanos) {
				dropped += close();
			}
			if (dropped > 0) {
				metrics.samplesDropped(dropped);
			}
		}
		area += inService * (now - lastEvent);
		waitArea += waiting * (now - lastEvent);
		lastEvent = now;
	}

	/**
	 * Closes the current interval into the ring; returns 1 if that overwrote a sample
	 * nobody read.
	 */
	private int close() {
		long end = currentStart + intervalNanos;
		area += inService * (end - lastEvent);
		waitArea += waiting * (end - lastEvent);
		int slot;
		int overwritten = 0;
		if (ringSize < capacity) {
			slot = (ringHead + ringSize) % capacity;
			ringSize++;
		}
		else {
			slot = ringHead;
			ringHead = (ringHead + 1) % capacity;
			overwritten = unseen == capacity ? 1 : 0;
		}
		unseen = Math.min(capacity, unseen + 1);
		ringStart[slot] = currentStart;
		ringArea[slot] = area;
		ringWaitArea[slot] = waitArea;
		ringCompletions[slot] = completions;
		ringResponseNanos[slot] = responseNanos;
		area = 0;
		waitArea = 0;
		completions = 0;
		responseNanos = 0;
		currentStart = end;
		lastEvent = end;
		return overwritten;
	}

}
