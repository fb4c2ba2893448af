package io.pathfence.sct;

import io.pathfence.sct.internal.IntervalRecorder;
import io.pathfence.sct.internal.PlateauAnalyzer;
import io.pathfence.sct.internal.RecordReplay;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Entry points of the SCT model: the online recorder, the analyzer and the offline replay
 * of request records.
 */
public final class Sct {

	/**
	 * The most intervals one path's records may span in {@link #samplesByPath}: 10
	 * million.
	 */
	public static final int MAX_REPLAY_INTERVALS = RecordReplay.MAX_INTERVALS;

	private Sct() {
	}

	/**
	 * A recorder for one path whose intervals start at the clock's current reading.
	 * @param config interval length and window (the ring holds one window of intervals)
	 * @param clock nanosecond clock, {@code System::nanoTime} in production
	 * @param metrics told about samples lost to an overdue drain
	 */
	public static ConcurrencyRecorder recorder(SctConfig config, LongSupplier clock, SctMetrics metrics) {
		return new IntervalRecorder(config, clock, clock.getAsLong(), metrics);
	}

	/** Same as {@link #recorder(SctConfig, LongSupplier, SctMetrics)} without metrics. */
	public static ConcurrencyRecorder recorder(SctConfig config, LongSupplier clock) {
		return recorder(config, clock, SctMetrics.NONE);
	}

	/** The analyzer described in {@link PlateauAnalyzer}. */
	public static ConcurrencyAnalyzer analyzer(SctConfig config, SctMetrics metrics) {
		return new PlateauAnalyzer(config, metrics);
	}

	/** Same as {@link #analyzer(SctConfig, SctMetrics)} without metrics. */
	public static ConcurrencyAnalyzer analyzer(SctConfig config) {
		return analyzer(config, SctMetrics.NONE);
	}

	/**
	 * Replays finished requests through a recorder per path, offline. Each path's
	 * intervals are aligned on whole multiples of the interval since time 0 and run to
	 * the end of the interval holding its last departure; every interval is kept (not
	 * only the last window).
	 * @param records requests of any paths, in any order
	 * @return each path's samples in time order, paths in order of first appearance
	 * @throws IllegalArgumentException if one path's records span more than
	 * {@link #MAX_REPLAY_INTERVALS} intervals (replay holds them all at once)
	 */
	public static Map<String, List<Sample>> samplesByPath(List<RequestRecord> records, SctConfig config) {
		return RecordReplay.samplesByPath(records, config);
	}

}
