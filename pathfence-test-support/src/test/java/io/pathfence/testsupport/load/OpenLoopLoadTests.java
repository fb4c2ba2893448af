package io.pathfence.testsupport.load;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.pathfence.testsupport.load.OpenLoopLoad.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class OpenLoopLoadTests {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

	private LoopbackServer server;

	private JdkHttpSender sender;

	@BeforeEach
	void start() throws Exception {
		this.server = new LoopbackServer();
		this.sender = new JdkHttpSender(Duration.ofSeconds(2), REQUEST_TIMEOUT);
	}

	@AfterEach
	void stop() {
		this.server.close();
		this.sender.close();
	}

	@Test
	void aFixedRateSendsRateTimesLengthRequestsEachDueOnePeriodAfterTheLast() throws Exception {
		PathResult result = run(new OpenLoopLoad(this.sender), Duration.ofSeconds(1),
				Stream.get("a", this.server.uri("/ok"), 50));

		assertThat(result.count()).isEqualTo(50);
		assertThat(result.ok()).isEqualTo(50);
		assertThat(this.server.received()).isEqualTo(50);
		List<Sample> samples = result.samples();
		for (int i = 0; i < samples.size(); i++) {
			assertThat(samples.get(i).due()).isEqualTo(Duration.ofMillis(20L * i));
		}
	}

	@Test
	void aStalledServerDoesNotSlowTheLoadAndEachStallIsTimedFromTheDueTime() throws Exception {
		long started = System.nanoTime();
		PathResult result = run(new OpenLoopLoad(this.sender), Duration.ofSeconds(1),
				Stream.get("a", this.server.uri("/stall"), 20));
		Duration took = Duration.ofNanos(System.nanoTime() - started);

		assertThat(result.ok()).isEqualTo(20);
		assertThat(result.samples()).extracting(Sample::latency)
			.allMatch((latency) -> latency.compareTo(Duration.ofMillis(LoopbackServer.STALL_MILLIS)) >= 0);
		// Sent one after another, 20 stalls would take 6 s.
		assertThat(took).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void a503IsRecordedWithTheReasonAndThePathTheFenceGave() throws Exception {
		PathResult result = run(new OpenLoopLoad(this.sender), Duration.ofMillis(500),
				Stream.get("a", this.server.uri("/reject"), 20));

		assertThat(result.rejected()).isEqualTo(10);
		assertThat(result.rejected("queue-full")).isEqualTo(10);
		assertThat(result.rejected("timeout")).isZero();
		assertThat(result.rejectedByPath()).containsOnly(org.assertj.core.api.Assertions.entry("a", 10));
		assertThat(result.ok()).isZero();
		assertThat(result.failed()).isZero();
	}

	@Test
	void aRefusedConnectionIsRecordedAsNoAnswer() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		PathResult result = run(new OpenLoopLoad(this.sender), Duration.ofMillis(500),
				Stream.get("a", URI.create("http://127.0.0.1:" + closedPort + "/"), 10));

		assertThat(result.failed()).isEqualTo(5);
		assertThat(result.samples()).extracting(Sample::outcome).containsOnly(Outcome.CONNECTION_OR_TIMEOUT);
	}

	@Test
	void aRequestBeyondTheGuardIsNotSentAndCountsAsAFullTimeout() throws Exception {
		this.server.stallFor(2_000);
		PathResult result = run(new OpenLoopLoad(this.sender).withMaxInFlight(2), Duration.ofMillis(500),
				Stream.get("a", this.server.uri("/stall"), 20));

		assertThat(this.server.received()).isEqualTo(2);
		assertThat(result.ok()).isEqualTo(2);
		assertThat(result.failed()).isEqualTo(8);
		assertThat(result.samples()).filteredOn((sample) -> sample.outcome() == Outcome.CONNECTION_OR_TIMEOUT)
			.extracting(Sample::latency)
			.containsOnly(REQUEST_TIMEOUT);
	}

	@Test
	void theDrainIsBoundedAndTellsHowManyAnswersAreStillOut() throws Exception {
		this.server.stallFor(60_000);
		List<Stream> streams = List.of(Stream.get("a", this.server.uri("/stall"), 10));
		long started = System.nanoTime();
		int unanswered = new OpenLoopLoad(this.sender).run(streams, Duration.ofMillis(300), 0, Duration.ofMillis(200),
				new PathResults(streams));

		assertThat(unanswered).isEqualTo(3);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aHostOtherThanLoopbackIsRefusedBeforeAnythingIsSent() {
		List<Stream> streams = List.of(Stream.get("a", this.server.uri("/ok"), 10),
				Stream.get("b", URI.create("http://192.0.2.1:8080/"), 10));

		assertThatIllegalArgumentException()
			.isThrownBy(() -> new OpenLoopLoad(this.sender).run(streams, Duration.ofMillis(200), 0,
					Duration.ofSeconds(1), new PathResults(streams)))
			.withMessageContaining("loopback only");
		assertThat(this.server.received()).isZero();
	}

	@Test
	void poissonArrivalsFollowTheirRateAndRepeatWithTheirSeed() throws Exception {
		// Nothing in the first half second, 200 per second after it.
		Stream stream = new Stream("a", "GET", URI.create("http://localhost/"),
				Arrivals.poisson((t) -> (t < 0.5) ? 0 : 200, 200));
		Sender answeredAtOnce = new Sender() {

			@Override
			public CompletableFuture<Answer> send(Stream ignored) {
				return CompletableFuture.completedFuture(Answer.ofStatus(200));
			}

			@Override
			public Duration requestTimeout() {
				return REQUEST_TIMEOUT;
			}

		};
		PathResult first = run(new OpenLoopLoad(answeredAtOnce), 7, stream);
		PathResult again = run(new OpenLoopLoad(answeredAtOnce), 7, stream);
		PathResult otherSeed = run(new OpenLoopLoad(answeredAtOnce), 8, stream);

		assertThat(first.count()).isBetween(60L, 140L);
		assertThat(first.samples()).allMatch((sample) -> sample.due().compareTo(Duration.ofMillis(500)) >= 0);
		assertThat(again.samples()).extracting(Sample::due)
			.containsExactlyElementsOf(first.samples().stream().map(Sample::due).toList());
		assertThat(otherSeed.samples()).extracting(Sample::due)
			.isNotEqualTo(first.samples().stream().map(Sample::due).toList());
	}

	private static PathResult run(OpenLoopLoad load, Duration length, Stream stream) throws InterruptedException {
		PathResults results = new PathResults(List.of(stream));
		assertThat(load.run(List.of(stream), length, 0, Duration.ofSeconds(10), results)).isZero();
		return results.get(stream.path());
	}

	private static PathResult run(OpenLoopLoad load, long seed, Stream stream) throws InterruptedException {
		PathResults results = new PathResults(List.of(stream));
		load.run(List.of(stream), Duration.ofSeconds(1), seed, Duration.ofSeconds(1), results);
		return results.get(stream.path());
	}

}
