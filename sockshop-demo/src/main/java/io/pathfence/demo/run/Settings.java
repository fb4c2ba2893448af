package io.pathfence.demo.run;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything one experiment is run with. {@link #defaults(Path, Path)} is the README's
 * run; {@link #smoke(Path, Path)} its short form that the test command runs.
 *
 * @param jar the demo's repackaged jar, which every service is started from
 * @param results the folder the table, the plots and the services' logs are written to
 * @param modes the modes to compare, each run on a fresh set of services
 * @param trace the burst shape of the place-order path
 * @param placeOrderRate the place-order path's base rate (requests per second),
 * multiplied by the trace
 * @param orderHistoryRate the order-history path's rate
 * @param localRate the rate of orders' local requests (order status)
 * @param catalogueRate the rate of catalogue requests, which do not pass orders
 * @param warmUp steady load before anything is measured (class loading, JIT, connection
 * pools)
 * @param faultFree the measured time without a fault: each path's reference
 * @param faulted the measured time with millibottlenecks
 * @param stalledService the service stopped for each millibottleneck
 * @param stallLength how long it is stopped each time
 * @param stallPeriod how often
 * @param stallOffset when the first stall starts after the faulted time began
 * @param requestTimeout how long the load generator waits for an answer before it counts
 * a timeout
 * @param serviceJvmOptions the JVM options of every service
 * @param externalFrontEnd the base URL of a shop already running elsewhere (a cluster) to
 * load instead of starting one; then the mode is only a label
 * @param stallTrigger with {@code externalFrontEnd}, the HTTP trigger next to the stalled
 * service that stops it for a given time (the payment pod's {@code millibottleneck}
 * sidecar); null injects no fault into that shop
 */
public record Settings(Path jar, Path results, List<Mode> modes, Trace trace, double placeOrderRate,
		double orderHistoryRate, double localRate, double catalogueRate, Duration warmUp, Duration faultFree,
		Duration faulted, String stalledService, Duration stallLength, Duration stallPeriod, Duration stallOffset,
		Duration requestTimeout, List<String> serviceJvmOptions, String externalFrontEnd, URI stallTrigger) {

	/** Light JVMs: seven of them and the load generator share two cores. */
	public static final List<String> LIGHT_JVM = List.of("-Xmx128m", "-Xss256k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.awt.headless=true");

	public static Settings defaults(Path jar, Path results) {
		return new Settings(jar, results, List.of(Mode.BASELINE, Mode.PATHFENCE), Trace.LARGE, 20, 20, 5, 2,
				Duration.ofSeconds(8), Duration.ofSeconds(20), Duration.ofSeconds(30), "payment",
				Duration.ofMillis(1000), Duration.ofSeconds(10), Duration.ofMillis(3500), Duration.ofSeconds(10),
				LIGHT_JVM, null, null);
	}

	/** The default run cut short: one period without the fault, two with it. */
	public static Settings smoke(Path jar, Path results) {
		Settings d = defaults(jar, results);
		return new Settings(jar, results, d.modes(), d.trace(), d.placeOrderRate(), d.orderHistoryRate(), d.localRate(),
				d.catalogueRate(), Duration.ofSeconds(6), Duration.ofSeconds(10), Duration.ofSeconds(20),
				d.stalledService(), d.stallLength(), d.stallPeriod(), d.stallOffset(), d.requestTimeout(),
				d.serviceJvmOptions(), null, null);
	}

}
