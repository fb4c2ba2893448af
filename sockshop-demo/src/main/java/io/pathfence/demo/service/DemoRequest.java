package io.pathfence.demo.service;

import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A request as every client of the demo sends it, the load generator and the services
 * alike: blocking HTTP/1.1 with the execution path's label, a POST or PUT with a small
 * JSON body. The JDK's {@code HttpURLConnection} keeps connections alive between requests
 * (up to {@code http.maxConnections} per host, which the runner sets).
 */
public final class DemoRequest {

	/**
	 * Long enough to ride out a dropped SYN (retransmitted after 1 s, then 3 s), as a
	 * default client does.
	 */
	static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

	private DemoRequest() {
	}

	/**
	 * Opens a connection to {@code uri} and sends the request on it; the caller reads the
	 * answer, to its end so that the connection can be kept alive.
	 * @param uri where to
	 * @param method the HTTP method
	 * @param executionPath the path's label, or {@code null} for none
	 * @param answerTimeout how long to wait for the answer
	 * @return the connection, its request sent
	 * @throws IOException if the connection or the request failed; the connection, if
	 * any, is then disconnected
	 */
	public static HttpURLConnection send(URI uri, String method, String executionPath, Duration answerTimeout)
			throws IOException {
		return send(uri, method, executionPath, Map.of(), answerTimeout);
	}

	/**
	 * Opens a connection to {@code uri} and sends the request on it with further headers
	 * (a trace's context); otherwise as {@link #send(URI, String, String, Duration)}.
	 */
	public static HttpURLConnection send(URI uri, String method, String executionPath, Map<String, String> headers,
			Duration answerTimeout) throws IOException {
		HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
		try {
			connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
			connection.setReadTimeout((int) answerTimeout.toMillis());
			connection.setRequestMethod(method);
			headers.forEach(connection::setRequestProperty);
			if (executionPath != null) {
				connection.setRequestProperty(DemoHeaders.PATH, executionPath);
			}
			if (!method.equals("GET")) {
				byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
				connection.setDoOutput(true);
				connection.setFixedLengthStreamingMode(body.length);
				connection.setRequestProperty("Content-Type", "application/json");
				try (OutputStream out = connection.getOutputStream()) {
					out.write(body);
				}
			}
			return connection;
		}
		catch (IOException | RuntimeException ex) {
			connection.disconnect();
			throw ex;
		}
	}

}
