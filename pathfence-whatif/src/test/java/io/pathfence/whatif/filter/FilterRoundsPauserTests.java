package io.pathfence.whatif.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIOException;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.pathfence.whatif.agent.PauseResult;

/**
 * The pauser against a real HTTP server that answers as the filter's rounds mode does,
 * with the status each test sets: what it sends, how long it waits, and each refusal
 * turned into a failure that names it. The pauser against the real filter is in the
 * demo's {@code FilterSidecarsTests}.
 */
class FilterRoundsPauserTests {

	private static final long MS = 1_000_000;

	private HttpServer server;

	private final List<String[]> received = new CopyOnWriteArrayList<>();

	private volatile int status = 200;

	private volatile String body;

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.createContext("/.pathfence/round", this::answer);
		this.server.start();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
	}

	private void answer(HttpExchange exchange) throws IOException {
		String round = exchange.getRequestHeaders().getFirst(FilterRoundsPauser.ROUND_HEADER);
		String pause = exchange.getRequestHeaders().getFirst(FilterRoundsPauser.PAUSE_HEADER);
		this.received.add(new String[] { exchange.getRequestMethod(), round, pause,
				exchange.getRequestHeaders().getFirst(FilterRoundsPauser.TOKEN_HEADER) });
		String text = (this.body != null) ? this.body
				: String.format("{\"round\":%s,\"pause_ms\":%s,\"paused_until_ms\":%d}", round, pause,
						System.currentTimeMillis() + Long.parseLong(pause));
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(this.status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	private FilterRoundsPauser pauser(String token) {
		return new FilterRoundsPauser(
				URI.create("http://127.0.0.1:" + this.server.getAddress().getPort() + "/.pathfence/round"), token);
	}

	@Test
	void aRoundIsPostedWithItsPauseInMillisecondsAndReturnsOnceThePauseHasEnded() throws IOException {
		long before = System.nanoTime();
		PauseResult result = pauser("s3").pause(7, 120 * MS);
		long waited = System.nanoTime() - before;

		assertThat(this.received).hasSize(1);
		assertThat(this.received.get(0)).containsExactly("POST", "7", "120", "s3");
		assertThat(waited).isBetween(120 * MS, 1_000 * MS);
		assertThat(result.round()).isEqualTo(7);
		assertThat(result.requestedNanos()).isEqualTo(120 * MS);
		// Until the end the server answered: its clock read after the request was sent.
		assertThat(result.stoppedNanos()).isBetween(120 * MS, 200 * MS);
		assertThat(result.targetNanos()).isEqualTo(120 * MS);
		assertThat(result.atNanos()).isBetween(before, before + waited);
	}

	@Test
	void whatMillisecondsLeaveOverIsCarriedIntoTheNextPause() throws IOException {
		FilterRoundsPauser pauser = pauser(null);
		PauseResult first = pauser.pause(1, 2_400_000);
		PauseResult second = pauser.pause(2, 2_400_000);
		PauseResult third = pauser.pause(3, 2_400_000);

		assertThat(this.received).extracting((request) -> request[2]).containsExactly("2", "3", "2");
		assertThat(this.received.get(0)[3]).isNull();
		assertThat(first.targetNanos() + second.targetNanos() + third.targetNanos()).isEqualTo(7 * MS);
		assertThat(first.oversleepNanos()).isEqualTo(-400_000);
		assertThat(second.oversleepNanos()).isEqualTo(200_000);
		assertThat(third.oversleepNanos()).isEqualTo(-200_000);
	}

	@Test
	void aPauseStillOnFromAnEarlierRoundIsWaitedOut() throws IOException {
		this.body = "{\"round\":2,\"pause_ms\":10,\"paused_until_ms\":" + (System.currentTimeMillis() + 300) + "}";
		long before = System.nanoTime();
		PauseResult result = pauser(null).pause(2, 10 * MS);

		assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(250 * MS);
		assertThat(result.stoppedNanos()).isGreaterThanOrEqualTo(250 * MS);
		assertThat(result.targetNanos()).isEqualTo(10 * MS);
	}

	@Test
	void eachRefusalIsAFailureNamingItsStatusAndTheFiltersReason() {
		this.status = 409;
		this.body = "{\"round\":3,\"last_round\":5,\"detail\":\"round 3 is not newer than round 5, started already\"}";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser(null).pause(3, MS))
			.withMessageContaining("refused round 3 as not newer")
			.withMessageContaining("round 3 is not newer than round 5")
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(409));
		this.status = 400;
		this.body = "{\"detail\":\"header `x-pathfence-pause-ms` must be at most 200\"}";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser(null).pause(4, 300 * MS))
			.withMessageContaining("pause 300 ms")
			.withMessageContaining("max_pause_ms")
			.withMessageContaining("must be at most 200");
		this.status = 403;
		this.body = "{\"detail\":\"header `x-pathfence-token` must carry the rounds' token\"}";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser("wrong").pause(5, MS))
			.withMessageContaining("without the rounds' token (pause.rounds.token)");
		this.status = 503;
		this.body = "{\"detail\":\"the round did not start: cas\"}";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser(null).pause(6, MS))
			.withMessageContaining("could not start round 6: the round did not start: cas");
		this.status = 404;
		this.body = "not found";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser(null).pause(7, MS))
			.withMessageContaining("reached the service")
			.withMessageContaining(": not found");
		this.status = 204;
		this.body = "";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser(null).pause(8, MS))
			.withMessageContaining("answered 204 to round 8, not a started round");
	}

	@Test
	void anAnswerWithoutTheEndOfThePauseIsMalformed() {
		this.body = "{\"round\":1}";
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser(null).pause(1, MS))
			.withMessageContaining("has no paused_until_ms");
	}

	@Test
	void aClosedPauserSendsNoMoreRounds() throws IOException {
		FilterRoundsPauser pauser = pauser(null);
		pauser.pause(1, MS);

		pauser.close();

		assertThatIOException().isThrownBy(() -> pauser.pause(2, MS))
			.withMessageContaining("cannot reach the filter at");
		assertThat(this.received).hasSize(1);
	}

	@Test
	void aFilterNobodyListensForIsNamed() throws IOException {
		int closed;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closed = socket.getLocalPort();
		}
		URI control = URI.create("http://127.0.0.1:" + closed + "/.pathfence/round");
		assertThatIOException().isThrownBy(() -> new FilterRoundsPauser(control, null).pause(1, MS))
			.withMessageContaining("cannot reach the filter at " + control + " for round 1");
	}

}
