package io.pathfence.demo.run;

/**
 * A time-varying mix of two execution paths, standing in for the paper's Fig. 13: both at
 * their base rates, then the first at 2.5 x its base rate for 5 s while the second stays,
 * then the second at 2.5 x while the first is back at its base, then both at their base
 * again; the other paths stay at their base rates throughout. No millibottleneck is
 * injected: the load itself moves from path to path.
 *
 * @param first the path that rises first (the one that meets the millibottleneck)
 * @param second the path that rises next
 */
public record PathMix(String first, String second) {

	/** The whole mix lasts this long. */
	public static final double LENGTH_SECONDS = 30;

	/** How far a path's rate rises above its base. */
	public static final double PEAK = 2.5;

	/** The multiplier of a path's base rate {@code t} seconds into the mix. */
	public double multiplier(String path, double t) {
		if (path.equals(this.first)) {
			return 1 + (PEAK - 1) * Trace.plateau(t, 9, 14, 1);
		}
		if (path.equals(this.second)) {
			return 1 + (PEAK - 1) * Trace.plateau(t, 17, 22, 1);
		}
		return 1;
	}

}
