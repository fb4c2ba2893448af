package io.pathfence.isolation;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * Two loopback downstreams in one server: {@code /stall} answers after a fixed pause (a
 * millibottleneck that lasts the whole run), {@code /fast} answers at once. It has
 * threads enough never to be the bottleneck itself.
 */
final class StallingDownstream implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	StallingDownstream(long stallMillis) throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 500);
		this.server.createContext("/stall", (exchange) -> {
			sleep(stallMillis);
			answer(exchange);
		});
		this.server.createContext("/fast", StallingDownstream::answer);
		this.server.setExecutor(this.threads);
		this.server.start();
	}

	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	private static void answer(HttpExchange exchange) throws IOException {
		byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
