package io.pathfence.demo.run;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.pathfence.demo.topology.Millibottleneck;
import io.pathfence.demo.topology.MillibottleneckSource;
import io.pathfence.demo.topology.Topology;

/**
 * Everything one experiment is run with. {@link #defaults} is the README's run;
 * {@link #smoke} its short form that the test command runs.
 *
 * @param app the application's name or topology file, as every service is started with it
 * @param topology the application
 * @param jar the demo's repackaged jar, which every service is started from
 * @param results the folder the table, the plots and the services' logs are written to
 * @param modes the modes to compare, in turn on the same services (each restarted when
 * the mode changes how it runs)
 * @param trace the burst shape of the bursting paths
 * @param rates each path's base rate (requests per second) where it differs from the
 * topology's
 * @param warmUp steady load before anything is measured (class loading, JIT, connection
 * pools)
 * @param faultFree the measured time without a millibottleneck: each path's reference
 * @param faulted the measured time with millibottlenecks
 * @param millibottleneck where, when and how a service stalls during the faulted time
 * @param requestTimeout how long the load generator waits for an answer before it counts
 * a timeout
 * @param serviceJvmOptions the JVM options of every service
 * @param externalFrontEnd the base URL of an application already running elsewhere (a
 * cluster) to load instead of starting one; then the mode is only a label
 * @param stallTrigger with {@code externalFrontEnd}, the HTTP trigger next to the stalled
 * service that stops it for a given time (the payment pod's {@code millibottleneck}
 * sidecar); null injects no fault into that application
 * @param filterTuning whether the envoy mode's filter sizes each path's limit online (its
 * top-level {@code tuning}), from the topology's permits as a start
 * @param traces whether the services export their traces in every mode, not only in those
 * that need them, to the runner's collector ({@code traces.json} in the results)
 * @throws IllegalArgumentException if {@code warmUp} is zero and a mode learns from its
 * traces
 */
public record Settings(String app, Topology topology, Path jar, Path results, List<Mode> modes, Trace trace,
		Map<String, Double> rates, Duration warmUp, Duration faultFree, Duration faulted,
		Millibottleneck millibottleneck, Duration requestTimeout, List<String> serviceJvmOptions,
		String externalFrontEnd, URI stallTrigger, boolean filterTuning, boolean traces) {

	/**
	 * Light JVMs: eight of them and the load generator share two cores. Calls between
	 * services keep up to 256 idle connections to each downstream alive, so that a burst
	 * does not end in a storm of new connections.
	 */
	public static final List<String> LIGHT_JVM = List.of("-Xmx128m", "-Xss256k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.awt.headless=true", "-Dhttp.maxConnections=256",
			"--enable-native-access=ALL-UNNAMED");

	/**
	 * Refuses what no command may run, naming the option: the learned filter is learned
	 * from the warm-up's traces.
	 */
	public Settings {
		rates = Map.copyOf(rates);
		modes = List.copyOf(modes);
		if (warmUp.isZero() && modes.stream().anyMatch(Mode::needsTraces)) {
			throw new IllegalArgumentException("--warm-up must be longer than 0 with --modes envoy-learned: its "
					+ "filter is learned from the warm-up's traces");
		}
	}

	public static Settings defaults(String app, Topology topology, Path jar, Path results) {
		return new Settings(app, topology, jar, results, List.of(Mode.BASELINE, Mode.PATHFENCE), Trace.LARGE, Map.of(),
				Duration.ofSeconds(8), Duration.ofSeconds(20), Duration.ofSeconds(30), topology.millibottleneck(),
				Duration.ofSeconds(10), LIGHT_JVM, null, null, false, false);
	}

	/** The default run cut short: one period without the fault, two with it. */
	public static Settings smoke(String app, Topology topology, Path jar, Path results) {
		Settings d = defaults(app, topology, jar, results);
		return new Settings(app, topology, jar, results, d.modes(), d.trace(), d.rates(), Duration.ofSeconds(6),
				Duration.ofSeconds(10), Duration.ofSeconds(20), d.millibottleneck(), d.requestTimeout(),
				d.serviceJvmOptions(), null, null, d.filterTuning(), d.traces());
	}

	/** A path's base rate: the topology's, unless the run says otherwise. */
	public double rate(String path) {
		return this.rates.getOrDefault(path, this.topology.stream(path).rate());
	}

	/** The service that stalls. */
	public String stalledService() {
		return this.millibottleneck.service();
	}

	/**
	 * The trace of the fault-free time: the same as the faulted time's, unless the bursts
	 * are the millibottleneck, when the reference is steady load.
	 */
	public Trace referenceTrace(Trace faultedTrace) {
		return (this.millibottleneck.source() == MillibottleneckSource.BURST) ? Trace.FLAT : faultedTrace;
	}

	/** These settings with other modes, trace and phase lengths. */
	public Settings with(List<Mode> otherModes, Trace otherTrace, Duration otherWarmUp, Duration otherFaultFree,
			Duration otherFaulted) {
		return new Settings(this.app, this.topology, this.jar, this.results, otherModes, otherTrace, this.rates,
				otherWarmUp, otherFaultFree, otherFaulted, this.millibottleneck, this.requestTimeout,
				this.serviceJvmOptions, this.externalFrontEnd, this.stallTrigger, this.filterTuning, this.traces);
	}

	/** These settings with the results written elsewhere. */
	public Settings withResults(Path otherResults) {
		return new Settings(this.app, this.topology, this.jar, otherResults, this.modes, this.trace, this.rates,
				this.warmUp, this.faultFree, this.faulted, this.millibottleneck, this.requestTimeout,
				this.serviceJvmOptions, this.externalFrontEnd, this.stallTrigger, this.filterTuning, this.traces);
	}

}
