package io.pathfence.demo.run;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import io.pathfence.demo.topology.Millibottleneck;
import io.pathfence.demo.topology.MillibottleneckSource;
import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;

/**
 * {@code java -jar sockshop-demo.jar run [options]}: runs the experiment on one
 * application, prints the table and writes the plots. A bad option, or a malformed
 * topology file, is answered with one line saying what is allowed and exit code 2, before
 * anything starts.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
		description = "Runs an application (SockShop by default) under a bursty trace with millibottlenecks on one "
				+ "service, once per mode, and prints the paper's Table 1 for it.")
public final class RunCommand implements Callable<Integer> {

	@Spec
	CommandSpec spec;

	@Option(names = "--app", defaultValue = Topologies.DEFAULT,
			description = "The application: sock-shop, social-network, media-service, or a topology file "
					+ "(default: ${DEFAULT-VALUE}).")
	String app;

	@Option(names = "--jar", description = "The demo's jar the services are started from (default: this one).")
	Path jar;

	@Option(names = "--results",
			description = "Folder for the results; each run gets a dated subfolder (default: results/APP).")
	Path results;

	@Option(names = "--modes", split = ",", defaultValue = "baseline,pathfence", converter = ModeConverter.class,
			description = "Modes to compare: baseline, pathfence, pathfence-sct, pathfence-learned, virtual-threads, async, "
					+ "envoy, envoy-learned (default: ${DEFAULT-VALUE}).")
	List<Mode> modes;

	@Option(names = "--trace", converter = TraceConverter.class,
			description = "Burst shape of the bursting paths: large, quick, slow or flat (default: large).")
	Trace trace;

	@Option(names = "--rate", description = "A path's base rate in requests/s, e.g. --rate place-order=12.5 "
			+ "(default: the topology's).")
	Map<String, Double> rates = new LinkedHashMap<>();

	@Option(names = "--warm-up", converter = DurationConverter.class, description = "Unmeasured warm-up (default: 8s).")
	Duration warmUp;

	@Option(names = "--fault-free", converter = DurationConverter.class,
			description = "Measured time without the fault, the reference (default: 20s).")
	Duration faultFree;

	@Option(names = "--faulted", converter = DurationConverter.class,
			description = "Measured time with millibottlenecks (default: 30s).")
	Duration faulted;

	@Option(names = "--fault", converter = SourceConverter.class,
			description = "What causes the millibottleneck: stop, interference or burst (default: the topology's).")
	MillibottleneckSource fault;

	@Option(names = "--stall-service",
			description = "Service that stalls (default: the topology's, payment for sock-shop).")
	String stallService;

	@Option(names = "--stall-length", converter = DurationConverter.class,
			description = "How long each stall lasts (default: the topology's, 1000ms).")
	Duration stallLength;

	@Option(names = "--stall-period", converter = DurationConverter.class,
			description = "How often the service stalls (default: the topology's, 10s).")
	Duration stallPeriod;

	@Option(names = "--stall-offset", converter = DurationConverter.class,
			description = "When the first stall starts after the faulted time began (default: the topology's, "
					+ "3500ms, in the burst).")
	Duration stallOffset;

	@Option(names = "--front-end", description = "Load an application that runs elsewhere (e.g. http://front-end:8080 "
			+ "in a cluster) instead of starting one; --modes is then only a label for how it is configured.")
	URI frontEnd;

	@Option(names = "--stall-trigger", description = "With --front-end: the HTTP trigger that stops the stalled "
			+ "service for ?ms=D (e.g. http://payment:9000/cgi-bin/stall, the payment pod's sidecar); the runner "
			+ "calls it on the same schedule as locally. Without it, an application run elsewhere gets no fault.")
	URI stallTrigger;

	@Option(names = "--filter-tuning", description = "With --modes envoy: the filter sizes each path's limit online "
			+ "(SCT tuning, the starter's defaults), from the topology's permits as a start; the tuned limits are "
			+ "printed at the end.")
	boolean filterTuning;

	@Option(names = "--traces", description = "The services export their traces in every mode (envoy-learned always "
			+ "does), to the runner's collector: traces.json in the results, for `scripts/pathfence paths`.")
	boolean traces;

	@Option(names = "--smoke", description = "The short run of the test command: 10 s fault-free, 20 s faulted.")
	boolean smoke;

	/**
	 * The runner's command line: a bad option gives one line on stderr and exit code 2,
	 * not a stack trace.
	 */
	public static CommandLine commandLine() {
		return withOneLineUsageErrors(new RunCommand());
	}

	/**
	 * A command line of the demo's jar ({@code run} or {@code grid}) whose bad option
	 * gives one line on stderr and exit code 2.
	 */
	public static CommandLine withOneLineUsageErrors(Object command) {
		CommandLine commandLine = new CommandLine(command);
		commandLine.setParameterExceptionHandler((ex, args) -> {
			ex.getCommandLine().getErr().println(ex.getMessage() + " (see --help)");
			return CommandLine.ExitCode.USAGE;
		});
		return commandLine;
	}

	/**
	 * The usage error of a command that needs its own jar and was not started from it.
	 */
	public static final String NOT_FROM_A_JAR = "Not started with java -jar: say where the demo's jar is with --jar";

	/**
	 * The jar this JVM was started from with {@code java -jar}, which the grid and the
	 * what-if run start their services from; empty when it was started otherwise.
	 */
	public static Optional<Path> startedFromJar() {
		String first = System.getProperty("sun.java.command", "").split(" ")[0];
		return first.endsWith(".jar") ? Optional.of(Path.of(first)) : Optional.empty();
	}

	/** A run's own folder in {@code base}, named after the time it starts. */
	public static Path datedFolder(Path base) {
		return base.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
	}

	@Override
	public Integer call() throws Exception {
		Topology topology = topology();
		Path base = (this.results != null) ? this.results : Path.of("results", topology.name());
		Path folder = datedFolder(base);
		Settings settings = settings(topology, folder);
		Files.createDirectories(folder);
		if (settings.externalFrontEnd() != null) {
			String faults = (settings.stallTrigger() != null)
					? String.format("%s stopped for %d ms every %d s through %s", settings.stalledService(),
							settings.millibottleneck().length().toMillis(),
							settings.millibottleneck().period().toSeconds(), settings.stallTrigger())
					: "no fault injected";
			System.out.printf("%s against %s (%s, %s trace, %s); results in %s%n", topology.name(),
					settings.externalFrontEnd(), settings.modes(), settings.trace(), faults, folder);
		}
		else {
			System.out.printf("%s: modes %s, %s trace, %s; results in %s%n", topology.name(), settings.modes(),
					settings.trace(), Faults.describe(settings), folder);
		}
		long started = System.nanoTime();
		List<ModeResult> results = new Experiment(settings, System.out).run();
		String table = Report.table(results, topology);
		String drops = Report.drops(results);
		List<String> verdict = Verdict.describe(results, topology);
		List<Path> plots = Plots.write(results, settings, folder);
		Files.writeString(folder.resolve("table.md"), table + "\n" + drops + "\n" + String.join("\n", verdict) + "\n");
		System.out.println();
		System.out.println("During the faulted time (each path's fault-free p99 for reference):");
		System.out.println(table);
		System.out.print(drops);
		verdict.forEach(System.out::println);
		System.out.printf("%nRan in %.0f s. Table: %s%nPlots:%n", (System.nanoTime() - started) / 1e9,
				folder.resolve("table.md"));
		plots.forEach((plot) -> System.out.println("  " + plot));
		return 0;
	}

	/**
	 * The application, refused in one line naming the field when its file is malformed.
	 */
	Topology topology() {
		try {
			return Topologies.load(this.app);
		}
		catch (IllegalArgumentException ex) {
			throw usage("--app " + ex.getMessage());
		}
	}

	/**
	 * The options over the defaults (or the smoke run's), checked as a whole: what one
	 * option cannot say alone (a stall shorter than its period, a trigger only with an
	 * application run elsewhere) fails here, before anything starts, as a
	 * {@link ParameterException}.
	 */
	Settings settings(Topology topology, Path folder) throws InterruptedException {
		String frontEndUrl = (this.frontEnd != null) ? httpUrl("--front-end", this.frontEnd).toString() : null;
		if (this.stallTrigger != null) {
			httpUrl("--stall-trigger", this.stallTrigger);
		}
		if (this.stallTrigger != null && frontEndUrl == null) {
			throw usage("--stall-trigger is for an application run elsewhere: give --front-end too (a local "
					+ "application's service is stalled by the runner itself)");
		}
		for (Map.Entry<String, Double> rate : this.rates.entrySet()) {
			if (!topology.paths().contains(rate.getKey())) {
				throw usage("--rate " + rate.getKey() + ": no such path in " + topology.name() + "; one of "
						+ topology.paths());
			}
			positive("--rate " + rate.getKey(), rate.getValue());
		}
		Path jarFile = (this.jar != null || frontEndUrl != null) ? this.jar : ownJar();
		Settings base = this.smoke ? Settings.smoke(this.app, topology, jarFile, folder)
				: Settings.defaults(this.app, topology, jarFile, folder);
		Millibottleneck m = base.millibottleneck();
		String stalled = (this.stallService != null) ? this.stallService : m.service();
		if (!topology.services().containsKey(stalled) || stalled.equals(topology.gateway())) {
			throw usage("--stall-service " + stalled + ": not a service of " + topology.name() + " behind its gateway; "
					+ "one of "
					+ topology.services().keySet().stream().filter((s) -> !s.equals(topology.gateway())).toList());
		}
		Millibottleneck millibottleneck = new Millibottleneck(or(this.fault, m.source()), stalled,
				positive("--stall-length", or(this.stallLength, m.length())),
				positive("--stall-period", or(this.stallPeriod, m.period())),
				atLeastZero("--stall-offset", or(this.stallOffset, m.offset())));
		Duration warmUpLength = atLeastZero("--warm-up", or(this.warmUp, base.warmUp()));
		Duration faultFreeLength = positive("--fault-free", or(this.faultFree, base.faultFree()));
		Duration faultedLength = positive("--faulted", or(this.faulted, base.faulted()));
		Settings settings;
		try {
			settings = new Settings(this.app, topology, jarFile, folder, List.copyOf(this.modes),
					or(this.trace, base.trace()), this.rates, warmUpLength, faultFreeLength, faultedLength,
					millibottleneck, base.requestTimeout(), base.serviceJvmOptions(), frontEndUrl, this.stallTrigger,
					this.filterTuning, this.traces);
		}
		catch (IllegalArgumentException ex) {
			throw usage(ex.getMessage());
		}
		if (this.filterTuning && (frontEndUrl != null || settings.modes().stream().noneMatch(Mode::behindEnvoy))) {
			throw usage("--filter-tuning is for the filter the envoy modes run locally: give --modes with envoy or "
					+ "envoy-learned and no --front-end");
		}
		if (frontEndUrl != null && (this.traces || settings.modes().stream().anyMatch(Mode::needsTraces))) {
			throw usage("--traces and --modes envoy-learned are for an application the runner starts: its services "
					+ "export their traces to the runner's collector; not with --front-end");
		}
		if (millibottleneck.length().compareTo(millibottleneck.period()) >= 0) {
			throw usage(String.format(
					"--stall-length (%d ms) must be shorter than --stall-period (%d ms): the "
							+ "service must run between stalls",
					millibottleneck.length().toMillis(), millibottleneck.period().toMillis()));
		}
		if (millibottleneck.offset().plus(millibottleneck.length()).compareTo(settings.faulted()) > 0) {
			throw usage(String.format(
					"the first stall (--stall-offset %d ms + --stall-length %d ms) must end "
							+ "within --faulted (%d ms)",
					millibottleneck.offset().toMillis(), millibottleneck.length().toMillis(),
					settings.faulted().toMillis()));
		}
		if (settings.stallTrigger() != null && millibottleneck.length().compareTo(RemoteStallTrigger.LONGEST) > 0) {
			throw usage("--stall-length through --stall-trigger is at most " + RemoteStallTrigger.LONGEST.toSeconds()
					+ " s (the sidecar's limit), not " + millibottleneck.length().toMillis() + " ms");
		}
		if (millibottleneck.source() == MillibottleneckSource.BURST) {
			boolean bursting = topology.load()
				.stream()
				.anyMatch((stream) -> stream.bursts() && topology.servicesOn(stream).contains(stalled));
			if (!bursting) {
				throw usage("--fault burst needs a bursting path that reaches " + stalled + " in " + topology.name());
			}
		}
		checkFaultsCanBeInjected(settings);
		return settings;
	}

	/**
	 * Says what is missing before any service starts, not after the first modes have run.
	 */
	private void checkFaultsCanBeInjected(Settings settings) throws InterruptedException {
		if (settings.externalFrontEnd() == null && settings.modes().stream().anyMatch(Mode::behindEnvoy)) {
			try {
				EnvoySidecar.checkAvailable();
			}
			catch (IllegalArgumentException ex) {
				throw usage(ex.getMessage());
			}
			if (settings.topology().sharedService().isEmpty()) {
				throw usage("--modes envoy needs a service with a fence in " + settings.topology().name());
			}
		}
		if (settings.externalFrontEnd() == null
				&& settings.millibottleneck().source() == MillibottleneckSource.INTERFERENCE) {
			try {
				CpuInterference.checkAvailable();
			}
			catch (IllegalArgumentException ex) {
				throw usage("--fault interference: " + ex.getMessage());
			}
		}
		if (settings.stallTrigger() != null) {
			try {
				new RemoteStallTrigger(settings.stallTrigger()).check();
			}
			catch (IOException | IllegalArgumentException ex) {
				// A refused connection comes without a message: its kind says enough.
				String why = (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getSimpleName();
				throw usage("--stall-trigger " + settings.stallTrigger() + " does not work: " + why);
			}
		}
	}

	private URI httpUrl(String option, URI url) {
		if (!"http".equalsIgnoreCase(url.getScheme()) && !"https".equalsIgnoreCase(url.getScheme())
				|| url.getHost() == null) {
			throw usage(option + " must be an http:// or https:// URL with a host, not " + url);
		}
		return url;
	}

	private double positive(String option, double rate) {
		if (!(rate > 0) || Double.isInfinite(rate)) {
			throw usage(option + " must be a number of requests per second above 0, not " + rate);
		}
		return rate;
	}

	private Duration positive(String option, Duration duration) {
		if (duration.isNegative() || duration.isZero()) {
			throw usage(option + " must be longer than 0, not " + duration);
		}
		return duration;
	}

	private Duration atLeastZero(String option, Duration duration) {
		if (duration.isNegative()) {
			throw usage(option + " must not be negative, not " + duration);
		}
		return duration;
	}

	private ParameterException usage(String message) {
		return new ParameterException(this.spec.commandLine(), message);
	}

	private static <T> T or(T value, T fallback) {
		return (value != null) ? value : fallback;
	}

	private Path ownJar() {
		return startedFromJar().orElseThrow(() -> usage(NOT_FROM_A_JAR));
	}

	/** Durations as 500ms, 10s or 2m, or ISO-8601 (PT10S). */
	public static final class DurationConverter implements ITypeConverter<Duration> {

		@Override
		public Duration convert(String value) {
			String v = value.trim().toLowerCase(Locale.ROOT);
			for (String[] unit : Arrays.asList(new String[] { "ms", "PT0.001S" }, new String[] { "s", "PT1S" },
					new String[] { "m", "PT1M" })) {
				if (v.endsWith(unit[0]) && v.substring(0, v.length() - unit[0].length()).matches("\\d+")) {
					return Duration.parse(unit[1])
						.multipliedBy(Long.parseLong(v.substring(0, v.length() - unit[0].length())));
				}
			}
			try {
				return Duration.parse(value);
			}
			catch (DateTimeParseException ex) {
				throw new TypeConversionException("'" + value + "' is not a duration; say 500ms, 10s, 2m or PT1.5S");
			}
		}

	}

	/**
	 * A name looked up by {@code of}, whose refusal (naming what is allowed) becomes
	 * picocli's one-line error.
	 */
	public abstract static class NameConverter<T> implements ITypeConverter<T> {

		private final java.util.function.Function<String, T> of;

		NameConverter(java.util.function.Function<String, T> of) {
			this.of = of;
		}

		@Override
		public T convert(String value) {
			try {
				return this.of.apply(value);
			}
			catch (IllegalArgumentException ex) {
				throw new TypeConversionException(ex.getMessage());
			}
		}

	}

	public static final class TraceConverter extends NameConverter<Trace> {

		public TraceConverter() {
			super(Trace::of);
		}

	}

	public static final class ModeConverter extends NameConverter<Mode> {

		public ModeConverter() {
			super(Mode::of);
		}

	}

	static final class SourceConverter extends NameConverter<MillibottleneckSource> {

		SourceConverter() {
			super(MillibottleneckSource::of);
		}

	}

}
