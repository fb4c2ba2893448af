package io.pathfence.demo.whatif;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.pathfence.demo.run.Cluster;
import io.pathfence.whatif.agent.PauseAgentClient;
import io.pathfence.whatif.agent.PauseAgentProcess;

/**
 * Starts each service under its own pause agent (control port on loopback), pinned to its
 * CPUs, and with the target's simulated CPU time per call overridden when the ground
 * truth asks for a faster target, and its threads when the run gives others. The agent is
 * the service's parent and the process the cluster ends: ending it continues the
 * service's group and passes the end on.
 */
final class AgentLauncher implements Cluster.Launcher {

	private static final Duration AGENT_START = Duration.ofSeconds(30);

	/**
	 * Connection limits far above the users: a closed loop's throughput must be set by
	 * the services' threads and work, not by SYNs the kernel drops at a full accept queue
	 * and resends a second later, and the profiler's scrapes must get in while the
	 * front-end holds its kept-alive connections. The threads stay the topology's.
	 */
	private static final List<String> OPEN_CONNECTIONS = List.of("--server.tomcat.max-connections=8192",
			"--server.tomcat.accept-count=1024");

	private final Path agent;

	private final List<String> agentOptions;

	private final Pinning pinning;

	private final String target;

	private final Map<String, PauseAgentProcess> agents = new ConcurrentHashMap<>();

	/** The filter mechanism's sidecars, which calls to paused services go through. */
	private volatile FilterSidecars sidecars;

	/** Simulated CPU time per call where it differs from the topology's. */
	private final Map<String, Duration> cpuTimes = new ConcurrentHashMap<>();

	/** Tomcat threads where the run asks for other than the topology's. */
	private final Map<String, Integer> threads;

	AgentLauncher(Path agent, List<String> agentOptions, Pinning pinning, String target, Map<String, Duration> cpuTimes,
			Map<String, Integer> threads) {
		this.threads = Map.copyOf(threads);
		this.agent = agent;
		this.agentOptions = List.copyOf(agentOptions);
		this.pinning = pinning;
		this.target = target;
		this.cpuTimes.putAll(cpuTimes);
	}

	/** Routes every call to a paused service through its sidecar from the next launch. */
	void routeThrough(FilterSidecars sidecars) {
		this.sidecars = sidecars;
	}

	/** The simulated CPU time per call the service gets when next started. */
	void cpuTime(String service, Duration cpuTime) {
		this.cpuTimes.put(service, cpuTime);
	}

	@Override
	public Process launch(String service, List<String> command, ProcessBuilder builder) throws IOException {
		boolean isTarget = service.equals(this.target);
		List<String> line = new ArrayList<>(this.pinning.prefix(isTarget));
		FilterSidecars routing = this.sidecars;
		line.addAll((routing != null) ? routing.routed(command) : command);
		line.addAll(OPEN_CONNECTIONS);
		Duration cpuTime = this.cpuTimes.get(service);
		if (cpuTime != null) {
			// Spring Boot gives the command line precedence over the topology's defaults.
			line.add("--demo.cpu-time=" + cpuTime.toNanos() + "ns");
		}
		Integer threadsOf = this.threads.get(service);
		if (threadsOf != null) {
			line.add("--server.tomcat.threads.max=" + threadsOf);
			line.add("--server.tomcat.threads.min-spare=" + threadsOf);
		}
		PauseAgentProcess process;
		try {
			process = PauseAgentProcess.start(this.agent, this.agentOptions, line, builder, AGENT_START);
		}
		catch (IOException ex) {
			throw new NoAgentException(service, ex, agentSaid(builder));
		}
		this.agents.put(service, process);
		return process.process();
	}

	/** The service's process (the agent's child, leading its group). */
	long servicePid(String service) {
		return agent(service).childPid();
	}

	/** Every service's process, by name. */
	Map<String, Long> servicePids() {
		Map<String, Long> pids = new LinkedHashMap<>();
		this.agents.forEach((service, process) -> pids.put(service, process.childPid()));
		return pids;
	}

	/** A new control connection to the service's agent. */
	PauseAgentClient connect(String service) throws IOException {
		return agent(service).connect();
	}

	private PauseAgentProcess agent(String service) {
		PauseAgentProcess process = this.agents.get(service);
		if (process == null || !process.process().isAlive()) {
			throw new NoAgentException(service, null, "");
		}
		return process;
	}

	/** What the agent wrote before it exited, from the service's log: why it refused. */
	private static String agentSaid(ProcessBuilder builder) {
		java.io.File log = builder.redirectOutput().file();
		if (log == null) {
			return "";
		}
		try {
			return java.nio.file.Files.readAllLines(log.toPath())
				.stream()
				.filter((line) -> line.startsWith("pause-agent"))
				.findFirst()
				.map((line) -> " (" + line.strip() + ")")
				.orElse("");
		}
		catch (IOException ex) {
			return "";
		}
	}

	/** A service that runs without a pause agent, or whose agent would not start. */
	static final class NoAgentException extends IllegalStateException {

		NoAgentException(String service, IOException cause, String agentSaid) {
			super(service + " has no pause agent" + ((cause != null) ? ": " + oneLine(cause.getMessage()) + agentSaid
					: " running: it cannot be paused"), cause);
		}

		private static String oneLine(String message) {
			return (message != null) ? message.strip().replaceAll("\\s*\\n\\s*", "; ") : "it did not start";
		}

	}

}
