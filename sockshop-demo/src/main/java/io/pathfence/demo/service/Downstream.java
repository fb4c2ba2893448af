package io.pathfence.demo.service;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.RequestReplySenderContext;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * Blocking HTTP/1.1 calls to one downstream service, as a synchronous service makes them:
 * the calling thread does the I/O and waits for the answer. A connection that cannot be
 * made or an answer that does not come is turned into the gateway status a real service
 * would return (502 or 504), so the load generator can tell them from rejections.
 * <p>
 * The JDK's {@code HttpURLConnection} keeps connections alive between calls and costs the
 * caller about a third of the CPU time per call of the JDK's {@code HttpClient}, whose
 * selector thread and asynchronous hand-offs were most of a service's CPU on two cores at
 * the demo's rates. Idle connections are kept up to {@code http.maxConnections} per
 * downstream (the runner sets it).
 */
public final class Downstream {

	private final String name;

	private final URI base;

	private final Duration answerTimeout;

	private final ObservationRegistry observations;

	/**
	 * A downstream whose calls are observed as client requests to {@code name}, children
	 * of the inbound request's observation, as Spring's own clients' are: what
	 * PathFence's discovery learns a route's calls from, and, with tracing, client spans
	 * whose context goes along in the request's headers. A no-op registry observes
	 * nothing and costs nothing.
	 */
	public Downstream(String name, String baseUrl, Duration answerTimeout, ObservationRegistry observations) {
		this.name = name;
		this.base = URI.create(baseUrl);
		this.answerTimeout = answerTimeout;
		this.observations = observations;
	}

	/**
	 * Sends {@code method path} (a POST with a small JSON body) with the execution path's
	 * label, and returns the answer, or the gateway status for a failure.
	 */
	public ResponseEntity<String> send(String method, String path, String executionPath) {
		if (this.observations.isNoop()) {
			return call(method, path, executionPath);
		}
		// The carrier collects the headers a tracer propagates (none without one); they
		// are sent with the request.
		Map<String, String> headers = new LinkedHashMap<>();
		RequestReplySenderContext<Map<String, String>, Object> context = new RequestReplySenderContext<>(Map::put);
		context.setCarrier(headers);
		context.setRemoteServiceName(this.name);
		return Observation.createNotStarted("http.client.requests", () -> context, this.observations)
			.observe(() -> call(method, path, executionPath, headers));
	}

	private ResponseEntity<String> call(String method, String path, String executionPath) {
		return call(method, path, executionPath, Map.of());
	}

	private ResponseEntity<String> call(String method, String path, String executionPath, Map<String, String> headers) {
		HttpURLConnection connection = null;
		try {
			connection = DemoRequest.send(this.base.resolve(path), method, executionPath, headers, this.answerTimeout);
			int status = connection.getResponseCode();
			// The body is read to its end so that the connection can be kept alive.
			InputStream in = (status < 400) ? connection.getInputStream() : connection.getErrorStream();
			String body = "";
			if (in != null) {
				try (in) {
					body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
				}
			}
			return ResponseEntity.status(status).body(body);
		}
		catch (SocketTimeoutException ex) {
			if (connection != null) {
				connection.disconnect();
			}
			return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT).body("timeout calling " + this.base);
		}
		catch (IOException ex) {
			if (connection != null) {
				connection.disconnect();
			}
			return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body("cannot reach " + this.base + ": " + ex);
		}
	}

}
