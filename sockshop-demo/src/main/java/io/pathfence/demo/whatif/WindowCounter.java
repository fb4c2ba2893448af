package io.pathfence.demo.whatif;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

import io.pathfence.demo.run.ClosedLoopLoad;

/**
 * Counts the requests answered 2xx in each of a measured run's consecutive windows, as
 * they end: what the run would count as a whole, split in time, so that one run gives
 * several measurements of the same thing at no extra length. Requests that end before the
 * first window (the ramp) or after the last are not counted.
 */
final class WindowCounter implements ClosedLoopLoad.Listener {

	private final long from;

	private final long windowNanos;

	private final AtomicLongArray ok;

	/**
	 * @param from when the first window starts, in {@link System#nanoTime()}
	 * @param measured the windows' length together
	 * @param windows how many windows to split it into, at least one
	 */
	WindowCounter(long from, Duration measured, int windows) {
		if (windows < 1) {
			throw new IllegalArgumentException("a measured run needs at least one window, not " + windows);
		}
		this.from = from;
		this.windowNanos = measured.toNanos() / windows;
		this.ok = new AtomicLongArray(windows);
	}

	@Override
	public void ended(ClosedLoopLoad.Request request, boolean ok) {
		if (ok) {
			count(System.nanoTime());
		}
	}

	/** A request answered 2xx at {@code now}, in {@link System#nanoTime()}. */
	void count(long now) {
		long since = now - this.from;
		if (since < 0) {
			return;
		}
		long window = since / this.windowNanos;
		if (window < this.ok.length()) {
			this.ok.incrementAndGet((int) window);
		}
	}

	/**
	 * Each window's requests answered 2xx per second, in time order.
	 * @param nearestMedian whether the run's throughput is taken from the windows nearest
	 * their median
	 */
	Measurement measurement(boolean nearestMedian) {
		double seconds = this.windowNanos / 1e9;
		List<Double> windows = new ArrayList<>();
		for (int i = 0; i < this.ok.length(); i++) {
			windows.add(this.ok.get(i) / seconds);
		}
		return new Measurement(windows, nearestMedian);
	}

}
