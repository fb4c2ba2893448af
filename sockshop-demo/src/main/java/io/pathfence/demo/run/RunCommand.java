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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import io.pathfence.demo.service.Role;

/**
 * {@code java -jar sockshop-demo.jar run [options]}: runs the experiment, prints the
 * table and writes the plots. A bad option is answered with one line saying what is
 * allowed and exit code 2, before anything starts.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
		description = "Runs the SockShop-shaped shop under a bursty trace with millibottlenecks on one downstream, "
				+ "once per mode, and prints the paper's Table 1 for it.")
public final class RunCommand implements Callable<Integer> {

	@Spec
	CommandSpec spec;

	@Option(names = "--jar", description = "The demo's jar the services are started from (default: this one).")
	Path jar;

	@Option(names = "--results", defaultValue = "results/sockshop",
			description = "Folder for the results; each run gets a dated subfolder (default: ${DEFAULT-VALUE}).")
	Path results;

	@Option(names = "--modes", split = ",", defaultValue = "baseline,pathfence", converter = ModeConverter.class,
			description = "Modes to compare: baseline, pathfence, virtual-threads, envoy (default: ${DEFAULT-VALUE}).")
	List<Mode> modes;

	@Option(names = "--trace", converter = TraceConverter.class,
			description = "Burst shape of place-order: large, quick, slow or flat (default: large).")
	Trace trace;

	@Option(names = "--place-order-rate", description = "Base rate of place-order, requests/s (default: 20).")
	Double placeOrderRate;

	@Option(names = "--order-history-rate", description = "Rate of order-history, requests/s (default: 20).")
	Double orderHistoryRate;

	@Option(names = "--local-rate", description = "Rate of orders' local requests, requests/s (default: 5).")
	Double localRate;

	@Option(names = "--catalogue-rate", description = "Rate of catalogue requests, requests/s (default: 2).")
	Double catalogueRate;

	@Option(names = "--warm-up", converter = DurationConverter.class, description = "Unmeasured warm-up (default: 8s).")
	Duration warmUp;

	@Option(names = "--fault-free", converter = DurationConverter.class,
			description = "Measured time without the fault, the reference (default: 20s).")
	Duration faultFree;

	@Option(names = "--faulted", converter = DurationConverter.class,
			description = "Measured time with millibottlenecks (default: 30s).")
	Duration faulted;

	@Option(names = "--stall-service", converter = RoleConverter.class,
			description = "Service to stop and continue (default: payment).")
	Role stallService;

	@Option(names = "--stall-length", converter = DurationConverter.class,
			description = "How long each stop lasts (default: 1000ms).")
	Duration stallLength;

	@Option(names = "--stall-period", converter = DurationConverter.class,
			description = "How often the service is stopped (default: 10s).")
	Duration stallPeriod;

	@Option(names = "--stall-offset", converter = DurationConverter.class,
			description = "When the first stop starts after the faulted time began (default: 3500ms, in the burst).")
	Duration stallOffset;

	@Option(names = "--front-end", description = "Load a shop that runs elsewhere (e.g. http://front-end:8080 in a "
			+ "cluster) instead of starting one; --modes is then only a label for how that shop is configured.")
	URI frontEnd;

	@Option(names = "--stall-trigger", description = "With --front-end: the HTTP trigger that stops the stalled "
			+ "service for ?ms=D (e.g. http://payment:9000/cgi-bin/stall, the payment pod's sidecar); the runner "
			+ "calls it on the same schedule as locally. Without it, a shop run elsewhere gets no fault.")
	URI stallTrigger;

	@Option(names = "--smoke", description = "The short run of the test command: 10 s fault-free, 20 s faulted.")
	boolean smoke;

	/**
	 * The runner's command line: a bad option gives one line on stderr and exit code 2,
	 * not a stack trace.
	 */
	public static CommandLine commandLine() {
		CommandLine commandLine = new CommandLine(new RunCommand());
		commandLine.setParameterExceptionHandler((ex, args) -> {
			ex.getCommandLine().getErr().println(ex.getMessage() + " (see --help)");
			return CommandLine.ExitCode.USAGE;
		});
		return commandLine;
	}

	@Override
	public Integer call() throws Exception {
		Path folder = this.results
			.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
		Settings settings = settings(folder);
		Files.createDirectories(folder);
		if (settings.externalFrontEnd() != null) {
			String faults = (settings.stallTrigger() != null)
					? String.format("%s stopped for %d ms every %d s through %s", settings.stalledService(),
							settings.stallLength().toMillis(), settings.stallPeriod().toSeconds(),
							settings.stallTrigger())
					: "no fault injected";
			System.out.printf("SockShop demo against %s (%s, %s trace, %s); results in %s%n",
					settings.externalFrontEnd(), settings.modes(), settings.trace(), faults, folder);
		}
		else {
			System.out.printf("SockShop demo: modes %s, %s trace, %s stopped for %d ms every %d s; results in %s%n",
					settings.modes(), settings.trace(), settings.stalledService(), settings.stallLength().toMillis(),
					settings.stallPeriod().toSeconds(), folder);
		}
		long started = System.nanoTime();
		List<ModeResult> results = new Experiment(settings, System.out).run();
		String table = Report.table(results);
		List<String> verdict = Verdict.describe(results);
		List<Path> plots = Plots.write(results, settings, folder);
		Files.writeString(folder.resolve("table.md"), table + "\n" + String.join("\n", verdict) + "\n");
		System.out.println();
		System.out.println("During the faulted time (each path's fault-free p99 for reference):");
		System.out.println(table);
		verdict.forEach(System.out::println);
		System.out.printf("%nRan in %.0f s. Table: %s%nPlots:%n", (System.nanoTime() - started) / 1e9,
				folder.resolve("table.md"));
		plots.forEach((plot) -> System.out.println("  " + plot));
		return 0;
	}

	/**
	 * The options over the defaults (or the smoke run's), checked as a whole: what one
	 * option cannot say alone (a stall shorter than its period, a trigger only with a
	 * shop run elsewhere) fails here, before anything starts, as a
	 * {@link ParameterException}.
	 */
	Settings settings(Path folder) throws InterruptedException {
		String frontEndUrl = (this.frontEnd != null) ? httpUrl("--front-end", this.frontEnd).toString() : null;
		if (this.stallTrigger != null) {
			httpUrl("--stall-trigger", this.stallTrigger);
		}
		if (this.stallTrigger != null && frontEndUrl == null) {
			throw usage("--stall-trigger is for a shop run elsewhere: give --front-end too (a local shop's "
					+ "service is stopped by the runner itself)");
		}
		Path jarFile = (this.jar != null || frontEndUrl != null) ? this.jar : ownJar();
		Settings base = this.smoke ? Settings.smoke(jarFile, folder) : Settings.defaults(jarFile, folder);
		Settings settings = new Settings(jarFile, folder, List.copyOf(this.modes), or(this.trace, base.trace()),
				positive("--place-order-rate", or(this.placeOrderRate, base.placeOrderRate())),
				positive("--order-history-rate", or(this.orderHistoryRate, base.orderHistoryRate())),
				positive("--local-rate", or(this.localRate, base.localRate())),
				positive("--catalogue-rate", or(this.catalogueRate, base.catalogueRate())),
				atLeastZero("--warm-up", or(this.warmUp, base.warmUp())),
				positive("--fault-free", or(this.faultFree, base.faultFree())),
				positive("--faulted", or(this.faulted, base.faulted())),
				(this.stallService != null) ? this.stallService.id() : base.stalledService(),
				positive("--stall-length", or(this.stallLength, base.stallLength())),
				positive("--stall-period", or(this.stallPeriod, base.stallPeriod())),
				atLeastZero("--stall-offset", or(this.stallOffset, base.stallOffset())), base.requestTimeout(),
				base.serviceJvmOptions(), frontEndUrl, this.stallTrigger);
		if (settings.stallLength().compareTo(settings.stallPeriod()) >= 0) {
			throw usage(String.format(
					"--stall-length (%d ms) must be shorter than --stall-period (%d ms): the "
							+ "service must run between stalls",
					settings.stallLength().toMillis(), settings.stallPeriod().toMillis()));
		}
		if (settings.stallOffset().plus(settings.stallLength()).compareTo(settings.faulted()) > 0) {
			throw usage(String.format(
					"the first stall (--stall-offset %d ms + --stall-length %d ms) must end "
							+ "within --faulted (%d ms)",
					settings.stallOffset().toMillis(), settings.stallLength().toMillis(),
					settings.faulted().toMillis()));
		}
		if (settings.stallTrigger() != null && settings.stallLength().compareTo(RemoteStallTrigger.LONGEST) > 0) {
			throw usage("--stall-length through --stall-trigger is at most " + RemoteStallTrigger.LONGEST.toSeconds()
					+ " s (the sidecar's limit), not " + settings.stallLength().toMillis() + " ms");
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
		String command = System.getProperty("sun.java.command", "");
		String first = command.split(" ")[0];
		if (first.endsWith(".jar")) {
			return Path.of(first);
		}
		throw usage("Not started with java -jar: say where the demo's jar is with --jar");
	}

	/** Durations as 500ms, 10s or 2m, or ISO-8601 (PT10S). */
	static final class DurationConverter implements ITypeConverter<Duration> {

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
	abstract static class NameConverter<T> implements ITypeConverter<T> {

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

	static final class TraceConverter extends NameConverter<Trace> {

		TraceConverter() {
			super(Trace::of);
		}

	}

	static final class ModeConverter extends NameConverter<Mode> {

		ModeConverter() {
			super(Mode::of);
		}

	}

	static final class RoleConverter extends NameConverter<Role> {

		RoleConverter() {
			super(Role::of);
		}

	}

}
