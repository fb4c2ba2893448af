package io.pathfence.learning;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.pathfence.discovery.Route;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads serving one route at once, most requests counted without the route's lock
 * and some moving it: nothing counted is lost, the caps hold, and the set the route ends
 * on is the one its last requests confirmed.
 */
class RouteStateStressTests {

	private static final int THREADS = 8;

	private static final int REQUESTS_PER_THREAD = 50_000;

	private static final Map<String, Integer> SETTLED = Map.of("payment", 1);

	private static final Map<String, Integer> ODD = Map.of("payment", 2, "shipping", 1);

	@Test
	void everyRequestAndCallIsCountedWhileOddRequestsComeAndGo() throws Exception {
		RouteState state = new RouteState(Route.of("GET", "/orders/{id}"));
		AtomicLong clock = new AtomicLong();
		for (int i = 0; i < 2; i++) {
			state.served(SETTLED, 2, 16, clock.incrementAndGet());
		}
		assertThat(state.confirmed()).containsExactly("payment");
		long[] odd = run(THREADS, (thread, i) -> {
			boolean isOdd = (i % 97) == thread;
			state.served(isOdd ? ODD : SETTLED, 2, 16, clock.incrementAndGet());
			return isOdd ? 1 : 0;
		});
		long oddRequests = odd[0];
		long all = THREADS * (long) REQUESTS_PER_THREAD + 2;
		RouteState.Snapshot snapshot = state.snapshot();
		assertThat(snapshot.requests()).isEqualTo(all);
		assertThat(snapshot.calls()).containsEntry("payment", all + oddRequests).containsEntry("shipping", oddRequests);
		// Whatever the interleaving made of the odd requests, two in a row settle it.
		state.served(ODD, 2, 16, clock.incrementAndGet());
		state.served(ODD, 2, 16, clock.incrementAndGet());
		assertThat(state.confirmed()).containsExactly("payment", "shipping");
		assertThat(state.snapshot().pending()).isNull();
		assertThat(state.lastServedNanos()).isGreaterThan(0);
	}

	@Test
	void aRouteCallingTooManyDownstreamsOverflowsWithinTheCapAndKeepsCounting() throws Exception {
		RouteState state = new RouteState(Route.of("GET", "/search"));
		List<Map<String, Integer>> sets = new ArrayList<>();
		for (int d = 0; d < 40; d++) {
			sets.add(Map.of("downstream-" + d, 1));
		}
		run(THREADS, (thread, i) -> {
			state.served(sets.get((thread * 7 + i) % sets.size()), 1, 16, i);
			return 0;
		});
		RouteState.Snapshot snapshot = state.snapshot();
		assertThat(snapshot.overflowed()).isTrue();
		assertThat(snapshot.calls()).hasSizeLessThanOrEqualTo(16);
		assertThat(snapshot.confirmed()).isNull();
		assertThat(snapshot.requests()).isEqualTo(THREADS * (long) REQUESTS_PER_THREAD);
	}

	@Test
	void aForgottenSetIsConfirmedAgainWhileRequestsRaceTheForgetting() throws Exception {
		RouteState state = new RouteState(Route.of("GET", "/orders/{id}"));
		state.served(SETTLED, 1, 16, 1);
		CountDownLatch started = new CountDownLatch(1);
		ExecutorService forgetter = Executors.newSingleThreadExecutor();
		try {
			Future<?> forgetting = forgetter.submit(() -> {
				started.await();
				for (int i = 0; i < 1000; i++) {
					state.forget(new TreeSet<>(SETTLED.keySet()));
					Thread.onSpinWait();
				}
				return null;
			});
			run(THREADS, (thread, i) -> {
				if (i == 0) {
					started.countDown();
				}
				state.served(SETTLED, 1, 16, i);
				return 0;
			});
			forgetting.get();
		}
		finally {
			forgetter.shutdownNow();
		}
		state.served(SETTLED, 1, 16, 2);
		assertThat(state.confirmed()).containsExactly("payment");
		assertThat(state.snapshot().requests()).isEqualTo(THREADS * (long) REQUESTS_PER_THREAD + 2);
	}

	/**
	 * Runs {@code request} on each thread for each of its requests; sums what it returns.
	 */
	private static long[] run(int threads, Request request) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		CountDownLatch go = new CountDownLatch(1);
		try {
			List<Future<Long>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				results.add(pool.submit(() -> {
					go.await();
					long sum = 0;
					for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
						sum += request.serve(thread, i);
					}
					return sum;
				}));
			}
			go.countDown();
			long sum = 0;
			for (Future<Long> result : results) {
				sum += result.get();
			}
			return new long[] { sum };
		}
		finally {
			pool.shutdownNow();
		}
	}

	@FunctionalInterface
	private interface Request {

		long serve(int thread, int i);

	}

}
