package io.pathfence.it;

import java.util.Map;

import io.pathfence.it.OpenLoopLoad.PathResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario (a): the Envoy filter, in front of the orders service in a container, keeps the user path fast while
 * shipping stalls the orders path; the same Envoy without the filter, in front of the same service, does not.
 */
@ExtendWith(TopologyExtension.class)
class EnvoyFilterIsolationIT {

	@Test
	void whenShippingStallsThenTheFilterKeepsTheUserPathFastAndWithoutItTheUserPathDegrades(Topology topology)
			throws Exception {
		Map<String, PathResult> fenced = IsolationLoad.run("(a) Envoy with the PathFence filter",
				Topology.uri(topology.envoyFenced, "/"));
		Gauges.awaitEnvoyIdle(topology.envoyFenced);
		Map<String, PathResult> control = IsolationLoad.run("(a) control: the same Envoy without the filter",
				Topology.uri(topology.envoyPlain, "/"));

		IsolationLoad.assertIsolated(fenced, control);
		assertThat(topology.envoyFenced.getPathStat("orders", "rejected_queue_full")
				+ topology.envoyFenced.getPathStat("orders", "rejected_timeout"))
			.as("the filter's refusal counters match the 503s the client saw")
			.isEqualTo(fenced.get("orders").rejected());
	}

}
