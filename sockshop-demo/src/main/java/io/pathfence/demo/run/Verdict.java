package io.pathfence.demo.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pathfence.demo.service.Paths;

/**
 * What the demo must show, checked on the path whose downstream does not stall
 * (order-history), each mode against its own fault-free time: without PathFence its p99
 * grows at least 5 x or some of its requests take over 1 s; with PathFence its p99 stays
 * within 2 x and none of its requests takes over 1 s.
 */
public final class Verdict {

	public static final double BASELINE_MIN_P99_RATIO = 5;

	public static final double PATHFENCE_MAX_P99_RATIO = 2;

	private Verdict() {
	}

	public static boolean baselineSuffers(PathStats faulted, PathStats faultFree) {
		return faulted.p99Millis() >= BASELINE_MIN_P99_RATIO * faultFree.p99Millis() || faulted.overOneSecond() > 0;
	}

	public static boolean pathFenceIsolates(PathStats faulted, PathStats faultFree) {
		return faulted.p99Millis() <= PATHFENCE_MAX_P99_RATIO * faultFree.p99Millis() && faulted.overOneSecond() == 0;
	}

	/** One line per mode that has a criterion, saying whether it was met. */
	public static List<String> describe(List<ModeResult> results) {
		List<String> lines = new ArrayList<>();
		for (ModeResult result : results) {
			PathStats faulted = result.faulted().get(Paths.ORDER_HISTORY);
			PathStats reference = result.faultFree().get(Paths.ORDER_HISTORY);
			String figures = String.format(Locale.ROOT,
					"order-history p99 %.0f ms vs %.0f ms fault-free (%.1f x), %d over 1 s", faulted.p99Millis(),
					reference.p99Millis(), faulted.p99Millis() / reference.p99Millis(), faulted.overOneSecond());
			switch (result.mode()) {
				case BASELINE -> lines.add(String.format("baseline:  %s -> %s", figures,
						baselineSuffers(faulted, reference) ? "the stall spreads to the other path (as expected)"
								: "the stall did NOT spread: the fault was too weak to show anything"));
				// The filter in Envoy makes the same promise as the starter, so it is
				// held to the same criterion.
				case PATHFENCE,
						ENVOY ->
					lines.add(String.format("%s: %s -> %s", result.mode(), figures,
							pathFenceIsolates(faulted, reference) ? "the other path is isolated (criterion met)"
									: "criterion NOT met (p99 within 2 x and none over 1 s)"));
				default -> lines.add(String.format("%s: %s", result.mode(), figures));
			}
		}
		return lines;
	}

}
