package io.pathfence.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pathfence.testsupport.load.PathResult;
import io.pathfence.testsupport.load.Sample;
import io.pathfence.testsupport.load.OpenLoopLoad.Stream;
import io.pathfence.testcontainers.DockerTestSupport;
import io.pathfence.testcontainers.PathFenceContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.lifecycle.Startables;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario (c): a configured pause of 2 s every 40 requests on path a, in front of a
 * service that answers at once, shows as exactly the pauses the schedule makes and
 * nothing else: a waits the pause inside each pause window and not outside, b never
 * stalls, nothing is refused. The control is the same Envoy and filter without the pause,
 * where a does not stall.
 * <p>
 * At 20 requests per second for 5 s, a sends 100 requests: the 40th passes at about 2 s
 * and starts a pause, the requests held by it pass when it ends, and the 80th starts the
 * second one. Held requests count only when they pass, so however the machine's timing
 * shifts, 100 requests make exactly two pauses.
 */
@ExtendWith(TopologyExtension.class)
class PauseInjectionIT {

	private static final Duration PAUSE = Duration.ofSeconds(2);

	private static final int EVERY_REQUESTS = 40;

	private static final double RATE = 20;

	private static final Duration LOAD = Duration.ofSeconds(5);

	/**
	 * A request held by a pause counts against its path's queue and queue timeout, so
	 * both are set above what a pause holds (40 requests on one worker at most, for 2 s):
	 * the pause must delay requests, not refuse them.
	 */
	private static final String PATHS = """
			"paths": [{"name": "a", "match": {"prefix": "/a"}, "max_concurrency": 50, "max_queue": 64,
			           "queue_timeout_ms": 10000},
			          {"name": "b", "match": {"prefix": "/b"}, "max_concurrency": 50, "max_queue": 64,
			           "queue_timeout_ms": 10000}]""";

	/**
	 * Beyond this, a latency is a stall: half the pause, far over a loopback request even
	 * on 2 busy cores.
	 */
	private static final Duration STALL = PAUSE.dividedBy(2);

	/**
	 * A request that waited this long was held from near the start of a pause: the first
	 * request after the one that starts a pause is due at most 1/{@link #RATE} s later,
	 * so it waits nearly the whole pause.
	 */
	private static final Duration PAUSE_HEAD = PAUSE.multipliedBy(3).dividedBy(4);

	@Test
	void whenPauseIsConfiguredThenPathAStallsForThePauseAndNothingElseChanges(Topology topology) throws Exception {
		try (PathFenceContainer paused = envoy(topology,
				"{" + PATHS + ", \"pause\": {\"every_requests\": " + EVERY_REQUESTS + ", \"duration_ms\": "
						+ PAUSE.toMillis() + ", \"paths\": [\"a\"]}}");
				PathFenceContainer control = envoy(topology, "{" + PATHS + "}")) {
			Startables.deepStart(paused, control).join();

			Map<String, PathResult> withPause = load(
					"(c) pause of " + PAUSE.toMillis() + " ms every " + EVERY_REQUESTS + " requests on a", paused);
			Map<String, PathResult> withoutPause = load("(c) control: the same filter without the pause", control);

			PathResult a = withPause.get("a");
			PathResult b = withPause.get("b");
			assertThat(a.ok() + b.ok()).as("no request refused or failed").isEqualTo(a.count() + b.count());
			List<Sample> pauses = pauseHeads(a.samples());
			Figures.print("  pauses seen on a: " + pauses.size() + ", answered at "
					+ pauses.stream().map((head) -> head.answered().toMillis() + " ms").toList());
			assertThat(pauses).as("one pause every %d requests of the %d a sent", EVERY_REQUESTS, a.count())
				.hasSize((int) (a.count() / EVERY_REQUESTS));
			assertThat(outside(a.samples(), pauses)).as("a's requests due outside the pause windows")
				.isNotEmpty()
				.allSatisfy((sample) -> assertThat(sample.latency()).as("latency of a's request due at " + sample.due())
					.isLessThan(STALL));
			assertThat(a.max()).as("a's longest wait is the pause")
				.isGreaterThanOrEqualTo(PAUSE.multipliedBy(9).dividedBy(10))
				.isLessThan(PAUSE.plus(STALL));
			assertThat(b.max()).as("b is never paused").isLessThan(STALL);
			assertThat(paused.getPathStat("a", "paused")).as("requests a's pauses held").isPositive();
			assertThat(paused.getPathStat("b", "paused")).isZero();
			assertThat(withoutPause.get("a").max()).as("control: without the pause, a does not stall")
				.isLessThan(STALL);
		}
	}

	/**
	 * The first request held by each pause, in order: a request that waited at least
	 * {@link #PAUSE_HEAD} and was due after the previous pause had ended. The pause's
	 * window runs from when that request was due to when it was answered (the pause's
	 * end).
	 */
	private static List<Sample> pauseHeads(List<Sample> samples) {
		List<Sample> heads = new ArrayList<>();
		for (Sample sample : samples) {
			boolean afterLastPause = heads.isEmpty()
					|| sample.due().compareTo(heads.get(heads.size() - 1).answered()) > 0;
			if (afterLastPause && sample.latency().compareTo(PAUSE_HEAD) >= 0) {
				heads.add(sample);
			}
		}
		return heads;
	}

	private static List<Sample> outside(List<Sample> samples, List<Sample> pauses) {
		return samples.stream()
			.filter((sample) -> pauses.stream()
				.noneMatch((head) -> sample.due().compareTo(head.due()) >= 0
						&& sample.due().compareTo(head.answered()) <= 0))
			.toList();
	}

	private static PathFenceContainer envoy(Topology topology, String config) {
		return new PathFenceContainer(DockerTestSupport.envoyImage()).withTarget(topology.user, 8080)
			.withPathFenceConfig(config);
	}

	private static Map<String, PathResult> load(String label, PathFenceContainer envoy) throws Exception {
		Topology.warmUp(Topology.uri(envoy, "/b"), 40);
		Figures.print(label + ":");
		return ScenarioLoad.run(LOAD, Stream.get("a", Topology.uri(envoy, "/a"), RATE),
				Stream.get("b", Topology.uri(envoy, "/b"), RATE));
	}

}
