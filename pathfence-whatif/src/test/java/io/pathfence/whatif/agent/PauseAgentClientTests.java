package io.pathfence.whatif.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIOException;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client against the real agent binary running {@code sleep}.
 */
class PauseAgentClientTests {

	private static final long MS = 1_000_000;

	private PauseAgentProcess agent;

	@BeforeEach
	void startAgent() throws IOException {
		this.agent = PauseAgentProcess.start(AgentBinary.path(), List.of("--max-pause-ms", "2000"),
				List.of("sleep", "120"), new ProcessBuilder().inheritIO(), Duration.ofSeconds(10));
	}

	@AfterEach
	void stopAgent() {
		this.agent.close();
	}

	@Test
	void aPauseStopsTheServiceAndReportsItsLengthOnceItRunsAgain() throws Exception {
		try (PauseAgentClient client = this.agent.connect()) {
			CompletableFuture<PauseResult> pausing = CompletableFuture.supplyAsync(() -> {
				try {
					return client.pause(1, 300 * MS);
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			});
			Thread.sleep(100);
			assertThat(AgentBinary.processState(this.agent.childPid())).isEqualTo('T');
			PauseResult result = pausing.get(5, TimeUnit.SECONDS);
			assertThat(AgentBinary.processState(this.agent.childPid())).isNotEqualTo('T');

			assertThat(result.round()).isEqualTo(1);
			assertThat(result.requestedNanos()).isEqualTo(300 * MS);
			assertThat(result.targetNanos()).isEqualTo(300 * MS);
			assertThat(result.stoppedNanos()).isBetween(300 * MS, 350 * MS);
			assertThat(result.oversleepNanos()).isEqualTo(result.stoppedNanos() - 300 * MS);
			// On Linux the agent's clock is System.nanoTime()'s.
			assertThat(System.nanoTime() - result.atNanos()).isBetween(300 * MS, 5_000 * MS);

			AgentStats stats = client.stats();
			assertThat(stats.childPid()).isEqualTo(this.agent.childPid());
			assertThat(stats.pauses()).isEqualTo(1);
			assertThat(stats.lastRound()).isEqualTo(1);
			assertThat(stats.stoppedNanos()).isEqualTo(result.stoppedNanos());
		}
	}

	@Test
	void refusalsCarryTheAgentsReason() throws Exception {
		try (PauseAgentClient client = this.agent.connect()) {
			client.pause(3, 0);
			assertThatExceptionOfType(PauseAgentException.class).isThrownBy(() -> client.pause(3, 0))
				.withMessage("stale round: round=3 last_round=3");
			assertThatExceptionOfType(PauseAgentException.class).isThrownBy(() -> client.pause(4, 3_000 * MS))
				.withMessage("a pause of 3000000000 ns is longer than the limit of 2000000000 ns (--max-pause-ms)");
			assertThatExceptionOfType(PauseAgentException.class).isThrownBy(() -> client.pause(0, 0))
				.withMessage("round must be at least 1");
			// Refusals leave the connection usable.
			assertThat(client.pause(4, 0).round()).isEqualTo(4);
		}
	}

	@Test
	void noAgentOnThePortIsAClearError() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		assertThatIOException().isThrownBy(() -> PauseAgentClient.connect(port))
			.withMessageStartingWith("cannot reach the pause agent at");
	}

	@Test
	void closingTheProcessMidPauseContinuesAndEndsTheService() throws Exception {
		long child = this.agent.childPid();
		PauseAgentClient client = this.agent.connect();
		CompletableFuture.runAsync(() -> {
			try {
				client.pause(1, 1_500 * MS);
			}
			catch (IOException ex) {
				// The agent ends the pause early and exits: expected.
			}
		});
		Thread.sleep(150);
		assertThat(AgentBinary.processState(child)).isEqualTo('T');
		long closing = System.nanoTime();
		this.agent.close();
		// sleep(1) dies of the SIGTERM passed on once continued; the agent exits with 128
		// + 15.
		assertThat(ProcessHandle.of(child)).isEmpty();
		assertThat(this.agent.process().exitValue()).isEqualTo(128 + 15);
		assertThat(System.nanoTime() - closing).isLessThan(1_000 * MS);
		client.close();
	}

	@Test
	void closingTheClientMidPauseContinuesTheService() throws Exception {
		long child = this.agent.childPid();
		PauseAgentClient client = this.agent.connect();
		CompletableFuture<Void> pausing = CompletableFuture.runAsync(() -> {
			try {
				client.pause(1, 1_800 * MS);
			}
			catch (IOException ex) {
				// The connection is closed under it: expected.
			}
		});
		Thread.sleep(150);
		assertThat(AgentBinary.processState(child)).isEqualTo('T');
		long closing = System.nanoTime();
		client.close();
		while (AgentBinary.processState(child) == 'T' && System.nanoTime() - closing < 1_000 * MS) {
			Thread.sleep(2);
		}
		// Well before the pause's end: the agent saw its requester go.
		assertThat(AgentBinary.processState(child)).isNotEqualTo('T');
		assertThat(System.nanoTime() - closing).isLessThan(500 * MS);
		pausing.get(5, TimeUnit.SECONDS);
		// The service still runs under the agent, and owes nothing for the rest.
		try (PauseAgentClient next = this.agent.connect()) {
			AgentStats stats = next.stats();
			assertThat(stats.pauses()).isEqualTo(1);
			assertThat(stats.oversleepNanos()).isZero();
			assertThat(stats.stoppedNanos()).isLessThan(1_000 * MS);
		}
	}

	@Test
	void anAgentThatCannotStartSaysSo() {
		assertThatIOException()
			.isThrownBy(() -> PauseAgentProcess.start(AgentBinary.path(), List.of(), List.of("/nonexistent/service"),
					new ProcessBuilder().redirectError(ProcessBuilder.Redirect.DISCARD), Duration.ofSeconds(10)))
			.withMessageContaining("exited with status 127");
	}

}
