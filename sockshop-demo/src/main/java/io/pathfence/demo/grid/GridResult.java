package io.pathfence.demo.grid;

import java.util.List;
import java.util.Map;

import io.pathfence.demo.run.MixResult;
import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.Throughput;
import io.pathfence.demo.topology.Topology;

/**
 * Everything the grid measured.
 *
 * @param apps the applications, in the order they ran
 * @param cells every application, trace and mode
 * @param throughput per application, per mode, per level of users: the closed loop's
 * answers (Fig. 12)
 * @param mixes per mode, the path mix of the application it ran on (Fig. 14)
 * @param mixApp the application of the path mix, or {@code null}
 */
record GridResult(List<Topology> apps, List<Cell> cells, Map<String, Map<Mode, Map<Integer, Throughput>>> throughput,
		List<MixResult> mixes, Topology mixApp) {

	/**
	 * The most a mode answered on an application, over the levels of users; 0 if it did
	 * not run.
	 */
	double maxThroughput(String app, Mode mode) {
		Map<Integer, Throughput> levels = this.throughput.getOrDefault(app, Map.of()).get(mode);
		return (levels == null) ? 0 : levels.values().stream().mapToDouble(Throughput::okPerSecond).max().orElse(0);
	}

}
