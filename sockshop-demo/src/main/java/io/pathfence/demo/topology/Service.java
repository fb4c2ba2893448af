package io.pathfence.demo.topology;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One service of an application: its own work per request, its pools, the requests it
 * answers and the calls they make, and PathFence's reservations if it is the shared
 * service. A service without routes is a leaf: it answers any request on its own work
 * alone.
 *
 * @param name the service's name
 * @param cpuTime CPU time burnt per request
 * @param waitTime time each request waits (blocked, as on a database or a disk)
 * @param workSlots how many requests may do their work at once (a database's
 * connections); the others wait their turn; {@code null} for no limit
 * @param pools the synchronous server's pools
 * @param routes the requests it answers, empty for a leaf
 * @param fence PathFence's reservations here, or {@code null}
 */
public record Service(String name, Duration cpuTime, Duration waitTime, Integer workSlots, Pools pools,
		List<Route> routes, Fence fence) {

	public Service {
		routes = List.copyOf(routes);
	}

	/** Whether this service answers any request on its own work alone. */
	public boolean isLeaf() {
		return this.routes.isEmpty();
	}

	/**
	 * The route that answers a request; for a leaf, a route without calls for any
	 * request.
	 */
	public Optional<Route> route(String method, String path) {
		if (isLeaf()) {
			return Optional.of(new Route(method, path, List.of()));
		}
		return this.routes.stream().filter((route) -> route.matches(method, path)).findFirst();
	}

	/** The services this one calls, in the order its routes name them. */
	public List<String> downstreams() {
		return this.routes.stream().flatMap((route) -> route.calls().stream()).map(Call::service).distinct().toList();
	}

}
