package io.pathfence.it.services;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A downstream service: answers every request after {@code --delay-ms} (a request's
 * {@code ?delay=} overrides it), on as many threads as it needs, so that a stall here is
 * a pure wait and never a queue of its own. {@code /health} answers at once.
 */
final class Downstream {

	private Downstream() {
	}

	static void main(String[] args) throws IOException {
		int port = intArg(args, "--port=", 8080);
		long delayMs = intArg(args, "--delay-ms=", 0);
		HttpServer server = HttpServer.create(new InetSocketAddress(port), 1024);
		server.createContext("/", (exchange) -> answer(exchange, delayMs));
		server.createContext("/health", (exchange) -> answer(exchange, 0));
		server.setExecutor(Executors.newCachedThreadPool());
		server.start();
		System.out.println("downstream on " + port + ", delay " + delayMs + " ms");
	}

	private static void answer(HttpExchange exchange, long defaultDelayMs) throws IOException {
		long delayMs = defaultDelayMs;
		String query = exchange.getRequestURI().getQuery();
		if (query != null && query.startsWith("delay=")) {
			delayMs = Long.parseLong(query.substring("delay=".length()));
		}
		if (delayMs > 0) {
			try {
				Thread.sleep(delayMs);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		byte[] body = ("done " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	private static int intArg(String[] args, String prefix, int otherwise) {
		for (String arg : args) {
			if (arg.startsWith(prefix)) {
				return Integer.parseInt(arg.substring(prefix.length()));
			}
		}
		return otherwise;
	}

}
