package io.pathfence.demo.grid;

import java.util.Map;

/**
 * The PathFence paper's Table 1 (HPDC '25): average and 99th percentile response time
 * (ms) and dropped requests of the baseline, the asynchronous counterpart and PathFence,
 * per application and bursty trace, for reference beside the grid's own.
 */
final class PaperTable1 {

	/**
	 * One row of the paper's table.
	 *
	 * @param average baseline, asynchronous, PathFence
	 * @param p99 baseline, asynchronous, PathFence
	 * @param dropped baseline, asynchronous, PathFence
	 */
	record Row(int[] average, int[] p99, int[] dropped) {
	}

	private static final Map<String, Row> ROWS = Map.ofEntries(
			row("sock-shop", "large", 249, 171, 153, 3013, 378, 394, 1833, 0, 0),
			row("sock-shop", "quick", 217, 165, 158, 2374, 319, 327, 797, 0, 0),
			row("sock-shop", "slow", 208, 161, 143, 1178, 293, 299, 273, 0, 0),
			row("social-network", "large", 314, 255, 223, 7045, 1094, 1037, 5981, 173, 189),
			row("social-network", "quick", 289, 253, 218, 3097, 1075, 1021, 2973, 134, 181),
			row("social-network", "slow", 273, 244, 252, 1329, 598, 633, 533, 0, 0),
			row("media-service", "large", 445, 397, 283, 3470, 1233, 1092, 3987, 239, 204),
			row("media-service", "quick", 416, 311, 332, 3511, 1204, 997, 2429, 131, 87),
			row("media-service", "slow", 391, 297, 286, 1573, 871, 453, 1266, 0, 0));

	private PaperTable1() {
	}

	/**
	 * The paper's row for an application and trace, or {@code null} where it has none.
	 */
	static Row row(String app, String trace) {
		return ROWS.get(app + "/" + trace);
	}

	private static Map.Entry<String, Row> row(String app, String trace, int... figures) {
		return Map.entry(app + "/" + trace, new Row(new int[] { figures[0], figures[1], figures[2] },
				new int[] { figures[3], figures[4], figures[5] }, new int[] { figures[6], figures[7], figures[8] }));
	}

}
