package io.pathfence.demo.run;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import io.pathfence.cli.traces.TraceFile;
import io.pathfence.cli.traces.TraceFormat;
import io.pathfence.demo.service.DemoRequest;
import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;
import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.SpanKind;
import io.pathfence.discovery.trace.TraceTree;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short real run with traces: SockShop's seven services as processes from the built
 * jar, exporting their spans through Micrometer Tracing to the runner's collector, and a
 * few requests of each path through the front-end. The filter configuration learned from
 * those traces (as the envoy-learned mode learns it) names orders' two paths by the
 * downstreams they call, each matching its one route, and leaves the route that calls
 * nothing local; the spans show each call as a client span of orders below the request's
 * server span, and the context carried to the callee.
 */
class TracedRunIT {

	@Test
	void theFilterLearnedFromARunsTracesNamesOrdersPathsByTheirDownstreams() throws Exception {
		Path jar = Path.of(System.getProperty("sockshop.jar", "target/app/sockshop-demo.jar"));
		assertThat(jar).as("the demo's jar, built in the package phase").isRegularFile();
		Path results = Files.createDirectories(Path.of("target", "traced-run"));
		Topology shop = Topologies.load("sock-shop");
		Settings smoke = Settings.smoke("sock-shop", shop, jar, results);
		Settings settings = new Settings(smoke.app(), shop, jar, results, List.of(Mode.BASELINE), smoke.trace(),
				Map.of(), smoke.warmUp(), smoke.faultFree(), smoke.faulted(), smoke.millibottleneck(),
				smoke.requestTimeout(), smoke.serviceJvmOptions(), null, null, false, true);

		Path traces = results.resolve("run-traces.json");
		try (Cluster cluster = Cluster.start(settings, Mode.BASELINE, results.resolve("logs"))) {
			String frontEnd = cluster.baseUrl("front-end");
			for (int i = 0; i < 5; i++) {
				send(frontEnd, "POST", "/place-order", "place-order");
				send(frontEnd, "GET", "/order-history", "order-history");
				send(frontEnd, "GET", "/order-status", "local");
			}
			assertThat(cluster.writeTracesSinceSwitch(traces)).as("spans collected").isPositive();
		}

		LearnedFilterConfig.Learned learned = LearnedFilterConfig.from(traces, "orders", shop.service("orders").fence(),
				false);
		Map<String, Object> filter = new Yaml().load(learned.json());
		List<Map<String, Object>> paths = list(filter.get("paths"));
		Map<String, Map<String, Object>> byName = paths.stream()
			.collect(Collectors.toMap((path) -> (String) path.get("name"), (path) -> path));
		assertThat(byName).as(learned.json()).containsOnlyKeys("payment_shipping", "carts_user");
		assertThat(byName.get("payment_shipping").get("match")).isEqualTo(Map.of("exact", "/orders", "method", "POST"));
		assertThat(byName.get("carts_user").get("match"))
			.isEqualTo(Map.of("exact", "/orders/history", "method", "GET"));
		// Orders' pool of 12 split between the two paths and local requests.
		assertThat(paths).allSatisfy((path) -> assertThat(path.get("max_concurrency")).isEqualTo(4));
		assertThat(map(filter.get("local")).get("max_concurrency")).isEqualTo(4);
		assertThat(learned.summary())
			.anySatisfy((line) -> assertThat(line).startsWith("local").contains("GET /orders/status"));

		TraceTree placeOrder = TraceTree.of(TraceFile.read(traces, TraceFormat.ZIPKIN))
			.stream()
			.filter((tree) -> tree.spans().stream().anyMatch((span) -> "payment".equals(span.remoteService())))
			.findFirst()
			.orElseThrow();
		Span ordersServer = only(placeOrder, "orders", SpanKind.SERVER);
		assertThat(placeOrder.parent(ordersServer).service()).as("the front-end's call carried the trace context")
			.isEqualTo("front-end");
		Span paymentCall = placeOrder.children(ordersServer)
			.stream()
			.filter((span) -> "payment".equals(span.remoteService()))
			.findFirst()
			.orElseThrow();
		assertThat(paymentCall.kind()).isEqualTo(SpanKind.CLIENT);
		assertThat(placeOrder.children(paymentCall)).extracting(Span::service).containsExactly("payment");
	}

	private static Span only(TraceTree tree, String service, SpanKind kind) {
		List<Span> spans = tree.spans()
			.stream()
			.filter((span) -> span.service().equals(service) && span.kind() == kind)
			.toList();
		assertThat(spans).hasSize(1);
		return spans.get(0);
	}

	private static void send(String base, String method, String path, String label) throws Exception {
		HttpURLConnection connection = DemoRequest.send(URI.create(base + path), method, label, Duration.ofSeconds(10));
		assertThat(connection.getResponseCode()).as(method + " " + path).isEqualTo(200);
		try (InputStream in = connection.getInputStream()) {
			in.readAllBytes();
		}
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

}
