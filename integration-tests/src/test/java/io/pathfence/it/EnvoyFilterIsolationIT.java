package io.pathfence.it;

import java.net.URI;
import java.util.Map;

import io.pathfence.testsupport.load.PathResult;
import io.pathfence.testcontainers.PathFenceContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario (a): the Envoy filter, in front of the orders service in a container, keeps
 * the user path fast while shipping stalls the orders path; the same Envoy without the
 * filter, in front of the same service, does not.
 */
@ExtendWith(TopologyExtension.class)
class EnvoyFilterIsolationIT {

	@Test
	void whenShippingStallsThenTheFilterKeepsTheUserPathFastAndWithoutItTheUserPathDegrades(Topology topology)
			throws Exception {
		URI fencedBase = Topology.uri(topology.envoyFenced, "/");
		IsolationLoad.warmUp(fencedBase);
		// The Envoy is shared with other scenarios, so its counters carry their refusals
		// too: count only this load's.
		long refusedBefore = ordersRefused(topology.envoyFenced);
		Map<String, PathResult> fenced = IsolationLoad.load("(a) Envoy with the PathFence filter", fencedBase);
		Gauges.awaitEnvoyIdle(topology.envoyFenced);
		// Read after the gauges settle: each worker reports its counts on a 2 ms tick,
		// after the answer leaves.
		long refusedByThisLoad = ordersRefused(topology.envoyFenced) - refusedBefore;
		Map<String, PathResult> control = IsolationLoad.run("(a) control: the same Envoy without the filter",
				Topology.uri(topology.envoyPlain, "/"));

		IsolationLoad.assertIsolated(fenced, control);
		assertThat(refusedByThisLoad).as("the filter's refusal counters grew by the 503s the client saw")
			.isEqualTo(fenced.get("orders").rejected());
	}

	private static long ordersRefused(PathFenceContainer envoy) {
		return envoy.getPathStat("orders", "rejected.queue-full") + envoy.getPathStat("orders", "rejected.timeout");
	}

}
