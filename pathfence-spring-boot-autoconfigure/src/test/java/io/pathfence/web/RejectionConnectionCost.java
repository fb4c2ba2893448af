package io.pathfence.web;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What Tomcat's {@code Connection: close} on every {@code 503} costs a client. Tomcat
 * closes an HTTP/1.1 connection after any 503, so each rejection costs the client a new
 * connection. Measured side by side, in alternating rounds, against the same service:
 * <ul>
 * <li>{@code rejected}: the fence's 503, on a new connection each time, as Tomcat forces;
 * <li>{@code open, kept}: a small answer that bypasses the fence, on one kept connection;
 * <li>{@code open, new}: the same answer on a new connection each time.
 * </ul>
 * {@code open, new} minus {@code open, kept} is what a new connection costs. Not a test:
 * run it with {@code scripts/bench-rejection-connection.sh}.
 */
public final class RejectionConnectionCost {

	private static final int ROUNDS = 9;

	private static final int SEQUENTIAL_REQUESTS = 2_000;

	private static final int CLIENTS = 4;

	private static final long CONCURRENT_MILLIS = 1_500;

	private RejectionConnectionCost() {
	}

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext service = new SpringApplicationBuilder(Service.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"logging.level.root=warn", "pathfence.pool-size=8", "pathfence.paths.full.permits=0",
					"pathfence.paths.full.max-queue=0", "pathfence.paths.full.routes=/full",
					"pathfence.exempt-routes=/open")
			.run();
		try {
			int port = Integer.parseInt(service.getEnvironment().getProperty("local.server.port"));
			Variant[] variants = { new Variant("rejected", "/full", false, 503),
					new Variant("open, kept", "/open", true, 200), new Variant("open, new", "/open", false, 200) };
			for (Variant variant : variants) {
				// Warm-up, and a check that each variant answers as it should.
				sequential(port, variant, SEQUENTIAL_REQUESTS);
				concurrent(port, variant);
			}
			double[][] micros = new double[variants.length][ROUNDS];
			double[][] perSecond = new double[variants.length][ROUNDS];
			long[] connections = new long[variants.length];
			for (int round = 0; round < ROUNDS; round++) {
				for (int i = 0; i < variants.length; i++) {
					// Rotate the order so no variant always runs first.
					int v = (i + round) % variants.length;
					Result result = sequential(port, variants[v], SEQUENTIAL_REQUESTS);
					micros[v][round] = result.nanos / 1000.0 / SEQUENTIAL_REQUESTS;
					connections[v] += result.connections;
					perSecond[v][round] = concurrent(port, variants[v]);
				}
			}
			print(variants, micros, perSecond, connections);
		}
		finally {
			service.close();
		}
	}

	private static void print(Variant[] variants, double[][] micros, double[][] perSecond, long[] connections) {
		System.out.printf(Locale.ROOT, "%d rounds; per round %d sequential requests and %d clients for %d ms%n", ROUNDS,
				SEQUENTIAL_REQUESTS, CLIENTS, CONCURRENT_MILLIS);
		System.out.printf(Locale.ROOT, "| variant | connections per request | us per request, 1 client (median) |"
				+ " requests/s, %d clients (median) |%n| --- | ---: | ---: | ---: |%n", CLIENTS);
		for (int v = 0; v < variants.length; v++) {
			System.out.printf(Locale.ROOT, "| %s | %.2f | %.1f | %.0f |%n", variants[v].name,
					connections[v] / (double) (ROUNDS * SEQUENTIAL_REQUESTS), median(micros[v]), median(perSecond[v]));
		}
		double[] connectionCost = new double[ROUNDS];
		double[] keptOverNew = new double[ROUNDS];
		double[] rejectedOverKept = new double[ROUNDS];
		for (int round = 0; round < ROUNDS; round++) {
			connectionCost[round] = micros[2][round] - micros[1][round];
			keptOverNew[round] = perSecond[1][round] / perSecond[2][round];
			rejectedOverKept[round] = micros[0][round] / micros[1][round];
		}
		System.out.printf(Locale.ROOT,
				"a new connection adds %.1f us per request (median of per-round differences);"
						+ " a kept connection serves %.2f x the requests/s of new ones (%d clients);"
						+ " a rejection takes %.2f x the time of a kept-connection answer%n",
				median(connectionCost), median(keptOverNew), CLIENTS, median(rejectedOverKept));
	}

	private static Result sequential(int port, Variant variant, int requests) throws IOException {
		Client client = new Client(port, variant);
		long started = System.nanoTime();
		try {
			for (int i = 0; i < requests; i++) {
				client.request();
			}
		}
		finally {
			client.close();
		}
		return new Result(System.nanoTime() - started, client.connections);
	}

	private static double concurrent(int port, Variant variant) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
		AtomicBoolean stop = new AtomicBoolean();
		try {
			List<Future<Long>> counts = new ArrayList<>();
			long started = System.nanoTime();
			for (int c = 0; c < CLIENTS; c++) {
				counts.add(threads.submit(() -> {
					Client client = new Client(port, variant);
					long done = 0;
					try {
						while (!stop.get()) {
							client.request();
							done++;
						}
					}
					finally {
						client.close();
					}
					return done;
				}));
			}
			Thread.sleep(CONCURRENT_MILLIS);
			stop.set(true);
			long total = 0;
			for (Future<Long> count : counts) {
				total += count.get();
			}
			return total / ((System.nanoTime() - started) / 1e9);
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	private record Variant(String name, String path, boolean keepAlive, int status) {
	}

	private record Result(long nanos, long connections) {
	}

	/**
	 * One HTTP/1.1 client connection at a time, opened again whenever the server closed
	 * it or the variant asks for a new one.
	 */
	private static final class Client {

		private final int port;

		private final Variant variant;

		private final byte[] request;

		private Socket socket;

		private InputStream in;

		private OutputStream out;

		long connections;

		Client(int port, Variant variant) {
			this.port = port;
			this.variant = variant;
			this.request = ("GET " + variant.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
					+ (variant.keepAlive() ? "" : "Connection: close\r\n") + "\r\n")
				.getBytes(StandardCharsets.US_ASCII);
		}

		void request() throws IOException {
			if (this.socket == null) {
				this.socket = new Socket("127.0.0.1", this.port);
				this.socket.setTcpNoDelay(true);
				this.in = new BufferedInputStream(this.socket.getInputStream());
				this.out = this.socket.getOutputStream();
				this.connections++;
			}
			this.out.write(this.request);
			this.out.flush();
			String head = readHead();
			int status = Integer.parseInt(head.substring(9, 12));
			if (status != this.variant.status()) {
				throw new IllegalStateException(
						this.variant.name() + ": expected " + this.variant.status() + ", got " + head);
			}
			int length = contentLength(head);
			if (this.in.readNBytes(length).length != length) {
				throw new IOException("response body cut short");
			}
			if (head.toLowerCase(Locale.ROOT).contains("\r\nconnection: close")) {
				close();
			}
		}

		private String readHead() throws IOException {
			StringBuilder head = new StringBuilder(256);
			int matched = 0;
			while (matched < 4) {
				int b = this.in.read();
				if (b < 0) {
					throw new IOException("connection closed before the response ended");
				}
				head.append((char) b);
				matched = (b == ((matched % 2 == 0) ? '\r' : '\n')) ? matched + 1 : ((b == '\r') ? 1 : 0);
			}
			return head.toString();
		}

		private static int contentLength(String head) {
			for (String line : head.split("\r\n")) {
				if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
					return Integer.parseInt(line.substring(15).trim());
				}
			}
			throw new IllegalStateException("no Content-Length in " + head);
		}

		void close() throws IOException {
			if (this.socket != null) {
				this.socket.close();
				this.socket = null;
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Service.Handlers.class)
	static class Service {

		@RestController
		static class Handlers {

			/** About the size of the fence's problem body. */
			private static final String BODY = "x".repeat(220);

			@GetMapping("/open")
			String open() {
				return BODY;
			}

			@GetMapping("/full")
			String full() {
				return BODY;
			}

		}

	}

}
