package io.pathfence.whatif.rounds;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pathfence.whatif.CallProfile;
import io.pathfence.whatif.Optimization;
import io.pathfence.whatif.SlowdownPlan;
import io.pathfence.whatif.agent.AgentBinary;
import io.pathfence.whatif.agent.AgentStats;
import io.pathfence.whatif.agent.PauseAgentClient;
import io.pathfence.whatif.agent.PauseAgentProcess;
import io.pathfence.whatif.agent.PauseResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rounds paid through real agents, each running a real child.
 */
class RoundCoordinatorAgentTests {

	private static final long MS = 1_000_000;

	private final List<PauseAgentProcess> agents = new ArrayList<>();

	private final List<PauseAgentClient> clients = new ArrayList<>();

	@AfterEach
	void stopAgents() throws IOException {
		for (PauseAgentClient client : this.clients) {
			client.close();
		}
		this.agents.forEach(PauseAgentProcess::close);
	}

	private PauseAgentClient agent() throws IOException {
		PauseAgentProcess agent = PauseAgentProcess.start(AgentBinary.path(), List.of(), List.of("sleep", "120"),
				new ProcessBuilder().inheritIO(), Duration.ofSeconds(10));
		this.agents.add(agent);
		PauseAgentClient client = agent.connect();
		this.clients.add(client);
		return client;
	}

	@Test
	void everyRoundPausesEveryServiceOnceForItsDebtAndAllAtOnce() throws Exception {
		// t the target (1 call per request, 1 ms CPU, 1 core) made 50 % faster: d = 0.5
		// ms.
		// a (1 call) owes 0.5 ms a call, b and c (2 calls) 0.25 ms; rounds every 40
		// target
		// calls pay each 20 ms.
		SlowdownPlan plan = SlowdownPlan.of(CallProfile.of(Map.of("t", 1, "a", 1, "b", 2, "c", 2)),
				new Optimization("t", 0.5, Duration.ofMillis(1), 1), 40);
		Map<String, PauseAgentClient> clients = new LinkedHashMap<>();
		for (String service : List.of("a", "b", "c")) {
			clients.put(service, agent());
		}
		List<PauseResult> results = new CopyOnWriteArrayList<>();
		Map<String, Pauser> pausers = new LinkedHashMap<>();
		clients.forEach((service, client) -> pausers.put(service, (round, nanos) -> {
			PauseResult result = client.pause(round, nanos);
			results.add(result);
			return result;
		}));

		try (RoundCoordinator coordinator = RoundCoordinator.start(plan, pausers, Map.of(), 0)) {
			for (long served = 10; served <= 400; served += 10) {
				coordinator.targetServed(served);
				assertThat(coordinator.awaitIdle(Duration.ofSeconds(5))).isTrue();
			}
			assertThat(coordinator.rounds()).isEqualTo(10);
			for (ServicePauses pauses : coordinator.report()) {
				assertThat(pauses.roundsPaid()).as(pauses.service()).isEqualTo(10);
				assertThat(pauses.requestedNanos()).as(pauses.service()).isEqualTo(200 * MS);
				assertThat(pauses.failures()).isZero();
			}
		}

		for (Map.Entry<String, PauseAgentClient> entry : clients.entrySet()) {
			AgentStats stats = entry.getValue().stats();
			assertThat(stats.pauses()).as(entry.getKey()).isEqualTo(10);
			assertThat(stats.lastRound()).as(entry.getKey()).isEqualTo(10);
			assertThat(stats.requestedNanos()).as(entry.getKey()).isEqualTo(200 * MS);
			// Oversleep repaid: the total stopped is the total asked, within a pause's
			// excess.
			assertThat(Math.abs(stats.oversleepNanos())).as(entry.getKey()).isLessThan(2 * MS);
		}
		// Coordinated: in each round the three services were stopped together. One after
		// the other, the first and the last would start two pauses, 40 ms, apart; the
		// bound
		// leaves room for a busy machine's scheduling.
		long widest = 0;
		for (long round = 1; round <= 10; round++) {
			long r = round;
			List<Long> starts = results.stream()
				.filter((result) -> result.round() == r)
				.map(PauseResult::atNanos)
				.toList();
			assertThat(starts).hasSize(3);
			long spread = starts.stream().mapToLong(Long::longValue).max().getAsLong()
					- starts.stream().mapToLong(Long::longValue).min().getAsLong();
			assertThat(spread).as("round %d", round).isLessThan(20 * MS);
			widest = Math.max(widest, spread);
		}
		System.out.printf("three agents, 10 rounds of 20 ms: stops started at most %.3f ms apart%n", widest / 1e6);
	}

}
