package io.pathfence.demo.run;

import java.util.Arrays;
import java.util.List;

/**
 * How the shop is run for one half of the comparison.
 */
public enum Mode {

	/**
	 * Synchronous services on Tomcat's platform threads, no PathFence: the paper's
	 * baseline.
	 */
	BASELINE("baseline", List.of("--pathfence.enabled=false")),

	/** The same services with PathFence fencing orders' execution paths. */
	PATHFENCE("pathfence", List.of("--pathfence.enabled=true")),

	/**
	 * Every service on virtual threads, no PathFence: today's usual answer to thread
	 * exhaustion, and the modern counterpart of the paper's asynchronous column. Tomcat's
	 * connection limits stay as they are.
	 */
	VIRTUAL_THREADS("virtual-threads", List.of("--pathfence.enabled=false", "--spring.threads.virtual.enabled=true")),

	/**
	 * The services without the starter, orders behind Envoy with the PathFence filter:
	 * the language-neutral deployment.
	 */
	ENVOY("envoy", List.of("--pathfence.enabled=false"));

	private final String id;

	private final List<String> serviceArguments;

	Mode(String id, List<String> serviceArguments) {
		this.id = id;
		this.serviceArguments = serviceArguments;
	}

	public String id() {
		return this.id;
	}

	/**
	 * What every service is started with in this mode, besides its role and addresses.
	 */
	List<String> serviceArguments() {
		return this.serviceArguments;
	}

	/** Whether orders runs behind Envoy with the PathFence filter. */
	boolean behindEnvoy() {
		return this == ENVOY;
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

}
