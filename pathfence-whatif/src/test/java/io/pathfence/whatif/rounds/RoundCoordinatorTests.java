package io.pathfence.whatif.rounds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.pathfence.whatif.CallProfile;
import io.pathfence.whatif.Optimization;
import io.pathfence.whatif.SlowdownPlan;
import io.pathfence.whatif.agent.PauseResult;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's bookkeeping with pausers that only record: which round pays what. The
 * same coordinator against real agents is in {@code RoundCoordinatorAgentTests}.
 */
class RoundCoordinatorTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	// d = 0.5 ms, q_t = 1, c_t = 1: a pays 0.5 ms per call (c = 1), b 0.25 ms (c = 2).
	private final SlowdownPlan plan = SlowdownPlan.of(profile(), new Optimization("t", 0.5, Duration.ofMillis(1), 1),
			20);

	/** In this order, the order of the report. */
	private static CallProfile profile() {
		Map<String, Integer> calls = new LinkedHashMap<>();
		calls.put("t", 1);
		calls.put("a", 1);
		calls.put("b", 2);
		return CallProfile.of(calls);
	}

	record Paid(String service, long round, long nanos) {
	}

	private final List<Paid> paid = new CopyOnWriteArrayList<>();

	private Pauser recording(String service) {
		return (round, nanos) -> {
			this.paid.add(new Paid(service, round, nanos));
			return new PauseResult(round, nanos, nanos, nanos, 0, 0);
		};
	}

	@Test
	void eachRoundPaysEveryServiceItsDebtOnce() throws Exception {
		try (RoundCoordinator coordinator = RoundCoordinator.start(this.plan,
				Map.of("a", recording("a"), "b", recording("b")), Map.of(), 100)) {
			assertThat(coordinator.targetServed(119)).isZero();
			assertThat(coordinator.targetServed(120)).isEqualTo(1);
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();
			assertThat(coordinator.targetServed(150)).isEqualTo(2);
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();

			// Round 1: 20 target calls; a served 20 (0.5 ms each), b 40 (0.25 ms each).
			// Round 2: 30 target calls since, the jump past 140 included.
			assertThat(this.paid).containsExactlyInAnyOrder(new Paid("a", 1, 10_000_000), new Paid("b", 1, 10_000_000),
					new Paid("a", 2, 15_000_000), new Paid("b", 2, 15_000_000));
			assertThat(coordinator.rounds()).isEqualTo(2);
			assertThat(coordinator.report())
				.extracting(ServicePauses::service, ServicePauses::roundsPaid, ServicePauses::requestedNanos)
				.containsExactly(tuple("a", 2L, 25_000_000L), tuple("b", 2L, 25_000_000L));
		}
	}

	@Test
	void aServiceThatCountsItsCallsIsChargedForThoseItServed() throws Exception {
		AtomicLong bServed = new AtomicLong(1000);
		Map<String, LongSupplier> counters = Map.of("b", bServed::get);
		try (RoundCoordinator coordinator = RoundCoordinator.start(this.plan,
				Map.of("a", recording("a"), "b", recording("b")), counters, 0)) {
			// b served 10 calls, not the 40 its ratio expects: it owes 2.5 ms.
			bServed.addAndGet(10);
			coordinator.targetServed(20);
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();
			assertThat(this.paid).contains(new Paid("b", 1, 2_500_000), new Paid("a", 1, 10_000_000));
		}
	}

	@Test
	void aServiceStillPausedSkipsTheRoundAndPaysItsDebtAtTheNext() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Pauser slow = (round, nanos) -> {
			this.paid.add(new Paid("a", round, nanos));
			if (round == 1) {
				await(release);
			}
			return new PauseResult(round, nanos, nanos, nanos, 0, 0);
		};
		try (RoundCoordinator coordinator = RoundCoordinator.start(this.plan, Map.of("a", slow, "b", recording("b")),
				Map.of(), 0)) {
			coordinator.targetServed(20);
			coordinator.targetServed(40);
			release.countDown();
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();
			coordinator.targetServed(60);
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();

			// a: round 1 (10 ms), round 2 skipped, round 3 pays rounds 2 and 3 (20 ms).
			assertThat(this.paid).filteredOn((p) -> p.service().equals("a"))
				.containsExactly(new Paid("a", 1, 10_000_000), new Paid("a", 3, 20_000_000));
			ServicePauses a = coordinator.report().get(0);
			assertThat(a.roundsPaid()).isEqualTo(2);
			assertThat(a.roundsSkipped()).isEqualTo(1);
			assertThat(a.requestedNanos()).isEqualTo(30_000_000);
			// b may or may not still be paying round 1 when round 2 starts: either way
			// it is asked for all it owes.
			ServicePauses b = coordinator.report().get(1);
			assertThat(b.roundsPaid() + b.roundsSkipped()).isEqualTo(3);
			assertThat(b.requestedNanos()).isEqualTo(30_000_000);
		}
	}

	@Test
	void aFailedPauseIsReportedAndTheNextRoundGoesOn() throws Exception {
		Pauser failing = (round, nanos) -> {
			if (round == 1) {
				throw new IOException("connection refused");
			}
			return new PauseResult(round, nanos, nanos, nanos, 0, 0);
		};
		try (RoundCoordinator coordinator = RoundCoordinator.start(this.plan, Map.of("a", failing, "b", recording("b")),
				Map.of(), 0)) {
			coordinator.targetServed(20);
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();
			coordinator.targetServed(40);
			assertThat(coordinator.awaitIdle(WAIT)).isTrue();
			ServicePauses a = coordinator.report().get(0);
			assertThat(a.failures()).isEqualTo(1);
			assertThat(a.lastFailure()).isEqualTo("round 1: connection refused");
			assertThat(a.roundsPaid()).isEqualTo(1);
		}
	}

	@Test
	void aPausedServiceWithoutAnAgentIsRefusedByName() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RoundCoordinator.start(this.plan, Map.of("a", recording("a")), Map.of(), 0))
			.withMessage("service 'b' is paused by the plan but has no pause agent (agents: [a])");
	}

	private static void await(CountDownLatch latch) throws IOException {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException(ex);
		}
	}

}
