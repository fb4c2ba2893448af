package io.pathfence.demo.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What one mode's run produced.
 *
 * @param mode the mode
 * @param faultFree each path's figures while no service was stopped: its reference
 * @param faulted each path's figures while the millibottlenecks ran
 * @param points every request of each path, for the plots (seconds since measuring began)
 * @param faultFreeSeconds when the faulted time began (seconds since measuring began)
 * @param stalls each stall's start and end (seconds since measuring began)
 * @param measureStartEpochMillis when measuring began, to line up the services' occupancy
 * samples
 * @param frontEndOccupancy the front-end's occupancy samples
 * @param ordersOccupancy orders' occupancy samples
 */
public record ModeResult(Mode mode, Map<String, PathStats> faultFree, Map<String, PathStats> faulted,
		Map<String, List<PathRecord.Point>> points, double faultFreeSeconds, List<double[]> stalls,
		long measureStartEpochMillis, Path frontEndOccupancy, Path ordersOccupancy) {
}
