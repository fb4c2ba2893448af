package io.pathfence.it.services;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The two execution paths of the orders service: place an order (calls shipping), read
 * the user (calls user).
 */
@RestController
class OrdersController {

	private final HttpClient client;

	private final String shippingUrl;

	private final String userUrl;

	OrdersController(HttpClient client, @Value("${orders.shipping-url}") String shippingUrl,
			@Value("${orders.user-url}") String userUrl) {
		this.client = client;
		this.shippingUrl = shippingUrl;
		this.userUrl = userUrl;
	}

	/**
	 * {@code delay} is passed on to shipping, so a test can make one order stall longer
	 * than the others.
	 */
	@GetMapping("/orders")
	String placeOrder(@RequestParam(required = false) Long delay) throws IOException, InterruptedException {
		return call(this.shippingUrl + "/ship" + ((delay != null) ? "?delay=" + delay : ""));
	}

	@GetMapping("/user")
	String user() throws IOException, InterruptedException {
		return call(this.userUrl + "/user");
	}

	private String call(String url) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString()).body();
	}

}
