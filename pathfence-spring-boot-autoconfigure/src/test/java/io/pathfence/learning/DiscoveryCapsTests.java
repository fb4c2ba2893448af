package io.pathfence.learning;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.pathfence.core.PathFence;
import io.pathfence.discovery.PathNames;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Discovery's confirmations and caps on a real Tomcat with real downstreams: a route
 * whose downstream changes moves only once its requests agree, and a set of downstreams
 * beyond {@code max-paths} stays local with a warning on the endpoint.
 */
class DiscoveryCapsTests {

	@RegisterExtension
	static final Downstream payment = Downstream.forTestClass();

	@RegisterExtension
	static final Downstream shipping = Downstream.forTestClass();

	private final HttpClient client = HttpClient.newHttpClient();

	@Test
	void changingRouteMovesOnlyAfterTheConfirmationsAndSetsBeyondTheCapStayLocal() throws Exception {
		try (ConfigurableApplicationContext service = new SpringApplicationBuilder(DiscoveryApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "payment=" + payment.baseUrl(),
					"shipping=" + shipping.baseUrl(), "pathfence.discovery.mode=enforce",
					"pathfence.discovery.confirmations=2", "pathfence.discovery.max-paths=2",
					"management.endpoints.web.exposure.include=pathfence", "spring.main.banner-mode=off",
					"logging.level.root=error")
			.run()) {
			String base = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
			LearnedPaths learned = service.getBean(LearnedPaths.class);
			PathFence fence = service.getBean(PathFence.class);
			String viaPayment = PathNames.pathName(Set.of(payment.hostAndPort()));
			String viaShipping = PathNames.pathName(Set.of(shipping.hostAndPort()));
			quote(base, learned, "payment", 1);
			assertThat(learned.pathOf("GET", "/quotes/{id}")).isNull();
			quote(base, learned, "payment", 2);
			assertThat(learned.pathOf("GET", "/quotes/{id}")).isEqualTo(viaPayment);
			// One odd request moves nothing, and the next agreeing one clears it.
			quote(base, learned, "shipping", 3);
			quote(base, learned, "payment", 4);
			quote(base, learned, "shipping", 5);
			assertThat(learned.pathOf("GET", "/quotes/{id}")).isEqualTo(viaPayment);
			quote(base, learned, "shipping", 6);
			assertThat(learned.pathOf("GET", "/quotes/{id}")).isEqualTo(viaShipping);
			assertThat(fence.pathNames()).containsExactly(viaPayment, viaShipping, PathFence.LOCAL);
			// A third set is beyond max-paths: its route stays local, and says why.
			for (int i = 1; i <= 2; i++) {
				send(base, "POST", "/orders");
				awaitRequests(learned, "/orders", i);
			}
			assertThat(learned.pathOf("POST", "/orders")).isNull();
			assertThat(fence.pathNames()).containsExactly(viaPayment, viaShipping, PathFence.LOCAL);
			String endpoint = send(base, "GET", "/actuator/pathfence").body();
			assertThat(endpoint).contains("POST /orders").contains("pathfence.discovery.max-paths");
		}
	}

	private void quote(String base, LearnedPaths learned, String via, int requests) throws Exception {
		send(base, "GET", "/quotes/" + requests + "?via=" + via);
		awaitRequests(learned, "/quotes/{id}", requests);
	}

	/** A server observation stops after its response is on the way: wait for it. */
	private static void awaitRequests(LearnedPaths learned, String pattern, long requests) {
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> learned.report()
				.routes()
				.stream()
				.anyMatch((route) -> route.pattern().equals(pattern) && route.requests() == requests));
	}

	private HttpResponse<String> send(String base, String method, String path) throws Exception {
		HttpResponse<String> response = this.client.send(HttpRequest.newBuilder(URI.create(base + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s", method, path).isEqualTo(200);
		return response;
	}

}
