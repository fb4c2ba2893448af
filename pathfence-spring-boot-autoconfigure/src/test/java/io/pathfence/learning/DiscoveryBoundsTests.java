package io.pathfence.learning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;

import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What clients send cannot grow discovery without bound: made-up HTTP methods are not
 * learned, warnings stop at a fixed number, a route's downstreams are capped, and the
 * route cap holds however many threads race for it.
 */
class DiscoveryBoundsTests {

	private final PathFence fence = PathFence.builder(20).build();

	private LearnedPaths learned(int maxRoutes, int maxDownstreams, int confirmations) {
		return new LearnedPaths(this.fence, true, new LearnedPaths.Settings(16, maxRoutes, maxDownstreams,
				confirmations, 2, 7, Duration.ZERO, 1, Duration.ZERO), System::nanoTime, Runnable::run);
	}

	@Test
	void madeUpMethodsAreNotLearnedAndTakeNoRouteSlot() {
		LearnedPaths learned = learned(2, 16, 1);
		for (int i = 0; i < 100; i++) {
			learned.served(madeUpMethod(i), "/any", Map.of("payment", 1));
		}
		learned.served("GET", "/a", Map.of("payment", 1));
		learned.served("POST", "/b", Map.of("shipping", 1));
		assertThat(learned.confirmedSets()).containsOnlyKeys("GET /a", "POST /b");
		LearnedPaths.Report report = learned.report();
		assertThat(report.ignoredMethods()).isEqualTo(100);
		assertThat(report.warnings()).isEmpty();
		assertThat(learned.pathOf("GET", "/a")).isEqualTo("payment");
	}

	@Test
	void warningsStopAtAFixedNumberAndTheRestAreCounted() {
		LearnedPaths learned = learned(1, 16, 1);
		for (int i = 0; i < 1000; i++) {
			learned.served("GET", "/made-up/" + i, Map.of());
		}
		LearnedPaths.Report report = learned.report();
		assertThat(report.routes()).hasSize(1);
		assertThat(report.warnings()).hasSize(LearnedPaths.MAX_WARNINGS);
		assertThat(report.warningsDropped()).isEqualTo(1000 - 1 - LearnedPaths.MAX_WARNINGS);
	}

	@Test
	void aRouteCallingMoreDownstreamsThanTheCapGoesLocalAndStopsGrowing() {
		LearnedPaths learned = learned(16, 3, 1);
		learned.served("GET", "/fetch", Map.of("h1:80", 1));
		assertThat(learned.pathOf("GET", "/fetch")).isEqualTo("h1-80");
		learned.served("GET", "/fetch", Map.of("h2:80", 1));
		learned.served("GET", "/fetch", Map.of("h3:80", 1));
		assertThat(learned.pathOf("GET", "/fetch")).isEqualTo("h3-80");
		for (int i = 4; i < 200; i++) {
			learned.served("GET", "/fetch", Map.of("h" + i + ":80", 1));
		}
		assertThat(learned.pathOf("GET", "/fetch")).isNull();
		LearnedPaths.Report report = learned.report();
		LearnedPaths.RouteReport route = report.routes().get(0);
		assertThat(route.path()).isEqualTo(PathFence.LOCAL);
		assertThat(route.requests()).isEqualTo(199);
		assertThat(route.calls()).hasSize(3);
		assertThat(report.warnings()).singleElement()
			.asString()
			.contains("GET /fetch")
			.contains("pathfence.discovery.max-downstreams-per-route");
		assertThat(report.yaml()).contains("too many distinct downstreams");
	}

	@Test
	void oneRequestRecordsAtMostOneDownstreamMoreThanTheCap() {
		LearnedPaths learned = learned(16, 3, 1);
		LearnedPaths.Calls calls = new LearnedPaths.Calls(learned.maxDownstreamsPerRequest());
		for (int i = 0; i < 100; i++) {
			calls.add("h" + i + ":80");
		}
		calls.add("h0:80");
		assertThat(calls.snapshot()).hasSize(4).containsEntry("h0:80", 2);
		learned.served("GET", "/fetch", calls.snapshot());
		assertThat(learned.report().routes().get(0).calls()).hasSizeLessThanOrEqualTo(3);
		assertThat(learned.pathOf("GET", "/fetch")).isNull();
	}

	@Test
	void theRouteCapHoldsHoweverManyThreadsRaceForIt() throws Exception {
		int threads = 16;
		int maxRoutes = 50;
		for (int attempt = 0; attempt < 20; attempt++) {
			LearnedPaths learned = learned(maxRoutes, 16, 1);
			CyclicBarrier start = new CyclicBarrier(threads);
			List<Thread> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				Thread runner = new Thread(() -> {
					try {
						start.await();
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
					for (int i = 0; i < 20; i++) {
						learned.served("GET", "/t" + thread + "/r" + i, Map.of());
					}
				});
				runner.start();
				running.add(runner);
			}
			for (Thread thread : running) {
				thread.join();
			}
			assertThat(learned.report().routes()).as("routes learned in attempt %d", attempt).hasSize(maxRoutes);
		}
	}

	/** A made-up method of letters only, as a client may send one. */
	private static String madeUpMethod(int i) {
		return "X" + (char) ('A' + i % 26) + (char) ('A' + i / 26);
	}

}
