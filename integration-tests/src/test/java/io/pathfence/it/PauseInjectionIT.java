package io.pathfence.it;

import java.time.Duration;
import java.util.Map;

import io.pathfence.it.OpenLoopLoad.PathResult;
import io.pathfence.it.OpenLoopLoad.Stream;
import io.pathfence.testcontainers.DockerTestSupport;
import io.pathfence.testcontainers.PathFenceContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.lifecycle.Startables;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario (c): a configured pause of 1 s every 40 requests on path a (20 per second, so a pause every 2 s), in
 * front of a service that answers at once, shows as a 1 s stall on a and nothing else: no stall on b, no
 * refusal, no longer wait. The control is the same Envoy and filter without the pause, where a does not stall.
 */
@ExtendWith(TopologyExtension.class)
class PauseInjectionIT {

	private static final Duration PAUSE = Duration.ofMillis(1000);

	private static final String PATHS = """
			"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 50},
			          {"name": "b", "match": {"prefix": "/b"}, "max_concurrency": 50}]""";

	/** Beyond this, a latency is a stall: half the pause, well over a loopback request even on 2 busy cores. */
	private static final Duration STALL = PAUSE.dividedBy(2);

	@Test
	void whenPauseIsConfiguredThenPathAStallsForThePauseAndNothingElseChanges(Topology topology) throws Exception {
		try (PathFenceContainer paused = envoy(topology,
				"{" + PATHS + ", \"pause\": {\"every_requests\": 40, \"duration_ms\": " + PAUSE.toMillis()
						+ ", \"paths\": [\"a\"]}}");
				PathFenceContainer control = envoy(topology, "{" + PATHS + "}")) {
			Startables.deepStart(paused, control).join();

			Map<String, PathResult> withPause = load("(c) pause of " + PAUSE.toMillis() + " ms every 40 requests on a", paused);
			Map<String, PathResult> withoutPause = load("(c) control: the same filter without the pause", control);

			PathResult a = withPause.get("a");
			PathResult b = withPause.get("b");
			assertThat(a.ok() + b.ok()).as("no request refused or failed").isEqualTo(a.count() + b.count());
			assertThat(a.max()).as("a's longest wait is the pause").isGreaterThanOrEqualTo(PAUSE.multipliedBy(9).dividedBy(10))
				.isLessThan(PAUSE.plus(STALL));
			assertThat(b.percentile(99)).as("b is not paused").isLessThan(STALL);
			assertThat(paused.getPathStat("a", "paused")).as("requests a's pauses held").isPositive();
			assertThat(paused.getPathStat("b", "paused")).isZero();
			assertThat(withoutPause.get("a").max()).as("control: without the pause, a does not stall").isLessThan(STALL);
		}
	}

	private static PathFenceContainer envoy(Topology topology, String config) {
		return new PathFenceContainer(DockerTestSupport.envoyImage()).withTarget(topology.user, 8080)
			.withPathFenceConfig(config);
	}

	private static Map<String, PathResult> load(String label, PathFenceContainer envoy) throws Exception {
		Topology.warmUp(Topology.uri(envoy, "/b"), 40);
		Figures.print(label + ":");
		return new OpenLoopLoad().run(Duration.ofSeconds(5), new Stream("a", Topology.uri(envoy, "/a"), 20),
				new Stream("b", Topology.uri(envoy, "/b"), 20));
	}

}
