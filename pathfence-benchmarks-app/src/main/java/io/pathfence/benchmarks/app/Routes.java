package io.pathfence.benchmarks.app;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * The three routes the benchmark spreads its load over. They do no work: the request's
 * cost is Tomcat's, Spring MVC's and, when it is on, the starter's. With
 * {@code bench.calls=true} the orders and catalog routes each call a downstream of their
 * own, answered in memory ({@link InMemoryDownstream}), through a client built from
 * Boot's {@code RestClient.Builder}: what discovery learns from.
 */
@RestController
class Routes {

	private final RestClient payment;

	private final RestClient inventory;

	private final boolean calls;

	Routes(RestClient.Builder builder, @Value("${bench.calls:false}") boolean calls) {
		RestClient.Builder inMemory = builder.clone().requestFactory(new InMemoryDownstream());
		this.payment = inMemory.clone().baseUrl("http://payment.bench").build();
		this.inventory = inMemory.clone().baseUrl("http://inventory.bench").build();
		this.calls = calls;
	}

	@GetMapping("/orders/{id}")
	String order() {
		return this.calls ? this.payment.get().uri("/charges/1").retrieve().body(String.class) : "order";
	}

	@GetMapping("/catalog/{id}")
	String catalogItem() {
		return this.calls ? this.inventory.get().uri("/items/1").retrieve().body(String.class) : "item";
	}

	@GetMapping("/local/{id}")
	String local() {
		return "local";
	}

}
