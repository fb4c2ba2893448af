package io.pathfence.demo.topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An application as data: its services (simulated work, pools, routes and calls, and
 * PathFence's reservations at the shared service), the load on each execution path, and
 * its millibottleneck. {@link TopologyReader} reads one from YAML and refuses a malformed
 * one naming the field; every service of the demo is started from the same topology with
 * its own name.
 *
 * @param name the application's name
 * @param gateway the service every user request enters
 * @param services every service by name, in the file's order
 * @param load the execution paths' request streams
 * @param millibottleneck where and when a service stalls during the faulted time
 */
public record Topology(String name, String gateway, Map<String, Service> services, List<LoadStream> load,
		Millibottleneck millibottleneck) {

	public Topology {
		services = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(services));
		load = List.copyOf(load);
	}

	/**
	 * @throws IllegalArgumentException naming the services there are, for an unknown name
	 */
	public Service service(String name) {
		Service service = this.services.get(name);
		if (service == null) {
			throw new IllegalArgumentException(
					"Unknown service '" + name + "' in " + this.name + "; one of " + this.services.keySet());
		}
		return service;
	}

	/**
	 * The service that carries PathFence's reservations: the upstream the execution paths
	 * share.
	 */
	public Optional<Service> sharedService() {
		return this.services.values().stream().filter((service) -> service.fence() != null).findFirst();
	}

	/** The load stream of an execution path. */
	public LoadStream stream(String path) {
		return this.load.stream()
			.filter((stream) -> stream.path().equals(path))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown path '" + path + "' in " + this.name + "; one of "
					+ this.load.stream().map(LoadStream::path).toList()));
	}

	/** The execution paths, in the order of the load. */
	public List<String> paths() {
		return this.load.stream().map(LoadStream::path).toList();
	}

	/**
	 * The services a request of this stream reaches, in the order it reaches them: the
	 * gateway, then each call of each route it meets.
	 */
	public Set<String> servicesOn(LoadStream stream) {
		Set<String> reached = new LinkedHashSet<>();
		walk(this.gateway, stream.method(), stream.route(), reached);
		return reached;
	}

	private void walk(String serviceName, String method, String path, Set<String> reached) {
		reached.add(serviceName);
		Service service = this.services.get(serviceName);
		if (service == null) {
			return;
		}
		service.route(method, path)
			.ifPresent((route) -> route.calls()
				.forEach((call) -> walk(call.service(), call.method(), call.path(), reached)));
	}

	/** Whether the path's requests reach the service that stalls. */
	public boolean meetsMillibottleneck(String path) {
		return servicesOn(stream(path)).contains(this.millibottleneck.service());
	}

	/** The paths whose requests reach the stalled service. */
	public List<String> faultyPaths() {
		return paths().stream().filter(this::meetsMillibottleneck).toList();
	}

	/**
	 * The paths that share the shared service with the faulty ones without meeting the
	 * millibottleneck themselves: those PathFence must keep fast.
	 */
	public List<String> otherSharedPaths() {
		String shared = sharedService().map(Service::name).orElse(null);
		List<String> others = new ArrayList<>();
		for (LoadStream stream : this.load) {
			if (!meetsMillibottleneck(stream.path()) && servicesOn(stream).contains(shared)) {
				others.add(stream.path());
			}
		}
		return others;
	}

}
