package io.pathfence.demo.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.pathfence.demo.service.DemoRequest;
import io.pathfence.testsupport.load.Answer;
import io.pathfence.testsupport.load.OpenLoopLoad;
import io.pathfence.testsupport.load.Outcome;
import io.pathfence.testsupport.load.Sender;

/**
 * The load generator's blocking HTTP/1.1 request, made on a virtual thread of its own:
 * cheap on two cores shared with the services, and each request's outcome is simply what
 * the call returned or threw. Connections are kept alive between requests (up to
 * {@code http.maxConnections}, which the runner raises).
 */
final class HttpSender implements Sender {

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

	/**
	 * Sends one request of the stream on a virtual thread of its own, so the load's clock
	 * never waits for it.
	 */
	@Override
	public CompletionStage<Answer> send(OpenLoopLoad.Stream stream) {
		CompletableFuture<Answer> answer = new CompletableFuture<>();
		Thread.ofVirtual()
			.name("load-" + stream.path())
			.start(() -> answer.complete(status(stream.method(), stream.uri(), stream.path())));
		return answer;
	}

	@Override
	public Duration requestTimeout() {
		return this.requestTimeout;
	}

	/** Sends one request of the path and says what became of it. */
	Outcome send(String method, URI uri, String path) {
		return status(method, uri, path).outcome();
	}

	/** Sends one request of the path: its answer's status, or none. */
	private Answer status(String method, URI uri, String path) {
		HttpURLConnection connection = null;
		try {
			connection = DemoRequest.send(uri, method, path, this.requestTimeout);
			int status = connection.getResponseCode();
			InputStream in = (status < 400) ? connection.getInputStream() : connection.getErrorStream();
			if (in != null) {
				try (in) {
					in.transferTo(OutputStream.nullOutputStream());
				}
			}
			return Answer.ofStatus(status);
		}
		catch (IOException ex) {
			if (connection != null) {
				connection.disconnect();
			}
			return Answer.NONE;
		}
	}

}
