package io.pathfence.demo.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import io.pathfence.demo.topology.Tuning;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The event-driven mode's two limits under concurrent use, with requests given up while
 * they wait: the worker pool never lets more computations run than it allows, every one
 * ends, and none is left holding or waiting; the work slots likewise.
 */
class EventDrivenLimitsTests {

	/** Tuning that never decides within a test, so the limit stays as set. */
	private static final Tuning NEVER = new Tuning(Duration.ofMillis(50), Duration.ofSeconds(20), Duration.ofHours(1),
			4, 2);

	@Test
	void theWorkerPoolRunsAtMostItsLimitAtOnceAndEndsWithNothingHeldOrQueued() throws Exception {
		try (WorkerPool pool = new WorkerPool(3, 8, NEVER)) {
			AtomicInteger running = new AtomicInteger();
			AtomicInteger most = new AtomicInteger();
			AtomicInteger done = new AtomicInteger();
			int requests = 300;
			CountDownLatch finished = new CountDownLatch(requests);
			for (int i = 0; i < requests; i++) {
				pool.compute(() -> {
					most.accumulateAndGet(running.incrementAndGet(), Math::max);
					spin(Duration.ofMillis(1));
					running.decrementAndGet();
				}).doFinally((signal) -> finished.countDown()).subscribe((ignored) -> {
				}, (error) -> {
				}, done::incrementAndGet);
			}

			assertThat(finished.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(done.get()).isEqualTo(requests);
			assertThat(most.get()).isBetween(1, 3);
			assertThat(pool.figures().active()).isZero();
			assertThat(pool.figures().queued()).isZero();
		}
	}

	@Test
	void closingThePoolEndsEveryQueuedComputationWithAnError() throws Exception {
		WorkerPool pool = new WorkerPool(1, 4, NEVER);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch first = new CountDownLatch(1);
		pool.compute(() -> {
			first.countDown();
			await(release);
		}).subscribe((ignored) -> {
		}, (error) -> {
		});
		assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
		int queued = 5;
		CountDownLatch failed = new CountDownLatch(queued);
		for (int i = 0; i < queued; i++) {
			pool.compute(() -> {
			}).subscribe((ignored) -> {
			}, (error) -> failed.countDown());
		}
		assertThat(pool.figures().queued()).isEqualTo(queued);

		pool.close();

		assertThat(failed.await(5, TimeUnit.SECONDS)).isTrue();
		release.countDown();
	}

	@Test
	void aComputationThatThrowsAnErrorGivesItsWorkerBack() throws Exception {
		try (WorkerPool pool = new WorkerPool(1, 4, NEVER)) {
			CountDownLatch failed = new CountDownLatch(1);
			pool.compute(() -> {
				throw new AssertionError("a computation that fails hard");
			}).subscribe((ignored) -> {
			}, (error) -> failed.countDown());
			assertThat(failed.await(5, TimeUnit.SECONDS)).isTrue();
			CountDownLatch next = new CountDownLatch(1);
			pool.compute(() -> {
			}).subscribe((ignored) -> {
			}, (error) -> {
			}, next::countDown);
			assertThat(next.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(pool.figures().active()).isZero();
		}
	}

	@Test
	void aComputationGivenUpWhileItWaitsLeavesTheQueueAndNeverRuns() throws Exception {
		try (WorkerPool pool = new WorkerPool(1, 4, NEVER)) {
			CountDownLatch release = new CountDownLatch(1);
			CountDownLatch first = new CountDownLatch(1);
			pool.compute(() -> {
				first.countDown();
				await(release);
			}).subscribe();
			assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
			AtomicInteger ran = new AtomicInteger();
			List<Disposable> waiting = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				waiting.add(pool.compute(ran::incrementAndGet).subscribe());
			}
			assertThat(pool.figures().queued()).isEqualTo(40);
			for (int i = 0; i < 40; i += 2) {
				waiting.get(i).dispose();
			}
			assertThat(pool.figures().queued()).isEqualTo(20);

			release.countDown();

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while ((ran.get() < 20 || pool.figures().active() > 0) && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
			assertThat(ran.get()).isEqualTo(20);
			assertThat(pool.figures().active()).isZero();
			assertThat(pool.figures().queued()).isZero();
		}
	}

	@Test
	void workSlotsAreHeldByAtMostTheirCountAndAllComeBackWhateverIsGivenUp() throws Exception {
		EventDrivenSlots slots = new EventDrivenSlots(2);
		AtomicInteger holding = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		int requests = 200;
		CountDownLatch ended = new CountDownLatch(requests);
		List<Disposable> all = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			// Counted out before its end reaches the slot's clean-up (doFinally would run
			// after it, and count a slot's next holder too early).
			Mono<Long> work = Mono.fromRunnable(() -> most.accumulateAndGet(holding.incrementAndGet(), Math::max))
				.then(Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(1, 4))))
				.doOnTerminate(holding::decrementAndGet)
				.doOnCancel(holding::decrementAndGet);
			all.add(slots.holding(work).doFinally((signal) -> ended.countDown()).subscribe());
		}
		// Give up a third of them at random moments: waiting, or holding their slot.
		for (int i = 0; i < requests; i += 3) {
			Thread.sleep(ThreadLocalRandom.current().nextInt(0, 3));
			all.get(i).dispose();
		}

		assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(most.get()).isBetween(1, 2);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (slots.figures().active() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(slots.figures().active()).as("slots still held").isZero();
		assertThat(slots.figures().queued()).as("requests still waiting").isZero();
	}

	private static void spin(Duration length) {
		long until = System.nanoTime() + length.toNanos();
		while (System.nanoTime() < until) {
			Thread.onSpinWait();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
