package io.pathfence.learning;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFenceListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Placing a route on a new path runs the fence's listeners (through
 * {@link PathFence#addPath}); that happens on discovery's own thread, so a slow listener
 * delays neither the request that confirmed the route nor the endpoint's report.
 */
class DiscoveryApplierTests {

	@Test
	void aSlowListenerDelaysNeitherTheConfirmingRequestNorTheReport() throws Exception {
		PathFence fence = PathFence.builder(20).build();
		CountDownLatch listenerEntered = new CountDownLatch(1);
		CountDownLatch letListenerGo = new CountDownLatch(1);
		fence.addListener(new PathFenceListener() {
			@Override
			public void onPathAdded(String path, int permits) {
				listenerEntered.countDown();
				try {
					letListenerGo.await(20, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		});
		try (LearnedPaths learned = new LearnedPaths(fence, true,
				new LearnedPaths.Settings(16, 256, 16, 1, 2, 7, Duration.ZERO, 1, Duration.ofMinutes(10)))) {
			try {
				CompletableFuture.runAsync(() -> learned.served("GET", "/orders", Map.of("payment", 1)))
					.get(2, TimeUnit.SECONDS);
				assertThat(listenerEntered.await(5, TimeUnit.SECONDS)).as("the path is being added").isTrue();
				// The listener holds discovery's applier now: requests and the endpoint
				// go on.
				CompletableFuture.runAsync(() -> learned.served("GET", "/carts", Map.of("shipping", 1)))
					.get(2, TimeUnit.SECONDS);
				LearnedPaths.Report report = CompletableFuture.supplyAsync(learned::report).get(2, TimeUnit.SECONDS);
				assertThat(report.routes()).hasSize(2);
			}
			finally {
				letListenerGo.countDown();
			}
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> "shipping".equals(learned.pathOf("GET", "/carts")));
			assertThat(learned.pathOf("GET", "/orders")).isEqualTo("payment");
		}
	}

}
