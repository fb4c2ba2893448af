package io.pathfence.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pathfence.testcontainers.DockerTestSupport;
import io.pathfence.testcontainers.PathFenceContainer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.lifecycle.Startables;

/**
 * The containers the scenarios share, started once per test run: a stalling shipping and
 * a fast user service, the orders service that calls them twice over (fenced by the
 * starter, and unfenced), and two Envoys in front of the unfenced orders (with the
 * PathFence filter, and without it for the controls).
 */
final class Topology implements AutoCloseable {

	/**
	 * How long shipping stalls every call: long enough that the isolation bound (half of
	 * it) lies far from both a fenced user path on a busy machine and an unfenced one.
	 */
	static final Duration SHIPPING_STALL = Duration.ofSeconds(4);

	/**
	 * The filter's fence for the orders service: the same split of its 8 threads as the
	 * starter's (4 + 3 + 1).
	 */
	static final String ORDERS_FENCE = """
			{"paths": [
			  {"name": "orders", "match": {"prefix": "/orders"}, "max_concurrency": 4, "max_queue": 4,
			   "queue_timeout_ms": 300},
			  {"name": "user", "match": {"prefix": "/user"}, "max_concurrency": 3, "max_queue": 40,
			   "queue_timeout_ms": 2000}],
			 "local": {"max_concurrency": 1}}""";

	private static final Pattern FIGURE = Pattern
		.compile("\"path\":\"([^\"]+)\".*?\"active\":(\\d+),\"queued\":(\\d+)");

	private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private static ImageFromDockerfile servicesImage;

	final Network network = Network.newNetwork();

	final GenericContainer<?> shipping = downstream("shipping", SHIPPING_STALL);

	final GenericContainer<?> user = downstream("user", Duration.ZERO);

	final GenericContainer<?> ordersFenced = orders(true);

	final GenericContainer<?> ordersUnfenced = orders(false);

	final PathFenceContainer envoyFenced = new PathFenceContainer(DockerTestSupport.envoyImage())
		.withTarget(this.ordersUnfenced, 8080)
		.withPathFenceConfig(ORDERS_FENCE);

	final PathFenceContainer envoyPlain = new PathFenceContainer(DockerTestSupport.envoyImage())
		.withTarget(this.ordersUnfenced, 8080)
		.withoutFilter();

	/**
	 * Starts every container, in parallel where they do not depend on each other. When
	 * one fails, the ones already started are stopped before the failure is rethrown:
	 * nothing else would stop them (Ryuk is off here).
	 */
	Topology start() {
		long begin = System.nanoTime();
		try {
			Startables.deepStart(this.envoyFenced, this.envoyPlain, this.ordersFenced).join();
		}
		catch (RuntimeException ex) {
			try {
				close();
			}
			catch (RuntimeException closing) {
				ex.addSuppressed(closing);
			}
			throw ex;
		}
		Figures.print("topology started in " + Duration.ofNanos(System.nanoTime() - begin).toSeconds() + " s");
		return this;
	}

	/** The image with the services' jar, built once per run. */
	static synchronized ImageFromDockerfile servicesImage() {
		if (servicesImage == null) {
			Path jar = Paths.get(System.getProperty("pathfence.services.jar", "target/services.jar"));
			if (!Files.isRegularFile(jar)) {
				throw new IllegalStateException("no services jar at " + jar + ": run the module's package phase first");
			}
			servicesImage = new ImageFromDockerfile("pathfence/it-services:latest", false)
				.withFileFromPath("services.jar", jar)
				.withDockerfileFromBuilder((dockerfile) -> dockerfile.from(DockerTestSupport.BASE_IMAGE)
					.copy("services.jar", "/app/services.jar")
					.build());
		}
		return servicesImage;
	}

	private GenericContainer<?> downstream(String name, Duration delay) {
		return new GenericContainer<>(servicesImage()).withNetwork(this.network)
			.withNetworkAliases(name)
			.withCommand("java", "-Xmx48m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", "/app/services.jar",
					"--role=downstream", "--delay-ms=" + delay.toMillis())
			.withExposedPorts(8080)
			.waitingFor(Wait.forHttp("/health").forPort(8080));
	}

	private GenericContainer<?> orders(boolean fenced) {
		return new GenericContainer<>(servicesImage()).withNetwork(this.network)
			.withCommand("java", "-Xmx160m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", "/app/services.jar",
					"--role=orders", "--orders.shipping-url=http://shipping:8080", "--orders.user-url=http://user:8080",
					"--pathfence.enabled=" + fenced)
			.withExposedPorts(8080, 8081)
			.dependsOn(this.shipping, this.user)
			.waitingFor(Wait.forHttp("/actuator/health").forPort(8081).withStartupTimeout(Duration.ofMinutes(2)));
	}

	static URI uri(GenericContainer<?> container, int port, String path) {
		return URI.create("http://" + container.getHost() + ":" + container.getMappedPort(port) + path);
	}

	static URI uri(PathFenceContainer envoy, String path) {
		return URI.create(envoy.getProxyUrl() + path);
	}

	/**
	 * Sends {@code count} requests one after another, so the JIT and the connection pools
	 * are warm. A warm-up request that fails (on a starved machine a connect can time
	 * out) is only counted; half must succeed.
	 */
	static void warmUp(URI uri, int count) throws Exception {
		int answered = 0;
		for (int i = 0; i < count; i++) {
			try {
				CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
						HttpResponse.BodyHandlers.discarding());
				answered++;
			}
			catch (IOException ex) {
				System.out.println("  warm-up request to " + uri + " failed: " + ex);
			}
		}
		if (answered * 2 < count) {
			throw new IllegalStateException(
					"only " + answered + " of " + count + " warm-up requests to " + uri + " were answered");
		}
	}

	/**
	 * The starter's reservations now, as {@code path -> [active, queued]}, from its
	 * actuator endpoint.
	 */
	static Map<String, List<Integer>> starterFigures(GenericContainer<?> orders) throws Exception {
		String body = CLIENT.send(
				HttpRequest.newBuilder(uri(orders, 8081, "/actuator/pathfence")).timeout(Duration.ofSeconds(5)).build(),
				HttpResponse.BodyHandlers.ofString())
			.body();
		Map<String, List<Integer>> figures = new java.util.LinkedHashMap<>();
		for (String reservation : body.split("\\},\\{")) {
			Matcher matcher = FIGURE.matcher(reservation);
			if (matcher.find()) {
				figures.put(matcher.group(1),
						List.of(Integer.parseInt(matcher.group(2)), Integer.parseInt(matcher.group(3))));
			}
		}
		return figures;
	}

	/**
	 * Stops every container (one never started is left alone), then removes the network.
	 */
	@Override
	public void close() {
		RuntimeException failure = null;
		for (GenericContainer<?> container : List.of(this.envoyFenced, this.envoyPlain, this.ordersFenced,
				this.ordersUnfenced, this.shipping, this.user)) {
			try {
				container.stop();
			}
			catch (RuntimeException ex) {
				// Stop the others all the same; report the first failure with the rest
				// suppressed.
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		this.network.close();
		if (failure != null) {
			throw failure;
		}
	}

}
