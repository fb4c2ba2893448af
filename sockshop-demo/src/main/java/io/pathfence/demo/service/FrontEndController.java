package io.pathfence.demo.service;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The gateway: every user request enters here and goes on to orders or catalogue. Its
 * pool is generous, as a gateway's is, so that what the experiment shows happens at
 * orders and not here.
 */
@RestController
@ConditionalOnProperty(name = "role", havingValue = "front-end")
class FrontEndController {

	private final SimulatedWork work;

	private final Occupancy occupancy;

	private final Downstream orders;

	private final Downstream catalogue;

	FrontEndController(SimulatedWork work, Occupancy occupancy, @Value("${downstream.orders}") String orders,
			@Value("${downstream.catalogue}") String catalogue,
			@Value("${demo.call-timeout:10s}") Duration callTimeout) {
		this.work = work;
		this.occupancy = occupancy;
		var client = Downstream.newClient();
		this.orders = new Downstream(client, orders, callTimeout);
		this.catalogue = new Downstream(client, catalogue, callTimeout);
	}

	@PostMapping("/place-order")
	ResponseEntity<String> placeOrder() {
		this.work.perform();
		try (var call = this.occupancy.calling(Paths.PLACE_ORDER)) {
			return this.orders.post("/orders", "{\"customer\":\"57a98d98e4b00679b4a830af\"}");
		}
	}

	@GetMapping("/order-history")
	ResponseEntity<String> orderHistory() {
		this.work.perform();
		try (var call = this.occupancy.calling(Paths.ORDER_HISTORY)) {
			return this.orders.get("/orders/history");
		}
	}

	@GetMapping("/order-status")
	ResponseEntity<String> orderStatus() {
		this.work.perform();
		try (var call = this.occupancy.calling(Paths.LOCAL)) {
			return this.orders.get("/orders/status");
		}
	}

	@GetMapping("/catalogue")
	ResponseEntity<String> catalogue() {
		this.work.perform();
		return this.catalogue.get("/catalogue");
	}

}
