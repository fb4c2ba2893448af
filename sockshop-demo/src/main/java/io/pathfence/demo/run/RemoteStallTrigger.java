package io.pathfence.demo.run;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The millibottleneck of a shop in a cluster: {@code GET <trigger>?ms=D} asks the
 * {@code millibottleneck} sidecar of the payment pod (deploy/k8s/shop.yaml) to stop
 * payment's JVM (SIGSTOP, through the pod's shared process namespace) for D ms, continue
 * it, then answer. {@code ms=0} only checks that the sidecar sees the JVM. The sidecar
 * continues the JVM after D ms by itself, so a runner that dies or is interrupted
 * mid-stall never leaves payment stopped.
 */
final class RemoteStallTrigger implements StallSwitch {

	/** The longest stall the sidecar accepts ({@code ms=0..60000}). */
	static final Duration LONGEST = Duration.ofSeconds(60);

	/** Beyond the stall itself: connecting to the sidecar, and its answer. */
	private static final Duration SLACK = Duration.ofSeconds(10);

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final URI trigger;

	RemoteStallTrigger(URI trigger) {
		this.trigger = trigger;
	}

	/**
	 * Fails, saying why, unless the trigger answers and sees the process it would stop.
	 */
	void check() throws IOException, InterruptedException {
		call(0);
	}

	@Override
	public void stall(long lengthNanos) throws IOException, InterruptedException {
		call(Math.max(1, Math.round(lengthNanos / 1e6)));
	}

	private void call(long millis) throws IOException, InterruptedException {
		String separator = (this.trigger.getRawQuery() == null) ? "?" : "&";
		URI uri = URI.create(this.trigger + separator + "ms=" + millis);
		HttpResponse<String> response = this.client.send(
				HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(millis).plus(SLACK)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IOException(
					"the stall trigger " + uri + " answered " + response.statusCode() + ": " + response.body().strip());
		}
	}

}
