package io.pathfence.demo.grid;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pathfence.demo.run.ModeResult;
import io.pathfence.demo.run.PathStats;
import io.pathfence.demo.run.Verdict;
import io.pathfence.demo.topology.Topology;

/**
 * The criteria for one application and trace, on one PathFence mode against the
 * baseline and the asynchronous counterpart of the same trace:
 * <ol>
 * <li>PathFence's p99 is at most 1.3 x the asynchronous counterpart's;</li>
 * <li>and at most 0.3 x the baseline's;</li>
 * <li>for SockShop, no request is dropped: the kernel dropped no connection at a full
 * accept queue, and no request went without an answer;</li>
 * <li>each path that shares the shared service without meeting the millibottleneck keeps
 * its p99 within {@link #OTHER_PATHS} times its own fault-free p99.</li>
 * </ol>
 * A criterion whose comparison mode did not run is not judged.
 */
final class Criteria {

	static final double VERSUS_ASYNC = 1.3;

	static final double VERSUS_BASELINE = 0.3;

	/** The demo's own criterion: the grid judges the other paths as a run does. */
	static final double OTHER_PATHS = Verdict.PATHFENCE_MAX_P99_RATIO;

	private Criteria() {
	}

	/**
	 * One criterion's outcome.
	 *
	 * @param met whether it holds
	 * @param figures the numbers it was judged on, in words
	 */
	record Check(boolean met, String figures) {

		String cell() {
			return (this.met ? "met" : "**MISSED**") + ": " + this.figures;
		}

	}

	/** The four checks of a cell, {@code null} for one that cannot be judged. */
	record Checks(Check versusAsync, Check versusBaseline, Check noDrops, Check otherPaths) {

		List<Check> judged() {
			List<Check> judged = new ArrayList<>();
			for (Check check : new Check[] { this.versusAsync, this.versusBaseline, this.noDrops, this.otherPaths }) {
				if (check != null) {
					judged.add(check);
				}
			}
			return judged;
		}

	}

	static Checks judge(Topology topology, ModeResult fenced, ModeResult async, ModeResult baseline) {
		double p99 = fenced.faultedOverall().p99Millis();
		Check versusAsync = null;
		if (async != null) {
			double ratio = p99 / async.faultedOverall().p99Millis();
			versusAsync = new Check(ratio <= VERSUS_ASYNC, String.format(Locale.ROOT, "%.0f / %.0f ms = %.2f x", p99,
					async.faultedOverall().p99Millis(), ratio));
		}
		Check versusBaseline = null;
		if (baseline != null) {
			double ratio = p99 / baseline.faultedOverall().p99Millis();
			versusBaseline = new Check(ratio <= VERSUS_BASELINE, String.format(Locale.ROOT, "%.0f / %.0f ms = %.2f x",
					p99, baseline.faultedOverall().p99Millis(), ratio));
		}
		Check noDrops = null;
		if (topology.name().equals("sock-shop")) {
			int unanswered = fenced.faultedOverall().connectionOrTimeout();
			noDrops = new Check(fenced.listenDrops() == 0 && unanswered == 0,
					String.format(Locale.ROOT, "%d dropped, %d unanswered", fenced.listenDrops(), unanswered));
		}
		List<String> figures = new ArrayList<>();
		boolean within = true;
		for (String path : topology.otherSharedPaths()) {
			PathStats faulted = fenced.faulted().get(path);
			PathStats reference = fenced.faultFree().get(path);
			if (reference.requests() == 0) {
				within = false;
				figures.add(path + " has no fault-free reference");
				continue;
			}
			double ratio = faulted.p99Millis() / reference.p99Millis();
			within &= ratio <= OTHER_PATHS;
			figures.add(String.format(Locale.ROOT, "%s %.0f / %.0f ms = %.2f x", path, faulted.p99Millis(),
					reference.p99Millis(), ratio));
		}
		Check otherPaths = new Check(within, String.join("; ", figures));
		return new Checks(versusAsync, versusBaseline, noDrops, otherPaths);
	}

}
