package io.pathfence.testcontainers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's user test, kept in step with it: the same code except the image, which is
 * the locally built {@link LocalEnvoyImage} because no registry is reachable here (the
 * README names the official {@code envoyproxy/envoy} image), and the Docker check this
 * module's tests make first.
 */
class ReadmeExampleTests {

	// The service under test: here a stand-in on the host whose orders wait until the
	// test lets them finish.
	static final CountDownLatch shippingAnswers = new CountDownLatch(1);

	static HttpServer orders;

	static PathFenceContainer envoy;

	@BeforeAll
	static void start() throws IOException {
		DockerTestSupport.requireDocker();
		// Bound to all interfaces: Envoy reaches it through Docker's host gateway.
		orders = HttpServer.create(new InetSocketAddress(0), 0);
		orders.createContext("/orders", (exchange) -> {
			try {
				shippingAnswers.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			exchange.sendResponseHeaders(200, -1);
			exchange.close();
		});
		orders.setExecutor(Executors.newCachedThreadPool());
		orders.start();

		envoy = new PathFenceContainer(DockerTestSupport.envoyImage()).withHostTarget(orders.getAddress().getPort())
			.withPathFenceConfig("""
					{"paths": [{"name": "place-order", "match": {"prefix": "/orders", "method": "POST"},
					            "max_concurrency": 4, "max_queue": 0}]}""");
		envoy.start();
	}

	@AfterAll
	static void stop() {
		shippingAnswers.countDown();
		if (envoy != null) {
			envoy.stop();
		}
		if (orders != null) {
			orders.stop(0);
		}
	}

	@Test
	void whenPlaceOrderIsFullThenTheNextOneGets503NamingThePath() throws Exception {
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		HttpRequest placeOrder = HttpRequest.newBuilder(URI.create(envoy.getProxyUrl() + "/orders"))
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.timeout(Duration.ofSeconds(30))
			.build();

		List<CompletableFuture<HttpResponse<Void>>> held = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			held.add(client.sendAsync(placeOrder, HttpResponse.BodyHandlers.discarding()));
		}
		awaitPathStat("place-order", "active", 4);

		HttpResponse<String> refused = client.send(placeOrder, HttpResponse.BodyHandlers.ofString());
		assertThat(refused.statusCode()).isEqualTo(503);
		assertThat(refused.headers().firstValue("x-pathfence-path")).hasValue("place-order");

		shippingAnswers.countDown();
		for (CompletableFuture<HttpResponse<Void>> order : held) {
			assertThat(order.get().statusCode()).isEqualTo(200);
		}
		awaitPathStat("place-order", "active", 0);
		// The refusing worker hands its count over on its own tick, maybe after the one
		// that released the last slot: poll it too.
		awaitPathStat("place-order", "rejected.queue-full", 1);
	}

	// The filter's stats trail the requests by a few milliseconds: poll, with a deadline.
	static void awaitPathStat(String path, String stat, long expected) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (envoy.getPathStat(path, stat) != expected && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(envoy.getPathStat(path, stat)).as(path + "." + stat).isEqualTo(expected);
	}

}
