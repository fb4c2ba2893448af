package io.pathfence.testcontainers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bootstrap as the demo uses it: Envoy run as a process on this machine, bound to
 * loopback, in front of a server on loopback. No Docker needed, only the venv's Envoy.
 */
class EnvoyBootstrapOnTheHostTests {

	private static final String LOOPBACK = "127.0.0.1";

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	@Test
	void whenBoundToLoopbackThenAnEnvoyOnTheHostListensThereAndReachesALoopbackTarget(@TempDir Path dir)
			throws Exception {
		Path envoy = DockerTestSupport.requireEnvoyBinary();
		HttpServer target = HelloServer.start(new InetSocketAddress(LOOPBACK, 0));
		int proxyPort = freePort();
		int adminPort = freePort();
		Path bootstrap = dir.resolve("envoy.json");
		Files.writeString(bootstrap,
				new EnvoyBootstrap(proxyPort, adminPort, LOOPBACK, target.getAddress().getPort())
					.withListenAddress(LOOPBACK)
					.toJson());
		Path log = dir.resolve("envoy.log");
		Process process = new ProcessBuilder(envoy.toString(), "-c", bootstrap.toString(), "--concurrency", "1",
				"--disable-hot-restart", "-l", "warn")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			awaitReady(process, adminPort, log);

			HttpResponse<String> answer = get("http://" + LOOPBACK + ":" + proxyPort + "/through-envoy");
			assertThat(answer.statusCode()).isEqualTo(200);
			assertThat(answer.body()).isEqualTo("hello /through-envoy");
			assertThat(get("http://" + LOOPBACK + ":" + adminPort + "/listeners").body())
				.contains(LOOPBACK + ":" + proxyPort)
				.doesNotContain("0.0.0.0");
		}
		finally {
			process.destroy();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
			target.stop(0);
		}
	}

	private void awaitReady(Process process, int adminPort, Path log) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			assertThat(process.isAlive()).as("Envoy is running; its log: %s", Files.readString(log)).isTrue();
			try {
				if (get("http://" + LOOPBACK + ":" + adminPort + "/ready").statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			Thread.sleep(100);
		}
		throw new AssertionError("Envoy was not ready within 60 s; its log: " + Files.readString(log));
	}

	private HttpResponse<String> get(String uri) throws IOException, InterruptedException {
		return this.client.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
