package io.pathfence.learning;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.pathfence.core.PathFence;
import io.pathfence.discovery.PathNames;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Discovery on a real Tomcat with real downstream servers on loopback: what it learns of
 * a service whose routes and downstreams are known.
 */
class DiscoveryLearningTests {

	@RegisterExtension
	static final Downstream payment = Downstream.forTestClass();

	@RegisterExtension
	static final Downstream shipping = Downstream.forTestClass();

	private final HttpClient client = HttpClient.newHttpClient();

	@Test
	void learnedMapEqualsTheKnownMapIncludingAnAsyncCallAndARouteThatCallsNothing() throws Exception {
		try (ConfigurableApplicationContext service = start("observe")) {
			String base = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
			for (int i = 0; i < 3; i++) {
				send(base, "GET", "/orders/" + i);
				send(base, "POST", "/orders");
				send(base, "GET", "/carts/" + i);
				send(base, "GET", "/shipments/" + i);
				send(base, "GET", "/ping");
			}
			LearnedPaths learnedPaths = service.getBean(LearnedPaths.class);
			// A server observation stops after the response is on its way.
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> learnedPaths.report()
					.routes()
					.stream()
					.mapToLong(LearnedPaths.RouteReport::requests)
					.sum(), (sum) -> sum >= 15);
			LearnedPaths.Report report = learnedPaths.report();
			String p = payment.hostAndPort();
			String s = shipping.hostAndPort();
			Map<String, Set<String>> known = new LinkedHashMap<>();
			known.put("GET /carts/{id}", Set.of(p, s));
			known.put("POST /orders", Set.of(p, s));
			known.put("GET /orders/{id}", Set.of(p));
			known.put("GET /ping", Set.of());
			known.put("GET /shipments/{id}", Set.of(s));
			Map<String, Set<String>> learned = new LinkedHashMap<>();
			Map<String, String> paths = new LinkedHashMap<>();
			for (LearnedPaths.RouteReport route : report.routes()) {
				String name = route.method() + " " + route.pattern();
				learned.put(name, (route.downstreams() != null) ? route.downstreams() : new TreeSet<>());
				paths.put(name, route.path());
				assertThat(route.requests()).as("requests of %s", name).isEqualTo(3);
			}
			assertThat(learned).isEqualTo(known);
			String both = PathNames.pathName(Set.of(p, s));
			assertThat(paths).containsEntry("GET /carts/{id}", both)
				.containsEntry("POST /orders", both)
				.containsEntry("GET /orders/{id}", PathNames.pathName(Set.of(p)))
				.containsEntry("GET /shipments/{id}", PathNames.pathName(Set.of(s)))
				.containsEntry("GET /ping", PathFence.LOCAL);
			assertThat(report.routes().get(0).calls()).containsEntry(p, 3L).containsEntry(s, 3L);
			assertThat(report.yaml()).contains("    " + both + ":\n").contains("\"/carts/{id}\"");
			assertThat(report.warnings()).isEmpty();
			// Observing enforces nothing: every request stays local.
			assertThat(service.getBean(PathFence.class).pathNames()).containsExactly(PathFence.LOCAL);
			HttpResponse<String> endpoint = send(base, "GET", "/actuator/pathfence");
			System.out.println("endpoint: " + endpoint.body());
			assertThat(endpoint.body()).contains("\"discovery\"").contains("\"mode\":\"observe\"").contains("\"yaml\"");
		}
	}

	@Test
	void withDiscoveryOffNothingIsLearned() throws Exception {
		try (ConfigurableApplicationContext service = start("off")) {
			String base = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
			send(base, "GET", "/orders/1");
			assertThat(service.getBeansOfType(LearnedPaths.class)).isEmpty();
			assertThat(send(base, "GET", "/actuator/pathfence").body()).doesNotContain("\"mode\"");
		}
	}

	private HttpResponse<String> send(String base, String method, String path) throws Exception {
		HttpResponse<String> response = this.client.send(HttpRequest.newBuilder(URI.create(base + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s", method, path).isEqualTo(200);
		return response;
	}

	private static ConfigurableApplicationContext start(String mode) {
		return new SpringApplicationBuilder(DiscoveryApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "payment=" + payment.baseUrl(),
					"shipping=" + shipping.baseUrl(), "pathfence.discovery.mode=" + mode,
					"management.endpoints.web.exposure.include=pathfence", "spring.main.banner-mode=off",
					"logging.level.root=warn")
			.run();
	}

}
