package io.pathfence.testcontainers;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The container tests' target: answers {@code /sleep/<ms>} after that many milliseconds
 * and anything else at once, with the request path in the body. Runs in the base image
 * from its class file ({@code java -cp /app}), or in the test JVM as a host target.
 */
public final class HelloServer {

	private HelloServer() {
	}

	public static void main(String[] args) throws IOException {
		start(new InetSocketAddress(Integer.parseInt(args[0])));
	}

	static HttpServer start(InetSocketAddress address) throws IOException {
		HttpServer server = HttpServer.create(address, 64);
		server.createContext("/", HelloServer::handle);
		server.setExecutor(Executors.newCachedThreadPool());
		server.start();
		return server;
	}

	private static void handle(HttpExchange exchange) throws IOException {
		String path = exchange.getRequestURI().getPath();
		if (path.startsWith("/sleep/")) {
			try {
				Thread.sleep(Long.parseLong(path.substring("/sleep/".length())));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		byte[] body = ("hello " + path).getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

}
