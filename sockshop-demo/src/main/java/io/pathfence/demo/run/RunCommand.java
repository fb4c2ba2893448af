package io.pathfence.demo.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * {@code java -jar sockshop-demo.jar run [options]}: runs the experiment, prints the table and writes the plots.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
		description = "Runs the SockShop-shaped shop under a bursty trace with millibottlenecks on one downstream, "
				+ "once per mode, and prints the paper's Table 1 for it.")
public final class RunCommand implements Callable<Integer> {

	@Option(names = "--jar", description = "The demo's jar the services are started from (default: this one).")
	Path jar;

	@Option(names = "--results", defaultValue = "results/sockshop",
			description = "Folder for the results; each run gets a dated subfolder (default: ${DEFAULT-VALUE}).")
	Path results;

	@Option(names = "--modes", split = ",", defaultValue = "baseline,pathfence",
			description = "Modes to compare: baseline, pathfence, virtual-threads, envoy (default: ${DEFAULT-VALUE}).")
	List<String> modes;

	@Option(names = "--trace", description = "Burst shape of place-order: large, quick, slow or flat (default: large).")
	String trace;

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

	@Option(names = "--stall-service", description = "Service to stop and continue (default: payment).")
	String stallService;

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
			+ "cluster) instead of starting one; the runner then injects no fault and --modes is only a label.")
	String frontEnd;

	@Option(names = "--smoke", description = "The short run of the test command: 10 s fault-free, 20 s faulted.")
	boolean smoke;

	@Override
	public Integer call() throws Exception {
		Path jarFile = (this.jar != null || this.frontEnd != null) ? this.jar : ownJar();
		Path folder = this.results
			.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
		Settings base = this.smoke ? Settings.smoke(jarFile, folder) : Settings.defaults(jarFile, folder);
		if (this.frontEnd == null && this.modes.stream().map(Mode::of).anyMatch(Mode::behindEnvoy)) {
			// Say what is missing before any service starts, not after the first modes have run.
			EnvoySidecar.checkAvailable();
		}
		Settings settings = new Settings(jarFile, folder, this.modes.stream().map(Mode::of).toList(),
				(this.trace != null) ? Trace.of(this.trace) : base.trace(), or(this.placeOrderRate, base.placeOrderRate()),
				or(this.orderHistoryRate, base.orderHistoryRate()), or(this.localRate, base.localRate()),
				or(this.catalogueRate, base.catalogueRate()), or(this.warmUp, base.warmUp()),
				or(this.faultFree, base.faultFree()), or(this.faulted, base.faulted()),
				or(this.stallService, base.stalledService()), or(this.stallLength, base.stallLength()),
				or(this.stallPeriod, base.stallPeriod()), or(this.stallOffset, base.stallOffset()),
				base.requestTimeout(), base.serviceJvmOptions(), this.frontEnd);
		io.pathfence.demo.service.Role.of(settings.stalledService());
		Files.createDirectories(folder);
		if (this.frontEnd != null) {
			System.out.printf("SockShop demo against %s (%s, %s trace; faults are the cluster's); results in %s%n",
					this.frontEnd, settings.modes(), settings.trace(), folder);
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

	private static <T> T or(T value, T fallback) {
		return (value != null) ? value : fallback;
	}

	private static Path ownJar() throws Exception {
		String command = System.getProperty("sun.java.command", "");
		String first = command.split(" ")[0];
		if (first.endsWith(".jar")) {
			return Path.of(first);
		}
		throw new IllegalStateException("Not started with java -jar: say where the demo's jar is with --jar");
	}

	/** Durations as 500ms, 10s or 2m, or ISO-8601 (PT10S). */
	static final class DurationConverter implements ITypeConverter<Duration> {

		@Override
		public Duration convert(String value) {
			String v = value.trim().toLowerCase(Locale.ROOT);
			for (String[] unit : Arrays.asList(new String[] { "ms", "PT0.001S" }, new String[] { "s", "PT1S" },
					new String[] { "m", "PT1M" })) {
				if (v.endsWith(unit[0]) && v.substring(0, v.length() - unit[0].length()).matches("\\d+")) {
					return Duration.parse(unit[1]).multipliedBy(Long.parseLong(v.substring(0, v.length() - unit[0].length())));
				}
			}
			return Duration.parse(value);
		}

	}

}
