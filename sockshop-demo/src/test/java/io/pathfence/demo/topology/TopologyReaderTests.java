package io.pathfence.demo.topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The shipped applications read as the paper draws them, and a malformed topology is
 * refused naming the field at fault, before anything starts.
 */
class TopologyReaderTests {

	@Test
	void sockShopIsOrdersSharedByPlaceOrderAndOrderHistoryWithPaymentStopped() {
		Topology shop = Topologies.load("sock-shop");

		assertThat(shop.gateway()).isEqualTo("front-end");
		assertThat(shop.services()).hasSize(7);
		assertThat(shop.sharedService()).map(Service::name).hasValue("orders");
		assertThat(shop.faultyPaths()).containsExactly("place-order");
		assertThat(shop.otherSharedPaths()).containsExactly("order-history", "local");
		assertThat(shop.millibottleneck()).isEqualTo(new Millibottleneck(MillibottleneckSource.STOP, "payment",
				Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMillis(3500)));
		Service orders = shop.service("orders");
		assertThat(orders.pools()).isEqualTo(new Pools(14, 14, 40, 10));
		assertThat(orders.cpuTime()).isEqualTo(Duration.ofNanos(500_000));
		assertThat(orders.fence().paths()).extracting(FencePath::name, FencePath::permits, FencePath::maxQueue)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("place-order", 6, 4),
					org.assertj.core.groups.Tuple.tuple("order-history", 4, 6));
		assertThat(shop.servicesOn(shop.stream("place-order"))).containsExactly("front-end", "orders", "payment",
				"shipping");
		assertThat(shop.service("payment").isLeaf()).isTrue();
	}

	@Test
	void socialNetworkIsComposePostSharedByTwoPathsWithInterferenceAtTheSocialGraphsDatabase() {
		Topology network = Topologies.load("social-network");

		assertThat(network.sharedService()).map(Service::name).hasValue("compose-post");
		assertThat(network.servicesOn(network.stream("home-timeline"))).containsExactly("nginx", "compose-post",
				"home-timeline", "social-graph", "social-graph-db");
		assertThat(network.faultyPaths()).containsExactly("home-timeline");
		assertThat(network.otherSharedPaths()).containsExactly("user-timeline", "local");
		assertThat(network.millibottleneck().source()).isEqualTo(MillibottleneckSource.INTERFERENCE);
		assertThat(network.millibottleneck().service()).isEqualTo("social-graph-db");
	}

	@Test
	void mediaServiceIsComposeReviewSharedByTwoPathsWithBurstsSaturatingTheRatingStore() {
		Topology media = Topologies.load("media-service");

		assertThat(media.sharedService()).map(Service::name).hasValue("compose-review");
		assertThat(media.faultyPaths()).containsExactly("rating");
		assertThat(media.stream("rating").bursts()).isTrue();
		assertThat(media.otherSharedPaths()).containsExactly("review-text", "local");
		assertThat(media.millibottleneck().source()).isEqualTo(MillibottleneckSource.BURST);
		assertThat(media.service("rating-store").workSlots()).isEqualTo(2);
	}

	@ParameterizedTest(name = "{1}")
	@CsvSource(delimiterString = " | ", quoteCharacter = '"', value = {
			"name: sock-shop | colour: red\\nname: sock-shop | colour | unknown field; allowed here: [name, description, gateway",
			"gateway: front-end\\n | \\n | gateway | required",
			"gateway: front-end | gateway: payment | gateway | must be a service with routes, one of [front-end, orders]",
			"pools: {threads: 14, | pools: {threads: many, | services.orders.pools.threads | must be a whole number of at least 1, not 'many'",
			"cpu-time: 500us\\n    wait-time: 5ms | cpu-tme: 500us\\n    wait-time: 5ms | services.orders.cpu-tme | unknown field; allowed here: [cpu-time, wait-time",
			"wait-time: 20ms, pools: {threads: 50, max-connections: 200, accept-count: 100}}\\n  shipping | wait-time: soon, pools: {threads: 50, max-connections: 200, accept-count: 100}}\\n  shipping | services.payment.wait-time | must be a duration such as 500us, 20ms or 10s, not 'soon'",
			"POST payment /paymentAuth | POST paymnt /paymentAuth | services.orders.routes[0].calls[0] | 'POST paymnt /paymentAuth' calls no other service of the topology",
			"GET orders /orders/history] | GET orders /orders/nothing] | services.front-end.routes[1].calls[0] | 'GET orders /orders/nothing' is not a route of orders: one of [POST /orders, GET /orders/history, GET /orders/status]",
			"route: GET /orders/status | route: FETCH /orders/status | services.orders.routes[2].route | must read METHOD /path",
			"place-order: {permits: 6, | place-order: {permits: 9, | services.orders.fence.paths | the paths' permits add up to 13, more than pool-size 12",
			"routes: [/orders/history], | routes: [/orders/historic], | services.orders.fence.paths.order-history.routes[0] | '/orders/historic' matches none of orders's routes",
			"pool-size: 12 | pool-size: 15 | services.orders.fence.pool-size | must be at most the service's threads (14)",
			"order-history: {permits: 4, | local: {permits: 4, | services.orders.fence.paths.local | not 'local'",
			"request: POST /place-order | request: POST /checkout | load[0].request | 'POST /checkout' is not a route of the gateway front-end",
			"path: order-history, request: GET /order-history, rate: 20 | path: order-history, request: GET /order-history, rate: 0 | load[1].rate | must be a number above 0, not 0",
			"path: local, | path: order-history, | load[2].path | the path 'order-history' is loaded twice",
			"service: payment, | service: paymnt, | millibottleneck.service | must be a service other than the gateway",
			"period: 10s | period: 1s | millibottleneck.period | must be longer than the length (1000 ms)",
			"source: stop | source: noise | millibottleneck.source | Unknown millibottleneck source 'noise'; one of [stop, interference, burst]",
			"source: stop, service: payment | source: burst, service: catalogue | millibottleneck.source | a burst millibottleneck needs a bursting path that reaches catalogue; paths reaching it: [catalogue]" })
	void aMalformedSockShopIsRefusedNamingTheField(String original, String broken, String field, String says)
			throws IOException {
		String shop = sockShop();
		String yaml = shop.replace(unescape(original), unescape(broken));
		assertThat(yaml).as("the test changes the file").isNotEqualTo(shop);

		assertThatExceptionOfType(InvalidTopologyException.class).isThrownBy(() -> TopologyReader.read(yaml))
			.satisfies((ex) -> assertThat(ex.getField()).isEqualTo(field))
			.withMessageStartingWith(field + ": ")
			.withMessageContaining(says);
	}

	@Test
	void aCycleOfCallsIsRefusedNamingTheRouteAndTheCycle() {
		String yaml = """
				name: loop
				gateway: gw
				services:
				  gw: {cpu-time: 1ms, wait-time: 0ms, routes: [{route: GET /a, calls: [GET a /a]}]}
				  a: {cpu-time: 1ms, wait-time: 0ms, routes: [{route: GET /a, calls: [GET b /b]}]}
				  b: {cpu-time: 1ms, wait-time: 0ms, routes: [{route: GET /b, calls: [GET a /a]}]}
				load: [{path: p, request: GET /a, rate: 1}]
				millibottleneck: {source: stop, service: b, length: 1s, period: 10s}
				""";

		assertThatExceptionOfType(InvalidTopologyException.class).isThrownBy(() -> TopologyReader.read(yaml))
			.satisfies((ex) -> assertThat(ex.getField()).isEqualTo("services.gw.routes[0]"))
			.withMessageContaining("its calls come back to it: a GET /a -> b GET /b -> a GET /a");
	}

	@Test
	void textThatIsNotYamlIsRefusedSayingSo() {
		assertThatExceptionOfType(InvalidTopologyException.class).isThrownBy(() -> TopologyReader.read("name: [x"))
			.withMessageStartingWith("not YAML: ");
	}

	@Test
	void aFileIsNamedInFrontOfTheField() {
		assertThatExceptionOfType(InvalidTopologyException.class)
			.isThrownBy(() -> Topologies.load(writeTemp("name: x\n")))
			.withMessageEndingWith(".yaml: services: required");
	}

	private static String writeTemp(String yaml) throws IOException {
		java.nio.file.Path file = java.nio.file.Files.createTempFile("topology", ".yaml");
		file.toFile().deleteOnExit();
		java.nio.file.Files.writeString(file, yaml);
		return file.toString();
	}

	private static String sockShop() throws IOException {
		return new String(TopologyReaderTests.class.getResourceAsStream("/topologies/sock-shop.yaml").readAllBytes(),
				StandardCharsets.UTF_8);
	}

	private static String unescape(String text) {
		return text.replace("\\n", "\n");
	}

}
