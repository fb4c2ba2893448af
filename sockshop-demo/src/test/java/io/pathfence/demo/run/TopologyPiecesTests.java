package io.pathfence.demo.run;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import io.pathfence.demo.topology.Fence;
import io.pathfence.demo.topology.Topologies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The runner's small readings of the machine and the topology: the kernel's dropped
 * connections, the core a burner takes, the burst bands, the envoy mode's filter
 * configuration.
 */
class TopologyPiecesTests {

	@Test
	void listenDropsAreTheExperimentsOwnSocketsCountsSummed() {
		List<String> ss = List.of("LISTEN 0      128          0.0.0.0:2024       0.0.0.0:*",
				"\t skmem:(r0,rb131072,t0,tb16384,f0,w0,o0,bl0,d500)",
				"LISTEN 11     10                 *:43765            *:*",
				"\t skmem:(r0,rb131072,t0,tb16384,f0,w0,o0,bl0,d17)",
				"LISTEN 0      1024       127.0.0.1:46045      0.0.0.0:*",
				"\t skmem:(r0,rb131072,t0,tb16384,f0,w0,o0,bl0,d2)",
				"LISTEN 0      1024       127.0.0.1:46045      0.0.0.0:*",
				"\t skmem:(r0,rb131072,t0,tb16384,f0,w0,o0,bl0,d3)");

		assertThat(ListenDrops.parse(ss, Set.of(43765, 46045))).isEqualTo(22);
		assertThat(ListenDrops.parse(ss, Set.of(43765))).isEqualTo(17);
		assertThat(ListenDrops.parse(ss, Set.of(43765, 40000))).isEqualTo(-1);
	}

	@Test
	void theBurnerTakesTheLastAllowedCoreAndTheOthersKeepTheRest() {
		assertThat(CpuInterference.cores("0-1")).containsExactly(0, 1);
		assertThat(CpuInterference.cores("0,2,4-6")).containsExactly(0, 2, 4, 5, 6);
		assertThat(new CpuInterference("0,2,4-6", List::of).pinning()).containsExactly("taskset", "-c", "6");
	}

	@Test
	void theLargeTracesBurstsAreBandsOfTwoAndAHalfSecondsAroundTheirPlateau() {
		List<double[]> bursts = Trace.LARGE.bursts(10, 30);

		assertThat(bursts).hasSize(2);
		assertThat(bursts.get(0)[0]).isCloseTo(12.75, within(0.02));
		assertThat(bursts.get(0)[1]).isCloseTo(15.25, within(0.02));
		assertThat(bursts.get(1)[0]).isCloseTo(22.75, within(0.02));
		assertThat(Trace.FLAT.bursts(0, 30)).isEmpty();
	}

	/**
	 * The envoy mode's configuration, made from SockShop's fence, holds the same paths,
	 * limits, per-worker queues and timeouts as the filter configuration the Istio
	 * deployment uses ({@code envoy/orders-filter.json}); only the match of order-history
	 * differs (exact here, a prefix there).
	 */
	@Test
	@SuppressWarnings("unchecked")
	void theEnvoyModesFilterConfigurationIsSockShopsFence() throws Exception {
		Map<String, Object> made = new Yaml()
			.load(EnvoyFilterConfig.json(Topologies.load("sock-shop").service("orders").fence()));
		Map<String, Object> deployed = new Yaml().load(getClass().getResourceAsStream("/envoy/orders-filter.json"));

		assertThat(made.get("local")).isEqualTo(deployed.get("local"));
		List<Map<String, Object>> madePaths = (List<Map<String, Object>>) made.get("paths");
		List<Map<String, Object>> deployedPaths = (List<Map<String, Object>>) deployed.get("paths");
		assertThat(madePaths).hasSameSizeAs(deployedPaths);
		for (int i = 0; i < madePaths.size(); i++) {
			for (String key : List.of("name", "max_concurrency", "max_queue", "queue_timeout_ms")) {
				assertThat(madePaths.get(i).get(key)).as("paths[%d].%s", i, key)
					.isEqualTo(deployedPaths.get(i).get(key));
			}
		}
		assertThat(madePaths.get(0).get("match")).isEqualTo(deployedPaths.get(0).get("match"));
		assertThat(madePaths.get(1).get("match")).isEqualTo(Map.of("exact", "/orders/history"));
		assertThat(made).doesNotContainKey("tuning");
	}

	/**
	 * With --filter-tuning, the same paths start from their permits, bounded by 1 and the
	 * service's pool, under the starter's tuning defaults.
	 */
	@Test
	@SuppressWarnings("unchecked")
	void withFilterTuningEveryPathIsTunedFromItsPermitsWithinThePool() {
		Fence fence = Topologies.load("sock-shop").service("orders").fence();
		Map<String, Object> untuned = new Yaml().load(EnvoyFilterConfig.json(fence));
		Map<String, Object> tuned = new Yaml().load(EnvoyFilterConfig.json(fence, true));

		assertThat(tuned.get("tuning"))
			.isEqualTo(Map.of("interval_ms", 50, "window_s", 60, "period_s", 15, "max_step", 4, "hysteresis", 2));
		assertThat(tuned.get("local")).isEqualTo(untuned.get("local"));
		List<Map<String, Object>> paths = (List<Map<String, Object>>) tuned.get("paths");
		List<Map<String, Object>> untunedPaths = (List<Map<String, Object>>) untuned.get("paths");
		assertThat(paths).hasSameSizeAs(untunedPaths);
		for (int i = 0; i < paths.size(); i++) {
			Map<String, Object> path = new HashMap<>(paths.get(i));
			assertThat(path.remove("tuning")).as("paths[%d].tuning", i)
				.isEqualTo(Map.of("min", 1, "max", fence.poolSize()));
			assertThat(path).isEqualTo(untunedPaths.get(i));
		}
	}

}
