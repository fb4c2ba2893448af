package io.pathfence.demo.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pathfence.demo.topology.Topology;

/**
 * What the demo must show, checked on the paths that share the shared service with the
 * stalled one without meeting the millibottleneck (SockShop's order-history and local
 * requests), each mode against its own fault-free time: without PathFence the p99 of one
 * of them grows at least 5 x or some of its requests take over 1 s; with PathFence each
 * one's p99 stays within {@link #PATHFENCE_MAX_P99_RATIO} times its fault-free p99 (the
 * grid's criterion too) and none of its requests takes over 1 s.
 */
public final class Verdict {

	public static final double BASELINE_MIN_P99_RATIO = 5;

	public static final double PATHFENCE_MAX_P99_RATIO = 1.5;

	private Verdict() {
	}

	public static boolean baselineSuffers(PathStats faulted, PathStats faultFree) {
		return faulted.p99Millis() >= BASELINE_MIN_P99_RATIO * faultFree.p99Millis() || faulted.overOneSecond() > 0;
	}

	public static boolean pathFenceIsolates(PathStats faulted, PathStats faultFree) {
		return faulted.p99Millis() <= PATHFENCE_MAX_P99_RATIO * faultFree.p99Millis() && faulted.overOneSecond() == 0;
	}

	/** Whether the stall spread to at least one of the other paths. */
	public static boolean baselineSuffers(ModeResult result, Topology topology) {
		return topology.otherSharedPaths()
			.stream()
			.anyMatch((path) -> baselineSuffers(result.faulted().get(path), result.faultFree().get(path)));
	}

	/** Whether every other path kept its response time. */
	public static boolean pathFenceIsolates(ModeResult result, Topology topology) {
		return topology.otherSharedPaths()
			.stream()
			.allMatch((path) -> pathFenceIsolates(result.faulted().get(path), result.faultFree().get(path)));
	}

	/** One line per mode and other path, saying whether the mode's criterion was met. */
	public static List<String> describe(List<ModeResult> results, Topology topology) {
		List<String> lines = new ArrayList<>();
		for (ModeResult result : results) {
			for (String path : topology.otherSharedPaths()) {
				PathStats faulted = result.faulted().get(path);
				PathStats reference = result.faultFree().get(path);
				String figures = String.format(Locale.ROOT,
						"%s p99 %.0f ms vs %.0f ms fault-free (%.1f x), %d over 1 s", path, faulted.p99Millis(),
						reference.p99Millis(), faulted.p99Millis() / reference.p99Millis(), faulted.overOneSecond());
				if (result.mode() == Mode.BASELINE) {
					lines.add(String.format("baseline:  %s -> %s", figures,
							baselineSuffers(faulted, reference) ? "the stall spreads to this path (as expected)"
									: "the stall did NOT spread to this path"));
				}
				else if (result.mode().fenced()) {
					// The filter in Envoy makes the same promise as the starter, so it is
					// held to the same criterion.
					lines.add(String.format("%s: %s -> %s", result.mode(), figures,
							pathFenceIsolates(faulted, reference) ? "this path is isolated (criterion met)"
									: String.format(Locale.ROOT,
											"criterion NOT met (p99 within %.1f x and none over 1 s)",
											PATHFENCE_MAX_P99_RATIO)));
				}
				else {
					lines.add(String.format("%s: %s", result.mode(), figures));
				}
			}
		}
		return lines;
	}

}
