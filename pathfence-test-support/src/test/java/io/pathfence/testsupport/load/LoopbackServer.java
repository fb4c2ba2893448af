package io.pathfence.testsupport.load;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP server on loopback for the load's tests: {@code /ok} answers 200 at once,
 * {@code /stall} after {@link #STALL_MILLIS} (or when the server closes), {@code /reject}
 * 503 as a fence does.
 */
final class LoopbackServer implements AutoCloseable {

	static final long STALL_MILLIS = 300;

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final CountDownLatch closing = new CountDownLatch(1);

	private final AtomicInteger received = new AtomicInteger();

	private volatile long stallMillis = STALL_MILLIS;

	LoopbackServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1000);
		this.server.setExecutor(this.threads);
		this.server.createContext("/ok", (exchange) -> answer(exchange, 200, "ok"));
		this.server.createContext("/stall", (exchange) -> {
			try {
				this.closing.await(this.stallMillis, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			answer(exchange, 200, "late");
		});
		this.server.createContext("/reject", (exchange) -> {
			exchange.getResponseHeaders().add("x-pathfence-path", "a");
			answer(exchange, 503, "{\"status\":503,\"path\":\"a\",\"reason\":\"queue-full\"}");
		});
		this.server.start();
	}

	/** Makes {@code /stall} wait this long. */
	void stallFor(long millis) {
		this.stallMillis = millis;
	}

	URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.server.getAddress().getPort() + path);
	}

	/** Requests that reached the server. */
	int received() {
		return this.received.get();
	}

	private void answer(HttpExchange exchange, int status, String body) throws IOException {
		this.received.incrementAndGet();
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	@Override
	public void close() {
		this.closing.countDown();
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
