package io.pathfence.whatif.profile;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.pathfence.whatif.agent.AgentBinary;
import io.pathfence.whatif.agent.PauseAgentClient;
import io.pathfence.whatif.agent.PauseAgentProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A profiling run of two real services: payment, a Spring Boot JVM of its own under the
 * real pause agent, spending 3 ms of CPU per call; and the front, in this JVM, calling
 * payment twice per order. Both count their calls with Micrometer and serve them as
 * Prometheus text through Tomcat.
 */
class CallProfilerTests {

	private static final long PAY_CPU_MS = 3;

	private static final int ORDERS = 300;

	private static PauseAgentProcess payment;

	private static ConfigurableApplicationContext front;

	private static URI paymentUri;

	private static URI frontUri;

	private static final HttpClient HTTP = HttpClient.newHttpClient();

	@BeforeAll
	static void startTheShop() throws Exception {
		int port;
		try (ServerSocket free = new ServerSocket(0)) {
			port = free.getLocalPort();
		}
		String java = ProcessHandle.current().info().command().orElseThrow();
		List<String> command = List.of(java, "-Xmx96m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), ProfiledShop.class.getName(), "--server.port=" + port,
				"--server.address=127.0.0.1", "--pay.cpu-ms=" + PAY_CPU_MS,
				"--management.endpoints.web.exposure.include=health,prometheus");
		payment = PauseAgentProcess.start(AgentBinary.path(), List.of(), command,
				new ProcessBuilder().redirectOutput(ProcessBuilder.Redirect.DISCARD)
					.redirectError(ProcessBuilder.Redirect.INHERIT),
				Duration.ofSeconds(10));
		paymentUri = URI.create("http://127.0.0.1:" + port);
		front = new SpringApplicationBuilder(ProfiledShop.class).run("--server.port=0", "--server.address=127.0.0.1",
				"--payment.url=" + paymentUri, "--management.endpoints.web.exposure.include=health,prometheus",
				"--spring.main.banner-mode=off");
		frontUri = URI.create("http://127.0.0.1:" + front.getEnvironment().getProperty("local.server.port"));
		awaitHealthy(paymentUri, Duration.ofSeconds(60));
	}

	@AfterAll
	static void stopTheShop() {
		if (front != null) {
			front.close();
		}
		if (payment != null) {
			payment.close();
		}
	}

	private static void awaitHealthy(URI service, Duration within) throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		while (System.nanoTime() < deadline) {
			try {
				if (get(service, "/actuator/health") == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException(service + " did not become healthy within " + within);
	}

	private static int get(URI service, String path) throws IOException, InterruptedException {
		return HTTP.send(HttpRequest.newBuilder(service.resolve(path)).build(), HttpResponse.BodyHandlers.discarding())
			.statusCode();
	}

	private static long order(int orders) throws IOException, InterruptedException {
		long completed = 0;
		for (int i = 0; i < orders; i++) {
			if (get(frontUri, "/order") == 200) {
				completed++;
			}
		}
		return completed;
	}

	@Test
	void callsPerRequestAndTheTargetsCpuPerCallAreMeasured() throws Exception {
		// Warmed up first, so that start-up and compilation are not charged to the calls.
		order(ORDERS);
		// A server counts a request just after its response has gone: the counts are read
		// once the last one has.
		Thread.sleep(200);
		CallProfiler profiler = CallProfiler.start(Map.of("front-end", frontUri.resolve("/actuator/prometheus"),
				"payment", paymentUri.resolve("/actuator/prometheus")), "payment", payment.childPid());
		long completed = 0;
		List<Integer> probes = new ArrayList<>();
		for (int batch = 0; batch < 3; batch++) {
			completed += order(ORDERS / 3);
			// Scrapes and health probes in the middle of the run are not calls of the
			// shop.
			probes.add(get(paymentUri, "/actuator/prometheus"));
			probes.add(get(frontUri, "/actuator/health"));
		}
		Thread.sleep(200);
		CallProfiler.ProfilingRun run = profiler.finish(completed);

		assertThat(probes).containsOnly(200);
		assertThat(completed).isEqualTo(ORDERS);
		assertThat(run.servedCalls()).containsExactlyInAnyOrderEntriesOf(Map.of("front-end", 300L, "payment", 600L));
		assertThat(run.profile().callsPerRequest("front-end")).isEqualTo(1.0);
		assertThat(run.profile().callsPerRequest("payment")).isEqualTo(2.0);
		// Each call spins 3 ms of its thread's CPU; Tomcat, the JIT and the collector add
		// a
		// little to each. A clock-tick error (10 ms) or another process counted would not
		// fit.
		System.out.printf("payment: %d calls, %.1f ms of CPU, %.3f ms per call (spins %d ms)%n",
				run.servedCalls().get("payment"), run.targetCpu().toNanos() / 1e6,
				run.targetCpuPerCall().toNanos() / 1e6, PAY_CPU_MS);
		assertThat(run.targetCpuPerCall()).isBetween(Duration.ofMillis(PAY_CPU_MS),
				Duration.ofMillis(PAY_CPU_MS * 5 / 2));
	}

	@Test
	void aTargetWithoutMetricsOrAServiceWithoutTheCounterIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CallProfiler.start(Map.of("front-end", frontUri.resolve("/actuator/prometheus")),
					"payment", payment.childPid()))
			.withMessageContaining("the target 'payment' is not among the services profiled");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CallProfiler.start(Map.of("front-end", frontUri.resolve("/actuator/health"), "payment",
					paymentUri.resolve("/actuator/prometheus")), "payment", payment.childPid()))
			.withMessageContaining("front-end (" + frontUri.resolve("/actuator/health") + ")")
			.withMessageContaining("is not a Prometheus sample");
	}

	@Test
	void aServiceThatDoesNotAnswerAScrapeInTimeIsNamed() throws Exception {
		Map<String, URI> metrics = Map.of("front-end", frontUri.resolve("/actuator/prometheus"), "payment",
				paymentUri.resolve("/actuator/prometheus"));
		Duration timeout = Duration.ofMillis(500);
		// The control: the same scrapes, payment running, are answered in time.
		CallProfiler.start(metrics, "payment", payment.childPid(), new ProcessGroupCpu(), timeout);

		// Payment stopped by its agent for far longer than a scrape may take (within the
		// agent's limit on a pause); the pause ends when its connection closes.
		Throwable thrown;
		AtomicReference<IOException> refused = new AtomicReference<>();
		try (PauseAgentClient agent = payment.connect()) {
			Thread pause = new Thread(() -> {
				try {
					agent.pause(1, Duration.ofSeconds(8).toNanos());
				}
				catch (IOException ex) {
					// ended by the close below, or refused
					refused.set(ex);
				}
			});
			pause.setDaemon(true);
			pause.start();
			awaitStopped(payment.childPid(), refused);
			thrown = catchThrowable(
					() -> CallProfiler.start(metrics, "payment", payment.childPid(), new ProcessGroupCpu(), timeout));
			agent.close();
			pause.join(5_000);
		}

		assertThat(thrown).isInstanceOf(IOException.class)
			.hasMessageStartingWith("payment's metrics (" + paymentUri.resolve("/actuator/prometheus") + ")")
			.hasMessageContaining("no answer within 500 ms");
		assertThat(get(paymentUri, "/actuator/health")).as("continued once the pause's connection closed")
			.isEqualTo(200);
	}

	private static void awaitStopped(long pid, AtomicReference<IOException> refused) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (System.nanoTime() < deadline && refused.get() == null) {
			String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
			if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("T")) {
				return;
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException(pid + " was not stopped within 5 s", refused.get());
	}

	@Test
	void aTargetThatHasExitedIsRefused() throws Exception {
		Process gone = new ProcessBuilder("true").start();
		gone.waitFor();
		assertThat(catchThrowable(() -> new ProcessGroupCpu().used(gone.pid()))).isInstanceOf(IOException.class)
			.hasMessageContaining("no process of group " + gone.pid());
	}

}
