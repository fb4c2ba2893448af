package io.pathfence.demo.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.pathfence.demo.service.DemoHeaders;

/**
 * The load generator's blocking HTTP/1.1 request, made on a virtual thread of its own:
 * cheap on two cores shared with the services, and each request's outcome is simply what
 * the call returned or threw. Connections are kept alive between requests (up to
 * {@code http.maxConnections}, which the runner raises).
 */
final class HttpSender {

	private static final int CONNECT_TIMEOUT_MILLIS = 5000;

	static {
		// A burst must not end in a storm of new connections from the generator itself.
		if (System.getProperty("http.maxConnections") == null) {
			System.setProperty("http.maxConnections", "1000");
		}
	}

	private final Duration requestTimeout;

	HttpSender(Duration requestTimeout) {
		this.requestTimeout = requestTimeout;
	}

	/** Sends one request of the path and says what became of it. */
	Outcome send(String method, URI uri, String path) {
		HttpURLConnection connection = null;
		try {
			connection = (HttpURLConnection) uri.toURL().openConnection();
			connection.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
			connection.setReadTimeout((int) this.requestTimeout.toMillis());
			connection.setRequestMethod(method);
			connection.setRequestProperty(DemoHeaders.PATH, path);
			if (!method.equals("GET")) {
				byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
				connection.setDoOutput(true);
				connection.setFixedLengthStreamingMode(body.length);
				connection.setRequestProperty("Content-Type", "application/json");
				try (OutputStream out = connection.getOutputStream()) {
					out.write(body);
				}
			}
			int status = connection.getResponseCode();
			InputStream in = (status < 400) ? connection.getInputStream() : connection.getErrorStream();
			if (in != null) {
				try (in) {
					in.transferTo(OutputStream.nullOutputStream());
				}
			}
			return Outcome.ofStatus(status);
		}
		catch (IOException ex) {
			if (connection != null) {
				connection.disconnect();
			}
			return Outcome.CONNECTION_OR_TIMEOUT;
		}
	}

}
