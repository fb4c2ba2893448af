package io.pathfence.learning;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A downstream service on loopback that answers every request, after a pause that can be
 * switched on to stall it. It has threads enough never to be the bottleneck itself.
 */
final class Downstream implements AutoCloseable, AfterAllCallback {

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private volatile long stallMillis;

	Downstream() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 500);
		this.server.createContext("/", this::answer);
		this.server.setExecutor(this.threads);
		this.server.start();
	}

	/**
	 * A downstream for one test class, as a {@code @RegisterExtension} static field: it
	 * is stopped once the class's tests are done.
	 */
	static Downstream forTestClass() {
		try {
			return new Downstream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** How a client names it when the client has no name for it: host and port. */
	String hostAndPort() {
		return "127.0.0.1:" + this.server.getAddress().getPort();
	}

	String baseUrl() {
		return "http://" + hostAndPort();
	}

	void stall(long millis) {
		this.stallMillis = millis;
	}

	private void answer(HttpExchange exchange) throws IOException {
		long pause = this.stallMillis;
		if (pause > 0) {
			try {
				Thread.sleep(pause);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		exchange.getRequestBody().readAllBytes();
		byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
