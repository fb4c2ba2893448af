package io.pathfence.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.pathfence.testcontainers.PathFenceContainer;
import org.testcontainers.containers.GenericContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waits, with a deadline, until no reservation holds or queues anything, in the filter or
 * in the starter.
 */
final class Gauges {

	private Gauges() {
	}

	/**
	 * The filter's {@code active} and {@code queued} gauges, every path and
	 * {@code local}.
	 */
	static Map<String, Long> envoyHeld(PathFenceContainer envoy) {
		return envoy.getPathFenceStats()
			.entrySet()
			.stream()
			.filter((stat) -> stat.getKey().endsWith(";pathfence_path_active")
					|| stat.getKey().endsWith(";pathfence_path_queued"))
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
	}

	static void awaitEnvoyIdle(PathFenceContainer envoy) throws InterruptedException {
		awaitEnvoyIdle(envoy, Duration.ofSeconds(10));
	}

	static void awaitEnvoyIdle(PathFenceContainer envoy, Duration within) throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		while (envoyHeld(envoy).values().stream().anyMatch((value) -> value != 0) && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(envoyHeld(envoy)).as("the filter's active and queued gauges")
			.isNotEmpty()
			.allSatisfy((name, value) -> assertThat(value).as(name).isZero());
	}

	static void awaitStarterIdle(GenericContainer<?> orders) throws Exception {
		awaitStarterIdle(orders, Duration.ofSeconds(10));
	}

	/**
	 * The starter's reservations, from its actuator endpoint:
	 * {@code path -> [active, queued]}.
	 */
	static void awaitStarterIdle(GenericContainer<?> orders, Duration within) throws Exception {
		long deadline = System.nanoTime() + within.toNanos();
		while (!idle(Topology.starterFigures(orders)) && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(Topology.starterFigures(orders)).as("the starter's reservations: [active, queued]")
			.containsKeys("orders", "user", "local")
			.allSatisfy((path, figures) -> assertThat(figures).as(path).containsExactly(0, 0));
	}

	private static boolean idle(Map<String, List<Integer>> figures) {
		return figures.values().stream().allMatch((figure) -> figure.get(0) == 0 && figure.get(1) == 0);
	}

}
