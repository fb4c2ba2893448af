package io.pathfence.demo.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What one mode's run produced.
 *
 * @param mode the mode
 * @param trace the burst shape of the faulted time
 * @param faultFree each path's figures while no service stalled: its reference
 * @param faulted each path's figures while the millibottlenecks happened
 * @param faultedOverall every request of the faulted time, whatever its path: the
 * application's figures, as the paper's Table 1 gives them
 * @param points every request of each path, for the plots (seconds since measuring began)
 * @param faultFreeSeconds when the faulted time began (seconds since measuring began)
 * @param stalls each stall's (or, for bursts, each burst's) start and end (seconds since
 * measuring began)
 * @param measureStartEpochMillis when measuring began, to line up the services' occupancy
 * samples
 * @param measureEndEpochMillis when it ended
 * @param gatewayOccupancy the gateway's occupancy samples
 * @param sharedOccupancy the shared service's occupancy samples
 * @param listenDrops connections the kernel dropped at the full accept queues of the
 * experiment's listening sockets during the faulted time (and until its answers were in);
 * -1 when unknown
 */
public record ModeResult(Mode mode, Trace trace, Map<String, PathStats> faultFree, Map<String, PathStats> faulted,
		PathStats faultedOverall, Map<String, List<PathRecord.Point>> points, double faultFreeSeconds,
		List<double[]> stalls, long measureStartEpochMillis, long measureEndEpochMillis, Path gatewayOccupancy,
		Path sharedOccupancy, long listenDrops) {
}
