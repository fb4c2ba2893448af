package io.pathfence.sct;

import java.util.List;

/**
 * Finds the rational concurrency range [Q_lower, Q_upper] in one window of samples and
 * recommends a reservation. Implementations are stateless and safe for concurrent use:
 * the same samples always give the same result.
 */
public interface ConcurrencyAnalyzer {

	/**
	 * Analyses one window of one path.
	 * @param window the path's samples, in any order
	 * @return the range, the recommendation and the reason; never null
	 */
	SctResult analyze(List<Sample> window);

}
