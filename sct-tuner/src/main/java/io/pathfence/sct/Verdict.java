package io.pathfence.sct;

/** What one analysis of a window concluded. */
public enum Verdict {

    /** A throughput plateau was found; the recommendation is its lower end, Q_lower. */
    PLATEAU(true),

    /**
     * Throughput still rises at the highest observed level while requests wait for a permit: the reservation is
     * what holds throughput back, so the recommendation is a bounded increase above that level.
     */
    EXPLORE(true),

    /**
     * Throughput still rises at the highest observed level but no request waited: the load never pushed the path
     * to its knee, so there is nothing to recommend yet.
     */
    NO_PLATEAU(false),

    /** Too few samples, or too few distinct concurrency levels with enough samples each. */
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
