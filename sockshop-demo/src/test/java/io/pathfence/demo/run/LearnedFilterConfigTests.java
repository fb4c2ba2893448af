package io.pathfence.demo.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import io.pathfence.demo.topology.Fence;
import io.pathfence.demo.topology.Topologies;

import static io.pathfence.demo.run.ZipkinSpans.client;
import static io.pathfence.demo.run.ZipkinSpans.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The envoy-learned mode's filter configuration from a trace file: each set of
 * downstreams orders' routes call is a path matching its route, orders' pool is split
 * between them and local requests, and every reservation queues as the topology's local
 * requests do; with tuning, each limit is bounded by the pool.
 */
class LearnedFilterConfigTests {

	private static final Fence ORDERS = Topologies.load("sock-shop").service("orders").fence();

	@TempDir
	Path folder;

	@Test
	void eachSetOfDownstreamsIsAPathMatchingItsRouteWithThePoolSplitEvenly() throws Exception {
		LearnedFilterConfig.Learned learned = LearnedFilterConfig.from(sockShopTraces(), "orders", ORDERS, false);

		Map<String, Object> filter = new Yaml().load(learned.json());
		assertThat(filter).containsOnlyKeys("paths", "local");
		assertThat(list(filter.get("paths"))).containsExactlyInAnyOrder(
				Map.of("name", "payment_shipping", "match", Map.of("exact", "/orders", "method", "POST"),
						"max_concurrency", 4, "max_queue", 2, "queue_timeout_ms", 500),
				Map.of("name", "carts_user", "match", Map.of("exact", "/orders/history", "method", "GET"),
						"max_concurrency", 4, "max_queue", 2, "queue_timeout_ms", 500));
		assertThat(filter.get("local"))
			.isEqualTo(Map.of("max_concurrency", 4, "max_queue", 2, "queue_timeout_ms", 500));
		assertThat(learned.summary()).anySatisfy(
				(line) -> assertThat(line).startsWith("path payment_shipping (4 permits)").contains("POST /orders"));
		assertThat(learned.summary())
			.anySatisfy((line) -> assertThat(line).startsWith("local (4 permits)").contains("GET /orders/status"));
	}

	@Test
	void withTuningEachLimitIsBoundedByThePoolAndTheFilterTunes() throws Exception {
		Map<String, Object> filter = new Yaml()
			.load(LearnedFilterConfig.from(sockShopTraces(), "orders", ORDERS, true).json());

		assertThat(list(filter.get("paths")))
			.allSatisfy((path) -> assertThat(path.get("tuning")).isEqualTo(Map.of("min", 1, "max", 12)));
		assertThat(filter).containsKey("tuning");
	}

	@Test
	void tracesWithoutTheServicesRequestsAreRefusedNamingIt() throws Exception {
		Path file = this.folder.resolve("traces.json");
		Files.writeString(file, ZipkinSpans.batch(server("1", "1", null, "front-end", "GET", "/order-history")));

		assertThatIllegalStateException().isThrownBy(() -> LearnedFilterConfig.from(file, "orders", ORDERS, false))
			.withMessageContaining("no request of orders")
			.withMessageContaining("front-end");
	}

	@Test
	void aFileThatIsNotTracesIsRefusedNamingTheField() throws Exception {
		Path file = this.folder.resolve("traces.json");
		Files.writeString(file, "[{\"id\": \"0000000000000001\"}]");

		assertThatIllegalStateException().isThrownBy(() -> LearnedFilterConfig.from(file, "orders", ORDERS, false))
			.withMessageContaining(file.toString())
			.withMessageContaining("traceId");
	}

	/** Three requests of each of orders' routes, as SockShop's services trace them. */
	private Path sockShopTraces() throws Exception {
		List<String> spans = new ArrayList<>();
		for (int i = 1; i <= 3; i++) {
			String place = "a" + i;
			spans.add(server(place, "1", null, "orders", "POST", "/orders"));
			spans.add(client(place, "2", "1", "orders", "payment"));
			spans.add(client(place, "3", "1", "orders", "shipping"));
			String history = "b" + i;
			spans.add(server(history, "1", null, "orders", "GET", "/orders/history"));
			spans.add(client(history, "2", "1", "orders", "user"));
			spans.add(client(history, "3", "1", "orders", "carts"));
			spans.add(server("c" + i, "1", null, "orders", "GET", "/orders/status"));
		}
		Path file = this.folder.resolve("traces.json");
		Files.writeString(file, ZipkinSpans.batch(spans.toArray(String[]::new)));
		return file;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

}
