package io.pathfence.learning;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.micrometer.core.instrument.MeterRegistry;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The zero-configuration promise on a real Tomcat: no path is configured, one downstream
 * stalls, and with {@code pathfence.discovery.mode=enforce} the routes that never call it
 * keep answering at once, because the routes calling it were learned onto a path of their
 * own. The control is the same service with discovery off, in the same run: all its
 * routes share the local reservation, and the same assertion fails for it.
 */
class DiscoveryIsolationTests {

	private static final long STALL_MILLIS = 1500;

	/** Requests flooding the stalled route: more than the pool has permits. */
	private static final int STALLED_REQUESTS = 24;

	/** The bound a fast route's answer must keep while the other downstream stalls. */
	private static final Duration FAST_BOUND = Duration.ofMillis(300);

	@RegisterExtension
	static final Downstream stalling = Downstream.forTestClass();

	@RegisterExtension
	static final Downstream fast = Downstream.forTestClass();

	private final HttpClient client = HttpClient.newHttpClient();

	@Test
	void enforceIsolatesAStalledDownstreamsRoutesWhileDiscoveryOffDoesNot() throws Exception {
		List<Answer> enforced;
		try (ConfigurableApplicationContext service = start("enforce")) {
			enforced = fastAnswersDuringStall(service);
			PathFence fence = service.getBean(PathFence.class);
			String reports = PathNamesOf.one(stalling);
			String quotes = PathNamesOf.one(fast);
			assertThat(fence.pathNames()).containsExactlyInAnyOrder(reports, quotes, PathFence.LOCAL);
			MeterRegistry registry = service.getBean(MeterRegistry.class);
			assertThat(registry.find("pathfence.path.permits").tag("path", reports).gauge()).isNotNull();
			assertThat(registry.find("pathfence.path.granted").tag("path", quotes).functionCounter()).isNotNull();
			assertThat(registry.find("pathfence.tuning.recommended").tag("path", quotes).gauge()).isNotNull();
		}
		List<Answer> off;
		try (ConfigurableApplicationContext service = start("off")) {
			off = fastAnswersDuringStall(service);
		}
		System.out.printf("enforce: %s%noff:     %s%n", enforced, off);
		assertThat(keptTheirLatency(enforced)).as("fast route's answers with discovery enforced: %s", enforced)
			.isTrue();
		// The control: the same assertion fails for the same service without discovery.
		assertThat(keptTheirLatency(off)).as("fast route's answers with discovery off: %s", off).isFalse();
	}

	private static boolean keptTheirLatency(List<Answer> answers) {
		return answers.stream().allMatch((answer) -> answer.status() == 200 && answer.took().compareTo(FAST_BOUND) < 0);
	}

	/**
	 * Teaches the service its routes while both downstreams answer, then stalls one,
	 * floods its route, and times answers of the other route meanwhile.
	 */
	private List<Answer> fastAnswersDuringStall(ConfigurableApplicationContext service) throws Exception {
		String base = "http://127.0.0.1:" + service.getEnvironment().getProperty("local.server.port");
		stalling.stall(0);
		for (int i = 0; i < 3; i++) {
			call(base + "/reports/" + i);
			call(base + "/quotes/" + i);
		}
		if (service.getBeansOfType(LearnedPaths.class).size() == 1) {
			LearnedPaths learned = service.getBean(LearnedPaths.class);
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> learned.pathOf("GET", "/reports/{id}") != null
						&& learned.pathOf("GET", "/quotes/{id}") != null);
		}
		stalling.stall(STALL_MILLIS);
		List<CompletableFuture<HttpResponse<Void>>> flood = new ArrayList<>();
		for (int i = 0; i < STALLED_REQUESTS; i++) {
			flood.add(this.client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/reports/" + i)).build(),
					HttpResponse.BodyHandlers.discarding()));
		}
		// Let the flood reach the service and take what it can.
		Thread.sleep(200);
		List<Answer> answers = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			long started = System.nanoTime();
			HttpResponse<Void> response = this.client.send(
					HttpRequest.newBuilder(URI.create(base + "/quotes/" + i)).build(),
					HttpResponse.BodyHandlers.discarding());
			answers.add(new Answer(response.statusCode(), Duration.ofNanos(System.nanoTime() - started)));
		}
		CompletableFuture.allOf(flood.toArray(new CompletableFuture<?>[0])).join();
		stalling.stall(0);
		return answers;
	}

	private void call(String url) throws Exception {
		HttpResponse<Void> response = this.client.send(HttpRequest.newBuilder(URI.create(url)).build(),
				HttpResponse.BodyHandlers.discarding());
		assertThat(response.statusCode()).as(url).isEqualTo(200);
	}

	private static ConfigurableApplicationContext start(String mode) {
		return new SpringApplicationBuilder(DiscoveryIsolationApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "stalling=" + stalling.baseUrl(),
					"fast=" + fast.baseUrl(), "server.tomcat.threads.max=48", "pathfence.pool-size=8",
					"pathfence.discovery.mode=" + mode, "pathfence.discovery.confirmations=2",
					"pathfence.discovery.permits=2", "spring.main.banner-mode=off", "logging.level.root=warn")
			.run();
	}

	/**
	 * One answer of the fast route.
	 *
	 * @param status its HTTP status
	 * @param took how long it took
	 */
	record Answer(int status, Duration took) {

		@Override
		public String toString() {
			return this.status + " in " + this.took.toMillis() + " ms";
		}

	}

	/** The name a path learned for one downstream gets. */
	private static final class PathNamesOf {

		static String one(Downstream downstream) {
			return io.pathfence.discovery.PathNames.pathName(java.util.Set.of(downstream.hostAndPort()));
		}

	}

}
