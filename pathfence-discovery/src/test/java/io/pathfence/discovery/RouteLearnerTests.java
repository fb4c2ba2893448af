package io.pathfence.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RouteLearnerTests {

	@Test
	void countsRequestsAndCallsPerRouteAndDownstream() {
		RouteLearner learner = new RouteLearner();
		Route orders = Route.of("post", "/orders");
		Route health = Route.of("GET", "/health");
		learner.served(orders);
		learner.called(orders, "payment");
		learner.called(orders, "payment");
		learner.called(orders, "shipping");
		learner.served(orders);
		learner.served(health);
		assertThat(learner.routes()).containsExactly(LearnedRoute.local(health, 1),
				new LearnedRoute(Route.of("POST", "/orders"), 2,
						new java.util.TreeMap<>(java.util.Map.of("payment", 2L, "shipping", 1L))));
		assertThat(learner.size()).isEqualTo(2);
	}

	@Test
	void countsNothingTwiceAndLosesNothingUnderConcurrentRequests() throws Exception {
		RouteLearner learner = new RouteLearner();
		int threads = 4;
		int requests = 20_000;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> done = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			done.add(pool.submit(() -> {
				start.await();
				for (int i = 0; i < requests; i++) {
					Route route = Route.of("GET", "/r" + (i % 5));
					learner.served(route);
					learner.called(route, "d" + (i % 3));
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> f : done) {
			f.get(60, TimeUnit.SECONDS);
		}
		pool.shutdown();
		List<LearnedRoute> routes = learner.routes();
		assertThat(routes).hasSize(5);
		assertThat(routes.stream().mapToLong(LearnedRoute::requests).sum()).isEqualTo((long) threads * requests);
		assertThat(routes.stream().flatMap((r) -> r.calls().values().stream()).mapToLong(Long::longValue).sum())
			.isEqualTo((long) threads * requests);
		assertThat(routes.get(0).requests()).isEqualTo((long) threads * requests / 5);
	}

	@Test
	void aDownstreamNeedsAName() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RouteLearner().called(Route.of("GET", "/"), " "));
	}

	@Test
	void aRouteMethodIsAnHttpMethodName() {
		assertThat(Route.of(null, "/a").method()).isEmpty();
		assertThat(Route.of(" get ", "/a")).hasToString("GET /a");
		assertThatIllegalArgumentException().isThrownBy(() -> Route.of("GET /", "/a"));
		assertThat(Route.of("", "ComposePost").isHttp()).isFalse();
	}

}
