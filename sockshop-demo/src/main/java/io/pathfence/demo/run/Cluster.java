package io.pathfence.demo.run;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.pathfence.demo.topology.MillibottleneckSource;
import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Topology;

/**
 * An application's services, each its own JVM on loopback, started from the demo's jar
 * with its role. Each keeps its port for the cluster's life, so a mode switch restarts
 * only the services the new mode runs differently (between the baseline and PathFence,
 * only the shared one). Closing the cluster (or the runner's JVM exiting, through a
 * shutdown hook) continues any stopped service and kills them all: no process is left
 * behind, and never a stopped one.
 * <p>
 * How a service's process is started is the {@link Launcher}'s: directly, for the demo,
 * or under the pause agent, for the what-if run.
 */
public final class Cluster implements AutoCloseable {

	/**
	 * Starts one service's process from its command line.
	 */
	@FunctionalInterface
	public interface Launcher {

		/** Starts the process directly. */
		Launcher DIRECT = (service, command, builder) -> builder.command(command).start();

		/**
		 * Starts a service.
		 * @param service the service's name
		 * @param command its command line
		 * @param builder where its output goes; its command is to be replaced
		 * @return the process, whose end ends the service
		 * @throws IOException if it cannot start
		 */
		Process launch(String service, List<String> command, ProcessBuilder builder) throws IOException;

	}

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final Settings settings;

	private final Topology topology;

	private final String shared;

	private final Map<String, Integer> ports = new LinkedHashMap<>();

	private final Map<String, Process> processes = new LinkedHashMap<>();

	/** Each running service's command, less the per-launch files: what a mode changes. */
	private final Map<String, List<String>> commands = new HashMap<>();

	private final Map<String, Integer> launches = new HashMap<>();

	private final Map<String, Path> occupancyFiles = new HashMap<>();

	private final Thread shutdownHook = new Thread(this::stopAll, "demo-cluster-stop");

	private final Path logs;

	private final Launcher launcher;

	/** The mode the services run in now. */
	private Mode mode;

	/**
	 * The stalled service's co-located burner, when the millibottleneck is interference.
	 */
	private final CpuInterference interference;

	/** Envoy with the filter in front of the shared service, in the envoy mode. */
	private EnvoySidecar sidecar;

	/** The configuration the sidecar's filter runs with now. */
	private String sidecarFilter;

	private int sidecarPort;

	private int sidecarAdminPort;

	/**
	 * Where the services export their traces, in the modes that need them (or every mode
	 * with {@code --traces}); null when no mode does.
	 */
	private TraceCollector traces;

	/** Where the spans of the mode that runs now begin. */
	private long tracesAtSwitch;

	private Cluster(Settings settings, Path logs, Launcher launcher) {
		this.settings = settings;
		this.launcher = launcher;
		this.topology = settings.topology();
		this.shared = this.topology.sharedService().map(Service::name).orElse(null);
		this.logs = logs;
		this.interference = (settings.millibottleneck().source() == MillibottleneckSource.INTERFERENCE)
				? new CpuInterference(CpuInterference.allowedCores(), this::processesBesidesTheStalledOne) : null;
	}

	/**
	 * Starts every service as the mode runs it and waits until each answers its health
	 * check.
	 */
	static Cluster start(Settings settings, Mode mode, Path logs) throws IOException, InterruptedException {
		return start(settings, mode, logs, Launcher.DIRECT);
	}

	/**
	 * Starts every service through the launcher as the mode runs it and waits until each
	 * answers its health check.
	 */
	public static Cluster start(Settings settings, Mode mode, Path logs, Launcher launcher)
			throws IOException, InterruptedException {
		Files.createDirectories(logs);
		Cluster cluster = new Cluster(settings, logs, launcher);
		Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
		try {
			// The collector binds a port of its own choosing: before the services' ports
			// are picked, so that it cannot take one of them.
			if (settings.traces() || settings.modes().stream().anyMatch(Mode::needsTraces)) {
				cluster.traces = TraceCollector.start(logs.resolve("traces.spool"));
			}
			for (String service : cluster.topology.services().keySet()) {
				cluster.ports.put(service, LoopbackPort.free());
			}
			cluster.sidecarPort = LoopbackPort.free();
			cluster.sidecarAdminPort = LoopbackPort.free();
			cluster.switchTo(mode);
			return cluster;
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Restarts the services that the mode runs differently from how they run now, and
	 * waits until they answer; returns how many it restarted.
	 */
	int switchTo(Mode mode) throws IOException, InterruptedException {
		if (mode.behindEnvoy()) {
			// Until its configuration is learned, the learning mode's sidecar only
			// proxies.
			useFilter(mode.learnsFilterFromTraces() ? EnvoyFilterConfig.PASS_THROUGH
					: EnvoyFilterConfig.json(this.topology.service(this.shared).fence(), this.settings.filterTuning()));
		}
		else if (this.sidecar != null) {
			closeSidecar();
		}
		List<String> changed = new ArrayList<>();
		for (String service : this.topology.services().keySet()) {
			if (!command(service, mode).equals(this.commands.get(service))) {
				changed.add(service);
			}
		}
		stop(changed);
		this.mode = mode;
		for (String service : changed) {
			launch(service, mode);
		}
		awaitHealthy(changed);
		if (this.traces != null) {
			this.tracesAtSwitch = this.traces.mark();
		}
		return changed.size();
	}

	/**
	 * Runs the shared service's sidecar with this filter configuration, restarting it (on
	 * the same ports) if it runs with another.
	 */
	void useFilter(String filterConfig) throws IOException, InterruptedException {
		if (this.sidecar != null && filterConfig.equals(this.sidecarFilter)) {
			return;
		}
		if (this.sidecar != null) {
			closeSidecar();
		}
		this.sidecar = EnvoySidecar.start(this.sidecarPort, this.sidecarAdminPort, this.ports.get(this.shared),
				filterConfig, this.logs);
		this.sidecarFilter = filterConfig;
	}

	/**
	 * Writes the spans exported since the mode that runs now began to {@code file}, once
	 * the services' reporters have sent what they held; returns how many.
	 */
	int writeTracesSinceSwitch(Path file) throws IOException, InterruptedException {
		this.traces.awaitQuiet();
		return this.traces.write(file, this.tracesAtSwitch);
	}

	/**
	 * Ends a service and starts it again as the launcher starts it now, and waits until
	 * it answers.
	 */
	public void restart(String service) throws IOException, InterruptedException {
		stop(List.of(service));
		launch(service, this.mode);
		awaitHealthy(List.of(service));
	}

	/** How the mode starts a service, less the files each launch gets anew. */
	private List<String> command(String service, Mode mode) {
		List<String> command = new ArrayList<>();
		if (this.interference != null && service.equals(this.settings.stalledService())) {
			command.addAll(this.interference.pinning());
		}
		command.add(ProcessHandle.current().info().command().orElse("java"));
		command.addAll(this.settings.serviceJvmOptions());
		Path archive = classDataArchive(this.settings.jar(), mode);
		if (archive != null) {
			command.add("-XX:SharedArchiveFile=" + archive.toAbsolutePath());
			command.add("-Xlog:cds=off");
			command.add("-Xlog:cds+dynamic=off");
		}
		command.add("-jar");
		command.add(this.settings.jar().toAbsolutePath().toString());
		command.add("--topology=" + this.settings.app());
		command.add("--role=" + service);
		command.add("--server.port=" + this.ports.get(service));
		for (String downstream : this.topology.service(service).downstreams()) {
			// In the envoy mode every caller of the shared service goes through its
			// sidecar.
			String url = (mode.behindEnvoy() && downstream.equals(this.shared)) ? "http://127.0.0.1:" + this.sidecarPort
					: baseUrl(downstream);
			command.add("--downstream." + downstream + "=" + url);
		}
		command.addAll(mode.serviceArguments(service.equals(this.shared)));
		if (this.traces != null && (mode.needsTraces() || this.settings.traces())) {
			// Every request is traced, so that each route's calls are seen.
			command.add("--management.tracing.export.enabled=true");
			command.add("--management.tracing.sampling.probability=1.0");
			command.add("--management.tracing.export.zipkin.endpoint=" + this.traces.endpoint());
		}
		return command;
	}

	private void launch(String service, Mode mode) throws IOException {
		List<String> command = command(service, mode);
		this.commands.put(service, command);
		int launch = this.launches.merge(service, 1, Integer::sum);
		String suffix = (launch == 1) ? "" : "-" + launch;
		List<String> full = new ArrayList<>(command);
		if (service.equals(this.topology.gateway()) || service.equals(this.shared)) {
			Path occupancy = this.logs.resolve(service + "-occupancy" + suffix + ".csv");
			full.add("--demo.occupancy-file=" + occupancy.toAbsolutePath());
			this.occupancyFiles.put(service, occupancy);
		}
		Path log = this.logs.resolve(service + suffix + ".log");
		this.processes.put(service, this.launcher.launch(service, full,
				new ProcessBuilder().redirectErrorStream(true).redirectOutput(log.toFile())));
	}

	/**
	 * The class-data archive the build recorded next to the jar for the mode's kind of
	 * server ({@code NAME.jsa}, {@code NAME-reactive.jsa}), if there is one.
	 */
	private static Path classDataArchive(Path jar, Mode mode) {
		String name = jar.getFileName().toString();
		String base = name.substring(0, name.length() - ".jar".length());
		Path archive = jar.resolveSibling(base + (mode.eventDriven() ? "-reactive" : "") + ".jsa");
		return Files.isRegularFile(archive) ? archive : null;
	}

	private void awaitHealthy(List<String> services) throws InterruptedException, IOException {
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		for (String service : services) {
			URI health = URI.create(baseUrl(service) + "/actuator/health");
			while (true) {
				Process process = this.processes.get(service);
				if (!process.isAlive()) {
					throw new IllegalStateException(
							service + " exited with " + process.exitValue() + "; see its log in " + this.logs);
				}
				try {
					HttpResponse<Void> response = client.send(
							HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
							HttpResponse.BodyHandlers.discarding());
					if (response.statusCode() == 200) {
						break;
					}
				}
				catch (IOException ex) {
					// Not listening yet.
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException(
							service + " did not start within " + START_TIMEOUT + "; see its log in " + this.logs);
				}
				Thread.sleep(200);
			}
		}
	}

	/** The runner and every service but the stalled one: what a burner must not slow. */
	private synchronized List<Long> processesBesidesTheStalledOne() {
		List<Long> pids = new ArrayList<>();
		pids.add(ProcessHandle.current().pid());
		this.processes.forEach((service, process) -> {
			if (!service.equals(this.settings.stalledService()) && process.isAlive()) {
				pids.add(process.pid());
			}
		});
		if (this.sidecar != null) {
			pids.add(this.sidecar.pid());
		}
		return pids;
	}

	/**
	 * The ports the experiment listens on: every service's, and the sidecar's while it
	 * runs.
	 */
	Set<Integer> listeningPorts() {
		Set<Integer> ports = new HashSet<>(this.ports.values());
		if (this.sidecar != null) {
			ports.add(this.sidecarPort);
		}
		return ports;
	}

	public String baseUrl(String service) {
		return "http://127.0.0.1:" + this.ports.get(service);
	}

	long pid(String service) {
		return this.processes.get(service).pid();
	}

	/**
	 * Where the service writes its occupancy samples now (the gateway and the shared
	 * service).
	 */
	Path occupancyFile(String service) {
		return this.occupancyFiles.get(service);
	}

	/**
	 * What stalls a service for one millibottleneck: stopping its process (SIGSTOP: its
	 * sockets stay open, but nothing it owns runs) and continuing it (SIGCONT) once the
	 * stall's time is up, or the co-located burner on its core. None for bursts.
	 */
	StallSwitch stallSwitch(String service, MillibottleneckSource source) {
		return switch (source) {
			case STOP -> (lengthNanos) -> {
				long until = System.nanoTime() + lengthNanos;
				long pid = pid(service);
				signal("-STOP", pid);
				try {
					Millibottlenecks.sleepUntil(until);
				}
				finally {
					signal("-CONT", pid);
				}
			};
			case INTERFERENCE -> this.interference;
			case BURST -> null;
		};
	}

	private static void signal(String signal, long pid) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
		if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IOException("kill " + signal + " " + pid + " failed");
		}
	}

	@Override
	public void close() {
		stopAll();
		if (this.traces != null) {
			// The services flushed their last spans as they stopped.
			System.out.println(this.traces.finish(this.settings.results().resolve("traces.json")));
			this.traces = null;
		}
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// Already shutting down: the hook is running or has run.
		}
	}

	private synchronized void stop(List<String> services) {
		List<Process> ending = new ArrayList<>();
		for (String service : services) {
			Process process = this.processes.remove(service);
			this.commands.remove(service);
			if (process != null) {
				ending.add(process);
			}
		}
		end(ending);
	}

	private synchronized void stopAll() {
		if (this.sidecar != null) {
			closeSidecar();
		}
		end(new ArrayList<>(this.processes.values()));
		this.processes.clear();
		this.commands.clear();
	}

	/** Stops Envoy, after reporting the limits its filter tuned, if it tuned them. */
	private void closeSidecar() {
		if (this.settings.filterTuning()) {
			this.sidecar.reportTuning(this.logs);
		}
		this.sidecar.close();
		this.sidecar = null;
		this.sidecarFilter = null;
	}

	/** Continues (a stopped process cannot exit), then ends, each process. */
	private static void end(List<Process> processes) {
		for (Process process : processes) {
			if (process.isAlive()) {
				try {
					signal("-CONT", process.pid());
				}
				catch (IOException ex) {
					// It may have exited in between; it is destroyed below either way.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				process.destroy();
			}
		}
		for (Process process : processes) {
			try {
				if (!process.waitFor(10, TimeUnit.SECONDS)) {
					process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				process.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
	}

}
