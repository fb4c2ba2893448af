package io.pathfence.testcontainers;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.MountableFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The container against a real Envoy with the shipped filter, in front of a container
 * target and a host target.
 */
class PathFenceContainerTests {

	private static final String ONE_SLOW_AT_A_TIME = """
			{"paths": [{"name": "slow", "match": {"prefix": "/sleep"}, "max_concurrency": 1, "max_queue": 0}]}""";

	private static final HttpClient CLIENT = HttpClient.newHttpClient();

	private static Network network;

	private static GenericContainer<?> target;

	/**
	 * Per test, so that without Docker each test is reported skipped; the target starts
	 * once.
	 */
	@BeforeEach
	void startTarget() {
		DockerTestSupport.requireDocker();
		if (target != null) {
			return;
		}
		network = Network.newNetwork();
		target = new GenericContainer<>(DockerTestSupport.BASE_IMAGE).withNetwork(network)
			.withCopyToContainer(MountableFile.forClasspathResource("io/pathfence/testcontainers/HelloServer.class"),
					"/app/io/pathfence/testcontainers/HelloServer.class")
			.withCommand("java", "-Xmx32m", "-XX:TieredStopAtLevel=1", "-cp", "/app",
					"io.pathfence.testcontainers.HelloServer", "8080")
			.withExposedPorts(8080)
			.waitingFor(Wait.forHttp("/").forPort(8080));
		target.start();
	}

	@AfterAll
	static void stopTarget() {
		if (target != null) {
			target.stop();
		}
		if (network != null) {
			network.close();
		}
	}

	@Test
	void whenPathIsFullThenEnvoyRefusesWith503NamingThePathAndReleasesTheSlotAfterwards() throws Exception {
		try (PathFenceContainer envoy = new PathFenceContainer(DockerTestSupport.envoyImage()).withTarget(target, 8080)
			.withPathFenceConfig(ONE_SLOW_AT_A_TIME)) {
			envoy.start();

			assertThat(get(envoy, "/hello").body()).isEqualTo("hello /hello");
			CompletableFuture<HttpResponse<String>> holding = CLIENT.sendAsync(request(envoy, "/sleep/1500"),
					HttpResponse.BodyHandlers.ofString());
			awaitStat(envoy, "slow", "active", 1);

			HttpResponse<String> refused = get(envoy, "/sleep/1?x=1");
			assertThat(refused.statusCode()).isEqualTo(503);
			assertThat(refused.headers().firstValue("x-pathfence-path")).hasValue("slow");
			assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
			assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
			assertThat(refused.body()).as("the starter's problem body")
				.isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
						+ "\"detail\":\"The queue of path 'slow' is full.\",\"instance\":\"/sleep/1\",\"path\":\"slow\","
						+ "\"reason\":\"queue-full\"}");
			assertThat(get(envoy, "/hello").statusCode()).as("another path is not fenced by slow").isEqualTo(200);

			assertThat(holding.get().statusCode()).isEqualTo(200);
			awaitStat(envoy, "slow", "active", 0);
			assertThat(envoy.getPathStat("slow", "rejected.queue-full")).isEqualTo(1);
			assertThat(envoy.getPathStat("slow", "rejected")).isEqualTo(1);
			assertThat(envoy.getPathStat("local", "granted")).isEqualTo(2);
			assertThat(envoy.getPrometheusStats()).as("the starter's names, path and reason as labels")
				.contains("pathfence_path_rejected_total{path=\"slow\",reason=\"queue-full\"} 1")
				.contains("pathfence_path_granted_total{path=\"local\"} 2")
				.contains("pathfence_path_active{path=\"slow\"} 0");
			assertThatIllegalArgumentException().isThrownBy(() -> envoy.getPathStat("slow", "admitted"));
		}
	}

	@Test
	void whenConfigurationIsInvalidThenStartFailsWithTheFiltersMessage() {
		try (PathFenceContainer envoy = new PathFenceContainer(DockerTestSupport.envoyImage()).withTarget(target, 8080)
			.withPathFenceConfig("""
					{"paths": [{"name": "slow", "match": {"prefix": "/sleep"}, "max_concurency": 1}]}""")) {
			long started = System.nanoTime();
			assertThatThrownBy(envoy::start).rootCause()
				.hasMessageContaining("invalid pathfence configuration")
				.hasMessageContaining("field `paths[0].max_concurency`");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("refused at once, not after the timeout")
				.isLessThan(Duration.ofSeconds(30));
		}
	}

	@Test
	void whenFilterIsLeftOutThenEnvoyProxiesUnfenced() throws Exception {
		try (PathFenceContainer envoy = new PathFenceContainer(DockerTestSupport.envoyImage()).withTarget(target, 8080)
			.withoutFilter()) {
			envoy.start();

			assertThat(get(envoy, "/sleep/1").statusCode()).isEqualTo(200);
			assertThat(envoy.getPathFenceStats()).isEmpty();
		}
	}

	@Test
	void whenTargetIsAHostPortThenEnvoyReachesItThroughTheHostGateway() throws Exception {
		HttpServer host = HelloServer.start(new InetSocketAddress(0));
		try (PathFenceContainer envoy = new PathFenceContainer(DockerTestSupport.envoyImage())
			.withHostTarget(host.getAddress().getPort())
			.withPathFenceConfig(ONE_SLOW_AT_A_TIME)) {
			envoy.start();

			assertThat(get(envoy, "/from-a-container").body()).isEqualTo("hello /from-a-container");
		}
		finally {
			host.stop(0);
		}
	}

	private static HttpRequest request(PathFenceContainer envoy, String path) {
		return HttpRequest.newBuilder(URI.create(envoy.getProxyUrl() + path)).timeout(Duration.ofSeconds(10)).build();
	}

	private static HttpResponse<String> get(PathFenceContainer envoy, String path) throws Exception {
		return CLIENT.send(request(envoy, path), HttpResponse.BodyHandlers.ofString());
	}

	private static void awaitStat(PathFenceContainer envoy, String path, String stat, long expected)
			throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (envoy.getPathStat(path, stat) != expected && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(envoy.getPathStat(path, stat)).as(path + "." + stat).isEqualTo(expected);
	}

}
