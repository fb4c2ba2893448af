package io.pathfence.learning;

import java.util.concurrent.CompletableFuture;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A service whose routes call two downstreams, payment and shipping, through a
 * {@link RestClient} built from Boot's builder: one route calls payment, two call both,
 * one calls shipping from an {@code @Async} task, one calls nothing, and one calls the
 * downstream its request names.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableAsync
@Import({ DiscoveryApplication.Routes.class, DiscoveryApplication.Shipping.class })
class DiscoveryApplication {

	@RestController
	static class Routes {

		private final RestClient payment;

		private final RestClient shipping;

		private final Shipping asyncShipping;

		Routes(RestClient.Builder builder, @Value("${payment}") String payment, @Value("${shipping}") String shipping,
				Shipping asyncShipping) {
			this.payment = builder.clone().baseUrl(payment).build();
			this.shipping = builder.clone().baseUrl(shipping).build();
			this.asyncShipping = asyncShipping;
		}

		@GetMapping("/orders/{id}")
		String order() {
			return this.payment.get().uri("/charges/1").retrieve().body(String.class);
		}

		@PostMapping("/orders")
		String placeOrder() {
			this.payment.post().uri("/charges").retrieve().body(String.class);
			return this.shipping.post().uri("/shipments").retrieve().body(String.class);
		}

		@GetMapping("/carts/{id}")
		String cart() {
			this.shipping.get().uri("/rates").retrieve().body(String.class);
			return this.payment.get().uri("/methods").retrieve().body(String.class);
		}

		@GetMapping("/shipments/{id}")
		String shipment() throws Exception {
			return this.asyncShipping.track().get();
		}

		@GetMapping("/quotes/{id}")
		String quote(@RequestParam String via) {
			RestClient downstream = via.equals("payment") ? this.payment : this.shipping;
			return downstream.get().uri("/quotes").retrieve().body(String.class);
		}

		@GetMapping("/ping")
		String ping() {
			return "pong";
		}

	}

	@Component
	static class Shipping {

		private final RestClient shipping;

		Shipping(RestClient.Builder builder, @Value("${shipping}") String shipping) {
			this.shipping = builder.clone().baseUrl(shipping).build();
		}

		@Async
		public CompletableFuture<String> track() {
			return CompletableFuture
				.completedFuture(this.shipping.get().uri("/tracking").retrieve().body(String.class));
		}

	}

}
