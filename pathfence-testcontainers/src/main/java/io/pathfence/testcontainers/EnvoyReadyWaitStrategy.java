package io.pathfence.testcontainers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.Collectors;

import com.github.dockerjava.api.command.InspectContainerResponse;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;

/**
 * Waits until Envoy's admin {@code /ready} answers 200, and fails at once when Envoy
 * exits first: a refused filter configuration stops Envoy within a second, and the test
 * should see the filter's message then, not a timeout a minute later.
 */
final class EnvoyReadyWaitStrategy extends AbstractWaitStrategy {

	private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

	private final int adminPort;

	EnvoyReadyWaitStrategy(int adminPort) {
		this.adminPort = adminPort;
	}

	@Override
	protected void waitUntilReady() {
		long deadline = System.nanoTime() + this.startupTimeout.toNanos();
		while (true) {
			if (!this.waitStrategyTarget.isRunning()) {
				throw new ContainerLaunchException(exitReport());
			}
			if (isReady()) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new ContainerLaunchException(
						"Envoy's admin /ready did not answer 200 within " + this.startupTimeout.toSeconds() + " s");
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new ContainerLaunchException("interrupted while waiting for Envoy", ex);
			}
		}
	}

	private boolean isReady() {
		String url = "http://" + this.waitStrategyTarget.getHost() + ":"
				+ this.waitStrategyTarget.getMappedPort(this.adminPort) + "/ready";
		try {
			HttpResponse<Void> response = CLIENT.send(
					HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(1)).build(),
					HttpResponse.BodyHandlers.discarding());
			return response.statusCode() == 200;
		}
		catch (IOException notYet) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ContainerLaunchException("interrupted while waiting for Envoy", ex);
		}
	}

	/**
	 * Why Envoy stopped: its exit code and the log lines that say so (the filter's own
	 * line first).
	 */
	private String exitReport() {
		InspectContainerResponse.ContainerState state = this.waitStrategyTarget.getCurrentContainerInfo().getState();
		String logs = this.waitStrategyTarget.getLogs();
		String errors = logs.lines()
			.filter((line) -> line.contains("pathfence") || line.contains("[critical]") || line.contains("[error]"))
			.sorted((a, b) -> Boolean.compare(!a.contains("invalid pathfence configuration"),
					!b.contains("invalid pathfence configuration")))
			.collect(Collectors.joining("\n"));
		return "Envoy exited with code " + state.getExitCodeLong() + " before it was ready:\n"
				+ (errors.isEmpty() ? logs : errors);
	}

}
