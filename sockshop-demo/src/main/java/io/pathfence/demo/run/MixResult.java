package io.pathfence.demo.run;

import java.nio.file.Path;
import java.util.List;

/**
 * What one mode did under a {@link PathMix} (the paper's Fig. 14).
 *
 * @param mode the mode
 * @param responseTime per second of the mix: {start second, mean response time of the
 * requests sent in it (ms), requests}
 * @param sharedCpu per half second: {seconds since the mix began, CPU utilization of the
 * shared service's process (1 = one core)}
 * @param sharedOccupancy the shared service's occupancy samples
 * @param startEpochMillis when the mix began
 * @param endEpochMillis when it ended
 */
public record MixResult(Mode mode, List<double[]> responseTime, List<double[]> sharedCpu, Path sharedOccupancy,
		long startEpochMillis, long endEpochMillis) {
}
