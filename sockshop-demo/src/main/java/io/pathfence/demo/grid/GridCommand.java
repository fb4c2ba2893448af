package io.pathfence.demo.grid;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.RunCommand;
import io.pathfence.demo.run.Trace;
import io.pathfence.demo.topology.Topologies;

/**
 * {@code java -jar sockshop-demo.jar grid [options]}: the paper's whole evaluation in one
 * command. Every application under every trace in every mode, the maximum throughput in a
 * closed loop, and the path mix; then Table 1 beside the paper's, the criteria per cell,
 * Fig. 12 and Fig. 14, under {@code results/grid/<date>/}.
 */
@Command(name = "grid", mixinStandardHelpOptions = true, sortOptions = false,
		description = "Runs the paper's evaluation: 3 applications x 3 bursty traces x the modes, Table 1 with the "
				+ "paper's figures beside it, the criteria, Fig. 12 and Fig. 14.")
public final class GridCommand implements Callable<Integer> {

	@Spec
	CommandSpec spec;

	@Option(names = "--apps", split = ",", defaultValue = "sock-shop,social-network,media-service",
			description = "Applications, or topology files (default: ${DEFAULT-VALUE}).")
	List<String> apps;

	@Option(names = "--traces", split = ",", defaultValue = "large,quick,slow",
			converter = RunCommand.TraceConverter.class, description = "Traces (default: ${DEFAULT-VALUE}).")
	List<Trace> traces;

	@Option(names = "--modes", split = ",", defaultValue = "baseline,async,pathfence-sct,pathfence,virtual-threads",
			converter = RunCommand.ModeConverter.class, description = "Modes (default: ${DEFAULT-VALUE}).")
	List<Mode> modes;

	@Option(names = "--warm-up", defaultValue = "3s", converter = RunCommand.DurationConverter.class,
			description = "Unmeasured load after each mode switch (default: ${DEFAULT-VALUE}).")
	Duration warmUp;

	@Option(names = "--reference", defaultValue = "10s", converter = RunCommand.DurationConverter.class,
			description = "Fault-free time before each faulted time, in the PathFence modes (default: "
					+ "${DEFAULT-VALUE}).")
	Duration reference;

	@Option(names = "--faulted", defaultValue = "20s", converter = RunCommand.DurationConverter.class,
			description = "Measured time of each cell: two millibottlenecks (default: ${DEFAULT-VALUE}).")
	Duration faulted;

	@Option(names = "--users", split = ",", defaultValue = "32",
			description = "Closed-loop users for the maximum throughput: each level is measured and the most "
					+ "answers count. The default is more than the shared service's threads, so every mode "
					+ "is saturated, and fewer than its connections (default: ${DEFAULT-VALUE}).")
	List<Integer> users;

	@Option(names = "--closed-loop", defaultValue = "4s", converter = RunCommand.DurationConverter.class,
			description = "Measured time of the closed loop, after a 2 s ramp (default: ${DEFAULT-VALUE}).")
	Duration closedLoop;

	@Option(names = "--mix-app", defaultValue = "social-network",
			description = "Application of the path mix (Fig. 14); 'none' for none (default: ${DEFAULT-VALUE}).")
	String mixApp;

	@Option(names = "--mix-modes", split = ",", defaultValue = "baseline,async,pathfence-sct,pathfence",
			converter = RunCommand.ModeConverter.class,
			description = "Modes that run the path mix, of those in --modes (default: ${DEFAULT-VALUE}).")
	List<Mode> mixModes;

	@Option(names = "--jar", description = "The demo's jar (default: this one).")
	Path jar;

	@Option(names = "--results", defaultValue = "results/grid",
			description = "Folder for the results; each run gets a dated subfolder (default: ${DEFAULT-VALUE}).")
	Path results;

	public static CommandLine commandLine() {
		return RunCommand.withOneLineUsageErrors(new GridCommand());
	}

	@Override
	public Integer call() throws Exception {
		GridPlan plan = plan(RunCommand.datedFolder(this.results));
		Files.createDirectories(plan.results());
		System.out.printf("Grid: %s x %s x %s; about %.0f min; results in %s%n", plan.apps(), plan.traces(),
				plan.columns(), plan.estimatedSeconds() / 60, plan.results());
		long started = System.nanoTime();
		GridResult result = new Grid(plan, System.out).run();
		GridReport report = new GridReport(plan, result);
		double minutes = (System.nanoTime() - started) / 60e9;
		String summary = report.summary();
		Files.writeString(plan.results().resolve("table1.md"),
				String.format(Locale.ROOT, "# The paper's evaluation, measured%n%nRan in %.1f min on %d cores.%n%n%s",
						minutes, Runtime.getRuntime().availableProcessors(), summary));
		Files.writeString(plan.results().resolve("cells.md"), report.cells());
		List<Path> figures = Figures.write(plan, result, plan.results());
		System.out.println();
		System.out.println(summary);
		System.out.printf("Ran in %.1f min. Tables: %s, %s%nFigures:%n", minutes, plan.results().resolve("table1.md"),
				plan.results().resolve("cells.md"));
		figures.forEach((figure) -> System.out.println("  " + figure));
		System.out.println("Per cell: " + plan.results().resolve("APP/TRACE/"));
		return 0;
	}

	GridPlan plan(Path folder) {
		for (String app : this.apps) {
			try {
				Topologies.load(app);
			}
			catch (IllegalArgumentException ex) {
				throw usage("--apps " + ex.getMessage());
			}
		}
		for (Duration duration : List.of(this.warmUp, this.reference, this.faulted, this.closedLoop)) {
			if (duration.isNegative()) {
				throw usage("durations must not be negative, not " + duration);
			}
		}
		if (this.faulted.isZero() || this.reference.isZero() && this.modes.stream().anyMatch(Mode::fenced)) {
			throw usage("--faulted must be longer than 0, and --reference too when a PathFence mode runs");
		}
		if (this.users.isEmpty() || this.users.stream().anyMatch((level) -> level < 1)) {
			throw usage("--users must be levels of at least 1 user, not " + this.users);
		}
		String mix = this.mixApp.equals("none") ? null : this.mixApp;
		if (mix != null && !this.apps.contains(mix)) {
			throw usage("--mix-app " + mix + " must be one of --apps " + this.apps + ", or none");
		}
		Path jarFile = (this.jar != null) ? this.jar : ownJar();
		GridPlan plan = new GridPlan(List.copyOf(this.apps), List.copyOf(this.traces), List.copyOf(this.modes),
				this.warmUp, this.reference, this.faulted, List.copyOf(this.users), Duration.ofSeconds(2),
				this.closedLoop, mix, List.copyOf(this.mixModes), jarFile, folder);
		for (String app : plan.apps()) {
			try {
				plan.settings(app, Topologies.load(app));
			}
			catch (IllegalArgumentException ex) {
				throw usage(ex.getMessage());
			}
		}
		return plan;
	}

	private Path ownJar() {
		return RunCommand.startedFromJar().orElseThrow(() -> usage(RunCommand.NOT_FROM_A_JAR));
	}

	private ParameterException usage(String message) {
		return new ParameterException(this.spec.commandLine(), message);
	}

}
