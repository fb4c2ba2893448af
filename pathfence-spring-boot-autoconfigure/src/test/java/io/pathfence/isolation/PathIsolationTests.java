package io.pathfence.isolation;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.testsupport.load.JdkHttpSender;
import io.pathfence.testsupport.load.OpenLoopLoad;
import io.pathfence.testsupport.load.OpenLoopLoad.Stream;
import io.pathfence.testsupport.load.PathResult;
import io.pathfence.testsupport.load.PathResults;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The product's promise on a real Tomcat: path A's downstream stalls, and under open-loop
 * load on both paths path B keeps its latency with PathFence and loses it without. The
 * control (PathFence disabled) runs the same scenario in the same class and must break
 * the same bound, which proves the bound can fail.
 */
class PathIsolationTests {

	private static final Duration STALL = Duration.ofMillis(600);

	/**
	 * The bound on path B's p99 that PathFence must keep and the unfenced service must
	 * break: half the stall, so a B request that ever waited for a stalled A request's
	 * thread breaks it.
	 */
	private static final Duration B_P99_BOUND = STALL.dividedBy(2);

	/**
	 * A queue-full rejection is a decision, not a wait: it must come back within this.
	 */
	private static final Duration QUEUE_FULL_P99_BOUND = Duration.ofMillis(100);

	private static StallingDownstream downstream;

	@BeforeAll
	static void startDownstream() throws Exception {
		downstream = new StallingDownstream(STALL.toMillis());
	}

	@AfterAll
	static void stopDownstream() {
		downstream.close();
	}

	@Test
	void stalledPathCannotTakeTheOtherPathsThreadsAndItsOverflowIsRejectedFast() throws Exception {
		Map<String, PathResult> fenced;
		try (ConfigurableApplicationContext service = start(true)) {
			fenced = load(service);
			PathFence fence = service.getBean(PathFence.class);
			// Every permit comes back once the last stalled call returns: nothing leaks,
			// nothing stays queued.
			Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				for (PathFigures figures : fence.figures()) {
					assertThat(figures.active()).as("active of %s", figures.path()).isZero();
					assertThat(figures.queued()).as("queued of %s", figures.path()).isZero();
				}
			});
		}
		Map<String, PathResult> unfenced;
		try (ConfigurableApplicationContext service = start(false)) {
			unfenced = load(service);
		}
		System.out.printf("fenced:   A %s%n          B %s%n", fenced.get("a"), fenced.get("b"));
		System.out.printf("unfenced: A %s%n          B %s%n", unfenced.get("a"), unfenced.get("b"));

		PathResult b = fenced.get("b");
		assertThat(b.failed()).isZero();
		assertThat(b.rejected()).as("path B rejections").isZero();
		assertThat(b.okPercentile(99)).as("path B p99 with PathFence").isLessThan(B_P99_BOUND);
		PathResult a = fenced.get("a");
		assertThat(a.rejected("queue-full")).as("path A overflow answered 503").isPositive();
		assertThat(a.rejectedPercentile("queue-full", 99)).as("p99 of path A's queue-full 503s")
			.isLessThan(QUEUE_FULL_P99_BOUND);
		assertThat(a.ok()).as("path A still served on its reservation").isPositive();
		assertThat(a.failed()).isZero();

		// The control: the same load on the same service without PathFence.
		assertThat(unfenced.get("b").okPercentile(99)).as("path B p99 without PathFence").isGreaterThan(B_P99_BOUND);
	}

	private static Map<String, PathResult> load(ConfigurableApplicationContext service) throws Exception {
		String base = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
		warmUp(base);
		List<Stream> streams = List.of(Stream.get("a", URI.create(base + "/a"), 80),
				Stream.get("b", URI.create(base + "/b"), 40));
		PathResults results = new PathResults(streams);
		try (JdkHttpSender sender = new JdkHttpSender(Duration.ofSeconds(5), Duration.ofSeconds(20))) {
			new OpenLoopLoad(sender).run(streams, Duration.ofSeconds(3), 0, Duration.ofSeconds(15), results);
		}
		return results.byPath();
	}

	/**
	 * First requests pay for class loading and JIT; keep that out of what is measured.
	 */
	private static void warmUp(String base) throws Exception {
		java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
		for (int i = 0; i < 50; i++) {
			client.send(java.net.http.HttpRequest.newBuilder(URI.create(base + "/b")).build(),
					java.net.http.HttpResponse.BodyHandlers.discarding());
		}
		client.send(java.net.http.HttpRequest.newBuilder(URI.create(base + "/a")).build(),
				java.net.http.HttpResponse.BodyHandlers.discarding());
	}

	private static ConfigurableApplicationContext start(boolean pathFence) {
		return new SpringApplicationBuilder(SharedServiceApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "downstream=" + downstream.baseUrl(),
					"server.tomcat.threads.max=16", "server.tomcat.threads.min-spare=16",
					"pathfence.enabled=" + pathFence, "pathfence.pool-size=16", "pathfence.paths.a.permits=6",
					"pathfence.paths.a.routes=/a/**", "pathfence.paths.a.max-queue=6",
					"pathfence.paths.a.queue-timeout=200ms", "pathfence.paths.b.permits=6",
					"pathfence.paths.b.routes=/b/**", "spring.main.banner-mode=off",
					"spring.mvc.servlet.load-on-startup=1", "logging.level.root=warn")
			.run();
	}

}
