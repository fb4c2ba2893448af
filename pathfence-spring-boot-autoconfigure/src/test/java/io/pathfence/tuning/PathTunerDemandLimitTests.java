package io.pathfence.tuning;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.sct.SctConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A light load reaches a few concurrency levels by chance, and its throughput per level
 * is noisy enough for SCT to place a plateau on them; but the path never waited for a
 * permit, so what flattens its throughput is how little is asked of it, not what it can
 * do. Such a plateau must not lower the reservation, or the next burst queues behind a
 * reservation cut to the quiet time's concurrency. A plateau seen while requests waited
 * for their permits still lowers it.
 */
class PathTunerDemandLimitTests {

	private static final int PERMITS = 6;

	private static final long INTERVAL_NANOS = Duration.ofMillis(50).toNanos();

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final SctConfig config = SctConfig.builder()
		.interval(Duration.ofNanos(INTERVAL_NANOS))
		.window(Duration.ofSeconds(20))
		.build();

	private PathFence fence = newFence();

	private PathTuner tuner = newTuner(this.fence);

	@Test
	void aPlateauOfALoadThatNeverWaitedForAPermitLeavesTheReservation() {
		int windows = 0;
		int lowering = 0;
		for (int seed = 1; seed <= 30; seed++) {
			this.fence = newFence();
			this.tuner = newTuner(this.fence);
			if (lightPoissonLoad(Duration.ofSeconds(20), seed) > 0) {
				// Now and then the load reaches the reservation: not the case here.
				continue;
			}
			windows++;

			TuningDecision decision = this.tuner.decide().get("work");

			if (decision.verdict().equals("PLATEAU") && decision.recommended() < PERMITS) {
				lowering++;
			}
			assertThat(decision.permitsAfter()).as("seed %d: %s", seed, decision.reason()).isEqualTo(PERMITS);
			assertThat(this.fence.figures("work").permits()).isEqualTo(PERMITS);
		}
		assertThat(windows).as("windows in which no request waited for a permit").isGreaterThanOrEqualTo(20);
		assertThat(lowering).as("of those, windows in which SCT placed a plateau below the reservation")
			.isGreaterThan(windows / 2);
	}

	@Test
	void aPlateauSeenWhileRequestsWaitedLowersTheReservation() {
		// One completion per interval whatever the concurrency, so throughput is flat
		// from 2 in flight up to the reservation, where one more request waits.
		flatThroughputFromTwoToTheReservation(10);

		TuningDecision decision = this.tuner.decide().get("work");

		assertThat(decision.verdict()).as(decision.reason()).isEqualTo("PLATEAU");
		assertThat(decision.recommended()).isEqualTo(2);
		assertThat(decision.permitsAfter()).as(decision.reason()).isEqualTo(2);
	}

	/**
	 * Poisson arrivals at 25 per second, each holding its permit for an exponential time
	 * of 45 ms on average whatever else is in service (a service far from saturation), on
	 * the test's clock; returns how many had to wait for a permit.
	 */
	private int lightPoissonLoad(Duration length, long seed) {
		record Departure(long atNanos, Ticket ticket) {
		}
		SplittableRandom random = new SplittableRandom(seed);
		PriorityQueue<Departure> departures = new PriorityQueue<>((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
		Waiter queued = new Waiter() {
			@Override
			public void granted(Ticket ticket) {
				departures.add(new Departure(
						PathTunerDemandLimitTests.this.now.get() + LightLoadSimulation.serviceNanos(random), ticket));
			}

			@Override
			public void expired(Ticket ticket) {
				throw new AssertionError("no queue timeout here");
			}
		};
		int waited = 0;
		long end = this.now.get() + length.toNanos();
		long arrival = this.now.get() + LightLoadSimulation.exponentialNanos(random, 1e9 / 25);
		while (arrival < end) {
			while (!departures.isEmpty() && departures.peek().atNanos() <= arrival) {
				Departure departure = departures.poll();
				this.now.set(departure.atNanos());
				departure.ticket().release();
			}
			this.now.set(arrival);
			Ticket ticket = this.fence.acquire("work", queued);
			if (ticket.admission() == Admission.GRANTED) {
				departures.add(new Departure(arrival + LightLoadSimulation.serviceNanos(random), ticket));
			}
			else {
				waited++;
			}
			arrival += LightLoadSimulation.exponentialNanos(random, 1e9 / 25);
		}
		while (!departures.isEmpty()) {
			Departure departure = departures.poll();
			this.now.set(Math.min(end, departure.atNanos()));
			departure.ticket().release();
		}
		this.now.set(end);
		return waited;
	}

	private PathFence newFence() {
		return LightLoadSimulation.fence(this.now, PERMITS);
	}

	private PathTuner newTuner(PathFence fence) {
		return LightLoadSimulation.tuner(fence, this.config, this.now);
	}

	/**
	 * From 2 requests in service up to the reservation, {@code intervals} intervals at
	 * each level: one request leaves in the middle of each interval and another takes its
	 * permit at once; at the reservation, one more request waits throughout.
	 */
	private void flatThroughputFromTwoToTheReservation(int intervals) {
		Deque<Ticket> inService = new ArrayDeque<>();
		Waiter waiter = new Waiter() {
			@Override
			public void granted(Ticket ticket) {
				inService.add(ticket);
			}

			@Override
			public void expired(Ticket ticket) {
				throw new AssertionError("no queue timeout here");
			}
		};
		this.now.addAndGet(INTERVAL_NANOS / 2);
		for (int level = 2; level <= PERMITS; level++) {
			int wanted = level + ((level == PERMITS) ? 1 : 0);
			for (int held = inService.size(); held < wanted; held++) {
				Ticket ticket = this.fence.acquire("work", waiter);
				if (ticket.admission() == Admission.GRANTED) {
					inService.add(ticket);
				}
			}
			for (int i = 0; i < intervals; i++) {
				this.now.addAndGet(INTERVAL_NANOS);
				inService.removeFirst().release();
				Ticket next = this.fence.acquire("work", waiter);
				if (next.admission() == Admission.GRANTED) {
					inService.add(next);
				}
			}
		}
	}

}
