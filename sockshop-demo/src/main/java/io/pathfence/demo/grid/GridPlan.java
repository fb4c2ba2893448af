package io.pathfence.demo.grid;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.Settings;
import io.pathfence.demo.run.Trace;
import io.pathfence.demo.topology.Topology;

/**
 * What the grid runs.
 *
 * @param apps the applications (names or topology files)
 * @param traces the bursty traces
 * @param modes the modes
 * @param warmUp unmeasured load after each mode switch
 * @param reference the fault-free time before each trace's faulted time, in the PathFence
 * modes (the reference of their other paths)
 * @param faulted the measured time of each cell
 * @param users the closed loop's levels of users (Fig. 12)
 * @param ramp the closed loop's unmeasured start
 * @param closedLoop the closed loop's measured time
 * @param mixApp the application of the path mix (Fig. 14), or {@code null} for none
 * @param mixModes the modes that run the path mix
 * @param jar the demo's jar
 * @param results the run's folder
 */
record GridPlan(List<String> apps, List<Trace> traces, List<Mode> modes, Duration warmUp, Duration reference,
		Duration faulted, List<Integer> users, Duration ramp, Duration closedLoop, String mixApp, List<Mode> mixModes,
		Path jar, Path results) {

	/**
	 * The order the modes run in on one application's services: those that differ only at
	 * the shared service first, so that a switch restarts one service, then those that
	 * restart every one.
	 */
	private static final List<Mode> RUN_ORDER = List.of(Mode.BASELINE, Mode.PATHFENCE, Mode.PATHFENCE_SCT, Mode.ENVOY,
			Mode.ENVOY_LEARNED, Mode.VIRTUAL_THREADS, Mode.ASYNC);

	/** The order of the table's columns: the paper's three, then ours. */
	private static final List<Mode> COLUMN_ORDER = List.of(Mode.BASELINE, Mode.ASYNC, Mode.PATHFENCE_SCT,
			Mode.PATHFENCE, Mode.VIRTUAL_THREADS, Mode.ENVOY, Mode.ENVOY_LEARNED);

	/**
	 * What one application's services are run with, its results in a folder of its own.
	 * @throws IllegalArgumentException naming the option the settings refuse
	 */
	Settings settings(String app, Topology topology) {
		return Settings.defaults(app, topology, this.jar, this.results.resolve(topology.name()))
			.with(this.modes, Trace.LARGE, this.warmUp, this.reference, this.faulted);
	}

	List<Mode> runOrder() {
		return this.modes.stream().sorted(Comparator.comparingInt(RUN_ORDER::indexOf)).toList();
	}

	List<Mode> columns() {
		return this.modes.stream().sorted(Comparator.comparingInt(COLUMN_ORDER::indexOf)).toList();
	}

	/** The seconds the plan measures, and a guess at what starting and switching adds. */
	double estimatedSeconds() {
		double perTrace = this.faulted.toSeconds() + 2;
		double total = 0;
		for (Mode mode : this.modes) {
			total += this.warmUp.toSeconds()
					+ this.users.size() * (this.ramp.toSeconds() + this.closedLoop.toSeconds() + 1);
			total += this.traces.size() * (perTrace + (mode.fenced() ? this.reference.toSeconds() : 0));
			total += (mode == Mode.VIRTUAL_THREADS || mode == Mode.ASYNC || mode == Mode.BASELINE) ? 20 : 5;
		}
		total *= this.apps.size();
		if (this.mixApp != null) {
			total += this.modes.stream().filter(this.mixModes::contains).count() * 32;
		}
		return total;
	}

}
