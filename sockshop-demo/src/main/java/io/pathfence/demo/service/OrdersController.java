package io.pathfence.demo.service;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shared upstream. Placing an order calls payment then shipping (as SockShop's orders
 * does once it has the customer's details); the order history calls user then carts; an
 * order's status is answered from orders' own data. Each is one execution path in
 * {@code application-orders.properties}.
 */
@RestController
@ConditionalOnProperty(name = "role", havingValue = "orders")
class OrdersController {

	private final SimulatedWork work;

	private final Occupancy occupancy;

	private final Downstream payment;

	private final Downstream shipping;

	private final Downstream user;

	private final Downstream carts;

	OrdersController(SimulatedWork work, Occupancy occupancy, @Value("${downstream.payment}") String payment,
			@Value("${downstream.shipping}") String shipping, @Value("${downstream.user}") String user,
			@Value("${downstream.carts}") String carts, @Value("${demo.call-timeout:10s}") Duration callTimeout) {
		this.work = work;
		this.occupancy = occupancy;
		var client = Downstream.newClient();
		this.payment = new Downstream(client, payment, callTimeout);
		this.shipping = new Downstream(client, shipping, callTimeout);
		this.user = new Downstream(client, user, callTimeout);
		this.carts = new Downstream(client, carts, callTimeout);
	}

	@PostMapping("/orders")
	ResponseEntity<String> placeOrder() {
		try (var working = this.occupancy.working(Paths.PLACE_ORDER)) {
			this.work.perform();
			try (var call = this.occupancy.calling(Paths.PLACE_ORDER)) {
				ResponseEntity<String> authorised = this.payment.post("/paymentAuth", "{\"amount\":19.99}");
				if (!authorised.getStatusCode().is2xxSuccessful()) {
					return authorised;
				}
				return this.shipping.post("/shipping", "{\"order\":\"new\"}");
			}
		}
	}

	@GetMapping("/orders/history")
	ResponseEntity<String> orderHistory() {
		try (var working = this.occupancy.working(Paths.ORDER_HISTORY)) {
			this.work.perform();
			try (var call = this.occupancy.calling(Paths.ORDER_HISTORY)) {
				ResponseEntity<String> customer = this.user.get("/customers/57a98d98e4b00679b4a830af");
				if (!customer.getStatusCode().is2xxSuccessful()) {
					return customer;
				}
				return this.carts.get("/carts/57a98d98e4b00679b4a830af/items");
			}
		}
	}

	@GetMapping("/orders/status")
	ResponseEntity<String> orderStatus() {
		try (var working = this.occupancy.working(Paths.LOCAL)) {
			this.work.perform();
			return ResponseEntity.ok("{\"status\":\"shipped\"}");
		}
	}

}
