package io.pathfence.isolation;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A service shared by two execution paths: {@code /a} calls a downstream that stalls,
 * {@code /b} one that answers at once. Both block their request thread on the call, as
 * ordinary synchronous services do.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(SharedServiceApplication.Paths.class)
class SharedServiceApplication {

	@RestController
	static class Paths {

		private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

		private final String downstream;

		Paths(@Value("${downstream}") String downstream) {
			this.downstream = downstream;
		}

		@GetMapping("/a")
		String pathA() throws Exception {
			return call("/stall");
		}

		@GetMapping("/b")
		String pathB() throws Exception {
			return call("/fast");
		}

		private String call(String target) throws Exception {
			HttpRequest request = HttpRequest.newBuilder(URI.create(this.downstream + target))
				.timeout(Duration.ofSeconds(30))
				.build();
			return this.client.send(request, HttpResponse.BodyHandlers.ofString()).body();
		}

	}

}
