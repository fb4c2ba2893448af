package io.pathfence.it;

import java.util.Map;

import io.pathfence.testsupport.load.PathResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario (b): the starter, inside the orders service in a container, keeps the user
 * path fast while shipping stalls the orders path; the same service with
 * {@code pathfence.enabled=false} does not.
 */
@ExtendWith(TopologyExtension.class)
class StarterIsolationIT {

	@Test
	void whenShippingStallsThenTheStarterKeepsTheUserPathFastAndWithoutItTheUserPathDegrades(Topology topology)
			throws Exception {
		Map<String, PathResult> fenced = IsolationLoad.run("(b) orders service with the starter",
				Topology.uri(topology.ordersFenced, 8080, "/"));
		Gauges.awaitStarterIdle(topology.ordersFenced);
		Map<String, PathResult> control = IsolationLoad.run("(b) control: the same service, pathfence.enabled=false",
				Topology.uri(topology.ordersUnfenced, 8080, "/"));

		IsolationLoad.assertIsolated(fenced, control);
	}

}
