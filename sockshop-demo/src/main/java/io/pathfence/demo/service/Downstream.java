package io.pathfence.demo.service;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * Blocking HTTP calls to one downstream service, as a synchronous service makes them: the
 * calling thread waits for the answer. A connection that cannot be made or an answer that
 * does not come is turned into the gateway status a real service would return (502 or
 * 504), so the load generator can tell them from rejections.
 */
public final class Downstream {

	/**
	 * Long enough to ride out a dropped SYN (retransmitted after 1 s, then 3 s), as a
	 * default client does.
	 */
	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

	private final HttpClient client;

	private final URI base;

	private final Duration requestTimeout;

	public Downstream(HttpClient client, String baseUrl, Duration requestTimeout) {
		this.client = client;
		this.base = URI.create(baseUrl);
		this.requestTimeout = requestTimeout;
	}

	public static HttpClient newClient() {
		return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT).build();
	}

	public ResponseEntity<String> get(String path) {
		return send(HttpRequest.newBuilder(this.base.resolve(path)).GET());
	}

	public ResponseEntity<String> post(String path, String body) {
		return send(HttpRequest.newBuilder(this.base.resolve(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body)));
	}

	private ResponseEntity<String> send(HttpRequest.Builder request) {
		try {
			HttpResponse<String> response = this.client.send(request.timeout(this.requestTimeout).build(),
					HttpResponse.BodyHandlers.ofString());
			return ResponseEntity.status(response.statusCode()).body(response.body());
		}
		catch (HttpTimeoutException ex) {
			return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT).body("timeout calling " + this.base);
		}
		catch (IOException ex) {
			return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body("cannot reach " + this.base + ": " + ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("interrupted");
		}
	}

}
