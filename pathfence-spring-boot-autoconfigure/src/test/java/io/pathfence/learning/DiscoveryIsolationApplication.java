package io.pathfence.learning;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A service with no path configured: {@code /reports/{id}} calls a downstream that will
 * stall, {@code /quotes/{id}} one that stays fast. Both block their request thread on the
 * call.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(DiscoveryIsolationApplication.Routes.class)
class DiscoveryIsolationApplication {

	@RestController
	static class Routes {

		private final RestClient stalling;

		private final RestClient fast;

		Routes(RestClient.Builder builder, @Value("${stalling}") String stalling, @Value("${fast}") String fast) {
			this.stalling = builder.clone().baseUrl(stalling).build();
			this.fast = builder.clone().baseUrl(fast).build();
		}

		@GetMapping("/reports/{id}")
		String report() {
			return this.stalling.get().uri("/report").retrieve().body(String.class);
		}

		@GetMapping("/quotes/{id}")
		String quote() {
			return this.fast.get().uri("/quote").retrieve().body(String.class);
		}

	}

}
