package io.pathfence.sct.validation;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Closed-loop clients on platform threads, each with one keep-alive HTTP/1.1 connection
 * spoken by hand (the JDK's HttpClient costs more CPU than the service itself on a 2-core
 * machine); only the first {@code clients} of them send.
 */
public final class HttpLoad implements AutoCloseable {

	private final List<Thread> threads = new ArrayList<>();

	private final AtomicLong completions = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	private final List<java.net.Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

	private volatile int clients;

	private volatile boolean recording;

	private double[] latencies = new double[4096];

	private int recorded;

	private volatile boolean stopped;

	public HttpLoad(URI uri, int maxClients) {
		byte[] request = ("GET " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\n\r\n")
			.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
		for (int i = 0; i < maxClients; i++) {
			int index = i;
			Thread t = new Thread(() -> {
				while (!stopped) {
					try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
						sockets.add(socket);
						socket.setTcpNoDelay(true);
						socket.setSoTimeout(5_000);
						java.io.OutputStream out = socket.getOutputStream();
						java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
						while (!stopped) {
							if (index >= clients) {
								LockSupport.parkNanos(200_000);
								continue;
							}
							long sent = System.nanoTime();
							out.write(request);
							out.flush();
							boolean ok = readResponse(in);
							(ok ? completions : failures).incrementAndGet();
							if (ok && recording) {
								record((System.nanoTime() - sent) / 1e6);
							}
						}
					}
					catch (IOException e) {
						if (!stopped) {
							failures.incrementAndGet();
						}
					}
				}
			}, "sct-client-" + i);
			t.setDaemon(true);
			t.start();
			threads.add(t);
		}
	}

	/** Reads one response with a Content-Length body; true if its status was 200. */
	private static boolean readResponse(java.io.InputStream in) throws IOException {
		String status = line(in);
		int length = 0;
		for (String header = line(in); !header.isEmpty(); header = line(in)) {
			if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
				length = Integer.parseInt(header.substring(15).strip());
			}
		}
		for (int i = 0; i < length; i++) {
			if (in.read() < 0) {
				throw new java.io.EOFException();
			}
		}
		return status.startsWith("HTTP/1.1 200");
	}

	private static String line(java.io.InputStream in) throws IOException {
		StringBuilder b = new StringBuilder(64);
		for (int c = in.read(); c != '\n'; c = in.read()) {
			if (c < 0) {
				throw new java.io.EOFException();
			}
			if (c != '\r') {
				b.append((char) c);
			}
		}
		return b.toString();
	}

	/**
	 * Requests that failed (I/O error, timeout or a status other than 200) since the
	 * start.
	 */
	public long failures() {
		return failures.get();
	}

	public void clients(int n) {
		clients = n;
	}

	private synchronized void record(double millis) {
		if (recorded == latencies.length) {
			latencies = java.util.Arrays.copyOf(latencies, recorded * 2);
		}
		latencies[recorded++] = millis;
	}

	/** Throughput, mean and p99 response time (client side) with {@code n} clients. */
	public SimulatedServer.Measurement measure(int n, long warmupMillis, long measureMillis)
			throws InterruptedException {
		clients = n;
		Thread.sleep(warmupMillis);
		synchronized (this) {
			recorded = 0;
		}
		recording = true;
		long before = completions.get();
		long start = System.nanoTime();
		Thread.sleep(measureMillis);
		recording = false;
		long done = completions.get() - before;
		double seconds = (System.nanoTime() - start) / 1e9;
		synchronized (this) {
			SimulatedServer.Measurement m = SimulatedServer.measure(seconds, recorded, latencies, 0);
			return new SimulatedServer.Measurement(seconds, done, done / seconds, m.meanMillis(), m.p99Millis(), 0);
		}
	}

	public double throughputAt(int n, long warmupMillis, long measureMillis) throws InterruptedException {
		clients = n;
		Thread.sleep(warmupMillis);
		long before = completions.get();
		long start = System.nanoTime();
		Thread.sleep(measureMillis);
		long done = completions.get() - before;
		return done / ((System.nanoTime() - start) / 1e9);
	}

	@Override
	public void close() throws InterruptedException, IOException {
		stopped = true;
		for (java.net.Socket socket : sockets) {
			socket.close();
		}
		for (Thread t : threads) {
			t.join(2_000);
		}

	}

}
