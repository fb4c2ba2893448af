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

/**
 * Envoy 1.40 with the PathFence filter in front of the shared service, for the
 * {@code envoy} mode: the language-neutral deployment, where the service runs without the
 * starter and the sidecar fences its paths. The filter's configuration
 * ({@link EnvoyFilterConfig}) mirrors the topology's fence.
 */
final class EnvoySidecar implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

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
	static void checkAvailable() {
		if (!Files.isExecutable(binary())) {
			throw new IllegalArgumentException("The envoy mode needs Envoy 1.40 at " + binary()
					+ " (scripts/tools.sh installs it) or -Ddemo.envoy=PATH");
		}
		if (!Files.isRegularFile(module())) {
			throw new IllegalArgumentException("The envoy mode needs the built filter at " + module()
					+ " (./mvnw -pl envoy-filter package builds it) or -Ddemo.wasm=PATH");
		}
	}

	static EnvoySidecar start(int port, int adminPort, int servicePort, String filterConfig, Path logs)
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

	long pid() {
		return this.process.pid();
	}

	String baseUrl() {
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
		return """
				{"admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": %d}}},
				 "static_resources": {
				  "listeners": [{"name": "shared-inbound",
				    "address": {"socket_address": {"address": "127.0.0.1", "port_value": %d}},
				    "filter_chains": [{"filters": [{"name": "envoy.filters.network.http_connection_manager",
				      "typed_config": {
				        "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
				        "stat_prefix": "shared_inbound",
				        "route_config": {"virtual_hosts": [{"name": "shared", "domains": ["*"],
				          "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "shared", "timeout": "0s"}}]}]},
				        "http_filters": [
				          {"name": "envoy.filters.http.wasm", "typed_config": {
				            "@type": "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm",
				            "config": {"name": "pathfence", "root_id": "pathfence",
				              "vm_config": {"vm_id": "pathfence-shared", "runtime": "envoy.wasm.runtime.v8",
				                "code": {"local": {"filename": %s}}},
				              "configuration": {"@type": "type.googleapis.com/google.protobuf.StringValue",
				                "value": %s}}}},
				          {"name": "envoy.filters.http.router", "typed_config": {
				            "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}]}]}],
				  "clusters": [{"name": "shared", "type": "STATIC", "connect_timeout": "2s",
				    "circuit_breakers": {"thresholds": [
				      {"max_connections": 100000, "max_pending_requests": 100000, "max_requests": 100000}]},
				    "load_assignment": {"cluster_name": "shared", "endpoints": [{"lb_endpoints": [{"endpoint": {
				      "address": {"socket_address": {"address": "127.0.0.1", "port_value": %d}}}}]}]}}]}}
				"""
			.formatted(adminPort, port, jsonString(module().toAbsolutePath().toString()), jsonString(filterConfig),
					servicePort);
	}

	private static String jsonString(String value) {
		StringBuilder out = new StringBuilder("\"");
		for (char c : value.toCharArray()) {
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				default -> out.append(c);
			}
		}
		return out.append('"').toString();
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

}
