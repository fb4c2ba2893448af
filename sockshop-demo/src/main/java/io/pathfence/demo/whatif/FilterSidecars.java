package io.pathfence.demo.whatif;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pathfence.demo.run.EnvoySidecar;
import io.pathfence.demo.run.LoopbackPort;
import io.pathfence.whatif.filter.FilterRoundsPauser;
import io.pathfence.whatif.rounds.Pauser;

/**
 * The what-if run's filter mechanism ({@code --mechanism filter}): every paused service
 * behind its own Envoy sidecar with the PathFence filter in rounds mode, every call to it
 * (its callers' and, for the gateway, the load's) through that sidecar, and its rounds
 * paid by control requests to the filter ({@link FilterRoundsPauser}) instead of by its
 * agent. The filter fences nothing else: one path matches every request, with more
 * permits than any service has threads.
 * <p>
 * A sidecar is started the first time a call to its service is routed, from the service's
 * address in the caller's command line; the sidecars inherit this process's CPUs, the
 * others' (see {@link Pinning}).
 */
final class FilterSidecars implements AutoCloseable {

	/** The filter's {@code pause.rounds.control_path}. */
	static final String CONTROL_PATH = "/.pathfence/round";

	/** The longest pause a round may ask; a service's debt waits behind a long pause. */
	static final long MAX_PAUSE_MS = 10_000;

	private static final Pattern DOWNSTREAM = Pattern.compile("--downstream\\.([^=]+)=(.+)");

	private final Set<String> paused;

	private final Path logs;

	private final Map<String, Sidecar> sidecars = new LinkedHashMap<>();

	private final Thread shutdownHook = new Thread(this::close, "whatif-sidecars-stop");

	private record Sidecar(EnvoySidecar envoy, URI service, FilterRoundsPauser pauser) {
	}

	/**
	 * Sidecars for {@code paused}, their bootstraps and logs under {@code logs}.
	 * @throws IllegalArgumentException saying what to do if Envoy or the filter is
	 * missing
	 */
	FilterSidecars(Set<String> paused, Path logs) {
		EnvoySidecar.checkAvailable();
		this.paused = Set.copyOf(paused);
		this.logs = logs;
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/** The filter's configuration: every request on one path, paused in rounds. */
	static String filterConfig() {
		return String.format("{%n  \"paths\": [{\"name\": \"service\", \"match\": {\"prefix\": \"/\"}, "
				+ "\"max_concurrency\": 100000, \"max_queue\": 100000, \"queue_timeout_ms\": 60000}],%n"
				+ "  \"pause\": {\"rounds\": {\"control_path\": \"%s\", \"max_pause_ms\": %d}, \"paths\": "
				+ "[\"service\"]}%n}%n", CONTROL_PATH, MAX_PAUSE_MS);
	}

	/**
	 * A service's command line with each call to a paused service routed through that
	 * service's sidecar.
	 */
	List<String> routed(List<String> command) throws IOException {
		List<String> routed = new ArrayList<>(command.size());
		for (String argument : command) {
			Matcher downstream = DOWNSTREAM.matcher(argument);
			if (downstream.matches() && this.paused.contains(downstream.group(1))) {
				URI sidecar = front(downstream.group(1), URI.create(downstream.group(2)));
				routed.add("--downstream." + downstream.group(1) + "=" + sidecar);
			}
			else {
				routed.add(argument);
			}
		}
		return routed;
	}

	/**
	 * The address that reaches {@code service} through its sidecar, which is started if
	 * it does not run yet; the service's own address if it is not paused.
	 */
	synchronized URI front(String service, URI address) throws IOException {
		if (!this.paused.contains(service)) {
			return address;
		}
		Sidecar sidecar = this.sidecars.get(service);
		if (sidecar == null) {
			Path folder = this.logs.resolve("envoy-" + service);
			Files.createDirectories(folder);
			int port = LoopbackPort.free();
			EnvoySidecar envoy;
			try {
				envoy = EnvoySidecar.start(port, LoopbackPort.free(), address.getPort(), filterConfig(), folder);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("interrupted while starting " + service + "'s sidecar", ex);
			}
			URI control = URI.create(envoy.baseUrl() + CONTROL_PATH);
			sidecar = new Sidecar(envoy, address, new FilterRoundsPauser(control, null));
			this.sidecars.put(service, sidecar);
		}
		else if (!sidecar.service().equals(address)) {
			throw new IllegalStateException(service + "'s sidecar fronts " + sidecar.service() + ", not " + address);
		}
		return URI.create(sidecar.envoy().baseUrl());
	}

	/**
	 * What pays the service's rounds: its filter.
	 * @throws WhatIfFailure if no call to it was routed through a sidecar
	 */
	synchronized Pauser pauser(String service) {
		Sidecar sidecar = this.sidecars.get(service);
		if (sidecar == null) {
			throw new WhatIfFailure(service + " cannot be paused by the filter: no sidecar fronts it (nothing in the "
					+ "run calls it through one)", null);
		}
		return sidecar.pauser();
	}

	/** Each sidecar's Envoy process, by the service it fronts. */
	synchronized Map<String, Long> pids() {
		Map<String, Long> pids = new LinkedHashMap<>();
		this.sidecars.forEach((service, sidecar) -> pids.put("the sidecar of " + service, sidecar.envoy().pid()));
		return pids;
	}

	@Override
	public synchronized void close() {
		this.sidecars.values().forEach((sidecar) -> {
			sidecar.pauser().close();
			sidecar.envoy().close();
		});
		this.sidecars.clear();
		if (Thread.currentThread() != this.shutdownHook) {
			try {
				Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
			}
			catch (IllegalStateException ex) {
				// Already shutting down: the hook is running or has run.
			}
		}
	}

}
