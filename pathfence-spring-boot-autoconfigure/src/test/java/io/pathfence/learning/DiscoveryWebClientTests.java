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

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;

import io.pathfence.discovery.PathNames;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls through a {@link WebClient} built from Boot's auto-configured
 * {@code WebClient.Builder} are learned like {@code RestClient}'s: on a real Tomcat, with
 * a real downstream server on loopback.
 */
class DiscoveryWebClientTests {

	@RegisterExtension
	static final Downstream stock = Downstream.forTestClass();

	private final HttpClient client = HttpClient.newHttpClient();

	/**
	 * WebClient takes its observation's parent from the Reactor context, so the request's
	 * observation reaches it only when Boot copies thread-locals into that context
	 * ({@code spring.reactor.context-propagation=auto}); without it this route stays
	 * unlearned.
	 */
	@Test
	void aWebClientCallIsLearnedForItsRoute() throws Exception {
		try (ConfigurableApplicationContext service = new SpringApplicationBuilder(WebClientApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "stock=" + stock.baseUrl(),
					"pathfence.discovery.mode=enforce", "spring.reactor.context-propagation=auto",
					"spring.main.banner-mode=off", "logging.level.root=warn")
			.run()) {
			String base = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
			for (int i = 0; i < 3; i++) {
				HttpResponse<String> response = this.client.send(
						HttpRequest.newBuilder(URI.create(base + "/stock/" + i)).build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(response.statusCode()).isEqualTo(200);
			}
			LearnedPaths learned = service.getBean(LearnedPaths.class);
			String path = PathNames.pathName(Set.of(stock.hostAndPort()));
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> learned.pathOf("GET", "/stock/{id}"), path::equals);
			LearnedPaths.RouteReport route = learned.report().routes().get(0);
			assertThat(route.downstreams()).containsExactly(stock.hostAndPort());
			assertThat(route.calls()).containsEntry(stock.hostAndPort(), 3L);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(WebClientApplication.Routes.class)
	static class WebClientApplication {

		@RestController
		static class Routes {

			private final WebClient stock;

			Routes(WebClient.Builder builder, @Value("${stock}") String stock) {
				this.stock = builder.baseUrl(stock).build();
			}

			@GetMapping("/stock/{id}")
			String stock() {
				return this.stock.get().uri("/levels").retrieve().bodyToMono(String.class).block();
			}

		}

	}

}
