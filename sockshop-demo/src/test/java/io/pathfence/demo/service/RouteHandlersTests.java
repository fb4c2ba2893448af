package io.pathfence.demo.service;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.context.ConfigurableApplicationContext;

import io.pathfence.learning.LearnedPaths;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SockShop's orders, started as the demo starts it (real Tomcat, its calls over HTTP to a
 * leaf that stands in for its four downstreams), learning its paths: each route of the
 * topology is learned on its own, with the downstreams it calls, because each has a
 * handler mapping of its own. The control starts the same service without
 * {@link RouteHandlers}: its routes are then one catch-all pattern per method, and what
 * discovery learns is not the routes' map.
 */
class RouteHandlersTests {

	private static final Map<String, Set<String>> ORDERS_ROUTES = Map.of("POST /orders", Set.of("payment", "shipping"),
			"GET /orders/history", Set.of("user", "carts"), "GET /orders/status", Set.of());

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void discoveryLearnsEachRouteOfTheTopologyWithItsOwnDownstreams() throws Exception {
		assertThat(learnedRoutesOfOrders(true)).isEqualTo(ORDERS_ROUTES);
	}

	@Test
	void withoutRouteHandlersDiscoveryCannotTellTheRoutesApart() throws Exception {
		Map<String, Set<String>> learned = learnedRoutesOfOrders(false);
		assertThat(learned).isNotEqualTo(ORDERS_ROUTES)
			.containsOnlyKeys("POST /**", "GET /**")
			.containsEntry("GET /**", Set.of("user", "carts"));
	}

	/**
	 * Starts a leaf and orders, sends each route of orders three requests, and returns
	 * what orders learned: each route ("METHOD pattern") with the downstreams it called.
	 */
	private Map<String, Set<String>> learnedRoutesOfOrders(boolean routeHandlers) throws Exception {
		try (ConfigurableApplicationContext leaf = start(false, "--role=payment")) {
			String leafUrl = "http://127.0.0.1:" + port(leaf);
			List<String> args = new ArrayList<>(
					List.of("--role=orders", "--pathfence.enabled=true", "--pathfence.discovery.mode=enforce"));
			for (String downstream : List.of("payment", "shipping", "user", "carts")) {
				args.add("--downstream." + downstream + "=" + leafUrl);
			}
			try (ConfigurableApplicationContext orders = start(!routeHandlers, args.toArray(String[]::new))) {
				String ordersUrl = "http://127.0.0.1:" + port(orders);
				int sent = 0;
				for (int i = 0; i < 3; i++) {
					send("POST", ordersUrl + "/orders");
					send("GET", ordersUrl + "/orders/history");
					send("GET", ordersUrl + "/orders/status");
					sent += 3;
				}
				LearnedPaths learned = orders.getBean(LearnedPaths.class);
				return awaitRoutes(learned, sent);
			}
		}
	}

	private void send(String method, String url) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(url))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s", method, url).isEqualTo(200);
	}

	/**
	 * The learned routes once every request sent has been counted: a request is learned
	 * when its server observation stops, which may be just after its answer is sent.
	 */
	private static Map<String, Set<String>> awaitRoutes(LearnedPaths learned, int sent) throws InterruptedException {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (true) {
			List<LearnedPaths.RouteReport> routes = learned.report().routes();
			long counted = routes.stream().mapToLong(LearnedPaths.RouteReport::requests).sum();
			if (counted >= sent || System.nanoTime() > deadline) {
				Map<String, Set<String>> byRoute = new TreeMap<>();
				routes.forEach((route) -> byRoute.put(route.method() + " " + route.pattern(), route.calls().keySet()));
				return byRoute;
			}
			Thread.sleep(20);
		}
	}

	/**
	 * Starts a service of SockShop through the demo's own entry point, on a free port,
	 * optionally without its {@link RouteHandlers}.
	 */
	private static ConfigurableApplicationContext start(boolean withoutRouteHandlers, String... roleArgs) {
		List<String> args = new ArrayList<>(List.of(roleArgs));
		args.add("--topology=sock-shop");
		args.add("--server.port=0");
		AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
		SpringApplication.withHook((application) -> new SpringApplicationRunListener() {

			@Override
			public void contextPrepared(ConfigurableApplicationContext context) {
				started.set(context);
				if (withoutRouteHandlers) {
					context.addBeanFactoryPostProcessor(withoutRouteHandlers());
				}
			}

		}, () -> ServiceApplication.start(args.toArray(String[]::new)));
		return started.get();
	}

	private static BeanFactoryPostProcessor withoutRouteHandlers() {
		return (beanFactory) -> ((BeanDefinitionRegistry) beanFactory).removeBeanDefinition("routeHandlers");
	}

	private static int port(ConfigurableApplicationContext context) {
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

}
