package io.pathfence.demo.grid;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.demo.run.MixResult;
import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.ModeResult;
import io.pathfence.demo.run.PathMix;
import io.pathfence.demo.run.Plots;
import io.pathfence.demo.run.Session;
import io.pathfence.demo.run.Settings;
import io.pathfence.demo.run.Throughput;
import io.pathfence.demo.run.Trace;
import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;

/**
 * Runs the paper's evaluation: per application, its services are started once, and each
 * mode in turn runs every trace with the application's millibottlenecks (the PathFence
 * modes after a fault-free reference of the same trace), the path mix on the mix's
 * application, and a closed loop for the maximum throughput.
 */
final class Grid {

	private final GridPlan plan;

	private final PrintStream out;

	Grid(GridPlan plan, PrintStream out) {
		this.plan = plan;
		this.out = out;
	}

	GridResult run() throws IOException, InterruptedException {
		List<Topology> apps = new ArrayList<>();
		List<Cell> cells = new ArrayList<>();
		Map<String, Map<Mode, Map<Integer, Throughput>>> throughput = new LinkedHashMap<>();
		List<MixResult> mixes = new ArrayList<>();
		Topology mixApp = null;
		for (String app : this.plan.apps()) {
			Topology topology = Topologies.load(app);
			apps.add(topology);
			Settings settings = this.plan.settings(app, topology);
			Path folder = settings.results();
			this.out.printf("%n=== %s: %s%n", topology.name(), this.plan.runOrder());
			Map<Mode, Map<Integer, Throughput>> appThroughput = new EnumMap<>(Mode.class);
			List<Cell> appCells = new ArrayList<>();
			try (Session session = new Session(settings, this.out)) {
				for (Mode mode : this.plan.runOrder()) {
					session.prepare(mode);
					for (Trace trace : this.plan.traces()) {
						Duration reference = mode.fenced() ? this.plan.reference() : Duration.ZERO;
						appCells.add(new Cell(topology, trace,
								session.measure(mode, trace, reference, this.plan.faulted())));
					}
					if ((topology.name().equals(this.plan.mixApp()) || app.equals(this.plan.mixApp()))
							&& this.plan.mixModes().contains(mode)) {
						mixApp = topology;
						mixes.add(session.mix(mode, mixOf(topology)));
					}
					Map<Integer, Throughput> levels = new LinkedHashMap<>();
					for (int users : this.plan.users()) {
						levels.put(users, session.closedLoop(mode, users, this.plan.ramp(), this.plan.closedLoop()));
					}
					appThroughput.put(mode, levels);
				}
			}
			throughput.put(topology.name(), appThroughput);
			cells.addAll(appCells);
			for (Trace trace : this.plan.traces()) {
				List<ModeResult> results = new ArrayList<>();
				for (Mode mode : this.plan.columns()) {
					appCells.stream()
						.filter((cell) -> cell.trace() == trace && cell.result().mode() == mode)
						.forEach((cell) -> results.add(cell.result()));
				}
				Plots.write(results, settings.with(this.plan.modes(), trace, this.plan.warmUp(), this.plan.reference(),
						this.plan.faulted()), folder.resolve(trace.id()));
			}
		}
		return new GridResult(apps, cells, throughput, mixes, mixApp);
	}

	/**
	 * The mix of the path that meets the millibottleneck and the first other path through
	 * the shared service.
	 */
	static PathMix mixOf(Topology topology) {
		return new PathMix(topology.faultyPaths().get(0), topology.otherSharedPaths().get(0));
	}

}
