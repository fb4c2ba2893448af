package io.pathfence.demo.run;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pathfence.testcontainers.EnvoyBootstrap;

/**
 * Envoy 1.40 with the PathFence filter in front of the shared service, for the
 * {@code envoy} mode: the language-neutral deployment, where the service runs without the
 * starter and the sidecar fences its paths. The filter's configuration
 * ({@link EnvoyFilterConfig}) mirrors the topology's fence; the bootstrap is the one
 * pathfence-testcontainers writes for its container, bound to loopback. The what-if run's
 * filter mechanism starts one per paused service, each with its own folder for its files.
 */
public final class EnvoySidecar implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	/** The sidecar and the service it fences run on the host: loopback only. */
	private static final String LOOPBACK = "127.0.0.1";

	private final Process process;

	private final int port;

	private final int adminPort;

	private EnvoySidecar(Process process, int port, int adminPort) {
		this.process = process;
		this.port = port;
		this.adminPort = adminPort;
	}

	/**
	 * The Envoy binary: {@code demo.envoy}, else the one scripts/tools.sh installs in the
	 * repository's .venv.
	 */
	static Path binary() {
		return Path.of(System.getProperty("demo.envoy", root().resolve(".venv/bin/envoy").toString()));
	}

	/**
	 * The built filter: {@code demo.wasm}, else the module the envoy-filter build makes
	 * for Envoy.
	 */
	static Path module() {
		return Path.of(System.getProperty("demo.wasm",
				root().resolve("envoy-filter/target/pathfence_envoy_filter.wasm").toString()));
	}

	private static Path root() {
		return Path.of(System.getenv().getOrDefault("PATHFENCE_ROOT", "."));
	}

	/**
	 * Fails with what to do when Envoy or the filter is missing, before any service is
	 * started.
	 */
	public static void checkAvailable() {
		if (!Files.isExecutable(binary())) {
			throw new IllegalArgumentException("The envoy mode needs Envoy 1.40 at " + binary()
					+ " (scripts/tools.sh installs it) or -Ddemo.envoy=PATH");
		}
		if (!Files.isRegularFile(module())) {
			throw new IllegalArgumentException("The envoy mode needs the built filter at " + module()
					+ " (./mvnw -pl envoy-filter package builds it) or -Ddemo.wasm=PATH");
		}
	}

	public static EnvoySidecar start(int port, int adminPort, int servicePort, String filterConfig, Path logs)
			throws IOException, InterruptedException {
		checkAvailable();
		Path bootstrap = logs.resolve("envoy-sidecar.json");
		Files.writeString(bootstrap, bootstrap(port, adminPort, servicePort, filterConfig));
		Process process = new ProcessBuilder(List.of(binary().toString(), "-c", bootstrap.toString(), "--concurrency",
				Integer.toString(EnvoyFilterConfig.WORKERS), "--log-level", "warn", "--base-id",
				Integer.toString(port)))
			.redirectErrorStream(true)
			.redirectOutput(logs.resolve("envoy-sidecar.log").toFile())
			.start();
		EnvoySidecar sidecar = new EnvoySidecar(process, port, adminPort);
		try {
			sidecar.awaitReady(logs);
			return sidecar;
		}
		catch (InterruptedException | RuntimeException ex) {
			sidecar.close();
			throw ex;
		}
	}

	public long pid() {
		return this.process.pid();
	}

	public String baseUrl() {
		return "http://127.0.0.1:" + this.port;
	}

	private void awaitReady(Path logs) throws InterruptedException {
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
		URI ready = URI.create("http://127.0.0.1:" + this.adminPort + "/ready");
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(
						"Envoy exited with " + this.process.exitValue() + "; see " + logs.resolve("envoy-sidecar.log"));
			}
			try {
				HttpResponse<Void> response = client.send(HttpRequest.newBuilder(ready).build(),
						HttpResponse.BodyHandlers.discarding());
				if (response.statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException(
				"Envoy was not ready within " + START_TIMEOUT + "; see " + logs.resolve("envoy-sidecar.log"));
	}

	private static String bootstrap(int port, int adminPort, int servicePort, String filterConfig) {
		return new EnvoyBootstrap(port, adminPort, LOOPBACK, servicePort).withListenAddress(LOOPBACK)
			.withFilter(module().toAbsolutePath().toString(), "pathfence-shared", filterConfig)
			.toJson();
	}

	/**
	 * Prints the filter's tuning gauges (each path's limit, as
	 * {@code pathfence_path_permits}, and the range of its last decision) and its
	 * decisions by verdict, and writes them to {@code envoy-sidecar-tuning.txt}; says so
	 * if Envoy's admin cannot be read.
	 */
	void reportTuning(Path logs) {
		URI stats = URI
			.create("http://127.0.0.1:" + this.adminPort + "/stats?filter=pathfence_path_permits%7Cpathfence_tuning_");
		try {
			HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
			String body = client
				.send(HttpRequest.newBuilder(stats).timeout(Duration.ofSeconds(5)).build(),
						HttpResponse.BodyHandlers.ofString())
				.body();
			Files.writeString(logs.resolve("envoy-sidecar-tuning.txt"), body);
			System.out.println("The filter's tuning at the end (Envoy stats, limit = pathfence_path_permits):");
			body.lines().forEach((line) -> System.out.println("  " + line));
		}
		catch (IOException ex) {
			System.out.println("The filter's tuning at the end: Envoy's stats could not be read: " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				// Waited for too: a sidecar restarted on the same ports must find them
				// free.
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

}
