package io.pathfence.demo.whatif;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import io.pathfence.demo.run.RunCommand;
import io.pathfence.demo.run.RunCommand.DurationConverter;
import io.pathfence.demo.run.Settings;
import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;

/**
 * {@code java -jar sockshop-demo.jar whatif --target NAME --reduce 10..50%/10}: what
 * would the shop's throughput be if the target needed that much less CPU per call? Runs
 * the shop under pause agents, pinned, and answers with Slowpoke's model from the
 * throughput measured under coordinated pauses of every other service; with
 * {@code --validate}, also with the target really made that much faster. Bad input, what
 * makes the run impossible (no CPU of its own for the target, no agent, a load that does
 * not saturate) and what fails under way (a pause, a scrape of a service's metrics) is
 * one line and exit code 2; every service is continued and ended on any exit.
 */
@Command(name = "whatif", mixinStandardHelpOptions = true, sortOptions = false,
		description = "Predicts the shop's throughput if one service needed less CPU time per call, by pausing every "
				+ "other service in coordinated rounds (Slowpoke, NSDI '26).")
public final class WhatIfCommand implements Callable<Integer> {

	/** A window shorter than this would count too few requests to say anything. */
	private static final Duration MIN_WINDOW = Duration.ofMillis(500);

	@Spec
	CommandSpec spec;

	@Option(names = "--target", required = true, description = "The service to make faster, e.g. payment.")
	String target;

	@Option(names = "--reduce", defaultValue = "10..50%/10",
			description = "Reductions of the target's CPU time per call: a range such as 10..50%%/10 or a list such "
					+ "as 15%%,30%% (default: ${DEFAULT-VALUE}).")
	String reduce;

	@Option(names = "--validate",
			description = "Also measure the ground truth: the target's simulated CPU time per call really cut.")
	boolean validate;

	@Option(names = "--repetitions", defaultValue = "1", description = "Measure each this many times (default: 1).")
	int repetitions;

	@Option(names = "--app", defaultValue = Topologies.DEFAULT,
			description = "The application: sock-shop, social-network, media-service or a topology file "
					+ "(default: ${DEFAULT-VALUE}).")
	String app;

	@Option(names = "--cpu-time", converter = { Name.class, DurationConverter.class },
			description = "A service's simulated CPU time per call, e.g. --cpu-time payment=6ms (default: the "
					+ "topology's).")
	Map<String, Duration> cpuTimes = new LinkedHashMap<>();

	@Option(names = "--threads",
			description = "A service's Tomcat threads in this run, e.g. --threads orders=64 (default: the "
					+ "topology's).")
	Map<String, Integer> threads = new LinkedHashMap<>();

	@Option(names = "--users", defaultValue = "256",
			description = "Users of the closed-loop load, enough to saturate the shop (default: ${DEFAULT-VALUE}).")
	int users;

	@Option(names = "--warm-up", defaultValue = "40s", converter = DurationConverter.class,
			description = "Unmeasured load once the shop has started: every service's JIT must be done before the "
					+ "first measured run (default: ${DEFAULT-VALUE}).")
	Duration warmUp;

	// Measured sooner, a restarted target is still short of its pace: its ground truths
	// read low and the predictions lean high.
	@Option(names = "--restart-warm-up", defaultValue = "40s", converter = DurationConverter.class,
			description = "Unmeasured load after the target alone is restarted for a ground truth "
					+ "(default: ${DEFAULT-VALUE}).")
	Duration restartWarmUp;

	@Option(names = "--profile", defaultValue = "15s", converter = DurationConverter.class,
			description = "The profiling run (default: ${DEFAULT-VALUE}).")
	Duration profile;

	@Option(names = "--measure", defaultValue = "15s", converter = DurationConverter.class,
			description = "Each measured run (default: ${DEFAULT-VALUE}).")
	Duration measure;

	@Option(names = "--windows", defaultValue = "5",
			description = "Split each measured run into this many windows, whose range the table shows "
					+ "(default: ${DEFAULT-VALUE}).")
	int windows;

	@Option(names = "--nearest-median",
			description = "Take each run's throughput as the mean of the majority of its windows nearest their median "
					+ "(3 of 5, as Slowpoke keeps 3 of 5 runs) instead of the whole run's.")
	boolean nearestMedian;

	@Option(names = "--settle", defaultValue = "8s", converter = DurationConverter.class,
			description = "Unmeasured load before each measured run, under its pauses: the closed loop's users all "
					+ "start at once, and their first waves of answers are not the steady state "
					+ "(default: ${DEFAULT-VALUE}).")
	Duration settle;

	@Option(names = "--batch", defaultValue = "0",
			description = "Target calls per round of pauses (default: so that a round pauses about 25 ms).")
	long batch;

	@Option(names = "--mechanism", defaultValue = "agent",
			description = "What pays the rounds, one of ${COMPLETION-CANDIDATES}: agent (each service stopped by its "
					+ "pause agent) or filter (every paused service behind an Envoy sidecar whose PathFence filter "
					+ "holds its requests in rounds; profiling and ground truth as with the agent) (default: "
					+ "${DEFAULT-VALUE}).")
	Mechanism mechanism;

	@Option(names = "--pause-agent",
			description = "The pause agent binary (default: pause-agent/target/release/pause-agent, as built).")
	Path pauseAgent;

	@Option(names = "--pause-agent-option", hidden = true,
			description = "An option for every agent (for tests: --pause-agent-option=--proc-root=DIR).")
	List<String> pauseAgentOptions = new ArrayList<>();

	@Option(names = "--jar", description = "The demo's jar the services are started from (default: this one).")
	Path jar;

	@Option(names = "--results",
			description = "Folder for the results; each run gets a dated subfolder (default: results/whatif).")
	Path results;

	/**
	 * The command line: a bad option gives one line on stderr and exit code 2.
	 */
	public static CommandLine commandLine() {
		CommandLine commandLine = RunCommand.withOneLineUsageErrors(new WhatIfCommand());
		commandLine.setCaseInsensitiveEnumValuesAllowed(true);
		commandLine.setExecutionExceptionHandler((ex, commandLine1, parseResult) -> oneLine(ex, commandLine1));
		return commandLine;
	}

	/**
	 * What the run found it cannot do, or what failed under way, as one line on stderr
	 * and exit code 2; anything else is a bug and keeps its stack trace. By the time the
	 * exception gets here, the cluster has ended every service, continued first.
	 */
	static int oneLine(Exception ex, CommandLine commandLine) throws Exception {
		if (ex instanceof WhatIfRefusal || ex instanceof WhatIfFailure
				|| ex instanceof AgentLauncher.NoAgentException) {
			commandLine.getErr().println("whatif: " + ex.getMessage());
			return CommandLine.ExitCode.USAGE;
		}
		throw ex;
	}

	@Override
	public Integer call() throws Exception {
		Topology topology = topology();
		if (!topology.services().containsKey(this.target)) {
			throw usage("--target " + this.target + ": no such service in " + topology.name() + "; one of "
					+ topology.services().keySet());
		}
		List<Double> reductions;
		try {
			reductions = Reductions.parse(this.reduce);
		}
		catch (IllegalArgumentException ex) {
			throw usage(ex.getMessage());
		}
		if (this.repetitions < 1) {
			throw usage("--repetitions must be at least 1, not " + this.repetitions);
		}
		if (this.users < 2) {
			throw usage("--users must be at least 2 (saturation is told by halving them), not " + this.users);
		}
		if (this.batch < 0) {
			throw usage("--batch must be a number of calls above 0, or 0 for rounds of about 25 ms");
		}
		for (Map.Entry<String, Duration> cpuTime : this.cpuTimes.entrySet()) {
			if (!topology.services().containsKey(cpuTime.getKey())) {
				throw usage("--cpu-time " + cpuTime.getKey() + ": no such service in " + topology.name() + "; one of "
						+ topology.services().keySet());
			}
			positive("--cpu-time " + cpuTime.getKey(), cpuTime.getValue());
		}
		for (Map.Entry<String, Integer> threadsOf : this.threads.entrySet()) {
			if (!topology.services().containsKey(threadsOf.getKey())) {
				throw usage("--threads " + threadsOf.getKey() + ": no such service in " + topology.name() + "; one of "
						+ topology.services().keySet());
			}
			if (threadsOf.getValue() < 1) {
				throw usage("--threads " + threadsOf.getKey() + " must be at least 1, not " + threadsOf.getValue());
			}
		}
		positive("--warm-up", this.warmUp);
		positive("--restart-warm-up", this.restartWarmUp);
		positive("--profile", this.profile);
		positive("--measure", this.measure);
		if (this.settle.isNegative()) {
			throw usage("--settle must not be negative, not " + this.settle);
		}
		if (this.windows < 1) {
			throw usage("--windows must be at least 1, not " + this.windows);
		}
		if (this.measure.dividedBy(this.windows).compareTo(MIN_WINDOW) < 0) {
			throw usage(String.format(
					"--windows %d splits a measured run of %d ms into windows shorter than %d ms; use fewer",
					this.windows, this.measure.toMillis(), MIN_WINDOW.toMillis()));
		}
		Path agent = agent();
		if (!Files.isRegularFile(agent) || !Files.isExecutable(agent)) {
			throw new WhatIfRefusal("no service can run under a pause agent: " + agent + " is not an executable file"
					+ " (build it: cd pause-agent && cargo build --release, or say where it is with --pause-agent)");
		}
		Path jarFile = (this.jar != null) ? this.jar : ownJar();
		Pinning pinning;
		try {
			pinning = Pinning.pinThisProcess();
		}
		catch (IllegalStateException ex) {
			throw new WhatIfRefusal(ex.getMessage());
		}

		Path base = (this.results != null) ? this.results : Path.of("results", "whatif");
		Path folder = RunCommand.datedFolder(base);
		Files.createDirectories(folder);
		Settings settings = Settings.defaults(this.app, topology, jarFile, folder);
		Duration baseCpuTime = this.cpuTimes.getOrDefault(this.target, topology.service(this.target).cpuTime());
		WhatIfOptions options = new WhatIfOptions(this.target, reductions, this.validate, this.repetitions, this.users,
				this.warmUp, this.restartWarmUp, this.profile, this.measure, this.batch, baseCpuTime, this.windows,
				this.nearestMedian, this.settle);
		AgentLauncher launcher = new AgentLauncher(agent.toAbsolutePath(), this.pauseAgentOptions, pinning, this.target,
				this.cpuTimes, this.threads);
		System.out.printf(
				"%s: what if %s needed %s less CPU per call? Every service under a pause agent, rounds paid by "
						+ "the %s, %s alone on CPU %s, the others and the load on CPU %s; results in %s%n",
				topology.name(), this.target, String.join(", ", reductions.stream().map(WhatIfRun::percent).toList()),
				this.mechanism, this.target, pinning.targetCpus(), pinning.otherCpus(), folder);
		long started = System.nanoTime();
		WhatIfResult result;
		try (FilterSidecars sidecars = sidecars(topology, folder)) {
			launcher.routeThrough(sidecars);
			result = new WhatIfRun(options, settings, launcher, System.out).through(this.mechanism, sidecars).run();
		}
		String table = WhatIfReport.table(result);
		List<String> summary = WhatIfReport.summary(result);
		Path csv = WhatIfReport.csv(result, folder);
		Path plot = WhatIfReport.plot(result, folder);
		Files.writeString(folder.resolve("table.md"), table + "\n" + String.join("\n", summary) + "\n");
		System.out.println();
		System.out.print(table);
		summary.forEach(System.out::println);
		System.out.printf("%nRan in %.0f s. Table: %s%nCSV: %s%nPlot: %s%n", (System.nanoTime() - started) / 1e9,
				folder.resolve("table.md"), csv, plot);
		return 0;
	}

	/**
	 * With the filter mechanism, the sidecars of every service but the target (null with
	 * the agent's).
	 */
	private FilterSidecars sidecars(Topology topology, Path folder) {
		if (this.mechanism != Mechanism.FILTER) {
			return null;
		}
		java.util.Set<String> paused = new java.util.LinkedHashSet<>(topology.services().keySet());
		paused.remove(this.target);
		try {
			return new FilterSidecars(paused, folder.resolve("logs"));
		}
		catch (IllegalArgumentException ex) {
			throw new WhatIfRefusal("--mechanism filter: " + ex.getMessage());
		}
	}

	private Topology topology() {
		try {
			return Topologies.load(this.app);
		}
		catch (IllegalArgumentException ex) {
			throw usage("--app " + ex.getMessage());
		}
	}

	private Path agent() {
		if (this.pauseAgent != null) {
			return this.pauseAgent;
		}
		String built = System.getProperty("pathfence.pause-agent.binary");
		return (built != null) ? Path.of(built) : Path.of("pause-agent", "target", "release", "pause-agent");
	}

	private void positive(String option, Duration duration) {
		if (duration.isNegative() || duration.isZero()) {
			throw usage(option + " must be longer than 0, not " + duration);
		}
	}

	private Path ownJar() {
		return RunCommand.startedFromJar().orElseThrow(() -> usage(RunCommand.NOT_FROM_A_JAR));
	}

	private ParameterException usage(String message) {
		return new ParameterException(this.spec.commandLine(), message);
	}

	/** A service's name as given: the key of {@code --cpu-time}. */
	static final class Name implements CommandLine.ITypeConverter<String> {

		@Override
		public String convert(String value) {
			return value;
		}

	}

}
