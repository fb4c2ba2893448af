package io.pathfence.demo.run;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How the application is run for one column of the comparison.
 */
public enum Mode {

	/**
	 * Synchronous services on Tomcat's platform threads, no PathFence: the paper's
	 * baseline.
	 */
	BASELINE("baseline", Server.PLATFORM_THREADS, Fencing.NONE),

	/**
	 * The same services with PathFence at the shared service, its reservations fixed as
	 * the topology gives them.
	 */
	PATHFENCE("pathfence", Server.PLATFORM_THREADS, Fencing.FIXED),

	/**
	 * PathFence at the shared service with SCT tuning its reservations online
	 * ({@code pathfence.tuning.enabled=true}), from the topology's as a start: the
	 * paper's "Our" column.
	 */
	PATHFENCE_SCT("pathfence-sct", Server.PLATFORM_THREADS, Fencing.TUNED),

	/**
	 * PathFence at the shared service with none of the topology's paths: it learns each
	 * route's path from the calls the route makes
	 * ({@code pathfence.discovery.mode=enforce}) and SCT sizes the learned reservations,
	 * so the warm-up is what configures it.
	 */
	PATHFENCE_LEARNED("pathfence-learned", Server.PLATFORM_THREADS, Fencing.LEARNED),

	/**
	 * Every service on virtual threads, no PathFence: today's usual answer to thread
	 * exhaustion. Tomcat's connection limits stay as the topology gives them.
	 */
	VIRTUAL_THREADS("virtual-threads", Server.VIRTUAL_THREADS, Fencing.NONE),

	/**
	 * Every service event-driven (WebFlux on Netty, non-blocking calls), its workers
	 * sized by SCT: the paper's asynchronous counterpart.
	 */
	ASYNC("async", Server.EVENT_DRIVEN, Fencing.NONE),

	/**
	 * The services without the starter, the shared service behind Envoy with the
	 * PathFence filter: the language-neutral deployment.
	 */
	ENVOY("envoy", Server.PLATFORM_THREADS, Fencing.NONE),

	/**
	 * The envoy mode with a filter configuration nobody wrote: the services export their
	 * traces to the runner, which learns the shared service's paths from the warm-up's
	 * traces (as {@code pathfence paths} does) and restarts the sidecar with the
	 * configuration it derived from them, before anything is measured.
	 */
	ENVOY_LEARNED("envoy-learned", Server.PLATFORM_THREADS, Fencing.NONE);

	private final String id;

	private final Server server;

	private final Fencing fencing;

	Mode(String id, Server server, Fencing fencing) {
		this.id = id;
		this.server = server;
		this.fencing = fencing;
	}

	public String id() {
		return this.id;
	}

	/**
	 * What a service is started with in this mode, besides its role and addresses.
	 * @param shared whether it is the shared service, the one PathFence fences
	 */
	List<String> serviceArguments(boolean shared) {
		List<String> arguments = new ArrayList<>(this.server.arguments);
		boolean fenced = shared && this.fencing != Fencing.NONE;
		arguments.add("--pathfence.enabled=" + fenced);
		if (fenced && this.fencing == Fencing.TUNED) {
			arguments.add("--pathfence.tuning.enabled=true");
		}
		if (fenced && this.fencing == Fencing.LEARNED) {
			arguments.add("--pathfence.discovery.mode=enforce");
		}
		return arguments;
	}

	/** Whether the shared service runs behind Envoy with the PathFence filter. */
	boolean behindEnvoy() {
		return this == ENVOY || this == ENVOY_LEARNED;
	}

	/**
	 * Whether the sidecar's filter configuration is learned from the warm-up's traces
	 * rather than made from the topology's fence.
	 */
	boolean learnsFilterFromTraces() {
		return this == ENVOY_LEARNED;
	}

	/** Whether the services must export their traces for the mode to work. */
	boolean needsTraces() {
		return learnsFilterFromTraces();
	}

	/** Whether the shared service is fenced, by the starter or by the filter. */
	public boolean fenced() {
		return this.fencing != Fencing.NONE || behindEnvoy();
	}

	/** Whether the services are event-driven (and start from that class-data archive). */
	boolean eventDriven() {
		return this.server == Server.EVENT_DRIVEN;
	}

	public static Mode of(String id) {
		return Arrays.stream(values())
			.filter((mode) -> mode.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(
					"Unknown mode '" + id + "'; one of " + Arrays.stream(values()).map(Mode::id).toList()));
	}

	@Override
	public String toString() {
		return this.id;
	}

	private enum Server {

		PLATFORM_THREADS(), VIRTUAL_THREADS("--spring.threads.virtual.enabled=true"),
		EVENT_DRIVEN("--spring.main.web-application-type=reactive");

		private final List<String> arguments;

		Server(String... arguments) {
			this.arguments = List.of(arguments);
		}

	}

	private enum Fencing {

		NONE, FIXED, TUNED, LEARNED

	}

}
