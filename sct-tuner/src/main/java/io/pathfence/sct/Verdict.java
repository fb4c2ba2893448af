package io.pathfence.sct;

/** What one analysis of a window concluded. */
public enum Verdict {

	/** A throughput plateau was found; the recommendation is its lower end, Q_lower. */
	PLATEAU(true),

	/**
	 * The window cannot settle the range, but requests wait for a permit, so the
	 * reservation is what holds the path back: the recommendation is one bounded step to
	 * a level not seen yet. Up when throughput still rises at the highest observed level,
	 * or when the concurrency is pinned to 1; down when it is pinned to a single higher
	 * level, or when throughput is highest at the lowest of too few levels. The next
	 * window, which still holds this one's samples, compares.
	 */
	EXPLORE(true),

	/**
	 * Throughput still rises at the highest observed level but no request waited: the
	 * load never pushed the path to its knee, so there is nothing to recommend yet.
	 */
	NO_PLATEAU(false),

	/**
	 * Too few samples, or too few distinct concurrency levels with enough samples each.
	 */
	INSUFFICIENT_DATA(false);

	private final boolean recommends;

	Verdict(boolean recommends) {
		this.recommends = recommends;
	}

	/** Whether a result with this verdict carries a recommended concurrency. */
	public boolean recommends() {
		return recommends;
	}

}
